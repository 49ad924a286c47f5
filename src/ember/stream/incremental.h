// The streaming physical layer, Spark's IncrementalExecution: how a micro-batch of a query runs,
// from its sources' rows through the stateful operators to the sink.
//
// Planned once when the query starts: which nodes keep state (KeepsState), and for each one its
// operator (configuration), numbered bottom-up as Spark numbers operator ids, and its state,
// opened from the checkpoint's state stores; each batch loads the batch's version of it. Planned again for every batch (PlanBatch): a list of stages, one per stateful
// operator and a last one into the sink. A stage's inputs are stateless segments of the plan (the
// operator's children, with the outputs of the operators below substituted), which the executor
// runs; how a stage runs is what its operator declares it can do: whole, or in slices each
// reduced on every core (StatefulOperator::TakesSlices); the last stage of a query without state
// runs in tasks over the source's input partitions when the sink takes parts.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/exec/executor.h"
#include "ember/plan/logical_plan.h"
#include "ember/stream/source/source.h"
#include "ember/stream/stateful.h"

namespace ember {
class Session;
class Sink;
}  // namespace ember

namespace ember::stream {

/// Whether a node of a streaming plan keeps state in `output_mode`: an aggregation, a
/// deduplication, a join of two streams, a limit where LimitKeepsState.
bool KeepsState(const plan::LogicalPlan& node, const std::string& output_mode);
/// Whether some node of `plan` keeps state.
bool HasState(const plan::LogicalPlan& plan, const std::string& output_mode);

/// One source of a batch: the plan leaf it feeds and the offsets the batch reads between.
struct BatchSource {
  const plan::LogicalPlan* node = nullptr;
  Source* source = nullptr;
  Offset start;  // the last committed end (none before the first batch)
  Offset end;    // none: the source has no data yet, the batch reads nothing of it
};

/// How a stage gets its input.
enum class StageMode {
  kWhole,   // the children's rows for the whole batch
  kSlices,  // slices of one source's rows, each reduced on its own (TakesSlices)
  kTasks,   // the whole query, in tasks over the source's input partitions, into a parted sink
};

/// A stage of a batch's physical plan.
struct Stage {
  const StatefulOperator* op = nullptr;  // null: the last stage, the query's root into the sink
  OperatorState* state = nullptr;        // the operator's
  StageMode mode = StageMode::kWhole;
  const plan::LogicalPlan* sliced = nullptr;  // kSlices: the source whose rows are sliced
};

/// The physical plan of one batch.
struct BatchPlan {
  std::vector<Stage> stages;
  std::vector<InputPartition> task_parts;  // kTasks: the parts, in the order tasks take them
  int tasks = 1;
};

/// What a batch read and wrote, and the durations of its phases (Spark's names).
struct BatchOutcome {
  int64_t input_rows = 0;
  std::vector<int64_t> source_rows;  // per source
  int64_t output_rows = 0;
};

class IncrementalExecution {
 public:
  /// Plans the query: its stateful operators with their ids and state (options.operator_id,
  /// event_time_id and delay_ms are assigned here).
  static arrow::Result<std::unique_ptr<IncrementalExecution>> Plan(plan::PlanPtr plan,
                                                                    StatefulOptions options);

  /// The stateful operators' states, children before parents.
  const std::vector<std::unique_ptr<OperatorState>>& states() const { return states_; }
  /// Whether a batch without new data runs (Spark's no-data batch): some operator wants one.
  bool ShouldRunAnotherBatch(bool watermark_moved) const;

  /// Plans batch N over `sources`; `open_cost` is the bytes below which an input part is worth no
  /// task (spark.sql.files.openCostInBytes).
  arrow::Result<BatchPlan> PlanBatch(const std::vector<BatchSource>& sources, int64_t open_cost) const;

  /// Runs a batch's plan and hands its result to `sink` as batch `batch.batch_id`. `timed` adds
  /// to a phase's duration (getBatch, queryPlanning) the milliseconds since a start.
  arrow::Result<BatchOutcome> RunBatch(const BatchPlan& batch_plan, const std::vector<BatchSource>& sources,
                                       const BatchContext& batch, const exec::ExecOptions& options,
                                       Session& session, Sink& sink,
                                       const std::function<void(const char*, int64_t)>& timed);

 private:
  IncrementalExecution(plan::PlanPtr plan, std::vector<std::unique_ptr<const StatefulOperator>> operators,
                       std::vector<std::unique_ptr<OperatorState>> states)
      : plan_(std::move(plan)), operators_(std::move(operators)), states_(std::move(states)) {}

  plan::PlanPtr plan_;
  std::vector<std::unique_ptr<const StatefulOperator>> operators_;
  std::vector<std::unique_ptr<OperatorState>> states_;  // operators_[i]'s in states_[i]
};

}  // namespace ember::stream
