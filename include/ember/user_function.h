// A function the user wrote (a Python UDF), as the engine calls it: on one batch's argument
// columns at a time, wherever the expression is evaluated.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

namespace ember {

struct UserFunction {
  std::string name;  // shown in column names, as Spark shows `f(a)`
  std::shared_ptr<arrow::DataType> return_type;
  bool deterministic = true;
  /// Returns a column of `return_type` with `length` values; `args` hold `length` values each.
  /// Called on the engine's threads, possibly several at once.
  std::function<arrow::Result<std::shared_ptr<arrow::Array>>(
      const std::vector<std::shared_ptr<arrow::Array>>& args, int64_t length)>
      call;
};

/// A user's function of whole batches (mapInPandas, mapInArrow): a batch of rows in, any number
/// of rows with `output_schema`'s columns out.
struct UserBatchFunction {
  std::string name;
  std::shared_ptr<arrow::Schema> output_schema;
  /// Called on the engine's threads, possibly several at once.
  std::function<arrow::Result<std::shared_ptr<arrow::RecordBatch>>(
      const std::shared_ptr<arrow::RecordBatch>& batch)>
      call;
};

}  // namespace ember
