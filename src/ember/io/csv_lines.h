// CSV lines into Arrow arrays with Spark's rules (its UnivocityParser and FailureSafeParser): a
// line is a record; a record with fewer fields than the schema is padded with NULLs, one with
// more is cut, and a value that does not convert to its field's type is NULL; each of these makes
// the record malformed, which the parse mode then keeps (PERMISSIVE, with the line in the corrupt
// record column), drops (DROPMALFORMED) or reports (FAILFAST).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/io/json_lines.h"

namespace ember::io {

struct CsvOptions {
  using Mode = JsonLinesOptions::Mode;
  Mode mode = Mode::kPermissive;
  bool corrupt_column = false;  // whether to give the text of malformed records
  bool header = false;          // the first line that is not blank names the columns
  char delimiter = ',';
  char quote = '"';             // '\0': no quoting
  char escape = '\\';
  std::string null_value;       // an unquoted value that reads as NULL
};

/// The fields of the first line of `text` that is not blank (a header's names, or what gives
/// the number of columns of a schema Spark infers).
std::vector<std::string> CsvFirstRecord(std::string_view text, const CsvOptions& options);

/// The columns' names for a first record: with a header Spark's CSVUtils.makeSafeHeader (an
/// empty or null-valued name becomes `_c<index>`, a name given twice, in any case, gets its index
/// appended), else `_c0`, `_c1`, ...
std::vector<std::string> CsvColumnNames(const std::vector<std::string>& first,
                                        const CsvOptions& options);

/// Decodes `text` (the contents of the file at `path`, valid UTF-8) into rows of `schema`.
arrow::Result<JsonLinesResult> DecodeCsvLines(const std::string& path, std::string_view text,
                                              const std::shared_ptr<arrow::Schema>& schema,
                                              const CsvOptions& options);

}  // namespace ember::io
