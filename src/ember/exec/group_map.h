// Rows grouped for a user's function of groups: applyInPandas runs it on a whole batch query's
// rows, the stream's applyInPandasWithState on each micro-batch's (stream/group_state.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/user_function.h"

namespace ember::exec {

/// A table's rows to group: by their values in `key_columns` (NULL is a value like any other),
/// the function seeing the `data_columns`, named `data_names`.
struct GroupedInput {
  std::shared_ptr<arrow::Table> table;
  std::vector<int> key_columns, data_columns;
  std::vector<std::string> data_names;
};

/// The groups of `input`, in the order of their first rows: GroupedRows' `rows` and `groups`
/// (the key columns, offset, length).
arrow::Result<GroupedRows> GroupRows(const GroupedInput& input);

/// applyInPandas (one input) and cogroup().applyInPandas (two): `function` over every key's
/// groups; its rows. A key of one side only has no rows on the other.
arrow::Result<std::shared_ptr<arrow::Table>> ApplyToGroups(const UserGroupFunction& function,
                                                           const std::vector<GroupedInput>& inputs);

}  // namespace ember::exec
