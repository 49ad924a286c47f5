#include "ember/exec/row_keys.h"

#include <arrow/api.h>

namespace ember::exec {

using arrow::Result;
using arrow::Status;

namespace {

// Appends each row's value of `array` to keys[row]: a presence byte, then the value's bytes.
Status AppendColumn(const arrow::Array& array, std::string* keys) {
  const int64_t n = array.length();
  for (int64_t i = 0; i < n; ++i) keys[i].push_back(array.IsNull(i) ? '\0' : '\1');
  const arrow::DataType& type = *array.type();
  switch (type.id()) {
    case arrow::Type::BOOL: {
      const auto& values = static_cast<const arrow::BooleanArray&>(array);
      for (int64_t i = 0; i < n; ++i) {
        if (values.IsValid(i)) keys[i].push_back(values.Value(i) ? '\1' : '\0');
      }
      return Status::OK();
    }
    case arrow::Type::STRING:
    case arrow::Type::BINARY: {
      const auto& values = static_cast<const arrow::BinaryArray&>(array);
      for (int64_t i = 0; i < n; ++i) {
        if (!values.IsValid(i)) continue;
        std::string_view v = values.GetView(i);
        uint32_t size = static_cast<uint32_t>(v.size());
        keys[i].append(reinterpret_cast<const char*>(&size), sizeof(size));
        keys[i].append(v);
      }
      return Status::OK();
    }
    case arrow::Type::STRUCT: {
      // Fields of a NULL struct are undefined: encode them aside and keep them for valid rows.
      const auto& values = static_cast<const arrow::StructArray&>(array);
      std::vector<std::string> fields(static_cast<size_t>(n));
      for (int f = 0; f < values.num_fields(); ++f) {
        ARROW_RETURN_NOT_OK(AppendColumn(*values.field(f), fields.data()));
      }
      for (int64_t i = 0; i < n; ++i) {
        if (values.IsValid(i)) keys[i] += fields[static_cast<size_t>(i)];
      }
      return Status::OK();
    }
    default:
      break;
  }
  if (!arrow::is_fixed_width(type.id()) || type.id() == arrow::Type::NA) {
    return Status::NotImplemented("state keys of type ", type.ToString());
  }
  const int width = type.byte_width();
  const auto* data = array.data()->GetValues<char>(1, 0) + array.offset() * width;
  for (int64_t i = 0; i < n; ++i) {
    if (array.IsValid(i)) keys[i].append(data + i * width, static_cast<size_t>(width));
  }
  return Status::OK();
}

}  // namespace

Result<std::vector<std::string>> EncodeKeys(const arrow::Table& table, int num_keys) {
  std::vector<std::string> keys(static_cast<size_t>(table.num_rows()));
  for (int c = 0; c < num_keys; ++c) {
    int64_t row = 0;
    for (const auto& chunk : table.column(c)->chunks()) {
      ARROW_RETURN_NOT_OK(AppendColumn(*chunk, keys.data() + row));
      row += chunk->length();
    }
  }
  return keys;
}

}  // namespace ember::exec
