// Compute functions Ember adds to arrow's registry where arrow has no kernel with Spark's
// semantics. Registered once, before the first query.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <arrow/compute/expression.h>
#include <arrow/result.h>
#include <arrow/status.h>
#include <arrow/type_fwd.h>

namespace arrow::compute {
class Expression;
class FunctionRegistry;
struct ExecSpan;
struct ExecResult;
}

namespace ember {
struct UserFunction;
}

namespace ember::exec {

/// Registers (once) and returns OK:
///  - ember_parse_timestamp(utf8) -> timestamp[us]: Spark's lenient timestamp text
///    ("2024-01-01", "2024-01-01 10:00:00.123", "2024-01-01T10:00:00Z", "...+02:00"); the value is
///    the wall-clock time read as UTC, minus the offset when the text has one. Malformed text is
///    an error (CAST_INVALID_INPUT).
///  - ember_try_parse_timestamp(utf8): the same with NULL for malformed text.
///  - ember_parsed_or_error(utf8, timestamp[us]) -> timestamp[us]: the parsed values, or Spark's
///    CANNOT_PARSE_TIMESTAMP where text is not NULL and its parse is.
///  - ember_timestamp_has_offset(utf8) -> bool: whether the text carries a zone offset.
///  - the approx_count_distinct kernels of hyperloglog_kernels.cc.
///  - the collection functions of array_kernels.cc (ember_split, ember_make_array,
///    ember_element_at, ember_array_contains).
arrow::Status RegisterKernels();

/// A kernel's argument `i` as an array of the batch's length (a scalar, a literal, repeated).
arrow::Result<std::shared_ptr<arrow::Array>> ArgArray(const arrow::compute::ExecSpan& batch, int i);

/// The values at `positions`, in that order (arrow's Take with 64-bit indices).
arrow::Result<std::shared_ptr<arrow::Array>> TakeAt(const std::shared_ptr<arrow::Array>& values,
                                                    const std::vector<int64_t>& positions);

/// Registers approx_count_distinct's aggregate and estimate functions (hyperloglog_kernels.cc).
arrow::Status RegisterHyperLogLogKernels(arrow::compute::FunctionRegistry* registry);

/// Registers the aggregates of aggregate_kernels.cc (max_by, corr, percentile, mode, ...).
arrow::Status RegisterAggregateKernels(arrow::compute::FunctionRegistry* registry);

/// Registers the collection functions (array_kernels.cc).
arrow::Status RegisterArrayKernels(arrow::compute::FunctionRegistry* registry);

/// A call of a higher-order function (transform, filter, exists, forall, aggregate, map_filter,
/// transform_keys, transform_values), its arguments the collection, aggregate's zero, then the
/// outer columns its lambdas read.
struct HigherOrderCall {
  std::string function;
  std::vector<arrow::compute::Expression> bodies;   // each lambda's body
  std::vector<std::vector<std::string>> variables;  // each lambda's variables, as column names
  std::vector<std::string> outer_columns;           // what the bodies read besides, as named
  std::shared_ptr<arrow::DataType> result_type;
};
arrow::compute::Expression CallHigherOrder(HigherOrderCall call,
                                           std::vector<arrow::compute::Expression> args);

/// Registers ember_higher_order (lambda_kernel.cc).
arrow::Status RegisterHigherOrderKernel(arrow::compute::FunctionRegistry* registry);

/// Lambda `lambda` of a call evaluated over `length` rows of its variables (in the lambda's
/// order) and of the outer columns it reads (lambda_kernel.cc).
arrow::Result<std::shared_ptr<arrow::Array>> EvaluateLambda(const HigherOrderCall& call,
                                                            size_t lambda,
                                                            const arrow::ArrayVector& variables,
                                                            const arrow::ArrayVector& outer,
                                                            int64_t length);

/// Whether ember_higher_order leaves `function` to CollectionHigherOrder: zip_with,
/// map_zip_with, array_sort (collection_kernels.cc).
bool IsCollectionHigherOrder(const std::string& function);
/// ember_higher_order of those functions; its arguments the collections, then the outer
/// columns.
arrow::Status CollectionHigherOrder(const HigherOrderCall& call,
                                    const arrow::compute::ExecSpan& batch,
                                    arrow::compute::ExecResult* out);

/// Registers the string, math and digest kernels of scalar_kernels.cc.
arrow::Status RegisterScalarKernels(arrow::compute::FunctionRegistry* registry);

/// Registers the array functions of collection_kernels.cc.
arrow::Status RegisterCollectionKernels(arrow::compute::FunctionRegistry* registry);

/// Registers the regular expression functions (regex_kernels.cc).
arrow::Status RegisterRegexKernels(arrow::compute::FunctionRegistry* registry);

/// Registers the string kernels of string_kernels.cc (left, right, btrim, elt, mask, URLs, UTF-8).
arrow::Status RegisterStringKernels(arrow::compute::FunctionRegistry* registry);

/// Registers the JSON functions (json_kernels.cc).
arrow::Status RegisterJsonKernels(arrow::compute::FunctionRegistry* registry);

/// Registers the map functions (map_kernels.cc).
arrow::Status RegisterMapKernels(arrow::compute::FunctionRegistry* registry);

/// Registers ember_user_function, which calls a user's function (user_function_kernel.cc).
arrow::Status RegisterUserFunctionKernel(arrow::compute::FunctionRegistry* registry);
/// A call of `function` on `args` (passed as `keywords` says, see UserFunction::call),
/// evaluated batch by batch.
arrow::compute::Expression CallUserFunction(std::shared_ptr<const UserFunction> function,
                                            std::vector<arrow::compute::Expression> args,
                                            std::vector<std::string> keywords);

}  // namespace ember::exec
