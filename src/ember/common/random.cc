#include "ember/common/random.h"

#include <cstdio>
#include <random>

namespace ember {

uint64_t RandomBits() {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  return rng();
}

std::string NewUuid() {
  uint64_t a = RandomBits(), b = RandomBits();
  a = (a & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;
  b = (b & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;
  char text[37];
  std::snprintf(text, sizeof(text), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(a >> 32), static_cast<unsigned>((a >> 16) & 0xFFFF),
                static_cast<unsigned>(a & 0xFFFF), static_cast<unsigned>(b >> 48),
                static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFULL));
  return text;
}

}  // namespace ember
