#include "ember/stream/incremental.h"

#include <algorithm>
#include <atomic>
#include <iterator>

#include <arrow/table.h>

#include "ember/common/interval.h"
#include "ember/common/parallel.h"
#include "ember/plan/streaming.h"
#include "ember/session.h"
#include "ember/streaming.h"

namespace ember::stream {

using arrow::Result;
using plan::LogicalPlan;
using plan::PlanKind;
using plan::PlanPtr;
using TablePtr = std::shared_ptr<arrow::Table>;

namespace {

// Source rows per slice of a batch fed to an operator that reduces slices (an aggregation):
// its child's rows (sliding windows multiply them) then never exist for the whole batch.
constexpr int64_t kSliceRows = 1 << 17;

bool Contains(const LogicalPlan& plan, PlanKind kind) {
  if (plan.kind == kind) return true;
  return std::any_of(plan.children.begin(), plan.children.end(),
                     [&](const PlanPtr& child) { return Contains(*child, kind); });
}

void CollectWatermarks(const LogicalPlan& plan, std::vector<const LogicalPlan*>* out) {
  if (plan.kind == PlanKind::kWatermark) out->push_back(&plan);
  for (const auto& child : plan.children) CollectWatermarks(*child, out);
}

// The withWatermark node whose event time a stateful node keys on: in Spark the key carries its
// watermark's metadata, through a join from either side. Without such a key, the first one below.
const LogicalPlan* EventTimeWatermark(const LogicalPlan& node) {
  std::vector<const LogicalPlan*> marks;
  CollectWatermarks(node, &marks);
  for (const LogicalPlan* mark : marks) {
    std::set<int64_t> times{mark->exprs[0]->id};
    plan::CollectEventTimes(*node.children[0], &times);
    for (const auto& key : node.groupings) {
      if (plan::OverEventTime(*key, times)) return mark;
    }
  }
  return marks.empty() ? nullptr : marks[0];
}

// The nodes that keep state, children first, each once (a DataFrame used twice).
void CollectStateful(const LogicalPlan& plan, const std::string& mode, std::vector<const LogicalPlan*>* out) {
  for (const auto& child : plan.children) CollectStateful(*child, mode, out);
  if (KeepsState(plan, mode) && std::find(out->begin(), out->end(), &plan) == out->end()) {
    out->push_back(&plan);
  }
}

// The stream source under `plan` when each node on the way computes each row on its own
// (projections, filters, aliases, watermarks, the expansion of sliding windows), so that the
// plan's rows over consecutive slices of the source are its rows over the whole, in order. Not
// through an observe(): its metrics are over the batch's rows.
const LogicalPlan* RowWiseSource(const LogicalPlan& plan, const std::set<const LogicalPlan*>& stateful) {
  if (stateful.count(&plan)) return nullptr;
  switch (plan.kind) {
    case PlanKind::kStreamSource:
      return &plan;
    case PlanKind::kProject:
    case PlanKind::kFilter:
    case PlanKind::kSubqueryAlias:
    case PlanKind::kWatermark:
    case PlanKind::kExpand:
    case PlanKind::kGenerate:
    case PlanKind::kMapBatches:
      return RowWiseSource(*plan.children[0], stateful);
    default:
      return nullptr;
  }
}

// Whether `plan` reads `source` other than through a node in `replaced` (a stateful operator
// that has run, or is running). `seen`: nodes already walked, each once (a DataFrame used twice).
bool ReadsSource(const LogicalPlan& plan, const LogicalPlan* source,
                 const std::map<const LogicalPlan*, PlanPtr>& replaced, std::set<const LogicalPlan*>* seen) {
  if (&plan == source) return true;
  if (replaced.count(&plan) || !seen->insert(&plan).second) return false;
  return std::any_of(plan.children.begin(), plan.children.end(),
                     [&](const PlanPtr& child) { return ReadsSource(*child, source, replaced, seen); });
}

// A stateless segment of the plan ready for the executor: each streaming source replaced by the
// rows of this batch, and other nodes replaced as `replace` says (a stateful operator's output).
PlanPtr Bind(const PlanPtr& plan, const std::map<const LogicalPlan*, TablePtr>& data,
             const std::map<const LogicalPlan*, PlanPtr>& replace = {}) {
  auto replaced = replace.find(plan.get());
  if (replaced != replace.end()) return Bind(replaced->second, data, {});
  if (plan->kind == PlanKind::kStreamSource) {
    auto local = std::make_shared<LogicalPlan>();
    local->kind = PlanKind::kLocalTable;
    local->output = plan->output;
    local->table = data.at(plan.get());
    return local;
  }
  if (!plan->is_streaming) return plan;
  auto copy = std::make_shared<LogicalPlan>(*plan);
  copy->is_streaming = false;
  for (auto& child : copy->children) child = Bind(child, data, replace);
  return copy;
}

// How many tasks a batch's input parts make: one per core at most, each worth at least
// `min_task_bytes`. A single task (the batch is read whole) when there are too few parts or
// bytes for more.
int TaskCount(const std::vector<InputPartition>& parts, int64_t min_task_bytes) {
  int64_t bytes = 0;
  for (const auto& part : parts) bytes += part.bytes;
  return static_cast<int>(std::min<int64_t>({CoreCount(), static_cast<int64_t>(parts.size()),
                                             bytes / std::max<int64_t>(1, min_task_bytes)}));
}

// Runs a query without state as `tasks` tasks: task t starts with input part t, then takes the
// next part not yet taken (in the batch's order: for files largest first, as Spark packs its
// file partitions), runs the plan over the part's rows and writes the result to its own part of
// the output, so no task waits while parts are left and each gets one at least. Returns the
// rows read and the rows written.
Result<std::pair<int64_t, int64_t>> RunTasks(const Source& source, const LogicalPlan* source_node,
                                             const PlanPtr& plan, const std::vector<InputPartition>& parts,
                                             int tasks, const exec::ExecOptions& options, PartedBatch* parted) {
  std::vector<arrow::Status> statuses(static_cast<size_t>(tasks));
  std::atomic<int64_t> read{0}, written{0};
  std::atomic<size_t> next{static_cast<size_t>(tasks)};
  ParallelFor(tasks, [&](int t) {
    statuses[static_cast<size_t>(t)] = [&]() -> arrow::Status {
      for (size_t i = static_cast<size_t>(t); i < parts.size(); i = next++) {
        ARROW_ASSIGN_OR_RAISE(auto rows, source.ReadPartitions({parts[i]}, options.eval));
        read += rows->num_rows();
        ARROW_ASSIGN_OR_RAISE(auto result, exec::Execute(Bind(plan, {{source_node, rows}}), options));
        written += result->num_rows();
        ARROW_RETURN_NOT_OK(parted->Write(t, static_cast<int64_t>(i), result));
      }
      return arrow::Status::OK();
    }();
  });
  for (const auto& status : statuses) ARROW_RETURN_NOT_OK(status);
  return std::make_pair(read.load(), written.load());
}

}  // namespace

bool KeepsState(const LogicalPlan& node, const std::string& output_mode) {
  if (!node.is_streaming) return false;
  switch (node.kind) {
    case PlanKind::kAggregate:
    case PlanKind::kDeduplicate:
      return true;
    case PlanKind::kJoin:
      return node.children[0]->is_streaming && node.children[1]->is_streaming;
    case PlanKind::kLimit:
      return LimitKeepsState(node, output_mode);
    case PlanKind::kGroupMap:
      return node.group_state != nullptr;
    default:
      return false;
  }
}

bool HasState(const LogicalPlan& plan, const std::string& output_mode) {
  return KeepsState(plan, output_mode) ||
         std::any_of(plan.children.begin(), plan.children.end(),
                     [&](const PlanPtr& child) { return HasState(*child, output_mode); });
}

Result<std::unique_ptr<IncrementalExecution>> IncrementalExecution::Plan(PlanPtr plan, StatefulOptions options) {
  std::vector<const LogicalPlan*> stateful;
  CollectStateful(*plan, options.output_mode, &stateful);
  std::vector<std::unique_ptr<const StatefulOperator>> operators;
  options.operator_id = 0;
  for (const LogicalPlan* node : stateful) {
    const LogicalPlan* below = EventTimeWatermark(*node);
    options.event_time_id = below ? below->exprs[0]->id : -1;
    options.delay_ms = below ? below->limit : 0;
    ARROW_ASSIGN_OR_RAISE(auto op, MakeStatefulOperator(*node, options));
    operators.push_back(std::move(op));
    ++options.operator_id;
  }
  // Every operator is valid before any opens its stores in the checkpoint.
  std::vector<std::unique_ptr<OperatorState>> states;
  for (const auto& op : operators) {
    ARROW_ASSIGN_OR_RAISE(auto state, op->OpenState());
    states.push_back(std::move(state));
  }
  return std::unique_ptr<IncrementalExecution>(
      new IncrementalExecution(std::move(plan), std::move(operators), std::move(states)));
}

bool IncrementalExecution::ShouldRunAnotherBatch(bool watermark_moved) const {
  return std::any_of(operators_.begin(), operators_.end(),
                     [&](const auto& op) { return op->ShouldRunAnotherBatch(watermark_moved); });
}

Result<BatchPlan> IncrementalExecution::PlanBatch(const std::vector<BatchSource>& sources, int64_t open_cost) const {
  BatchPlan batch_plan;
  std::set<const LogicalPlan*> stateful;
  for (size_t i = 0; i < operators_.size(); ++i) {
    const StatefulOperator* op = operators_[i].get();
    Stage stage;
    stage.op = op;
    stage.state = states_[i].get();
    if (op->TakesSlices()) {
      stage.sliced = RowWiseSource(*op->node()->children[0], stateful);
      if (stage.sliced) stage.mode = StageMode::kSlices;
    }
    batch_plan.stages.push_back(stage);
    stateful.insert(op->node());
  }
  // The last stage. A large batch of a query without state runs as Spark runs it: in tasks, one
  // per core, each reading parts of the input (files) and writing its own part of the output, so
  // reading and writing overlap and no task holds more than a part of the batch. Not with a
  // static side (a stream-static join), which each task would read again for every part, nor
  // with a watermark or an observe(), whose statistics and metrics are the batch's, nor with an
  // applyInPandas, whose groups are the batch's.
  Stage last;
  if (sources.size() == 1 && sources[0].end && operators_.empty() && !Contains(*plan_, PlanKind::kWatermark) &&
      !Contains(*plan_, PlanKind::kCollectMetrics) && !Contains(*plan_, PlanKind::kGroupMap) &&
      !Contains(*plan_, PlanKind::kFileScan) && !Contains(*plan_, PlanKind::kTableScan)) {
    ARROW_ASSIGN_OR_RAISE(batch_plan.task_parts,
                          sources[0].source->PlanInputPartitions(sources[0].start, *sources[0].end));
    batch_plan.tasks = TaskCount(batch_plan.task_parts, open_cost);
    if (batch_plan.tasks > 1) last.mode = StageMode::kTasks;
  }
  batch_plan.stages.push_back(last);
  return batch_plan;
}

Result<BatchOutcome> IncrementalExecution::RunBatch(const BatchPlan& batch_plan,
                                                     const std::vector<BatchSource>& sources,
                                                     const BatchContext& batch, const exec::ExecOptions& options,
                                                     Session& session, Sink& sink,
                                                     const std::function<void(const char*, int64_t)>& timed) {
  BatchOutcome outcome;
  const Stage& last = batch_plan.stages.back();
  if (last.mode == StageMode::kTasks) {
    ARROW_ASSIGN_OR_RAISE(auto parted, sink.BeginParts(batch.batch_id, batch_plan.tasks));
    if (parted) {
      ARROW_ASSIGN_OR_RAISE(auto rows, RunTasks(*sources[0].source, sources[0].node, plan_, batch_plan.task_parts,
                                                 batch_plan.tasks, options, parted.get()));
      ARROW_RETURN_NOT_OK(parted->Commit());
      outcome.input_rows = rows.first;
      outcome.output_rows = rows.second;
      outcome.source_rows.push_back(rows.first);
      timed("getBatch", NowEpochMs());  // the tasks read as they run
      return outcome;
    }
  }
  // getBatch: every source's rows for the batch.
  int64_t get_batch_start = NowEpochMs();
  std::map<const LogicalPlan*, TablePtr> data;
  for (const BatchSource& source : sources) {
    TablePtr fresh;
    if (source.end) {
      ARROW_ASSIGN_OR_RAISE(fresh, source.source->ReadBatch(source.start, *source.end, batch.eval));
    } else {  // a source without data yet (of several) reads nothing
      ARROW_ASSIGN_OR_RAISE(fresh, arrow::Table::MakeEmpty(source.node->stream_source->schema));
    }
    outcome.input_rows += fresh->num_rows();
    outcome.source_rows.push_back(fresh->num_rows());
    data[source.node] = fresh;
  }
  timed("getBatch", get_batch_start);

  // The stateful stages, bottom-up; each one's output replaces its node for the stages above.
  std::map<const LogicalPlan*, PlanPtr> replace;
  for (size_t index = 0; index + 1 < batch_plan.stages.size(); ++index) {
    const Stage& stage = batch_plan.stages[index];
    const StatefulOperator& op = *stage.op;
    OperatorState& state = *stage.state;
    const LogicalPlan& node = *op.node();
    // Once the operator has its input, a source that neither a later stage nor the rest of the
    // plan reads lets go of its rows: the operator's merge, a join's state, no longer shares the
    // memory with the whole batch as read.
    auto release_sources = [&] {
      auto done = replace;
      done[&node] = nullptr;
      for (auto it = data.begin(); it != data.end();) {
        std::set<const LogicalPlan*> seen;
        bool read = ReadsSource(*plan_, it->first, done, &seen);
        for (size_t j = index + 1; j + 1 < batch_plan.stages.size() && !read; ++j) {
          read = ReadsSource(*batch_plan.stages[j].op->node(), it->first, done, &seen);
        }
        it = read ? std::next(it) : data.erase(it);
      }
    };
    TablePtr output;
    if (stage.mode == StageMode::kSlices && data.at(stage.sliced)->num_rows() > kSliceRows) {
      // The slices run on every core; their partials stay in the slices' order.
      TablePtr whole = data.at(stage.sliced);
      const auto slices = static_cast<int>((whole->num_rows() + kSliceRows - 1) / kSliceRows);
      std::vector<TablePtr> reduced(static_cast<size_t>(slices));
      std::vector<arrow::Status> statuses(static_cast<size_t>(slices));
      ParallelFor(slices, [&](int i) {
        statuses[static_cast<size_t>(i)] = [&]() -> arrow::Status {
          auto slice_data = data;
          slice_data[stage.sliced] = whole->Slice(i * kSliceRows, kSliceRows);
          ARROW_ASSIGN_OR_RAISE(auto rows, exec::Execute(Bind(node.children[0], slice_data, replace), options));
          ARROW_ASSIGN_OR_RAISE(reduced[static_cast<size_t>(i)], op.ReduceSlice(state, std::move(rows), batch));
          return arrow::Status::OK();
        }();
      });
      for (const auto& status : statuses) ARROW_RETURN_NOT_OK(status);
      whole.reset();
      release_sources();
      ARROW_ASSIGN_OR_RAISE(output, op.ProcessSlices(state, std::move(reduced), batch));
    } else {
      std::vector<TablePtr> inputs;
      for (const auto& child : node.children) {
        ARROW_ASSIGN_OR_RAISE(auto input, exec::Execute(Bind(child, data, replace), options));
        inputs.push_back(std::move(input));
      }
      release_sources();
      ARROW_ASSIGN_OR_RAISE(output, op.ProcessChildren(state, std::move(inputs), batch));
    }
    auto local = std::make_shared<LogicalPlan>();
    local->kind = PlanKind::kLocalTable;
    local->output = node.output;
    local->table = output;
    replace[&node] = local;
  }

  // The last stage: the rest of the plan, into the sink.
  int64_t planning_start = NowEpochMs();
  PlanPtr bound = Bind(plan_, data, replace);
  timed("queryPlanning", planning_start);
  ARROW_ASSIGN_OR_RAISE(auto result, exec::Execute(bound, options));
  outcome.output_rows = result->num_rows();
  ARROW_ASSIGN_OR_RAISE(auto batch_df, session.FromArrow(result));
  ARROW_RETURN_NOT_OK(sink.AddBatch(batch.batch_id, batch_df));
  return outcome;
}

}  // namespace ember::stream
