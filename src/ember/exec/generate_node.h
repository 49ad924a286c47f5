// Spark's Generate as an Acero node: each input row once per element of a list (explode,
// posexplode, and their _outer forms), batch by batch, so batch and streaming queries run it
// alike.
#pragma once

#include <arrow/acero/exec_plan.h>
#include <arrow/compute/expression.h>

#include <string>
#include <vector>

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

}  // namespace ember::exec
