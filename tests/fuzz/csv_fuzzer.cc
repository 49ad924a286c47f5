// The CSV reader (ember/io/file_reader.h), as spark.read.csv and the streaming file source reach
// it: schema inference (inferSchema) or a user schema of every kind of column, then the read. The
// first two bytes choose the options (header, mode, sep, quote, escape, nullValue, inference);
// the rest is the file.
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include <arrow/api.h>

#include "ember/io/file_reader.h"
#include "ember/plan/type_names.h"
#include "input_file.h"

namespace {

std::shared_ptr<arrow::Schema> UserSchema(bool corrupt_column) {
  arrow::FieldVector fields = {
      arrow::field("id", arrow::int32()),         arrow::field("n", arrow::int64()),
      arrow::field("d", arrow::float64()),        arrow::field("b", arrow::boolean()),
      arrow::field("s", arrow::utf8()),           arrow::field("day", arrow::date32()),
      arrow::field("ts", ember::plan::TimestampType())};
  if (corrupt_column) fields.push_back(arrow::field("_corrupt_record", arrow::utf8()));
  return arrow::schema(fields);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t a = data[0], b = data[1];
  static const char* const kModes[] = {"PERMISSIVE", "DROPMALFORMED", "FAILFAST", "permissive"};
  static const char* const kSeps[] = {",", ";", "\\t", "|"};
  static const char* const kQuotes[] = {"\"", "'", "", "\""};
  static const char* const kEscapes[] = {"\\", "\"", "", "\\"};
  ember::plan::FileSource source;
  source.format = "csv";
  source.options = {{"header", (a & 1) ? "true" : "false"},
                    {"mode", kModes[(a >> 1) & 3]},
                    {"sep", kSeps[(a >> 3) & 3]},
                    {"quote", kQuotes[(a >> 5) & 3]},
                    {"escape", kEscapes[b & 3]},
                    {"nullvalue", (b & 4) ? "NA" : ""}};
  const bool infer = (b & 8) != 0;
  if (infer) source.options["inferschema"] = (b & 16) ? "true" : "false";

  std::string path = ember::fuzz::WriteInputFile("input.csv", data + 2, size - 2);
  source.paths = {path};
  if (infer) {
    auto inferred = ember::io::InferSchema(source, {path});
    if (!inferred.ok()) return 0;
    source.schema = *inferred;
  } else {
    source.schema = UserSchema((b & 32) != 0);
  }
  auto table = ember::io::ReadFiles(source, {path}, ember::plan::EvalContext{});
  if (!table.ok()) return 0;
  // What the reader returns must be valid Arrow data (UTF-8 strings included) of the schema.
  if (!(*table)->schema()->Equals(*source.schema)) {
    std::fprintf(stderr, "read %s\nschema %s\n", (*table)->schema()->ToString().c_str(),
                 source.schema->ToString().c_str());
  }
  EMBER_FUZZ_CHECK((*table)->schema()->Equals(*source.schema));
  EMBER_FUZZ_CHECK((*table)->ValidateFull().ok());
  return 0;
}
