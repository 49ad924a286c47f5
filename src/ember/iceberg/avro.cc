// Avro 1.11 specification: binary encoding, schema JSON, object container files.
#include "ember/iceberg/avro.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>
#include <random>
#include <set>

#include <nlohmann/json.hpp>
// Declares next_in as const, so input need not be cast to a mutable pointer.
#define ZLIB_CONST
#include <zlib.h>

namespace ember::iceberg::avro {

using arrow::Result;
using arrow::Status;
using nlohmann::json;

static_assert(std::endian::native == std::endian::little,
              "Avro floats are little-endian; a big-endian host needs byte swaps");

namespace {

constexpr std::string_view kMagic("Obj\x01", 4);
constexpr size_t kSyncSize = 16;
constexpr int64_t kRecordsPerBlock = 100;
constexpr size_t kBytesPerBlock = 1 << 20;
// Deeper than any real schema; bounds the recursion a hostile file can cause.
constexpr int kMaxDepth = 200;
// Items that take no bytes (nulls, empty records) could otherwise make a tiny file loop forever.
constexpr int64_t kMaxEmptyItems = 1 << 16;
constexpr size_t kMaxInflatedBlock = size_t{1} << 30;

// ---------------------------------------------------------------------------------------------
// Where a value sits, for messages; built on the stack and formatted only when something fails.

struct PathStep {
  const PathStep* parent = nullptr;
  std::string_view name;  // a field name, a map key, or the root's name
  int64_t index = -1;     // array index when >= 0
  bool is_key = false;    // `name` is a map key
};

std::string FormatPath(const PathStep* step) {
  std::vector<const PathStep*> steps;
  for (; step != nullptr; step = step->parent) steps.push_back(step);
  std::string out;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    const PathStep& s = **it;
    if (s.index >= 0) {
      out += "[" + std::to_string(s.index) + "]";
    } else if (s.is_key) {
      out += "[\"" + std::string(s.name) + "\"]";
    } else {
      if (!out.empty()) out += ".";
      out += s.name;
    }
  }
  return out;
}

std::string_view RootName(const Schema& schema) {
  return schema.name().empty() ? schema.type_name() : std::string_view(schema.name());
}

// ---------------------------------------------------------------------------------------------
// Encoding

void PutLong(int64_t v, std::string* out) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out->push_back(static_cast<char>((z & 0x7f) | 0x80));
    z >>= 7;
  }
  out->push_back(static_cast<char>(z));
}

void PutBytes(std::string_view v, std::string* out) {
  PutLong(static_cast<int64_t>(v.size()), out);
  out->append(v);
}

template <typename T>
void PutRaw(T v, std::string* out) {
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));
  out->append(buf, sizeof(T));
}

// Whether `value` has the C++ type that `schema`'s type maps to (without looking inside).
bool KindMatches(const Schema& schema, const Datum& value) {
  switch (schema.type()) {
    case Schema::Type::kNull:
      return value.is<std::monostate>();
    case Schema::Type::kBoolean:
      return value.is<bool>();
    case Schema::Type::kInt:
      return value.is<int32_t>();
    case Schema::Type::kLong:
      return value.is<int64_t>();
    case Schema::Type::kFloat:
      return value.is<float>();
    case Schema::Type::kDouble:
      return value.is<double>();
    case Schema::Type::kString:
    case Schema::Type::kEnum:
      return value.is<std::string>();
    case Schema::Type::kBytes:
    case Schema::Type::kFixed:
      return value.is<Bytes>();
    case Schema::Type::kRecord:
      return value.is<Record>();
    case Schema::Type::kArray:
      return value.is<Array>();
    case Schema::Type::kMap:
      return value.is<Map>();
    case Schema::Type::kUnion:
      return false;
  }
  return false;
}

std::string Describe(const Schema& schema) {
  std::string out(schema.type_name());
  if (schema.type() == Schema::Type::kUnion) {
    out = "union [";
    for (size_t i = 0; i < schema.branches().size(); ++i) {
      if (i > 0) out += ", ";
      const Schema& b = *schema.branches()[i];
      out += b.name().empty() ? std::string(b.type_name()) : b.name();
    }
    out += "]";
  } else if (!schema.name().empty()) {
    out += " " + schema.name();
  }
  return out;
}

Status Mismatch(const Schema& schema, const Datum& value, const PathStep* path) {
  return Status::Invalid(FormatPath(path), " expects ", Describe(schema), " but the value is ",
                         value.type_name());
}

Status Encode(const Schema& schema, const Datum& value, const PathStep* path, std::string* out) {
  if (schema.type() == Schema::Type::kUnion) {
    Status first_error;
    for (size_t i = 0; i < schema.branches().size(); ++i) {
      const Schema& branch = *schema.branches()[i];
      if (!KindMatches(branch, value)) continue;
      size_t mark = out->size();
      PutLong(static_cast<int64_t>(i), out);
      Status st = Encode(branch, value, path, out);
      if (st.ok()) return st;
      out->resize(mark);
      if (first_error.ok()) first_error = st;
    }
    return first_error.ok() ? Mismatch(schema, value, path) : first_error;
  }
  if (!KindMatches(schema, value)) return Mismatch(schema, value, path);
  switch (schema.type()) {
    case Schema::Type::kNull:
      return Status::OK();
    case Schema::Type::kBoolean:
      out->push_back(value.as<bool>() ? 1 : 0);
      return Status::OK();
    case Schema::Type::kInt:
      PutLong(value.as<int32_t>(), out);
      return Status::OK();
    case Schema::Type::kLong:
      PutLong(value.as<int64_t>(), out);
      return Status::OK();
    case Schema::Type::kFloat:
      PutRaw(value.as<float>(), out);
      return Status::OK();
    case Schema::Type::kDouble:
      PutRaw(value.as<double>(), out);
      return Status::OK();
    case Schema::Type::kString:
      PutBytes(value.as<std::string>(), out);
      return Status::OK();
    case Schema::Type::kBytes:
      PutBytes(value.as<Bytes>().data, out);
      return Status::OK();
    case Schema::Type::kFixed: {
      const std::string& data = value.as<Bytes>().data;
      if (static_cast<int64_t>(data.size()) != schema.fixed_size()) {
        return Status::Invalid(FormatPath(path), " expects ", Describe(schema), " of ",
                               schema.fixed_size(), " bytes but the value has ", data.size());
      }
      out->append(data);
      return Status::OK();
    }
    case Schema::Type::kEnum: {
      const auto& symbols = schema.symbols();
      auto it = std::find(symbols.begin(), symbols.end(), value.as<std::string>());
      if (it == symbols.end()) {
        return Status::Invalid(FormatPath(path), " expects a symbol of ", Describe(schema),
                               " but the value is '", value.as<std::string>(), "'");
      }
      PutLong(it - symbols.begin(), out);
      return Status::OK();
    }
    case Schema::Type::kRecord: {
      const auto& fields = value.as<Record>().fields;
      if (fields.size() != schema.fields().size()) {
        return Status::Invalid(FormatPath(path), " expects ", Describe(schema), " with ",
                               schema.fields().size(), " fields but the value has ", fields.size());
      }
      for (size_t i = 0; i < fields.size(); ++i) {
        PathStep step{path, schema.fields()[i].name};
        ARROW_RETURN_NOT_OK(Encode(*schema.fields()[i].schema, fields[i], &step, out));
      }
      return Status::OK();
    }
    case Schema::Type::kArray: {
      const auto& items = value.as<Array>().items;
      if (!items.empty()) {
        PutLong(static_cast<int64_t>(items.size()), out);
        for (size_t i = 0; i < items.size(); ++i) {
          PathStep step{path, {}, static_cast<int64_t>(i)};
          ARROW_RETURN_NOT_OK(Encode(schema.items(), items[i], &step, out));
        }
      }
      PutLong(0, out);
      return Status::OK();
    }
    case Schema::Type::kMap: {
      const auto& entries = value.as<Map>().entries;
      if (!entries.empty()) {
        PutLong(static_cast<int64_t>(entries.size()), out);
        for (const auto& [key, item] : entries) {
          PathStep step{path, key, -1, /*is_key=*/true};
          PutBytes(key, out);
          ARROW_RETURN_NOT_OK(Encode(schema.values(), item, &step, out));
        }
      }
      PutLong(0, out);
      return Status::OK();
    }
    case Schema::Type::kUnion:
      break;
  }
  return Status::UnknownError("Avro: unhandled schema type");
}

// ---------------------------------------------------------------------------------------------
// Decoding

// A cursor over encoded bytes. `file_offset` is where `data` starts in the file, or -1 when the
// bytes are an inflated block, whose offsets are then reported relative to `where`.
class Decoder {
 public:
  Decoder(std::string_view data, int64_t file_offset, std::string where = "")
      : data_(data), file_offset_(file_offset), where_(std::move(where)) {}

  size_t pos() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }
  bool AtEnd() const { return pos_ == data_.size(); }

  std::string Offset(size_t at) const {
    if (file_offset_ >= 0) return "byte offset " + std::to_string(file_offset_ + at);
    return "byte offset " + std::to_string(at) + " of " + where_;
  }
  Status Fail(const std::string& problem, size_t at, const PathStep* path = nullptr) const {
    if (path == nullptr) return Status::Invalid("Avro: ", problem, " at ", Offset(at));
    return Status::Invalid("Avro: ", problem, " at ", Offset(at), " (reading ", FormatPath(path),
                           ")");
  }

  Result<int64_t> ReadLong() {
    size_t start = pos_;
    uint64_t z = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return Fail("truncated varint", start);
      auto byte = static_cast<uint8_t>(data_[pos_++]);
      // The tenth byte holds bit 63 only.
      if (shift == 63 && byte > 1) return Fail("varint overflows 64 bits", start);
      z |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
      }
    }
    return Fail("varint longer than 10 bytes", start);
  }

  Result<int32_t> ReadInt() {
    size_t start = pos_;
    ARROW_ASSIGN_OR_RAISE(int64_t v, ReadLong());
    if (v < INT32_MIN || v > INT32_MAX) return Fail("int varint out of 32-bit range", start);
    return static_cast<int32_t>(v);
  }

  Result<std::string_view> ReadFixed(size_t n) {
    if (remaining() < n) {
      return Fail("truncated data (" + std::to_string(n) + " bytes needed, " +
                      std::to_string(remaining()) + " left)",
                  pos_);
    }
    std::string_view out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }

  Result<std::string_view> ReadBytes() {
    size_t start = pos_;
    ARROW_ASSIGN_OR_RAISE(int64_t n, ReadLong());
    if (n < 0) return Fail("negative length " + std::to_string(n), start);
    if (static_cast<uint64_t>(n) > remaining()) {
      return Fail("length " + std::to_string(n) + " runs past the end (" +
                      std::to_string(remaining()) + " bytes left)",
                  start);
    }
    return ReadFixed(static_cast<size_t>(n));
  }

  // The item count of the next array or map block: 0 ends the value; a negative count is
  // followed by the block's byte size, which only skipping readers need.
  Result<int64_t> ReadBlockCount() {
    size_t start = pos_;
    ARROW_ASSIGN_OR_RAISE(int64_t count, ReadLong());
    if (count < 0) {
      if (count == INT64_MIN) return Fail("invalid block count", start);
      count = -count;
      size_t size_at = pos_;
      ARROW_ASSIGN_OR_RAISE(int64_t size, ReadLong());
      if (size < 0) return Fail("negative block size", size_at);
    }
    return count;
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
  int64_t file_offset_;
  std::string where_;
};

// Adds the path of the value being read to a low-level decoding error.
template <typename T>
Result<T> At(Result<T> result, const PathStep* path) {
  if (result.ok() || path == nullptr) return result;
  return Status::Invalid(result.status().message(), " (reading ", FormatPath(path), ")");
}

Result<Datum> Decode(const Schema& schema, Decoder* in, const PathStep* path, int depth);

// Reads the blocks of an array or map, calling `read_item(index)` for each item.
template <typename ReadItem>
Status DecodeBlocks(Decoder* in, const PathStep* path, ReadItem read_item) {
  int64_t index = 0;
  int64_t empty_items = 0;
  while (true) {
    ARROW_ASSIGN_OR_RAISE(int64_t count, At(in->ReadBlockCount(), path));
    if (count == 0) return Status::OK();
    for (int64_t i = 0; i < count; ++i, ++index) {
      size_t before = in->pos();
      ARROW_RETURN_NOT_OK(read_item(index));
      if (in->pos() == before && ++empty_items > kMaxEmptyItems) {
        return in->Fail("too many empty items", before, path);
      }
    }
  }
}

Result<Datum> Decode(const Schema& schema, Decoder* in, const PathStep* path, int depth) {
  if (depth > kMaxDepth) {
    return in->Fail("values nested deeper than " + std::to_string(kMaxDepth), in->pos(), path);
  }
  switch (schema.type()) {
    case Schema::Type::kNull:
      return Datum();
    case Schema::Type::kBoolean: {
      size_t at = in->pos();
      ARROW_ASSIGN_OR_RAISE(auto b, At(in->ReadFixed(1), path));
      if (b[0] != 0 && b[0] != 1) {
        return in->Fail("boolean byte is neither 0 nor 1", at, path);
      }
      return Datum(b[0] == 1);
    }
    case Schema::Type::kInt: {
      ARROW_ASSIGN_OR_RAISE(int32_t v, At(in->ReadInt(), path));
      return Datum(v);
    }
    case Schema::Type::kLong: {
      ARROW_ASSIGN_OR_RAISE(int64_t v, At(in->ReadLong(), path));
      return Datum(v);
    }
    case Schema::Type::kFloat: {
      ARROW_ASSIGN_OR_RAISE(auto b, At(in->ReadFixed(4), path));
      float v;
      std::memcpy(&v, b.data(), 4);
      return Datum(v);
    }
    case Schema::Type::kDouble: {
      ARROW_ASSIGN_OR_RAISE(auto b, At(in->ReadFixed(8), path));
      double v;
      std::memcpy(&v, b.data(), 8);
      return Datum(v);
    }
    case Schema::Type::kString: {
      ARROW_ASSIGN_OR_RAISE(auto b, At(in->ReadBytes(), path));
      return Datum(std::string(b));
    }
    case Schema::Type::kBytes: {
      ARROW_ASSIGN_OR_RAISE(auto b, At(in->ReadBytes(), path));
      return Datum(Bytes{std::string(b)});
    }
    case Schema::Type::kFixed: {
      ARROW_ASSIGN_OR_RAISE(auto b,
                            At(in->ReadFixed(static_cast<size_t>(schema.fixed_size())), path));
      return Datum(Bytes{std::string(b)});
    }
    case Schema::Type::kEnum: {
      size_t at = in->pos();
      ARROW_ASSIGN_OR_RAISE(int32_t i, At(in->ReadInt(), path));
      if (i < 0 || static_cast<size_t>(i) >= schema.symbols().size()) {
        return in->Fail("enum index " + std::to_string(i) + " out of range", at, path);
      }
      return Datum(schema.symbols()[static_cast<size_t>(i)]);
    }
    case Schema::Type::kUnion: {
      size_t at = in->pos();
      ARROW_ASSIGN_OR_RAISE(int64_t i, At(in->ReadLong(), path));
      if (i < 0 || static_cast<uint64_t>(i) >= schema.branches().size()) {
        return in->Fail("union branch " + std::to_string(i) + " out of range", at, path);
      }
      return Decode(*schema.branches()[static_cast<size_t>(i)], in, path, depth + 1);
    }
    case Schema::Type::kRecord: {
      Record record;
      record.fields.reserve(schema.fields().size());
      for (const auto& field : schema.fields()) {
        PathStep step{path, field.name};
        ARROW_ASSIGN_OR_RAISE(Datum v, Decode(*field.schema, in, &step, depth + 1));
        record.fields.push_back(std::move(v));
      }
      return Datum(std::move(record));
    }
    case Schema::Type::kArray: {
      Array array;
      ARROW_RETURN_NOT_OK(DecodeBlocks(in, path, [&](int64_t index) -> Status {
        PathStep step{path, {}, index};
        ARROW_ASSIGN_OR_RAISE(Datum v, Decode(schema.items(), in, &step, depth + 1));
        array.items.push_back(std::move(v));
        return Status::OK();
      }));
      return Datum(std::move(array));
    }
    case Schema::Type::kMap: {
      Map map;
      ARROW_RETURN_NOT_OK(DecodeBlocks(in, path, [&](int64_t) -> Status {
        ARROW_ASSIGN_OR_RAISE(auto key, At(in->ReadBytes(), path));
        PathStep step{path, key, -1, /*is_key=*/true};
        ARROW_ASSIGN_OR_RAISE(Datum v, Decode(schema.values(), in, &step, depth + 1));
        map.entries.emplace_back(std::string(key), std::move(v));
        return Status::OK();
      }));
      return Datum(std::move(map));
    }
  }
  return Status::UnknownError("Avro: unhandled schema type");
}

// ---------------------------------------------------------------------------------------------
// Codecs

Result<std::string> Deflate(std::string_view in) {
  if (in.size() > UINT_MAX) return Status::CapacityError("Avro: block too large to deflate");
  z_stream zs{};
  // Negative window bits: raw deflate, no zlib header or checksum, as Avro's spec requires.
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::UnknownError("Avro: zlib deflateInit2 failed");
  }
  std::string out(deflateBound(&zs, static_cast<uLong>(in.size())), '\0');
  zs.next_in = reinterpret_cast<const Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Status::UnknownError("Avro: zlib deflate failed: ", rc);
  return out;
}

Result<std::string> Inflate(std::string_view in, const std::string& where) {
  z_stream zs{};
  if (inflateInit2(&zs, -15) != Z_OK) return Status::UnknownError("Avro: zlib inflateInit2 failed");
  std::string out(std::max<size_t>(1024, in.size() * 4), '\0');
  size_t in_pos = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (zs.total_out == out.size()) {
      if (out.size() >= kMaxInflatedBlock) {
        inflateEnd(&zs);
        return Status::Invalid("Avro: ", where, " inflates to more than ", kMaxInflatedBlock,
                               " bytes");
      }
      out.resize(out.size() * 2);
    }
    if (zs.avail_in == 0 && in_pos < in.size()) {
      size_t n = std::min<size_t>(in.size() - in_pos, UINT_MAX);
      zs.next_in = reinterpret_cast<const Bytef*>(in.data() + in_pos);
      zs.avail_in = static_cast<uInt>(n);
      in_pos += n;
    }
    size_t room = std::min<size_t>(out.size() - zs.total_out, UINT_MAX);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + zs.total_out);
    zs.avail_out = static_cast<uInt>(room);
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && in_pos == in.size() && zs.avail_out > 0) {
      inflateEnd(&zs);
      return Status::Invalid("Avro: ", where, " ends inside its deflate stream");
    }
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
      std::string msg = zs.msg != nullptr ? zs.msg : "error " + std::to_string(rc);
      inflateEnd(&zs);
      return Status::Invalid("Avro: ", where, " is not valid deflate data: ", msg);
    }
  }
  out.resize(zs.total_out);
  inflateEnd(&zs);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Names

bool IsAvroName(std::string_view name) {
  if (name.empty()) return false;
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!alpha(name[0])) return false;
  return std::all_of(name.begin() + 1, name.end(),
                     [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

bool IsAvroFullName(std::string_view name) {
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    if (!IsAvroName(name.substr(start, dot == std::string_view::npos ? dot : dot - start))) {
      return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// Java's and avro-c's readers refuse names outside Avro's syntax, so the writer does too.
Status CheckNames(const Schema& schema, std::set<const Schema*>* seen) {
  if (!seen->insert(&schema).second) return Status::OK();
  if (!schema.name().empty() && !IsAvroFullName(schema.name())) {
    return Status::Invalid("Avro: type name '", schema.name(),
                           "' is not a valid Avro name ([A-Za-z_][A-Za-z0-9_]* parts)");
  }
  for (const auto& field : schema.fields()) {
    if (!IsAvroName(field.name)) {
      return Status::Invalid("Avro: field name '", field.name, "' in ", schema.name(),
                             " is not a valid Avro name ([A-Za-z_][A-Za-z0-9_]*)");
    }
    ARROW_RETURN_NOT_OK(CheckNames(*field.schema, seen));
  }
  for (const auto& symbol : schema.symbols()) {
    if (!IsAvroName(symbol)) {
      return Status::Invalid("Avro: enum symbol '", symbol, "' in ", schema.name(),
                             " is not a valid Avro name");
    }
  }
  if (schema.type() == Schema::Type::kArray || schema.type() == Schema::Type::kMap) {
    ARROW_RETURN_NOT_OK(CheckNames(schema.items(), seen));
  }
  for (const Schema* branch : schema.branches()) ARROW_RETURN_NOT_OK(CheckNames(*branch, seen));
  return Status::OK();
}

std::string HexByte(uint8_t b) {
  const char* digits = "0123456789abcdef";
  return {digits[b >> 4], digits[b & 15]};
}

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (static_cast<uint8_t>(c) < 0x20) {
      *out += "\\u00" + HexByte(static_cast<uint8_t>(c));
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Datum

bool Record::operator==(const Record& other) const { return fields == other.fields; }
bool Array::operator==(const Array& other) const { return items == other.items; }
bool Map::operator==(const Map& other) const { return entries == other.entries; }

std::string_view Datum::type_name() const {
  static constexpr std::string_view kNames[] = {"null",   "boolean", "int",    "long",
                                                "float",  "double",  "string", "bytes",
                                                "record", "array",   "map"};
  return kNames[value.index()];
}

std::string Datum::ToString() const {
  struct Printer {
    std::string* out;
    void operator()(std::monostate) const { *out += "null"; }
    void operator()(bool v) const { *out += v ? "true" : "false"; }
    void operator()(int32_t v) const { *out += std::to_string(v); }
    void operator()(int64_t v) const { *out += std::to_string(v); }
    void operator()(float v) const { *out += std::to_string(v); }
    void operator()(double v) const { *out += std::to_string(v); }
    void operator()(const std::string& v) const { AppendJsonString(v, out); }
    void operator()(const Bytes& v) const {
      *out += "0x";
      for (char c : v.data) *out += HexByte(static_cast<uint8_t>(c));
    }
    void operator()(const Record& v) const {
      *out += "{";
      for (size_t i = 0; i < v.fields.size(); ++i) {
        if (i > 0) *out += ", ";
        *out += v.fields[i].ToString();
      }
      *out += "}";
    }
    void operator()(const Array& v) const {
      *out += "[";
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i > 0) *out += ", ";
        *out += v.items[i].ToString();
      }
      *out += "]";
    }
    void operator()(const Map& v) const {
      *out += "{";
      for (size_t i = 0; i < v.entries.size(); ++i) {
        if (i > 0) *out += ", ";
        AppendJsonString(v.entries[i].first, out);
        *out += ": " + v.entries[i].second.ToString();
      }
      *out += "}";
    }
  };
  std::string out;
  std::visit(Printer{&out}, value);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Schema

std::string_view Schema::type_name() const {
  static constexpr std::string_view kNames[] = {"null",   "boolean", "int",    "long",   "float",
                                                "double", "bytes",   "string", "record", "enum",
                                                "array",  "map",     "union",  "fixed"};
  return kNames[static_cast<int>(type_)];
}

bool Schema::IsNullable() const {
  return type_ == Type::kUnion &&
         std::any_of(branches_.begin(), branches_.end(),
                     [](const Schema* b) { return b->type() == Type::kNull; });
}

const Schema& Schema::NonNull() const {
  if (type_ != Type::kUnion || branches_.size() != 2) return *this;
  if (branches_[0]->type() == Type::kNull) return *branches_[1];
  if (branches_[1]->type() == Type::kNull) return *branches_[0];
  return *this;
}

int Schema::FieldIndexById(int field_id) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].field_id == field_id) return static_cast<int>(i);
  }
  return -1;
}

const Schema::Field* Schema::FieldWithId(int field_id) const {
  int index = FieldIndexById(field_id);
  return index < 0 ? nullptr : &fields_[static_cast<size_t>(index)];
}

int Schema::FieldIndex(std::string_view name) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// Builds the node tree; named types are registered under their full names so later references
// (and a record's own fields, for recursive types) resolve to the same node.
class SchemaParser {
 public:
  Result<const Schema*> Parse(const json& j, const std::string& ns, int depth) {
    if (depth > kMaxDepth) return Fail("nested deeper than " + std::to_string(kMaxDepth));
    if (j.is_string()) return ParseName(j.get<std::string>(), ns);
    if (j.is_array()) return ParseUnion(j, ns, depth);
    if (!j.is_object())
      return Fail("a type must be a name, an object or an array, not " + j.dump());
    auto type_it = j.find("type");
    if (type_it == j.end()) return Fail("object without \"type\": " + Truncated(j));
    // Lenient: {"type": {...}} and {"type": [...]} wrap a type, as some writers emit.
    if (!type_it->is_string()) return Parse(*type_it, ns, depth + 1);
    const std::string type = type_it->get<std::string>();
    if (auto primitive = PrimitiveType(type)) {
      Schema* node = NewNode(*primitive);
      ARROW_RETURN_NOT_OK(SetAttributes(j, node));
      return node;
    }
    if (type == "record" || type == "error") return ParseRecord(j, ns, depth);
    if (type == "enum") return ParseEnum(j, ns);
    if (type == "fixed") return ParseFixed(j, ns);
    if (type == "array" || type == "map") {
      bool is_array = type == "array";
      auto child = j.find(is_array ? "items" : "values");
      if (child == j.end()) {
        return Fail(std::string(type) + " without \"" + (is_array ? "items" : "values") + "\"");
      }
      Schema* node = NewNode(is_array ? Schema::Type::kArray : Schema::Type::kMap);
      ARROW_ASSIGN_OR_RAISE(node->items_, Parse(*child, ns, depth + 1));
      ARROW_RETURN_NOT_OK(SetAttributes(j, node));
      return node;
    }
    return ParseName(type, ns);
  }

  std::vector<std::unique_ptr<Schema>> nodes;

 private:
  static Status Fail(const std::string& problem) {
    return Status::Invalid("Avro schema: ", problem);
  }

  static std::string Truncated(const json& j) {
    std::string text = j.dump();
    return text.size() > 80 ? text.substr(0, 77) + "..." : text;
  }

  static std::optional<Schema::Type> PrimitiveType(const std::string& name) {
    static const std::map<std::string, Schema::Type, std::less<>> kPrimitives = {
        {"null", Schema::Type::kNull},   {"boolean", Schema::Type::kBoolean},
        {"int", Schema::Type::kInt},     {"long", Schema::Type::kLong},
        {"float", Schema::Type::kFloat}, {"double", Schema::Type::kDouble},
        {"bytes", Schema::Type::kBytes}, {"string", Schema::Type::kString}};
    auto it = kPrimitives.find(name);
    if (it == kPrimitives.end()) return std::nullopt;
    return it->second;
  }

  Schema* NewNode(Schema::Type type) {
    nodes.push_back(std::unique_ptr<Schema>(new Schema(type)));
    return nodes.back().get();
  }

  Result<const Schema*> ParseName(const std::string& name, const std::string& ns) {
    if (auto primitive = PrimitiveType(name)) return NewNode(*primitive);
    if (name.find('.') == std::string::npos && !ns.empty()) {
      auto it = named_.find(ns + "." + name);
      if (it != named_.end()) return it->second;
    }
    auto it = named_.find(name);
    if (it != named_.end()) return it->second;
    return Fail("unknown type '" + name + "'");
  }

  Result<const Schema*> ParseUnion(const json& j, const std::string& ns, int depth) {
    Schema* node = NewNode(Schema::Type::kUnion);
    std::set<std::string> seen;
    for (const auto& branch_json : j) {
      ARROW_ASSIGN_OR_RAISE(const Schema* branch, Parse(branch_json, ns, depth + 1));
      if (branch->type() == Schema::Type::kUnion) return Fail("a union may not hold a union");
      std::string key = branch->name().empty() ? std::string(branch->type_name()) : branch->name();
      if (!seen.insert(key).second) return Fail("union " + j.dump() + " repeats " + key);
      node->branches_.push_back(branch);
    }
    if (node->branches_.empty()) return Fail("empty union");
    return node;
  }

  // Registers a record, enum or fixed under its full name and returns its namespace.
  Result<std::string> Name(const json& j, const std::string& ns, Schema* node) {
    auto name_it = j.find("name");
    if (name_it == j.end() || !name_it->is_string() || name_it->get<std::string>().empty()) {
      return Fail("named type without a \"name\": " + Truncated(j));
    }
    std::string name = name_it->get<std::string>();
    std::string space = ns;
    if (auto dot = name.rfind('.'); dot != std::string::npos) {
      space = name.substr(0, dot);
    } else if (auto ns_it = j.find("namespace"); ns_it != j.end() && ns_it->is_string()) {
      space = ns_it->get<std::string>();
      if (!space.empty()) name = space + "." + name;
    } else if (!space.empty()) {
      name = space + "." + name;
    }
    if (PrimitiveType(name)) return Fail("a named type may not be called '" + name + "'");
    if (!named_.emplace(name, node).second) return Fail("type '" + name + "' is defined twice");
    node->name_ = name;
    return space;
  }

  Result<const Schema*> ParseRecord(const json& j, const std::string& ns, int depth) {
    Schema* node = NewNode(Schema::Type::kRecord);
    ARROW_ASSIGN_OR_RAISE(std::string space, Name(j, ns, node));
    auto fields = j.find("fields");
    if (fields == j.end() || !fields->is_array()) {
      return Fail("record " + node->name_ + " has no \"fields\" array");
    }
    for (const auto& f : *fields) {
      auto name = f.find("name");
      if (!f.is_object() || name == f.end() || !name->is_string()) {
        return Fail("record " + node->name_ + " has a field without a name: " + Truncated(f));
      }
      Schema::Field field;
      field.name = name->get<std::string>();
      if (node->FieldIndex(field.name) >= 0) {
        return Fail("record " + node->name_ + " has two fields named '" + field.name + "'");
      }
      auto type = f.find("type");
      if (type == f.end()) return Fail("field " + node->name_ + "." + field.name + " has no type");
      ARROW_ASSIGN_OR_RAISE(field.schema, Parse(*type, space, depth + 1));
      for (const auto& [key, value] : f.items()) {
        if (key == "name" || key == "type") continue;
        if (key == "default") {
          field.default_json = value.dump();
        } else if (key == "field-id") {
          ARROW_ASSIGN_OR_RAISE(field.field_id, Id(value, node->name_ + "." + field.name));
        } else {
          field.attributes[key] = value.dump();
        }
      }
      node->fields_.push_back(std::move(field));
    }
    ARROW_RETURN_NOT_OK(SetAttributes(j, node));
    return node;
  }

  Result<const Schema*> ParseEnum(const json& j, const std::string& ns) {
    Schema* node = NewNode(Schema::Type::kEnum);
    ARROW_RETURN_NOT_OK(Name(j, ns, node).status());
    auto symbols = j.find("symbols");
    if (symbols == j.end() || !symbols->is_array()) {
      return Fail("enum " + node->name_ + " has no \"symbols\" array");
    }
    std::set<std::string> seen;
    for (const auto& s : *symbols) {
      if (!s.is_string()) return Fail("enum " + node->name_ + " has a symbol that is no string");
      if (!seen.insert(s.get<std::string>()).second) {
        return Fail("enum " + node->name_ + " repeats symbol " + s.dump());
      }
      node->symbols_.push_back(s.get<std::string>());
    }
    ARROW_RETURN_NOT_OK(SetAttributes(j, node));
    return node;
  }

  Result<const Schema*> ParseFixed(const json& j, const std::string& ns) {
    Schema* node = NewNode(Schema::Type::kFixed);
    ARROW_RETURN_NOT_OK(Name(j, ns, node).status());
    auto size = j.find("size");
    if (size == j.end() || !size->is_number_integer() || size->get<int64_t>() < 0 ||
        size->get<int64_t>() > INT32_MAX) {
      return Fail("fixed " + node->name_ + " needs a non-negative integer \"size\"");
    }
    node->fixed_size_ = size->get<int64_t>();
    ARROW_RETURN_NOT_OK(SetAttributes(j, node));
    return node;
  }

  // Java's AvroSchemaUtil accepts ids written as numbers or as strings of digits; so does Ember.
  static Result<std::optional<int>> Id(const json& value, const std::string& where) {
    if (value.is_number_integer()) {
      auto v = value.get<int64_t>();
      if (v >= INT32_MIN && v <= INT32_MAX) return std::optional<int>(static_cast<int>(v));
    } else if (value.is_string()) {
      const std::string s = value.get<std::string>();
      if (!s.empty() && s.size() <= 9 &&
          std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return std::optional<int>(std::stoi(s));
      }
    }
    return Fail("id of " + where + " is not an integer: " + value.dump());
  }

  Status SetAttributes(const json& j, Schema* node) {
    static const std::set<std::string, std::less<>> kStructural = {
        "type", "name", "namespace", "fields", "items", "values", "symbols", "size"};
    for (const auto& [key, value] : j.items()) {
      if (kStructural.count(key) > 0) continue;
      node->attributes_[key] = value.dump();
      if (key == "logicalType" && value.is_string()) node->logical_type_ = value.get<std::string>();
      std::string where = std::string(node->type_name()) + " attribute " + key;
      if (key == "element-id") {
        ARROW_ASSIGN_OR_RAISE(node->element_id_, Id(value, where));
      } else if (key == "key-id") {
        ARROW_ASSIGN_OR_RAISE(node->key_id_, Id(value, where));
      } else if (key == "value-id") {
        ARROW_ASSIGN_OR_RAISE(node->value_id_, Id(value, where));
      }
    }
    return Status::OK();
  }

  std::map<std::string, const Schema*> named_;
};

Result<std::shared_ptr<const Schema>> ParseSchema(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Invalid("Avro schema: not valid JSON: ", text.substr(0, 80));
  // The nodes live together; the returned pointer shares ownership of all of them.
  struct Tree {
    std::vector<std::unique_ptr<Schema>> nodes;
  };
  SchemaParser parser;
  ARROW_ASSIGN_OR_RAISE(const Schema* root, parser.Parse(j, "", 0));
  auto tree = std::make_shared<Tree>();
  tree->nodes = std::move(parser.nodes);
  return std::shared_ptr<const Schema>(tree, root);
}

// ---------------------------------------------------------------------------------------------
// Values and containers

Status EncodeDatum(const Schema& schema, const Datum& value, std::string* out) {
  PathStep root{nullptr, RootName(schema)};
  Status st = Encode(schema, value, &root, out);
  if (!st.ok()) return Status::Invalid("Avro: cannot write ", st.message());
  return st;
}

Result<Datum> DecodeDatum(const Schema& schema, std::string_view bytes) {
  Decoder in(bytes, 0);
  PathStep root{nullptr, RootName(schema)};
  ARROW_ASSIGN_OR_RAISE(Datum value, Decode(schema, &in, &root, 0));
  if (!in.AtEnd())
    return in.Fail(std::to_string(in.remaining()) + " bytes after the value", in.pos());
  return value;
}

Result<std::string> WriteContainer(const std::string& schema_json,
                                   const std::vector<std::pair<std::string, std::string>>& metadata,
                                   const std::vector<Datum>& records, Codec codec) {
  ARROW_ASSIGN_OR_RAISE(auto schema, ParseSchema(schema_json));
  std::set<const Schema*> seen;
  ARROW_RETURN_NOT_OK(CheckNames(*schema, &seen));
  std::set<std::string> keys;
  for (const auto& [key, value] : metadata) {
    if (key.rfind("avro.", 0) == 0) {
      return Status::Invalid("Avro: metadata key '", key, "' is reserved for Avro itself");
    }
    if (!keys.insert(key).second) return Status::Invalid("Avro: metadata key '", key, "' repeats");
  }

  std::string out(kMagic);
  PutLong(static_cast<int64_t>(metadata.size() + 2), &out);
  PutBytes("avro.schema", &out);
  PutBytes(schema_json, &out);
  PutBytes("avro.codec", &out);
  PutBytes(codec == Codec::kDeflate ? "deflate" : "null", &out);
  for (const auto& [key, value] : metadata) {
    PutBytes(key, &out);
    PutBytes(value, &out);
  }
  PutLong(0, &out);

  std::string sync(kSyncSize, '\0');
  std::random_device random;
  for (size_t i = 0; i < kSyncSize; i += 4) {
    uint32_t r = random();
    std::memcpy(sync.data() + i, &r, 4);
  }
  out += sync;

  std::string block;
  int64_t count = 0;
  auto flush = [&]() -> Status {
    std::string deflated;
    if (codec == Codec::kDeflate) {
      ARROW_ASSIGN_OR_RAISE(deflated, Deflate(block));
    }
    const std::string& data = codec == Codec::kDeflate ? deflated : block;
    PutLong(count, &out);
    PutLong(static_cast<int64_t>(data.size()), &out);
    out += data;
    out += sync;
    block.clear();
    count = 0;
    return Status::OK();
  };
  for (size_t i = 0; i < records.size(); ++i) {
    PathStep root{nullptr, RootName(*schema)};
    Status st = Encode(*schema, records[i], &root, &block);
    if (!st.ok()) return Status::Invalid("Avro: cannot write record ", i, ": ", st.message());
    if (++count >= kRecordsPerBlock || block.size() >= kBytesPerBlock) ARROW_RETURN_NOT_OK(flush());
  }
  if (count > 0) ARROW_RETURN_NOT_OK(flush());
  return out;
}

Result<Container> ReadContainer(std::string_view bytes) {
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    return Status::Invalid("Avro: not an object container file: bad magic at byte offset 0 ",
                           "(expected 'Obj' 0x01)");
  }
  Container result;
  Decoder header(bytes.substr(kMagic.size()), static_cast<int64_t>(kMagic.size()));
  PathStep meta_path{nullptr, "file metadata"};
  ARROW_RETURN_NOT_OK(DecodeBlocks(&header, &meta_path, [&](int64_t) -> Status {
    ARROW_ASSIGN_OR_RAISE(auto key, At(header.ReadBytes(), &meta_path));
    ARROW_ASSIGN_OR_RAISE(auto value, At(header.ReadBytes(), &meta_path));
    result.metadata[std::string(key)] = std::string(value);
    return Status::OK();
  }));
  auto schema_it = result.metadata.find("avro.schema");
  if (schema_it == result.metadata.end()) {
    return Status::Invalid("Avro: the file metadata has no avro.schema");
  }
  result.schema_json = schema_it->second;
  auto parsed = ParseSchema(result.schema_json);
  if (!parsed.ok()) {
    return Status::Invalid("Avro: avro.schema in the file header: ", parsed.status().message());
  }
  result.schema = *parsed;
  std::string codec = "null";
  if (auto it = result.metadata.find("avro.codec"); it != result.metadata.end()) codec = it->second;
  if (codec != "null" && codec != "deflate") {
    return Status::NotImplemented("Avro: codec '", codec,
                                  "' is not supported (Ember reads null and deflate)");
  }
  ARROW_ASSIGN_OR_RAISE(auto sync, At(header.ReadFixed(kSyncSize), &meta_path));

  size_t pos = kMagic.size() + header.pos();
  for (int64_t block_index = 0; pos < bytes.size(); ++block_index) {
    const size_t block_start = pos;
    Decoder block_header(bytes.substr(pos), static_cast<int64_t>(pos));
    ARROW_ASSIGN_OR_RAISE(int64_t count, At(block_header.ReadLong(), nullptr));
    if (count < 0) return block_header.Fail("negative record count in block header", 0);
    ARROW_ASSIGN_OR_RAISE(auto data, At(block_header.ReadBytes(), nullptr));
    pos += block_header.pos();
    if (bytes.size() - pos < kSyncSize) {
      return Status::Invalid("Avro: truncated sync marker at byte offset ", pos);
    }
    if (bytes.substr(pos, kSyncSize) != sync) {
      return Status::Invalid("Avro: sync marker mismatch at byte offset ", pos,
                             " (after the block at byte offset ", block_start, ")");
    }
    pos += kSyncSize;

    std::string inflated;
    std::string where = "the inflated block at byte offset " + std::to_string(block_start);
    int64_t data_offset = static_cast<int64_t>(pos - kSyncSize - data.size());
    if (codec == "deflate") {
      ARROW_ASSIGN_OR_RAISE(inflated, Inflate(data, where));
      data = inflated;
      data_offset = -1;
    }
    Decoder in(data, data_offset, where);
    PathStep root{nullptr, RootName(*result.schema)};
    int64_t empty_records = 0;
    for (int64_t i = 0; i < count; ++i) {
      size_t before = in.pos();
      ARROW_ASSIGN_OR_RAISE(Datum record, Decode(*result.schema, &in, &root, 0));
      if (in.pos() == before && ++empty_records > kMaxEmptyItems) {
        return in.Fail("too many empty records", before);
      }
      result.records.push_back(std::move(record));
    }
    if (!in.AtEnd()) {
      return in.Fail(std::to_string(in.remaining()) + " bytes left over after " +
                         std::to_string(count) + " records of a block",
                     in.pos());
    }
  }
  return result;
}

const Datum* FieldById(const Schema& record_schema, const Datum& record, int field_id) {
  const Schema& schema = record_schema.NonNull();
  const Record* r = record.get_if<Record>();
  if (schema.type() != Schema::Type::kRecord || r == nullptr ||
      r->fields.size() != schema.fields().size()) {
    return nullptr;
  }
  int index = schema.FieldIndexById(field_id);
  return index < 0 ? nullptr : &r->fields[static_cast<size_t>(index)];
}

const Datum* FieldByName(const Schema& record_schema, const Datum& record, std::string_view name) {
  const Schema& schema = record_schema.NonNull();
  const Record* r = record.get_if<Record>();
  if (schema.type() != Schema::Type::kRecord || r == nullptr ||
      r->fields.size() != schema.fields().size()) {
    return nullptr;
  }
  int index = schema.FieldIndex(name);
  return index < 0 ? nullptr : &r->fields[static_cast<size_t>(index)];
}

}  // namespace ember::iceberg::avro
