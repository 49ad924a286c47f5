#include "ember/io/json_lines.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include <arrow/array/builder_binary.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/table.h>
#include <arrow/util/parallel.h>
#include <simdjson.h>

namespace ember::io {

using arrow::Result;
using arrow::Status;

namespace {

// Each supported Arrow type, with the JSON values it takes.
enum class Kind { kBool, kInt8, kInt16, kInt32, kInt64, kDouble, kString, kUnsupported };

Kind KindOf(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::BOOL: return Kind::kBool;
    case arrow::Type::INT8: return Kind::kInt8;
    case arrow::Type::INT16: return Kind::kInt16;
    case arrow::Type::INT32: return Kind::kInt32;
    case arrow::Type::INT64: return Kind::kInt64;
    // No float32: the general reader rounds the text to float once, not through a double.
    case arrow::Type::DOUBLE: return Kind::kDouble;
    case arrow::Type::STRING: return Kind::kString;
    default: return Kind::kUnsupported;
  }
}

template <typename T>
bool AppendInteger(arrow::ArrayBuilder* builder, int64_t v) {
  if (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max()) return false;
  using Builder = typename arrow::CTypeTraits<T>::BuilderType;
  return static_cast<Builder*>(builder)->Append(static_cast<T>(v)).ok();
}

// Decodes a run of whole lines into builders of its own, so that runs can go in parallel.
class RangeDecoder {
 public:
  explicit RangeDecoder(const arrow::Schema& schema) : schema_(schema) {
    for (const auto& field : schema.fields()) {
      columns_.push_back(Column{field->name(), KindOf(*field->type()), nullptr, -1});
      (void)arrow::MakeBuilder(arrow::default_memory_pool(), field->type(), &columns_.back().builder);
    }
  }

  // False when some line is not a plain object of the schema's types.
  bool Decode(const char* begin, const char* end) {
    // Room for every line at once: growing the arrays line by line copies them again and again.
    int64_t lines = std::count(begin, end, '\n') + 1;
    for (auto& column : columns_) {
      if (!column.builder->Reserve(lines).ok()) return false;
    }
    int64_t row = 0;
    const char* line = begin;
    while (line < end) {
      const char* newline = static_cast<const char*>(std::memchr(line, '\n', end - line));
      const char* stop = newline ? newline : end;
      if (!Blank(line, stop)) {
        if (!DecodeLine(line, stop - line, row)) return false;
        if (++row == kSampleLines && !ReserveStrings(lines)) return false;
      }
      line = stop + 1;
    }
    return true;
  }

  Result<std::shared_ptr<arrow::Table>> Finish() {
    arrow::ArrayVector arrays;
    for (auto& column : columns_) {
      std::shared_ptr<arrow::Array> array;
      ARROW_RETURN_NOT_OK(column.builder->Finish(&array));
      arrays.push_back(std::move(array));
    }
    return arrow::Table::Make(std::make_shared<arrow::Schema>(schema_.fields()), arrays);
  }

 private:
  struct Column {
    std::string name;
    Kind kind;
    std::unique_ptr<arrow::ArrayBuilder> builder;
    int64_t last_row;  // the last row that gave this column a value: a repeated key is not ours
  };

  // Room for the text of every string column, judged from the first lines: growing a large
  // buffer step by step copies it again and again into freshly mapped memory.
  bool ReserveStrings(int64_t lines) {
    for (auto& column : columns_) {
      if (column.kind != Kind::kString) continue;
      auto* builder = static_cast<arrow::StringBuilder*>(column.builder.get());
      int64_t expected = builder->value_data_length() * lines / kSampleLines * 5 / 4;
      int64_t more = expected - builder->value_data_length();
      if (more > 0 && !builder->ReserveData(more).ok()) return false;
    }
    return true;
  }

  static constexpr int64_t kSampleLines = 1024;

  static bool Blank(const char* p, const char* end) {
    for (; p < end; ++p) {
      if (*p != ' ' && *p != '\t' && *p != '\r') return false;
    }
    return true;
  }

  // The column of a key: keys mostly come in the same order line after line, so the search
  // starts after the previous key's column.
  int Find(std::string_view key) {
    int n = static_cast<int>(columns_.size());
    for (int i = 0; i < n; ++i) {
      int c = (next_ + i) % n;
      if (columns_[c].name == key) {
        next_ = (c + 1) % n;
        return c;
      }
    }
    return -1;
  }

  bool DecodeLine(const char* text, size_t length, int64_t row) {
    simdjson::dom::element document;
    // The line is followed by more text or the file's padding: no copy needed.
    if (parser_.parse(text, length, /*realloc_if_needed=*/false).get(document)) return false;
    simdjson::dom::object object;
    if (document.get_object().get(object)) return false;
    size_t filled = 0;
    for (auto field : object) {
      int c = Find(field.key);
      if (c < 0) continue;  // a field outside the schema is ignored
      Column& column = columns_[c];
      if (column.last_row == row) return false;
      column.last_row = row;
      ++filled;
      if (!Append(column, field.value)) return false;
    }
    if (filled < columns_.size()) {
      for (auto& column : columns_) {
        if (column.last_row == row) continue;
        column.last_row = row;
        if (!column.builder->AppendNull().ok()) return false;
      }
    }
    return true;
  }

  static bool Append(Column& column, simdjson::dom::element value) {
    using simdjson::dom::element_type;
    element_type type = value.type();
    arrow::ArrayBuilder* builder = column.builder.get();
    if (type == element_type::NULL_VALUE) return builder->AppendNull().ok();
    switch (column.kind) {
      case Kind::kBool:
        if (type != element_type::BOOL) return false;
        return static_cast<arrow::BooleanBuilder*>(builder)->Append(value.get_bool().value_unsafe()).ok();
      case Kind::kInt8:
      case Kind::kInt16:
      case Kind::kInt32:
      case Kind::kInt64: {
        if (type != element_type::INT64) return false;
        int64_t v = value.get_int64().value_unsafe();
        if (column.kind == Kind::kInt8) return AppendInteger<int8_t>(builder, v);
        if (column.kind == Kind::kInt16) return AppendInteger<int16_t>(builder, v);
        if (column.kind == Kind::kInt32) return AppendInteger<int32_t>(builder, v);
        return AppendInteger<int64_t>(builder, v);
      }
      case Kind::kDouble: {
        // An integer converts to the nearest double, as its text would parse.
        double v;
        if (type == element_type::DOUBLE) {
          v = value.get_double().value_unsafe();
        } else if (type == element_type::INT64) {
          v = static_cast<double>(value.get_int64().value_unsafe());
        } else if (type == element_type::UINT64) {
          v = static_cast<double>(value.get_uint64().value_unsafe());
        } else {
          return false;
        }
        return static_cast<arrow::DoubleBuilder*>(builder)->Append(v).ok();
      }
      case Kind::kString: {
        if (type != element_type::STRING) return false;
        return static_cast<arrow::StringBuilder*>(builder)->Append(value.get_string().value_unsafe()).ok();
      }
      case Kind::kUnsupported:
        return false;
    }
    return false;
  }

  const arrow::Schema& schema_;
  std::vector<Column> columns_;
  simdjson::dom::parser parser_;
  int next_ = 0;
};

// Below this many bytes per thread, a second thread costs more than it saves.
constexpr size_t kBytesPerThread = 4 << 20;

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

Result<PaddedText> ReadPaddedFile(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return Status::IOError("cannot open ", path, ": ", std::strerror(errno));
  PaddedText text;
  std::fseek(file, 0, SEEK_END);
  long size = std::ftell(file);
  std::fseek(file, 0, SEEK_SET);
  if (size < 0) {
    std::fclose(file);
    return Status::IOError("cannot read ", path, ": ", std::strerror(errno));
  }
  text.bytes.reserve(static_cast<size_t>(size) + simdjson::SIMDJSON_PADDING);
  text.bytes.resize(static_cast<size_t>(size));
  size_t read = std::fread(text.bytes.data(), 1, text.bytes.size(), file);
  std::fclose(file);
  if (read != text.bytes.size()) return Status::IOError("cannot read ", path);
  // The padding past size() must be readable; zero it so that it is also defined.
  std::memset(text.bytes.data() + text.bytes.size(), 0,
              text.bytes.capacity() - text.bytes.size());
  return text;
}

Result<std::shared_ptr<arrow::Table>> DecodeJsonLines(const PaddedText& text,
                                                      const std::shared_ptr<arrow::Schema>& schema,
                                                      int threads) {
  if (text.bytes.capacity() < text.bytes.size() + simdjson::SIMDJSON_PADDING) {
    return Status::Invalid("JSON text without padding");
  }
  const char* begin = text.bytes.data();
  const char* end = begin + text.bytes.size();
  size_t parts = std::max<size_t>(1, std::min<size_t>(threads, text.bytes.size() / kBytesPerThread));
  // Cut the text at line ends into `parts` runs of about equal size.
  std::vector<const char*> cuts{begin};
  for (size_t i = 1; i < parts; ++i) {
    const char* at = std::max(cuts.back(), begin + text.bytes.size() * i / parts);
    const char* newline = static_cast<const char*>(std::memchr(at, '\n', end - at));
    cuts.push_back(newline ? newline + 1 : end);
  }
  cuts.push_back(end);
  std::vector<std::shared_ptr<arrow::Table>> tables(parts);
  std::vector<char> ours(parts, 0);
  auto decode = [&](int i) -> Status {
    RangeDecoder decoder(*schema);
    if (!decoder.Decode(cuts[i], cuts[i + 1])) return Status::OK();
    ARROW_ASSIGN_OR_RAISE(tables[i], decoder.Finish());
    ours[i] = 1;
    return Status::OK();
  };
  if (parts == 1) {
    ARROW_RETURN_NOT_OK(decode(0));
  } else {
    ARROW_RETURN_NOT_OK(arrow::internal::ParallelFor(static_cast<int>(parts), decode));
  }
  for (char ok : ours) {
    if (!ok) return nullptr;
  }
  if (tables.size() == 1) return tables[0];
  return arrow::ConcatenateTables(tables);
}

}  // namespace ember::io
