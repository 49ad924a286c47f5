// The kernels of Spark's array functions beyond those of functions.cc.

#include <arrow/compute/registry.h>

#include "ember/exec/kernels.h"

namespace ember::exec {

arrow::Status RegisterCollectionKernels(arrow::compute::FunctionRegistry* registry) {
  (void)registry;
  return arrow::Status::OK();
}

}  // namespace ember::exec
