#include "ember/plan/type_names.h"

#include <algorithm>
#include <cctype>

#include <arrow/type.h>
#include <nlohmann/json.hpp>

#include "ember/error.h"

namespace ember::plan {

std::shared_ptr<arrow::DataType> TimestampType() {
  return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
}

std::shared_ptr<arrow::DataType> ArrayOf(std::shared_ptr<arrow::DataType> element,
                                         bool contains_null) {
  return arrow::list(arrow::field("element", std::move(element), contains_null));
}

std::shared_ptr<arrow::DataType> MapOf(std::shared_ptr<arrow::DataType> key,
                                       std::shared_ptr<arrow::DataType> value,
                                       bool value_contains_null) {
  return std::make_shared<arrow::MapType>(arrow::field("key", std::move(key), false),
                                          arrow::field("value", std::move(value),
                                                       value_contains_null));
}

std::string SparkTypeName(const arrow::DataType& type, bool upper) {
  std::string name;
  switch (type.id()) {
    case arrow::Type::NA: name = "void"; break;
    case arrow::Type::BOOL: name = "boolean"; break;
    case arrow::Type::INT8: name = "tinyint"; break;
    case arrow::Type::INT16: name = "smallint"; break;
    case arrow::Type::INT32: name = "int"; break;
    case arrow::Type::INT64: name = "bigint"; break;
    case arrow::Type::FLOAT: name = "float"; break;
    case arrow::Type::DOUBLE: name = "double"; break;
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING: name = "string"; break;
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY: name = "binary"; break;
    case arrow::Type::DATE32: name = "date"; break;
    case arrow::Type::TIMESTAMP: {
      const auto& ts = static_cast<const arrow::TimestampType&>(type);
      name = ts.timezone().empty() ? "timestamp_ntz" : "timestamp";
      break;
    }
    case arrow::Type::DECIMAL128: {
      const auto& d = static_cast<const arrow::Decimal128Type&>(type);
      name = "decimal(" + std::to_string(d.precision()) + "," + std::to_string(d.scale()) + ")";
      break;
    }
    case arrow::Type::LIST: {
      const auto& l = static_cast<const arrow::ListType&>(type);
      return (upper ? "ARRAY<" : "array<") + SparkTypeName(*l.value_type(), upper) + ">";
    }
    case arrow::Type::MAP: {
      const auto& m = static_cast<const arrow::MapType&>(type);
      return (upper ? "MAP<" : "map<") + SparkTypeName(*m.key_type(), upper) + (upper ? ", " : ",") +
             SparkTypeName(*m.item_type(), upper) + ">";
    }
    case arrow::Type::STRUCT: {
      std::string out = upper ? "STRUCT<" : "struct<";
      for (int i = 0; i < type.num_fields(); ++i) {
        out += (i ? "," : "") + type.field(i)->name() + (upper ? ": " : ":") +
               SparkTypeName(*type.field(i)->type(), upper);
      }
      return out + ">";
    }
    default: name = type.ToString(); break;
  }
  if (upper) std::transform(name.begin(), name.end(), name.begin(), ::toupper);
  return name;
}

bool IsSupportedType(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::NA: case arrow::Type::BOOL: case arrow::Type::INT8:
    case arrow::Type::INT16: case arrow::Type::INT32: case arrow::Type::INT64:
    case arrow::Type::FLOAT: case arrow::Type::DOUBLE: case arrow::Type::STRING:
    case arrow::Type::BINARY: case arrow::Type::DATE32: case arrow::Type::DECIMAL128:
      return true;
    case arrow::Type::TIMESTAMP:
      return static_cast<const arrow::TimestampType&>(type).unit() == arrow::TimeUnit::MICRO;
    case arrow::Type::LIST: case arrow::Type::MAP: case arrow::Type::STRUCT:
      for (const auto& f : type.fields()) {
        if (!IsSupportedType(*f->type())) return false;
      }
      return true;
    default:
      return false;
  }
}

namespace {

// A small recursive-descent reader over a type name.
class TypeNameReader {
 public:
  explicit TypeNameReader(const std::string& text) : text_(text) {}

  arrow::Result<std::shared_ptr<arrow::DataType>> ReadAll() {
    ARROW_ASSIGN_OR_RAISE(auto type, Read());
    SkipSpace();
    if (pos_ != text_.size()) return Error();
    return type;
  }

 private:
  arrow::Result<std::shared_ptr<arrow::DataType>> Read() {
    std::string word = Word();
    if (word == "int" || word == "integer") return arrow::int32();
    if (word == "bigint" || word == "long") return arrow::int64();
    if (word == "smallint" || word == "short") return arrow::int16();
    if (word == "tinyint" || word == "byte") return arrow::int8();
    if (word == "boolean" || word == "bool") return arrow::boolean();
    if (word == "double") return arrow::float64();
    if (word == "float" || word == "real") return arrow::float32();
    if (word == "string" || word == "text") return arrow::utf8();
    if (word == "varchar" || word == "char") {
      if (Accept('(')) {
        Number();
        if (!Accept(')')) return Error();
      }
      return arrow::utf8();
    }
    if (word == "binary") return arrow::binary();
    if (word == "date") return arrow::date32();
    if (word == "timestamp" || word == "timestamp_ltz") return TimestampType();
    if (word == "timestamp_ntz") return arrow::timestamp(arrow::TimeUnit::MICRO);
    if (word == "void") return arrow::null();
    if (word == "decimal" || word == "dec" || word == "numeric") {
      int precision = 10, scale = 0;
      if (Accept('(')) {
        precision = Number();
        if (Accept(',')) scale = Number();
        if (!Accept(')')) return Error();
      }
      if (precision < 1 || precision > 38 || scale < 0 || scale > precision) return Error();
      return arrow::decimal128(precision, scale);
    }
    if (word == "array") {
      if (!Accept('<')) return Error();
      ARROW_ASSIGN_OR_RAISE(auto element, Read());
      if (!Accept('>')) return Error();
      return ArrayOf(element);
    }
    if (word == "map") {
      if (!Accept('<')) return Error();
      ARROW_ASSIGN_OR_RAISE(auto key, Read());
      if (!Accept(',')) return Error();
      ARROW_ASSIGN_OR_RAISE(auto value, Read());
      if (!Accept('>')) return Error();
      return MapOf(key, value);
    }
    if (word == "struct") {
      if (!Accept('<')) return Error();
      arrow::FieldVector fields;
      if (!Accept('>')) {
        do {
          std::string name = Name();
          if (name.empty()) return Error();
          Accept(':');
          ARROW_ASSIGN_OR_RAISE(auto type, Read());
          // A DDL field may say NOT NULL and have a COMMENT (StructType.toDDL writes both).
          bool nullable = true;
          size_t before = pos_;
          if (Word() == "not") {
            if (Word() != "null") return Error();
            nullable = false;
            before = pos_;
          }
          pos_ = before;
          if (Word() == "comment") {
            if (!SkipQuoted()) return Error();
          } else {
            pos_ = before;
          }
          fields.push_back(arrow::field(name, type, nullable));
        } while (Accept(','));
        if (!Accept('>')) return Error();
      }
      return arrow::struct_(fields);
    }
    return UserError(ErrorKind::kParse, "UNSUPPORTED_DATATYPE",
                     "Unsupported data type \"" + Upper(word.empty() ? text_ : word) + "\".",
                     "0A000");
  }

  static std::string Upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), ::toupper);
    return s;
  }

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Accept(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string Word() {
    SkipSpace();
    std::string out;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(text_[pos_++])));
    }
    return out;
  }
  std::string Name() {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '`') {
      std::string out;
      ++pos_;
      while (pos_ < text_.size() && text_[pos_] != '`') out += text_[pos_++];
      ++pos_;
      return out;
    }
    std::string out;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      out += text_[pos_++];
    }
    return out;
  }
  // A quoted string, escapes included.
  bool SkipQuoted() {
    SkipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) return false;
    char quote = text_[pos_++];
    while (pos_ < text_.size() && text_[pos_] != quote) pos_ += text_[pos_] == '\\' ? 2 : 1;
    if (pos_ >= text_.size()) return false;
    ++pos_;
    return true;
  }
  int Number() {
    SkipSpace();
    int n = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      n = n * 10 + (text_[pos_++] - '0');
    }
    return n;
  }
  arrow::Status Error() const {
    return UserError(ErrorKind::kParse, "PARSE_SYNTAX_ERROR",
                     "Syntax error in data type '" + text_ + "' at position " +
                         std::to_string(pos_) + ".",
                     "42601");
  }

  const std::string& text_;
  size_t pos_ = 0;
};

arrow::Status UnsupportedType(const std::string& what) {
  return UserError(ErrorKind::kUnsupportedOperation, "UNSUPPORTED_DATATYPE",
                   "Unsupported data type " + what + ".", "0A000");
}

// A type in Spark's JSON form (DataType.json()).
arrow::Result<std::shared_ptr<arrow::DataType>> TypeFromJson(const nlohmann::json& type) {
  if (type.is_string()) {
    std::string name = type.get<std::string>();
    if (name == "null") return arrow::null();
    return ParseTypeName(name);
  }
  auto text = [&](const char* key) {
    return type.contains(key) && type[key].is_string() ? type[key].get<std::string>() : "";
  };
  auto flag = [&](const char* key) {
    return !type.contains(key) || !type[key].is_boolean() || type[key].get<bool>();
  };
  if (!type.is_object()) return UnsupportedType(type.dump());
  std::string kind = text("type");
  if (kind == "struct" && type.contains("fields") && type["fields"].is_array()) {
    arrow::FieldVector fields;
    for (const auto& f : type["fields"]) {
      if (!f.is_object() || !f.contains("name") || !f["name"].is_string() || !f.contains("type")) {
        return UnsupportedType(f.dump());
      }
      ARROW_ASSIGN_OR_RAISE(auto field_type, TypeFromJson(f["type"]));
      bool nullable = !f.contains("nullable") || !f["nullable"].is_boolean() || f["nullable"].get<bool>();
      fields.push_back(arrow::field(f["name"].get<std::string>(), std::move(field_type), nullable));
    }
    return arrow::struct_(std::move(fields));
  }
  if (kind == "array" && type.contains("elementType")) {
    ARROW_ASSIGN_OR_RAISE(auto element, TypeFromJson(type["elementType"]));
    return ArrayOf(std::move(element), flag("containsNull"));
  }
  if (kind == "map" && type.contains("keyType") && type.contains("valueType")) {
    ARROW_ASSIGN_OR_RAISE(auto key, TypeFromJson(type["keyType"]));
    ARROW_ASSIGN_OR_RAISE(auto value, TypeFromJson(type["valueType"]));
    return MapOf(std::move(key), std::move(value), flag("valueContainsNull"));
  }
  return UnsupportedType(type.dump());
}

}  // namespace

std::shared_ptr<arrow::DataType> AsNullableType(const std::shared_ptr<arrow::DataType>& type) {
  if (type->id() == arrow::Type::STRUCT) {
    arrow::FieldVector fields;
    for (const auto& f : type->fields()) {
      fields.push_back(arrow::field(f->name(), AsNullableType(f->type()), true, f->metadata()));
    }
    return arrow::struct_(fields);
  }
  if (type->id() == arrow::Type::LIST) {
    return ArrayOf(AsNullableType(static_cast<const arrow::ListType&>(*type).value_type()));
  }
  if (type->id() == arrow::Type::MAP) {  // a map's keys stay required, as Spark's are
    const auto& map = static_cast<const arrow::MapType&>(*type);
    return MapOf(map.key_type(), AsNullableType(map.item_type()));
  }
  return type;
}

std::shared_ptr<arrow::Schema> AsNullable(const arrow::Schema& schema) {
  arrow::FieldVector fields;
  for (const auto& f : schema.fields()) {
    fields.push_back(arrow::field(f->name(), AsNullableType(f->type()), true, f->metadata()));
  }
  return arrow::schema(fields, schema.metadata());
}

arrow::Result<std::shared_ptr<arrow::DataType>> ParseTypeName(const std::string& text) {
  return TypeNameReader(text).ReadAll();
}

arrow::Result<std::shared_ptr<arrow::DataType>> ParseSchemaString(const std::string& text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '"')) {
    auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) {
      return UserError(ErrorKind::kParse, "PARSE_SYNTAX_ERROR", "Invalid schema JSON: " + text,
                       "42601");
    }
    return TypeFromJson(json);
  }
  // DDL: a field list ("a INT, b STRING") or a type name ("int", "struct<a:int>").
  auto as_type = ParseTypeName(text);
  if (as_type.ok()) return as_type;
  return ParseTypeName("struct<" + text + ">");
}

}  // namespace ember::plan
