#include "ember/plan/streaming.h"

#include <arrow/scalar.h>
#include <arrow/type.h>

#include <algorithm>
#include <cctype>
#include <functional>

#include "ember/common/interval.h"
#include "ember/error.h"
#include "ember/user_function.h"

namespace ember::plan {

namespace {

arrow::Status AnalysisError(const std::string& message) {
  return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_3102", message, "");
}

bool Contains(const LogicalPlan& plan, PlanKind kind) {
  if (plan.kind == kind) return true;
  for (const auto& child : plan.children) {
    if (Contains(*child, kind)) return true;
  }
  return false;
}

const LogicalPlan* Find(const LogicalPlan& plan, PlanKind kind) {
  if (plan.kind == kind) return &plan;
  for (const auto& child : plan.children) {
    if (const LogicalPlan* found = Find(*child, kind)) return found;
  }
  return nullptr;
}

void References(const Expr& e, std::set<int64_t>* ids) {
  if (e.kind == ExprKind::kAttribute) ids->insert(e.id);
  for (const auto& a : e.args) References(*a, ids);
}

bool OnlyFrom(const Expr& e, const std::set<int64_t>& side) {
  std::set<int64_t> ids;
  References(e, &ids);
  for (int64_t id : ids) {
    if (!side.count(id)) return false;
  }
  return true;
}

// One term of a sum: an attribute (its value in micros) or a constant number of micros, maybe
// negated.
struct Term {
  int64_t attribute = -1;
  bool timestamp = false;  // the attribute is a TIMESTAMP
  double micros = 0;
  bool negated = false;
};

bool IsTimestamp(const arrow::DataType& t) { return t.id() == arrow::Type::TIMESTAMP; }

// Spark's collectTerms: `e` as a sum of attributes and constants; false when it is anything else.
bool CollectTerms(const Expr& e, bool negate, std::vector<Term>* out) {
  if (e.kind == ExprKind::kCall && (e.name == "+" || e.name == "-") && e.args.size() == 2) {
    return CollectTerms(*e.args[0], negate, out) &&
           CollectTerms(*e.args[1], e.name == "-" ? !negate : negate, out);
  }
  if (e.kind == ExprKind::kCall && e.name == "negative")
    return CollectTerms(*e.args[0], !negate, out);
  if (e.kind == ExprKind::kCall && e.name == "interval") {
    const Expr& text = *plan::StripAlias(e.args[0]);
    if (text.kind != ExprKind::kLiteral || !text.value->is_valid) return false;
    auto micros = ParseIntervalMicros(text.value->ToString());
    if (!micros.ok()) return false;
    out->push_back({-1, false, static_cast<double>(*micros), negate});
    return true;
  }
  if (e.kind == ExprKind::kCast) {
    bool numeric = arrow::is_integer(e.type->id()) || arrow::is_floating(e.type->id()) ||
                   arrow::is_decimal(e.type->id()) || IsTimestamp(*e.type);
    return numeric && CollectTerms(*e.args[0], negate, out);
  }
  if (e.kind == ExprKind::kAttribute) {
    out->push_back({e.id, IsTimestamp(*e.type), 0, negate});
    return true;
  }
  if (e.kind == ExprKind::kLiteral && e.value && e.value->is_valid) {
    const auto& v = *e.value;
    double micros = 0;
    if (v.type->id() == arrow::Type::DURATION || IsTimestamp(*v.type)) {
      auto cast = v.CastTo(arrow::int64());
      if (!cast.ok()) return false;
      micros = static_cast<double>(static_cast<const arrow::Int64Scalar&>(**cast).value);
    } else if (arrow::is_integer(v.type->id()) || arrow::is_floating(v.type->id())) {
      auto cast = v.CastTo(arrow::float64());
      if (!cast.ok()) return false;
      micros = static_cast<const arrow::DoubleScalar&>(**cast).value * 1e6;
    } else {
      return false;
    }
    out->push_back({-1, false, micros, negate});
    return true;
  }
  return false;
}

// Spark's getStateWatermarkFromLessThenPredicate: from `l < r`, the bound (ms) below which the
// time of `state_side` can no longer satisfy it once the other side's event time reached
// `watermark_ms`.
std::optional<int64_t> BoundFromLessThan(const Expr& l, const Expr& r,
                                         const std::set<int64_t>& state_side,
                                         const std::set<int64_t>& other_side,
                                         const std::set<int64_t>& times, int64_t watermark_ms) {
  std::set<int64_t> refs;
  References(l, &refs);
  References(r, &refs);
  int in_state = 0, in_other = 0;
  for (int64_t id : refs) {
    in_state += state_side.count(id) ? 1 : 0;
    in_other += other_side.count(id) ? 1 : 0;
  }
  if (in_state > 1 || in_other > 1) return std::nullopt;
  std::vector<Term> terms;
  if (!CollectTerms(l, false, &terms) || !CollectTerms(r, true, &terms)) return std::nullopt;
  const Term* constraint = nullptr;
  int constraints = 0;
  for (const auto& t : terms) {
    if (t.attribute >= 0 && t.timestamp && state_side.count(t.attribute)) {
      constraint = &t;
      ++constraints;
    }
  }
  // l - r < 0 must read `-stateTime + rest < 0`, that is stateTime > rest.
  if (constraints != 1 || !constraint->negated) return std::nullopt;
  double rest = 0;
  for (const auto& t : terms) {
    if (&t == constraint) continue;
    double value = t.micros;
    if (t.attribute >= 0) {
      // Only the other side's event time has a known value: the watermark.
      if (!(t.timestamp && other_side.count(t.attribute) && times.count(t.attribute)))
        return std::nullopt;
      value = static_cast<double>(watermark_ms) * 1000.0;
    }
    rest += t.negated ? -value : value;
  }
  return static_cast<int64_t>(rest / 1000.0);
}

}  // namespace

bool OverEventTime(const plan::Expr& key, const std::set<int64_t>& times) {
  if (key.kind == ExprKind::kAttribute) return times.count(key.id) > 0;
  return key.kind == ExprKind::kCall && (key.name == "window" || key.name == "session_window") &&
         key.args[0]->kind == ExprKind::kAttribute && times.count(key.args[0]->id) > 0;
}

void CollectEventTimes(const LogicalPlan& plan, std::set<int64_t>* times) {
  for (const auto& child : plan.children) CollectEventTimes(*child, times);
  auto over_event_time = [&](const plan::Expr& e) { return OverEventTime(e, *times); };
  if (plan.kind == plan::PlanKind::kAggregate) {
    for (size_t i = 0; i < plan.groupings.size(); ++i) {
      if (over_event_time(*plan.groupings[i])) times->insert(plan.output[i].id);
    }
  }
  if (plan.kind == plan::PlanKind::kExpand && !plan.projections.empty()) {
    for (size_t i = 0; i < plan.output.size(); ++i) {
      if (over_event_time(*plan.projections[0][i])) times->insert(plan.output[i].id);
    }
  }
  if (plan.kind == plan::PlanKind::kProject) {
    for (size_t i = 0; i < plan.exprs.size() && i < plan.output.size(); ++i) {
      const auto& e = *plan::StripAlias(plan.exprs[i]);
      if (e.kind == ExprKind::kAttribute && times->count(e.id) > 0)
        times->insert(plan.output[i].id);
    }
  }
}

void SplitConjuncts(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e->kind == ExprKind::kCall && e->name == "and") {
    SplitConjuncts(e->args[0], out);
    SplitConjuncts(e->args[1], out);
  } else {
    out->push_back(e);
  }
}

std::set<int64_t> Ids(const std::vector<plan::Attribute>& attributes) {
  std::set<int64_t> ids;
  for (const auto& a : attributes) ids.insert(a.id);
  return ids;
}

// The attributes carrying event time at and below `plan` (Spark's watermark metadata): every
// withWatermark column, and what windows, aggregations and projections derive from them.
std::set<int64_t> EventTimes(const LogicalPlan& plan) {
  std::set<int64_t> times;
  std::function<void(const LogicalPlan&)> seed = [&](const LogicalPlan& p) {
    if (p.kind == PlanKind::kWatermark) times.insert(p.exprs[0]->id);
    for (const auto& child : p.children) seed(*child);
  };
  seed(plan);
  CollectEventTimes(plan, &times);
  return times;
}

JoinCondition SplitCondition(const LogicalPlan& join) {
  JoinCondition c;
  std::set<int64_t> left = Ids(join.children[0]->output), right = Ids(join.children[1]->output);
  std::vector<ExprPtr> conjuncts;
  if (!join.exprs.empty()) SplitConjuncts(join.exprs[0], &conjuncts);
  for (const auto& e : conjuncts) {
    std::set<int64_t> refs;
    if (e->kind == ExprKind::kCall && e->name == "=") {
      const auto& a = e->args[0];
      const auto& b = e->args[1];
      std::set<int64_t> ra, rb;
      References(*a, &ra);
      References(*b, &rb);
      if (!ra.empty() && !rb.empty() && OnlyFrom(*a, left) && OnlyFrom(*b, right)) {
        c.left_keys.push_back(a);
        c.right_keys.push_back(b);
        continue;
      }
      if (!ra.empty() && !rb.empty() && OnlyFrom(*a, right) && OnlyFrom(*b, left)) {
        c.left_keys.push_back(b);
        c.right_keys.push_back(a);
        continue;
      }
    }
    c.others.push_back(e);
    References(*e, &refs);
    if (!refs.empty() && OnlyFrom(*e, left)) c.left_only.push_back(e);
    if (!refs.empty() && OnlyFrom(*e, right)) c.right_only.push_back(e);
  }
  return c;
}

// The key pair whose left or right expression is an event-time column (Spark's
// joinKeyOrdinalForWatermark), or -1.
int WatermarkKey(const JoinCondition& c, const std::set<int64_t>& times) {
  for (const auto* keys : {&c.left_keys, &c.right_keys}) {
    for (size_t i = 0; i < keys->size(); ++i) {
      const Expr& k = *(*keys)[i];
      if (k.kind == ExprKind::kAttribute && times.count(k.id)) return static_cast<int>(i);
    }
  }
  return -1;
}

// Spark's getStateValueWatermark: the state watermark of `state_side` implied by the range
// conditions, the smallest over the conjuncts that give one.
std::optional<int64_t> StateValueWatermark(const std::vector<ExprPtr>& conjuncts,
                                           const std::set<int64_t>& state_side,
                                           const std::set<int64_t>& other_side,
                                           const std::set<int64_t>& times, int64_t watermark_ms) {
  bool other_has_event_time = false;
  for (int64_t id : other_side) other_has_event_time = other_has_event_time || times.count(id);
  if (!other_has_event_time) return std::nullopt;
  std::optional<int64_t> result;
  for (const auto& c : conjuncts) {
    if (c->kind != ExprKind::kCall || c->args.size() != 2) continue;
    const Expr& a = *c->args[0];
    const Expr& b = *c->args[1];
    std::optional<int64_t> bound;
    if (c->name == "<")
      bound = BoundFromLessThan(a, b, state_side, other_side, times, watermark_ms);
    if (c->name == "<=")
      bound = BoundFromLessThan(a, b, state_side, other_side, times, watermark_ms);
    if (c->name == ">")
      bound = BoundFromLessThan(b, a, state_side, other_side, times, watermark_ms);
    if (c->name == ">=")
      bound = BoundFromLessThan(b, a, state_side, other_side, times, watermark_ms);
    if (bound && (c->name == "<=" || c->name == ">=")) *bound -= 1;
    if (bound) result = result ? std::min(*result, *bound) : *bound;
  }
  return result;
}

namespace {

// Outer and semi joins need a bound on the state of the side whose unmatched rows are emitted
// (Spark's checkForStreamStreamJoinWatermark).
arrow::Status CheckWatermark(const LogicalPlan& join) {
  const JoinCondition c = SplitCondition(join);
  const std::set<int64_t> times = EventTimes(join);
  if (WatermarkKey(c, times) >= 0) return arrow::Status::OK();
  std::vector<ExprPtr> conjuncts;
  if (!join.exprs.empty()) SplitConjuncts(join.exprs[0], &conjuncts);
  std::set<int64_t> left = Ids(join.children[0]->output), right = Ids(join.children[1]->output);
  auto bounded = [&](const std::set<int64_t>& state, const std::set<int64_t>& other) {
    return StateValueWatermark(conjuncts, state, other, times, 1000000).has_value();
  };
  bool ok = false;
  std::string name;
  switch (join.join_type) {
    case JoinType::kLeftOuter:
      ok = bounded(left, right);
      name = "LeftOuter";
      break;
    case JoinType::kLeftSemi:
      ok = bounded(left, right);
      name = "LeftSemi";
      break;
    case JoinType::kRightOuter:
      ok = bounded(right, left);
      name = "RightOuter";
      break;
    case JoinType::kFullOuter:
      ok = bounded(left, right) || bounded(right, left);
      name = "FullOuter";
      break;
    default:
      return arrow::Status::OK();
  }
  if (ok) return arrow::Status::OK();
  return AnalysisError("Stream-stream " + name +
                       " join between two streaming DataFrame/Datasets is not supported without a "
                       "watermark in the join keys, or a watermark on the nullable side and an "
                       "appropriate range condition;");
}

// Spark's rules for a join of two streams: Append output mode only, the join types a
// stream-stream join has, and for outer and semi joins the watermark that lets state rows be
// dropped.
arrow::Status CheckStreamStreamJoin(const LogicalPlan& join, const std::string& output_mode) {
  if (output_mode != "append") {
    std::string mode = output_mode;
    if (!mode.empty())
      mode[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(mode[0])));
    return AnalysisError("Join between two streaming DataFrames/Datasets is not supported in " +
                         mode + " output mode, only in Append output mode;");
  }
  switch (join.join_type) {
    case JoinType::kInner:
    case JoinType::kCross:
      return arrow::Status::OK();
    case JoinType::kLeftAnti:
      return AnalysisError(
          "LeftAnti joins with a streaming DataFrame/Dataset on the right are not supported;");
    default:
      return CheckWatermark(join);
  }
}

// applyInPandasWithState, by Spark's rules for flatMapGroupsWithState: its output mode
// against the query's and its aggregations, and a watermark for event-time timeouts.
arrow::Status CheckGroupState(const LogicalPlan& p, const std::string& mode, bool aggregates) {
  const std::string& op_mode = p.group_state->output_mode;
  // Spark prints its output modes' objects: Append, Update, Complete.
  auto name = [](std::string m) {
    m[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(m[0])));
    return m;
  };
  if (!aggregates && op_mode != mode) {
    return AnalysisError("applyInPandasWithState in " + op_mode + " mode is not supported with " +
                         name(mode) + " output mode on a streaming DataFrame/Dataset;");
  }
  if (aggregates && op_mode == "update") {
    return AnalysisError(
        "applyInPandasWithState in update mode is not supported with aggregation on a streaming "
        "DataFrame/Dataset;");
  }
  if (aggregates && Contains(*p.children[0], PlanKind::kAggregate)) {
    return AnalysisError(
        "applyInPandasWithState in append mode is not supported after aggregation on a "
        "streaming DataFrame/Dataset;");
  }
  if (p.group_state->timeout == "EventTimeTimeout") {
    std::set<int64_t> times = EventTimes(*p.children[0]);
    bool has_event_time = false;
    for (const auto& a : p.children[0]->output) has_event_time = has_event_time || times.count(a.id);
    if (!has_event_time) {
      return AnalysisError(
          "Watermark must be specified in the query using '[Dataset/DataFrame].withWatermark()' "
          "for using event-time timeout in a [map|flatMap]GroupsWithState. Event-time timeout not "
          "supported without watermark.;");
    }
  }
  return arrow::Status::OK();
}

}  // namespace

arrow::Status CheckStreamingQuery(const LogicalPlan& plan, const std::string& mode) {
  bool aggregates = Contains(plan, PlanKind::kAggregate);
  if (mode == "complete" && !aggregates) {
    // Spark 4.0's condition (STREAMING.md 5.2 quotes the older legacy message).
    return UserError(ErrorKind::kAnalysis, "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
                     "Invalid streaming output mode: complete. This output mode is not supported "
                     "for no streaming aggregations on streaming DataFrames/DataSets.",
                     "42KDE");
  }
  std::function<arrow::Status(const LogicalPlan&)> visit =
      [&](const LogicalPlan& p) -> arrow::Status {
    if (p.kind == PlanKind::kWindow && p.is_streaming) {
      // Spark's NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING, naming every window expression.
      std::string functions, columns, specs;
      const size_t first = p.children[0]->output.size();
      for (size_t i = 0; i < p.exprs.size(); ++i) {
        const Expr& w = *p.exprs[i];
        functions += (i ? ", " : "") + DisplayName(*w.args[0]);
        columns += (i ? ", " : "") + std::string("`") + p.output[first + i].name + "`";
        const std::string name = DisplayName(w);
        specs += (i ? ", " : "") + name.substr(name.find(" OVER ") + 6);
      }
      return UserError(ErrorKind::kAnalysis, "NON_TIME_WINDOW_NOT_SUPPORTED_IN_STREAMING",
                       "Window function is not supported in " + functions + " (as column " +
                           columns +
                           ") on streaming DataFrames/Datasets. Structured Streaming only supports "
                           "time-window aggregation using the WINDOW function. (window "
                           "specification: " + specs + ")",
                       "42KDE");
    }
    if (p.kind == PlanKind::kSort && !(aggregates && mode == "complete")) {
      return AnalysisError(
          "Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated "
          "DataFrame/Dataset in Complete output mode;");
    }
    if (p.kind == PlanKind::kLimit && p.is_streaming && mode == "update") {
      return AnalysisError(
          "Limits are not supported on streaming DataFrames/Datasets in Update output mode;");
    }
    // Spark raises this as the first batch is planned; here start() does.
    if (p.kind == PlanKind::kAggregate && p.is_streaming &&
        std::any_of(p.exprs.begin(), p.exprs.end(), [](const ExprPtr& e) { return e->function; })) {
      return AnalysisError("Streaming aggregation doesn't support group aggregate pandas UDF");
    }
    if (p.kind == PlanKind::kGroupMap && p.group_state && p.is_streaming) {
      ARROW_RETURN_NOT_OK(CheckGroupState(p, mode, aggregates));
    }
    if (p.kind == PlanKind::kUnion) {
      bool streaming = false, batch = false;
      for (const auto& child : p.children) (child->is_streaming ? streaming : batch) = true;
      if (streaming && batch) {
        return AnalysisError(
            "Union between streaming and batch DataFrames/Datasets is not supported;");
      }
    }
    if (p.kind == PlanKind::kJoin && p.children[0]->is_streaming && p.children[1]->is_streaming) {
      ARROW_RETURN_NOT_OK(CheckStreamStreamJoin(p, mode));
    }
    // Stream-static joins (STREAMING.md 9.1): the static side cannot be the preserved one.
    if (p.kind == PlanKind::kJoin && p.children[0]->is_streaming != p.children[1]->is_streaming) {
      bool stream_left = p.children[0]->is_streaming;
      const char* name = nullptr;
      switch (p.join_type) {
        case plan::JoinType::kRightOuter:
          name = stream_left ? "RightOuter" : nullptr;
          break;
        case plan::JoinType::kFullOuter:
          name = "FullOuter";
          break;
        case plan::JoinType::kLeftOuter:
          name = stream_left ? nullptr : "LeftOuter";
          break;
        case plan::JoinType::kLeftSemi:
          name = stream_left ? nullptr : "LeftSemi";
          break;
        case plan::JoinType::kLeftAnti:
          name = stream_left ? nullptr : "LeftAnti";
          break;
        default:
          break;
      }
      if (name) {
        return AnalysisError(std::string(name) +
                             " join with a streaming DataFrame/Dataset on the " +
                             (stream_left ? "left and a static DataFrame/DataSet on the right"
                                          : "right and a static DataFrame/DataSet on the left") +
                             " not supported;");
      }
    }
    // An aggregation in update or complete mode emits rows older than the watermark: a stateful
    // operator that judges lateness after it would drop them (the global watermark check).
    bool judges_lateness =
        p.kind == PlanKind::kAggregate || (p.kind == PlanKind::kDeduplicate && p.within_watermark);
    if (p.kind == PlanKind::kDeduplicate && !p.within_watermark) {
      if (const LogicalPlan* w = Find(p, PlanKind::kWatermark)) {
        for (const auto& key : p.groupings)
          judges_lateness = judges_lateness || key->id == w->exprs[0]->id;
      }
    }
    if (mode != "append" && p.is_streaming && judges_lateness &&
        Contains(*p.children[0], PlanKind::kAggregate)) {
      return AnalysisError(
          "Detected pattern of possible 'correctness' issue due to global watermark. The query "
          "contains stateful operation which can emit rows older than the current watermark plus "
          "allowed late record delay, which are \"late rows\" in downstream stateful operations "
          "and these rows can be discarded. Please refer the programming guide doc for more "
          "details. If you understand the possible risk of correctness issue and still need to "
          "run the query, you can disable this check by setting the config "
          "`spark.sql.streaming.statefulOperator.checkCorrectness.enabled` to false.;");
    }
    for (const auto& child : p.children) ARROW_RETURN_NOT_OK(visit(*child));
    return arrow::Status::OK();
  };
  return visit(plan);
}

}  // namespace ember::plan
