// What Ember's kernel files share: building lists row by row and registering a kernel. Included
// by the kernel files only (arrow's kernel header is heavy).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <arrow/compute/function.h>
#include <arrow/compute/kernel.h>

namespace ember::exec {

/// The cells of `columns` (each of `length` rows) row by row: row 0's cells in column order,
/// then row 1's, ... (the elements of array(a, b), the keys of map(k1, v1, k2, v2)).
arrow::Result<std::shared_ptr<arrow::Array>> RowMajor(
    const std::vector<std::shared_ptr<arrow::Array>>& columns, int64_t length);

/// Spark's checks of a new map's keys (row i's are keys[offsets[i] .. offsets[i+1])): none
/// NULL (NULL_MAP_KEY), none twice in one map (DUPLICATED_MAP_KEY).
arrow::Status CheckMapKeys(const arrow::Array& keys, const std::vector<int32_t>& offsets);

/// Registers a scalar function of one kernel that computes its own NULLs and allocates its own
/// output, as Ember's kernels all do.
arrow::Status AddScalarKernel(arrow::compute::FunctionRegistry* registry, const std::string& name,
                              arrow::compute::Arity arity,
                              std::vector<arrow::compute::InputType> inputs,
                              arrow::compute::OutputType output,
                              arrow::compute::ArrayKernelExec exec);

}  // namespace ember::exec
