// Iceberg table metadata JSON (ember/iceberg/table_metadata.h), as a catalog reads a table's
// vN.metadata.json, whoever wrote it. What reads must also write and read back the same (Ember
// rewrites the metadata on every commit): the same JSON value, whatever the order of
// object keys.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

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
  if (!again.ok()) std::fprintf(stderr, "%s\n%s\n", written.c_str(), again.status().ToString().c_str());
  EMBER_FUZZ_CHECK(again.ok());
  // The same JSON value: object keys may come back in another order (sort orders kept as read).
  const std::string rewritten = again->ToJson();
  const bool same = nlohmann::json::parse(rewritten) == nlohmann::json::parse(written);
  if (!same) std::fprintf(stderr, "%s\n%s\n", written.c_str(), rewritten.c_str());
  EMBER_FUZZ_CHECK(same);
  return 0;
}
