#include "ember/exec/group_index.h"

#include <numeric>

#include <arrow/api.h>
#include <arrow/compute/exec.h>
#include <arrow/compute/row/grouper.h>

namespace ember::exec {

namespace cp = arrow::compute;
using arrow::Result;
using arrow::Status;

namespace {

// The grouper's ids of the keys of `table`'s rows, in order; new keys get the next ids.
Result<std::vector<uint32_t>> ConsumeKeys(cp::Grouper& grouper, const arrow::Table& table,
                                          int num_keys) {
  std::vector<int> columns(static_cast<size_t>(num_keys));
  std::iota(columns.begin(), columns.end(), 0);
  ARROW_ASSIGN_OR_RAISE(auto keys, table.SelectColumns(columns));
  std::vector<uint32_t> ids;
  ids.reserve(static_cast<size_t>(table.num_rows()));
  arrow::TableBatchReader reader(*keys);
  std::shared_ptr<arrow::RecordBatch> batch;
  while (true) {
    ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
    if (!batch) break;
    cp::ExecBatch exec_batch(*batch);
    ARROW_ASSIGN_OR_RAISE(auto consumed, grouper.Consume(cp::ExecSpan(exec_batch)));
    const auto& array = *consumed.array();
    const uint32_t* values = array.GetValues<uint32_t>(1);
    ids.insert(ids.end(), values, values + array.length);
  }
  return ids;
}

}  // namespace

GroupIndex::GroupIndex(GroupIndex&&) noexcept = default;
GroupIndex& GroupIndex::operator=(GroupIndex&&) noexcept = default;
GroupIndex::~GroupIndex() = default;

Result<GroupIndex> GroupIndex::Build(const arrow::Table& rows, int num_keys) {
  if (num_keys <= 0) return Status::Invalid("a group index needs keys");
  GroupIndex index;
  index.num_keys_ = num_keys;
  ARROW_RETURN_NOT_OK(index.Populate(rows));
  return index;
}

Status GroupIndex::Populate(const arrow::Table& rows) {
  std::vector<arrow::TypeHolder> types;
  for (int c = 0; c < num_keys_; ++c) types.emplace_back(rows.schema()->field(c)->type());
  ARROW_ASSIGN_OR_RAISE(grouper_, cp::Grouper::Make(types));
  ARROW_ASSIGN_OR_RAISE(auto ids, ConsumeKeys(*grouper_, rows, num_keys_));
  if (grouper_->num_groups() != static_cast<uint32_t>(rows.num_rows())) {
    return Status::Invalid("state rows with equal keys");
  }
  // The grouper numbers new keys in an order of its own, not necessarily the rows'.
  row_of_group_.assign(ids.size(), -1);
  for (size_t row = 0; row < ids.size(); ++row) row_of_group_[ids[row]] = static_cast<int64_t>(row);
  num_rows_ = rows.num_rows();
  return Status::OK();
}

Result<GroupIndex::Located> GroupIndex::Locate(const arrow::Table& batch) {
  ARROW_ASSIGN_OR_RAISE(auto ids, ConsumeKeys(*grouper_, batch, num_keys_));
  row_of_group_.resize(grouper_->num_groups(), -1);
  const int64_t stored = num_rows_;
  // Which stored rows the batch has touched, to refuse a repeated key.
  std::vector<bool> touched(static_cast<size_t>(stored));
  Located located;
  located.targets.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    int64_t& row = row_of_group_[ids[i]];
    if (row < 0) {
      row = num_rows_++;
      located.new_groups.push_back(static_cast<int64_t>(i));
    } else if (row >= stored || touched[static_cast<size_t>(row)]) {
      return Status::Invalid("a batch of partial aggregates with equal keys");
    } else {
      touched[static_cast<size_t>(row)] = true;
    }
    located.targets.push_back(row);
  }
  return located;
}

Status GroupIndex::Retain(const arrow::BooleanArray& kept, const arrow::Table& remaining) {
  if (kept.length() != num_rows_ || remaining.num_rows() != kept.true_count()) {
    return Status::Invalid("rows kept do not match the index");
  }
  std::vector<int64_t> new_row(static_cast<size_t>(num_rows_), -1);
  int64_t next = 0;
  for (int64_t row = 0; row < num_rows_; ++row) {
    if (kept.Value(row)) new_row[static_cast<size_t>(row)] = next++;
  }
  for (auto& row : row_of_group_) {
    if (row >= 0) row = new_row[static_cast<size_t>(row)];
  }
  num_rows_ = next;
  // Removed keys stay in the grouper; once they outnumber the live ones, start afresh.
  const int64_t removed = static_cast<int64_t>(row_of_group_.size()) - num_rows_;
  if (removed > num_rows_ && removed > 1024) return Populate(remaining);
  return Status::OK();
}

}  // namespace ember::exec
