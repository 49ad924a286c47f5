// The kernels of Spark's regular expression functions.

#include <arrow/compute/registry.h>

#include "ember/exec/kernels.h"

namespace ember::exec {

arrow::Status RegisterRegexKernels(arrow::compute::FunctionRegistry* registry) {
  (void)registry;
  return arrow::Status::OK();
}

}  // namespace ember::exec
