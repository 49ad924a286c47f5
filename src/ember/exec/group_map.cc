#include "ember/exec/group_map.h"

#include <absl/container/flat_hash_map.h>
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "ember/common/row_keys.h"

namespace ember::exec {

namespace cp = arrow::compute;
using arrow::Result;

Result<GroupedRows> GroupRows(const GroupedInput& grouped_input) {
  const auto& input = grouped_input.table;
  const auto& key_columns = grouped_input.key_columns;
  const auto& data_columns = grouped_input.data_columns;
  const auto& data_names = grouped_input.data_names;
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

namespace {

Result<std::shared_ptr<arrow::Array>> Int64s(const std::vector<int64_t>& values) {
  arrow::Int64Builder builder;
  ARROW_RETURN_NOT_OK(builder.AppendValues(values));
  return builder.Finish();
}

// Two sides' groups as one call: every key of the first side in its order, then the second
// side's other keys; `offset`/`length` of the first side's rows, `other_offset`/`other_length`
// of the second's (a side without the key: no rows, at its end), then the key's columns as the
// second side has them (`other_key`, NULL where it has none).
Result<GroupedRows> CoGroupRows(GroupedRows first, GroupedRows second, int num_keys) {
  auto keys_of = [&](const GroupedRows& side) -> Result<EncodedKeys> {
    ARROW_ASSIGN_OR_RAISE(auto batch, side.groups->SelectColumns([&] {
      std::vector<int> columns(static_cast<size_t>(num_keys));
      for (int k = 0; k < num_keys; ++k) columns[static_cast<size_t>(k)] = k;
      return columns;
    }()));
    ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::FromRecordBatches({batch}));
    return EncodeKeys(*table, num_keys);
  };
  // The second side's keys as the first side's types, so that equal keys encode alike; the
  // function sees a key as the side with rows has it.
  const auto second_keys_as_given = second.groups;
  for (int k = 0; k < num_keys; ++k) {
    const auto& type = first.groups->schema()->field(k)->type();
    if (second.groups->column(k)->type()->Equals(*type)) continue;
    ARROW_ASSIGN_OR_RAISE(auto cast, cp::Cast(*second.groups->column(k), type));
    ARROW_ASSIGN_OR_RAISE(second.groups, second.groups->SetColumn(k, first.groups->schema()->field(k), cast));
  }
  ARROW_ASSIGN_OR_RAISE(auto first_keys, keys_of(first));
  ARROW_ASSIGN_OR_RAISE(auto second_keys, keys_of(second));
  absl::flat_hash_map<std::string_view, int64_t> second_of_key;
  for (size_t g = 0; g < second_keys.size(); ++g) second_of_key.emplace(second_keys[g], static_cast<int64_t>(g));
  const auto& first_offsets = static_cast<const arrow::Int64Array&>(*first.groups->column(num_keys));
  const auto& first_lengths = static_cast<const arrow::Int64Array&>(*first.groups->column(num_keys + 1));
  const auto& second_offsets = static_cast<const arrow::Int64Array&>(*second.groups->column(num_keys));
  const auto& second_lengths = static_cast<const arrow::Int64Array&>(*second.groups->column(num_keys + 1));
  std::vector<int64_t> offsets, lengths, other_offsets, other_lengths, second_only;
  arrow::Int64Builder second_group;  // each call's group of the second side, or NULL
  std::vector<bool> matched(second_keys.size(), false);
  for (size_t g = 0; g < first_keys.size(); ++g) {
    offsets.push_back(first_offsets.Value(static_cast<int64_t>(g)));
    lengths.push_back(first_lengths.Value(static_cast<int64_t>(g)));
    auto it = second_of_key.find(first_keys[g]);
    if (it == second_of_key.end()) {
      other_offsets.push_back(second.rows->num_rows());
      other_lengths.push_back(0);
      ARROW_RETURN_NOT_OK(second_group.AppendNull());
    } else {
      matched[static_cast<size_t>(it->second)] = true;
      other_offsets.push_back(second_offsets.Value(it->second));
      other_lengths.push_back(second_lengths.Value(it->second));
      ARROW_RETURN_NOT_OK(second_group.Append(it->second));
    }
  }
  for (size_t g = 0; g < second_keys.size(); ++g) {
    if (matched[g]) continue;
    second_only.push_back(static_cast<int64_t>(g));
    offsets.push_back(first.rows->num_rows());
    lengths.push_back(0);
    other_offsets.push_back(second_offsets.Value(static_cast<int64_t>(g)));
    other_lengths.push_back(second_lengths.Value(static_cast<int64_t>(g)));
    ARROW_RETURN_NOT_OK(second_group.Append(static_cast<int64_t>(g)));
  }
  ARROW_ASSIGN_OR_RAISE(auto second_only_indices, Int64s(second_only));
  ARROW_ASSIGN_OR_RAISE(auto second_groups, second_group.Finish());
  arrow::ArrayVector columns;
  arrow::FieldVector fields;
  for (int k = 0; k < num_keys; ++k) {
    ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(*second.groups->column(k), *second_only_indices));
    ARROW_ASSIGN_OR_RAISE(auto keys, arrow::Concatenate(arrow::ArrayVector{first.groups->column(k), taken}));
    columns.push_back(std::move(keys));
    fields.push_back(first.groups->schema()->field(k));
  }
  for (const auto& [name, values] : {std::pair{"offset", &offsets}, std::pair{"length", &lengths},
                                     std::pair{"other_offset", &other_offsets},
                                     std::pair{"other_length", &other_lengths}}) {
    ARROW_ASSIGN_OR_RAISE(auto array, Int64s(*values));
    columns.push_back(std::move(array));
    fields.push_back(arrow::field(name, arrow::int64(), false));
  }
  for (int k = 0; k < num_keys; ++k) {
    ARROW_ASSIGN_OR_RAISE(auto keys, cp::Take(*second_keys_as_given->column(k), *second_groups));
    columns.push_back(std::move(keys));
    fields.push_back(second_keys_as_given->schema()->field(k)->WithName("other_key"));
  }
  GroupedRows grouped;
  grouped.rows = std::move(first.rows);
  grouped.other_rows = std::move(second.rows);
  grouped.groups = arrow::RecordBatch::Make(arrow::schema(fields), static_cast<int64_t>(offsets.size()),
                                            std::move(columns));
  return grouped;
}

}  // namespace

Result<std::shared_ptr<arrow::Table>> ApplyToGroups(const UserGroupFunction& function,
                                                    const std::vector<GroupedInput>& inputs) {
  ARROW_ASSIGN_OR_RAISE(auto grouped, GroupRows(inputs[0]));
  if (inputs.size() > 1) {
    ARROW_ASSIGN_OR_RAISE(auto other, GroupRows(inputs[1]));
    ARROW_ASSIGN_OR_RAISE(grouped, CoGroupRows(std::move(grouped), std::move(other),
                                               static_cast<int>(inputs[0].key_columns.size())));
  }
  if (grouped.groups->num_rows() == 0) return arrow::Table::MakeEmpty(function.output_schema);
  ARROW_ASSIGN_OR_RAISE(auto result, function.call(grouped));
  return arrow::Table::FromRecordBatches(function.output_schema, {result.rows});
}

}  // namespace ember::exec
