// A small Avro implementation for Iceberg's manifests and manifest lists: schemas parsed from JSON,
// generic values (Datum), the binary encoding, and object container files with the "null" and
// "deflate" codecs. Ember has its own because no packaged C++ Avro library keeps the "field-id"
// attributes and the file metadata Iceberg needs (ICEBERG.md section 9).
//
// Reading always uses the writer's schema from the file header; there is no schema resolution.
// Readers of Iceberg files look fields up by Iceberg field id (FieldById), never by name.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <arrow/result.h>
#include <arrow/status.h>

namespace ember::iceberg::avro {

struct Datum;

/// Avro "bytes" or "fixed": raw octets.
struct Bytes {
  std::string data;
  bool operator==(const Bytes& other) const = default;
};

/// A record's field values, in schema order.
struct Record {
  std::vector<Datum> fields;
  bool operator==(const Record& other) const;
};

struct Array {
  std::vector<Datum> items;
  bool operator==(const Array& other) const;
};

/// Avro map entries in file order (keys are strings; duplicates are kept as read).
struct Map {
  std::vector<std::pair<std::string, Datum>> entries;
  bool operator==(const Map& other) const;
};

/// A generic Avro value. Types map one to one: null = monostate, boolean = bool, int = int32_t,
/// long = int64_t, float, double, string and enum (its symbol) = std::string, bytes and fixed =
/// Bytes, record = Record, array = Array, map = Map. A union holds the chosen branch's value; the
/// writer picks the first branch whose type matches. There are no implicit promotions: a "long"
/// field needs an int64_t.
struct Datum {
  using Value = std::variant<std::monostate, bool, int32_t, int64_t, float, double, std::string,
                             Bytes, Record, Array, Map>;
  Value value;

  // Implicit on purpose: Record{{"path", int64_t{5}, nullptr}} reads like the data it builds.
  Datum() = default;
  Datum(std::nullptr_t) {}
  Datum(bool v) : value(v) {}
  Datum(int32_t v) : value(v) {}
  Datum(int64_t v) : value(v) {}
  Datum(float v) : value(v) {}
  Datum(double v) : value(v) {}
  Datum(std::string v) : value(std::move(v)) {}
  Datum(std::string_view v) : value(std::string(v)) {}
  Datum(const char* v) : value(std::string(v)) {}
  Datum(Bytes v) : value(std::move(v)) {}
  Datum(Record v) : value(std::move(v)) {}
  Datum(Array v) : value(std::move(v)) {}
  Datum(Map v) : value(std::move(v)) {}

  static Datum Int(int32_t v) { return Datum(v); }
  static Datum Long(int64_t v) { return Datum(v); }
  static Datum Binary(std::string v) { return Datum(Bytes{std::move(v)}); }

  bool is_null() const { return std::holds_alternative<std::monostate>(value); }
  template <typename T>
  bool is() const {
    return std::holds_alternative<T>(value);
  }
  /// The value as T; throws std::bad_variant_access if it is not a T (a caller's bug).
  template <typename T>
  const T& as() const {
    return std::get<T>(value);
  }
  /// The value as T, or null if it is not a T.
  template <typename T>
  const T* get_if() const {
    return std::get_if<T>(&value);
  }

  /// Avro's name of the held type ("null", "long", "record", ...).
  std::string_view type_name() const;
  /// JSON-like text for messages and tests; bytes print as hex.
  std::string ToString() const;

  bool operator==(const Datum& other) const = default;
};

/// One node of a parsed Avro schema. Nodes are immutable and owned by the tree ParseSchema
/// returns; a named type referenced again (or recursively) is the same node, so child pointers
/// stay valid exactly as long as the root's shared_ptr.
class Schema {
 public:
  enum class Type {
    kNull,
    kBoolean,
    kInt,
    kLong,
    kFloat,
    kDouble,
    kBytes,
    kString,
    kRecord,
    kEnum,
    kArray,
    kMap,
    kUnion,
    kFixed,
  };

  struct Field {
    std::string name;
    const Schema* schema = nullptr;
    std::optional<int> field_id;                    // Iceberg's "field-id"
    std::optional<std::string> default_json;        // "default", as JSON text
    std::map<std::string, std::string> attributes;  // other properties, values as JSON text
  };

  Type type() const { return type_; }
  /// "record", "long", "union", ...
  std::string_view type_name() const;
  /// The full name (namespace.name) of a record, enum or fixed; empty for other types.
  const std::string& name() const { return name_; }
  const std::vector<Field>& fields() const { return fields_; }
  /// Items of an array, values of a map.
  const Schema& items() const { return *items_; }
  const Schema& values() const { return *items_; }
  const std::vector<const Schema*>& branches() const { return branches_; }
  const std::vector<std::string>& symbols() const { return symbols_; }
  int64_t fixed_size() const { return fixed_size_; }
  /// "logicalType" ("map", "timestamp-micros", "decimal", ...), empty if none.
  const std::string& logical_type() const { return logical_type_; }
  std::optional<int> element_id() const { return element_id_; }
  std::optional<int> key_id() const { return key_id_; }
  std::optional<int> value_id() const { return value_id_; }
  /// Properties other than the structural ones (type, name, namespace, fields, items, values,
  /// symbols, size), values as JSON text: "logicalType" -> "\"map\"", "adjust-to-utc" -> "true".
  const std::map<std::string, std::string>& attributes() const { return attributes_; }

  /// True for a union with a "null" branch.
  bool IsNullable() const;
  /// For ["null", T] (either order) T, otherwise this schema.
  const Schema& NonNull() const;
  /// Index of the record field with this Iceberg field id or name, or -1.
  int FieldIndexById(int field_id) const;
  int FieldIndex(std::string_view name) const;
  /// The record field with this Iceberg field id, or null.
  const Field* FieldWithId(int field_id) const;

 private:
  friend class SchemaParser;
  explicit Schema(Type type) : type_(type) {}

  Type type_;
  std::string name_;
  std::vector<Field> fields_;
  const Schema* items_ = nullptr;
  std::vector<const Schema*> branches_;
  std::vector<std::string> symbols_;
  int64_t fixed_size_ = 0;
  std::string logical_type_;
  std::optional<int> element_id_;
  std::optional<int> key_id_;
  std::optional<int> value_id_;
  std::map<std::string, std::string> attributes_;
};

/// Parses Avro schema JSON. Names are not checked against Avro's name syntax here, so files from
/// lenient writers still read; WriteContainer checks them.
arrow::Result<std::shared_ptr<const Schema>> ParseSchema(const std::string& json);

/// Appends the Avro binary encoding of `value` to `out`, checking it against `schema`; on a
/// mismatch the error names the field path ("manifest_file.partitions[0].lower_bound").
arrow::Status EncodeDatum(const Schema& schema, const Datum& value, std::string* out);
/// Decodes exactly one value that fills `bytes`.
arrow::Result<Datum> DecodeDatum(const Schema& schema, std::string_view bytes);

enum class Codec {
  kNull,     // blocks stored as encoded
  kDeflate,  // raw RFC 1951 deflate, no zlib header; what Java's "gzip" manifest codec writes
};

/// A whole object container file: magic "Obj\x01", the metadata map (avro.schema = `schema_json`
/// byte for byte, avro.codec, then `metadata` in the given order), a random sync marker, and blocks
/// of at most 100 records or about 1 MiB. Keys starting with "avro." are reserved and refused.
arrow::Result<std::string> WriteContainer(
    const std::string& schema_json,
    const std::vector<std::pair<std::string, std::string>>& metadata,
    const std::vector<Datum>& records, Codec codec);

struct Container {
  std::shared_ptr<const Schema> schema;
  std::string schema_json;
  /// Every header entry, including avro.schema and avro.codec.
  std::map<std::string, std::string> metadata;
  std::vector<Datum> records;
};

/// Reads a container written with the null or deflate codec. Malformed input is Invalid naming
/// the problem and its byte offset; another codec (snappy, zstd, ...) is NotImplemented.
arrow::Result<Container> ReadContainer(std::string_view bytes);

/// The value of the field with Iceberg id `field_id` in `record`, or null if the schema (or, for a
/// ["null", record] schema, its record branch) has no such field or `record` is not a record of
/// that shape. A null optional field gives a Datum holding null, not a null pointer.
const Datum* FieldById(const Schema& record_schema, const Datum& record, int field_id);
/// The same by field name, for files that carry no ids.
const Datum* FieldByName(const Schema& record_schema, const Datum& record, std::string_view name);

}  // namespace ember::iceberg::avro
