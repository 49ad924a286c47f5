// The JSON Lines decoder (ember/io/json_lines.h), as spark.read.json and the streaming file source
// reach it. The first byte chooses the options: parse mode, corrupt-record column, threads and the
// chunk size (small chunks put chunk boundaries inside records); the rest is the file.
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include <arrow/api.h>

#include "ember/io/json_lines.h"
#include "input_file.h"

namespace {

using ember::io::JsonLinesOptions;

std::shared_ptr<arrow::Schema> FuzzSchema() {
  // Every type the decoder handles; "ts" holds a timestamp's text, as for a TIMESTAMP column.
  return arrow::schema({arrow::field("b", arrow::boolean()), arrow::field("i8", arrow::int8()),
                        arrow::field("i16", arrow::int16()), arrow::field("i32", arrow::int32()),
                        arrow::field("i64", arrow::int64()), arrow::field("d", arrow::float64()),
                        arrow::field("s", arrow::utf8()), arrow::field("ts", arrow::utf8())});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const auto schema = FuzzSchema();
  const uint8_t flags = data[0];
  JsonLinesOptions options;
  options.mode = static_cast<JsonLinesOptions::Mode>((flags & 3) % 3);
  options.corrupt_column = (flags & 4) != 0;
  options.time_columns = {false, false, false, false, false, false, false, true};
  static const int64_t kChunks[] = {1, 7, 64, 1 << 20};
  options.chunk_bytes = kChunks[(flags >> 3) & 3];
  const int threads = (flags & 32) ? 2 : 1;

  std::string path = ember::fuzz::WriteInputFile("input.json", data + 1, size - 1);
  auto result = ember::io::DecodeJsonLines(path, schema, options, threads);
  if (!result.ok()) return 0;
  // What the decoder returns must be valid Arrow data (UTF-8 strings included) of the schema.
  const auto& rows = *result->rows;
  EMBER_FUZZ_CHECK(rows.schema()->Equals(*schema));
  EMBER_FUZZ_CHECK(rows.ValidateFull().ok());
  if (options.corrupt_column) {
    EMBER_FUZZ_CHECK(result->corrupt != nullptr);
    EMBER_FUZZ_CHECK(result->corrupt->length() == rows.num_rows());
    EMBER_FUZZ_CHECK(result->corrupt->ValidateFull().ok());
  }
  return 0;
}
