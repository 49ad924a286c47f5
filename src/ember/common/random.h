// Random ids: UUIDs for files, tables and queries, and random 64-bit values.
#pragma once

#include <cstdint>
#include <string>

namespace ember {

/// 64 random bits from this thread's generator (seeded from std::random_device).
uint64_t RandomBits();

/// A random (version 4) UUID as text, e.g. "0f8fad5b-d9cb-469f-a165-70867728950e".
std::string NewUuid();

}  // namespace ember
