#include "ember/exec/group_map.h"

#include <absl/container/flat_hash_map.h>
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "ember/common/row_keys.h"

namespace ember::exec {

namespace cp = arrow::compute;
using arrow::Result;

Result<GroupedRows> GroupRows(const std::shared_ptr<arrow::Table>& input,
                              const std::vector<int>& key_columns,
                              const std::vector<int>& data_columns,
                              const std::vector<std::string>& data_names) {
  std::vector<std::shared_ptr<arrow::ChunkedArray>> keys;
  arrow::FieldVector key_fields;
  for (int c : key_columns) {
    keys.push_back(input->column(c));
    key_fields.push_back(input->schema()->field(c));
  }
  auto key_table = arrow::Table::Make(arrow::schema(key_fields), keys, input->num_rows());
  ARROW_ASSIGN_OR_RAISE(auto encoded, EncodeKeys(*key_table, static_cast<int>(keys.size())));
  // Each row's group, numbered by first appearance; then the rows ordered by group (a counting
  // sort, stable: a group's rows keep their order).
  absl::flat_hash_map<std::string_view, int64_t> group_of_key;
  std::vector<int64_t> group_of_row(encoded.size()), first_row, sizes;
  for (size_t i = 0; i < encoded.size(); ++i) {
    auto [it, added] = group_of_key.try_emplace(encoded[i], static_cast<int64_t>(first_row.size()));
    if (added) {
      first_row.push_back(static_cast<int64_t>(i));
      sizes.push_back(0);
    }
    group_of_row[i] = it->second;
    ++sizes[static_cast<size_t>(it->second)];
  }
  const size_t num_groups = first_row.size();
  std::vector<int64_t> offsets(num_groups + 1, 0);
  for (size_t g = 0; g < num_groups; ++g) offsets[g + 1] = offsets[g] + sizes[g];
  arrow::Int64Builder order_builder;
  ARROW_RETURN_NOT_OK(order_builder.Resize(input->num_rows()));
  {
    std::vector<int64_t> order(encoded.size());
    std::vector<int64_t> next(offsets.begin(), offsets.end() - 1);
    for (size_t i = 0; i < encoded.size(); ++i) {
      order[static_cast<size_t>(next[static_cast<size_t>(group_of_row[i])]++)] = static_cast<int64_t>(i);
    }
    ARROW_RETURN_NOT_OK(order_builder.AppendValues(order));
  }
  ARROW_ASSIGN_OR_RAISE(auto order, order_builder.Finish());

  std::vector<std::shared_ptr<arrow::ChunkedArray>> data;
  arrow::FieldVector data_fields;
  for (size_t i = 0; i < data_columns.size(); ++i) {
    data.push_back(input->column(data_columns[i]));
    data_fields.push_back(input->schema()->field(data_columns[i])->WithName(data_names[i]));
  }
  auto data_table = arrow::Table::Make(arrow::schema(data_fields), data, input->num_rows());
  ARROW_ASSIGN_OR_RAISE(auto sorted, cp::Take(arrow::Datum(data_table), arrow::Datum(order)));
  ARROW_ASSIGN_OR_RAISE(auto rows, sorted.table()->CombineChunksToBatch());

  arrow::Int64Builder first_builder, offset_builder, length_builder;
  ARROW_RETURN_NOT_OK(first_builder.AppendValues(first_row));
  ARROW_RETURN_NOT_OK(offset_builder.AppendValues(offsets.data(), static_cast<int64_t>(num_groups)));
  ARROW_RETURN_NOT_OK(length_builder.AppendValues(sizes));
  ARROW_ASSIGN_OR_RAISE(auto firsts, first_builder.Finish());
  ARROW_ASSIGN_OR_RAISE(auto group_keys, cp::Take(arrow::Datum(key_table), arrow::Datum(firsts)));
  ARROW_ASSIGN_OR_RAISE(auto key_batch, group_keys.table()->CombineChunksToBatch());
  auto columns = key_batch->columns();
  auto fields = key_batch->schema()->fields();
  ARROW_ASSIGN_OR_RAISE(auto offset_array, offset_builder.Finish());
  ARROW_ASSIGN_OR_RAISE(auto length_array, length_builder.Finish());
  columns.push_back(offset_array);
  columns.push_back(length_array);
  fields.push_back(arrow::field("offset", arrow::int64(), false));
  fields.push_back(arrow::field("length", arrow::int64(), false));
  GroupedRows grouped;
  grouped.rows = std::move(rows);
  grouped.groups = arrow::RecordBatch::Make(arrow::schema(fields), static_cast<int64_t>(num_groups),
                                            std::move(columns));
  return grouped;
}

Result<std::shared_ptr<arrow::Table>> ApplyToGroups(const UserGroupFunction& function,
                                                    const std::shared_ptr<arrow::Table>& input,
                                                    const std::vector<int>& key_columns,
                                                    const std::vector<int>& data_columns,
                                                    const std::vector<std::string>& data_names) {
  ARROW_ASSIGN_OR_RAISE(auto grouped, GroupRows(input, key_columns, data_columns, data_names));
  if (grouped.groups->num_rows() == 0) return arrow::Table::MakeEmpty(function.output_schema);
  ARROW_ASSIGN_OR_RAISE(auto result, function.call(grouped));
  return arrow::Table::FromRecordBatches(function.output_schema, {result.rows});
}

}  // namespace ember::exec
