// A partition term of a new Iceberg table: PARTITIONED BY (...) in SQL, or
// `df.writeTo(t).partitionedBy(...)`.
#pragma once

#include <cstdint>
#include <string>

namespace ember {

struct PartitionTerm {
  std::string transform;  // identity, years, months, days, hours, bucket or truncate
  std::string column;     // a nested field's parts joined with dots, as Iceberg names fields
  int64_t argument = 0;   // bucket: the number of buckets; truncate: the width; otherwise 0
};

}  // namespace ember
