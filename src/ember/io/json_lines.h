// A fast JSON Lines decoder: simdjson parses each line and the values go straight into Arrow
// builders. It takes only what it can decode exactly as the general reader would (one object per
// line, each value of its field's JSON type); for anything else it answers "not mine" and the
// caller uses the general reader, which applies Spark's parse modes.
#pragma once

#include <memory>
#include <string>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

namespace ember::io {

/// Whether the decoder handles every field of the schema (booleans, 8- to 64-bit integers,
/// doubles and strings; no nesting, no repeated names).
bool JsonLinesSupports(const arrow::Schema& schema);

/// Text of a file with the zeroed slack simdjson reads past the end of its input.
struct PaddedText {
  std::string bytes;  // size() is the text's length; capacity() holds the padding
};
arrow::Result<PaddedText> ReadPaddedFile(const std::string& path);

/// Decodes the lines of `text` into a table of `schema` (which JsonLinesSupports), on up to
/// `threads` threads. Returns nullptr when some line is not a plain object of the schema's types.
arrow::Result<std::shared_ptr<arrow::Table>> DecodeJsonLines(const PaddedText& text,
                                                             const std::shared_ptr<arrow::Schema>& schema,
                                                             int threads);

}  // namespace ember::io
