// The fuzzer's bytes as a file, for entry points that read paths: one file per process and name,
// so parallel fuzzing jobs (-jobs, -fork) do not share it.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace ember::fuzz {

inline std::string WriteInputFile(const std::string& name, const uint8_t* data, size_t size) {
  auto path = std::filesystem::temp_directory_path() /
              ("ember_fuzz_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path.string();
}

// A failed invariant: abort, so that libFuzzer records the input.
#define EMBER_FUZZ_CHECK(condition)                                             \
  do {                                                                          \
    if (!(condition)) {                                                         \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                             \
    }                                                                           \
  } while (0)

}  // namespace ember::fuzz
