// Stream-stream joins, Spark's StreamingSymmetricHashJoinExec (STREAMING.md 9.2): each side's
// rows are buffered in a state store so later rows of the other side can match them; watermarks
// bound the buffers and decide when an outer row has no match.
#pragma once

#include <memory>
#include <string>

#include <arrow/result.h>
#include <arrow/status.h>

#include "ember/plan/logical_plan.h"
#include "ember/stream/stateful.h"

namespace ember::stream {

/// The operator for a kJoin node whose children are both streams.
arrow::Result<std::unique_ptr<StatefulOperator>> MakeStreamJoinOperator(const plan::LogicalPlan& node,
                                                                        const StatefulOptions& options);

}  // namespace ember::stream
