// Window functions over materialised rows. The rows are sorted by (partition keys, order keys);
// each row's partition, peer group (rows of equal order keys) and frame are then index ranges of
// the sorted rows. Ranking and offset functions are computed here; an aggregate over a frame runs
// the catalog's own aggregation over the frames' rows (each distinct frame a group), so that its
// types, overflow checks and NULL rules are exactly those of GROUP BY.
#include "ember/exec/window_node.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <arrow/acero/exec_plan.h>
#include <arrow/acero/options.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/array/concatenate.h>
#include <arrow/array/util.h>
#include <arrow/compare.h>
#include <arrow/compute/api.h>
#include <arrow/scalar.h>
#include <arrow/table.h>

#include "ember/plan/functions.h"
#include "ember/plan/window.h"

namespace ember::exec {

namespace ac = arrow::acero;
namespace cp = arrow::compute;
using arrow::Result;
using arrow::Status;
using plan::Expr;
using plan::ExprKind;
using plan::WindowFrame;

namespace {

using ArrayPtr = std::shared_ptr<arrow::Array>;

// Per sorted row: where its partition and its peer group begin and end (end exclusive).
struct Layout {
  std::vector<int64_t> partition_start, partition_end, peer_start, peer_end;
};

bool SameAsPrevious(const std::vector<ArrayPtr>& columns, int64_t i) {
  const auto options = arrow::EqualOptions::Defaults().nans_equal(true);
  for (const auto& c : columns) {
    if (!c->RangeEquals(*c, i - 1, i, i, options)) return false;
  }
  return true;
}

Layout MakeLayout(int64_t n, const std::vector<ArrayPtr>& partitions,
                  const std::vector<ArrayPtr>& orders) {
  Layout l;
  l.partition_start.resize(n);
  l.partition_end.resize(n);
  l.peer_start.resize(n);
  l.peer_end.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    const bool new_partition = i == 0 || !SameAsPrevious(partitions, i);
    l.partition_start[i] = new_partition ? i : l.partition_start[i - 1];
    l.peer_start[i] = new_partition || !SameAsPrevious(orders, i) ? i : l.peer_start[i - 1];
  }
  for (int64_t i = n - 1; i >= 0; --i) {
    const bool last_in_partition = i == n - 1 || l.partition_start[i + 1] != l.partition_start[i];
    l.partition_end[i] = last_in_partition ? i + 1 : l.partition_end[i + 1];
    l.peer_end[i] = last_in_partition || l.peer_start[i + 1] != l.peer_start[i] ? i + 1
                                                                                : l.peer_end[i + 1];
  }
  return l;
}

// Row i's frame as a range of sorted rows [first, second).
std::pair<int64_t, int64_t> FrameOf(const WindowFrame& f, const Layout& l, int64_t i) {
  const int64_t start = l.partition_start[i], end = l.partition_end[i];
  int64_t lo = start, hi = end;
  if (f.rows) {
    // Offsets beyond the partition's size act as its edge (and cannot overflow).
    const int64_t size = end - start;
    auto offset = [&](int64_t o) { return std::clamp<int64_t>(o, -(size + 1), size + 1); };
    if (f.lower != WindowFrame::kUnboundedPreceding) lo = std::clamp(i + offset(f.lower), start, end);
    if (f.upper != WindowFrame::kUnboundedFollowing) {
      hi = std::clamp(i + offset(f.upper) + 1, start, end);
    }
  } else {
    if (f.lower != WindowFrame::kUnboundedPreceding) lo = l.peer_start[i];
    if (f.upper != WindowFrame::kUnboundedFollowing) hi = l.peer_end[i];
  }
  return {lo, std::max(lo, hi)};
}

int64_t IntArg(const Expr& call, size_t index) {
  const auto& value = plan::StripAlias(call.args[index])->value;
  auto cast = value->CastTo(arrow::int64());
  return cast.ok() ? static_cast<const arrow::Int64Scalar&>(**cast).value : 0;
}

bool IgnoreNulls(const Expr& call, size_t index) {
  if (call.args.size() <= index) return false;
  const Expr& e = *plan::StripAlias(call.args[index]);
  return e.kind == ExprKind::kLiteral && e.value->is_valid &&
         e.value->type->id() == arrow::Type::BOOL &&
         static_cast<const arrow::BooleanScalar&>(*e.value).value;
}

Result<ArrayPtr> Ranking(const std::string& name, const Layout& l, int64_t n, int64_t buckets) {
  if (name == "percent_rank" || name == "cume_dist") {
    arrow::DoubleBuilder out;
    ARROW_RETURN_NOT_OK(out.Reserve(n));
    for (int64_t i = 0; i < n; ++i) {
      const double size = static_cast<double>(l.partition_end[i] - l.partition_start[i]);
      if (name == "cume_dist") {
        out.UnsafeAppend(static_cast<double>(l.peer_end[i] - l.partition_start[i]) / size);
      } else {
        const double rank = static_cast<double>(l.peer_start[i] - l.partition_start[i]);
        out.UnsafeAppend(size > 1 ? rank / (size - 1) : 0.0);
      }
    }
    return out.Finish();
  }
  arrow::Int32Builder out;
  ARROW_RETURN_NOT_OK(out.Reserve(n));
  int64_t dense = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t start = l.partition_start[i], row = i - start;
    int64_t value = row + 1;  // row_number
    if (name == "rank") {
      value = l.peer_start[i] - start + 1;
    } else if (name == "dense_rank") {
      if (i == start) dense = 0;
      if (l.peer_start[i] == i) ++dense;
      value = dense;
    } else if (name == "ntile") {
      // Spark's NTile: the first (size % buckets) buckets hold one row more than the others.
      const int64_t size = l.partition_end[i] - start, base = size / buckets,
                    larger = size % buckets, in_larger = larger * (base + 1);
      value = row < in_larger ? row / (base + 1) + 1 : larger + (row - in_larger) / base + 1;
    }
    out.UnsafeAppend(static_cast<int32_t>(value));
  }
  return out.Finish();
}

// lag/lead: the value `offset` rows away in the partition (counting non-NULL values only with
// IGNORE NULLS), else the default.
Result<ArrayPtr> Offset(const ArrayPtr& values, const ArrayPtr& defaults, int64_t offset,
                        bool ignore_nulls, const Layout& l, int64_t n) {
  arrow::Int64Builder indices;
  ARROW_RETURN_NOT_OK(indices.Reserve(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t start = l.partition_start[i], end = l.partition_end[i];
    int64_t found = -1;
    if (!ignore_nulls || offset == 0) {
      if (i + offset >= start && i + offset < end) found = i + offset;
    } else {
      const int64_t step = offset > 0 ? 1 : -1;
      for (int64_t t = i + step, need = std::abs(offset); t >= start && t < end; t += step) {
        if (values->IsValid(t) && --need == 0) {
          found = t;
          break;
        }
      }
    }
    if (found >= 0) {
      indices.UnsafeAppend(found);
    } else {
      indices.UnsafeAppendNull();
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto index, indices.Finish());
  ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(values, index));
  ARROW_ASSIGN_OR_RAISE(auto inside, cp::IsValid(index));
  ARROW_ASSIGN_OR_RAISE(auto out, cp::IfElse(inside, taken, defaults));
  return out.make_array();
}

// nth_value: the k-th row of each row's frame (the k-th non-NULL value with IGNORE NULLS),
// counted from its end for last_value.
Result<ArrayPtr> NthValue(const ArrayPtr& values, int64_t k, bool ignore_nulls, bool from_end,
                          const WindowFrame& frame, const Layout& l, int64_t n) {
  arrow::Int64Builder indices;
  ARROW_RETURN_NOT_OK(indices.Reserve(n));
  for (int64_t i = 0; i < n; ++i) {
    auto [lo, hi] = FrameOf(frame, l, i);
    int64_t found = -1;
    const int64_t step = from_end ? -1 : 1;
    for (int64_t t = from_end ? hi - 1 : lo, need = k; t >= lo && t < hi; t += step) {
      if ((!ignore_nulls || values->IsValid(t)) && --need == 0) {
        found = t;
        break;
      }
    }
    if (found >= 0) {
      indices.UnsafeAppend(found);
    } else {
      indices.UnsafeAppendNull();
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto index, indices.Finish());
  ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(values, index));
  return taken.make_array();
}

// An aggregate over each row's frame: the frames' rows, each distinct frame a group, through an
// Aggregate plan; an empty frame gets the aggregate of no rows (count 0, sum NULL).
Result<ArrayPtr> FrameAggregate(const Expr& call, const std::vector<plan::Attribute>& columns,
                                const std::shared_ptr<arrow::Table>& rows, const WindowFrame& frame,
                                const Layout& l, const ExecOptions& options) {
  const int64_t n = rows->num_rows();
  std::vector<int64_t> frame_of_row(n);
  arrow::Int64Builder members, groups;
  int64_t frames = 0, last_lo = -1, last_hi = -1;
  bool any_empty = false;
  for (int64_t i = 0; i < n; ++i) {
    auto [lo, hi] = FrameOf(frame, l, i);
    if (lo == hi) {
      frame_of_row[i] = -1;
      any_empty = true;
      continue;
    }
    if (lo != last_lo || hi != last_hi) {
      for (int64_t j = lo; j < hi; ++j) {
        ARROW_RETURN_NOT_OK(members.Append(j));
        ARROW_RETURN_NOT_OK(groups.Append(frames));
      }
      ++frames;
      last_lo = lo;
      last_hi = hi;
    }
    frame_of_row[i] = frames - 1;
  }
  ARROW_ASSIGN_OR_RAISE(auto member_index, members.Finish());
  ARROW_ASSIGN_OR_RAISE(auto group_ids, groups.Finish());
  ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(arrow::Datum(rows), arrow::Datum(member_index)));
  auto expanded = taken.table();
  ARROW_ASSIGN_OR_RAISE(expanded, expanded->AddColumn(expanded->num_columns(),
                                                      arrow::field("__frame", arrow::int64()),
                                                      std::make_shared<arrow::ChunkedArray>(group_ids)));
  plan::Attribute frame_attr{"__frame", plan::NewAttributeId(), arrow::int64(), false, ""};
  plan::Attribute value_attr{"__value", plan::NewAttributeId(), call.type, call.nullable, ""};
  auto aggregate = [&](std::shared_ptr<arrow::Table> input, bool grouped) {
    auto leaf = std::make_shared<plan::LogicalPlan>();
    leaf->kind = plan::PlanKind::kLocalTable;
    leaf->output = columns;
    leaf->output.push_back(frame_attr);
    leaf->table = std::move(input);
    auto node = std::make_shared<plan::LogicalPlan>();
    node->kind = plan::PlanKind::kAggregate;
    node->children = {leaf};
    if (grouped) {
      node->groupings = {plan::AttributeRef(frame_attr)};
      node->output = {frame_attr};
    }
    node->exprs = {std::make_shared<Expr>(call)};
    node->output.push_back(value_attr);
    return Execute(node, options);
  };
  ARROW_ASSIGN_OR_RAISE(auto per_frame, aggregate(expanded, true));
  // The groups come out in any order: put them in frame order.
  ARROW_ASSIGN_OR_RAISE(auto order, cp::SortIndices(*per_frame->column(0)));
  ARROW_ASSIGN_OR_RAISE(auto values, cp::Take(arrow::Datum(per_frame->column(1)), arrow::Datum(order)));
  ArrayPtr by_frame;
  ARROW_ASSIGN_OR_RAISE(by_frame, arrow::Concatenate(values.chunked_array()->chunks()));
  if (by_frame->length() == 0) by_frame = arrow::MakeEmptyArray(call.type).ValueOrDie();
  if (any_empty) {
    ARROW_ASSIGN_OR_RAISE(auto none, aggregate(expanded->Slice(0, 0), false));
    ARROW_ASSIGN_OR_RAISE(auto empty_value, arrow::Concatenate(none->column(0)->chunks()));
    ARROW_ASSIGN_OR_RAISE(by_frame, arrow::Concatenate({by_frame, empty_value}));
  }
  arrow::Int64Builder indices;
  ARROW_RETURN_NOT_OK(indices.Reserve(n));
  for (int64_t i = 0; i < n; ++i) indices.UnsafeAppend(frame_of_row[i] < 0 ? frames : frame_of_row[i]);
  ARROW_ASSIGN_OR_RAISE(auto index, indices.Finish());
  ARROW_ASSIGN_OR_RAISE(auto out, cp::Take(by_frame, index));
  return out.make_array();
}

// The rows' order by the named columns.
Result<ArrayPtr> SortOrderOf(const std::shared_ptr<arrow::Table>& table,
                             const std::vector<std::pair<std::string, cp::SortOrder>>& columns) {
  std::vector<cp::SortKey> keys;
  for (const auto& [name, order] : columns) keys.push_back(cp::SortKey(arrow::FieldRef(name), order));
  return cp::SortIndices(arrow::Datum(table), cp::SortOptions(std::move(keys)));
}

}  // namespace

Result<std::shared_ptr<arrow::Table>> ComputeWindow(const plan::LogicalPlan& window,
                                                    std::shared_ptr<arrow::Table> input,
                                                    const ExecOptions& options) {
  const auto& child = *window.children[0];
  const int width = static_cast<int>(child.output.size());
  const Expr& first = *window.exprs[0];  // all of the node's expressions share its specification
  const size_t partitions = first.window->partitions, first_order = 1 + partitions;

  // The keys, the order's (is NULL, value) pairs and the offset functions' inputs, as columns
  // after the input's.
  std::vector<cp::Expression> exprs;
  std::vector<std::string> names;
  for (int c = 0; c < width; ++c) {
    names.push_back(input->field(c)->name());
    exprs.push_back(cp::field_ref(names.back()));
  }
  auto add = [&](cp::Expression e) {
    exprs.push_back(std::move(e));
    names.push_back("__w" + std::to_string(names.size()));
    return static_cast<int>(names.size() - 1);
  };
  std::vector<int> partition_columns, order_columns;
  std::vector<std::pair<std::string, cp::SortOrder>> sort_columns;
  for (size_t k = 1; k < first.args.size(); ++k) {
    const Expr& key = *first.args[k];
    const bool order = k >= first_order;
    ARROW_ASSIGN_OR_RAISE(auto value, LowerExpr(order ? *key.args[0] : key, options.eval));
    if (order) {
      const int null_column = add(cp::call("is_null", {value}));
      sort_columns.emplace_back(names[static_cast<size_t>(null_column)],
                                key.nulls_first ? cp::SortOrder::Descending
                                                : cp::SortOrder::Ascending);
    }
    const int column = add(std::move(value));
    (order ? order_columns : partition_columns).push_back(column);
    sort_columns.emplace_back(names[static_cast<size_t>(column)],
                              order && !key.ascending ? cp::SortOrder::Descending
                                                      : cp::SortOrder::Ascending);
  }
  // Per expression, its function's value and default columns (lag, lead, nth_value).
  std::vector<std::pair<int, int>> inputs;
  for (const auto& e : window.exprs) {
    const Expr& f = *e->args[0];
    std::pair<int, int> columns{-1, -1};
    if (f.name == "lag" || f.name == "lead" || f.name == "nth_value" ||
        plan::IsFirstOrLast(f.name)) {
      ARROW_ASSIGN_OR_RAISE(auto value, LowerExpr(*f.args[0], options.eval));
      columns.first = add(std::move(value));
      if (f.name == "lag" || f.name == "lead") {
        ARROW_ASSIGN_OR_RAISE(auto fallback, LowerExpr(*f.args[2], options.eval));
        columns.second = add(std::move(fallback));
      }
    }
    inputs.push_back(columns);
  }
  ac::Declaration source("table_source", ac::TableSourceNodeOptions(input));
  ac::Declaration project("project", {std::move(source)},
                          ac::ProjectNodeOptions(std::move(exprs), names));
  ARROW_ASSIGN_OR_RAISE(auto table, ac::DeclarationToTable(std::move(project), false));
  if (!sort_columns.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto order, SortOrderOf(table, sort_columns));
    ARROW_ASSIGN_OR_RAISE(auto sorted, cp::Take(arrow::Datum(table), arrow::Datum(order)));
    table = sorted.table();
  }
  ARROW_ASSIGN_OR_RAISE(table, table->CombineChunks());
  const int64_t n = table->num_rows();
  auto column = [&](int c) -> ArrayPtr {
    const auto& chunks = table->column(c)->chunks();
    return chunks.empty() ? arrow::MakeEmptyArray(table->field(c)->type()).ValueOrDie()
                          : chunks[0];
  };
  std::vector<ArrayPtr> partition_arrays, order_arrays;
  for (int c : partition_columns) partition_arrays.push_back(column(c));
  for (int c : order_columns) order_arrays.push_back(column(c));
  const Layout layout = MakeLayout(n, partition_arrays, order_arrays);

  std::vector<int> kept(static_cast<size_t>(width));
  for (int c = 0; c < width; ++c) kept[static_cast<size_t>(c)] = c;
  ARROW_ASSIGN_OR_RAISE(auto rows, table->SelectColumns(kept));
  arrow::FieldVector fields = rows->schema()->fields();
  std::vector<std::shared_ptr<arrow::ChunkedArray>> out_columns = rows->columns();
  for (size_t k = 0; k < window.exprs.size(); ++k) {
    const Expr& e = *window.exprs[k];
    const Expr& f = *e.args[0];
    ArrayPtr result;
    if (f.name == "lag" || f.name == "lead") {
      const int64_t offset = IntArg(f, 1);
      ARROW_ASSIGN_OR_RAISE(result, Offset(column(inputs[k].first), column(inputs[k].second),
                                           f.name == "lag" ? -offset : offset,
                                           IgnoreNulls(f, 3), layout, n));
    } else if (f.name == "nth_value" && !f.function && !plan::FindFunction(f.name)) {
      ARROW_ASSIGN_OR_RAISE(result, NthValue(column(inputs[k].first), IntArg(f, 1),
                                             IgnoreNulls(f, 2), false, e.window->frame, layout, n));
    } else if (plan::IsFirstOrLast(f.name) && !f.function) {
      const bool last = f.name == "last" || f.name == "last_value";
      ARROW_ASSIGN_OR_RAISE(result, NthValue(column(inputs[k].first), 1, IgnoreNulls(f, 1), last,
                                             e.window->frame, layout, n));
    } else if (plan::IsAggregateCall(f)) {
      ARROW_ASSIGN_OR_RAISE(result, FrameAggregate(f, child.output, rows, e.window->frame,
                                                   layout, options));
    } else {
      ARROW_ASSIGN_OR_RAISE(result, Ranking(f.name, layout, n, f.name == "ntile" ? IntArg(f, 0) : 1));
    }
    fields.push_back(arrow::field("__window" + std::to_string(k), result->type()));
    out_columns.push_back(std::make_shared<arrow::ChunkedArray>(result));
  }
  return arrow::Table::Make(arrow::schema(fields), out_columns, n);
}

}  // namespace ember::exec
