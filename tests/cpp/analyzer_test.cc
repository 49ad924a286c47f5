// The C++ API end to end on small tables whose answers are worked out by hand in each test.
#include <gtest/gtest.h>

#include <arrow/array/builder_binary.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/scalar.h>
#include <arrow/table.h>

#include "ember/error.h"
#include "ember/session.h"

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

}  // namespace
}  // namespace ember
