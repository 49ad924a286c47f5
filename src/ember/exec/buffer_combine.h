// Combining a batch's partial aggregate buffers into a state's buffers, group by group, without
// regrouping the state: the caller has located each batch row's group among the state rows.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

namespace ember::exec {

/// How a stored buffer absorbs the partial buffer of the same group from a later batch.
enum class CombineRule {
  kAdd,          // sum, count: NULL is "no value", so NULL + x = x
  kMin,          // min, max: NULLs skipped; floating NaN too unless both are NaN
  kMax,
  kKeepFirst,    // first(): the stored value stays, NULL or not
  kFirstValid,   // first(ignoreNulls): the stored value unless it is NULL
  kTakeLast,     // last(): the batch's value replaces it, NULL or not
  kLastValid,    // last(ignoreNulls): the batch's value unless it is NULL
  kMergeSketch,  // approx_count_distinct: HyperLogLog++ registers, the larger of each
};

/// Whether CombineBuffers handles buffers of `type` under `rule`.
bool CanCombine(CombineRule rule, const arrow::DataType& type);

/// The state's buffer column after a batch: `length` rows, of which the first state.length() are
/// the stored groups. Batch row i belongs to row targets[i]: a stored group, combined by `rule`,
/// or (at or after state.length()) a new group, which takes the batch's value as it is. Targets
/// are distinct and cover every new row.
arrow::Result<std::shared_ptr<arrow::Array>> CombineBuffers(CombineRule rule,
                                                            const arrow::Array& state,
                                                            const arrow::Array& fresh,
                                                            std::span<const int64_t> targets,
                                                            int64_t length);

}  // namespace ember::exec
