// Running independent tasks on the machine's cores.
#pragma once

#include <functional>

namespace ember {

/// Runs fn(0..n-1) on the machine's cores.
void ParallelFor(int n, const std::function<void(int)>& fn);

}  // namespace ember
