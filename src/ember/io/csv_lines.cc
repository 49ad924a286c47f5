#include "ember/io/csv_lines.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <vector>

#include <arrow/array/array_binary.h>
#include <arrow/array/builder_binary.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/builder.h>
#include <arrow/compute/api_vector.h>
#include <arrow/compute/cast.h>
#include <arrow/scalar.h>
#include <arrow/table.h>

#include "ember/error.h"

namespace ember::io {

using arrow::Result;
using arrow::Status;
using Mode = CsvOptions::Mode;

namespace {

// Java's String.trim: what a blank line is made of.
bool Blank(std::string_view line) {
  for (char c : line) {
    if (static_cast<unsigned char>(c) > ' ') return false;
  }
  return true;
}

struct Field {
  size_t begin = 0, end = 0;  // in the line's unescaped text
  bool quoted = false;
};

// Splits a line into fields as Univocity does: a field that starts with the quote runs to the
// quote that closes it (the escape or a doubled quote puts a quote inside); any other field runs
// to the next delimiter.
void SplitLine(std::string_view line, const CsvOptions& options, std::string& text,
               std::vector<Field>& fields) {
  text.clear();
  fields.clear();
  size_t i = 0;
  const size_t n = line.size();
  while (true) {
    Field field;
    field.begin = text.size();
    if (options.quote != '\0' && i < n && line[i] == options.quote) {
      field.quoted = true;
      ++i;
      while (i < n) {
        char c = line[i];
        if (c == options.escape && i + 1 < n &&
            (line[i + 1] == options.quote || line[i + 1] == options.escape) && options.escape != options.quote) {
          text += line[i + 1];
          i += 2;
        } else if (c == options.quote) {
          if (i + 1 < n && line[i + 1] == options.quote) {
            text += c;
            i += 2;
          } else {
            ++i;
            break;
          }
        } else {
          text += c;
          ++i;
        }
      }
    }
    // Unquoted text, or what follows a closing quote, up to the delimiter.
    while (i < n && line[i] != options.delimiter) text += line[i++];
    field.end = text.size();
    fields.push_back(field);
    if (i >= n) break;
    ++i;  // past the delimiter: another field follows, maybe empty
  }
}

// Converts text to `type`; `bad[i]` is set where a value would not convert (it is then NULL).
Result<std::shared_ptr<arrow::Array>> Convert(const std::shared_ptr<arrow::Array>& text,
                                              const std::shared_ptr<arrow::DataType>& type,
                                              std::vector<uint8_t>& bad) {
  if (type->id() == arrow::Type::STRING) return text;
  namespace cp = arrow::compute;
  auto whole = cp::Cast(*text, type, cp::CastOptions::Safe(type));
  if (whole.ok()) return *whole;
  // Some value does not convert: value by value.
  ARROW_ASSIGN_OR_RAISE(auto builder, arrow::MakeBuilder(type));
  for (int64_t i = 0; i < text->length(); ++i) {
    if (text->IsNull(i)) {
      ARROW_RETURN_NOT_OK(builder->AppendNull());
      continue;
    }
    auto one = cp::Cast(*text->Slice(i, 1), type, cp::CastOptions::Safe(type));
    if (one.ok()) {
      ARROW_RETURN_NOT_OK(builder->AppendArraySlice(*(*one)->data(), 0, 1));
    } else {
      bad[static_cast<size_t>(i)] = 1;
      ARROW_RETURN_NOT_OK(builder->AppendNull());
    }
  }
  return builder->Finish();
}

Status FailFast(const std::string& path, int64_t line_number, std::string_view line) {
  return UserError(ErrorKind::kRuntime, "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
                   "Malformed records are detected in record parsing: " + std::string(line) +
                       " (file " + path + ", line " + std::to_string(line_number) +
                       "). Parse Mode: FAILFAST. To process malformed records as null result, "
                       "try setting the option 'mode' as 'PERMISSIVE'.",
                   "22023");
}

}  // namespace

std::vector<std::string> CsvFirstRecord(std::string_view text, const CsvOptions& options) {
  std::vector<std::string> names;
  for (size_t at = 0; at < text.size();) {
    const char* newline = static_cast<const char*>(std::memchr(text.data() + at, '\n', text.size() - at));
    size_t stop = newline ? static_cast<size_t>(newline - text.data()) : text.size();
    std::string_view line = text.substr(at, stop - at);
    at = stop + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (Blank(line)) continue;
    std::string unescaped;
    std::vector<Field> fields;
    SplitLine(line, options, unescaped, fields);
    for (const auto& f : fields) names.push_back(unescaped.substr(f.begin, f.end - f.begin));
    break;
  }
  return names;
}

std::vector<std::string> CsvColumnNames(const std::vector<std::string>& first,
                                        const CsvOptions& options) {
  auto lower = [](std::string name) {  // spark.sql.caseSensitive=false, its default
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return name;
  };
  std::map<std::string, int> uses;
  for (const auto& name : first) ++uses[lower(name)];
  std::vector<std::string> names;
  for (size_t i = 0; i < first.size(); ++i) {
    const std::string& name = first[i];
    std::string index = std::to_string(i);
    if (!options.header || name.empty() || name == options.null_value) {
      names.push_back("_c" + index);
    } else if (uses[lower(name)] > 1) {
      names.push_back(name + index);
    } else {
      names.push_back(name);
    }
  }
  return names;
}

Result<JsonLinesResult> DecodeCsvLines(const std::string& path, std::string_view text,
                                       const std::shared_ptr<arrow::Schema>& schema,
                                       const CsvOptions& options) {
  const int columns = schema->num_fields();
  std::vector<arrow::StringBuilder> values(static_cast<size_t>(columns));
  std::vector<std::string_view> lines;     // each record's line
  std::vector<int64_t> line_numbers;
  std::vector<uint8_t> malformed;          // a record with too few or too many fields
  std::string unescaped;
  std::vector<Field> fields;
  bool header = options.header;
  int64_t line_number = 0;
  for (size_t at = 0; at < text.size();) {
    const char* newline = static_cast<const char*>(std::memchr(text.data() + at, '\n', text.size() - at));
    size_t stop = newline ? static_cast<size_t>(newline - text.data()) : text.size();
    std::string_view line = text.substr(at, stop - at);
    at = stop + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (Blank(line)) continue;
    if (header) {
      header = false;
      continue;
    }
    SplitLine(line, options, unescaped, fields);
    bool wrong_count = static_cast<int>(fields.size()) != columns;
    if (wrong_count && options.mode == Mode::kFailFast) return FailFast(path, line_number, line);
    if (wrong_count && options.mode == Mode::kDropMalformed) continue;
    for (int c = 0; c < columns; ++c) {
      auto& builder = values[static_cast<size_t>(c)];
      if (c >= static_cast<int>(fields.size())) {
        ARROW_RETURN_NOT_OK(builder.AppendNull());  // a short record: padded
        continue;
      }
      const Field& f = fields[static_cast<size_t>(c)];
      std::string_view value(unescaped.data() + f.begin, f.end - f.begin);
      if (!f.quoted && value == options.null_value) {
        ARROW_RETURN_NOT_OK(builder.AppendNull());
      } else {
        ARROW_RETURN_NOT_OK(builder.Append(value));
      }
    }
    lines.push_back(line);
    line_numbers.push_back(line_number);
    malformed.push_back(wrong_count ? 1 : 0);
  }
  // Each column converted to its type: a value that does not convert makes its record malformed.
  arrow::ArrayVector arrays;
  for (int c = 0; c < columns; ++c) {
    std::shared_ptr<arrow::Array> strings;
    ARROW_RETURN_NOT_OK(values[static_cast<size_t>(c)].Finish(&strings));
    ARROW_ASSIGN_OR_RAISE(auto array, Convert(strings, schema->field(c)->type(), malformed));
    arrays.push_back(std::move(array));
  }
  auto rows = arrow::Table::Make(schema, arrays, static_cast<int64_t>(lines.size()));
  const int64_t bad = std::count(malformed.begin(), malformed.end(), uint8_t{1});
  JsonLinesResult result;
  if (bad > 0 && options.mode == Mode::kFailFast) {
    size_t first = static_cast<size_t>(std::find(malformed.begin(), malformed.end(), 1) - malformed.begin());
    return FailFast(path, line_numbers[first], lines[first]);
  }
  if (bad > 0 && options.mode == Mode::kDropMalformed) {
    arrow::BooleanBuilder keep;
    for (uint8_t m : malformed) ARROW_RETURN_NOT_OK(keep.Append(m == 0));
    std::shared_ptr<arrow::Array> mask;
    ARROW_RETURN_NOT_OK(keep.Finish(&mask));
    ARROW_ASSIGN_OR_RAISE(auto kept, arrow::compute::Filter(rows, mask));
    rows = kept.table();
  }
  result.rows = rows;
  if (options.corrupt_column) {
    arrow::StringBuilder corrupt;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (malformed[i] && options.mode == Mode::kDropMalformed) continue;
      ARROW_RETURN_NOT_OK(malformed[i] ? corrupt.Append(lines[i]) : corrupt.AppendNull());
    }
    ARROW_RETURN_NOT_OK(corrupt.Finish(&result.corrupt));
  }
  return result;
}

}  // namespace ember::io
