#include "ember/stream/stream_join.h"

#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <set>

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "ember/common/interval.h"
#include "ember/error.h"
#include "ember/exec/executor.h"
#include "ember/plan/streaming.h"
#include "ember/stream/state_store.h"
#include "ember/stream/table_ops.h"

namespace ember::stream {

namespace cp = arrow::compute;
using arrow::Result;
using plan::Expr;
using plan::ExprKind;
using plan::ExprPtr;
using plan::JoinType;
using plan::LogicalPlan;
using plan::PlanKind;
using plan::EventTimes;
using plan::Ids;
using plan::JoinCondition;
using plan::SplitCondition;
using plan::StateValueWatermark;
using plan::WatermarkKey;
using TablePtr = std::shared_ptr<arrow::Table>;
using ArrayPtr = std::shared_ptr<arrow::Array>;

namespace {

// --- running pieces of the join on arrow tables ------------------------------------------------

constexpr const char* kRowId = "__row_id";
constexpr const char* kMatched = "__matched";

std::shared_ptr<LogicalPlan> LocalPlan(TablePtr table, std::vector<plan::Attribute> output) {
  auto local = std::make_shared<LogicalPlan>();
  local->kind = PlanKind::kLocalTable;
  local->output = std::move(output);
  local->table = std::move(table);
  return local;
}

Result<TablePtr> Run(const plan::PlanPtr& plan, const plan::EvalContext& eval) {
  exec::ExecOptions options;
  options.eval = eval;
  ARROW_ASSIGN_OR_RAISE(auto table, exec::Execute(plan, options));
  return table->CombineChunks();
}

Result<ArrayPtr> Or(const ArrayPtr& a, const ArrayPtr& b) {
  ARROW_ASSIGN_OR_RAISE(auto result, cp::CallFunction("or", {a, b}));
  return result.make_array();
}

Result<ArrayPtr> Constant(bool value, int64_t n) {
  return arrow::MakeArrayFromScalar(arrow::BooleanScalar(value), n);
}

// Per row of `ids`: is it one of `set`?
Result<ArrayPtr> In(const std::shared_ptr<arrow::ChunkedArray>& ids, const std::shared_ptr<arrow::ChunkedArray>& set) {
  if (ids->length() == 0) return arrow::MakeEmptyArray(arrow::boolean());
  if (set->length() == 0) return Constant(false, ids->length());
  ARROW_ASSIGN_OR_RAISE(auto values, arrow::Concatenate(set->chunks()));
  ARROW_ASSIGN_OR_RAISE(auto in, cp::IsIn(arrow::Datum(ids), cp::SetLookupOptions(values)));
  return arrow::Concatenate(in.chunked_array()->chunks());
}

// One side of the join: its columns and where they stand in the state.
struct Side {
  std::vector<plan::Attribute> child_output;  // all the child's columns
  // Those the join keeps (what the query reads of them, and event times), by their place in
  // child_output: a column nothing reads is not held in the state, and the join emits NULLs for it.
  std::vector<int> kept;
  std::vector<plan::Attribute> output;   // the kept columns
  std::vector<plan::Attribute> with_id;  // output, then the row id
  std::shared_ptr<arrow::Schema> state_schema;  // row id, output, matched
  std::vector<ExprPtr> keys;
  std::vector<ExprPtr> only;  // conjuncts over this side alone (Spark's pre-join filter)
  int event_time_column = -1;  // in output, or -1
  size_t store = 0;  // its store among the operator's: 0 left, 1 right
};

// The side's columns of a state table, followed by its row ids.
TablePtr InputOf(const Side& side, const TablePtr& state) {
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  arrow::FieldVector fields;
  for (size_t i = 0; i < side.output.size(); ++i) {
    columns.push_back(state->column(static_cast<int>(i) + 1));
    fields.push_back(state->schema()->field(static_cast<int>(i) + 1));
  }
  columns.push_back(state->column(0));
  fields.push_back(state->schema()->field(0));
  return arrow::Table::Make(arrow::schema(fields), columns, state->num_rows());
}

// Input rows (side's columns and row ids) as state rows with a matched flag.
Result<TablePtr> StateOf(const Side& side, const TablePtr& input, const ArrayPtr& matched) {
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  const int n = static_cast<int>(side.output.size());
  columns.push_back(input->column(n));
  for (int i = 0; i < n; ++i) columns.push_back(input->column(i));
  columns.push_back(std::make_shared<arrow::ChunkedArray>(matched));
  return arrow::Table::Make(side.state_schema, columns, input->num_rows());
}

// Stream-stream join of two inputs, Spark's symmetric hash join. The state of each side holds
// its rows by a row id (unique per batch and row), with the side's columns and whether a row of
// the other side ever matched the row (for the null-extended rows of outer joins).
class StreamJoinOperator : public StatefulOperator {
 public:
  StreamJoinOperator(const LogicalPlan& node, const StatefulOptions& options, JoinCondition condition,
                     Side left, Side right, std::set<int64_t> times, int watermark_key)
      : StatefulOperator(&node, options),
        condition_(std::move(condition)),
        left_(std::move(left)),
        right_(std::move(right)),
        times_(std::move(times)),
        watermark_key_(watermark_key) {}

  // A store per side, named left and right in each partition's folder.
  Result<std::unique_ptr<OperatorState>> OpenState() const override {
    std::vector<std::unique_ptr<StateStore>> stores;
    for (const Side* side : {&left_, &right_}) {
      ARROW_ASSIGN_OR_RAISE(auto store, OpenStore("symmetricHashJoin", options_.num_partitions,
                                                  side->state_schema, 1, side->store == 0 ? "left" : "right"));
      stores.push_back(std::move(store));
    }
    auto state = std::make_unique<OperatorState>(std::move(stores));
    state->metrics.operator_name = "symmetricHashJoin";
    state->metrics.stores_per_partition = 4;  // Spark's keyToNumValues and keyWithIndexToValue per side
    return state;
  }

  bool UsesWatermark() const override { return HasStatePredicate(left_, right_) || HasStatePredicate(right_, left_); }

  Result<TablePtr> Process(OperatorState&, TablePtr, const BatchContext&) const override {
    return arrow::Status::Invalid("a stream-stream join needs the rows of both sides");
  }

  Result<TablePtr> ProcessChildren(OperatorState& state, std::vector<TablePtr> inputs,
                                   const BatchContext& batch) const override {
    StateMetrics& metrics = state.metrics;
    ARROW_RETURN_NOT_OK(state.Load(batch));
    const JoinType type = node_->join_type;
    const bool left_outer = type == JoinType::kLeftOuter || type == JoinType::kFullOuter;
    const bool right_outer = type == JoinType::kRightOuter || type == JoinType::kFullOuter;
    const bool semi = type == JoinType::kLeftSemi;
    metrics.rows_dropped_by_watermark = 0;
    std::vector<TablePtr> output;

    // Each side's new rows: late rows dropped, row ids given, and those failing the side's own
    // conditions set apart (they never enter the state; an outer side emits them at once).
    ARROW_ASSIGN_OR_RAISE(auto left_new, NewRows(state, left_, std::move(inputs[0]), batch));
    ARROW_ASSIGN_OR_RAISE(auto right_new, NewRows(state, right_, std::move(inputs[1]), batch));
    if (left_outer) {
      ARROW_ASSIGN_OR_RAISE(auto rows, NullExtended(left_new.failed, true));
      output.push_back(rows);
    }
    if (right_outer) {
      ARROW_ASSIGN_OR_RAISE(auto rows, NullExtended(right_new.failed, false));
      output.push_back(rows);
    }
    ARROW_ASSIGN_OR_RAISE(auto left_state, Stored(state, left_));
    ARROW_ASSIGN_OR_RAISE(auto right_state, Stored(state, right_));

    // New left rows probe the right state.
    ARROW_ASSIGN_OR_RAISE(auto first, Match(left_new.passed, InputOf(right_, right_state), batch));
    ARROW_ASSIGN_OR_RAISE(auto left_ids, IdColumns(first));
    ARROW_ASSIGN_OR_RAISE(auto left_matched, In(left_new.passed->column(IdColumn(left_)), left_ids.first));
    ARROW_ASSIGN_OR_RAISE(auto left_added, StateOf(left_, left_new.passed, left_matched));
    if (semi) {
      // A left row is emitted once, at its first match; a matched one needs no state.
      ARROW_ASSIGN_OR_RAISE(auto emitted, Where(left_new.passed, left_matched));
      ARROW_ASSIGN_OR_RAISE(auto rows, LeftColumns(emitted));
      output.push_back(rows);
      ARROW_ASSIGN_OR_RAISE(auto unmatched, Not(left_matched));
      ARROW_ASSIGN_OR_RAISE(left_added, Where(left_added, unmatched));
    } else {
      ARROW_ASSIGN_OR_RAISE(auto rows, JoinedColumns(first));
      output.push_back(rows);
    }
    int64_t rows_updated = left_added->num_rows();

    // New right rows probe the left state, which now holds the new left rows too. For a semi
    // join only left rows never matched can still be emitted.
    ARROW_ASSIGN_OR_RAISE(auto left_all, Concat({left_state, left_added}));
    TablePtr probed = left_all;
    if (semi) {
      ARROW_ASSIGN_OR_RAISE(auto flags, Flag(left_all));
      ARROW_ASSIGN_OR_RAISE(auto never, Not(flags));
      ARROW_ASSIGN_OR_RAISE(probed, Where(left_all, never));
    }
    ARROW_ASSIGN_OR_RAISE(auto second, Match(InputOf(left_, probed), right_new.passed, batch));
    ARROW_ASSIGN_OR_RAISE(auto right_ids, IdColumns(second));
    if (semi) {
      ARROW_ASSIGN_OR_RAISE(auto newly, In(probed->column(0), right_ids.first));
      ARROW_ASSIGN_OR_RAISE(auto emitted, Where(InputOf(left_, probed), newly));
      ARROW_ASSIGN_OR_RAISE(auto rows, LeftColumns(emitted));
      output.push_back(rows);
    } else {
      ARROW_ASSIGN_OR_RAISE(auto rows, JoinedColumns(second));
      output.push_back(rows);
    }
    // Left rows matched now are marked; the state rows among them change.
    ARROW_ASSIGN_OR_RAISE(auto hit, In(left_all->column(0), right_ids.first));
    ARROW_ASSIGN_OR_RAISE(auto left_flags, Flag(left_all));
    ARROW_ASSIGN_OR_RAISE(auto now_matched, Or(left_flags, hit));
    ARROW_ASSIGN_OR_RAISE(left_all, left_all->SetColumn(left_all->num_columns() - 1,
                                                        left_.state_schema->fields().back(),
                                                        std::make_shared<arrow::ChunkedArray>(now_matched)));
    ARROW_ASSIGN_OR_RAISE(auto right_matched, In(right_new.passed->column(IdColumn(right_)), right_ids.second));
    ARROW_ASSIGN_OR_RAISE(auto right_added, StateOf(right_, right_new.passed, right_matched));
    // A right row that this batch's watermark already evicts need not be stored, unless it is
    // to be emitted unmatched at its eviction.
    ARROW_ASSIGN_OR_RAISE(auto right_expired, Expired(right_, left_, right_added, batch));
    ARROW_ASSIGN_OR_RAISE(auto keep, Not(right_expired));
    if (right_outer) {
      ARROW_ASSIGN_OR_RAISE(auto unmatched, Not(right_matched));
      ARROW_ASSIGN_OR_RAISE(keep, Or(keep, unmatched));
    }
    ARROW_ASSIGN_OR_RAISE(right_added, Where(right_added, keep));
    rows_updated += right_added->num_rows();
    ARROW_ASSIGN_OR_RAISE(auto right_all, Concat({right_state, right_added}));
    int64_t removal_start = NowMs();

    // Eviction by the watermark; an outer side's evicted rows that never matched are emitted
    // with NULLs for the other side. Spark counts as removed only the rows of the sides it
    // cleans without output.
    int64_t removed = 0;
    ARROW_ASSIGN_OR_RAISE(auto left_gone, Expired(left_, right_, left_all, batch));
    ARROW_ASSIGN_OR_RAISE(auto right_gone, Expired(right_, left_, right_all, batch));
    for (bool is_left : {true, false}) {
      const auto& gone = is_left ? left_gone : right_gone;
      const auto& all = is_left ? left_all : right_all;
      ARROW_ASSIGN_OR_RAISE(auto evicted, Where(all, gone));
      if (is_left ? left_outer : right_outer) {
        ARROW_ASSIGN_OR_RAISE(auto flags, Flag(evicted));
        ARROW_ASSIGN_OR_RAISE(auto never, Not(flags));
        ARROW_ASSIGN_OR_RAISE(auto unmatched, Where(evicted, never));
        ARROW_ASSIGN_OR_RAISE(auto rows, NullExtended(InputOf(is_left ? left_ : right_, unmatched), is_left));
        output.push_back(rows);
      } else {
        removed += evicted->num_rows();
      }
    }
    // The batch's own copies of its rows are done with; only the states are saved now.
    left_new = right_new = NewInput{};
    left_added = right_added = nullptr;
    metrics.removal_ms = NowMs() - removal_start;
    // Each side's next state, its copies gone before the commit.
    ARROW_RETURN_NOT_OK(Stage(state, left_, left_state, left_all, left_gone));
    left_state = left_all = nullptr;
    ARROW_RETURN_NOT_OK(Stage(state, right_, right_state, right_all, right_gone));
    right_state = right_all = nullptr;
    ARROW_RETURN_NOT_OK(state.Commit(batch));
    metrics.rows_updated = rows_updated;
    metrics.rows_removed = removed;
    return OutputOf(output);
  }

 private:
  struct NewInput {
    TablePtr passed, failed;  // columns and row ids
  };

  int IdColumn(const Side& side) const { return static_cast<int>(side.output.size()); }

  // Whether the watermark can evict rows of `side` (Spark's state watermark predicates).
  bool HasStatePredicate(const Side& side, const Side& other) const {
    if (watermark_key_ >= 0) return true;
    return side.event_time_column >= 0 &&
           StateValueWatermark(condition_.others, Ids(side.output), Ids(other.output), times_, 0).has_value();
  }

  // The matched flags of state rows.
  static Result<ArrayPtr> Flag(const TablePtr& state) {
    const auto& column = state->column(state->num_columns() - 1);
    if (column->num_chunks() == 0) return arrow::MakeEmptyArray(arrow::boolean());
    return arrow::Concatenate(column->chunks());
  }

  Result<NewInput> NewRows(OperatorState& state, const Side& side, TablePtr input,
                           const BatchContext& batch) const {
    ARROW_ASSIGN_OR_RAISE(input, input->SelectColumns(side.kept));
    ARROW_ASSIGN_OR_RAISE(input, input->CombineChunks());
    if (side.event_time_column >= 0 && input->num_rows() > 0) {
      ARROW_ASSIGN_OR_RAISE(auto late, AtOrBelow(input->column(side.event_time_column), batch.late_ms * 1000));
      ARROW_ASSIGN_OR_RAISE(auto on_time, Not(late));
      int64_t before = input->num_rows();
      ARROW_ASSIGN_OR_RAISE(input, Where(input, on_time));
      state.metrics.rows_dropped_by_watermark += before - input->num_rows();
    }
    // Row ids unique in the query: the batch in the high bits, the side's row in the low ones.
    arrow::Int64Builder ids;
    ARROW_RETURN_NOT_OK(ids.Reserve(input->num_rows()));
    for (int64_t i = 0; i < input->num_rows(); ++i) ids.UnsafeAppend((batch.batch_id << 32) | i);
    ARROW_ASSIGN_OR_RAISE(auto id_array, ids.Finish());
    std::vector<std::shared_ptr<arrow::ChunkedArray>> columns = input->columns();
    columns.push_back(std::make_shared<arrow::ChunkedArray>(id_array));
    arrow::FieldVector fields;
    for (const auto& a : side.with_id) fields.push_back(arrow::field(a.name, a.type));
    auto with_ids = arrow::Table::Make(arrow::schema(fields), columns, input->num_rows());
    NewInput result{with_ids, nullptr};
    ARROW_ASSIGN_OR_RAISE(result.failed, arrow::Table::MakeEmpty(with_ids->schema()));
    if (side.only.empty() || input->num_rows() == 0) return result;
    plan::PlanPtr filtered = LocalPlan(with_ids, side.with_id);
    for (const auto& conjunct : side.only) {
      auto filter = std::make_shared<LogicalPlan>();
      filter->kind = PlanKind::kFilter;
      filter->children = {filtered};
      filter->exprs = {conjunct};
      filter->output = side.with_id;
      filtered = filter;
    }
    ARROW_ASSIGN_OR_RAISE(result.passed, Run(filtered, batch.eval));
    ARROW_ASSIGN_OR_RAISE(auto kept, In(with_ids->column(IdColumn(side)), result.passed->column(IdColumn(side))));
    ARROW_ASSIGN_OR_RAISE(auto failed, Not(kept));
    ARROW_ASSIGN_OR_RAISE(result.failed, Where(with_ids, failed));
    return result;
  }

  // All of a side's state rows at the loaded version.
  Result<TablePtr> Stored(const OperatorState& state, const Side& side) const {
    const StateStore& store = state.store(side.store);
    std::vector<TablePtr> parts;
    for (int p = 0; p < store.num_partitions(); ++p) parts.push_back(store.rows(p));
    ARROW_ASSIGN_OR_RAISE(auto empty, arrow::Table::MakeEmpty(side.state_schema));
    parts.push_back(empty);
    return Concat(parts);
  }

  // The inner join of left and right rows (columns and row ids) on the join condition: left
  // columns, left row id, right columns, right row id.
  Result<TablePtr> Match(const TablePtr& left, const TablePtr& right, const BatchContext& batch) const {
    auto join = std::make_shared<LogicalPlan>();
    join->kind = PlanKind::kJoin;
    join->join_type = JoinType::kInner;
    join->children = {LocalPlan(left, left_.with_id), LocalPlan(right, right_.with_id)};
    join->exprs = node_->exprs;
    join->output = left_.with_id;
    join->output.insert(join->output.end(), right_.with_id.begin(), right_.with_id.end());
    if (left->num_rows() == 0 || right->num_rows() == 0) {
      arrow::FieldVector fields;
      for (const auto& a : join->output) fields.push_back(arrow::field(a.name, a.type));
      return arrow::Table::MakeEmpty(arrow::schema(fields));
    }
    return Run(join, batch.eval);
  }

  // The row ids of both sides in matched pairs.
  Result<std::pair<std::shared_ptr<arrow::ChunkedArray>, std::shared_ptr<arrow::ChunkedArray>>> IdColumns(
      const TablePtr& pairs) const {
    return std::make_pair(pairs->column(IdColumn(left_)),
                          pairs->column(IdColumn(left_) + 1 + IdColumn(right_)));
  }

  Result<TablePtr> JoinedColumns(const TablePtr& pairs) const {
    std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
    ARROW_RETURN_NOT_OK(AppendSide(left_, pairs.get(), 0, pairs->num_rows(), &columns));
    ARROW_RETURN_NOT_OK(AppendSide(right_, pairs.get(), IdColumn(left_) + 1, pairs->num_rows(), &columns));
    return arrow::Table::Make(OutputSchema(), columns, pairs->num_rows());
  }

  Result<TablePtr> LeftColumns(const TablePtr& rows) const {
    std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
    ARROW_RETURN_NOT_OK(AppendSide(left_, rows.get(), 0, rows->num_rows(), &columns));
    return arrow::Table::Make(OutputSchema(), columns, rows->num_rows());
  }

  // Rows of one side (columns and row ids) with NULLs for the other side's columns.
  Result<TablePtr> NullExtended(const TablePtr& rows, bool is_left) const {
    std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
    const int64_t n = rows->num_rows();
    ARROW_RETURN_NOT_OK(AppendSide(left_, is_left ? rows.get() : nullptr, 0, n, &columns));
    ARROW_RETURN_NOT_OK(AppendSide(right_, is_left ? nullptr : rows.get(), 0, n, &columns));
    return arrow::Table::Make(OutputSchema(), columns, n);
  }

  // Appends the child's columns of `side` for n rows: its kept columns from `rows` (from
  // column `first` on), NULLs for the others, or for all of them when `rows` is null.
  static arrow::Status AppendSide(const Side& side, const arrow::Table* rows, int first, int64_t n,
                                  std::vector<std::shared_ptr<arrow::ChunkedArray>>* columns) {
    size_t k = 0;
    for (size_t i = 0; i < side.child_output.size(); ++i) {
      if (rows && k < side.kept.size() && side.kept[k] == static_cast<int>(i)) {
        columns->push_back(rows->column(first + static_cast<int>(k++)));
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(side.child_output[i].type, n));
      columns->push_back(std::make_shared<arrow::ChunkedArray>(nulls));
    }
    return arrow::Status::OK();
  }

  std::shared_ptr<arrow::Schema> OutputSchema() const {
    arrow::FieldVector fields;
    for (const auto& a : node_->output) fields.push_back(arrow::field(a.name, a.type));
    return arrow::schema(fields);
  }

  Result<TablePtr> OutputOf(const std::vector<TablePtr>& parts) const {
    std::vector<TablePtr> all;
    for (const auto& t : parts) {
      if (t && t->num_rows() > 0) all.push_back(t);
    }
    if (all.empty()) return arrow::Table::MakeEmpty(OutputSchema());
    return Concat(all);
  }

  // Per state row of `side`: does the watermark evict it? By the event-time join key, else by
  // the range condition's bound on the side's event time (Spark's state watermark predicates).
  Result<ArrayPtr> Expired(const Side& side, const Side& other, const TablePtr& state,
                           const BatchContext& batch) const {
    const int64_t n = state->num_rows();
    const int64_t watermark_ms = batch.eviction_ms;
    if (watermark_key_ >= 0) {
      if (n == 0) return arrow::MakeEmptyArray(arrow::boolean());
      const ExprPtr& key = side.keys[static_cast<size_t>(watermark_key_)];
      auto project = std::make_shared<LogicalPlan>();
      project->kind = PlanKind::kProject;
      project->children = {LocalPlan(InputOf(side, state), side.with_id)};
      project->exprs = {key};
      project->output = {plan::Attribute{"__key", plan::NewAttributeId(), key->type, true, ""}};
      ARROW_ASSIGN_OR_RAISE(auto keys, Run(project, batch.eval));
      return AtOrBelow(keys->column(0), watermark_ms * 1000);
    }
    if (side.event_time_column >= 0) {
      auto bound = StateValueWatermark(condition_.others, Ids(side.output), Ids(other.output), times_,
                                       watermark_ms);
      if (bound) return AtOrBelow(state->column(side.event_time_column + 1), *bound * 1000);
    }
    return Constant(false, n);
  }

  // Stages a side's next state: `all` (the stored rows, then the new ones, flags updated) less
  // the evicted ones; puts are the new rows and the rows whose flag changed.
  arrow::Status Stage(OperatorState& state, const Side& side, const TablePtr& before, const TablePtr& all,
                      const ArrayPtr& gone) const {
    StateStore& store = state.store(side.store);
    // Stored rows keep their place at the front of `all`: a removal is a stored row gone, a put
    // a row that stays and is new (past them) or whose flag turned. By position, not by looking
    // row ids up in a hash set (Nexmark q7's 1.84 million bids made one of 50 MB).
    const int64_t stored = before->num_rows();
    ARROW_ASSIGN_OR_RAISE(auto now_flags, Flag(all));
    ARROW_ASSIGN_OR_RAISE(auto then_flags, Flag(before));
    const auto& now = static_cast<const arrow::BooleanArray&>(*now_flags);
    const auto& then = static_cast<const arrow::BooleanArray&>(*then_flags);
    const auto& evicted = static_cast<const arrow::BooleanArray&>(*gone);
    arrow::BooleanBuilder stays, removal, put;
    ARROW_RETURN_NOT_OK(stays.Reserve(all->num_rows()));
    ARROW_RETURN_NOT_OK(removal.Reserve(all->num_rows()));
    ARROW_RETURN_NOT_OK(put.Reserve(all->num_rows()));
    for (int64_t i = 0; i < all->num_rows(); ++i) {
      const bool known = evicted.IsValid(i), goes = known && evicted.Value(i);
      stays.UnsafeAppend(known && !goes);
      removal.UnsafeAppend(goes && i < stored);
      put.UnsafeAppend(known && !goes && (i >= stored || now.Value(i) != then.Value(i)));
    }
    ARROW_ASSIGN_OR_RAISE(auto stays_mask, stays.Finish());
    ARROW_ASSIGN_OR_RAISE(auto removal_mask, removal.Finish());
    ARROW_ASSIGN_OR_RAISE(auto put_mask, put.Finish());
    ARROW_ASSIGN_OR_RAISE(auto rows, Where(all, stays_mask));
    ARROW_ASSIGN_OR_RAISE(auto removed, Where(all, removal_mask));
    ARROW_ASSIGN_OR_RAISE(auto puts, Where(all, put_mask));
    const int n = store.num_partitions();
    ARROW_ASSIGN_OR_RAISE(auto row_parts, SplitByPartition(rows, {0}, n));
    // The puts are some of the rows, in order: as many are all of them (a side's first rows),
    // split once, not copied twice.
    auto put_parts = row_parts;
    if (puts->num_rows() != rows->num_rows()) {
      ARROW_ASSIGN_OR_RAISE(put_parts, SplitByPartition(puts, {0}, n));
    }
    // A removal is written as its key, the row id: only that column is split.
    ARROW_ASSIGN_OR_RAISE(auto removed_ids, removed->SelectColumns({0}));
    ARROW_ASSIGN_OR_RAISE(auto removed_parts, SplitByPartition(removed_ids, {0}, n));
    for (int p = 0; p < n; ++p) {
      store.Stage(p, row_parts[static_cast<size_t>(p)], put_parts[static_cast<size_t>(p)],
                         removed_parts[static_cast<size_t>(p)]);
    }
    return arrow::Status::OK();
  }

  JoinCondition condition_;
  Side left_, right_;
  std::set<int64_t> times_;
  int watermark_key_;  // the equi-key pair over event time, or -1
};

}  // namespace

Result<std::unique_ptr<StatefulOperator>> MakeStreamJoinOperator(const LogicalPlan& node,
                                                                 const StatefulOptions& options) {
  JoinCondition condition = SplitCondition(node);
  if (condition.left_keys.empty()) {
    return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1181",
                     "Stream-stream join without equality predicate is not supported.", "");
  }
  std::set<int64_t> times = EventTimes(node);
  int watermark_key = WatermarkKey(condition, times);
  Side sides[2];
  for (int s = 0; s < 2; ++s) {
    Side& side = sides[s];
    side.child_output = node.children[static_cast<size_t>(s)]->output;
    for (size_t i = 0; i < side.child_output.size(); ++i) {
      const int64_t id = side.child_output[i].id;
      if (!options.referenced || options.referenced->count(id) || times.count(id)) {
        side.kept.push_back(static_cast<int>(i));
        side.output.push_back(side.child_output[i]);
      }
    }
    side.with_id = side.output;
    side.with_id.push_back(plan::Attribute{kRowId, plan::NewAttributeId(), arrow::int64(), false, ""});
    side.keys = s == 0 ? condition.left_keys : condition.right_keys;
    side.only = s == 0 ? condition.left_only : condition.right_only;
    arrow::FieldVector fields{arrow::field(kRowId, arrow::int64(), false)};
    for (size_t i = 0; i < side.output.size(); ++i) {
      fields.push_back(arrow::field(side.output[i].name, side.output[i].type));
      if (side.event_time_column < 0 && times.count(side.output[i].id)) side.event_time_column = static_cast<int>(i);
    }
    fields.push_back(arrow::field(kMatched, arrow::boolean(), false));
    side.state_schema = arrow::schema(fields);
    side.store = static_cast<size_t>(s);
  }
  return std::make_unique<StreamJoinOperator>(node, options, std::move(condition), std::move(sides[0]),
                                              std::move(sides[1]), std::move(times), watermark_key);
}

}  // namespace ember::stream
