#include "ember/exec/incremental_aggregate.h"

#include <numeric>

#include <arrow/acero/exec_plan.h>
#include <arrow/acero/options.h>
#include <arrow/array/array_primitive.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/array/concatenate.h>
#include <arrow/array/util.h>
#include <arrow/compute/api.h>
#include <arrow/compute/kernel.h>
#include <arrow/compute/row/grouper.h>
#include <arrow/table.h>
#include <arrow/util/bitmap_builders.h>

#include "ember/common/hyperloglog.h"
#include "ember/common/row_keys.h"
#include "ember/error.h"
#include "ember/exec/executor.h"

namespace ember::exec {

namespace ac = arrow::acero;
namespace cp = arrow::compute;
using arrow::Result;

namespace {

ac::Declaration Source(std::shared_ptr<arrow::Table> table) {
  return ac::Declaration("table_source", ac::TableSourceNodeOptions(std::move(table)));
}

ac::Declaration Project(ac::Declaration input, std::vector<cp::Expression> exprs,
                        std::vector<std::string> names) {
  return ac::Declaration::Sequence(
      {std::move(input), {"project", ac::ProjectNodeOptions(std::move(exprs), std::move(names))}});
}

cp::Expression CastTo(cp::Expression value, const std::shared_ptr<arrow::DataType>& type) {
  return cp::call("cast", {std::move(value)}, cp::CastOptions::Safe(type));
}

std::shared_ptr<cp::FunctionOptions> SumOptions(uint32_t min_count) {
  return std::make_shared<cp::ScalarAggregateOptions>(/*skip_nulls=*/true, min_count);
}

}  // namespace

Result<IncrementalAggregate> IncrementalAggregate::Make(const plan::LogicalPlan& aggregate) {
  IncrementalAggregate a;
  a.node_ = &aggregate;
  int column = 0;
  for (size_t i = 0; i < aggregate.groupings.size(); ++i) {
    const auto& type = aggregate.groupings[i]->type;
    std::vector<int> columns;
    std::string name = "k" + std::to_string(i);
    int fields = type->id() == arrow::Type::STRUCT ? type->num_fields() : 0;
    if (fields == 0) {
      a.key_names_.push_back(name);
      columns.push_back(column++);
    }
    for (int f = 0; f < fields; ++f) {
      a.key_names_.push_back(name + "_" + std::to_string(f));
      columns.push_back(column++);
    }
    const auto& key = *aggregate.groupings[i];
    if (key.kind == plan::ExprKind::kCall && key.name == "session_window") {
      a.session_grouping_ = static_cast<int>(i);
    } else {
      a.group_columns_.insert(a.group_columns_.end(), columns.begin(), columns.end());
    }
    a.grouping_columns_.push_back(std::move(columns));
  }
  for (size_t i = 0; i < aggregate.exprs.size(); ++i) {
    const plan::Expr& call = *aggregate.exprs[i];
    const plan::FunctionDef* def = plan::FindFunction(call.name);
    std::string b = "b" + std::to_string(i);
    if (call.distinct) {
      return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_3102",
                       "Distinct aggregations are not supported on streaming DataFrames/Datasets. "
                       "Consider using approx_count_distinct() instead.",
                       "");
    }
    std::vector<Buffer> buffers;
    const std::string& f = def->name;
    if (f == "count") {
      buffers.push_back({b, "hash_count", def->options, "hash_sum", SumOptions(0)});
    } else if (f == "avg" || f == "mean") {
      buffers.push_back({b + "_sum", "hash_sum", SumOptions(1), "hash_sum", SumOptions(1)});
      buffers.push_back({b + "_count", "hash_count",
                         std::make_shared<cp::CountOptions>(cp::CountOptions::ONLY_VALID),
                         "hash_sum", SumOptions(0)});
    } else if (f == "sum" || f == "min" || f == "max" || f == "first" || f == "first_value" ||
               f == "any_value" || f == "last" || f == "last_value" || f == "bool_and" ||
               f == "every" || f == "bool_or" || f == "some" || f == "any") {
      // Merging keeps the kernel: a sum of sums, the first of firsts (state rows come first).
      ARROW_ASSIGN_OR_RAISE(auto options, plan::AggregateOptions(*def, call));
      buffers.push_back({b, def->hash_aggregate, options, def->hash_aggregate, options});
    } else if (f == "count_if") {
      buffers.push_back({b, "hash_sum", def->options, "hash_sum", SumOptions(0)});
    } else if (f == "approx_count_distinct") {
      // The buffer is the HyperLogLog++ sketch; sketches merge register by register. Its name
      // carries the precision, so a restart with another rsd fails the state's schema check.
      ARROW_ASSIGN_OR_RAISE(auto options, plan::AggregateOptions(*def, call));
      int precision = static_cast<const HyperLogLogOptions&>(*options).precision;
      buffers.push_back({b + "_hll" + std::to_string(precision), def->hash_aggregate, options,
                         "hash_ember_hll_merge", options, def->finalize});
    } else {
      return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                       "The feature is not supported: " + call.name +
                           "() in a streaming aggregation is not supported by Ember yet.",
                       "0A000");
    }
    a.buffers_.push_back(std::move(buffers));
  }
  // The buffer schema is what a partial aggregation of no rows produces.
  arrow::FieldVector fields;
  for (const auto& attribute : aggregate.children[0]->output) {
    fields.push_back(arrow::field(attribute.name, attribute.type));
  }
  ARROW_ASSIGN_OR_RAISE(auto empty, arrow::Table::MakeEmpty(arrow::schema(fields)));
  ARROW_ASSIGN_OR_RAISE(auto buffers, a.Partial(empty, plan::EvalContext{}));
  a.buffer_schema_ = buffers->schema();
  return a;
}

int IncrementalAggregate::EventTimeColumn(int grouping) const {
  const auto& type = node_->groupings[static_cast<size_t>(grouping)]->type;
  const auto& columns = grouping_columns_[static_cast<size_t>(grouping)];
  if (type->id() != arrow::Type::STRUCT) return columns[0];
  return columns[static_cast<size_t>(static_cast<const arrow::StructType&>(*type).GetFieldIndex("end"))];
}

Result<std::shared_ptr<arrow::Table>> IncrementalAggregate::Aggregate(const ac::Declaration& input,
                                                                      bool partial,
                                                                      bool marked) const {
  const bool global = key_names_.empty();
  std::vector<cp::Aggregate> aggregates;
  std::vector<cp::Expression> layout;
  std::vector<std::string> names;
  for (const auto& key : key_names_) {
    layout.push_back(cp::field_ref(key));
    names.push_back(key);
  }
  for (size_t i = 0; i < buffers_.size(); ++i) {
    for (const auto& buffer : buffers_[i]) {
      std::string function = partial ? buffer.partial : buffer.merge;
      if (global) function = function.substr(5);  // "hash_sum" -> "sum"
      // A partial aggregate reads the call's argument; a merge reads the buffer itself.
      std::string target = partial ? "a" + std::to_string(i) : buffer.name;
      aggregates.emplace_back(function, partial ? buffer.partial_options : buffer.merge_options,
                              arrow::FieldRef(target), buffer.name + "_out");
      layout.push_back(cp::field_ref(buffer.name + "_out"));
      names.push_back(buffer.name);
    }
  }
  if (marked) {
    aggregates.emplace_back(global ? "max" : "hash_max", nullptr, arrow::FieldRef("__fresh"),
                            "__fresh_out");
    layout.push_back(cp::field_ref("__fresh_out"));
    names.push_back("__fresh");
  }
  std::vector<arrow::FieldRef> keys(key_names_.begin(), key_names_.end());
  ac::Declaration aggregate = ac::Declaration::Sequence(
      {input, {"aggregate", ac::AggregateNodeOptions(std::move(aggregates), std::move(keys))}});
  ARROW_ASSIGN_OR_RAISE(
      auto result,
      ac::DeclarationToTable(Project(std::move(aggregate), std::move(layout), std::move(names)),
                             /*use_threads=*/false));
  if (!buffer_schema_) return result;  // Make() is learning the schema
  ARROW_ASSIGN_OR_RAISE(auto buffers, ToBufferTypes(*result));
  if (!marked) return buffers;
  return buffers->AddColumn(buffers->num_columns(), result->schema()->fields().back(),
                            result->column(result->num_columns() - 1));
}

// Every buffer table has one schema, so state and batch buffers concatenate.
Result<std::shared_ptr<arrow::Table>> IncrementalAggregate::ToBufferTypes(
    const arrow::Table& table) const {
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  for (int i = 0; i < buffer_schema_->num_fields(); ++i) {
    auto column = table.column(i);
    const auto& type = buffer_schema_->field(i)->type();
    if (!column->type()->Equals(*type)) {
      ARROW_ASSIGN_OR_RAISE(auto cast, cp::Cast(arrow::Datum(column), type));
      column = cast.chunked_array();
    }
    columns.push_back(std::move(column));
  }
  return arrow::Table::Make(buffer_schema_, std::move(columns), table.num_rows());
}

GroupIndex::GroupIndex() = default;
GroupIndex::~GroupIndex() = default;
GroupIndex::GroupIndex(GroupIndex&&) noexcept = default;
GroupIndex& GroupIndex::operator=(GroupIndex&&) noexcept = default;

namespace {

// The group ids of the rows of `table`'s first `keys` columns, new keys getting new groups.
Result<std::shared_ptr<arrow::Array>> ConsumeKeys(cp::Grouper& grouper, const arrow::Table& table,
                                                  int keys) {
  arrow::ArrayVector ids;
  arrow::TableBatchReader batches(table);
  std::shared_ptr<arrow::RecordBatch> batch;
  while (true) {
    ARROW_RETURN_NOT_OK(batches.ReadNext(&batch));
    if (!batch) break;
    std::vector<arrow::Datum> columns;
    for (int k = 0; k < keys; ++k) columns.emplace_back(batch->column(k));
    cp::ExecBatch key_batch(std::move(columns), batch->num_rows());
    ARROW_ASSIGN_OR_RAISE(auto batch_ids, grouper.Consume(cp::ExecSpan(key_batch)));
    ids.push_back(batch_ids.make_array());
  }
  if (ids.empty()) return arrow::MakeEmptyArray(arrow::uint32());
  return ids.size() == 1 ? Result<std::shared_ptr<arrow::Array>>(ids[0]) : arrow::Concatenate(ids);
}

// Hash aggregate `name` over (values, group ids) pairs, consumed in order, into `groups` groups:
// what Acero's group-by does with the ids of its own grouper.
Result<std::shared_ptr<arrow::Array>> GroupedAggregate(
    const std::string& name, const cp::FunctionOptions* options,
    const std::shared_ptr<arrow::DataType>& type, int64_t groups,
    const std::vector<std::pair<std::shared_ptr<arrow::ChunkedArray>, std::shared_ptr<arrow::Array>>>& inputs) {
  ARROW_ASSIGN_OR_RAISE(auto function, cp::GetFunctionRegistry()->GetFunction(name));
  std::vector<arrow::TypeHolder> types{type, arrow::uint32()};
  ARROW_ASSIGN_OR_RAISE(const cp::Kernel* found, function->DispatchExact(types));
  const auto* kernel = static_cast<const cp::HashAggregateKernel*>(found);
  if (!options) options = function->default_options();
  cp::ExecContext exec(arrow::default_memory_pool());
  cp::KernelContext ctx(&exec, kernel);
  ARROW_ASSIGN_OR_RAISE(auto state, kernel->init(&ctx, cp::KernelInitArgs{kernel, types, options}));
  ctx.SetState(state.get());
  ARROW_RETURN_NOT_OK(kernel->resize(&ctx, groups));
  for (const auto& [values, ids] : inputs) {
    int64_t offset = 0;
    for (const auto& chunk : values->chunks()) {
      cp::ExecBatch batch({chunk, ids->Slice(offset, chunk->length())}, chunk->length());
      ARROW_RETURN_NOT_OK(kernel->consume(&ctx, cp::ExecSpan(batch)));
      offset += chunk->length();
    }
  }
  arrow::Datum out;
  ARROW_RETURN_NOT_OK(kernel->finalize(&ctx, &out));
  return out.make_array();
}

}  // namespace

Result<std::pair<std::shared_ptr<arrow::Table>, std::shared_ptr<arrow::Table>>>
IncrementalAggregate::MergeInto(std::shared_ptr<arrow::Table> state,
                                std::shared_ptr<arrow::Table> fresh, GroupIndex& index) const {
  const int keys = num_keys();
  const int64_t stored = state->num_rows();
  bool indexed = keys > 0 && index.grouper_ && index.rows_.lock() == state;
  if (keys > 0 && !indexed) {
    // The state's groups, in its order (its keys are unique).
    std::vector<arrow::TypeHolder> key_types;
    for (int k = 0; k < keys; ++k) key_types.emplace_back(buffer_schema_->field(k)->type());
    auto grouper = cp::Grouper::Make(key_types);
    if (grouper.ok()) {
      index.grouper_ = std::move(*grouper);
      ARROW_ASSIGN_OR_RAISE(auto ids, ConsumeKeys(*index.grouper_, *state, keys));
      indexed = index.grouper_->num_groups() == stored;
      if (indexed) {
        // The grouper numbers groups in an order of its own: the state's rows take it.
        std::vector<int64_t> row_of_group(static_cast<size_t>(stored));
        const auto* id = static_cast<const arrow::UInt32Array&>(*ids).raw_values();
        for (int64_t i = 0; i < stored; ++i) row_of_group[id[i]] = i;
        auto order = std::make_shared<arrow::Int64Array>(
            stored, arrow::Buffer::FromVector(std::move(row_of_group)));
        ARROW_ASSIGN_OR_RAISE(auto ordered, cp::Take(arrow::Datum(state), arrow::Datum(order)));
        state = ordered.table();
      }
    }
  }
  if (!indexed) {
    // A global aggregate, or keys the grouper does not take: one group-by over the state and
    // the batch, where a marker tells which groups the batch touched.
    index = GroupIndex();
    auto mark = [](const std::shared_ptr<arrow::Table>& t, int8_t value) -> Result<std::shared_ptr<arrow::Table>> {
      ARROW_ASSIGN_OR_RAISE(auto marker, arrow::MakeArrayFromScalar(arrow::Int8Scalar(value), t->num_rows()));
      return t->AddColumn(t->num_columns(), arrow::field("__fresh", arrow::int8()),
                          std::make_shared<arrow::ChunkedArray>(marker));
    };
    ARROW_ASSIGN_OR_RAISE(auto old_rows, mark(state, 0));
    ARROW_ASSIGN_OR_RAISE(auto new_rows, mark(fresh, 1));
    ARROW_ASSIGN_OR_RAISE(auto both, arrow::ConcatenateTables({old_rows, new_rows}));
    ARROW_ASSIGN_OR_RAISE(auto merged, Aggregate(Source(both), /*partial=*/false, /*marked=*/true));
    int marker = merged->num_columns() - 1;
    ARROW_ASSIGN_OR_RAISE(auto touched, cp::CallFunction("equal", {merged->column(marker), arrow::Datum(int8_t{1})}));
    ARROW_ASSIGN_OR_RAISE(auto rows, merged->RemoveColumn(marker));
    ARROW_ASSIGN_OR_RAISE(auto changed, cp::Filter(arrow::Datum(rows), touched));
    return std::make_pair(rows, changed.table());
  }
  // The batch's groups: the state's rows are groups 0 to stored - 1; new groups follow (their
  // ids need not follow the order of the batch's rows). Until the merge succeeds, the index
  // describes no state.
  index.rows_.reset();
  ARROW_ASSIGN_OR_RAISE(auto ids, ConsumeKeys(*index.grouper_, *fresh, keys));
  const int64_t groups = index.grouper_->num_groups();
  const auto* id = static_cast<const arrow::UInt32Array&>(*ids).raw_values();
  std::vector<uint8_t> touched(static_cast<size_t>(groups), 0);
  std::vector<int64_t> firsts(static_cast<size_t>(groups - stored), -1);  // a new group's first row
  for (int64_t i = 0; i < ids->length(); ++i) {
    touched[id[i]] = 1;
    if (id[i] >= stored && firsts[id[i] - stored] < 0) firsts[id[i] - stored] = i;
  }
  auto first_rows = std::make_shared<arrow::Int64Array>(groups - stored,
                                                       arrow::Buffer::FromVector(std::move(firsts)));
  std::vector<uint32_t> state_groups(static_cast<size_t>(stored));
  std::iota(state_groups.begin(), state_groups.end(), 0u);
  auto stored_ids = std::make_shared<arrow::UInt32Array>(
      stored, arrow::Buffer::FromVector(std::move(state_groups)));
  arrow::ChunkedArrayVector columns;
  for (int k = 0; k < keys; ++k) {
    ARROW_ASSIGN_OR_RAISE(auto added, cp::Take(fresh->column(k), first_rows));
    arrow::ArrayVector chunks = state->column(k)->chunks();
    for (const auto& chunk : added.chunked_array()->chunks()) chunks.push_back(chunk);
    ARROW_ASSIGN_OR_RAISE(auto key, arrow::Concatenate(chunks));
    columns.push_back(std::make_shared<arrow::ChunkedArray>(std::move(key)));
  }
  int column = keys;
  for (const auto& call : buffers_) {
    for (const auto& buffer : call) {
      const auto& type = buffer_schema_->field(column)->type();
      ARROW_ASSIGN_OR_RAISE(
          auto merged, GroupedAggregate(buffer.merge, buffer.merge_options.get(), type, groups,
                                        {{state->column(column), stored_ids}, {fresh->column(column), ids}}));
      if (!merged->type()->Equals(*type)) {
        ARROW_ASSIGN_OR_RAISE(auto cast, cp::Cast(arrow::Datum(merged), type));
        merged = cast.make_array();
      }
      columns.push_back(std::make_shared<arrow::ChunkedArray>(std::move(merged)));
      ++column;
    }
  }
  auto rows = arrow::Table::Make(buffer_schema_, std::move(columns), groups);
  ARROW_ASSIGN_OR_RAISE(auto touched_bits, arrow::internal::BytesToBits(touched));
  auto mask = std::make_shared<arrow::BooleanArray>(groups, std::move(touched_bits));
  ARROW_ASSIGN_OR_RAISE(auto changed, cp::Filter(arrow::Datum(rows), mask));
  index.rows_ = rows;
  return std::make_pair(rows, changed.table());
}

Result<ac::Declaration> IncrementalAggregate::Arguments(std::shared_ptr<arrow::Table> input,
                                                       const plan::EvalContext& ctx,
                                                       bool per_row) const {
  const auto& child = *node_->children[0];
  std::vector<std::string> column_names;
  for (const auto& attribute : child.output) column_names.push_back(ColumnName(attribute.id));
  ARROW_ASSIGN_OR_RAISE(input, input->RenameColumns(column_names));
  std::vector<cp::Expression> exprs;
  std::vector<std::string> names;
  for (size_t i = 0; i < node_->groupings.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto key, LowerExpr(*node_->groupings[i], ctx));
    const auto& type = node_->groupings[i]->type;
    if (type->id() != arrow::Type::STRUCT) {
      exprs.push_back(std::move(key));
      continue;
    }
    for (int f = 0; f < type->num_fields(); ++f) {
      exprs.push_back(cp::call("struct_field", {key}, cp::StructFieldOptions({f})));
    }
  }
  names = key_names_;
  for (size_t i = 0; i < node_->exprs.size(); ++i) {
    const plan::Expr& call = *node_->exprs[i];
    ARROW_ASSIGN_OR_RAISE(auto arg, LowerExpr(*call.args[0], ctx));
    // avg sums in double, as Spark's Average does for non-decimal input.
    if (buffers_[i].size() == 2 && call.args[0]->type->id() != arrow::Type::DECIMAL128) {
      arg = CastTo(std::move(arg), arrow::float64());
    }
    if (!per_row) {
      exprs.push_back(std::move(arg));
      names.push_back("a" + std::to_string(i));
      continue;
    }
    // One row's buffer: a count counts the row if its value is there (count's only mode here);
    // a sum, min, max, first or last is the value itself.
    for (const auto& buffer : buffers_[i]) {
      exprs.push_back(buffer.partial == "hash_count"
                          ? CastTo(cp::call("is_valid", {arg}), arrow::int64())
                          : arg);
      names.push_back(buffer.name);
    }
  }
  return Project(Source(std::move(input)), std::move(exprs), std::move(names));
}

Result<std::shared_ptr<arrow::Table>> IncrementalAggregate::Partial(
    std::shared_ptr<arrow::Table> input, const plan::EvalContext& ctx) const {
  ARROW_ASSIGN_OR_RAISE(auto arguments, Arguments(std::move(input), ctx, /*per_row=*/false));
  return Aggregate(std::move(arguments), /*partial=*/true);
}

bool IncrementalAggregate::MergesRows() const {
  if (key_names_.empty() || has_sessions()) return false;
  for (const auto& call : buffers_) {
    for (const auto& buffer : call) {
      if (buffer.partial != buffer.merge && buffer.partial != "hash_count") return false;
    }
  }
  return true;
}

Result<std::shared_ptr<arrow::Table>> IncrementalAggregate::RowBuffers(
    std::shared_ptr<arrow::Table> input, const plan::EvalContext& ctx) const {
  ARROW_ASSIGN_OR_RAISE(auto arguments, Arguments(std::move(input), ctx, /*per_row=*/true));
  ARROW_ASSIGN_OR_RAISE(auto rows, ac::DeclarationToTable(std::move(arguments), /*use_threads=*/false));
  return ToBufferTypes(*rows);
}

Result<std::shared_ptr<arrow::Table>> IncrementalAggregate::Merge(
    std::shared_ptr<arrow::Table> buffers) const {
  ARROW_ASSIGN_OR_RAISE(buffers, MergeSessions(std::move(buffers)));
  return Aggregate(Source(std::move(buffers)), /*partial=*/false);
}

// Spark's MergingSessionsIterator: in order of (group, start), a session joins the current one
// when it starts at or before the current end; the merged session spans both. Every row then
// carries its merged bounds, so grouping by the keys combines the buffers.
Result<std::shared_ptr<arrow::Table>> IncrementalAggregate::MergeSessions(
    std::shared_ptr<arrow::Table> rows) const {
  if (session_grouping_ < 0 || rows->num_rows() == 0) return rows;
  const auto& bounds = grouping_columns_[static_cast<size_t>(session_grouping_)];
  const int start_column = bounds[0], end_column = bounds[1];
  std::vector<cp::SortKey> order;
  for (int c : group_columns_) order.emplace_back(arrow::FieldRef(c));
  order.emplace_back(arrow::FieldRef(start_column));
  ARROW_ASSIGN_OR_RAISE(auto indices, cp::SortIndices(arrow::Datum(rows), cp::SortOptions(order)));
  ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(arrow::Datum(rows), arrow::Datum(indices)));
  ARROW_ASSIGN_OR_RAISE(rows, taken.table()->CombineChunks());
  ARROW_ASSIGN_OR_RAISE(auto groups, rows->SelectColumns(group_columns_));
  ARROW_ASSIGN_OR_RAISE(auto keys, EncodeKeys(*groups, static_cast<int>(group_columns_.size())));
  ARROW_ASSIGN_OR_RAISE(auto starts, cp::Cast(arrow::Datum(rows->column(start_column)), arrow::int64()));
  ARROW_ASSIGN_OR_RAISE(auto ends, cp::Cast(arrow::Datum(rows->column(end_column)), arrow::int64()));
  const auto& start = static_cast<const arrow::Int64Array&>(*starts.chunked_array()->chunk(0));
  const auto& end = static_cast<const arrow::Int64Array&>(*ends.chunked_array()->chunk(0));
  const int64_t n = rows->num_rows();
  std::vector<int64_t> merged_start(static_cast<size_t>(n)), merged_end(static_cast<size_t>(n));
  int64_t first = 0, current_end = 0;
  auto close = [&](int64_t stop) {
    for (int64_t j = first; j < stop; ++j) {
      merged_start[static_cast<size_t>(j)] = start.Value(first);
      merged_end[static_cast<size_t>(j)] = current_end;
    }
  };
  for (int64_t i = 0; i < n; ++i) {
    bool joins = i > 0 && keys[static_cast<size_t>(i)] == keys[static_cast<size_t>(i - 1)] &&
                 start.Value(i) <= current_end;
    if (!joins) {
      close(i);
      first = i;
      current_end = end.Value(i);
    } else {
      current_end = std::max(current_end, end.Value(i));
    }
  }
  close(n);
  auto replace = [&](int column, const std::vector<int64_t>& values) -> arrow::Status {
    arrow::Int64Builder builder;
    ARROW_RETURN_NOT_OK(builder.AppendValues(values));
    ARROW_ASSIGN_OR_RAISE(auto micros, builder.Finish());
    ARROW_ASSIGN_OR_RAISE(auto typed, cp::Cast(arrow::Datum(micros), rows->column(column)->type()));
    ARROW_ASSIGN_OR_RAISE(rows, rows->SetColumn(column, rows->schema()->field(column),
                                                std::make_shared<arrow::ChunkedArray>(typed.make_array())));
    return arrow::Status::OK();
  };
  ARROW_RETURN_NOT_OK(replace(start_column, merged_start));
  ARROW_RETURN_NOT_OK(replace(end_column, merged_end));
  return rows;
}

Result<std::shared_ptr<arrow::Table>> IncrementalAggregate::Finalize(
    std::shared_ptr<arrow::Table> buffers) const {
  std::vector<cp::Expression> exprs;
  std::vector<std::string> names;
  const auto& output = node_->output;
  for (size_t i = 0; i < node_->groupings.size(); ++i) {
    const auto& type = node_->groupings[i]->type;
    std::vector<cp::Expression> fields;
    for (int c : grouping_columns_[i]) {
      fields.push_back(cp::field_ref(key_names_[static_cast<size_t>(c)]));
    }
    cp::Expression key = fields[0];
    if (type->id() == arrow::Type::STRUCT) {
      std::vector<std::string> field_names;
      for (const auto& field : type->fields()) field_names.push_back(field->name());
      key = cp::call("make_struct", fields, cp::MakeStructOptions(field_names));
    }
    exprs.push_back(CastTo(std::move(key), output[i].type));
    names.push_back(output[i].name);
  }
  for (size_t i = 0; i < buffers_.size(); ++i) {
    const auto& parts = buffers_[i];
    cp::Expression value = cp::field_ref(parts[0].name);
    if (!parts[0].finalize.empty()) value = cp::call(parts[0].finalize, {value});
    if (parts.size() == 2) {  // avg: sum / count
      value = cp::call("divide", {CastTo(value, arrow::float64()),
                                  CastTo(cp::field_ref(parts[1].name), arrow::float64())});
    }
    const auto& attribute = output[node_->groupings.size() + i];
    exprs.push_back(CastTo(std::move(value), attribute.type));
    names.push_back(attribute.name);
  }
  return ac::DeclarationToTable(Project(Source(std::move(buffers)), std::move(exprs), std::move(names)),
                                /*use_threads=*/false);
}

}  // namespace ember::exec
