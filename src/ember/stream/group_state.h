// applyInPandasWithState on a stream, Spark's FlatMapGroupsInPandasWithStateExec: each batch's
// rows grouped by key, every group through the user's function with its GroupState, the states
// kept in a state store from batch to batch, and a group whose timeout passed called again
// without rows (STREAMING.md's arbitrary stateful processing).
#pragma once

#include <memory>

#include <arrow/result.h>

#include "ember/plan/logical_plan.h"
#include "ember/stream/stateful.h"

namespace ember::stream {

/// The operator for a streaming kGroupMap node with a group_state.
arrow::Result<std::unique_ptr<StatefulOperator>> MakeGroupStateOperator(const plan::LogicalPlan& node,
                                                                        const StatefulOptions& options);

}  // namespace ember::stream
