#include "ember/iceberg/schema.h"

#include <arrow/type.h>
#include <arrow/util/key_value_metadata.h>
#include <nlohmann/json.hpp>

#include "ember/error.h"
#include "ember/iceberg/json_integer.h"

namespace ember::iceberg {

using arrow::Result;
using nlohmann::json;

namespace {

std::shared_ptr<arrow::Field> WithId(const std::shared_ptr<arrow::Field>& field, int id,
                                     std::shared_ptr<arrow::DataType> type) {
  auto metadata = arrow::key_value_metadata({kFieldIdKey}, {std::to_string(id)});
  return arrow::field(field->name(), std::move(type), field->nullable(), metadata);
}

// Ids in Iceberg's order: a struct's own fields take consecutive ids, then nested types theirs.
std::shared_ptr<arrow::DataType> AssignNested(const std::shared_ptr<arrow::DataType>& type, int* next);

arrow::FieldVector AssignFields(const arrow::FieldVector& fields, int* next) {
  std::vector<int> ids;
  for (size_t i = 0; i < fields.size(); ++i) ids.push_back((*next)++);
  arrow::FieldVector out;
  for (size_t i = 0; i < fields.size(); ++i) {
    out.push_back(WithId(fields[i], ids[i], AssignNested(fields[i]->type(), next)));
  }
  return out;
}

std::shared_ptr<arrow::DataType> AssignNested(const std::shared_ptr<arrow::DataType>& type, int* next) {
  switch (type->id()) {
    case arrow::Type::STRUCT:
      return arrow::struct_(AssignFields(type->fields(), next));
    case arrow::Type::LIST: {
      auto element = static_cast<const arrow::ListType&>(*type).value_field();
      int id = (*next)++;
      return arrow::list(WithId(element, id, AssignNested(element->type(), next)));
    }
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(*type);
      int key_id = (*next)++;
      int value_id = (*next)++;
      auto key = WithId(map.key_field(), key_id, AssignNested(map.key_type(), next));
      auto item = WithId(map.item_field(), value_id, AssignNested(map.item_type(), next));
      return std::make_shared<arrow::MapType>(key, item);
    }
    default:
      return type;
  }
}

Result<json> TypeToJson(const std::shared_ptr<arrow::DataType>& type);

Result<json> FieldToJson(const arrow::Field& field) {
  ARROW_ASSIGN_OR_RAISE(auto type, TypeToJson(field.type()));
  return json{{"id", FieldId(field)}, {"name", field.name()}, {"required", !field.nullable()},
              {"type", type}};
}

Result<json> TypeToJson(const std::shared_ptr<arrow::DataType>& type) {
  switch (type->id()) {
    case arrow::Type::STRUCT: {
      json fields = json::array();
      for (const auto& f : type->fields()) {
        ARROW_ASSIGN_OR_RAISE(auto j, FieldToJson(*f));
        fields.push_back(j);
      }
      return json{{"type", "struct"}, {"fields", fields}};
    }
    case arrow::Type::LIST: {
      auto element = static_cast<const arrow::ListType&>(*type).value_field();
      ARROW_ASSIGN_OR_RAISE(auto element_type, TypeToJson(element->type()));
      return json{{"type", "list"}, {"element-id", FieldId(*element)},
                  {"element", element_type}, {"element-required", !element->nullable()}};
    }
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(*type);
      ARROW_ASSIGN_OR_RAISE(auto key, TypeToJson(map.key_type()));
      ARROW_ASSIGN_OR_RAISE(auto value, TypeToJson(map.item_type()));
      return json{{"type", "map"}, {"key-id", FieldId(*map.key_field())}, {"key", key},
                  {"value-id", FieldId(*map.item_field())}, {"value", value},
                  {"value-required", !map.item_field()->nullable()}};
    }
    default: {
      ARROW_ASSIGN_OR_RAISE(auto name, IcebergTypeName(*type));
      return json(name);
    }
  }
}

Result<std::shared_ptr<arrow::DataType>> TypeFromJson(const json& j);

// The field id `j[key]` as Arrow field metadata.
std::shared_ptr<const arrow::KeyValueMetadata> FieldIdMetadata(const json& j, const char* key) {
  return arrow::key_value_metadata({kFieldIdKey}, {std::to_string(JsonInteger<int>(j.at(key), key))});
}

Result<std::shared_ptr<arrow::Field>> FieldFromJson(const json& j) {
  ARROW_ASSIGN_OR_RAISE(auto type, TypeFromJson(j.at("type")));
  auto metadata = FieldIdMetadata(j, "id");
  return arrow::field(j.at("name").get<std::string>(), type, !j.value("required", false), metadata);
}

Result<std::shared_ptr<arrow::DataType>> TypeFromJson(const json& j) {
  if (j.is_string()) {
    std::string t = j.get<std::string>();
    if (t == "boolean") return arrow::boolean();
    if (t == "int") return arrow::int32();
    if (t == "long") return arrow::int64();
    if (t == "float") return arrow::float32();
    if (t == "double") return arrow::float64();
    if (t == "string") return arrow::utf8();
    if (t == "binary") return arrow::binary();
    if (t == "date") return arrow::date32();
    if (t == "timestamptz") return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
    if (t == "timestamp") return arrow::timestamp(arrow::TimeUnit::MICRO);
    if (t.rfind("decimal(", 0) == 0) {
      int p = 0, s = 0;
      if (std::sscanf(t.c_str(), "decimal(%d,%d)", &p, &s) == 2 ||
          std::sscanf(t.c_str(), "decimal(%d, %d)", &p, &s) == 2) {
        return arrow::decimal128(p, s);
      }
    }
    return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_DATATYPE",
                     "Unsupported Iceberg type \"" + t + "\".", "0A000");
  }
  std::string kind = j.at("type").get<std::string>();
  if (kind == "struct") {
    arrow::FieldVector fields;
    for (const auto& f : j.at("fields")) {
      ARROW_ASSIGN_OR_RAISE(auto field, FieldFromJson(f));
      fields.push_back(field);
    }
    return arrow::struct_(fields);
  }
  if (kind == "list") {
    ARROW_ASSIGN_OR_RAISE(auto element, TypeFromJson(j.at("element")));
    auto metadata = FieldIdMetadata(j, "element-id");
    return arrow::list(arrow::field("element", element, !j.value("element-required", false), metadata));
  }
  if (kind == "map") {
    ARROW_ASSIGN_OR_RAISE(auto key, TypeFromJson(j.at("key")));
    ARROW_ASSIGN_OR_RAISE(auto value, TypeFromJson(j.at("value")));
    auto key_field = arrow::field("key", key, false, FieldIdMetadata(j, "key-id"));
    auto value_field = arrow::field("value", value, !j.value("value-required", false),
                                    FieldIdMetadata(j, "value-id"));
    return std::make_shared<arrow::MapType>(key_field, value_field);
  }
  return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_DATATYPE",
                   "Unsupported Iceberg type \"" + kind + "\".", "0A000");
}

}  // namespace

std::shared_ptr<arrow::Schema> AssignFieldIds(const arrow::Schema& schema, int* last_column_id) {
  int next = 1;
  auto fields = AssignFields(schema.fields(), &next);
  *last_column_id = next - 1;
  return arrow::schema(fields);
}

int FieldId(const arrow::Field& field) {
  if (!field.metadata()) return -1;
  auto value = field.metadata()->Get(kFieldIdKey);
  return value.ok() ? std::stoi(*value) : -1;
}

json SchemaToJson(const arrow::Schema& schema, int schema_id) {
  json fields = json::array();
  for (const auto& f : schema.fields()) {
    auto j = FieldToJson(*f);
    fields.push_back(j.ok() ? *j : json());
  }
  return json{{"type", "struct"}, {"schema-id", schema_id}, {"fields", fields}};
}

Result<std::shared_ptr<arrow::Schema>> SchemaFromJson(const json& j) {
  arrow::FieldVector fields;
  for (const auto& f : j.at("fields")) {
    ARROW_ASSIGN_OR_RAISE(auto field, FieldFromJson(f));
    fields.push_back(field);
  }
  return arrow::schema(fields);
}

Result<std::string> IcebergTypeName(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::BOOL: return "boolean";
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32: return "int";
    case arrow::Type::INT64: return "long";
    case arrow::Type::FLOAT: return "float";
    case arrow::Type::DOUBLE: return "double";
    case arrow::Type::STRING: return "string";
    case arrow::Type::BINARY: return "binary";
    case arrow::Type::DATE32: return "date";
    case arrow::Type::TIMESTAMP:
      return static_cast<const arrow::TimestampType&>(type).timezone().empty() ? "timestamp"
                                                                                : "timestamptz";
    case arrow::Type::DECIMAL128: {
      const auto& d = static_cast<const arrow::Decimal128Type&>(type);
      return "decimal(" + std::to_string(d.precision()) + ", " + std::to_string(d.scale()) + ")";
    }
    default:
      return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_DATATYPE",
                       "Iceberg has no type for \"" + type.ToString() + "\".", "0A000");
  }
}

}  // namespace ember::iceberg
