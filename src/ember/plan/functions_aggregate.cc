// Spark's statistical and boolean aggregates beyond the first ones of functions.cc, each one
// arrow hash kernel: stddev and variance (sample and population), skewness and kurtosis
// (population, excess), bool_and / bool_or, count_if. Batch queries; a streaming aggregation
// says which it does not keep state for (exec/incremental_aggregate.cc).

#include <tuple>

#include "ember/plan/function_util.h"

namespace ember::plan::fn {

namespace {

using arrow::Result;

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
}

}  // namespace ember::plan::fn
