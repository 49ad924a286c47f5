#include "ember/io/json_lines.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <arrow/array/array_binary.h>
#include <arrow/array/array_primitive.h>
#include <arrow/array/builder_binary.h>
#include <arrow/array/concatenate.h>
#include <arrow/buffer.h>
#include <arrow/stl_allocator.h>
#include <arrow/table.h>
#include <arrow/util/bitmap_builders.h>
#include <arrow/util/parallel.h>
#include <simdjson.h>

#include "ember/error.h"
#include "ember/io/file_bytes.h"
#include "ember/io/utf8.h"

namespace ember::io {

using arrow::Result;
using arrow::Status;
using Mode = JsonLinesOptions::Mode;

namespace {

// Each supported Arrow type.
enum class Kind { kBool, kInt8, kInt16, kInt32, kInt64, kDouble, kString, kUnsupported };

Kind KindOf(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::BOOL: return Kind::kBool;
    case arrow::Type::INT8: return Kind::kInt8;
    case arrow::Type::INT16: return Kind::kInt16;
    case arrow::Type::INT32: return Kind::kInt32;
    case arrow::Type::INT64: return Kind::kInt64;
    case arrow::Type::DOUBLE: return Kind::kDouble;
    case arrow::Type::STRING: return Kind::kString;
    default: return Kind::kUnsupported;
  }
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

size_t SkipSpace(std::string_view s, size_t i) {
  while (i < s.size() && IsSpace(s[i])) ++i;
  return i;
}

// The end (one past the closing quote) of the string starting at s[i] == '"'.
size_t StringEnd(std::string_view s, size_t i) {
  for (++i; i < s.size() && s[i] != '"'; ++i) {
    if (s[i] == '\\') ++i;
  }
  return std::min(i + 1, s.size());
}

// The end of the JSON value starting at s[i]; for an object or array, s.size() + 1 when it is not
// closed. Scalars end at the next separator.
size_t ValueEnd(std::string_view s, size_t i) {
  if (i >= s.size()) return i;
  if (s[i] == '"') return StringEnd(s, i);
  if (s[i] != '{' && s[i] != '[') {
    while (i < s.size() && !IsSpace(s[i]) && s[i] != ',' && s[i] != '}' && s[i] != ']') ++i;
    return i;
  }
  int depth = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '"') {
      i = StringEnd(s, i);
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if ((c == '}' || c == ']') && --depth == 0) return i + 1;
    ++i;
  }
  return s.size() + 1;
}

// The text of the last member named `key` of a valid JSON object, if it is written without
// escapes (Spark keeps a non-string value of a string field as it is written).
std::optional<std::string_view> RawMember(std::string_view object, std::string_view key) {
  std::optional<std::string_view> found;
  size_t i = SkipSpace(object, 0) + 1;  // past '{'
  while (true) {
    i = SkipSpace(object, i);
    if (i >= object.size() || object[i] != '"') return found;
    size_t key_end = StringEnd(object, i);
    std::string_view raw_key = object.substr(i + 1, key_end - i - 2);
    i = SkipSpace(object, SkipSpace(object, key_end) + 1);  // past ':'
    size_t value_end = std::min(ValueEnd(object, i), object.size());
    if (raw_key == key) found = object.substr(i, value_end - i);
    i = SkipSpace(object, value_end);
    if (i < object.size() && object[i] == ',') ++i;
  }
}

// A double field's text that Spark reads as a number (allowNonNumericNumbers).
std::optional<double> NonNumericDouble(std::string_view text) {
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "Infinity" || text == "+Infinity" || text == "+INF") {
    return std::numeric_limits<double>::infinity();
  }
  if (text == "-Infinity" || text == "-INF") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

// One field of one record, converted by Spark's rules before it is appended.
struct Value {
  bool null = true;
  bool flag = false;
  int64_t integer = 0;
  double real = 0;
  std::string_view text;
};

// A vector in Arrow's pool, like every other array: memory from malloc stays in its arenas when
// freed (a Nexmark process held 70 MB more after a query over decoded bids than before it).
template <typename T>
using PoolVector = std::vector<T, arrow::stl::allocator<T>>;

// A buffer that owns `values`, without a copy.
template <typename T>
std::shared_ptr<arrow::Buffer> ToBuffer(PoolVector<T> values) {
  values.reserve(1);  // data() is null before the first allocation, which memcpy must not get
  auto* buffer = new arrow::Buffer(reinterpret_cast<const uint8_t*>(values.data()),
                                   static_cast<int64_t>(values.size() * sizeof(T)));
  return std::shared_ptr<arrow::Buffer>(buffer,
                                        [values = std::move(values)](arrow::Buffer* b) { delete b; });
}

// A column's values as plain vectors, made into an Arrow array at the end: appends to them are
// inlined, where those of Arrow's builders are calls into another library.
struct Column {
  std::string name;
  Kind kind = Kind::kUnsupported;
  bool time = false;  // a timestamp's or date's text: only a JSON string will do
  PoolVector<uint8_t> valid;     // a byte per row
  PoolVector<int64_t> integers;  // the integer kinds
  PoolVector<double> reals;
  PoolVector<uint8_t> flags;
  PoolVector<int32_t> offsets{0};
  PoolVector<char> text;

  void Reserve(int64_t rows) {
    valid.reserve(rows);
    if (kind == Kind::kDouble) {
      reals.reserve(rows);
    } else if (kind == Kind::kBool) {
      flags.reserve(rows);
    } else if (kind == Kind::kString) {
      offsets.reserve(rows + 1);
    } else {
      integers.reserve(rows);
    }
  }

  void Append(const Value& value) {
    valid.push_back(value.null ? 0 : 1);
    if (kind == Kind::kDouble) {
      reals.push_back(value.real);
    } else if (kind == Kind::kBool) {
      flags.push_back(value.flag);
    } else if (kind == Kind::kString) {
      text.insert(text.end(), value.text.begin(), value.text.end());
      offsets.push_back(static_cast<int32_t>(std::min<size_t>(text.size(), INT32_MAX)));
    } else {
      integers.push_back(value.integer);
    }
  }

  template <typename T>
  std::shared_ptr<arrow::Buffer> Integers() {
    if constexpr (std::is_same_v<T, int64_t>) return ToBuffer(std::move(integers));
    return ToBuffer(PoolVector<T>(integers.begin(), integers.end()));
  }

  Result<std::shared_ptr<arrow::Array>> Finish() {
    if (text.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
      return Status::CapacityError("more than 2 GiB of text in JSON field ", name);
    }
    auto length = static_cast<int64_t>(valid.size());
    int64_t nulls = length - std::count(valid.begin(), valid.end(), uint8_t{1});
    std::shared_ptr<arrow::Buffer> bitmap;
    if (nulls > 0) {
      ARROW_ASSIGN_OR_RAISE(bitmap, arrow::internal::BytesToBits(valid));
    }
    switch (kind) {
      case Kind::kBool: {
        ARROW_ASSIGN_OR_RAISE(auto bits, arrow::internal::BytesToBits(flags));
        return std::make_shared<arrow::BooleanArray>(length, bits, bitmap, nulls);
      }
      case Kind::kInt8:
        return std::make_shared<arrow::Int8Array>(length, Integers<int8_t>(), bitmap, nulls);
      case Kind::kInt16:
        return std::make_shared<arrow::Int16Array>(length, Integers<int16_t>(), bitmap, nulls);
      case Kind::kInt32:
        return std::make_shared<arrow::Int32Array>(length, Integers<int32_t>(), bitmap, nulls);
      case Kind::kInt64:
        return std::make_shared<arrow::Int64Array>(length, Integers<int64_t>(), bitmap, nulls);
      case Kind::kDouble:
        return std::make_shared<arrow::DoubleArray>(
            length, ToBuffer(std::move(reals)), bitmap, nulls);
      case Kind::kString:
        return std::make_shared<arrow::StringArray>(
            length, ToBuffer(std::move(offsets)), ToBuffer(std::move(text)), bitmap, nulls);
      case Kind::kUnsupported:
        break;
    }
    return Status::Invalid("unsupported JSON field type");
  }
};

// Decodes a run of whole lines into columns of its own, so that runs can go in parallel.
class RangeDecoder {
 public:
  // `bytes`: the size of the run, which Decode gets a chunk at a time.
  RangeDecoder(const arrow::Schema& schema, const JsonLinesOptions& options, int64_t bytes)
      : schema_(schema), options_(options), bytes_(bytes) {
    for (int i = 0; i < schema.num_fields(); ++i) {
      Column column;
      column.name = schema.field(i)->name();
      column.kind = KindOf(*schema.field(i)->type());
      column.time = static_cast<size_t>(i) < options.time_columns.size() && options.time_columns[i];
      columns_.push_back(std::move(column));
    }
    values_.resize(columns_.size());
    elements_.resize(columns_.size());
    present_.resize(columns_.size());
    spelled_.resize(columns_.size());
  }

  // Decodes the lines from `begin` to `end`, the run's next chunk of whole lines; in FAILFAST
  // mode it stops at the first malformed record, which failure() then holds.
  Status Decode(const char* begin, const char* end) {
    if (lines_ == 0) {
      // Room for the whole run's rows, judged from its first chunk (a little more for the rest).
      int64_t chunk_lines = std::count(begin, end, '\n') + 1;
      double rest = static_cast<double>(bytes_ - (end - begin)) / static_cast<double>(end - begin);
      expected_lines_ = chunk_lines + static_cast<int64_t>(static_cast<double>(chunk_lines) * rest * 1.05);
      for (auto& column : columns_) column.Reserve(expected_lines_);
    }
    for (const char* line = begin; line < end; ++lines_) {
      const char* newline = static_cast<const char*>(std::memchr(line, '\n', end - line));
      const char* stop = newline ? newline : end;
      std::string_view text(line, stop - line);
      line = stop + 1;
      if (SkipSpace(text, 0) == text.size()) continue;
      ARROW_ASSIGN_OR_RAISE(bool go_on, DecodeLine(text));
      if (!go_on) {
        failure_ = {lines_, ValidText(text)};
        break;
      }
      if (++records_ == kSampleLines) ReserveText();
    }
    return Status::OK();
  }

  const std::optional<std::pair<int64_t, std::string>>& failure() const { return failure_; }

  Result<JsonLinesResult> Finish() {
    arrow::ArrayVector arrays;
    for (auto& column : columns_) {
      ARROW_ASSIGN_OR_RAISE(auto array, column.Finish());
      arrays.push_back(std::move(array));
    }
    JsonLinesResult result;
    result.rows = arrow::Table::Make(std::make_shared<arrow::Schema>(schema_.fields()), arrays);
    if (options_.corrupt_column) ARROW_RETURN_NOT_OK(corrupt_.Finish(&result.corrupt));
    return result;
  }

 private:
  static constexpr int64_t kSampleLines = 1024;

  // Room for the text of every string column, judged from the first lines: growing a large
  // buffer step by step copies it again and again into freshly mapped memory.
  // No column's text can outgrow the run's own bytes.
  void ReserveText() {
    for (auto& column : columns_) {
      if (column.kind != Kind::kString) continue;
      column.text.reserve(std::min<size_t>(
          bytes_, column.text.size() * expected_lines_ / kSampleLines * 5 / 4));
    }
  }

  // The column of a key: keys mostly come in the same order line after line, so the search
  // starts after the previous key's column.
  int Find(std::string_view key) {
    int n = static_cast<int>(columns_.size());
    for (int i = 0, c = next_; i < n; ++i, c = c + 1 == n ? 0 : c + 1) {
      if (columns_[c].name == key) {
        next_ = c + 1 == n ? 0 : c + 1;
        return c;
      }
    }
    return -1;
  }

  // False when FAILFAST must stop at this line.
  Result<bool> DecodeLine(std::string_view line) {
    // Jackson skips a byte order mark at the start of its input, each line's.
    if (line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
    simdjson::dom::element document;
    std::string_view record = line;
    // The line is followed by more text or the file's padding: simdjson reads it in place.
    if (parser_.parse(line.data(), line.size(), /*realloc_if_needed=*/false).get(document)) {
      if (!IsValidUtf8(line)) return DecodeJacksonText(line);
      if (options_.allow_single_quotes && !requoting_) {
        if (std::optional<std::string> json = SingleQuotedJson(line)) return DecodeRequoted(line, *json);
      }
      // Spark reads a line's first JSON value and ignores what follows it.
      std::optional<std::string_view> first = FirstJsonValue(line);
      if (!first || parser_.parse(line.data(), first->size(), /*realloc_if_needed=*/false).get(document)) {
        return Malformed(line);
      }
      record = *first;
    }
    simdjson::dom::object object;
    if (!document.get_object().get(object)) return Record(object, record, line);
    simdjson::dom::array array;
    if (document.get_array().get(array)) return Malformed(line);  // a scalar or null
    // An array of records, a row each.
    for (auto element : array) {
      if (!element.is_object()) return Malformed(line);
    }
    for (auto element : array) {
      ARROW_ASSIGN_OR_RAISE(bool go_on, Record(element.get_object().value_unsafe(), {}, line));
      if (!go_on) return false;
    }
    return true;
  }

  // A record with single quotes, decoded as its standard JSON `json`; a malformed one is still
  // given as its own text.
  Result<bool> DecodeRequoted(std::string_view line, const std::string& json) {
    std::string_view outer = original_;
    if (original_.empty()) original_ = line;
    requoted_text_.assign(json);
    requoted_text_.append(simdjson::SIMDJSON_PADDING, '\0');
    requoting_ = true;
    Result<bool> go_on = DecodeLine(std::string_view(requoted_text_.data(), json.size()));
    requoting_ = false;
    original_ = outer;
    return go_on;
  }

  // A line that is not valid UTF-8, decoded as Jackson decodes it (an overlong form is its
  // character, a CESU-8 pair one character) or, with a byte Jackson rejects, malformed.
  Result<bool> DecodeJacksonText(std::string_view line) {
    original_ = line;
    unread_value_ = false;
    std::string text(line);
    Result<bool> go_on = true;
    while (true) {
      size_t rejected = 0;
      std::optional<std::string> decoded = JacksonUtf8(text, &rejected);
      if (decoded) {
        jackson_text_.assign(decoded->data(), decoded->size());
        jackson_text_.append(simdjson::SIMDJSON_PADDING, '\0');
        go_on = DecodeLine(std::string_view(jackson_text_.data(), decoded->size()));
        break;
      }
      // Jackson fails inside a field's string value; where the byte it stopped at is the string's
      // closing quote, followed by the next member or the object's end, it goes on with the
      // record (Spark's partial results: that field NULL, the record malformed).
      std::optional<std::pair<size_t, std::string>> cut = CutStringValue(text, rejected);
      if (!cut || !std::any_of(columns_.begin(), columns_.end(),
                               [&](const Column& c) { return c.name == cut->second; })) {
        go_on = Malformed(line);  // Jackson stops: every field NULL
        break;
      }
      unread_value_ = true;
      text = text.substr(0, cut->first) + "\"\":null" + text.substr(rejected + 1);
    }
    original_ = {};
    unread_value_ = false;
    return go_on;
  }

  // Where the quote at `quote` closes a string value of a member of the line's top-level object
  // and the next member or the object's end follows: where the member starts, and its key.
  static std::optional<std::pair<size_t, std::string>> CutStringValue(std::string_view line,
                                                                      size_t quote) {
    if (quote >= line.size() || line[quote] != '"') return std::nullopt;
    size_t after = SkipSpace(line, quote + 1);
    if (after >= line.size() || (line[after] != ',' && line[after] != '}')) return std::nullopt;
    // The strings before it, and the depth of its value.
    int depth = 0;
    size_t key_begin = 0, key_end = 0, value_begin = std::string_view::npos;
    for (size_t i = 0; i < quote; ++i) {
      char c = line[i];
      if (c == '"') {
        size_t end = i + 1;
        while (end < quote && line[end] != '"') end += line[end] == '\\' ? 2 : 1;
        if (end >= quote) {  // the string the quote closes
          value_begin = i;
          break;
        }
        key_begin = i + 1, key_end = end;
        i = end;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        --depth;
      }
    }
    if (value_begin == std::string_view::npos || depth != 1 || line[SkipSpace(line, 0)] != '{') {
      return std::nullopt;
    }
    size_t colon = SkipSpace(line, key_end + 1);
    if (key_end == 0 || colon >= value_begin || line[colon] != ':' ||
        SkipSpace(line, colon + 1) != value_begin) {
      return std::nullopt;
    }
    return std::pair{key_begin - 1, std::string(line.substr(key_begin, key_end - key_begin))};
  }

  // The text of a malformed record as Spark gives it: its bytes decoded as Java decodes them.
  std::string ValidText(std::string_view line) const {
    if (!original_.empty()) line = original_;
    return IsValidUtf8(line) ? std::string(line) : ReplaceMalformedUtf8(line);
  }

  Status AppendCorrupt(std::string_view line) {
    if (original_.empty() && IsValidUtf8(line)) return corrupt_.Append(line);
    return corrupt_.Append(ValidText(line));
  }

  // A record that could not be parsed: a row of NULLs, none, or the end.
  Result<bool> Malformed(std::string_view line) {
    if (options_.mode == Mode::kFailFast) return false;
    if (options_.mode == Mode::kDropMalformed) return true;
    for (auto& column : columns_) column.Append(Value());
    if (options_.corrupt_column) ARROW_RETURN_NOT_OK(AppendCorrupt(line));
    return true;
  }

  // One object's row; `text` is its own text (empty inside an array), for raw string values.
  Result<bool> Record(simdjson::dom::object object, std::string_view text, std::string_view line) {
    std::fill(present_.begin(), present_.end(), 0);
    for (auto field : object) {
      int c = Find(field.key);
      if (c < 0) continue;  // a field outside the schema is ignored
      elements_[c] = field.value;  // a repeated key: the last one wins, as in Spark
      present_[c] = 1;
    }
    bool malformed = false;
    // A member whose string value Jackson could not read (left out: its field keeps the value
    // an earlier member gave it, else NULL) makes the record malformed.
    if (unread_value_) malformed = true;
    for (size_t c = 0; c < columns_.size(); ++c) {
      values_[c] = Value();
      if (present_[c] && !Convert(c, text)) {
        values_[c] = Value();
        malformed = true;
      }
    }
    // A field of the wrong type: Spark keeps the record's other fields (partial results).
    if (malformed && options_.mode != Mode::kPermissive) return Malformed(line);
    for (size_t c = 0; c < columns_.size(); ++c) columns_[c].Append(values_[c]);
    if (options_.corrupt_column) {
      ARROW_RETURN_NOT_OK(malformed ? AppendCorrupt(line) : corrupt_.AppendNull());
    }
    return true;
  }

  // Converts elements_[c] into values_[c]; false if Spark would not take it for the field.
  bool Convert(size_t c, std::string_view record_text) {
    using simdjson::dom::element_type;
    const Column& column = columns_[c];
    simdjson::dom::element element = elements_[c];
    Value& value = values_[c];
    element_type type = element.type();
    if (type == element_type::NULL_VALUE) return true;
    value.null = false;
    int64_t low = 0, high = 0;
    switch (column.kind) {
      case Kind::kBool:
        if (type != element_type::BOOL) return false;
        value.flag = element.get_bool().value_unsafe();
        return true;
      case Kind::kInt8:  // Jackson's getByteValue takes -128 to 255, 128 to 255 wrapping around
        low = -128, high = 255;
        break;
      case Kind::kInt16:
        low = std::numeric_limits<int16_t>::min(), high = std::numeric_limits<int16_t>::max();
        break;
      case Kind::kInt32:
        low = std::numeric_limits<int32_t>::min(), high = std::numeric_limits<int32_t>::max();
        break;
      case Kind::kInt64:
        low = std::numeric_limits<int64_t>::min(), high = std::numeric_limits<int64_t>::max();
        break;
      case Kind::kDouble:
        // An integer converts to the nearest double, as its text would parse.
        if (type == element_type::DOUBLE) {
          value.real = element.get_double().value_unsafe();
        } else if (type == element_type::INT64) {
          value.real = static_cast<double>(element.get_int64().value_unsafe());
        } else if (type == element_type::UINT64) {
          value.real = static_cast<double>(element.get_uint64().value_unsafe());
        } else if (type == element_type::STRING) {
          auto special = NonNumericDouble(element.get_string().value_unsafe());
          if (!special) return false;
          value.real = *special;
        } else {
          return false;
        }
        return true;
      case Kind::kString:
        if (type == element_type::STRING) {
          value.text = element.get_string().value_unsafe();
          return true;
        }
        if (column.time) return false;
        return Spell(c, record_text);
      case Kind::kUnsupported:
        return false;
    }
    if (type != element_type::INT64) return false;
    int64_t v = element.get_int64().value_unsafe();
    if (v < low || v > high) return false;
    value.integer = column.kind == Kind::kInt8 ? static_cast<int8_t>(v) : v;
    return true;
  }

  // A non-string value of a string field: its JSON text, as written where it can be found.
  bool Spell(size_t c, std::string_view record_text) {
    std::optional<std::string_view> raw;
    if (!record_text.empty()) raw = RawMember(record_text, columns_[c].name);
    if (raw) {
      values_[c].text = *raw;
    } else {
      spelled_[c] = simdjson::minify(elements_[c]);
      values_[c].text = spelled_[c];
    }
    return true;
  }

  const arrow::Schema& schema_;
  const JsonLinesOptions& options_;
  std::vector<Column> columns_;
  arrow::StringBuilder corrupt_;
  simdjson::dom::parser parser_;
  // The record being decoded, by column.
  std::vector<simdjson::dom::element> elements_;
  std::vector<char> present_;
  std::vector<Value> values_;
  std::vector<std::string> spelled_;
  int next_ = 0;
  const int64_t bytes_;
  int64_t expected_lines_ = 0;
  int64_t lines_ = 0;  // lines decoded, blank ones too
  int64_t records_ = 0;
  std::optional<std::pair<int64_t, std::string>> failure_;
  std::string_view original_;  // the line's own bytes while its Jackson text is decoded
  bool unread_value_ = false;  // a member's string value Jackson could not read
  std::string jackson_text_;   // with simdjson's padding
  std::string requoted_text_;  // a single-quoted record as standard JSON, with the padding
  bool requoting_ = false;
};

// Below this many bytes per thread, a second thread costs more than it saves.
constexpr int64_t kBytesPerThread = 4 << 20;

// The offset just past the first line end at or after `from`, or `size` when there is none.
Result<int64_t> NextLineStart(const FileBytes& file, int64_t from, int64_t size) {
  std::vector<char> window(64 << 10);
  for (int64_t at = from; at < size;) {
    int64_t length = std::min<int64_t>(static_cast<int64_t>(window.size()), size - at);
    ARROW_RETURN_NOT_OK(file.ReadFully(at, length, window.data()));
    if (const void* newline = std::memchr(window.data(), '\n', static_cast<size_t>(length))) {
      return at + (static_cast<const char*>(newline) - window.data()) + 1;
    }
    at += length;
  }
  return size;
}

// How many lines end before `offset`.
Result<int64_t> LinesBefore(const FileBytes& file, int64_t offset) {
  std::vector<char> window(1 << 20);
  int64_t lines = 0;
  for (int64_t at = 0; at < offset;) {
    int64_t length = std::min<int64_t>(static_cast<int64_t>(window.size()), offset - at);
    ARROW_RETURN_NOT_OK(file.ReadFully(at, length, window.data()));
    lines += std::count(window.data(), window.data() + length, '\n');
    at += length;
  }
  return lines;
}

// Decodes the lines of bytes [begin, end) of `file`, read a chunk at a time into one buffer, so
// that a large file is neither held whole nor read into fresh memory: a line cut by a chunk's
// end moves to the buffer's front and the next chunk follows it.
Status DecodeRun(const FileBytes& file, int64_t begin, int64_t end, int64_t chunk_bytes,
                 RangeDecoder& decoder) {
  constexpr int64_t kPadding = simdjson::SIMDJSON_PADDING;  // read by simdjson past a line's end
  // From Arrow's pool, like the decoded columns: a large buffer from malloc would raise its
  // threshold for returning freed memory to the system.
  ARROW_ASSIGN_OR_RAISE(auto buffer, arrow::AllocateResizableBuffer(0));
  int64_t carried = 0;
  for (int64_t at = begin; at < end;) {
    int64_t length = std::min(chunk_bytes, end - at);
    if (buffer->size() < carried + length + kPadding) {
      // A line longer than a chunk makes the buffer grow.
      ARROW_RETURN_NOT_OK(buffer->Resize(std::max(carried + length + kPadding, buffer->size() * 2)));
    }
    char* data = reinterpret_cast<char*>(buffer->mutable_data());
    ARROW_RETURN_NOT_OK(file.ReadFully(at, length, data + carried));
    at += length;
    int64_t filled = carried + length;
    std::memset(data + filled, 0, kPadding);
    int64_t lines_end = filled;  // the run's end ends its last line
    if (at < end) {
      const void* newline = ::memrchr(data, '\n', static_cast<size_t>(filled));
      lines_end = newline ? static_cast<const char*>(newline) - data + 1 : 0;
    }
    if (lines_end > 0) {
      ARROW_RETURN_NOT_OK(decoder.Decode(data, data + lines_end));
      if (decoder.failure()) return Status::OK();
    }
    carried = filled - lines_end;
    std::memmove(data, data + lines_end, static_cast<size_t>(carried));
  }
  return Status::OK();
}

}  // namespace

bool JsonLinesSupports(const arrow::Schema& schema) {
  if (schema.num_fields() == 0) return false;
  for (int i = 0; i < schema.num_fields(); ++i) {
    const auto& field = schema.field(i);
    if (KindOf(*field->type()) == Kind::kUnsupported) return false;
    if (schema.GetAllFieldIndices(field->name()).size() > 1) return false;
  }
  return true;
}

std::optional<std::string_view> FirstJsonValue(std::string_view line) {
  size_t start = SkipSpace(line, 0);
  if (start >= line.size() || (line[start] != '{' && line[start] != '[')) return std::nullopt;
  size_t end = ValueEnd(line, start);
  if (end >= line.size()) return std::nullopt;  // not closed, or nothing after it
  return line.substr(0, end);
}

std::optional<std::string> SingleQuotedJson(std::string_view record) {
  if (record.find('\'') == std::string_view::npos) return std::nullopt;
  std::string out;
  out.reserve(record.size() + 8);
  bool changed = false;
  for (size_t i = 0; i < record.size(); ++i) {
    char c = record[i];
    if (c != '"' && c != '\'') {
      out += c;
      continue;
    }
    // A string: copied with double quotes; \' is a quote in either kind, as Jackson allows
    // with single quotes on, and a double quote inside single quotes is escaped.
    char close = c;
    changed = changed || c == '\'';
    out += '"';
    size_t j = i + 1;
    for (; j < record.size() && record[j] != close; ++j) {
      if (record[j] == '\\' && j + 1 < record.size()) {
        if (record[j + 1] == '\'') {
          changed = true;
        } else {
          out += '\\';
        }
        out += record[++j];
      } else {
        if (record[j] == '"') out += '\\';
        out += record[j];
      }
    }
    if (j == record.size()) return std::nullopt;  // not closed
    out += '"';
    i = j;
  }
  if (!changed) return std::nullopt;
  return out;
}

Result<JsonLinesResult> DecodeJsonLines(const std::string& path,
                                        const std::shared_ptr<arrow::Schema>& schema,
                                        const JsonLinesOptions& options, int threads) {
  ARROW_ASSIGN_OR_RAISE(auto opened, FileBytes::Open(path));
  const FileBytes& file = *opened;
  const int64_t size = file.size();
  int64_t parts = std::max<int64_t>(1, std::min<int64_t>(threads, size / kBytesPerThread));
  // Cut the file at line ends into `parts` runs of about equal size.
  std::vector<int64_t> cuts{0};
  for (int64_t i = 1; i < parts; ++i) {
    ARROW_ASSIGN_OR_RAISE(int64_t cut, NextLineStart(file, std::max(cuts.back(), size * i / parts), size));
    cuts.push_back(cut);
  }
  cuts.push_back(size);
  std::vector<std::unique_ptr<RangeDecoder>> decoders(static_cast<size_t>(parts));
  auto decode = [&](int i) -> Status {
    try {  // no exception may escape a pool thread
      decoders[i] = std::make_unique<RangeDecoder>(*schema, options, cuts[i + 1] - cuts[i]);
      return DecodeRun(file, cuts[i], cuts[i + 1], options.chunk_bytes, *decoders[i]);
    } catch (const std::bad_alloc&) {
      return Status::OutOfMemory("decoding JSON lines of ", path);
    }
  };
  if (parts == 1) {
    ARROW_RETURN_NOT_OK(decode(0));
  } else {
    ARROW_RETURN_NOT_OK(arrow::internal::ParallelFor(static_cast<int>(parts), decode));
  }
  std::vector<std::shared_ptr<arrow::Table>> tables;
  arrow::ArrayVector corrupt;
  for (size_t i = 0; i < decoders.size(); ++i) {
    if (const auto& failure = decoders[i]->failure()) {
      ARROW_ASSIGN_OR_RAISE(int64_t lines_before, LinesBefore(file, cuts[i]));
      int64_t line = lines_before + failure->first + 1;
      return UserError(ErrorKind::kRuntime, "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
                       "Malformed records are detected in record parsing: " + failure->second +
                           " (file " + path + ", line " + std::to_string(line) +
                           "). Parse Mode: FAILFAST. To process malformed records as null result, "
                           "try setting the option 'mode' as 'PERMISSIVE'.",
                       "22023");
    }
    ARROW_ASSIGN_OR_RAISE(auto part, decoders[i]->Finish());
    tables.push_back(std::move(part.rows));
    if (part.corrupt) corrupt.push_back(std::move(part.corrupt));
  }
  JsonLinesResult result;
  ARROW_ASSIGN_OR_RAISE(result.rows, tables.size() == 1 ? Result<std::shared_ptr<arrow::Table>>(tables[0])
                                                         : arrow::ConcatenateTables(tables));
  if (options.corrupt_column) {
    ARROW_ASSIGN_OR_RAISE(result.corrupt, arrow::Concatenate(corrupt));
  }
  return result;
}

}  // namespace ember::io
