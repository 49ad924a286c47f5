// Iceberg table metadata JSON (ember/iceberg/table_metadata.h), as a catalog reads a table's
// vN.metadata.json, whoever wrote it. What reads must also write and read back the same (Ember
// rewrites the metadata on every commit).
#include <cstddef>
#include <cstdint>
#include <string>

#include "ember/iceberg/table_metadata.h"
#include "input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto metadata = ember::iceberg::TableMetadata::FromJson(text);
  if (!metadata.ok()) return 0;
  (void)metadata->current_snapshot();
  (void)metadata->default_spec();
  const std::string written = metadata->ToJson();
  auto again = ember::iceberg::TableMetadata::FromJson(written);
  EMBER_FUZZ_CHECK(again.ok());
  EMBER_FUZZ_CHECK(again->ToJson() == written);
  return 0;
}
