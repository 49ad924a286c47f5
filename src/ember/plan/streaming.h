// Spark's streaming rules over a logical plan: the checks a query must pass before it starts
// (UnsupportedOperationChecker, the output-mode rules, the stream-stream join rules), and what
// the stateful operators need to know about the plan (its event-time columns, a stream-stream
// join's condition and the state bounds its range conditions imply).
#pragma once

#include <arrow/status.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ember/plan/logical_plan.h"

namespace ember::plan {

/// Spark's UnsupportedOperationChecker for a streaming query in `output_mode` (append, update
/// or complete, lower case), for the operators Ember has: raised by start() before anything is
/// written.
arrow::Status CheckStreamingQuery(const LogicalPlan& plan, const std::string& output_mode);

/// Whether `key` carries event time: an attribute in `times`, or a window or session window over
/// one.
bool OverEventTime(const plan::Expr& key, const std::set<int64_t>& times);

/// Adds to `times` the attributes at and below `plan` that carry event time: windows (or plain
/// keys) computed over an attribute already in `times` by an aggregation or an Expand, and
/// aliases of one by a projection, as Spark's watermark metadata propagates.
void CollectEventTimes(const LogicalPlan& plan, std::set<int64_t>* times);

/// Every withWatermark column at and below `plan` and what CollectEventTimes derives from them.
std::set<int64_t> EventTimes(const LogicalPlan& plan);

/// The conjuncts of an AND tree, in order.
void SplitConjuncts(const ExprPtr& e, std::vector<ExprPtr>* out);

/// The ids of attributes.
std::set<int64_t> Ids(const std::vector<Attribute>& attributes);

/// A join condition taken apart as Spark's ExtractEquiJoinKeys does: equalities between one
/// expression of each side are the keys, the rest of the conjuncts the condition.
struct JoinCondition {
  std::vector<ExprPtr> left_keys, right_keys;
  std::vector<ExprPtr> others;     // every conjunct that is no key
  std::vector<ExprPtr> left_only;  // of `others`, those over left columns only
  std::vector<ExprPtr> right_only;
};
JoinCondition SplitCondition(const LogicalPlan& join);

/// The key pair whose left or right expression is an event-time column (Spark's
/// joinKeyOrdinalForWatermark), or -1.
int WatermarkKey(const JoinCondition& condition, const std::set<int64_t>& times);

/// Spark's getStateValueWatermark: the state watermark (ms) of `state_side` implied by the
/// range conditions among `conjuncts` once the other side's event time reached `watermark_ms`,
/// the smallest over the conjuncts that give one.
std::optional<int64_t> StateValueWatermark(const std::vector<ExprPtr>& conjuncts,
                                           const std::set<int64_t>& state_side,
                                           const std::set<int64_t>& other_side,
                                           const std::set<int64_t>& times, int64_t watermark_ms);

}  // namespace ember::plan
