#include "ember/iceberg/partition.h"

#include <bit>
#include <chrono>
#include <cstring>
#include <unordered_map>

#include <arrow/api.h>
#include <arrow/array/concatenate.h>
#include <arrow/compute/api.h>
#include <nlohmann/json.hpp>

#include "ember/common/row_keys.h"
#include "ember/error.h"
#include "ember/iceberg/json_integer.h"
#include "ember/iceberg/schema.h"

namespace ember::iceberg {

using arrow::Result;
using arrow::Status;
using avro::Datum;

namespace {

constexpr int64_t kMicrosPerHour = 3600LL * 1000000;
constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

std::chrono::year_month_day CivilDate(int64_t days) {
  return std::chrono::year_month_day{std::chrono::sys_days{std::chrono::days{days}}};
}

std::string DateText(int64_t days) {
  auto ymd = CivilDate(days);
  char text[32];
  std::snprintf(text, sizeof(text), "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  return text;
}

// The transform's name without its argument, and the argument (bucket[16] -> bucket, 16).
std::pair<std::string, int64_t> ParseTransform(const std::string& transform) {
  auto open = transform.find('[');
  if (open == std::string::npos || transform.back() != ']') return {transform, 0};
  return {transform.substr(0, open), std::stoll(transform.substr(open + 1, transform.size() - open - 2))};
}

const arrow::Field* SourceField(const arrow::Schema& schema, int source_id) {
  for (const auto& f : schema.fields()) {
    if (FieldId(*f) == source_id) return f.get();
  }
  return nullptr;
}

bool IsTemporal(arrow::Type::type id) {
  return id == arrow::Type::DATE32 || id == arrow::Type::TIMESTAMP;
}

bool IsInteger(arrow::Type::type id) {
  return id == arrow::Type::INT32 || id == arrow::Type::INT64;
}

Status BadTransform(const std::string& transform, const arrow::Field& source) {
  auto type = IcebergTypeName(*source.type());
  return UserError(ErrorKind::kAnalysis, "",
                   "Invalid source type " + (type.ok() ? *type : source.type()->ToString()) +
                       " for transform: " + transform + " (column " + source.name() + ")",
                   "");
}

// The result type of `transform` over `source`, or an error if Iceberg (or Ember) cannot apply it.
Result<std::shared_ptr<arrow::DataType>> ResultType(const std::string& transform,
                                                    const arrow::Field& source) {
  auto [name, argument] = ParseTransform(transform);
  auto id = source.type()->id();
  bool writable_identity = IsInteger(id) || IsTemporal(id) || id == arrow::Type::STRING ||
                           id == arrow::Type::BOOL || id == arrow::Type::FLOAT ||
                           id == arrow::Type::DOUBLE || id == arrow::Type::BINARY;
  if (name == "identity" || name == "void") {
    if (!writable_identity) return BadTransform(transform, source);
    return source.type();
  }
  if (name == "year" || name == "month" || name == "day") {
    if (!IsTemporal(id)) return BadTransform(transform, source);
    return name == "day" ? arrow::date32() : arrow::int32();
  }
  if (name == "hour") {
    if (id != arrow::Type::TIMESTAMP) return BadTransform(transform, source);
    return arrow::int32();
  }
  if (name == "bucket") {
    bool hashable = IsInteger(id) || IsTemporal(id) || id == arrow::Type::STRING ||
                    id == arrow::Type::BINARY;
    if (!hashable || argument <= 0) return BadTransform(transform, source);
    return arrow::int32();
  }
  if (name == "truncate") {
    bool truncatable = IsInteger(id) || id == arrow::Type::STRING || id == arrow::Type::BINARY;
    if (!truncatable || argument <= 0) return BadTransform(transform, source);
    return source.type();
  }
  return UserError(ErrorKind::kAnalysis, "", "Unknown partition transform: " + transform, "");
}

Result<std::string> AvroType(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::INT32: return std::string(R"("int")");
    case arrow::Type::INT64: return std::string(R"("long")");
    case arrow::Type::BOOL: return std::string(R"("boolean")");
    case arrow::Type::FLOAT: return std::string(R"("float")");
    case arrow::Type::DOUBLE: return std::string(R"("double")");
    case arrow::Type::STRING: return std::string(R"("string")");
    case arrow::Type::BINARY: return std::string(R"("bytes")");
    case arrow::Type::DATE32: return std::string(R"({"type":"int","logicalType":"date"})");
    case arrow::Type::TIMESTAMP: {
      bool utc = !static_cast<const arrow::TimestampType&>(type).timezone().empty();
      return std::string(R"({"type":"long","logicalType":"timestamp-micros","adjust-to-utc":)") +
             (utc ? "true" : "false") + "}";
    }
    default:
      return Status::NotImplemented("partition values of type ", type.ToString());
  }
}

// The values of one column as 64-bit integers (ints, dates as days, timestamps as micros).
int64_t IntegerAt(const arrow::Array& a, int64_t i) {
  switch (a.type_id()) {
    case arrow::Type::INT32:
    case arrow::Type::DATE32:
      return a.data()->GetValues<int32_t>(1)[i];
    default:
      return a.data()->GetValues<int64_t>(1)[i];
  }
}

std::string_view BytesAt(const arrow::Array& a, int64_t i) {
  return static_cast<const arrow::BinaryArray&>(a).GetView(i);
}

std::string LongBytes(int64_t v) {
  std::string bytes(8, '\0');
  for (int b = 0; b < 8; ++b) bytes[b] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * b)) & 0xFF);
  return bytes;
}

// The first `width` code points of UTF-8 text.
std::string_view TruncateUtf8(std::string_view text, int64_t width) {
  size_t pos = 0;
  for (int64_t n = 0; n < width && pos < text.size(); ++n) {
    auto lead = static_cast<unsigned char>(text[pos]);
    pos += lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
  }
  return text.substr(0, std::min(pos, text.size()));
}

// Applies a transform to a whole column. Null stays null.
Result<std::shared_ptr<arrow::Array>> Apply(const std::string& transform,
                                            const std::shared_ptr<arrow::Array>& source,
                                            const std::shared_ptr<arrow::DataType>& result_type) {
  auto [name, argument] = ParseTransform(transform);
  if (name == "identity") return source;
  if (name == "void") return arrow::MakeArrayOfNull(result_type, source->length());
  const arrow::Array& in = *source;
  int64_t n = in.length();
  bool timestamp = in.type_id() == arrow::Type::TIMESTAMP;
  if (name == "truncate" && in.type_id() == arrow::Type::INT64) {
    arrow::Int64Builder out;
    ARROW_RETURN_NOT_OK(out.Reserve(n));
    for (int64_t i = 0; i < n; ++i) {
      if (in.IsNull(i)) {
        out.UnsafeAppendNull();
      } else {
        int64_t v = IntegerAt(in, i);
        out.UnsafeAppend(v - FloorMod(v, argument));
      }
    }
    return out.Finish();
  }
  if (name == "truncate" && in.type_id() != arrow::Type::INT32) {
    bool text = in.type_id() == arrow::Type::STRING;
    std::unique_ptr<arrow::ArrayBuilder> builder;
    ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), result_type, &builder));
    auto& out = static_cast<arrow::BaseBinaryBuilder<arrow::BinaryType>&>(*builder);
    for (int64_t i = 0; i < n; ++i) {
      if (in.IsNull(i)) {
        ARROW_RETURN_NOT_OK(out.AppendNull());
      } else {
        std::string_view v = BytesAt(in, i);
        ARROW_RETURN_NOT_OK(out.Append(text ? TruncateUtf8(v, argument)
                                            : v.substr(0, std::min<size_t>(v.size(), argument))));
      }
    }
    return builder->Finish();
  }
  // The transforms with an int (or date) result.
  arrow::Int32Builder out;
  ARROW_RETURN_NOT_OK(out.Reserve(n));
  for (int64_t i = 0; i < n; ++i) {
    if (in.IsNull(i)) {
      out.UnsafeAppendNull();
      continue;
    }
    int64_t value = 0;
    if (name == "bucket") {
      bool bytes = in.type_id() == arrow::Type::STRING || in.type_id() == arrow::Type::BINARY;
      int32_t hash = bytes ? Murmur3(BytesAt(in, i)) : Murmur3(LongBytes(IntegerAt(in, i)));
      value = (hash & 0x7FFFFFFF) % argument;
    } else if (name == "truncate") {
      int64_t v = IntegerAt(in, i);
      value = v - FloorMod(v, argument);
    } else if (name == "hour") {
      value = FloorDiv(IntegerAt(in, i), kMicrosPerHour);
    } else {
      int64_t days = timestamp ? FloorDiv(IntegerAt(in, i), kMicrosPerDay) : IntegerAt(in, i);
      if (name == "day") {
        value = days;
      } else {
        auto ymd = CivilDate(days);
        int64_t years = static_cast<int>(ymd.year()) - 1970;
        value = name == "year" ? years : years * 12 + static_cast<unsigned>(ymd.month()) - 1;
      }
    }
    out.UnsafeAppend(static_cast<int32_t>(value));
  }
  ARROW_ASSIGN_OR_RAISE(auto ints, out.Finish());
  if (result_type->id() == arrow::Type::DATE32) return ints->View(arrow::date32());
  return ints;
}

Datum DatumAt(const arrow::Array& a, int64_t i) {
  if (a.IsNull(i)) return nullptr;
  switch (a.type_id()) {
    case arrow::Type::INT32:
    case arrow::Type::DATE32:
      return Datum(static_cast<int32_t>(IntegerAt(a, i)));
    case arrow::Type::INT64:
    case arrow::Type::TIMESTAMP:
      return Datum(IntegerAt(a, i));
    case arrow::Type::BOOL:
      return Datum(static_cast<const arrow::BooleanArray&>(a).Value(i));
    case arrow::Type::FLOAT:
      return Datum(static_cast<const arrow::FloatArray&>(a).Value(i));
    case arrow::Type::DOUBLE:
      return Datum(static_cast<const arrow::DoubleArray&>(a).Value(i));
    case arrow::Type::STRING:
      return Datum(std::string(BytesAt(a, i)));
    default:
      return Datum(avro::Bytes{std::string(BytesAt(a, i))});
  }
}

// Java's URLEncoder: letters, digits and ".-*_" stay, a space becomes '+', other bytes %XX.
std::string UrlEncode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '.' || c == '-' || c == '*' || c == '_') {
      out += static_cast<char>(c);
    } else if (c == ' ') {
      out += '+';
    } else {
      char hex[4];
      std::snprintf(hex, sizeof(hex), "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

}  // namespace

std::string PartitionValueText(const PartitionField& field, const arrow::DataType& result_type,
                               const Datum& value) {
  const std::string& transform = field.transform;
  if (value.is_null()) return "null";
  auto name = ParseTransform(transform).first;
  if (name == "year") return std::to_string(1970 + value.as<int32_t>());
  if (name == "month") {
    int64_t months = value.as<int32_t>();
    char text[48];
    std::snprintf(text, sizeof(text), "%04lld-%02lld", static_cast<long long>(1970 + FloorDiv(months, 12)),
                  static_cast<long long>(FloorMod(months, 12) + 1));
    return text;
  }
  if (name == "hour") {
    int64_t hours = value.as<int32_t>();
    char text[24];
    std::snprintf(text, sizeof(text), "-%02lld", static_cast<long long>(FloorMod(hours, 24)));
    return DateText(FloorDiv(hours, 24)) + text;
  }
  if (result_type.id() == arrow::Type::DATE32) return DateText(value.as<int32_t>());
  if (result_type.id() == arrow::Type::TIMESTAMP) {
    int64_t micros = value.as<int64_t>();
    int64_t seconds = FloorMod(micros, kMicrosPerDay) / 1000000;
    char text[72];
    std::snprintf(text, sizeof(text), "T%02lld:%02lld:%02lld", static_cast<long long>(seconds / 3600),
                  static_cast<long long>(seconds / 60 % 60), static_cast<long long>(seconds % 60));
    bool utc = !static_cast<const arrow::TimestampType&>(result_type).timezone().empty();
    return DateText(FloorDiv(micros, kMicrosPerDay)) + text + (utc ? "Z" : "");
  }
  if (const auto* s = value.get_if<std::string>()) return *s;
  if (const auto* b = value.get_if<bool>()) return *b ? "true" : "false";
  return value.ToString();
}

Result<std::shared_ptr<arrow::DataType>> PartitionResultType(const PartitionField& field,
                                                            const arrow::Schema& schema) {
  const arrow::Field* source = SourceField(schema, field.source_id);
  if (!source) return Status::Invalid("partition field ", field.name, " has no source column");
  return ResultType(field.transform, *source);
}

Datum PartitionValueFromBytes(const std::string& bytes, const arrow::DataType& result_type) {
  auto little_endian = [&](size_t size) {
    uint64_t bits = 0;
    for (size_t b = 0; b < size && b < bytes.size(); ++b) {
      bits |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[b])) << (8 * b);
    }
    return bits;
  };
  switch (result_type.id()) {
    case arrow::Type::INT32:
    case arrow::Type::DATE32:
      return Datum(static_cast<int32_t>(little_endian(4)));
    case arrow::Type::INT64:
    case arrow::Type::TIMESTAMP:
      return Datum(static_cast<int64_t>(little_endian(8)));
    case arrow::Type::BOOL:
      return Datum(!bytes.empty() && bytes[0] != 0);
    case arrow::Type::FLOAT:
      return Datum(std::bit_cast<float>(static_cast<uint32_t>(little_endian(4))));
    case arrow::Type::DOUBLE:
      return Datum(std::bit_cast<double>(little_endian(8)));
    case arrow::Type::STRING:
      return Datum(bytes);
    default:
      return Datum(avro::Bytes{bytes});
  }
}

int32_t Murmur3(std::string_view bytes) {
  constexpr uint32_t c1 = 0xcc9e2d51, c2 = 0x1b873593;
  auto mix = [](uint32_t k) { return std::rotl(k * c1, 15) * c2; };
  auto byte = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])); };
  uint32_t h = 0;
  size_t blocks = bytes.size() / 4;
  for (size_t b = 0; b < blocks; ++b) {
    uint32_t k = byte(4 * b) | byte(4 * b + 1) << 8 | byte(4 * b + 2) << 16 | byte(4 * b + 3) << 24;
    h = std::rotl(h ^ mix(k), 13) * 5 + 0xe6546b64;
  }
  uint32_t tail = 0;
  size_t rest = bytes.size() & 3, base = 4 * blocks;
  for (size_t i = rest; i > 0; --i) tail |= byte(base + i - 1) << (8 * (i - 1));
  if (rest > 0) h ^= mix(tail);
  h ^= static_cast<uint32_t>(bytes.size());
  h = (h ^ (h >> 16)) * 0x85ebca6b;
  h = (h ^ (h >> 13)) * 0xc2b2ae35;
  return static_cast<int32_t>(h ^ (h >> 16));
}

Result<PartitionSpec> MakePartitionSpec(const arrow::Schema& schema,
                                        const std::vector<PartitionTerm>& terms) {
  PartitionSpec spec;
  int next_id = 1000;
  for (const auto& term : terms) {
    auto lower = [](std::string s) {
      for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return s;
    };
    const arrow::Field* source = nullptr;
    for (const auto& f : schema.fields()) {
      if (lower(f->name()) == lower(term.column)) source = f.get();
    }
    if (!source) {
      return UserError(ErrorKind::kAnalysis, "", "Cannot find source column: " + term.column, "");
    }
    static const std::map<std::string, std::pair<std::string, std::string>> kTransforms = {
        {"identity", {"identity", ""}}, {"years", {"year", "_year"}},
        {"months", {"month", "_month"}}, {"days", {"day", "_day"}},
        {"hours", {"hour", "_hour"}},   {"bucket", {"bucket", "_bucket"}},
        {"truncate", {"truncate", "_trunc"}}};
    auto it = kTransforms.find(term.transform);
    if (it == kTransforms.end()) {
      return UserError(ErrorKind::kAnalysis, "", "Unknown partition transform: " + term.transform, "");
    }
    PartitionField field;
    field.source_id = FieldId(*source);
    field.field_id = next_id++;
    field.name = source->name() + it->second.second;
    field.transform = it->second.first;
    if (term.transform == "bucket" || term.transform == "truncate") {
      field.transform += "[" + std::to_string(term.argument) + "]";
    }
    ARROW_RETURN_NOT_OK(ResultType(field.transform, *source).status());
    for (const auto& other : spec.fields) {
      if (other.name == field.name) {
        return UserError(ErrorKind::kAnalysis, "",
                         "Cannot use partition name more than once: " + field.name, "");
      }
    }
    spec.fields.push_back(std::move(field));
  }
  return spec;
}

nlohmann::json PartitionFieldsToJson(const PartitionSpec& spec) {
  auto fields = nlohmann::ordered_json::array();
  for (const auto& f : spec.fields) {
    fields.push_back({{"name", f.name}, {"transform", f.transform}, {"source-id", f.source_id},
                      {"field-id", f.field_id}});
  }
  return nlohmann::json::parse(fields.dump());
}

Result<PartitionSpec> PartitionSpecFromJson(const nlohmann::json& json) {
  PartitionSpec spec;
  spec.spec_id = JsonInteger(json, "spec-id", 0);
  for (const auto& f : json.at("fields")) {
    PartitionField field;
    field.name = f.at("name").get<std::string>();
    field.transform = f.at("transform").get<std::string>();
    // v3 multi-argument transforms list source-ids; single-source ones are all Ember reads.
    if (f.contains("source-id")) {
      field.source_id = JsonInteger<int>(f["source-id"], "source-id");
    } else if (f.contains("source-ids") && f["source-ids"].size() == 1) {
      field.source_id = JsonInteger<int>(f["source-ids"][0], "source-ids");
    }
    field.field_id = JsonInteger(f, "field-id", 1000 + static_cast<int>(spec.fields.size()));
    spec.fields.push_back(std::move(field));
  }
  return spec;
}

Result<std::string> PartitionRecordSchema(const PartitionSpec& spec, const arrow::Schema& schema) {
  std::string fields;
  for (const auto& f : spec.fields) {
    const arrow::Field* source = SourceField(schema, f.source_id);
    if (!source) return Status::Invalid("partition field ", f.name, " has no source column");
    ARROW_ASSIGN_OR_RAISE(auto type, ResultType(f.transform, *source));
    ARROW_ASSIGN_OR_RAISE(auto avro_type, AvroType(*type));
    if (!fields.empty()) fields += ",";
    fields += R"({"name":)" + nlohmann::json(f.name).dump() + R"(,"type":["null",)" + avro_type +
              R"(],"default":null,"field-id":)" + std::to_string(f.field_id) + "}";
  }
  return R"({"type":"record","name":"r102","fields":[)" + fields + "]}";
}

Result<std::vector<PartitionedRows>> SplitByPartition(const PartitionSpec& spec,
                                                      const arrow::Schema& schema,
                                                      const std::shared_ptr<arrow::Table>& rows) {
  if (spec.fields.empty()) return std::vector<PartitionedRows>{{rows, {}, ""}};
  arrow::ArrayVector values;
  arrow::FieldVector value_fields;
  std::vector<std::shared_ptr<arrow::DataType>> types;
  for (const auto& f : spec.fields) {
    const arrow::Field* source = SourceField(schema, f.source_id);
    int index = source ? rows->schema()->GetFieldIndex(source->name()) : -1;
    if (index < 0) {
      return UserError(ErrorKind::kUnsupportedOperation, "UNSUPPORTED_FEATURE",
                       "Writing to a table partitioned by a nested column is not supported by "
                       "Ember yet (" + f.name + ").",
                       "0A000");
    }
    ARROW_ASSIGN_OR_RAISE(auto type, ResultType(f.transform, *source));
    ARROW_ASSIGN_OR_RAISE(auto column, arrow::Concatenate(rows->column(index)->chunks()));
    ARROW_ASSIGN_OR_RAISE(auto applied, Apply(f.transform, column, type));
    values.push_back(applied);
    value_fields.push_back(arrow::field(f.name, type));
    types.push_back(type);
  }
  auto value_table = arrow::Table::Make(arrow::schema(value_fields), values, rows->num_rows());
  ARROW_ASSIGN_OR_RAISE(auto keys, EncodeKeys(*value_table, value_table->num_columns()));
  std::unordered_map<std::string_view, size_t> group_of;
  std::vector<arrow::Int64Builder> indices;
  std::vector<int64_t> first_row;
  for (int64_t i = 0; i < rows->num_rows(); ++i) {
    auto [it, inserted] = group_of.try_emplace(keys[i], indices.size());
    if (inserted) {
      indices.emplace_back();
      first_row.push_back(i);
    }
    ARROW_RETURN_NOT_OK(indices[it->second].Append(i));
  }
  std::vector<PartitionedRows> groups;
  for (size_t g = 0; g < indices.size(); ++g) {
    ARROW_ASSIGN_OR_RAISE(auto take, indices[g].Finish());
    ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(rows, take));
    PartitionedRows group;
    group.rows = taken.table();
    for (size_t f = 0; f < spec.fields.size(); ++f) {
      Datum value = DatumAt(*values[f], first_row[g]);
      group.path += (f == 0 ? "" : "/") + UrlEncode(spec.fields[f].name) + "=" +
                    UrlEncode(PartitionValueText(spec.fields[f], *types[f], value));
      group.partition.fields.push_back(std::move(value));
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

std::string SingleValueBytes(const Datum& value) {
  auto little_endian = [](uint64_t bits, int size) {
    std::string out(size, '\0');
    for (int b = 0; b < size; ++b) out[b] = static_cast<char>((bits >> (8 * b)) & 0xFF);
    return out;
  };
  if (const auto* v = value.get_if<int32_t>()) return little_endian(static_cast<uint32_t>(*v), 4);
  if (const auto* v = value.get_if<int64_t>()) return little_endian(static_cast<uint64_t>(*v), 8);
  if (const auto* v = value.get_if<bool>()) return std::string(1, *v ? '\1' : '\0');
  if (const auto* v = value.get_if<float>()) return little_endian(std::bit_cast<uint32_t>(*v), 4);
  if (const auto* v = value.get_if<double>()) return little_endian(std::bit_cast<uint64_t>(*v), 8);
  if (const auto* v = value.get_if<std::string>()) return *v;
  if (const auto* v = value.get_if<avro::Bytes>()) return v->data;
  return "";
}

int ComparePartitionValues(const Datum& a, const Datum& b) {
  return std::visit(
      [&](const auto& x) -> int {
        using T = std::decay_t<decltype(x)>;
        const T* y = b.get_if<T>();
        if constexpr (std::is_same_v<T, avro::Bytes>) {
          return y ? x.data.compare(y->data) : 0;
        } else if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string>) {
          if (!y) return 0;
          return x < *y ? -1 : *y < x ? 1 : 0;
        } else {
          return 0;
        }
      },
      a.value);
}

}  // namespace ember::iceberg
