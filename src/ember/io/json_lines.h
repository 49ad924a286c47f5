// JSON Lines into Arrow arrays with Spark's record rules (its JacksonParser): simdjson parses each
// line and the values go straight into Arrow builders. A line's first JSON value is its record (an
// object, or an array of objects, a row each); a field of the wrong type is NULL and makes the
// record malformed, which the parse mode then keeps (PERMISSIVE, with its text in the corrupt
// record column), drops (DROPMALFORMED) or reports (FAILFAST).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

namespace ember::io {

/// Whether the decoder handles every field of the schema (booleans, 8- to 64-bit integers,
/// doubles and strings; no nesting, no repeated names).
bool JsonLinesSupports(const arrow::Schema& schema);

struct JsonLinesOptions {
  enum class Mode { kPermissive, kDropMalformed, kFailFast };
  Mode mode = Mode::kPermissive;
  bool corrupt_column = false;    // whether to give the text of malformed records
  bool allow_single_quotes = true;  // Spark's allowSingleQuotes (Jackson's ALLOW_SINGLE_QUOTES)
  std::vector<bool> time_columns;  // the string fields that hold a timestamp's or date's text
  int64_t chunk_bytes = 1 << 20;   // how much of the file a thread reads at a time
};

struct JsonLinesResult {
  std::shared_ptr<arrow::Table> rows;
  std::shared_ptr<arrow::Array> corrupt;  // a string per row when asked: NULL or the record
};

/// A record with Jackson's single-quoted names and strings ({'a': 'x'}, \' for a quote in a
/// string) as standard JSON, or nullopt when it has no single-quoted string or one is not closed.
std::optional<std::string> SingleQuotedJson(std::string_view record);

/// The text of a line's first JSON object or array when more text follows it on the line:
/// Spark (Jackson) reads that value and ignores the rest. Nullopt otherwise.
std::optional<std::string_view> FirstJsonValue(std::string_view line);

/// Decodes the lines of the file at `path` into rows of `schema` (which JsonLinesSupports), on
/// up to `threads` threads, each reading its share of the file a chunk at a time.
arrow::Result<JsonLinesResult> DecodeJsonLines(const std::string& path,
                                               const std::shared_ptr<arrow::Schema>& schema,
                                               const JsonLinesOptions& options, int threads);

}  // namespace ember::io
