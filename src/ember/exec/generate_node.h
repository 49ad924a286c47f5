// Acero nodes whose output rows are not one per input row, batch by batch, so that batch and
// streaming queries run them alike: Spark's Generate (explode, posexplode, and their _outer
// forms, a user's table function) and a user's function of batches (mapInPandas).
#pragma once

#include <arrow/acero/exec_plan.h>
#include <arrow/compute/expression.h>

#include <functional>
#include <string>
#include <vector>

namespace ember {
struct UserBatchFunction;
struct UserTableFunction;
}

namespace ember::exec {

/// What a generator makes of one batch: its rows, each with the input row it belongs to (NULL
/// for none: the input's columns are NULL there), and their columns.
struct GeneratedRows {
  std::shared_ptr<arrow::Array> input_rows;  // int64
  std::vector<std::shared_ptr<arrow::Array>> columns;
};

/// A generator, on its arguments' values for a batch of `length` rows.
using Generator = std::function<arrow::Result<GeneratedRows>(
    const std::vector<std::shared_ptr<arrow::Array>>& args, int64_t length)>;

struct GenerateSpec {
  std::vector<arrow::compute::Expression> args;  // over the input's columns
  arrow::FieldVector fields;                     // the generated columns
  Generator generator;
};

/// explode (a list's elements, a map's entries), posexplode (a position, int from 0, before
/// each), and their _outer forms (a NULL or empty list gives one row of NULLs rather than none).
/// With `fields`, each element is a struct whose fields are the columns (a map's key and value,
/// inline's structs).
Generator ExplodeGenerator(bool outer, bool position, bool fields);

/// A user's table function, each argument passed by its keyword (empty: by position).
Generator TableFunctionGenerator(std::shared_ptr<const UserTableFunction> function,
                                 std::vector<std::string> keywords);

/// The input's columns, then the generated ones.
arrow::Result<arrow::acero::Declaration> GenerateDeclaration(arrow::acero::Declaration input,
                                                             GenerateSpec spec);

/// The same over a table argument's partitions (a table function's PARTITION BY): a call per
/// group of equal `keys` (column indices), its rows in `input`'s order.
arrow::Result<std::shared_ptr<arrow::Table>> GeneratePartitions(
    const std::shared_ptr<arrow::Table>& input, GenerateSpec spec, const std::vector<int>& keys);

/// Each batch through a user's function of batches (mapInPandas), which sees the input's
/// columns as `input_names` and whose columns come out as `output_names`.
arrow::acero::Declaration MapBatchesDeclaration(arrow::acero::Declaration input,
                                                std::shared_ptr<const UserBatchFunction> function,
                                                std::vector<std::string> input_names,
                                                std::vector<std::string> output_names);

}  // namespace ember::exec
