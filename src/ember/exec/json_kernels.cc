// The kernels of Spark's JSON functions.

#include <arrow/compute/registry.h>

#include "ember/exec/kernels.h"

namespace ember::exec {

arrow::Status RegisterJsonKernels(arrow::compute::FunctionRegistry* registry) {
  (void)registry;
  return arrow::Status::OK();
}

}  // namespace ember::exec
