#include "ember/common/parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace ember {

int CoreCount() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void ParallelFor(int n, const std::function<void(int)>& fn) {
  int workers = std::min(n, CoreCount());
  if (workers <= 1) {
    for (int i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<int> next{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&] {
      for (int i = next++; i < n; i = next++) fn(i);
    });
  }
  for (auto& t : threads) t.join();
}

}  // namespace ember
