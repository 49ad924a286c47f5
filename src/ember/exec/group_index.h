// The rows of a state table by group key, kept from batch to batch, so that a batch's groups are
// found without hashing the whole state again.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

namespace arrow::compute {
class Grouper;
}

namespace ember::exec {

class GroupIndex {
 public:
  /// Indexes `rows`, whose first `num_keys` columns are distinct keys.
  static arrow::Result<GroupIndex> Build(const arrow::Table& rows, int num_keys);

  GroupIndex(GroupIndex&&) noexcept;
  GroupIndex& operator=(GroupIndex&&) noexcept;
  ~GroupIndex();

  struct Located {
    std::vector<int64_t> targets;     // per batch row: its group's row
    std::vector<int64_t> new_groups;  // the batch rows of groups not stored, in row order
  };
  /// Finds the rows of a batch's groups (distinct keys in its first columns, as the state's);
  /// groups not stored get rows after the stored ones, in batch order, and are stored from then
  /// on. Fails if the batch repeats a key; the index is then unusable.
  arrow::Result<Located> Locate(const arrow::Table& batch);

  /// Keeps the rows `kept` marks (no NULLs), renumbered in order; `remaining` is the table of the
  /// rows kept, from which the index is rebuilt when most of its keys are gone.
  arrow::Status Retain(const arrow::BooleanArray& kept, const arrow::Table& remaining);

  int64_t num_rows() const { return num_rows_; }

 private:
  GroupIndex() = default;
  arrow::Status Populate(const arrow::Table& rows);

  std::unique_ptr<arrow::compute::Grouper> grouper_;
  std::vector<int64_t> row_of_group_;  // by the grouper's id; -1: the group was removed
  int64_t num_rows_ = 0;
  int num_keys_ = 0;
};

}  // namespace ember::exec
