#include "ember/stream/group_state.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "ember/common/row_keys.h"
#include "ember/exec/group_map.h"
#include "ember/stream/state_store.h"
#include "ember/stream/table_ops.h"
#include "ember/user_function.h"

namespace ember::stream {

namespace cp = arrow::compute;
using arrow::Result;
using plan::LogicalPlan;
using TablePtr = std::shared_ptr<arrow::Table>;

namespace {

constexpr int64_t kNoTimestamp = -1;  // Spark's GroupStateImpl.NO_TIMESTAMP

Result<std::shared_ptr<arrow::Array>> Int64s(const std::vector<int64_t>& values) {
  arrow::Int64Builder builder;
  ARROW_RETURN_NOT_OK(builder.AppendValues(values));
  return builder.Finish();
}

// The rows at `indices` (a NULL index gives a row of NULLs), in one chunk.
Result<std::vector<std::shared_ptr<arrow::Array>>> TakeColumns(
    const TablePtr& table, const std::vector<int>& columns, const std::shared_ptr<arrow::Array>& indices) {
  std::vector<std::shared_ptr<arrow::Array>> out;
  for (int c : columns) {
    ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(arrow::Datum(table->column(c)), arrow::Datum(indices)));
    ARROW_ASSIGN_OR_RAISE(auto array, arrow::Concatenate(taken.chunked_array()->chunks()));
    out.push_back(std::move(array));
  }
  return out;
}

class GroupStateOperator : public StatefulOperator {
 public:
  GroupStateOperator(const LogicalPlan& node, const StatefulOptions& options, std::vector<int> key_columns,
                     std::vector<int> data_columns, std::vector<std::string> data_names,
                     int event_time_column, std::shared_ptr<arrow::Schema> state_schema)
      : StatefulOperator(&node, options),
        key_columns_(std::move(key_columns)),
        data_columns_(std::move(data_columns)),
        data_names_(std::move(data_names)),
        event_time_column_(event_time_column),
        timeout_(node.group_state->timeout),
        state_schema_(std::move(state_schema)) {}

  Result<std::unique_ptr<OperatorState>> OpenState() const override {
    std::vector<std::unique_ptr<StateStore>> stores;
    ARROW_ASSIGN_OR_RAISE(auto store, OpenStore("applyInPandasWithState", options_.num_partitions,
                                                state_schema_, static_cast<int>(key_columns_.size())));
    stores.push_back(std::move(store));
    auto state = std::make_unique<OperatorState>(std::move(stores));
    state->metrics.operator_name = "applyInPandasWithState";
    return state;
  }

  bool UsesWatermark() const override { return timeout_ == "EventTimeTimeout"; }

  // Spark's FlatMapGroupsWithStateExecBase.shouldRunAnotherBatch: processing-time timeouts are
  // looked for in every trigger, event-time ones once the watermark moved.
  bool ShouldRunAnotherBatch(bool watermark_moved) const override {
    return timeout_ == "ProcessingTimeTimeout" || (UsesWatermark() && watermark_moved);
  }

  Result<TablePtr> Process(OperatorState& state, TablePtr input, const BatchContext& batch) const override {
    StateMetrics& metrics = state.metrics;
    StateStore& store = state.store();
    ARROW_RETURN_NOT_OK(state.Load(batch));
    const int n = store.num_partitions();
    const int num_keys = static_cast<int>(key_columns_.size());
    const int state_column = num_keys, timeout_column = num_keys + 1;
    ARROW_ASSIGN_OR_RAISE(input, input->CombineChunks());
    metrics.rows_updated = metrics.rows_removed = 0;
    // Late rows are dropped only where event-time timeouts judge them.
    metrics.rows_dropped_by_watermark = 0;
    if (timeout_ == "EventTimeTimeout" && event_time_column_ >= 0 && input->num_rows() > 0) {
      ARROW_ASSIGN_OR_RAISE(auto late, AtOrBelow(input->column(event_time_column_), batch.late_ms * 1000));
      ARROW_ASSIGN_OR_RAISE(auto on_time, Not(late));
      const int64_t before = input->num_rows();
      ARROW_ASSIGN_OR_RAISE(input, Where(input, on_time));
      metrics.rows_dropped_by_watermark = before - input->num_rows();
    }
    ARROW_ASSIGN_OR_RAISE(auto grouped, exec::GroupRows({input, key_columns_, data_columns_, data_names_}));
    const int64_t data_groups = grouped.groups->num_rows();

    // The stored states, all partitions one after the other, by key.
    std::vector<TablePtr> partitions;
    std::vector<int64_t> first_of_partition;
    int64_t stored_rows = 0;
    for (int p = 0; p < n; ++p) {
      first_of_partition.push_back(stored_rows);
      partitions.push_back(store.rows(p));
      stored_rows += store.rows(p)->num_rows();
    }
    ARROW_ASSIGN_OR_RAISE(auto stored, Concat(partitions));
    ARROW_ASSIGN_OR_RAISE(auto stored_keys, EncodeKeys(*stored, num_keys));
    std::shared_ptr<arrow::Array> stored_timeouts;
    if (stored_rows > 0) {
      ARROW_ASSIGN_OR_RAISE(stored_timeouts, arrow::Concatenate(stored->column(timeout_column)->chunks()));
    }
    absl::flat_hash_map<std::string_view, int64_t> stored_by_key;
    for (size_t i = 0; i < stored_keys.size(); ++i) stored_by_key.emplace(stored_keys[i], static_cast<int64_t>(i));
    ARROW_ASSIGN_OR_RAISE(auto group_key_batch, grouped.groups->SelectColumns(FirstColumns(num_keys)));
    ARROW_ASSIGN_OR_RAISE(auto group_key_table, arrow::Table::FromRecordBatches({group_key_batch}));
    ARROW_ASSIGN_OR_RAISE(auto group_keys, EncodeKeys(*group_key_table, num_keys));

    // The call's groups: those with rows, then those whose timeout passed (Spark's timeout
    // threshold: the batch's time, or the watermark, strictly above the timeout).
    std::vector<int64_t> state_of_group;  // index into `stored`, or -1
    std::vector<bool> has_data_group(static_cast<size_t>(stored_rows), false);
    for (size_t g = 0; g < group_keys.size(); ++g) {
      auto it = stored_by_key.find(group_keys[g]);
      state_of_group.push_back(it == stored_by_key.end() ? -1 : it->second);
      if (it != stored_by_key.end()) has_data_group[static_cast<size_t>(it->second)] = true;
    }
    const int64_t threshold =
        timeout_ == "ProcessingTimeTimeout" ? batch.eval.current_timestamp_us / 1000 : batch.eviction_ms;
    std::vector<int64_t> timed_out;
    if (timeout_ != "NoTimeout" && stored_rows > 0) {
      const auto& values = static_cast<const arrow::Int64Array&>(*stored_timeouts);
      for (int64_t i = 0; i < stored_rows; ++i) {
        int64_t t = values.Value(i);
        if (t != kNoTimestamp && t < threshold && !has_data_group[static_cast<size_t>(i)]) timed_out.push_back(i);
      }
    }
    const auto calls = static_cast<int64_t>(data_groups + static_cast<int64_t>(timed_out.size()));
    if (calls == 0) return Finish(state, batch, arrow::Table::MakeEmpty(OutputSchema()));

    // The groups batch: keys, offset, length, state, timed_out.
    arrow::Int64Builder state_index;
    for (int64_t s : state_of_group) {
      if (s < 0) {
        ARROW_RETURN_NOT_OK(state_index.AppendNull());
      } else {
        ARROW_RETURN_NOT_OK(state_index.Append(s));
      }
    }
    ARROW_RETURN_NOT_OK(state_index.AppendValues(timed_out));
    ARROW_ASSIGN_OR_RAISE(auto state_indices, state_index.Finish());
    ARROW_ASSIGN_OR_RAISE(auto timed_out_indices, Int64s(timed_out));
    ARROW_ASSIGN_OR_RAISE(auto timed_out_keys, TakeColumns(stored, FirstColumns(num_keys), timed_out_indices));
    ARROW_ASSIGN_OR_RAISE(auto states, TakeColumns(stored, {state_column}, state_indices));
    std::vector<int64_t> offsets, lengths;
    auto data_offsets = std::static_pointer_cast<arrow::Int64Array>(grouped.groups->column(num_keys));
    auto data_lengths = std::static_pointer_cast<arrow::Int64Array>(grouped.groups->column(num_keys + 1));
    for (int64_t g = 0; g < data_groups; ++g) {
      offsets.push_back(data_offsets->Value(g));
      lengths.push_back(data_lengths->Value(g));
    }
    arrow::BooleanBuilder timed_out_flags;
    ARROW_RETURN_NOT_OK(timed_out_flags.AppendValues(static_cast<int64_t>(data_groups), false));
    ARROW_RETURN_NOT_OK(timed_out_flags.AppendValues(static_cast<int64_t>(timed_out.size()), true));
    offsets.resize(static_cast<size_t>(calls), grouped.rows->num_rows());
    lengths.resize(static_cast<size_t>(calls), 0);
    arrow::ArrayVector columns;
    arrow::FieldVector fields;
    for (int k = 0; k < num_keys; ++k) {
      ARROW_ASSIGN_OR_RAISE(auto keys, arrow::Concatenate({grouped.groups->column(k), timed_out_keys[static_cast<size_t>(k)]}));
      columns.push_back(std::move(keys));
      fields.push_back(grouped.groups->schema()->field(k));
    }
    ARROW_ASSIGN_OR_RAISE(auto offset_array, Int64s(offsets));
    ARROW_ASSIGN_OR_RAISE(auto length_array, Int64s(lengths));
    ARROW_ASSIGN_OR_RAISE(auto flags, timed_out_flags.Finish());
    columns.insert(columns.end(), {offset_array, length_array, states[0], flags});
    fields.insert(fields.end(), {arrow::field("offset", arrow::int64()), arrow::field("length", arrow::int64()),
                                 arrow::field("state", store.schema()->field(state_column)->type()),
                                 arrow::field("timed_out", arrow::boolean())});
    GroupedRows call;
    call.rows = grouped.rows;
    call.groups = arrow::RecordBatch::Make(arrow::schema(fields), calls, columns);
    call.batch_time_ms = batch.eval.current_timestamp_us / 1000;
    call.watermark_ms = batch.eviction_ms;
    call.watermark_present = event_time_column_ >= 0;
    ARROW_ASSIGN_OR_RAISE(auto result, node_->group_function->call(call));
    if (!result.states || result.states->num_rows() != calls) {
      return arrow::Status::Invalid("applyInPandasWithState's function gave no state for each group");
    }

    // Spark's callFunctionAndUpdateState: a removed state without a timeout goes; one updated,
    // removed or with a new timeout is written (its value NULL once removed).
    ARROW_ASSIGN_OR_RAISE(auto timeout_array, result.states->GetColumnByName("timeout_ms")->View(arrow::int64()));
    const auto& new_timeouts = static_cast<const arrow::Int64Array&>(*timeout_array);
    const auto& updated = static_cast<const arrow::BooleanArray&>(*result.states->GetColumnByName("updated"));
    const auto& removed = static_cast<const arrow::BooleanArray&>(*result.states->GetColumnByName("removed"));
    std::vector<bool> replaced(static_cast<size_t>(stored_rows), false);
    std::vector<int64_t> puts, removals;  // call group indices; stored indices
    int64_t removed_count = 0;
    for (int64_t g = 0; g < calls; ++g) {
      const int64_t s = g < data_groups ? state_of_group[static_cast<size_t>(g)]
                                        : timed_out[static_cast<size_t>(g - data_groups)];
      const int64_t old_timeout =
          s < 0 ? kNoTimestamp : static_cast<const arrow::Int64Array&>(*stored_timeouts).Value(s);
      const int64_t timeout = new_timeouts.Value(g);
      if (removed.Value(g) && timeout == kNoTimestamp) {
        ++removed_count;
        if (s >= 0) {
          replaced[static_cast<size_t>(s)] = true;
          removals.push_back(s);
        }
      } else if (updated.Value(g) || removed.Value(g) || timeout != old_timeout) {
        if (s >= 0) replaced[static_cast<size_t>(s)] = true;
        puts.push_back(g);
      }
    }
    // The rows put: the call's keys with their new state and timeout.
    ARROW_ASSIGN_OR_RAISE(auto put_indices, Int64s(puts));
    arrow::ArrayVector put_columns;
    for (int k = 0; k < num_keys; ++k) {
      ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(arrow::Datum(columns[static_cast<size_t>(k)]), arrow::Datum(put_indices)));
      put_columns.push_back(taken.make_array());
    }
    for (const char* name : {"state", "timeout_ms"}) {
      ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(arrow::Datum(result.states->GetColumnByName(name)), arrow::Datum(put_indices)));
      put_columns.push_back(taken.make_array());
    }
    auto put_table = arrow::Table::Make(store.schema(), put_columns, static_cast<int64_t>(puts.size()));
    ARROW_ASSIGN_OR_RAISE(auto removal_indices, Int64s(removals));
    ARROW_ASSIGN_OR_RAISE(auto removed_taken, cp::Take(arrow::Datum(stored), arrow::Datum(removal_indices)));
    ARROW_ASSIGN_OR_RAISE(auto put_parts, SplitByPartition(put_table, FirstColumns(num_keys), n));
    ARROW_ASSIGN_OR_RAISE(auto removed_parts, SplitByPartition(removed_taken.table(), FirstColumns(num_keys), n));
    for (int p = 0; p < n; ++p) {
      const auto& part_puts = put_parts[static_cast<size_t>(p)];
      const auto& part_removed = removed_parts[static_cast<size_t>(p)];
      if (part_puts->num_rows() == 0 && part_removed->num_rows() == 0) continue;
      const TablePtr& old = store.rows(p);
      arrow::BooleanBuilder keep;
      ARROW_RETURN_NOT_OK(keep.Reserve(old->num_rows()));
      for (int64_t i = 0; i < old->num_rows(); ++i) {
        keep.UnsafeAppend(!replaced[static_cast<size_t>(first_of_partition[static_cast<size_t>(p)] + i)]);
      }
      ARROW_ASSIGN_OR_RAISE(auto mask, keep.Finish());
      ARROW_ASSIGN_OR_RAISE(auto kept, Where(old, mask));
      ARROW_ASSIGN_OR_RAISE(auto rows, Concat({kept, part_puts}));
      store.Stage(p, rows, part_puts, part_removed);
    }
    metrics.rows_updated = static_cast<int64_t>(puts.size());
    metrics.rows_removed = removed_count;
    ARROW_ASSIGN_OR_RAISE(auto output, arrow::Table::FromRecordBatches(OutputSchema(), {result.rows}));
    return Finish(state, batch, std::move(output));
  }

 private:
  std::shared_ptr<arrow::Schema> OutputSchema() const { return node_->group_function->output_schema; }

  // Commits the batch's state once the call succeeded.
  static Result<TablePtr> Finish(OperatorState& state, const BatchContext& batch, Result<TablePtr> output) {
    ARROW_RETURN_NOT_OK(output.status());
    ARROW_RETURN_NOT_OK(state.Commit(batch));
    return output;
  }

  std::vector<int> key_columns_, data_columns_;
  std::vector<std::string> data_names_;
  int event_time_column_;  // the watermarked column in the input, or -1
  std::string timeout_;
  std::shared_ptr<arrow::Schema> state_schema_;  // the key, the user's state, the timeout
};

}  // namespace

Result<std::unique_ptr<StatefulOperator>> MakeGroupStateOperator(const LogicalPlan& node,
                                                                 const StatefulOptions& options) {
  const auto& input = node.children[0]->output;
  std::vector<int> key_columns, data_columns;
  std::vector<std::string> data_names;
  arrow::FieldVector fields;
  for (const auto& key : node.groupings) {
    int c = plan::AttributeIndex(input, key->id);
    key_columns.push_back(c);
    fields.push_back(arrow::field(input[static_cast<size_t>(c)].name, input[static_cast<size_t>(c)].type));
  }
  for (const auto& column : node.exprs) {
    data_columns.push_back(plan::AttributeIndex(input, column->id));
    data_names.push_back(column->name);
  }
  // The state's row: the key, the user's state (NULL once removed while a timeout is kept) and
  // the timeout's instant in ms (-1 for none).
  fields.push_back(arrow::field("state", node.group_state->type));
  fields.push_back(arrow::field("timeout_ms", arrow::int64(), false));
  return std::make_unique<GroupStateOperator>(node, options, std::move(key_columns), std::move(data_columns),
                                              std::move(data_names),
                                              plan::AttributeIndex(input, options.event_time_id),
                                              arrow::schema(fields));
}

}  // namespace ember::stream
