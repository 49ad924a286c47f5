#include "ember/common/row_keys.h"

#include <cstring>

#include <arrow/api.h>

namespace ember {

using arrow::Result;
using arrow::Status;

namespace {

// Feeds each row's bytes for `array` to sink.Put(row, data, size): a presence byte, then the
// value's bytes. Rows whose `mask` byte is 0 (a NULL struct above) get nothing.
template <typename Sink>
Status VisitKeyBytes(const arrow::Array& array, const uint8_t* mask, Sink& sink) {
  const int64_t n = array.length();
  auto wanted = [&](int64_t i) { return mask == nullptr || mask[i] != 0; };
  for (int64_t i = 0; i < n; ++i) {
    if (!wanted(i)) continue;
    const char present = array.IsNull(i) ? '\0' : '\1';
    sink.Put(i, &present, 1);
  }
  const arrow::DataType& type = *array.type();
  switch (type.id()) {
    case arrow::Type::BOOL: {
      const auto& values = static_cast<const arrow::BooleanArray&>(array);
      for (int64_t i = 0; i < n; ++i) {
        if (!wanted(i) || !values.IsValid(i)) continue;
        const char value = values.Value(i) ? '\1' : '\0';
        sink.Put(i, &value, 1);
      }
      return Status::OK();
    }
    case arrow::Type::STRING:
    case arrow::Type::BINARY: {
      const auto& values = static_cast<const arrow::BinaryArray&>(array);
      for (int64_t i = 0; i < n; ++i) {
        if (!wanted(i) || !values.IsValid(i)) continue;
        std::string_view v = values.GetView(i);
        uint32_t size = static_cast<uint32_t>(v.size());
        sink.Put(i, &size, sizeof(size));
        sink.Put(i, v.data(), v.size());
      }
      return Status::OK();
    }
    case arrow::Type::STRUCT: {
      // Fields of a NULL struct are undefined: they add nothing to its row.
      const auto& values = static_cast<const arrow::StructArray&>(array);
      std::vector<uint8_t> valid(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) valid[static_cast<size_t>(i)] = wanted(i) && values.IsValid(i);
      for (int f = 0; f < values.num_fields(); ++f) {
        ARROW_RETURN_NOT_OK(VisitKeyBytes(*values.field(f), valid.data(), sink));
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
    if (wanted(i) && array.IsValid(i)) sink.Put(i, data + i * width, static_cast<size_t>(width));
  }
  return Status::OK();
}

// Calls VisitKeyBytes for the first `num_keys` columns, chunk by chunk, rows numbered from 0.
template <typename Sink>
Status VisitKeys(const arrow::Table& table, int num_keys, Sink& sink) {
  for (int c = 0; c < num_keys; ++c) {
    int64_t row = 0;
    for (const auto& chunk : table.column(c)->chunks()) {
      sink.base = row;
      ARROW_RETURN_NOT_OK(VisitKeyBytes(*chunk, nullptr, sink));
      row += chunk->length();
    }
  }
  return Status::OK();
}

// The first pass adds each row's size to the offset after it; the second writes each row's
// bytes at its offset, moving that offset to the row's end.
struct SizeSink {
  int64_t* offsets;
  int64_t base = 0;
  void Put(int64_t row, const void*, size_t size) { offsets[base + row + 1] += static_cast<int64_t>(size); }
};

struct WriteSink {
  char* bytes;
  int64_t* offsets;
  int64_t base = 0;
  void Put(int64_t row, const void* data, size_t size) {
    int64_t& at = offsets[base + row];
    std::memcpy(bytes + at, data, size);
    at += static_cast<int64_t>(size);
  }
};

struct HashSink {
  uint64_t* hashes;
  int64_t base = 0;
  void Put(int64_t row, const void* data, size_t size) {
    uint64_t hash = hashes[base + row];
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < size; ++i) hash = (hash ^ bytes[i]) * kFnvPrime;
    hashes[base + row] = hash;
  }
};

}  // namespace

Result<EncodedKeys> EncodeKeys(const arrow::Table& table, int num_keys) {
  const auto n = static_cast<size_t>(table.num_rows());
  std::vector<int64_t> offsets(n + 1, 0);
  SizeSink sizes{offsets.data()};
  ARROW_RETURN_NOT_OK(VisitKeys(table, num_keys, sizes));
  for (size_t i = 0; i < n; ++i) offsets[i + 1] += offsets[i];
  std::string bytes(static_cast<size_t>(offsets[n]), '\0');
  WriteSink write{bytes.data(), offsets.data()};
  ARROW_RETURN_NOT_OK(VisitKeys(table, num_keys, write));
  // Each row's offset is now its end, the next row's start.
  for (size_t i = n; i > 0; --i) offsets[i] = offsets[i - 1];
  offsets[0] = 0;
  return EncodedKeys(std::move(bytes), std::move(offsets));
}

uint64_t HashKey(std::string_view key) {
  uint64_t hash = kFnvOffset;
  for (unsigned char c : key) hash = (hash ^ c) * kFnvPrime;
  return hash;
}

Result<std::vector<uint64_t>> HashKeys(const arrow::Table& table, int num_keys) {
  std::vector<uint64_t> hashes(static_cast<size_t>(table.num_rows()), kFnvOffset);
  HashSink sink{hashes.data()};
  ARROW_RETURN_NOT_OK(VisitKeys(table, num_keys, sink));
  return hashes;
}

}  // namespace ember
