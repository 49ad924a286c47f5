// Spark's regular expression functions.

#include "ember/plan/function_util.h"

namespace ember::plan::fn {

void AddRegexFunctions(Catalog& c) { (void)c; }

}  // namespace ember::plan::fn
