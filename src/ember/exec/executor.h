// Runs an analyzed logical plan and returns its result as one arrow::Table whose columns carry
// the user's names. Relational work is done by Acero; sort and limit materialise their input.
#pragma once

#include <functional>
#include <memory>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/plan/functions.h"
#include "ember/plan/logical_plan.h"

namespace ember::exec {

struct ExecOptions {
  plan::EvalContext eval;
  /// Largest arrow batch an operator sees; 0 lets arrow choose. EMBER_BATCH_SIZE sets it, so tests
  /// can force tiny batches.
  int64_t max_batch_rows = 0;
  /// Sees the event times of the rows that pass each withWatermark node (identified by its
  /// event-time attribute), batch by batch, maybe from several threads at once: the streaming
  /// engine's watermark statistics, taken as the rows go by. None: watermarks pass rows unseen.
  std::function<void(int64_t event_time_id, const arrow::Array& event_times)> watermark_observer;
  /// Sees the metrics of each observe() node (Spark's CollectMetrics) once all its rows have
  /// passed: one row, a column per metric, aggregated over those rows (over none, a global
  /// aggregate's answer: count 0, sum NULL). Once per run of the node, maybe from several threads
  /// at once. None: the node passes its rows and computes nothing.
  std::function<void(const plan::LogicalPlan& observe_node, std::shared_ptr<arrow::RecordBatch> metrics)>
      metrics_observer;
};

/// The batch size from EMBER_BATCH_SIZE, or 0.
int64_t BatchSizeFromEnvironment();

arrow::Result<std::shared_ptr<arrow::Table>> Execute(const plan::PlanPtr& plan,
                                                     const ExecOptions& options);

/// Lowers a resolved expression to an arrow expression over columns named by attribute id.
arrow::Result<arrow::compute::Expression> LowerExpr(const plan::Expr& expr,
                                                    const plan::EvalContext& ctx);

/// The internal column name of an attribute.
std::string ColumnName(int64_t attribute_id);

}  // namespace ember::exec
