#include "ember/plan/observed_metrics.h"

#include <cctype>
#include <map>
#include <set>

#include <arrow/scalar.h>
#include <arrow/table.h>
#include <arrow/type.h>

#include "ember/error.h"
#include "ember/plan/functions.h"

namespace ember::plan {

using arrow::Status;

namespace {

bool IsAggregateCall(const Expr& e) {
  if (e.kind != ExprKind::kCall) return false;
  const FunctionDef* def = FindFunction(e.name);
  return def && def->aggregate;
}

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

// Spark's sameResult for plans: the same tree computing the same values, attribute ids matched
// by position (Connect analyses a DataFrame used twice twice, with new ids) and names of
// aliases aside.
class SameResult {
 public:
  bool Plans(const LogicalPlan& a, const LogicalPlan& b) {
    if (&a == &b) return true;
    if (a.kind != b.kind || a.children.size() != b.children.size() ||
        a.output.size() != b.output.size()) {
      return false;
    }
    for (size_t i = 0; i < a.children.size(); ++i) {
      if (!Plans(*a.children[i], *b.children[i])) return false;
    }
    if (!Leaves(a, b) || !Lists(a.exprs, b.exprs) || !Lists(a.groupings, b.groupings) ||
        a.projections.size() != b.projections.size() || a.join_type != b.join_type ||
        a.limit != b.limit || a.within_watermark != b.within_watermark ||
        (a.kind == PlanKind::kCollectMetrics && a.alias != b.alias)) {
      return false;
    }
    for (size_t i = 0; i < a.projections.size(); ++i) {
      if (!Lists(a.projections[i], b.projections[i])) return false;
    }
    for (size_t i = 0; i < a.output.size(); ++i) {
      if (!a.output[i].type->Equals(*b.output[i].type)) return false;
      ids_[a.output[i].id] = b.output[i].id;
    }
    return true;
  }

  bool Exprs(const Expr& a, const Expr& b) {
    if (a.kind != b.kind || a.args.size() != b.args.size() || a.distinct != b.distinct ||
        a.try_cast != b.try_cast || a.ascending != b.ascending || a.nulls_first != b.nulls_first) {
      return false;
    }
    if ((a.type == nullptr) != (b.type == nullptr) || (a.type && !a.type->Equals(*b.type))) {
      return false;
    }
    switch (a.kind) {
      case ExprKind::kAttribute: {
        auto mapped = ids_.find(a.id);
        if ((mapped == ids_.end() ? a.id : mapped->second) != b.id) return false;
        break;
      }
      case ExprKind::kLiteral:
        if (!a.value->Equals(*b.value)) return false;
        break;
      case ExprKind::kCall:
        if (a.name != b.name) return false;
        break;
      default:  // an alias's name does not change its value
        break;
    }
    for (size_t i = 0; i < a.args.size(); ++i) {
      if (!Exprs(*a.args[i], *b.args[i])) return false;
    }
    return true;
  }

 private:
  bool Lists(const std::vector<ExprPtr>& a, const std::vector<ExprPtr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!Exprs(*a[i], *b[i])) return false;
    }
    return true;
  }

  // The data a leaf reads: the same table, files or source.
  static bool Leaves(const LogicalPlan& a, const LogicalPlan& b) {
    switch (a.kind) {
      case PlanKind::kLocalTable:
        return a.table == b.table || (a.table && b.table && a.table->Equals(*b.table));
      case PlanKind::kFileScan:
        return a.file == b.file ||
               (a.file->format == b.file->format && a.file->paths == b.file->paths &&
                a.file->options == b.file->options && a.file->schema->Equals(*b.file->schema));
      case PlanKind::kTableScan:
        return a.scan == b.scan || a.scan->Describe() == b.scan->Describe();
      case PlanKind::kStreamSource: {
        const auto& x = *a.stream_source;
        const auto& y = *b.stream_source;
        return &x == &y || (x.format == y.format && x.paths == y.paths &&
                            x.options == y.options && x.schema->Equals(*y.schema));
      }
      default:
        return true;
    }
  }

  std::map<int64_t, int64_t> ids_;  // a's attribute ids to b's
};

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
    const LogicalPlan& other = *it->second;
    if (other.observation_id == node->observation_id || SameResult().Plans(other, *node)) {
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
