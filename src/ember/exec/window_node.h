// Spark's WindowExec for batch queries: a Window node's expressions over its child's rows, all
// of them at once (the child is materialised), partition by partition.
#pragma once

#include <memory>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/exec/executor.h"
#include "ember/plan/logical_plan.h"

namespace ember::exec {

/// `input` holds the rows of `window`'s child, its columns in the child's output order. Returns
/// them sorted by the partition keys and then the window's order, with a column per window
/// expression after them (the node's output).
arrow::Result<std::shared_ptr<arrow::Table>> ComputeWindow(const plan::LogicalPlan& window,
                                                           std::shared_ptr<arrow::Table> input,
                                                           const ExecOptions& options);

}  // namespace ember::exec
