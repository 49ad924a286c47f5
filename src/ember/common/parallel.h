// Running independent tasks on the machine's cores.
#pragma once

#include <functional>

namespace ember {

/// The machine's cores (at least 1).
int CoreCount();

/// Runs fn(0..n-1) on the machine's cores.
void ParallelFor(int n, const std::function<void(int)>& fn);

}  // namespace ember
