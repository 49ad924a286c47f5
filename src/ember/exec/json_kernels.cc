// The kernels of Spark's JSON functions, on simdjson's DOM:
// - ember_from_json: from_json with the conversion rules of Spark's JacksonParser. A value the
//   type does not take is NULL and makes the record malformed; a malformed record keeps what was
//   read (Spark's partial results) unless the mode is FAILFAST.
// - ember_to_json: to_json as Spark's JacksonGenerator writes it.
// - ember_get_json_object, ember_json_tuple, ember_json_array_length, ember_json_object_keys.
// Doubles are read as simdjson reads them and written as Java prints them, which is what Jackson
// gives Spark (1.50 reads back as "1.5").
#include <arrow/array.h>
#include <arrow/array/util.h>
#include <arrow/array/builder_binary.h>
#include <arrow/array/builder_decimal.h>
#include <arrow/array/builder_nested.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/compute/api.h>
#include <arrow/compute/kernel.h>
#include <arrow/compute/registry.h>
#include <arrow/util/base64.h>
#include <arrow/util/decimal.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ember/common/java_number.h"
#include "ember/error.h"
#include "ember/exec/kernel_util.h"
#include "ember/exec/kernels.h"
#include "ember/io/json_lines.h"
#include "ember/plan/functions.h"
#include "ember/plan/type_names.h"

namespace ember::exec {

namespace cp = arrow::compute;
namespace dom = simdjson::dom;
using arrow::Result;
using arrow::Status;

namespace {

// --- reading and writing JSON text ------------------------------------------------------------

// The text with the number tokens Jackson reads under Spark's allowNonNumericNumbers (NaN,
// Infinity, -Infinity, +INF, ...) quoted, or nullopt when it has none: simdjson reads them then
// as text, which every conversion of a number takes as the number.
std::optional<std::string> QuotedNonNumericNumbers(std::string_view text) {
  static constexpr std::string_view kTokens[] = {"-Infinity", "+Infinity", "Infinity", "-INF",
                                                 "+INF", "NaN"};
  std::string out;
  bool changed = false, in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\' && i + 1 < text.size()) {
        out += c;
        c = text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      out += c;
      continue;
    }
    if (c == '"') in_string = true;
    bool quoted = false;
    for (auto token : kTokens) {
      if (text.substr(i, token.size()) == token) {
        out += '"';
        out += token;
        out += '"';
        i += token.size() - 1;
        quoted = changed = true;
        break;
      }
    }
    if (!quoted) out += c;
  }
  if (!changed) return std::nullopt;
  return out;
}

// A text's first JSON value: Jackson reads one and ignores what follows it.
simdjson::simdjson_result<dom::element> ParseFirst(dom::parser& parser, std::string_view text) {
  if (auto first = io::FirstJsonValue(text)) text = *first;
  auto parsed = parser.parse(text.data(), text.size(), true);
  if (!parsed.error()) return parsed;
  if (auto quoted = QuotedNonNumericNumbers(text)) return parser.parse(*quoted);
  return parsed;
}

// Row i's JSON value, or nullopt for NULL or text that is no JSON.
std::optional<dom::element> ParseRow(dom::parser& parser, const arrow::StringArray& json,
                                     int64_t i) {
  if (json.IsNull(i)) return std::nullopt;
  auto parsed = ParseFirst(parser, json.GetView(i));
  if (parsed.error()) return std::nullopt;
  return parsed.value();
}

bool Blank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

// A string as Jackson quotes it: \" \\ and the short escapes, other control characters as
// \u00XX, everything else as it is.
void AppendQuoted(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\t': *out += "\\t"; break;
      case '\r': *out += "\\r"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\u%04X", static_cast<unsigned char>(c));
          *out += hex;
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

// A JSON value as compact text, as Jackson copies one (numbers re-read, strings re-quoted).
void AppendJson(dom::element v, std::string* out) {
  switch (v.type()) {
    case dom::element_type::OBJECT: {
      out->push_back('{');
      bool first = true;
      for (auto [key, value] : dom::object(v)) {
        if (!first) out->push_back(',');
        first = false;
        AppendQuoted(key, out);
        out->push_back(':');
        AppendJson(value, out);
      }
      out->push_back('}');
      return;
    }
    case dom::element_type::ARRAY: {
      out->push_back('[');
      bool first = true;
      for (auto e : dom::array(v)) {
        if (!first) out->push_back(',');
        first = false;
        AppendJson(e, out);
      }
      out->push_back(']');
      return;
    }
    case dom::element_type::STRING: AppendQuoted(std::string_view(v), out); return;
    case dom::element_type::INT64: *out += std::to_string(int64_t(v)); return;
    case dom::element_type::UINT64: *out += std::to_string(uint64_t(v)); return;
    case dom::element_type::DOUBLE: *out += JavaNumberText(double(v)); return;
    case dom::element_type::BOOL: *out += bool(v) ? "true" : "false"; return;
    case dom::element_type::NULL_VALUE: *out += "null"; return;
  }
}

// A value as Spark gives it back as text: a string unquoted, anything else as JSON.
std::string TextOf(dom::element v) {
  if (v.type() == dom::element_type::STRING) return std::string(std::string_view(v));
  std::string out;
  AppendJson(v, &out);
  return out;
}

// The value of a constant argument (a literal: a scalar, or an array repeating it).
Result<std::shared_ptr<arrow::Scalar>> ConstantArg(const cp::ExecSpan& batch, int i) {
  if (batch[i].is_scalar()) return batch[i].scalar->GetSharedPtr();
  auto values = batch[i].array.ToArray();
  if (values->length() == 0) return arrow::MakeNullScalar(values->type());
  return values->GetScalar(0);
}

Result<bool> ConstantBool(const cp::ExecSpan& batch, int i) {
  ARROW_ASSIGN_OR_RAISE(auto value, ConstantArg(batch, i));
  return value->is_valid && static_cast<const arrow::BooleanScalar&>(*value).value;
}

Result<std::string> ConstantText(const cp::ExecSpan& batch, int i) {
  ARROW_ASSIGN_OR_RAISE(auto value, ConstantArg(batch, i));
  if (!value->is_valid) return std::string();
  return std::string(static_cast<const arrow::StringScalar&>(*value).view());
}

// --- from_json --------------------------------------------------------------------------------

bool IsTime(const arrow::DataType& t) {
  return t.id() == arrow::Type::TIMESTAMP || t.id() == arrow::Type::DATE32;
}

// The type decoded into: timestamps and dates as their text, converted by Spark's cast after.
std::shared_ptr<arrow::DataType> ReadType(const std::shared_ptr<arrow::DataType>& t) {
  if (IsTime(*t)) return arrow::utf8();
  if (t->num_fields() == 0) return t;
  arrow::FieldVector fields;
  for (const auto& f : t->fields()) fields.push_back(f->WithType(ReadType(f->type())));
  if (t->id() == arrow::Type::LIST) return arrow::list(fields[0]);
  if (t->id() == arrow::Type::MAP) {
    return std::make_shared<arrow::MapType>(fields[0]->type()->field(0),
                                            fields[0]->type()->field(1));
  }
  return arrow::struct_(fields);
}

bool NonNumericNumber(std::string_view s, double* out) {
  if (s == "NaN") {
    *out = std::nan("");
  } else if (s == "Infinity" || s == "+Infinity" || s == "+INF") {
    *out = HUGE_VAL;
  } else if (s == "-Infinity" || s == "-INF") {
    *out = -HUGE_VAL;
  } else {
    return false;
  }
  return true;
}

// A JSON number or numeric text as a decimal of `t` (rounded half up), if it fits.
std::optional<arrow::Decimal128> DecimalOf(dom::element v, const arrow::Decimal128Type& t) {
  std::string text;
  switch (v.type()) {
    case dom::element_type::INT64: text = std::to_string(int64_t(v)); break;
    case dom::element_type::UINT64: text = std::to_string(uint64_t(v)); break;
    case dom::element_type::DOUBLE: {
      double d = double(v);
      if (!std::isfinite(d)) return std::nullopt;
      text = JavaNumberText(d);
      break;
    }
    case dom::element_type::STRING: text = std::string(std::string_view(v)); break;
    default: return std::nullopt;
  }
  arrow::Decimal128 value;
  int32_t precision = 0, scale = 0;
  if (!arrow::Decimal128::FromString(text, &value, &precision, &scale).ok()) return std::nullopt;
  if (scale > t.scale()) {
    value = value.ReduceScaleBy(scale - t.scale(), /*round=*/true);
  } else if (scale < t.scale()) {
    auto scaled = value.Rescale(scale, t.scale());
    if (!scaled.ok()) return std::nullopt;
    value = *scaled;
  }
  if (!value.FitsInPrecision(t.precision())) return std::nullopt;
  return value;
}

// Jackson's base64 (MIME without line feeds, padding required).
std::optional<std::string> Base64Of(std::string_view s) {
  if (s.size() % 4 != 0) return std::nullopt;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool pad = c == '=' && i + 2 >= s.size() && (i + 1 == s.size() || s[i + 1] == '=');
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/' && !pad) {
      return std::nullopt;
    }
  }
  return arrow::util::base64_decode(s);
}

// The text of an instant `seconds` after the epoch, with its zone, for the cast to read back.
std::string EpochSecondsText(int64_t seconds) {
  int64_t days = seconds / 86400, rest = seconds % 86400;
  if (rest < 0) rest += 86400, --days;
  // Howard Hinnant's civil_from_days.
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  int64_t y = yoe + era * 400 + (m <= 2);
  char text[64];
  std::snprintf(text, sizeof text, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ",
                static_cast<long long>(y), static_cast<long long>(m), static_cast<long long>(d),
                static_cast<long long>(rest / 3600), static_cast<long long>(rest / 60 % 60),
                static_cast<long long>(rest % 60));
  return text;
}

// Whether `v` can be read as a value of `t` at all. One that cannot is NULL where it stands in
// a struct, and fails the array or map that holds it (JacksonParser's convertArray/convertMap).
bool Converts(dom::element v, const arrow::DataType& t) {
  const auto kind = v.type();
  if (kind == dom::element_type::NULL_VALUE) return true;
  const bool text = kind == dom::element_type::STRING;
  const bool integer = kind == dom::element_type::INT64 || kind == dom::element_type::UINT64;
  auto in_range = [&](int64_t lo, int64_t hi) {
    if (kind == dom::element_type::UINT64) return false;  // beyond BIGINT
    if (kind != dom::element_type::INT64) return false;
    int64_t x = int64_t(v);
    return x >= lo && x <= hi;
  };
  switch (t.id()) {
    case arrow::Type::NA: return true;
    case arrow::Type::BOOL: return kind == dom::element_type::BOOL;
    case arrow::Type::INT8: return in_range(INT8_MIN, INT8_MAX);
    case arrow::Type::INT16: return in_range(INT16_MIN, INT16_MAX);
    case arrow::Type::INT32: return in_range(INT32_MIN, INT32_MAX);
    case arrow::Type::INT64: return in_range(INT64_MIN, INT64_MAX);
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE: {
      double unused;
      return integer || kind == dom::element_type::DOUBLE ||
             (text && NonNumericNumber(std::string_view(v), &unused));
    }
    case arrow::Type::STRING: return true;
    case arrow::Type::BINARY: return text && Base64Of(std::string_view(v)).has_value();
    case arrow::Type::DECIMAL128:
      return DecimalOf(v, static_cast<const arrow::Decimal128Type&>(t)).has_value();
    case arrow::Type::TIMESTAMP:
      return (text && !std::string_view(v).empty()) || kind == dom::element_type::INT64;
    case arrow::Type::DATE32: return text && !std::string_view(v).empty();
    case arrow::Type::STRUCT: return kind == dom::element_type::OBJECT;
    case arrow::Type::LIST: {
      if (kind != dom::element_type::ARRAY) return false;
      const auto& element = *static_cast<const arrow::ListType&>(t).value_type();
      for (auto e : dom::array(v)) {
        if (!Converts(e, element)) return false;
      }
      return true;
    }
    case arrow::Type::MAP: {
      if (kind != dom::element_type::OBJECT) return false;
      const auto& value = *static_cast<const arrow::MapType&>(t).item_type();
      for (auto [key, item] : dom::object(v)) {
        if (!Converts(item, value)) return false;
      }
      return true;
    }
    default: return false;
  }
}

// Appends `v` (which Converts) to `b` as a value of `t`; false when a field inside it had to be
// NULL (the record is then malformed, and its value Spark's partial result). `b` builds the
// ReadType of `t`.
Result<bool> Append(dom::element v, const arrow::DataType& t, arrow::ArrayBuilder* b);

Result<bool> AppendStruct(dom::object object, const arrow::StructType& t,
                          arrow::StructBuilder* b) {
  // Spark finds a field by name, the last of the schema's fields of that name; a key given
  // twice takes its last value.
  std::map<std::string_view, int> index;
  for (int i = 0; i < t.num_fields(); ++i) index[t.field(i)->name()] = i;
  std::vector<std::optional<dom::element>> values(static_cast<size_t>(t.num_fields()));
  for (auto [key, value] : object) {
    auto it = index.find(key);
    if (it != index.end()) values[static_cast<size_t>(it->second)] = value;
  }
  ARROW_RETURN_NOT_OK(b->Append());
  bool whole = true;
  for (int i = 0; i < t.num_fields(); ++i) {
    auto* child = b->field_builder(i);
    const auto& value = values[static_cast<size_t>(i)];
    if (!value) {
      ARROW_RETURN_NOT_OK(child->AppendNull());
    } else if (!Converts(*value, *t.field(i)->type())) {
      ARROW_RETURN_NOT_OK(child->AppendNull());
      whole = false;
    } else {
      ARROW_ASSIGN_OR_RAISE(bool field_whole, Append(*value, *t.field(i)->type(), child));
      whole = whole && field_whole;
    }
  }
  return whole;
}

Result<bool> Append(dom::element v, const arrow::DataType& t, arrow::ArrayBuilder* b) {
  const auto kind = v.type();
  if (kind == dom::element_type::NULL_VALUE || t.id() == arrow::Type::NA) {
    ARROW_RETURN_NOT_OK(b->AppendNull());
    return true;
  }
  switch (t.id()) {
    case arrow::Type::BOOL:
      ARROW_RETURN_NOT_OK(static_cast<arrow::BooleanBuilder*>(b)->Append(bool(v)));
      break;
    case arrow::Type::INT8:
      ARROW_RETURN_NOT_OK(static_cast<arrow::Int8Builder*>(b)->Append(static_cast<int8_t>(int64_t(v))));
      break;
    case arrow::Type::INT16:
      ARROW_RETURN_NOT_OK(static_cast<arrow::Int16Builder*>(b)->Append(static_cast<int16_t>(int64_t(v))));
      break;
    case arrow::Type::INT32:
      ARROW_RETURN_NOT_OK(static_cast<arrow::Int32Builder*>(b)->Append(static_cast<int32_t>(int64_t(v))));
      break;
    case arrow::Type::INT64:
      ARROW_RETURN_NOT_OK(static_cast<arrow::Int64Builder*>(b)->Append(int64_t(v)));
      break;
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE: {
      double x = 0;
      if (kind == dom::element_type::STRING) {
        NonNumericNumber(std::string_view(v), &x);
      } else if (kind == dom::element_type::INT64) {
        x = static_cast<double>(int64_t(v));
      } else if (kind == dom::element_type::UINT64) {
        x = static_cast<double>(uint64_t(v));
      } else {
        x = double(v);
      }
      if (t.id() == arrow::Type::FLOAT) {
        ARROW_RETURN_NOT_OK(static_cast<arrow::FloatBuilder*>(b)->Append(static_cast<float>(x)));
      } else {
        ARROW_RETURN_NOT_OK(static_cast<arrow::DoubleBuilder*>(b)->Append(x));
      }
      break;
    }
    case arrow::Type::STRING:
      ARROW_RETURN_NOT_OK(static_cast<arrow::StringBuilder*>(b)->Append(TextOf(v)));
      break;
    case arrow::Type::BINARY:
      ARROW_RETURN_NOT_OK(
          static_cast<arrow::BinaryBuilder*>(b)->Append(*Base64Of(std::string_view(v))));
      break;
    case arrow::Type::DECIMAL128:
      ARROW_RETURN_NOT_OK(static_cast<arrow::Decimal128Builder*>(b)->Append(
          *DecimalOf(v, static_cast<const arrow::Decimal128Type&>(t))));
      break;
    case arrow::Type::TIMESTAMP:
    case arrow::Type::DATE32: {
      // Read as text (ReadType); a whole number of seconds is an instant.
      auto* text = static_cast<arrow::StringBuilder*>(b);
      if (kind == dom::element_type::INT64) {
        ARROW_RETURN_NOT_OK(text->Append(EpochSecondsText(int64_t(v))));
      } else {
        ARROW_RETURN_NOT_OK(text->Append(std::string_view(v)));
      }
      break;
    }
    case arrow::Type::STRUCT:
      return AppendStruct(dom::object(v), static_cast<const arrow::StructType&>(t),
                          static_cast<arrow::StructBuilder*>(b));
    case arrow::Type::LIST: {
      auto* list = static_cast<arrow::ListBuilder*>(b);
      ARROW_RETURN_NOT_OK(list->Append());
      const auto& element = *static_cast<const arrow::ListType&>(t).value_type();
      bool whole = true;
      for (auto e : dom::array(v)) {
        ARROW_ASSIGN_OR_RAISE(bool w, Append(e, element, list->value_builder()));
        whole = whole && w;
      }
      return whole;
    }
    case arrow::Type::MAP: {
      auto* map = static_cast<arrow::MapBuilder*>(b);
      ARROW_RETURN_NOT_OK(map->Append());
      const auto& value = *static_cast<const arrow::MapType&>(t).item_type();
      bool whole = true;
      // A key given twice keeps its last value, as Spark's map does.
      std::map<std::string_view, dom::element> last;
      std::vector<std::string_view> order;
      for (auto [key, item] : dom::object(v)) {
        if (last.emplace(key, item).second) {
          order.push_back(key);
        } else {
          last[key] = item;
        }
      }
      for (auto key : order) {
        ARROW_RETURN_NOT_OK(static_cast<arrow::StringBuilder*>(map->key_builder())->Append(key));
        ARROW_ASSIGN_OR_RAISE(bool w, Append(last[key], value, map->item_builder()));
        whole = whole && w;
      }
      return whole;
    }
    default:
      return Status::NotImplemented("from_json into ", t.ToString());
  }
  return true;
}

// A record's value of the function's type, or false when the record is malformed as a whole:
// not JSON, or a JSON value the type's root does not take.
Result<std::optional<bool>> AppendRecord(dom::element v, const arrow::DataType& t,
                                         arrow::ArrayBuilder* b) {
  const auto kind = v.type();
  switch (t.id()) {
    case arrow::Type::STRUCT:
      if (kind != dom::element_type::OBJECT) return std::nullopt;
      return AppendStruct(dom::object(v), static_cast<const arrow::StructType&>(t),
                          static_cast<arrow::StructBuilder*>(b));
    case arrow::Type::LIST: {
      const auto& element = *static_cast<const arrow::ListType&>(t).value_type();
      if (kind == dom::element_type::OBJECT && element.id() == arrow::Type::STRUCT) {
        // An object where an array of structs is asked for: an array of that one struct.
        auto* list = static_cast<arrow::ListBuilder*>(b);
        ARROW_RETURN_NOT_OK(list->Append());
        return AppendStruct(dom::object(v), static_cast<const arrow::StructType&>(element),
                            static_cast<arrow::StructBuilder*>(list->value_builder()));
      }
      if (!Converts(v, t) || kind == dom::element_type::NULL_VALUE) return std::nullopt;
      return Append(v, t, b);
    }
    default:
      if (!Converts(v, t) || kind != dom::element_type::OBJECT) return std::nullopt;
      return Append(v, t, b);
  }
}

// The decoded text of timestamps and dates converted by Spark's cast; a text it cannot read is
// NULL, and malformed in FAILFAST mode.
Result<std::shared_ptr<arrow::ArrayData>> ConvertTimes(const std::shared_ptr<arrow::ArrayData>& data,
                                                       const std::shared_ptr<arrow::DataType>& type,
                                                       const plan::EvalContext& ctx, bool failfast) {
  if (IsTime(*type)) {
    ARROW_ASSIGN_OR_RAISE(auto expr, plan::LowerCast(cp::field_ref("text"), arrow::utf8(), type,
                                                     /*try_cast=*/true, ctx));
    ARROW_ASSIGN_OR_RAISE(expr, expr.Bind(*arrow::schema({arrow::field("text", arrow::utf8())})));
    auto text = arrow::MakeArray(data);
    ARROW_ASSIGN_OR_RAISE(auto value, cp::ExecuteScalarExpression(
                                          expr, cp::ExecBatch({text}, text->length())));
    auto converted = value.make_array();
    if (failfast && converted->null_count() != text->null_count()) {
      return UserError(ErrorKind::kRuntime, "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
                       "Malformed records are detected in record parsing: a " +
                           plan::SparkTypeName(*type, true) +
                           " value. Parse Mode: FAILFAST. To process malformed records as null "
                           "result, try setting the option 'mode' as 'PERMISSIVE'.",
                       "22023");
    }
    return converted->data();
  }
  if (type->num_fields() == 0) return data;
  auto out = data->Copy();
  out->type = type;
  if (type->id() == arrow::Type::MAP) {
    // A map's one child is its entries' struct.
    ARROW_ASSIGN_OR_RAISE(out->child_data[0],
                          ConvertTimes(data->child_data[0], type->field(0)->type(), ctx, failfast));
    return out;
  }
  for (int i = 0; i < type->num_fields(); ++i) {
    ARROW_ASSIGN_OR_RAISE(out->child_data[static_cast<size_t>(i)],
                          ConvertTimes(data->child_data[static_cast<size_t>(i)],
                                       type->field(i)->type(), ctx, failfast));
  }
  return out;
}

Status MalformedRecord(std::string_view text) {
  return UserError(ErrorKind::kRuntime, "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
                   "Malformed records are detected in record parsing: " + std::string(text) +
                       ". Parse Mode: FAILFAST. To process malformed records as null result, try "
                       "setting the option 'mode' as 'PERMISSIVE'.",
                   "22023");
}

// ember_from_json(text, NULL of the result type, failfast, session time zone).
Status FromJsonExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto input, ArgArray(batch, 0));
  const auto& texts = static_cast<const arrow::StringArray&>(*input);
  const auto type = batch[1].type()->GetSharedPtr();
  if (texts.length() == 0) {
    ARROW_ASSIGN_OR_RAISE(auto empty, arrow::MakeEmptyArray(type));
    out->value = empty->data();
    return Status::OK();
  }
  plan::EvalContext ctx;
  ARROW_ASSIGN_OR_RAISE(const bool failfast, ConstantBool(batch, 2));
  ARROW_ASSIGN_OR_RAISE(ctx.time_zone, ConstantText(batch, 3));
  const auto read_type = ReadType(type);
  ARROW_ASSIGN_OR_RAISE(auto builder, arrow::MakeBuilder(read_type));
  dom::parser parser;
  for (int64_t i = 0; i < texts.length(); ++i) {
    if (texts.IsNull(i) || Blank(texts.GetView(i))) {
      ARROW_RETURN_NOT_OK(builder->AppendNull());
      continue;
    }
    auto parsed = ParseFirst(parser, texts.GetView(i));
    std::optional<bool> whole;
    if (!parsed.error()) {
      ARROW_ASSIGN_OR_RAISE(whole, AppendRecord(parsed.value(), *type, builder.get()));
    }
    if (failfast && whole != true) return MalformedRecord(texts.GetView(i));
    if (whole) continue;
    // Malformed as a whole: a struct of NULLs (Spark's row of nulls), or a NULL array or map.
    if (read_type->id() == arrow::Type::STRUCT) {
      auto* row = static_cast<arrow::StructBuilder*>(builder.get());
      ARROW_RETURN_NOT_OK(row->Append());
      for (int f = 0; f < row->num_fields(); ++f) {
        ARROW_RETURN_NOT_OK(row->field_builder(f)->AppendNull());
      }
    } else {
      ARROW_RETURN_NOT_OK(builder->AppendNull());
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto decoded, builder->Finish());
  ARROW_ASSIGN_OR_RAISE(auto data, ConvertTimes(decoded->data(), type, ctx, failfast));
  out->value = std::move(data);
  return Status::OK();
}

// --- to_json ----------------------------------------------------------------------------------

struct ToJsonOptions {
  bool ignore_null_fields = true;
  plan::EvalContext ctx;
  std::string timestamp_format;  // empty: Spark's yyyy-MM-dd'T'HH:mm:ss.SSSXXX
};

// Writes the rows of an array of one type; built once per batch, a writer per node of the type.
class JsonWriter {
 public:
  static Result<std::unique_ptr<JsonWriter>> Make(const std::shared_ptr<arrow::Array>& array,
                                                  const ToJsonOptions& options) {
    auto writer = std::unique_ptr<JsonWriter>(new JsonWriter(array, options));
    ARROW_RETURN_NOT_OK(writer->Prepare());
    return writer;
  }

  // Appends row i's value (not NULL) as JSON.
  void Write(int64_t i, std::string* out) const {
    const auto& a = *array_;
    switch (a.type_id()) {
      case arrow::Type::STRUCT: {
        const auto& t = *a.type();
        out->push_back('{');
        bool first = true;
        for (int f = 0; f < t.num_fields(); ++f) {
          const auto& child = children_[static_cast<size_t>(f)];
          bool null = child->array_->IsNull(i);
          if (null && options_.ignore_null_fields) continue;
          if (!first) out->push_back(',');
          first = false;
          AppendQuoted(t.field(f)->name(), out);
          out->push_back(':');
          if (null) {
            *out += "null";
          } else {
            child->Write(i, out);
          }
        }
        out->push_back('}');
        return;
      }
      case arrow::Type::LIST: {
        const auto& list = static_cast<const arrow::ListArray&>(a);
        out->push_back('[');
        for (int64_t k = list.value_offset(i); k < list.value_offset(i + 1); ++k) {
          if (k > list.value_offset(i)) out->push_back(',');
          children_[0]->WriteOrNull(k, out);
        }
        out->push_back(']');
        return;
      }
      case arrow::Type::MAP: {
        const auto& map = static_cast<const arrow::MapArray&>(a);
        out->push_back('{');
        for (int64_t k = map.value_offset(i); k < map.value_offset(i + 1); ++k) {
          if (k > map.value_offset(i)) out->push_back(',');
          std::string key;
          children_[0]->Write(k, &key);
          if (key.size() >= 2 && key.front() == '"') {
            out->append(key);  // text keys are quoted already
          } else {
            AppendQuoted(key, out);
          }
          out->push_back(':');
          children_[1]->WriteOrNull(k, out);
        }
        out->push_back('}');
        return;
      }
      case arrow::Type::BOOL:
        *out += static_cast<const arrow::BooleanArray&>(a).Value(i) ? "true" : "false";
        return;
      case arrow::Type::INT8: *out += std::to_string(static_cast<const arrow::Int8Array&>(a).Value(i)); return;
      case arrow::Type::INT16: *out += std::to_string(static_cast<const arrow::Int16Array&>(a).Value(i)); return;
      case arrow::Type::INT32: *out += std::to_string(static_cast<const arrow::Int32Array&>(a).Value(i)); return;
      case arrow::Type::INT64: *out += std::to_string(static_cast<const arrow::Int64Array&>(a).Value(i)); return;
      case arrow::Type::FLOAT:
        WriteFloat(static_cast<const arrow::FloatArray&>(a).Value(i), out);
        return;
      case arrow::Type::DOUBLE:
        WriteFloat(static_cast<const arrow::DoubleArray&>(a).Value(i), out);
        return;
      case arrow::Type::DECIMAL128: {
        const auto& d = static_cast<const arrow::Decimal128Array&>(a);
        const auto& t = static_cast<const arrow::Decimal128Type&>(*a.type());
        *out += arrow::Decimal128(d.GetValue(i)).ToString(t.scale());
        return;
      }
      case arrow::Type::STRING:
        AppendQuoted(static_cast<const arrow::StringArray&>(a).GetView(i), out);
        return;
      case arrow::Type::BINARY:
        AppendQuoted(arrow::util::base64_encode(static_cast<const arrow::BinaryArray&>(a).GetView(i)),
                     out);
        return;
      case arrow::Type::DATE32: {
        int32_t days = static_cast<const arrow::Date32Array&>(a).Value(i);
        AppendQuoted(EpochSecondsText(int64_t{days} * 86400).substr(0, 10), out);
        return;
      }
      case arrow::Type::TIMESTAMP:
        AppendQuoted(static_cast<const arrow::StringArray&>(*times_).GetView(i), out);
        return;
      default:
        *out += "null";
    }
  }

 private:
  JsonWriter(std::shared_ptr<arrow::Array> array, const ToJsonOptions& options)
      : array_(std::move(array)), options_(options) {}

  void WriteOrNull(int64_t i, std::string* out) const {
    if (array_->IsNull(i)) {
      *out += "null";
    } else {
      Write(i, out);
    }
  }

  template <typename T>
  static void WriteFloat(T x, std::string* out) {
    // Jackson quotes the numbers JSON has no literal for.
    if (std::isfinite(x)) {
      *out += JavaNumberText(x);
    } else {
      AppendQuoted(JavaNumberText(x), out);
    }
  }

  Status Prepare() {
    switch (array_->type_id()) {
      case arrow::Type::STRUCT: {
        const auto& s = static_cast<const arrow::StructArray&>(*array_);
        for (int f = 0; f < s.num_fields(); ++f) {
          ARROW_ASSIGN_OR_RAISE(auto child, Make(s.field(f), options_));
          children_.push_back(std::move(child));
        }
        return Status::OK();
      }
      case arrow::Type::LIST: {
        ARROW_ASSIGN_OR_RAISE(auto child,
                              Make(static_cast<const arrow::ListArray&>(*array_).values(), options_));
        children_.push_back(std::move(child));
        return Status::OK();
      }
      case arrow::Type::MAP: {
        const auto& map = static_cast<const arrow::MapArray&>(*array_);
        ARROW_ASSIGN_OR_RAISE(auto keys, Make(map.keys(), options_));
        ARROW_ASSIGN_OR_RAISE(auto items, Make(map.items(), options_));
        children_.push_back(std::move(keys));
        children_.push_back(std::move(items));
        return Status::OK();
      }
      case arrow::Type::TIMESTAMP: return FormatTimes();
      default: return Status::OK();
    }
  }

  // The text of every timestamp of the array, in the session zone.
  Status FormatTimes() {
    const auto& type = static_cast<const arrow::TimestampType&>(*array_->type());
    const bool zoned = !type.timezone().empty();
    auto utc = arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
    auto instants = array_;
    if (!zoned) {
      // A local date-time (TIMESTAMP_NTZ) is written as it reads, without a zone.
      ARROW_ASSIGN_OR_RAISE(auto relabelled, cp::Cast(*array_, utc));
      instants = relabelled;
    }
    if (!options_.timestamp_format.empty()) {
      auto expr = plan::LowerFormatTimestamp(cp::field_ref("t"), options_.timestamp_format,
                                             zoned ? options_.ctx : plan::EvalContext{});
      ARROW_ASSIGN_OR_RAISE(expr, expr.Bind(*arrow::schema({arrow::field("t", utc)})));
      ARROW_ASSIGN_OR_RAISE(auto value, cp::ExecuteScalarExpression(
                                            expr, cp::ExecBatch({instants}, instants->length())));
      times_ = value.make_array();
      return Status::OK();
    }
    std::shared_ptr<arrow::Array> local = instants;
    if (zoned) {
      ARROW_ASSIGN_OR_RAISE(
          auto in_zone, cp::Cast(*instants, arrow::timestamp(arrow::TimeUnit::MICRO,
                                                             options_.ctx.time_zone)));
      ARROW_ASSIGN_OR_RAISE(auto wall, cp::CallFunction("local_timestamp", {in_zone}));
      local = wall.make_array();
    }
    const auto& at = static_cast<const arrow::TimestampArray&>(*instants);
    const auto& wall = static_cast<const arrow::TimestampArray&>(*local);
    arrow::StringBuilder text;
    for (int64_t i = 0; i < at.length(); ++i) {
      if (at.IsNull(i)) {
        ARROW_RETURN_NOT_OK(text.AppendNull());
        continue;
      }
      int64_t micros = wall.Value(i);
      int64_t seconds = micros / 1000000, fraction = micros % 1000000;
      if (fraction < 0) fraction += 1000000, --seconds;
      std::string s = EpochSecondsText(seconds);
      s.pop_back();  // its Z
      char millis[8];
      std::snprintf(millis, sizeof millis, ".%03lld", static_cast<long long>(fraction / 1000));
      s += millis;
      if (zoned) {
        int64_t offset = (micros - at.Value(i)) / 1000000;
        if (offset == 0) {
          s += "Z";
        } else {
          int64_t o = offset < 0 ? -offset : offset;
          char zone[16];
          std::snprintf(zone, sizeof zone, "%c%02lld:%02lld", offset < 0 ? '-' : '+',
                        static_cast<long long>(o / 3600), static_cast<long long>(o / 60 % 60));
          s += zone;
          if (o % 60) {
            std::snprintf(zone, sizeof zone, ":%02lld", static_cast<long long>(o % 60));
            s += zone;
          }
        }
      }
      ARROW_RETURN_NOT_OK(text.Append(s));
    }
    return text.Finish(&times_);
  }

  std::shared_ptr<arrow::Array> array_;
  const ToJsonOptions& options_;
  std::vector<std::unique_ptr<JsonWriter>> children_;
  std::shared_ptr<arrow::Array> times_;  // timestamps: their text
};

// ember_to_json(value, ignore null fields, session time zone, timestampFormat, dateFormat).
Status ToJsonExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto values, ArgArray(batch, 0));
  ToJsonOptions options;
  ARROW_ASSIGN_OR_RAISE(options.ignore_null_fields, ConstantBool(batch, 1));
  ARROW_ASSIGN_OR_RAISE(options.ctx.time_zone, ConstantText(batch, 2));
  ARROW_ASSIGN_OR_RAISE(options.timestamp_format, ConstantText(batch, 3));
  ARROW_ASSIGN_OR_RAISE(auto date_format, ConstantText(batch, 4));
  if (!date_format.empty()) {
    return UserError(ErrorKind::kUnsupportedOperation, "UNSUPPORTED_FEATURE",
                     "to_json with the option dateFormat is not supported by Ember.", "0A000");
  }
  ARROW_ASSIGN_OR_RAISE(auto writer, JsonWriter::Make(values, options));
  arrow::StringBuilder builder;
  std::string text;
  for (int64_t i = 0; i < values->length(); ++i) {
    if (values->IsNull(i)) {
      ARROW_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    text.clear();
    writer->Write(i, &text);
    ARROW_RETURN_NOT_OK(builder.Append(text));
  }
  ARROW_ASSIGN_OR_RAISE(auto result, builder.Finish());
  out->value = result->data();
  return Status::OK();
}

// --- get_json_object --------------------------------------------------------------------------

// A step of a JSON path: a field, an array index, or every element ([*]).
struct PathStep {
  enum class Kind { kField, kIndex, kEvery } kind;
  std::string field;
  int64_t index = 0;
};

// Spark's JsonPathParser: $ then .name, ['name'], [n] or [*]; nullopt where it reads no path.
std::optional<std::vector<PathStep>> ParsePath(std::string_view path) {
  if (path.empty() || path[0] != '$') return std::nullopt;
  std::vector<PathStep> steps;
  size_t i = 1;
  while (i < path.size()) {
    if (path[i] == '.') {
      size_t end = path.find_first_of(".[", i + 1);
      if (end == std::string_view::npos) end = path.size();
      std::string name(path.substr(i + 1, end - i - 1));
      if (name.empty() || name == "*") return std::nullopt;
      steps.push_back({PathStep::Kind::kField, name});
      i = end;
    } else if (path[i] == '[') {
      size_t end = path.find(']', i);
      if (end == std::string_view::npos) return std::nullopt;
      std::string_view inside = path.substr(i + 1, end - i - 1);
      if (inside == "*") {
        steps.push_back({PathStep::Kind::kEvery, ""});
      } else if (inside.size() >= 2 && inside.front() == '\'' && inside.back() == '\'') {
        steps.push_back({PathStep::Kind::kField, std::string(inside.substr(1, inside.size() - 2))});
      } else if (!inside.empty() &&
                 std::all_of(inside.begin(), inside.end(), [](char c) { return std::isdigit(c); })) {
        steps.push_back({PathStep::Kind::kIndex, "", std::stoll(std::string(inside))});
      } else {
        return std::nullopt;
      }
      i = end + 1;
    } else {
      return std::nullopt;
    }
  }
  return steps;
}

// Follows steps without [*] from v; nullopt where the value has no such part.
std::optional<dom::element> Follow(dom::element v, const PathStep& step) {
  if (step.kind == PathStep::Kind::kField) {
    if (v.type() != dom::element_type::OBJECT) return std::nullopt;
    auto found = dom::object(v).at_key(step.field);
    if (found.error()) return std::nullopt;
    return found.value();
  }
  if (v.type() != dom::element_type::ARRAY) return std::nullopt;
  auto found = dom::array(v).at(static_cast<size_t>(step.index));
  if (found.error()) return std::nullopt;
  return found.value();
}

// The JSON texts a path with [*] matches from v (Spark's evaluatePath): [*] last gives the
// array itself, [*][*] its arrays' elements, [*] before more steps one match per element.
void Matches(dom::element v, const PathStep* step, const PathStep* end,
             std::vector<std::string>* out) {
  for (; step != end && step->kind != PathStep::Kind::kEvery; ++step) {
    auto next = Follow(v, *step);
    if (!next) return;
    v = *next;
  }
  if (step == end) {
    if (v.type() != dom::element_type::NULL_VALUE) {
      std::string text;
      AppendJson(v, &text);
      out->push_back(std::move(text));
    }
    return;
  }
  if (v.type() != dom::element_type::ARRAY) return;
  const PathStep* rest = step + 1;
  std::vector<std::string> found;
  if (rest == end) {
    std::string text;
    AppendJson(v, &text);
    out->push_back(std::move(text));
    return;
  }
  if (rest->kind == PathStep::Kind::kEvery && rest + 1 == end) {
    // [*][*]: the elements of the elements, flattened into one array.
    std::string text = "[";
    bool first = true;
    for (auto e : dom::array(v)) {
      if (e.type() != dom::element_type::ARRAY) continue;
      for (auto inner : dom::array(e)) {
        if (!first) text += ",";
        first = false;
        AppendJson(inner, &text);
      }
    }
    out->push_back(text + "]");
    return;
  }
  for (auto e : dom::array(v)) Matches(e, rest, end, &found);
  if (found.size() == 1) {
    out->push_back(std::move(found[0]));
  } else if (!found.empty()) {
    std::string text = "[";
    for (size_t k = 0; k < found.size(); ++k) text += (k ? "," : "") + found[k];
    out->push_back(text + "]");
  }
}

// ember_get_json_object(json, path).
Status GetJsonObjectExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto json_array, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto path_array, ArgArray(batch, 1));
  const auto& json = static_cast<const arrow::StringArray&>(*json_array);
  const auto& paths = static_cast<const arrow::StringArray&>(*path_array);
  arrow::StringBuilder builder;
  dom::parser parser;
  std::string last_path;
  std::optional<std::vector<PathStep>> steps;
  bool parsed_once = false;
  for (int64_t i = 0; i < json.length(); ++i) {
    if (json.IsNull(i) || paths.IsNull(i)) {
      ARROW_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    if (!parsed_once || paths.GetView(i) != last_path) {
      last_path = std::string(paths.GetView(i));
      steps = ParsePath(last_path);
      parsed_once = true;
    }
    auto parsed = steps ? ParseFirst(parser, json.GetView(i)) : simdjson::simdjson_result<dom::element>(simdjson::TAPE_ERROR);
    if (!steps || parsed.error()) {
      ARROW_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    bool wildcard = std::any_of(steps->begin(), steps->end(),
                                [](const PathStep& s) { return s.kind == PathStep::Kind::kEvery; });
    if (!wildcard) {
      std::optional<dom::element> v = parsed.value();
      for (const auto& step : *steps) {
        if (v) v = Follow(*v, step);
      }
      if (!v || v->type() == dom::element_type::NULL_VALUE) {
        ARROW_RETURN_NOT_OK(builder.AppendNull());
      } else {
        ARROW_RETURN_NOT_OK(builder.Append(TextOf(*v)));
      }
      continue;
    }
    std::vector<std::string> found;
    Matches(parsed.value(), steps->data(), steps->data() + steps->size(), &found);
    if (found.empty()) {
      ARROW_RETURN_NOT_OK(builder.AppendNull());
    } else {
      ARROW_RETURN_NOT_OK(builder.Append(found[0]));
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto result, builder.Finish());
  out->value = result->data();
  return Status::OK();
}

// --- json_tuple, json_array_length, json_object_keys ------------------------------------------

// ember_json_tuple(json, NULL of the result type, name...): per row an array of one struct of
// the named fields' values as text (NULL for a missing or null field; all NULL for NULL input or
// input that is no JSON object).
Status JsonTupleExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto json_array, ArgArray(batch, 0));
  const auto& json = static_cast<const arrow::StringArray&>(*json_array);
  const auto type = batch[1].type()->GetSharedPtr();
  std::vector<std::shared_ptr<arrow::StringArray>> names;
  for (int k = 2; k < batch.num_values(); ++k) {
    ARROW_ASSIGN_OR_RAISE(auto name, ArgArray(batch, k));
    names.push_back(std::static_pointer_cast<arrow::StringArray>(name));
  }
  ARROW_ASSIGN_OR_RAISE(auto builder, arrow::MakeBuilder(type));
  auto* list = static_cast<arrow::ListBuilder*>(builder.get());
  auto* row = static_cast<arrow::StructBuilder*>(list->value_builder());
  dom::parser parser;
  for (int64_t i = 0; i < json.length(); ++i) {
    ARROW_RETURN_NOT_OK(list->Append());
    ARROW_RETURN_NOT_OK(row->Append());
    std::optional<dom::object> object;
    if (auto v = ParseRow(parser, json, i); v && v->type() == dom::element_type::OBJECT) {
      object = dom::object(*v);
    }
    for (size_t k = 0; k < names.size(); ++k) {
      auto* field = static_cast<arrow::StringBuilder*>(row->field_builder(static_cast<int>(k)));
      std::optional<dom::element> value;
      if (object && !names[k]->IsNull(i)) {
        auto found = object->at_key(names[k]->GetView(i));
        if (!found.error()) value = found.value();
      }
      if (!value || value->type() == dom::element_type::NULL_VALUE) {
        ARROW_RETURN_NOT_OK(field->AppendNull());
      } else {
        ARROW_RETURN_NOT_OK(field->Append(TextOf(*value)));
      }
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto result, builder->Finish());
  out->value = result->data();
  return Status::OK();
}

// ember_json_array_length(json): the outer array's elements; NULL for other or malformed JSON.
Status JsonArrayLengthExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto json_array, ArgArray(batch, 0));
  const auto& json = static_cast<const arrow::StringArray&>(*json_array);
  arrow::Int32Builder builder;
  dom::parser parser;
  for (int64_t i = 0; i < json.length(); ++i) {
    auto v = ParseRow(parser, json, i);
    if (!v || v->type() != dom::element_type::ARRAY) {
      ARROW_RETURN_NOT_OK(builder.AppendNull());
    } else {
      ARROW_RETURN_NOT_OK(builder.Append(static_cast<int32_t>(dom::array(*v).size())));
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto result, builder.Finish());
  out->value = result->data();
  return Status::OK();
}

// ember_json_object_keys(json): the outer object's keys in order; NULL for other JSON.
Status JsonObjectKeysExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto json_array, ArgArray(batch, 0));
  const auto& json = static_cast<const arrow::StringArray&>(*json_array);
  ARROW_ASSIGN_OR_RAISE(auto builder, arrow::MakeBuilder(plan::ArrayOf(arrow::utf8(), false)));
  auto* list = static_cast<arrow::ListBuilder*>(builder.get());
  auto* keys = static_cast<arrow::StringBuilder*>(list->value_builder());
  dom::parser parser;
  for (int64_t i = 0; i < json.length(); ++i) {
    auto v = ParseRow(parser, json, i);
    if (!v || v->type() != dom::element_type::OBJECT) {
      ARROW_RETURN_NOT_OK(list->AppendNull());
      continue;
    }
    ARROW_RETURN_NOT_OK(list->Append());
    for (auto [key, value] : dom::object(*v)) ARROW_RETURN_NOT_OK(keys->Append(key));
  }
  ARROW_ASSIGN_OR_RAISE(auto result, builder->Finish());
  out->value = result->data();
  return Status::OK();
}

Result<arrow::TypeHolder> SecondArgType(cp::KernelContext*, const std::vector<arrow::TypeHolder>& args) {
  return args[1];
}

}  // namespace

arrow::Status RegisterJsonKernels(cp::FunctionRegistry* registry) {
  const cp::InputType text(arrow::Type::STRING);
  const cp::InputType any = cp::InputType::Any();
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_from_json", cp::Arity(4),
                                      {text, any, cp::InputType(arrow::Type::BOOL), text},
                                      cp::OutputType(SecondArgType), FromJsonExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_to_json", cp::Arity(5),
                                      {any, cp::InputType(arrow::Type::BOOL), text, text, text},
                                      cp::OutputType(arrow::utf8()), ToJsonExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_get_json_object", cp::Arity::Binary(),
                                      {text, text}, cp::OutputType(arrow::utf8()),
                                      GetJsonObjectExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_json_array_length", cp::Arity::Unary(),
                                      {text}, cp::OutputType(arrow::int32()), JsonArrayLengthExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_json_object_keys", cp::Arity::Unary(),
                                      {text}, cp::OutputType(plan::ArrayOf(arrow::utf8(), false)),
                                      JsonObjectKeysExec));
  auto tuple = std::make_shared<cp::ScalarFunction>("ember_json_tuple", cp::Arity::VarArgs(3),
                                                    cp::FunctionDoc("json_tuple's rows", "", {"args"}));
  cp::ScalarKernel kernel(cp::KernelSignature::Make({text, any, text}, cp::OutputType(SecondArgType),
                                                    /*is_varargs=*/true),
                          JsonTupleExec);
  kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
  kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
  ARROW_RETURN_NOT_OK(tuple->AddKernel(std::move(kernel)));
  return registry->AddFunction(std::move(tuple));
}

}  // namespace ember::exec
