// Spark's JSON functions.

#include "ember/plan/function_util.h"

namespace ember::plan::fn {

void AddJsonFunctions(Catalog& c) { (void)c; }

}  // namespace ember::plan::fn
