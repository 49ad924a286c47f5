#include "ember/stream/stateful.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <set>
#include <unordered_set>

#include <absl/container/flat_hash_set.h>
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "ember/common/parallel.h"
#include "ember/common/row_keys.h"
#include "ember/error.h"
#include "ember/plan/streaming.h"
#include "ember/exec/incremental_aggregate.h"
#include "ember/stream/group_state.h"
#include "ember/stream/state_store.h"
#include "ember/stream/stream_join.h"
#include "ember/stream/table_ops.h"

namespace ember::stream {

namespace cp = arrow::compute;
using arrow::Result;
using plan::LogicalPlan;
using TablePtr = std::shared_ptr<arrow::Table>;

namespace {

Result<TablePtr> Take(const TablePtr& table, const std::vector<int64_t>& rows) {
  arrow::Int64Builder builder;
  ARROW_RETURN_NOT_OK(builder.AppendValues(rows));
  ARROW_ASSIGN_OR_RAISE(auto indices, builder.Finish());
  ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(arrow::Datum(table), arrow::Datum(indices)));
  return taken.table();
}

// Rows whose encoded key is (or, with `in` false, is not) in `keys`.
Result<TablePtr> WithKeys(const TablePtr& table, const EncodedKeys& encoded,
                          const std::unordered_set<std::string_view>& keys, bool in) {
  arrow::BooleanBuilder mask;
  ARROW_RETURN_NOT_OK(mask.Reserve(table->num_rows()));
  for (const auto& key : encoded) mask.UnsafeAppend((keys.count(key) > 0) == in);
  ARROW_ASSIGN_OR_RAISE(auto array, mask.Finish());
  return Where(table, array);
}

Result<EncodedKeys> KeysOf(const TablePtr& table, const std::vector<int>& columns) {
  ARROW_ASSIGN_OR_RAISE(auto keys, table->SelectColumns(columns));
  return EncodeKeys(*keys, static_cast<int>(columns.size()));
}

int64_t Rows(const std::vector<TablePtr>& tables) {
  int64_t n = 0;
  for (const auto& t : tables) n += t ? t->num_rows() : 0;
  return n;
}

// Streaming groupBy().agg(): partial aggregates of the batch merged into the state, emitted by
// output mode (STREAMING.md 3.6).
// An aggregation's state: beside the store, each partition's groups as the last merge left them,
// and what the batches taught about grouping.
struct AggregateState : OperatorState {
  using OperatorState::OperatorState;
  std::vector<exec::GroupIndex> indexes;  // per partition
  std::atomic<int64_t> rows_in{0};        // the batch's rows, over its slices
  bool merge_rows = false;                // the batch's rows go to the merge ungrouped
};

class AggregateOperator : public StatefulOperator {
 public:
  AggregateOperator(const LogicalPlan& node, const StatefulOptions& options,
                    exec::IncrementalAggregate aggregate, int event_time_key)
      : StatefulOperator(&node, options),
        aggregate_(std::move(aggregate)),
        event_time_column_(event_time_key < 0 ? -1 : aggregate_.EventTimeColumn(event_time_key)),
        all_keys_(FirstColumns(aggregate_.num_keys())) {}

  Result<std::unique_ptr<OperatorState>> OpenState() const override {
    std::vector<std::unique_ptr<StateStore>> stores;
    ARROW_ASSIGN_OR_RAISE(auto store, OpenStore("stateStoreSave", options_.num_partitions,
                                                aggregate_.buffer_schema(), aggregate_.num_keys()));
    stores.push_back(std::move(store));
    auto state = std::make_unique<AggregateState>(std::move(stores));
    state->indexes.resize(static_cast<size_t>(state->num_partitions()));
    state->metrics.operator_name = "stateStoreSave";
    return state;
  }

  bool UsesWatermark() const override { return options_.output_mode != "complete"; }

  Result<TablePtr> Process(OperatorState& state, TablePtr input, const BatchContext& batch) const override {
    ARROW_ASSIGN_OR_RAISE(auto partial, ReduceSlice(state, std::move(input), batch));
    return ProcessSlices(state, {std::move(partial)}, batch);
  }

  bool TakesSlices() const override { return true; }

  // A slice's partial aggregates, or its rows as buffers when the last batch had mostly
  // distinct keys (see ProcessSlices).
  Result<TablePtr> ReduceSlice(OperatorState& base, TablePtr slice, const BatchContext& batch) const override {
    auto& state = base.As<AggregateState>();
    if (slice->num_rows() == 0) return arrow::Table::MakeEmpty(aggregate_.buffer_schema());
    state.rows_in += slice->num_rows();
    if (state.merge_rows) return aggregate_.RowBuffers(std::move(slice), batch.eval);
    return aggregate_.Partial(std::move(slice), batch.eval);
  }

  Result<TablePtr> ProcessSlices(OperatorState& base, std::vector<TablePtr> partials,
                                 const BatchContext& batch) const override {
    auto& state = base.As<AggregateState>();
    StateMetrics& metrics = state.metrics;
    StateStore& store = state.store();
    const std::string& mode = options_.output_mode;
    ARROW_RETURN_NOT_OK(state.Load(batch));
    const int n = store.num_partitions();
    // A group may have a row in several slices' partials, as in Spark's partial aggregates of
    // several tasks: the merge into the state below combines them, in order.
    TablePtr partial = partials[0];
    if (partials.size() > 1) {
      ARROW_ASSIGN_OR_RAISE(partial, Concat(partials));
    }
    partials.clear();
    // Complete mode neither drops late rows nor evicts (Spark ignores the watermark there),
    // except that session windows drop late sessions in every mode.
    const bool watermarked = event_time_column_ >= 0 && mode != "complete";
    const bool drops_late = watermarked || (event_time_column_ >= 0 && aggregate_.has_sessions());
    metrics.rows_dropped_by_watermark = 0;
    if (drops_late && partial->num_rows() > 0) {
      ARROW_ASSIGN_OR_RAISE(auto late,
                            AtOrBelow(partial->column(event_time_column_), batch.late_ms * 1000));
      ARROW_ASSIGN_OR_RAISE(auto on_time, Not(late));
      int64_t before = partial->num_rows();
      ARROW_ASSIGN_OR_RAISE(partial, Where(partial, on_time));
      metrics.rows_dropped_by_watermark = before - partial->num_rows();
    }
    // A group's rows stay in one partition whatever their session bounds.
    const std::vector<int>& groups = aggregate_.group_columns();
    ARROW_ASSIGN_OR_RAISE(auto parts, SplitByPartition(partial, groups, n));
    partial.reset();  // the parts hold the rows now: each goes once merged
    std::vector<TablePtr> updated(static_cast<size_t>(n)), evicted(static_cast<size_t>(n)),
        emitted(static_cast<size_t>(n));
    std::vector<arrow::Status> statuses(static_cast<size_t>(n));
    ParallelFor(n, [&](int p) {
      statuses[static_cast<size_t>(p)] = [&]() -> arrow::Status {
        TablePtr fresh = std::move(parts[static_cast<size_t>(p)]);
        TablePtr rows = store.rows(p);
        TablePtr changed;
        // Sessions merged into others leave the state under their old bounds.
        TablePtr merged_away;
        if (fresh->num_rows() > 0 && !aggregate_.has_sessions()) {
          ARROW_ASSIGN_OR_RAISE(auto merged, aggregate_.MergeInto(rows, std::move(fresh), state.indexes[static_cast<size_t>(p)]));
          rows = merged.first;
          changed = merged.second;
        } else if (fresh->num_rows() > 0) {
          // Session windows: merge the touched groups' stored sessions (first) with the batch's;
          // a group is its keys without the session bounds.
          ARROW_ASSIGN_OR_RAISE(auto fresh_keys, KeysOf(fresh, groups));
          std::unordered_set<std::string_view> touched(fresh_keys.begin(), fresh_keys.end());
          ARROW_ASSIGN_OR_RAISE(auto stored_keys, KeysOf(rows, groups));
          ARROW_ASSIGN_OR_RAISE(auto before, WithKeys(rows, stored_keys, touched, true));
          ARROW_ASSIGN_OR_RAISE(auto untouched, WithKeys(rows, stored_keys, touched, false));
          ARROW_ASSIGN_OR_RAISE(auto both, Concat({before, fresh}));
          ARROW_ASSIGN_OR_RAISE(changed, aggregate_.Merge(both));
          ARROW_ASSIGN_OR_RAISE(rows, Concat({untouched, changed}));
          ARROW_ASSIGN_OR_RAISE(auto changed_keys, KeysOf(changed, all_keys_));
          std::unordered_set<std::string_view> kept(changed_keys.begin(), changed_keys.end());
          ARROW_ASSIGN_OR_RAISE(auto before_keys, KeysOf(before, all_keys_));
          ARROW_ASSIGN_OR_RAISE(merged_away, WithKeys(before, before_keys, kept, false));
        } else if (!watermarked) {
          emitted[static_cast<size_t>(p)] = mode == "complete" ? rows : nullptr;
          return arrow::Status::OK();
        }
        TablePtr removed, puts = changed;
        if (watermarked) {
          ARROW_ASSIGN_OR_RAISE(
              auto closed, AtOrBelow(rows->column(event_time_column_), batch.eviction_ms * 1000));
          ARROW_ASSIGN_OR_RAISE(removed, Where(rows, closed));
          ARROW_ASSIGN_OR_RAISE(auto open, Not(closed));
          ARROW_ASSIGN_OR_RAISE(rows, Where(rows, open));
          if (changed) {
            ARROW_ASSIGN_OR_RAISE(
                auto changed_closed,
                AtOrBelow(changed->column(event_time_column_), batch.eviction_ms * 1000));
            ARROW_ASSIGN_OR_RAISE(auto changed_open, Not(changed_closed));
            ARROW_ASSIGN_OR_RAISE(puts, Where(changed, changed_open));
          }
        }
        updated[static_cast<size_t>(p)] = changed;
        evicted[static_cast<size_t>(p)] = removed;
        emitted[static_cast<size_t>(p)] = mode == "append" ? removed : mode == "update" ? changed : rows;
        if (merged_away && merged_away->num_rows() > 0) {
          if (removed) {
            ARROW_ASSIGN_OR_RAISE(removed, Concat({removed, merged_away}));
          } else {
            removed = merged_away;
          }
        }
        store.Stage(p, rows, puts, removed);
        return arrow::Status::OK();
      }();
    });
    for (const auto& status : statuses) ARROW_RETURN_NOT_OK(status);
    ARROW_RETURN_NOT_OK(state.Commit(batch));
    metrics.rows_updated = Rows(updated);
    metrics.rows_removed = Rows(evicted);
    // Grouping a batch before the merge pays when its keys repeat. Where the batch had more
    // groups than half its rows, the next batch's rows go to the merge ungrouped: the merge hashes
    // each key once against the state, instead of once more in a table of the batch's own.
    const int64_t rows_in = state.rows_in.exchange(0);
    if (aggregate_.MergesRows() && rows_in >= kRowsToJudgeGrouping) {
      state.merge_rows = 2 * metrics.rows_updated > rows_in;
    }
    std::vector<TablePtr> out;
    for (auto& t : emitted) {
      if (t && t->num_rows() > 0) out.push_back(t);
    }
    if (out.empty()) {
      ARROW_ASSIGN_OR_RAISE(auto empty, arrow::Table::MakeEmpty(aggregate_.buffer_schema()));
      return aggregate_.Finalize(empty);
    }
    ARROW_ASSIGN_OR_RAISE(auto all, Concat(out));
    return aggregate_.Finalize(all);
  }

 private:
  exec::IncrementalAggregate aggregate_;
  int event_time_column_;  // in the buffers; -1 without a watermarked key
  std::vector<int> all_keys_;
  static constexpr int64_t kRowsToJudgeGrouping = 10000;  // fewer judge nothing
};

// dropDuplicates / dropDuplicatesWithinWatermark on a stream (STREAMING.md 6): the first row of
// each key is emitted, later ones dropped; keys are evicted by the watermark when it bounds them.
// A deduplication's state: beside the store, the keys of the version it holds, per partition (a
// flat set: a million keys are probed each batch, and node-based sets spend that time chasing
// pointers). Rebuilt when the store holds another version than the one they were left for (the
// first batch after a start, or after a batch that failed).
struct DeduplicateState : OperatorState {
  using OperatorState::OperatorState;
  std::vector<absl::flat_hash_set<std::string>> known;
  int64_t known_version = -1;
};

class DeduplicateOperator : public StatefulOperator {
 public:
  DeduplicateOperator(const LogicalPlan& node, const StatefulOptions& options,
                      std::vector<int> key_columns, int event_time_column, int event_time_key,
                      std::shared_ptr<arrow::Schema> state_schema)
      : StatefulOperator(&node, options),
        key_columns_(std::move(key_columns)),
        event_time_column_(event_time_column),
        event_time_key_(event_time_key),
        state_schema_(std::move(state_schema)) {}

  Result<std::unique_ptr<OperatorState>> OpenState() const override {
    const char* name = node_->within_watermark ? "dedupeWithinWatermark" : "dedupe";
    std::vector<std::unique_ptr<StateStore>> stores;
    ARROW_ASSIGN_OR_RAISE(auto store, OpenStore(name, options_.num_partitions, state_schema_,
                                                static_cast<int>(key_columns_.size())));
    stores.push_back(std::move(store));
    auto state = std::make_unique<DeduplicateState>(std::move(stores));
    state->metrics.operator_name = name;
    return state;
  }

  bool UsesWatermark() const override { return true; }

  Result<TablePtr> Process(OperatorState& base, TablePtr input, const BatchContext& batch) const override {
    auto& state = base.As<DeduplicateState>();
    StateMetrics& metrics = state.metrics;
    StateStore& store = state.store();
    ARROW_RETURN_NOT_OK(state.Load(batch));
    const int n = store.num_partitions();
    const int num_keys = static_cast<int>(key_columns_.size());
    ARROW_ASSIGN_OR_RAISE(input, input->CombineChunks());
    metrics.rows_dropped_by_watermark = 0;
    if (event_time_column_ >= 0 && input->num_rows() > 0) {
      ARROW_ASSIGN_OR_RAISE(auto late,
                            AtOrBelow(input->column(event_time_column_), batch.late_ms * 1000));
      ARROW_ASSIGN_OR_RAISE(auto on_time, Not(late));
      int64_t before = input->num_rows();
      ARROW_ASSIGN_OR_RAISE(input, Where(input, on_time));
      metrics.rows_dropped_by_watermark = before - input->num_rows();
    }
    // The state's columns of each input row: its keys, and for the within-watermark form the
    // instant the key expires (first occurrence's event time plus the delay).
    std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
    for (int c : key_columns_) columns.push_back(input->column(c));
    if (node_->within_watermark) {
      // Spark reads the time with getLong: a NULL time is 0, so its key expires at once.
      ARROW_ASSIGN_OR_RAISE(auto times, cp::Cast(arrow::Datum(input->column(event_time_column_)),
                                                 arrow::int64()));
      ARROW_ASSIGN_OR_RAISE(auto micros, cp::CallFunction("coalesce", {times, arrow::Datum(int64_t{0})}));
      ARROW_ASSIGN_OR_RAISE(auto expires, cp::CallFunction("add", {micros, arrow::Datum(options_.delay_ms * 1000)}));
      columns.push_back(expires.chunked_array());
    }
    auto state_rows = arrow::Table::Make(store.schema(), columns, input->num_rows());
    ARROW_ASSIGN_OR_RAISE(auto keys, EncodeKeys(*state_rows, num_keys));
    // The stored keys, partitioned by the whole key as the store splits its rows. They are kept
    // from batch to batch and rebuilt only when the store holds another version (the first
    // batch after a start); until this batch commits, they count as unknown.
    if (state.known_version != batch.batch_id) {
      state.known.assign(static_cast<size_t>(n), {});
      ParallelFor(n, [&](int p) {
        auto stored = EncodeKeys(*store.rows(p), num_keys);
        if (stored.ok()) state.known[static_cast<size_t>(p)].insert(stored->begin(), stored->end());
      });
    }
    state.known_version = -1;
    auto& known = state.known;
    std::vector<int64_t> kept;
    std::vector<std::vector<int64_t>> new_rows(static_cast<size_t>(n));
    for (size_t i = 0; i < keys.size(); ++i) {
      int p = PartitionOf(keys[i], n);
      if (!known[static_cast<size_t>(p)].emplace(keys[i]).second) continue;
      kept.push_back(static_cast<int64_t>(i));
      new_rows[static_cast<size_t>(p)].push_back(static_cast<int64_t>(i));
    }
    metrics.dropped_duplicates = input->num_rows() - static_cast<int64_t>(kept.size());
    // Eviction: the event-time key at or below the watermark, or the expiry reached.
    int evict_column = node_->within_watermark ? num_keys : event_time_key_;
    int64_t puts = 0, removals = 0;
    for (int p = 0; p < n; ++p) {
      ARROW_ASSIGN_OR_RAISE(auto added, Take(state_rows, new_rows[static_cast<size_t>(p)]));
      TablePtr rows = store.rows(p), removed;
      puts += added->num_rows();
      if (added->num_rows() > 0) {
        ARROW_ASSIGN_OR_RAISE(rows, Concat({rows, added}));
      }
      if (evict_column >= 0) {
        ARROW_ASSIGN_OR_RAISE(auto closed,
                              AtOrBelow(rows->column(evict_column), batch.eviction_ms * 1000));
        ARROW_ASSIGN_OR_RAISE(removed, Where(rows, closed));
        ARROW_ASSIGN_OR_RAISE(auto open, Not(closed));
        ARROW_ASSIGN_OR_RAISE(rows, Where(rows, open));
        ARROW_ASSIGN_OR_RAISE(auto added_closed,
                              AtOrBelow(added->column(evict_column), batch.eviction_ms * 1000));
        ARROW_ASSIGN_OR_RAISE(auto added_open, Not(added_closed));
        ARROW_ASSIGN_OR_RAISE(added, Where(added, added_open));
      }
      if (removed && removed->num_rows() > 0) {
        removals += removed->num_rows();
        ARROW_ASSIGN_OR_RAISE(auto gone, EncodeKeys(*removed, num_keys));
        for (const auto& key : gone) known[static_cast<size_t>(p)].erase(std::string(key));
      }
      store.Stage(p, rows, added, removed);
    }
    ARROW_RETURN_NOT_OK(state.Commit(batch));
    state.known_version = batch.batch_id + 1;
    metrics.rows_updated = puts;
    metrics.rows_removed = removals;
    return Take(input, kept);
  }

 private:
  std::vector<int> key_columns_;
  int event_time_column_;  // the watermarked column in the input, or -1
  int event_time_key_;     // its position among the keys, or -1
  std::shared_ptr<arrow::Schema> state_schema_;  // the keys (and the expiry)
};

// limit(n) on a stream whose rows are appends (Spark's StreamingGlobalLimitExec): the number
// of rows emitted so far is one value in the state store, so a restart goes on counting and,
// once n rows went out in total, nothing more is emitted. One partition: the count is global.
class GlobalLimitOperator : public StatefulOperator {
 public:
  GlobalLimitOperator(const LogicalPlan& node, const StatefulOptions& options)
      : StatefulOperator(&node, options) {}

  Result<std::unique_ptr<OperatorState>> OpenState() const override {
    auto schema = arrow::schema({arrow::field("key", arrow::int32()), arrow::field("value", arrow::int64())});
    std::vector<std::unique_ptr<StateStore>> stores;
    ARROW_ASSIGN_OR_RAISE(auto store, OpenStore("globalLimit", 1, schema, 1));
    stores.push_back(std::move(store));
    auto state = std::make_unique<OperatorState>(std::move(stores));
    state->metrics.operator_name = "globalLimit";
    state->metrics.num_partitions = options_.num_partitions;
    state->metrics.store_instances = 1;
    return state;
  }

  bool UsesWatermark() const override { return false; }

  Result<TablePtr> Process(OperatorState& state, TablePtr input, const BatchContext& batch) const override {
    StateMetrics& metrics = state.metrics;
    StateStore& store = state.store();
    ARROW_RETURN_NOT_OK(state.Load(batch));
    const TablePtr& stored = store.rows(0);
    int64_t before = 0;
    if (stored->num_rows() > 0) {
      ARROW_ASSIGN_OR_RAISE(auto value, stored->column(1)->GetScalar(0));
      before = std::static_pointer_cast<arrow::Int64Scalar>(value)->value;
    }
    const int64_t taken = std::clamp<int64_t>(node_->limit - before, 0, input->num_rows());
    metrics.rows_updated = 0;
    if (taken > 0) {
      // Spark's key is a single NULL; a NULL int keeps the store's key encoding simple.
      arrow::Int32Builder key;
      arrow::Int64Builder count;
      ARROW_RETURN_NOT_OK(key.AppendNull());
      ARROW_RETURN_NOT_OK(count.Append(before + taken));
      ARROW_ASSIGN_OR_RAISE(auto key_array, key.Finish());
      ARROW_ASSIGN_OR_RAISE(auto count_array, count.Finish());
      auto rows = arrow::Table::Make(store.schema(), {key_array, count_array});
      store.Stage(0, rows, rows, nullptr);
      metrics.rows_updated = 1;
    }
    ARROW_RETURN_NOT_OK(state.Commit(batch));
    return input->Slice(0, taken);
  }
};

arrow::Status LegacyAnalysisError(const std::string& message) {
  return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_3102", message, "");
}

// The grouping whose value is event time: an event-time column, or a window over one.
int EventTimeGrouping(const LogicalPlan& node, int64_t event_time_id) {
  if (event_time_id < 0) return -1;
  std::set<int64_t> times{event_time_id};
  plan::CollectEventTimes(*node.children[0], &times);
  for (size_t i = 0; i < node.groupings.size(); ++i) {
    if (plan::OverEventTime(*node.groupings[i], times)) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

OperatorState::OperatorState(std::vector<std::unique_ptr<StateStore>> stores) : stores_(std::move(stores)) {
  metrics.num_partitions = num_partitions();
  metrics.stores_per_partition = static_cast<int>(stores_.size());
}

OperatorState::~OperatorState() = default;

arrow::Status OperatorState::Load(const BatchContext& batch) {
  load_ms_ = NowMs();
  for (auto& store : stores_) ARROW_RETURN_NOT_OK(store->Load(batch.batch_id));
  return arrow::Status::OK();
}

arrow::Status OperatorState::Commit(const BatchContext& batch) {
  const int64_t commit_start = NowMs();
  metrics.update_ms = commit_start - load_ms_ - metrics.removal_ms;
  metrics.rows_total = metrics.memory_bytes = 0;
  for (auto& store : stores_) {
    ARROW_RETURN_NOT_OK(store->Commit(batch.batch_id + 1));
    metrics.rows_total += store->num_rows();
    metrics.memory_bytes += store->memory_bytes();
  }
  metrics.commit_ms = NowMs() - commit_start;
  return arrow::Status::OK();
}

Result<std::unique_ptr<StateStore>> StatefulOperator::OpenStore(const std::string& operator_name,
                                                                int num_partitions,
                                                                std::shared_ptr<arrow::Schema> schema,
                                                                int num_keys,
                                                                const std::string& store_name) const {
  return StateStore::Open(options_.checkpoint, options_.operator_id, operator_name, num_partitions,
                          std::move(schema), num_keys, options_.store_conf, store_name);
}

bool LimitKeepsState(const LogicalPlan& limit, const std::string& output_mode) {
  std::function<bool(const LogicalPlan&)> aggregates = [&](const LogicalPlan& p) {
    return p.kind == plan::PlanKind::kAggregate ||
           std::any_of(p.children.begin(), p.children.end(), [&](const auto& c) { return aggregates(*c); });
  };
  return limit.kind == plan::PlanKind::kLimit && limit.is_streaming &&
         (output_mode == "append" || (output_mode == "complete" && !aggregates(*limit.children[0])));
}

Result<std::unique_ptr<StatefulOperator>> MakeStatefulOperator(const LogicalPlan& node,
                                                               const StatefulOptions& options) {
  const auto& input = node.children[0]->output;
  int event_time_column = -1;
  for (size_t i = 0; i < input.size(); ++i) {
    if (input[i].id == options.event_time_id) event_time_column = static_cast<int>(i);
  }
  if (node.kind == plan::PlanKind::kJoin) return MakeStreamJoinOperator(node, options);
  if (node.kind == plan::PlanKind::kGroupMap) return MakeGroupStateOperator(node, options);
  if (node.kind == plan::PlanKind::kLimit) {
    return std::make_unique<GlobalLimitOperator>(node, options);
  }

  if (node.kind == plan::PlanKind::kAggregate) {
    int key = EventTimeGrouping(node, options.event_time_id);
    if (options.output_mode == "append" && key < 0) {
      return UserError(ErrorKind::kAnalysis, "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
                       "Invalid streaming output mode: append. This output mode is not supported "
                       "for streaming aggregations without watermark on streaming "
                       "DataFrames/DataSets.",
                       "42KDE");
    }
    ARROW_ASSIGN_OR_RAISE(auto aggregate, exec::IncrementalAggregate::Make(node));
    if (aggregate.has_sessions() && options.output_mode == "update") {
      return LegacyAnalysisError(
          "Update output mode not supported for session window on streaming DataFrames/DataSets");
    }
    return std::make_unique<AggregateOperator>(node, options, std::move(aggregate), key);
  }
  // Deduplicate: the keys are columns of the input.
  if (node.within_watermark && event_time_column < 0) {
    return LegacyAnalysisError(
        "dropDuplicatesWithinWatermark is not supported on streaming DataFrames/DataSets without "
        "watermark");
  }
  std::vector<int> key_columns;
  arrow::FieldVector fields;
  int event_time_key = -1;
  for (const auto& key : node.groupings) {
    for (size_t i = 0; i < input.size(); ++i) {
      if (input[i].id != key->id) continue;
      if (key->id == options.event_time_id) event_time_key = static_cast<int>(key_columns.size());
      key_columns.push_back(static_cast<int>(i));
      fields.push_back(arrow::field(input[i].name, input[i].type));
    }
  }
  if (node.within_watermark) {
    event_time_key = -1;
    fields.push_back(arrow::field("expires_at_micros", arrow::int64()));
  }
  return std::make_unique<DeduplicateOperator>(node, options, std::move(key_columns), event_time_column,
                                               event_time_key, arrow::schema(fields));
}

}  // namespace ember::stream
