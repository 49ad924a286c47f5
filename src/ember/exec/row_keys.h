// Row keys as bytes: one canonical byte string per row for some columns, so rows can be
// compared, hashed and looked up without a typed comparison per column.
#pragma once

#include <string>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

namespace ember::exec {

/// The first `num_keys` columns of each row as bytes: equal keys (NULL included), equal bytes.
arrow::Result<std::vector<std::string>> EncodeKeys(const arrow::Table& table, int num_keys);

}  // namespace ember::exec
