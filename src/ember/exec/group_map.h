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

/// `input`'s rows grouped by their values in `key_columns` (NULL is a value like any other),
/// the groups in the order of their first rows: GroupedRows' `rows` (the `data_columns`, named
/// `data_names`) and `groups` (the key columns, offset, length).
arrow::Result<GroupedRows> GroupRows(const std::shared_ptr<arrow::Table>& input,
                                     const std::vector<int>& key_columns,
                                     const std::vector<int>& data_columns,
                                     const std::vector<std::string>& data_names);

/// applyInPandas: `function` over every group of `input`; its rows.
arrow::Result<std::shared_ptr<arrow::Table>> ApplyToGroups(const UserGroupFunction& function,
                                                           const std::shared_ptr<arrow::Table>& input,
                                                           const std::vector<int>& key_columns,
                                                           const std::vector<int>& data_columns,
                                                           const std::vector<std::string>& data_names);

}  // namespace ember::exec
