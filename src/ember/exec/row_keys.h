// Row keys as bytes: one canonical byte string per row for some columns, so rows can be
// compared, hashed and looked up without a typed comparison per column.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

namespace ember::exec {

// FNV-1a: state partitions in checkpoints depend on it, so it never changes.
inline constexpr uint64_t kFnvOffset = 14695981039346656037ULL;
inline constexpr uint64_t kFnvPrime = 1099511628211ULL;

/// The first `num_keys` columns of each row as bytes: equal keys (NULL included), equal bytes.
arrow::Result<std::vector<std::string>> EncodeKeys(const arrow::Table& table, int num_keys);

/// The FNV-1a hash of an encoded key.
uint64_t HashKey(std::string_view key);

/// HashKey of each row's EncodeKeys bytes, without building them.
arrow::Result<std::vector<uint64_t>> HashKeys(const arrow::Table& table, int num_keys);

}  // namespace ember::exec
