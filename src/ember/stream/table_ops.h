// Small operations on Arrow tables shared by the stateful operators: eviction masks, filters,
// concatenation, and a clock for their progress timings.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

namespace ember::stream {

/// Milliseconds of a steady clock, for durations.
int64_t NowMs();

/// Per row: is `column`'s time (a timestamp, a number of micros, or a window's end) at or below
/// `micros`? NULL is never.
arrow::Result<std::shared_ptr<arrow::Array>> AtOrBelow(
    const std::shared_ptr<arrow::ChunkedArray>& column, int64_t micros);

arrow::Result<std::shared_ptr<arrow::Array>> Not(const std::shared_ptr<arrow::Array>& mask);

/// The rows where `mask` is true.
arrow::Result<std::shared_ptr<arrow::Table>> Where(const std::shared_ptr<arrow::Table>& table,
                                                   const std::shared_ptr<arrow::Array>& mask);

/// The column indices 0 .. n-1: a store's key columns, which come first.
std::vector<int> FirstColumns(int n);

/// The tables one after the other, in one chunk.
arrow::Result<std::shared_ptr<arrow::Table>> Concat(
    const std::vector<std::shared_ptr<arrow::Table>>& tables);

}  // namespace ember::stream
