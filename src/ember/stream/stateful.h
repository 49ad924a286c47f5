// The stateful operators of a streaming query: aggregation (Spark's StateStoreSaveExec) and
// deduplication (StreamingDeduplicateExec, StreamingDeduplicateWithinWatermarkExec). Each keeps
// its state in a StateStore; batch N reads version N and commits N+1.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/plan/functions.h"
#include "ember/plan/logical_plan.h"
#include "ember/stream/state_store.h"

namespace ember::stream {

/// What a stateful operator needs to know about the query.
struct StatefulOptions {
  std::string checkpoint;
  int operator_id = 0;
  int num_partitions = 1;
  std::string output_mode;       // append, update, complete
  int64_t event_time_id = -1;    // the watermarked attribute, or -1
  int64_t delay_ms = 0;          // its delay
  StateStoreConf store_conf;     // minBatchesToRetain, minDeltasForSnapshot
  /// The attributes some node of the query reads (plan::ReferencedAttributes); a join keeps
  /// only those of its sides in its state. Null: all of them.
  const std::set<int64_t>* referenced = nullptr;
};

/// One batch's run of an operator.
struct BatchContext {
  int64_t batch_id = 0;
  int64_t late_ms = 0;      // rows at or below it are late (the previous batch's watermark)
  int64_t eviction_ms = 0;  // state at or below it is evicted (this batch's watermark)
  plan::EvalContext eval;
};

/// The numbers of Spark's stateOperators progress entry.
struct StateMetrics {
  std::string operator_name;
  int64_t rows_total = 0, rows_updated = 0, rows_removed = 0, rows_dropped_by_watermark = 0;
  int64_t dropped_duplicates = -1;  // dedup only
  int64_t update_ms = 0, removal_ms = 0, commit_ms = 0, memory_bytes = 0;
  int num_partitions = 0;
  int stores_per_partition = 1;  // a join keeps one store per side
  int store_instances = -1;      // when not num_partitions * stores_per_partition (a limit's 1)
};

/// An operator's state, kept from batch to batch: its state stores (Spark's state store
/// providers), each batch opening the batch's version and committing the next; what the operator
/// derives from their rows to save rebuilding it every batch (a hash index of the keys); and the
/// last batch's metrics. The operator itself is configuration only, as DuckDB's PhysicalOperator
/// is beside its OperatorState: a batch's plan may use it freely, and a restart rebuilds nothing
/// but this.
class OperatorState {
 public:
  explicit OperatorState(std::vector<std::unique_ptr<StateStore>> stores);
  virtual ~OperatorState();
  /// Opens the batch's version in every store: batch N reads version N.
  arrow::Status Load(const BatchContext& batch);
  /// Commits version N+1 of every store; the metrics take the batch's durations (the update's:
  /// from Load to Commit less the removals' time an operator set) and the stores' totals.
  arrow::Status Commit(const BatchContext& batch);
  StateStore& store(size_t i = 0) const { return *stores_[i]; }
  int num_partitions() const { return stores_[0]->num_partitions(); }
  /// The operator's own kind of state.
  template <typename T>
  T& As() {
    return static_cast<T&>(*this);
  }

  StateMetrics metrics;

 private:
  std::vector<std::unique_ptr<StateStore>> stores_;
  int64_t load_ms_ = 0;
};

/// A stateful operator: its node's configuration, immutable once built; everything that changes
/// from batch to batch is in the OperatorState it opens.
class StatefulOperator {
 public:
  virtual ~StatefulOperator() = default;
  /// The plan node this operator computes.
  const plan::LogicalPlan* node() const { return node_; }
  /// Opens the operator's stores in the checkpoint (state/<operator id>/...), once per query run.
  virtual arrow::Result<std::unique_ptr<OperatorState>> OpenState() const = 0;
  /// The node's output for one batch, given its child's rows for the batch.
  virtual arrow::Result<std::shared_ptr<arrow::Table>> Process(OperatorState& state,
                                                               std::shared_ptr<arrow::Table> input,
                                                               const BatchContext& batch) const = 0;
  /// The node's output given each child's rows for the batch (a join has two children).
  virtual arrow::Result<std::shared_ptr<arrow::Table>> ProcessChildren(
      OperatorState& state, std::vector<std::shared_ptr<arrow::Table>> inputs,
      const BatchContext& batch) const {
    return Process(state, std::move(inputs[0]), batch);
  }
  /// Whether the child's rows may come in slices, each reduced on its own by ReduceSlice and
  /// the reductions finished together by ProcessSlices: the batch is then never held whole.
  virtual bool TakesSlices() const { return false; }
  virtual arrow::Result<std::shared_ptr<arrow::Table>> ReduceSlice(
      OperatorState& /*state*/, std::shared_ptr<arrow::Table> slice,
      const BatchContext& /*batch*/) const {
    return slice;
  }
  virtual arrow::Result<std::shared_ptr<arrow::Table>> ProcessSlices(
      OperatorState& /*state*/, std::vector<std::shared_ptr<arrow::Table>> /*reduced*/,
      const BatchContext& /*batch*/) const {
    return arrow::Status::NotImplemented("this operator takes its input whole");
  }
  /// Whether a batch without data would change something once the watermark moved.
  virtual bool UsesWatermark() const = 0;
  /// Whether a batch must run without new data (Spark's shouldRunAnotherBatch): by default when
  /// the watermark moved and the operator uses it.
  virtual bool ShouldRunAnotherBatch(bool watermark_moved) const {
    return watermark_moved && UsesWatermark();
  }

 protected:
  StatefulOperator(const plan::LogicalPlan* node, StatefulOptions options)
      : node_(node), options_(std::move(options)) {
    options_.referenced = nullptr;  // read while the operator is built only
  }
  /// Opens one of the operator's stores with its options.
  arrow::Result<std::unique_ptr<StateStore>> OpenStore(const std::string& operator_name,
                                                       int num_partitions,
                                                       std::shared_ptr<arrow::Schema> schema,
                                                       int num_keys,
                                                       const std::string& store_name = "") const;
  const plan::LogicalPlan* node_;
  StatefulOptions options_;  // Spark's StatefulOperatorStateInfo: checkpoint, operator id, ...
};

/// Whether a streaming kLimit keeps state (Spark's StreamingGlobalLimitStrategy): where its input
/// is appends, that is in append mode, and in complete mode below every aggregation; above one in
/// complete mode it cuts each batch's whole result, as a batch limit does.
bool LimitKeepsState(const plan::LogicalPlan& limit, const std::string& output_mode);

/// The operator for a streaming kAggregate, kDeduplicate, kLimit, kGroupMap with state or (two
/// streams) kJoin node,
/// with Spark's errors for what a stream cannot do.
arrow::Result<std::unique_ptr<StatefulOperator>> MakeStatefulOperator(const plan::LogicalPlan& node,
                                                                      const StatefulOptions& options);

}  // namespace ember::stream
