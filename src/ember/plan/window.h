// Window functions, Spark's WindowExpression: `f(...) OVER (PARTITION BY ... ORDER BY ... frame)`.
// The analyzer types a window expression here and, as Spark's ExtractWindowExpressions does, moves
// the window expressions of a projection into Window nodes below it, one per specification; the
// executor computes them (exec/window_node.h). Batch queries only.
#pragma once

#include <string>
#include <vector>

#include <arrow/result.h>

#include "ember/plan/logical_plan.h"

namespace ember::plan {

/// The functions that exist only over a window: row_number, rank, dense_rank, percent_rank,
/// cume_dist, ntile, lag, lead, nth_value.
bool IsWindowFunctionName(const std::string& name);

bool ContainsWindow(const Expr& expr);

/// first, first_value, any_value, last, last_value: over a window, the first or last row of the
/// frame (with IGNORE NULLS, a second argument `true`, the first or last non-NULL value).
bool IsFirstOrLast(const std::string& name);

/// A window-only function called without OVER: Spark's error.
arrow::Status WindowFunctionWithoutOver(const Expr& call);

/// Types a call of a window-only function whose arguments are resolved.
arrow::Result<ExprPtr> TypeWindowFunction(const Expr& call, std::vector<ExprPtr> args);

/// Types a window expression whose function, partition keys and sort orders are resolved
/// (`args`, in the order of `window.args`): Spark's checks, and the frame it runs over.
arrow::Result<ExprPtr> TypeWindow(const Expr& window, std::vector<ExprPtr> args);

/// A projection's resolved, named expressions with window expressions in them: the Window nodes
/// over `child` that compute the window expressions (one per window specification), and the
/// expressions rewritten to read their results.
struct ExtractedWindows {
  PlanPtr input;
  std::vector<ExprPtr> exprs;
};
arrow::Result<ExtractedWindows> ExtractWindows(const PlanPtr& child, std::vector<ExprPtr> exprs);

}  // namespace ember::plan
