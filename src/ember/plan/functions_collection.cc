// Spark's array functions beyond those of functions.cc.

#include "ember/plan/function_util.h"

namespace ember::plan::fn {

void AddCollectionFunctions(Catalog& c) { (void)c; }

}  // namespace ember::plan::fn
