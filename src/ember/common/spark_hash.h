// Spark's xxhash64 and hash (Murmur3) of a value (XxHash64Function: XXH64 over Spark's internal representation of
// the value, chained through a seed), as approx_count_distinct and the SQL function xxhash64 use
// it. The XXH64 itself is the reference implementation's (libxxhash); this file decides which
// bytes Spark hashes for each type:
//
//   boolean, tinyint, smallint, int, date       the value as a 4-byte int (true = 1)
//   bigint, timestamp, timestamp_ntz             the value as an 8-byte long (microseconds)
//   float / double                               the IEEE bits as an int / long, with -0.0 read
//                                                as 0.0 and every NaN as the canonical NaN
//   decimal(p <= 18)                             the unscaled value as a long
//   decimal(p > 18)                              the unscaled value's minimal big-endian two's
//                                                complement bytes (java BigInteger.toByteArray)
//   string, binary                               the bytes (UTF-8 for strings)
//   struct                                       each field hashed with the previous result as
//                                                seed; a NULL field leaves the seed unchanged
//   array                                        likewise, element by element
//   map                                          likewise, key then value of each entry
//
// Integers are hashed in little-endian byte order, which is what Spark's hashInt/hashLong equal.
// A NULL value hashes to the seed.
#pragma once

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include <cstdint>
#include <vector>

namespace ember {

/// Spark's seed for xxhash64() and approx_count_distinct.
constexpr uint64_t kSparkHashSeed = 42;

/// The hash of every row of `values` (NULL rows get `seed`). Fails for types Spark cannot hash.
arrow::Result<std::vector<uint64_t>> SparkXxHash64(const arrow::Array& values,
                                                   uint64_t seed = kSparkHashSeed);

/// Spark's hash(): Murmur3_x86_32 of the same bytes, seed 42 (kSparkHashSeed), chained alike.
arrow::Result<std::vector<int32_t>> SparkMurmur3Hash(const arrow::Array& values,
                                                     int32_t seed = kSparkHashSeed);

/// Whether SparkXxHash64 and SparkMurmur3Hash accept values of `type`.
bool SparkHashable(const arrow::DataType& type);

}  // namespace ember
