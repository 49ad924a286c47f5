#include "ember/stream/table_ops.h"

#include <chrono>

#include <arrow/api.h>
#include <arrow/compute/api.h>

namespace ember::stream {

namespace cp = arrow::compute;
using arrow::Result;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Result<std::shared_ptr<arrow::Array>> AtOrBelow(const std::shared_ptr<arrow::ChunkedArray>& column,
                                                int64_t micros) {
  if (column->length() == 0) return arrow::MakeEmptyArray(arrow::boolean());
  std::shared_ptr<arrow::ChunkedArray> time = column;
  if (column->type()->id() == arrow::Type::STRUCT) {
    int end = static_cast<const arrow::StructType&>(*column->type()).GetFieldIndex("end");
    cp::StructFieldOptions field({end});
    ARROW_ASSIGN_OR_RAISE(auto ends, cp::CallFunction("struct_field", {column}, &field));
    time = ends.chunked_array();
  }
  ARROW_ASSIGN_OR_RAISE(auto values, cp::Cast(arrow::Datum(time), arrow::int64()));
  ARROW_ASSIGN_OR_RAISE(auto compared, cp::CallFunction("less_equal", {values, arrow::Datum(micros)}));
  ARROW_ASSIGN_OR_RAISE(auto filled, cp::CallFunction("coalesce", {compared, arrow::Datum(false)}));
  return arrow::Concatenate(filled.chunked_array()->chunks());
}

Result<std::shared_ptr<arrow::Array>> Not(const std::shared_ptr<arrow::Array>& mask) {
  ARROW_ASSIGN_OR_RAISE(auto inverted, cp::CallFunction("invert", {mask}));
  return inverted.make_array();
}

Result<std::shared_ptr<arrow::Table>> Where(const std::shared_ptr<arrow::Table>& table,
                                            const std::shared_ptr<arrow::Array>& mask) {
  // All or none (nothing evicted, nothing late): the table itself or none of it, not a copy.
  if (mask->null_count() == 0) {
    const int64_t selected = static_cast<const arrow::BooleanArray&>(*mask).true_count();
    if (selected == table->num_rows()) return table;
    if (selected == 0) return table->Slice(0, 0);
  }
  ARROW_ASSIGN_OR_RAISE(auto filtered, cp::Filter(arrow::Datum(table), arrow::Datum(mask)));
  return filtered.table();
}

std::vector<int> FirstColumns(int n) {
  std::vector<int> columns(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) columns[static_cast<size_t>(i)] = i;
  return columns;
}

Result<std::shared_ptr<arrow::Table>> Concat(const std::vector<std::shared_ptr<arrow::Table>>& tables) {
  if (tables.empty()) return arrow::Status::Invalid("no tables to concatenate");
  // Empty tables add nothing; one table left is combined only if it has several chunks.
  std::vector<std::shared_ptr<arrow::Table>> rows;
  for (const auto& t : tables) {
    if (t->num_rows() > 0) rows.push_back(t);
  }
  if (rows.empty()) return tables[0]->Slice(0, 0);
  if (rows.size() == 1) return rows[0]->CombineChunks();
  ARROW_ASSIGN_OR_RAISE(auto all, arrow::ConcatenateTables(rows));
  return all->CombineChunks();
}

}  // namespace ember::stream
