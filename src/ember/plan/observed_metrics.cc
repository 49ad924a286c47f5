#include "ember/plan/observed_metrics.h"

#include <cctype>
#include <map>
#include <set>

#include "ember/error.h"
#include "ember/plan/functions.h"

namespace ember::plan {

using arrow::Status;

namespace {

// Spark's quoteIfNeeded: a name other than letters, digits and underscores (not starting with a
// digit) in backquotes, a backquote doubled.
std::string QuoteIfNeeded(const std::string& name) {
  bool plain = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (plain) return name;
  std::string out = "`";
  for (char c : name) out += c == '`' ? std::string("``") : std::string(1, c);
  return out + "`";
}

Status Invalid(const std::string& subclass, const std::string& message) {
  return UserError(ErrorKind::kAnalysis, "INVALID_OBSERVED_METRICS." + subclass,
                   "Invalid observed metrics. " + message, "42K0E");
}

// Spark's checkMetric, top-down: `shown` is the whole metric as the message names it.
Status CheckMetric(const Expr& e, bool in_aggregate, const std::string& shown) {
  if (IsAggregateCall(e)) {
    if (in_aggregate) {
      return Invalid("NESTED_AGGREGATES_UNSUPPORTED",
                     "Nested aggregates are not allowed in observed metrics, but found: " + shown +
                         ".");
    }
    if (e.distinct || e.name == "count_distinct") {
      return Invalid("AGGREGATE_EXPRESSION_WITH_DISTINCT_UNSUPPORTED",
                     "Aggregate expressions with DISTINCT are not allowed in observed metrics, "
                     "but found: " + shown + ".");
    }
    in_aggregate = true;
  } else if (e.kind == ExprKind::kAttribute && !in_aggregate) {
    return Invalid("NON_AGGREGATE_FUNC_ARG_IS_ATTRIBUTE",
                   "Attribute " + shown + " can only be used as an argument to an aggregate "
                   "function.");
  }
  // Ember has no window functions and no non-deterministic ones, Spark's other two refusals.
  for (const auto& arg : e.args) ARROW_RETURN_NOT_OK(CheckMetric(*arg, in_aggregate, shown));
  return Status::OK();
}

void CollectObservations(const LogicalPlan& plan, std::set<const LogicalPlan*>* seen,
                         std::vector<const LogicalPlan*>* out) {
  if (!seen->insert(&plan).second) return;
  if (plan.kind == PlanKind::kCollectMetrics) out->push_back(&plan);
  for (const auto& child : plan.children) CollectObservations(*child, seen, out);
}

}  // namespace

Status CheckObservedMetric(const Expr& named, const Expr& original) {
  // toSQLExpr of the named metric: "expr AS name" (the name quoted if need be), or a column.
  std::string shown = named.name;
  if (named.kind == ExprKind::kAlias) {
    const Expr& value = original.kind == ExprKind::kAlias ? *original.args[0] : original;
    shown = DisplayName(value) + " AS " + QuoteIfNeeded(named.name);
  }
  return CheckMetric(named, false, "\"" + shown + "\"");
}

Status CheckObservationNames(const LogicalPlan& plan) {
  std::set<const LogicalPlan*> seen;
  std::vector<const LogicalPlan*> observations;
  CollectObservations(plan, &seen, &observations);
  std::map<std::string, const LogicalPlan*> first;
  for (const LogicalPlan* node : observations) {
    auto [it, added] = first.emplace(node->alias, node);
    if (added) continue;
    // Spark's dataframeId: a Connect plan id, else (the DataFrame API) the observed DataFrame.
    const LogicalPlan& other = *it->second;
    const bool ids = other.observation_id >= 0 || node->observation_id >= 0;
    if (ids ? other.observation_id == node->observation_id : other.children[0] == node->children[0]) {
      continue;
    }
    return UserError(ErrorKind::kAnalysis, "DUPLICATED_METRICS_NAME",
                     "The metric name is not unique: " + node->alias +
                         ". The same name cannot be used for metrics with different results.\n"
                         "However multiple instances of metrics with with same result and name "
                         "are allowed (e.g. self-joins).",
                     "42710");
  }
  return Status::OK();
}

}  // namespace ember::plan
