// Spark's statistical and boolean aggregates beyond the first ones of functions.cc, each one
// arrow hash kernel: stddev and variance (sample and population), skewness and kurtosis
// (population, excess), bool_and / bool_or, count_if; and those of exec/aggregate_kernels.cc:
// max_by / min_by, corr, covar_*, regr_*, bit_*, median, percentile, percentile_approx, mode,
// string_agg / listagg. Batch queries; a streaming aggregation says which it does not keep state
// for (exec/incremental_aggregate.cc).

#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

#include <arrow/array/builder_primitive.h>

#include "ember/error.h"
#include "ember/plan/function_util.h"
#include "ember/plan/type_names.h"

namespace ember::plan::fn {

namespace {

using arrow::Result;
using arrow::Status;

// A statistic of numbers: each value as a DOUBLE, a nullable DOUBLE result.
Result<TypedCall> StatisticRule(const Expr& call, std::vector<ExprPtr> args) {
  auto& t = *args[0]->type;
  if (IsNullType(t) || IsString(t)) args[0] = CastIfNeeded(args[0], arrow::float64());
  if (!IsNumeric(*args[0]->type)) return UnexpectedType(call, 0, *args[0], "\"DOUBLE\"");
  args[0] = CastIfNeeded(args[0], arrow::float64());
  return TypedCall{arrow::float64(), true, std::move(args)};
}

Result<TypedCall> BooleanAggRule(const Expr& call, std::vector<ExprPtr> args) {
  if (IsNullType(*args[0]->type)) args[0] = CastIfNeeded(args[0], arrow::boolean());
  if (args[0]->type->id() != arrow::Type::BOOL) {
    return UnexpectedType(call, 0, *args[0], "\"BOOLEAN\"");
  }
  return TypedCall{arrow::boolean(), true, std::move(args)};
}

// count_if(cond): the rows where cond is true, as the sum of cond as 0 or 1 (0 for no rows).
Result<TypedCall> CountIfRule(const Expr& call, std::vector<ExprPtr> args) {
  ARROW_ASSIGN_OR_RAISE(auto typed, BooleanAggRule(call, std::move(args)));
  typed.args[0] = CastIfNeeded(typed.args[0], arrow::int64());
  return TypedCall{arrow::int64(), false, std::move(typed.args)};
}


// A call of the catalog's function `name` on arguments already typed for it.
ExprPtr TypedCallOf(std::string name, std::vector<ExprPtr> args,
                    std::shared_ptr<arrow::DataType> type, bool nullable) {
  auto e = std::make_shared<Expr>(*Call(std::move(name), std::move(args)));
  e->type = std::move(type);
  e->nullable = nullable;
  return e;
}

// Several arguments as one struct: the executor gives an aggregate kernel one column, and the
// kernels of exec/aggregate_kernels.cc read their arguments as its fields.
ExprPtr Pack(std::vector<ExprPtr> parts) {
  arrow::FieldVector fields;
  for (size_t i = 0; i < parts.size(); ++i) {
    fields.push_back(arrow::field("f" + std::to_string(i), parts[i]->type, true));
  }
  return TypedCallOf("struct", std::move(parts), arrow::struct_(fields), false);
}

// Argument i as a DOUBLE: numbers, and text (cast as Spark's implicit cast, an error for text
// that is not a number) and NULL.
Result<ExprPtr> AsDouble(const Expr& call, const ExprPtr& arg, size_t i) {
  const auto& t = *arg->type;
  if (!IsNumeric(t) && !IsString(t) && !IsNullType(t)) {
    return UnexpectedType(call, i, *arg, "\"DOUBLE\"");
  }
  return CastIfNeeded(arg, arrow::float64());
}

// corr(a, b), covar_*(a, b), regr_*(y, x): the pair as struct<double, double>.
Result<TypedCall> PairRule(const Expr& call, std::vector<ExprPtr> args) {
  ARROW_ASSIGN_OR_RAISE(auto a, AsDouble(call, args[0], 0));
  ARROW_ASSIGN_OR_RAISE(auto b, AsDouble(call, args[1], 1));
  return TypedCall{arrow::float64(), true, {Pack({a, b})}};
}

// regr_count, regr_avgx, regr_avgy (Spark's replacements): count or avg of one argument where
// the other is not NULL.
TypeRule MaskedRule(const char* of, bool of_x) {
  return [of, of_x](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
    for (size_t i = 0; i < 2; ++i) {
      const auto& t = *args[i]->type;
      if (IsString(t) || IsNullType(t)) args[i] = CastIfNeeded(args[i], arrow::float64());
      if (!IsNumeric(*args[i]->type)) return UnexpectedType(call, i, *args[i], "\"NUMERIC\"");
    }
    const ExprPtr& kept = of_x ? args[1] : args[0];
    const ExprPtr& other = of_x ? args[0] : args[1];
    auto masked = TypedCallOf("nvl2", {other, kept, Literal(arrow::MakeNullScalar(kept->type))},
                              kept->type, true);
    return FindFunction(of)->type_rule(call, {masked});
  };
}

// max_by(value, ordering) / min_by: any ordering Spark can sort but a map.
Result<TypedCall> ExtremumByRule(const Expr& call, std::vector<ExprPtr> args) {
  const auto& t = *args[1]->type;
  if (t.id() == arrow::Type::MAP) {
    return Mismatch(call, "INVALID_ORDERING_TYPE",
                    "The `" + call.name + "` does not support ordering on type " + TypeQuoted(t));
  }
  if (t.id() == arrow::Type::LIST || t.id() == arrow::Type::STRUCT) {
    return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                     "The feature is not supported: " + call.name + "() by an array or struct "
                     "ordering in Ember.",
                     "0A000");
  }
  if (IsNullType(t)) args[1] = CastIfNeeded(args[1], arrow::int32());
  auto type = args[0]->type;
  return TypedCall{type, true, {Pack({args[0], args[1]})}};
}

// bit_and / bit_or / bit_xor: an integral value, a result of its type.
Result<TypedCall> BitRule(const Expr& call, std::vector<ExprPtr> args) {
  if (IsNullType(*args[0]->type)) args[0] = CastIfNeeded(args[0], arrow::int32());
  if (!IsIntegral(*args[0]->type)) return UnexpectedType(call, 0, *args[0], "\"INTEGRAL\"");
  auto type = args[0]->type;
  return TypedCall{type, true, std::move(args)};
}

Status NotFoldable(const Expr& call, const Expr& arg, const std::string& type) {
  return Mismatch(call, "NON_FOLDABLE_INPUT",
                  "the input " + Quoted(arg) + " should be a foldable " + type +
                      " expression; however, got " + Quoted(arg));
}

// A constant number: a literal, perhaps negated or cast. NULL: std::nullopt.
Result<std::optional<double>> ConstantNumber(const Expr& call, const ExprPtr& arg) {
  const Expr& e = *StripAlias(arg);
  if (e.kind == ExprKind::kLiteral) {
    if (!e.value->is_valid) return std::optional<double>();
    if (!IsNumeric(*e.type)) return NotFoldable(call, e, "\"DOUBLE\"");
    if (e.type->id() == arrow::Type::DECIMAL128) {  // arrow casts no decimal scalar to double
      const auto& d = static_cast<const arrow::Decimal128Scalar&>(*e.value);
      return std::optional<double>(
          d.value.ToDouble(static_cast<const arrow::Decimal128Type&>(*e.type).scale()));
    }
    ARROW_ASSIGN_OR_RAISE(auto d, e.value->CastTo(arrow::float64()));
    return std::optional<double>(static_cast<const arrow::DoubleScalar&>(*d).value);
  }
  if ((e.kind == ExprKind::kCast || (e.kind == ExprKind::kCall && e.name == "negative")) &&
      e.args.size() == 1) {
    ARROW_ASSIGN_OR_RAISE(auto v, ConstantNumber(call, e.args[0]));
    if (v && e.kind == ExprKind::kCall) *v = -*v;
    return v;
  }
  return NotFoldable(call, e, "\"DOUBLE\"");
}

// percentile's and percentile_approx's percentage(s): a constant in [0, 1] or an array of them,
// as a DOUBLE or ARRAY<DOUBLE> literal.
Result<ExprPtr> Percentages(const Expr& call, const ExprPtr& arg) {
  const Expr& e = *StripAlias(arg);
  auto in_range = [&](std::optional<double> v) -> Status {
    if (!v) {
      return Mismatch(call, "UNEXPECTED_NULL", "The " + Quoted(e) + " must not be null");
    }
    if (!(*v >= 0.0 && *v <= 1.0)) {
      return Mismatch(call, "VALUE_OUT_OF_RANGE",
                      "The percentage must be between [0.0, 1.0] (current value = " +
                          std::to_string(*v) + "D)");
    }
    return Status::OK();
  };
  if (e.kind == ExprKind::kCall && e.name == "array") {
    arrow::DoubleBuilder items;
    for (const auto& item : e.args) {
      ARROW_ASSIGN_OR_RAISE(auto v, ConstantNumber(call, item));
      ARROW_RETURN_NOT_OK(in_range(v));
      ARROW_RETURN_NOT_OK(items.Append(*v));
    }
    ARROW_ASSIGN_OR_RAISE(auto values, items.Finish());
    auto type = ArrayOf(arrow::float64(), false);
    auto list = std::make_shared<arrow::ListScalar>(values, type);
    return Literal(list);
  }
  ARROW_ASSIGN_OR_RAISE(auto v, ConstantNumber(call, arg));
  ARROW_RETURN_NOT_OK(in_range(v));
  return Literal(std::make_shared<arrow::DoubleScalar>(*v));
}

// percentile(value, percentage(s)[, frequency]): struct<value, frequency, percentages>.
Result<TypedCall> PercentileRule(const Expr& call, std::vector<ExprPtr> args) {
  ARROW_ASSIGN_OR_RAISE(auto value, AsDouble(call, args[0], 0));
  ARROW_ASSIGN_OR_RAISE(auto percentages, Percentages(call, args[1]));
  ExprPtr frequency = Literal(arrow::MakeScalar(int64_t{1}));
  if (args.size() == 3) {
    frequency = args[2];
    if (IsNullType(*frequency->type)) frequency = CastIfNeeded(frequency, arrow::int64());
    if (!IsIntegral(*frequency->type)) {
      return UnexpectedType(call, 2, *frequency, "\"INTEGRAL\"");
    }
    frequency = CastIfNeeded(frequency, arrow::int64());
  }
  auto type = percentages->type->id() == arrow::Type::LIST ? ArrayOf(arrow::float64(), false)
                                                           : arrow::float64();
  return TypedCall{type, true, {Pack({value, frequency, percentages})}};
}

Result<TypedCall> MedianRule(const Expr& call, std::vector<ExprPtr> args) {
  args.push_back(Literal(std::make_shared<arrow::DoubleScalar>(0.5)));
  return PercentileRule(call, std::move(args));
}

// percentile_approx(value, percentage(s)[, accuracy]): struct<value, percentages, accuracy>; a
// result of the value's type (numbers, dates, timestamps; text read as a DOUBLE).
Result<TypedCall> ApproxPercentileRule(const Expr& call, std::vector<ExprPtr> args) {
  ExprPtr value = args[0];
  const auto& t = *value->type;
  if (IsString(t) || IsNullType(t)) value = CastIfNeeded(value, arrow::float64());
  if (!IsNumeric(*value->type) && value->type->id() != arrow::Type::DATE32 &&
      !IsTimestamp(*value->type)) {
    return UnexpectedType(call, 0, *value,
                          "(\"NUMERIC\" or \"DATE\" or \"TIMESTAMP\" or \"TIMESTAMP_NTZ\" or "
                          "\"INTERVAL YEAR TO MONTH\" or \"INTERVAL DAY TO SECOND\")");
  }
  ARROW_ASSIGN_OR_RAISE(auto percentages, Percentages(call, args[1]));
  int64_t accuracy = 10000;
  if (args.size() == 3) {
    ARROW_ASSIGN_OR_RAISE(accuracy, LiteralInt(call, args[2]));
    if (accuracy <= 0 || accuracy > std::numeric_limits<int32_t>::max()) {
      return Mismatch(call, "VALUE_OUT_OF_RANGE",
                      "The accuracy must be between (0, 2147483647] (current value = " +
                          std::to_string(accuracy) + "L)");
    }
  }
  auto type = value->type;
  if (percentages->type->id() == arrow::Type::LIST) type = ArrayOf(type, false);
  return TypedCall{type, true,
                   {Pack({value, percentages, Literal(arrow::MakeScalar(accuracy))})}};
}

// mode(value[, deterministic]): the most frequent value. Of equally frequent ones Ember always
// answers the smallest, as Spark's deterministic mode does.
Result<TypedCall> ModeRule(const Expr& call, std::vector<ExprPtr> args) {
  if (args.size() == 2) {
    const Expr& flag = *StripAlias(args[1]);
    if (flag.type->id() != arrow::Type::BOOL) {
      return UserError(ErrorKind::kAnalysis, "UNEXPECTED_INPUT_TYPE",
                       "Parameter 2 of function `mode` requires the \"BOOLEAN\" type, however " +
                           Quoted(flag) + " has the type " + TypeQuoted(*flag.type) + ".",
                       "42K09");
    }
    if (flag.kind != ExprKind::kLiteral) return NotFoldable(call, flag, "\"BOOLEAN\"");
  }
  const auto& t = *args[0]->type;
  if (t.id() == arrow::Type::LIST || t.id() == arrow::Type::STRUCT ||
      t.id() == arrow::Type::MAP) {
    return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                     "The feature is not supported: mode() of an array, map or struct in Ember.",
                     "0A000");
  }
  if (IsNullType(t)) args[0] = CastIfNeeded(args[0], arrow::int32());
  auto type = args[0]->type;
  return TypedCall{type, true, {args[0]}};
}

// string_agg / listagg(value[, delimiter]): text or binary (other values as text); the
// delimiter a constant of the same kind, or NULL.
Result<TypedCall> StringAggRule(const Expr& call, std::vector<ExprPtr> args) {
  ExprPtr value = args[0];
  if (value->type->id() != arrow::Type::BINARY) value = CastIfNeeded(value, arrow::utf8());
  ExprPtr delimiter = Literal(arrow::MakeNullScalar(value->type));
  if (args.size() == 2) {
    const Expr& d = *StripAlias(args[1]);
    if (d.kind != ExprKind::kLiteral) return NotFoldable(call, d, TypeQuoted(*value->type));
    if (!IsNullType(*d.type)) {
      if (!d.type->Equals(*value->type)) {
        return Mismatch(call, "DATA_DIFF_TYPES",
                        "Input to `" + call.name + "` should all be the same type, but it's [" +
                            TypeQuoted(*value->type) + ", " + TypeQuoted(*d.type) + "]");
      }
      delimiter = StripAlias(args[1]);
    }
  }
  auto type = value->type;
  return TypedCall{type, true, {Pack({value, delimiter})}};
}

}  // namespace

void AddAggregateFunctions(Catalog& c) {
  for (auto [name, ddof] : {std::pair{"stddev", 1}, {"stddev_samp", 1}, {"std", 1},
                            {"stddev_pop", 0}}) {
    Add(c, Aggregate(name, StatisticRule, "hash_stddev", "stddev",
                     std::make_shared<cp::VarianceOptions>(ddof)));
  }
  for (auto [name, ddof] : {std::pair{"variance", 1}, {"var_samp", 1}, {"var_pop", 0}}) {
    Add(c, Aggregate(name, StatisticRule, "hash_variance", "variance",
                     std::make_shared<cp::VarianceOptions>(ddof)));
  }
  // Spark's are the population moments, NULL for no rows or no spread (arrow's NaN).
  for (auto [name, hash_fn, scalar_fn] : {std::tuple{"skewness", "hash_skew", "skew"},
                                          {"kurtosis", "hash_kurtosis", "kurtosis"}}) {
    auto def = Aggregate(name, StatisticRule, hash_fn, scalar_fn,
                         std::make_shared<cp::SkewOptions>(true, true, 1));
    def.finalize = "ember_nan_to_null";
    Add(c, std::move(def));
  }
  for (const char* name : {"bool_and", "every"}) {
    Add(c, Aggregate(name, BooleanAggRule, "hash_all", "all",
                     std::make_shared<cp::ScalarAggregateOptions>(true, 1)));
  }
  for (const char* name : {"bool_or", "some", "any"}) {
    Add(c, Aggregate(name, BooleanAggRule, "hash_any", "any",
                     std::make_shared<cp::ScalarAggregateOptions>(true, 1)));
  }
  Add(c, Aggregate("count_if", CountIfRule, "hash_sum", "sum",
                   std::make_shared<cp::ScalarAggregateOptions>(true, 0)));
  Alias(c, "array_agg", "collect_list");
  // exec/aggregate_kernels.cc: the arguments packed into one struct column (Pack).
  auto add = [&c](const char* name, TypeRule rule, const std::string& kernel, int min_args,
                  int max_args) {
    auto def = Aggregate(name, std::move(rule), "hash_" + kernel, kernel);
    def.min_args = min_args;
    def.max_args = max_args;
    Add(c, std::move(def));
  };
  add("max_by", ExtremumByRule, "ember_max_by", 2, 2);
  add("min_by", ExtremumByRule, "ember_min_by", 2, 2);
  for (const char* name : {"corr", "covar_pop", "covar_samp", "regr_sxx", "regr_syy", "regr_sxy",
                           "regr_slope", "regr_intercept", "regr_r2"}) {
    add(name, PairRule, std::string("ember_") + name, 2, 2);
  }
  for (const char* name : {"bit_and", "bit_or", "bit_xor"}) {
    add(name, BitRule, std::string("ember_") + name, 1, 1);
  }
  add("median", MedianRule, "ember_percentile", 1, 1);
  add("percentile", PercentileRule, "ember_percentile", 2, 3);
  add("percentile_approx", ApproxPercentileRule, "ember_approx_percentile", 2, 3);
  add("approx_percentile", ApproxPercentileRule, "ember_approx_percentile", 2, 3);
  add("mode", ModeRule, "ember_mode", 1, 2);
  add("string_agg", StringAggRule, "ember_string_agg", 1, 2);
  add("listagg", StringAggRule, "ember_string_agg", 1, 2);
  {
    auto count = Aggregate("regr_count", MaskedRule("count", true), "hash_count", "count",
                           std::make_shared<cp::CountOptions>(cp::CountOptions::ONLY_VALID));
    count.min_args = count.max_args = 2;
    Add(c, std::move(count));
  }
  for (auto [name, of_x] : {std::pair{"regr_avgx", true}, {"regr_avgy", false}}) {
    auto avg = Aggregate(name, MaskedRule("avg", of_x), "hash_mean", "mean",
                         std::make_shared<cp::ScalarAggregateOptions>(true, 1));
    avg.min_args = avg.max_args = 2;
    Add(c, std::move(avg));
  }
}

}  // namespace ember::plan::fn
