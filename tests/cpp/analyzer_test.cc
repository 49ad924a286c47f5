// The C++ API end to end on small tables whose answers are worked out by hand in each test.
#include <gtest/gtest.h>

#include <arrow/array/builder_binary.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/array/array_nested.h>
#include <arrow/compute/cast.h>
#include <arrow/scalar.h>
#include <arrow/table.h>

#include "ember/error.h"
#include "ember/session.h"
#include "ember/user_function.h"

namespace ember {
namespace {

std::shared_ptr<arrow::Table> People() {
  arrow::Int32Builder ids;
  arrow::StringBuilder names;
  arrow::Int32Builder ages;
  EXPECT_TRUE(ids.AppendValues({1, 2, 3, 4}).ok());
  EXPECT_TRUE(names.AppendValues({"ann", "bob", "cy", "dee"}).ok());
  EXPECT_TRUE(ages.AppendValues({30, 25, 30, 0}, {1, 1, 1, 0}).ok());
  std::shared_ptr<arrow::Array> a, b, c;
  EXPECT_TRUE(ids.Finish(&a).ok());
  EXPECT_TRUE(names.Finish(&b).ok());
  EXPECT_TRUE(ages.Finish(&c).ok());
  return arrow::Table::Make(arrow::schema({arrow::field("id", arrow::int32()),
                                           arrow::field("name", arrow::utf8()),
                                           arrow::field("age", arrow::int32())}),
                            {a, b, c});
}

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    session_ = Session::Make();
    auto df = session_->FromArrow(People());
    ASSERT_TRUE(df.ok()) << df.status();
    ASSERT_TRUE(session_->CreateTempView("people", *df, true).ok());
  }

  std::shared_ptr<arrow::Table> Query(const std::string& sql) {
    auto df = session_->Sql(sql);
    EXPECT_TRUE(df.ok()) << df.status();
    if (!df.ok()) return nullptr;
    auto table = df->ToTable();
    EXPECT_TRUE(table.ok()) << table.status();
    return table.ok() ? (*table)->CombineChunks().ValueOrDie() : nullptr;
  }

  std::shared_ptr<Session> session_;
};

TEST_F(SessionTest, FilterProjectSort) {
  auto t = Query("SELECT name, age + 1 AS next FROM people WHERE age >= 25 ORDER BY next DESC, name");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->num_rows(), 3);
  EXPECT_EQ(t->schema()->field(1)->name(), "next");
  EXPECT_EQ(t->column(0)->GetScalar(0).ValueOrDie()->ToString(), "ann");
  EXPECT_EQ(t->column(0)->GetScalar(1).ValueOrDie()->ToString(), "cy");
  EXPECT_EQ(t->column(1)->GetScalar(2).ValueOrDie()->ToString(), "26");
}

TEST_F(SessionTest, GroupByCountsNullGroup) {
  auto t = Query("SELECT age, count(*) AS n FROM people GROUP BY age ORDER BY age");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->num_rows(), 3);
  // ASC puts NULL first, as Spark does.
  EXPECT_FALSE(t->column(0)->GetScalar(0).ValueOrDie()->is_valid);
  EXPECT_EQ(t->column(1)->GetScalar(2).ValueOrDie()->ToString(), "2");
}

TEST_F(SessionTest, UnknownColumnIsAnAnalysisError) {
  auto df = session_->Sql("SELECT nme FROM people");
  ASSERT_FALSE(df.ok());
  const ErrorDetail* detail = GetErrorDetail(df.status());
  ASSERT_NE(detail, nullptr);
  EXPECT_EQ(detail->kind(), ErrorKind::kAnalysis);
  EXPECT_EQ(detail->condition(), "UNRESOLVED_COLUMN.WITH_SUGGESTION");
  EXPECT_NE(df.status().message().find("`name`"), std::string::npos) << df.status().message();
}

TEST_F(SessionTest, DivisionByZeroFollowsAnsiMode) {
  auto df = session_->Sql("SELECT id / (age - age) FROM people WHERE age IS NOT NULL");
  ASSERT_TRUE(df.ok()) << df.status();
  auto result = df->ToTable();
  ASSERT_FALSE(result.ok());
  ASSERT_NE(GetErrorDetail(result.status()), nullptr);
  EXPECT_EQ(GetErrorDetail(result.status())->condition(), "DIVIDE_BY_ZERO");
}

TEST_F(SessionTest, DataFrameJoinUsing) {
  auto people = session_->Table("people");
  ASSERT_TRUE(people.ok());
  auto renamed = people->WithColumnsRenamed({{"name", "other"}});
  ASSERT_TRUE(renamed.ok());
  auto joined = people->Join(*renamed, nullptr, {"id"}, "inner");
  ASSERT_TRUE(joined.ok()) << joined.status();
  EXPECT_EQ(joined->schema()->num_fields(), 5);  // id once, then both sides' other columns
  auto count = joined->Count();
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 4);
}

// df.observe(): the rows pass unchanged and the action reports the metrics, aggregated over them.
TEST_F(SessionTest, ObserveReportsMetricsOverTheRowsThatPass) {
  auto people = session_->Table("people");
  ASSERT_TRUE(people.ok());
  auto adults = people->Filter(Call(">=", {Col("age"), Lit(std::make_shared<arrow::Int32Scalar>(25))}));
  ASSERT_TRUE(adults.ok()) << adults.status();
  auto observed = adults->Observe(
      "m", {Call("count", {Lit(std::make_shared<arrow::Int32Scalar>(1))}).Alias("c"),
            Call("sum", {Col("age")}), Call("max", {Col("name")}).Alias("last")});
  ASSERT_TRUE(observed.ok()) << observed.status();
  std::map<std::string, ObservedMetrics> metrics;
  auto rows = observed->ToTable(&metrics);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ((*rows)->num_rows(), 3);
  EXPECT_EQ((*rows)->schema()->ToString(), adults->schema()->ToString());
  ASSERT_EQ(metrics.count("m"), 1u);
  const auto& row = metrics["m"].row;
  ASSERT_EQ(row->num_rows(), 1);
  EXPECT_EQ(row->schema()->field(0)->name(), "c");
  EXPECT_EQ(row->schema()->field(1)->name(), "sum(age)");
  EXPECT_EQ(row->column(0)->GetScalar(0).ValueOrDie()->ToString(), "3");
  EXPECT_EQ(row->column(1)->GetScalar(0).ValueOrDie()->ToString(), "85");
  EXPECT_EQ(row->column(2)->GetScalar(0).ValueOrDie()->ToString(), "cy");
  ASSERT_TRUE(session_->LastObservedMetrics("m").has_value());
}

// Over no rows, a global aggregate's answer: count 0, sum NULL.
TEST_F(SessionTest, ObserveOverNoRows) {
  auto people = session_->Table("people");
  ASSERT_TRUE(people.ok());
  auto none = people->Filter(Call(">", {Col("age"), Lit(std::make_shared<arrow::Int32Scalar>(100))}));
  ASSERT_TRUE(none.ok());
  auto observed = none->Observe("empty", {Call("count", {Col("id")}).Alias("c"),
                                          Call("sum", {Col("age")}).Alias("s")});
  ASSERT_TRUE(observed.ok()) << observed.status();
  std::map<std::string, ObservedMetrics> metrics;
  auto count = observed->ToTable(&metrics);
  ASSERT_TRUE(count.ok()) << count.status();
  const auto& row = metrics["empty"].row;
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->column(0)->GetScalar(0).ValueOrDie()->ToString(), "0");
  EXPECT_FALSE(row->column(1)->GetScalar(0).ValueOrDie()->is_valid);
}

// Spark's CheckAnalysis rules for metrics, with Spark's conditions and messages.
TEST_F(SessionTest, ObservedMetricsMustAggregateTheirColumns) {
  auto people = session_->Table("people");
  ASSERT_TRUE(people.ok());
  auto one = Lit(std::make_shared<arrow::Int32Scalar>(1));
  auto expect_error = [&](const std::string& name, const std::vector<Column>& metrics,
                          const std::string& condition, const std::string& message) {
    auto df = people->Observe(name, metrics);
    ASSERT_FALSE(df.ok()) << condition;
    const ErrorDetail* detail = GetErrorDetail(df.status());
    ASSERT_NE(detail, nullptr) << df.status();
    EXPECT_EQ(detail->kind(), ErrorKind::kAnalysis);
    EXPECT_EQ(detail->condition(), condition);
    EXPECT_NE(df.status().message().find(message), std::string::npos) << df.status().message();
  };
  expect_error("m", {Col("age")}, "INVALID_OBSERVED_METRICS.NON_AGGREGATE_FUNC_ARG_IS_ATTRIBUTE",
               "Invalid observed metrics. Attribute \"age\" can only be used as an argument to an "
               "aggregate function.");
  expect_error("m", {Call("+", {Col("age"), one})},
               "INVALID_OBSERVED_METRICS.NON_AGGREGATE_FUNC_ARG_IS_ATTRIBUTE",
               "Attribute \"(age + 1) AS `(age + 1)`\" can only");
  expect_error("m", {Call("+", {Call("sum", {Col("age")}), Col("id")}).Alias("x")},
               "INVALID_OBSERVED_METRICS.NON_AGGREGATE_FUNC_ARG_IS_ATTRIBUTE",
               "Attribute \"(sum(age) + id) AS x\" can only");
  expect_error("m", {Call("count", {Col("age")}, /*distinct=*/true).Alias("c")},
               "INVALID_OBSERVED_METRICS.AGGREGATE_EXPRESSION_WITH_DISTINCT_UNSUPPORTED",
               "Aggregate expressions with DISTINCT are not allowed in observed metrics, but "
               "found: \"count(DISTINCT age) AS c\".");
  expect_error("m", {Call("sum", {Call("sum", {Col("age")})})},
               "INVALID_OBSERVED_METRICS.NESTED_AGGREGATES_UNSUPPORTED",
               "Nested aggregates are not allowed in observed metrics, but found: "
               "\"sum(sum(age)) AS `sum(sum(age))`\".");
  expect_error("", {Call("count", {one})}, "INVALID_OBSERVED_METRICS.MISSING_NAME",
               "The observed metrics should be named: CollectMetrics , ");
  // Names resolve before the metrics are checked.
  expect_error("m", {Col("agee")}, "UNRESOLVED_COLUMN.WITH_SUGGESTION", "`agee`");
  // A literal is a metric, an aggregate in any expression too.
  auto fine = people->Observe("m", {one.Alias("one"), Call("*", {Call("count", {one}), one})});
  EXPECT_TRUE(fine.ok()) << fine.status();
}

// Two observations of one name in a plan must come from one observing DataFrame (Spark 4.0.1's
// dataframeId): the DataFrame observed, or a Connect plan id.
TEST_F(SessionTest, ObservationNamesBelongToOneObservingDataFrame) {
  auto people = session_->Table("people");
  ASSERT_TRUE(people.ok());
  auto count = Call("count", {Lit(std::make_shared<arrow::Int32Scalar>(1))});
  auto expect_duplicated = [](const arrow::Result<DataFrame>& df) {
    ASSERT_FALSE(df.ok());
    ASSERT_NE(GetErrorDetail(df.status()), nullptr) << df.status();
    EXPECT_EQ(GetErrorDetail(df.status())->condition(), "DUPLICATED_METRICS_NAME");
    EXPECT_EQ(GetErrorDetail(df.status())->sql_state(), "42710");
    EXPECT_NE(df.status().message().find("The metric name is not unique: m."), std::string::npos);
  };
  auto a = people->Observe("m", {count.Alias("c")});
  // people observed again, other metrics: the same observing DataFrame, as in classic Spark.
  auto same_df = people->Observe("m", {Call("sum", {Col("age")})});
  auto other_rows = people->Filter(Call("isnotnull", {Col("age")}));
  ASSERT_TRUE(a.ok() && same_df.ok() && other_rows.ok());
  EXPECT_TRUE(a->Union(*a).ok());
  EXPECT_TRUE(a->Union(*same_df).ok());
  auto self_join = a->Join(*a, nullptr, {"id"}, "inner");
  EXPECT_TRUE(self_join.ok()) << self_join.status();
  auto other = other_rows->Observe("m", {count.Alias("c")});
  ASSERT_TRUE(other.ok());
  expect_duplicated(a->Union(*other));
  expect_duplicated(a->Observe("m", {Call("sum", {Col("age")})}));
  // Connect's plan ids: one relation translated twice is one observation, two are two.
  auto first = people->Observe("m", {count.Alias("c")}, 7);
  auto again = people->Observe("m", {count.Alias("c")}, 7);
  auto second = people->Observe("m", {count.Alias("c")}, 8);
  ASSERT_TRUE(first.ok() && again.ok() && second.ok());
  EXPECT_TRUE(first->Union(*again).ok());
  expect_duplicated(first->Union(*second));
}

// A grouped-aggregate user function (pandas_udf GROUPED_AGG's shape): called once with every
// group, a value per group; people's ages by id % 2: odd ids 1, 3 (30, 30), even 2, 4 (25, NULL).
TEST_F(SessionTest, UserAggregateSeesEachGroupsRowsAndGivesAValuePerGroup) {
  auto calls = std::make_shared<int>(0);
  auto rows_seen = std::make_shared<int>(0);
  auto function = std::make_shared<UserFunction>();
  function->name = "non_null";
  function->return_type = arrow::int64();
  function->aggregate = [calls, rows_seen](const GroupedRows& groups, const std::vector<std::string>&)
      -> arrow::Result<std::shared_ptr<arrow::Array>> {
    ++*calls;
    *rows_seen = static_cast<int>(groups.rows->num_rows());
    const auto& ages = *groups.rows->column(0);
    const auto& offsets = static_cast<const arrow::Int64Array&>(*groups.groups->GetColumnByName("offset"));
    const auto& lengths = static_cast<const arrow::Int64Array&>(*groups.groups->GetColumnByName("length"));
    arrow::Int64Builder out;
    for (int64_t g = 0; g < groups.groups->num_rows(); ++g) {
      int64_t valid = 0;
      for (int64_t i = offsets.Value(g); i < offsets.Value(g) + lengths.Value(g); ++i) valid += ages.IsValid(i);
      ARROW_RETURN_NOT_OK(out.Append(valid));
    }
    return out.Finish();
  };
  auto people = session_->Table("people");
  ASSERT_TRUE(people.ok()) << people.status();
  auto parity = Call("%", {Col("id"), Lit(std::make_shared<arrow::Int32Scalar>(2))}).Alias("odd");
  auto df = people->GroupBy({parity}, {Call(function, {Col("age")}),
                                       Call("+", {Call(function, {Col("name")}), Lit(std::make_shared<arrow::Int64Scalar>(10))})
                                           .Alias("names")});
  ASSERT_TRUE(df.ok()) << df.status();
  auto table = df->ToTable();
  ASSERT_TRUE(table.ok()) << table.status();
  auto t = (*table)->CombineChunks().ValueOrDie();
  ASSERT_EQ(t->num_rows(), 2);
  EXPECT_EQ(t->schema()->field_names(), (std::vector<std::string>{"odd", "non_null(age)", "names"}));
  // Groups in the order of their first rows: id 1 (odd) first.
  EXPECT_EQ(t->column(0)->GetScalar(0).ValueOrDie()->ToString(), "1");
  EXPECT_EQ(t->column(1)->GetScalar(0).ValueOrDie()->ToString(), "2");
  EXPECT_EQ(t->column(1)->GetScalar(1).ValueOrDie()->ToString(), "1");
  EXPECT_EQ(t->column(2)->GetScalar(1).ValueOrDie()->ToString(), "12");
  EXPECT_EQ(*calls, 2);  // once per call in the aggregation, not per group
  EXPECT_EQ(*rows_seen, 4);

  // Not beside the engine's aggregates, not inside another aggregate.
  auto mixed = people->GroupBy({Col("age")}, {Call(function, {Col("id")}), Call("max", {Col("id")})});
  ASSERT_FALSE(mixed.ok());
  ASSERT_NE(GetErrorDetail(mixed.status()), nullptr) << mixed.status();
  EXPECT_EQ(GetErrorDetail(mixed.status())->condition(), "INVALID_PANDAS_UDF_PLACEMENT");
  auto nested = people->GroupBy({Col("age")}, {Call(function, {Call("max", {Col("id")})})});
  ASSERT_FALSE(nested.ok());
  ASSERT_NE(GetErrorDetail(nested.status()), nullptr) << nested.status();
  EXPECT_EQ(GetErrorDetail(nested.status())->condition(), "NESTED_AGGREGATE_FUNCTION");
}

// A table function "repeat_n": for each argument row, n rows of n (n: the argument, or a table
// argument's field n), then from terminate() one row of minus the number of rows given, joined
// with the last argument row.
std::shared_ptr<UserTableFunction> RepeatN(std::shared_ptr<int> calls) {
  auto function = std::make_shared<UserTableFunction>();
  function->name = "repeat_n";
  function->output_schema = arrow::schema({arrow::field("value", arrow::int64())});
  function->call = [calls](const std::shared_ptr<arrow::RecordBatch>& args)
      -> arrow::Result<std::shared_ptr<arrow::RecordBatch>> {
    ++*calls;
    auto column = args->column(0);
    if (column->type_id() == arrow::Type::STRUCT) {
      column = static_cast<const arrow::StructArray&>(*column).GetFieldByName("n");
    }
    ARROW_ASSIGN_OR_RAISE(column, arrow::compute::Cast(*column, arrow::int64()));
    const auto& n = static_cast<const arrow::Int64Array&>(*column);
    arrow::Int64Builder values, rows;
    int64_t given = 0;
    for (int64_t i = 0; i < n.length(); ++i) {
      for (int64_t k = 0; k < n.Value(i); ++k, ++given) {
        ARROW_RETURN_NOT_OK(values.Append(n.Value(i)));
        ARROW_RETURN_NOT_OK(rows.Append(i));
      }
    }
    ARROW_RETURN_NOT_OK(values.Append(-given));
    ARROW_RETURN_NOT_OK(rows.Append(n.length() - 1));
    ARROW_ASSIGN_OR_RAISE(auto value_array, values.Finish());
    ARROW_ASSIGN_OR_RAISE(auto row_array, rows.Finish());
    return arrow::RecordBatch::Make(
        arrow::schema({arrow::field("value", arrow::int64()), arrow::field("row", arrow::int64())}),
        value_array->length(), {value_array, row_array});
  };
  return function;
}

std::vector<std::string> Texts(const std::shared_ptr<arrow::Table>& t, int column) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < t->num_rows(); ++i) {
    out.push_back(t->column(column)->GetScalar(i).ValueOrDie()->ToString());
  }
  return out;
}

TEST_F(SessionTest, OrderByAllSortsByEverySelectedColumnAndOrdinalsCountAStarsColumns) {
  // ages 30, 25, 30, NULL: by age DESC (NULLs last), then name DESC.
  auto t = Query("SELECT age, name FROM people ORDER BY ALL DESC");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(Texts(t, 1), (std::vector<std::string>{"cy", "ann", "bob", "dee"}));
  t = Query("SELECT * FROM people ORDER BY 3, 2 DESC");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(Texts(t, 1), (std::vector<std::string>{"dee", "bob", "cy", "ann"}));
  // A column named `all` is a column.
  t = Query("SELECT id AS all, name FROM people ORDER BY all DESC");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(Texts(t, 1), (std::vector<std::string>{"dee", "cy", "bob", "ann"}));
}

TEST_F(SessionTest, TableFunctionRowsJoinTheirArgumentRowsAndPartitionsEachGetACall) {
  auto calls = std::make_shared<int>(0);
  session_->RegisterTableFunction("repeat_n", RepeatN(calls));
  // LATERAL: each row's rows beside it; terminate()'s with the last row.
  auto t = Query("SELECT * FROM VALUES (2), (0), (1) AS t(n), LATERAL repeat_n(n)");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->schema()->field_names(), (std::vector<std::string>{"n", "value"}));
  EXPECT_EQ(Texts(t, 0), (std::vector<std::string>{"2", "2", "1", "1"}));
  EXPECT_EQ(Texts(t, 1), (std::vector<std::string>{"2", "2", "1", "-3"}));
  EXPECT_EQ(*calls, 1);
  // A table argument by partition: a call each, only the function's columns.
  *calls = 0;
  t = Query("SELECT * FROM repeat_n(TABLE(SELECT * FROM VALUES (1, 1), (2, 2), (1, 3) AS t(k, n)) "
            "PARTITION BY k)");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->schema()->field_names(), (std::vector<std::string>{"value"}));
  EXPECT_EQ(Texts(t, 0), (std::vector<std::string>{"1", "3", "3", "3", "-4", "2", "2", "-2"}));
  EXPECT_EQ(*calls, 2);
  // The DataFrame form: over one row.
  auto df = session_->TableFunction(RepeatN(calls), {Lit(std::make_shared<arrow::Int32Scalar>(3))}, {});
  ASSERT_TRUE(df.ok()) << df.status();
  auto rows = df->ToTable();
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(Texts((*rows)->CombineChunks().ValueOrDie(), 0),
            (std::vector<std::string>{"3", "3", "3", "-3"}));
  // Aliases must match its columns.
  auto aliased = session_->Sql("SELECT * FROM VALUES (1) AS t(a, b)");
  ASSERT_FALSE(aliased.ok());
  EXPECT_EQ(GetErrorDetail(aliased.status())->condition(), "ASSIGNMENT_ARITY_MISMATCH");
}

}  // namespace
}  // namespace ember
