// Acero nodes whose output rows are not one per input row, batch by batch, so that batch and
// streaming queries run them alike: Spark's Generate (explode, posexplode, and their _outer
// forms) and a user's function of batches (mapInPandas).
#pragma once

#include <arrow/acero/exec_plan.h>
#include <arrow/compute/expression.h>

#include <string>
#include <vector>

namespace ember {
struct UserBatchFunction;
}

namespace ember::exec {

struct GenerateSpec {
  arrow::compute::Expression list;  // the list to explode, over the input's columns
  std::shared_ptr<arrow::DataType> element_type;
  bool outer = false;              // a NULL or empty list gives one row of NULLs instead of none
  bool position = false;           // a pos column (int, from 0) before the element
  std::vector<std::string> names;  // the generated columns' names: [pos,] col
};

/// The input's columns, then [pos,] col.
arrow::Result<arrow::acero::Declaration> GenerateDeclaration(arrow::acero::Declaration input,
                                                             GenerateSpec spec);

/// Each batch through a user's function of batches (mapInPandas), which sees the input's
/// columns as `input_names` and whose columns come out as `output_names`.
arrow::acero::Declaration MapBatchesDeclaration(arrow::acero::Declaration input,
                                                std::shared_ptr<const UserBatchFunction> function,
                                                std::vector<std::string> input_names,
                                                std::vector<std::string> output_names);

}  // namespace ember::exec
