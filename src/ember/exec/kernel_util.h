// What Ember's kernel files share: building lists row by row and registering a kernel. Included
// by the kernel files only (arrow's kernel header is heavy).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/array/array_binary.h>
#include <arrow/array/array_primitive.h>
#include <arrow/compute/function.h>
#include <arrow/compute/kernel.h>
#include <arrow/scalar.h>

namespace ember::exec {

/// The cells of `columns` (each of `length` rows) row by row: row 0's cells in column order,
/// then row 1's, ... (the elements of array(a, b), the keys of map(k1, v1, k2, v2)).
arrow::Result<std::shared_ptr<arrow::Array>> RowMajor(
    const std::vector<std::shared_ptr<arrow::Array>>& columns, int64_t length);

/// Spark's checks of a new map's keys (row i's are keys[offsets[i] .. offsets[i+1])): none
/// NULL (NULL_MAP_KEY), none twice in one map (DUPLICATED_MAP_KEY).
arrow::Status CheckMapKeys(const arrow::Array& keys, const std::vector<int32_t>& offsets);

/// A kernel's argument read row by row, a scalar without repeating it.
class Arg {
 public:
  Arg(const arrow::compute::ExecSpan& batch, int i) {
    if (batch[i].is_array()) {
      array_ = batch[i].array.ToArray();
    } else {
      scalar_ = batch[i].scalar;
    }
  }
  bool IsNull(int64_t row) const { return array_ ? array_->IsNull(row) : !scalar_->is_valid; }
  /// Text or binary.
  std::string_view Text(int64_t row) const {
    if (array_) return static_cast<const arrow::BinaryArray&>(*array_).GetView(row);
    return static_cast<const arrow::BaseBinaryScalar&>(*scalar_).view();
  }
  int32_t Int(int64_t row) const {
    if (array_) return static_cast<const arrow::Int32Array&>(*array_).Value(row);
    return static_cast<const arrow::Int32Scalar&>(*scalar_).value;
  }

 private:
  std::shared_ptr<arrow::Array> array_;
  const arrow::Scalar* scalar_ = nullptr;
};

/// Every argument of a kernel's batch as an Arg.
inline std::vector<Arg> Args(const arrow::compute::ExecSpan& batch) {
  std::vector<Arg> args;
  for (int k = 0; k < batch.num_values(); ++k) args.emplace_back(batch, k);
  return args;
}

/// Runs row(i) for each row where the first `strict` arguments (all by default) are not NULL,
/// appends NULL elsewhere, and gives the builder's array as the kernel's result.
template <typename Builder, typename Row>
arrow::Status EachRow(const arrow::compute::ExecSpan& batch, arrow::compute::ExecResult* out,
                      Builder* builder, const std::vector<Arg>& args, Row row,
                      size_t strict = SIZE_MAX) {
  ARROW_RETURN_NOT_OK(builder->Reserve(batch.length));
  for (int64_t i = 0; i < batch.length; ++i) {
    bool any_null = false;
    for (size_t k = 0; k < args.size() && k < strict; ++k) any_null = any_null || args[k].IsNull(i);
    if (any_null) {
      ARROW_RETURN_NOT_OK(builder->AppendNull());
    } else {
      ARROW_RETURN_NOT_OK(row(i));
    }
  }
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder->Finish(&result));
  out->value = result->data();
  return arrow::Status::OK();
}

/// Registers a scalar function of one kernel that computes its own NULLs and allocates its own
/// output, as Ember's kernels all do.
arrow::Status AddScalarKernel(arrow::compute::FunctionRegistry* registry, const std::string& name,
                              arrow::compute::Arity arity,
                              std::vector<arrow::compute::InputType> inputs,
                              arrow::compute::OutputType output,
                              arrow::compute::ArrayKernelExec exec);

}  // namespace ember::exec
