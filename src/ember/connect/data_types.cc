#include "ember/connect/data_types.h"

#include <arrow/array.h>
#include <arrow/scalar.h>
#include <arrow/type.h>

#include "ember/error.h"
#include "ember/plan/type_names.h"
#include "spark/connect/expressions.pb.h"
#include "spark/connect/types.pb.h"

namespace ember::connect {

namespace pb = spark::connect;
using arrow::Result;

namespace {

arrow::Status Unsupported(const std::string& what) {
  return UserError(ErrorKind::kUnsupportedOperation, "UNSUPPORTED_DATATYPE",
                   "Unsupported data type " + what + ".", "0A000");
}


}  // namespace

Result<std::shared_ptr<arrow::DataType>> FromProto(const pb::DataType& type) {
  switch (type.kind_case()) {
    case pb::DataType::kNull: return arrow::null();
    case pb::DataType::kBinary: return arrow::binary();
    case pb::DataType::kBoolean: return arrow::boolean();
    case pb::DataType::kByte: return arrow::int8();
    case pb::DataType::kShort: return arrow::int16();
    case pb::DataType::kInteger: return arrow::int32();
    case pb::DataType::kLong: return arrow::int64();
    case pb::DataType::kFloat: return arrow::float32();
    case pb::DataType::kDouble: return arrow::float64();
    case pb::DataType::kDecimal: {
      int precision = type.decimal().has_precision() ? type.decimal().precision() : 10;
      int scale = type.decimal().has_scale() ? type.decimal().scale() : 0;
      return arrow::decimal128(precision, scale);
    }
    case pb::DataType::kString:
    case pb::DataType::kChar:
    case pb::DataType::kVarChar: return arrow::utf8();
    case pb::DataType::kDate: return arrow::date32();
    case pb::DataType::kTimestamp: return plan::TimestampType();
    case pb::DataType::kTimestampNtz: return arrow::timestamp(arrow::TimeUnit::MICRO);
    case pb::DataType::kArray: {
      ARROW_ASSIGN_OR_RAISE(auto element, FromProto(type.array().element_type()));
      return arrow::list(arrow::field("element", std::move(element), type.array().contains_null()));
    }
    case pb::DataType::kStruct: {
      arrow::FieldVector fields;
      for (const auto& f : type.struct_().fields()) {
        ARROW_ASSIGN_OR_RAISE(auto field_type, FromProto(f.data_type()));
        fields.push_back(arrow::field(f.name(), std::move(field_type), f.nullable()));
      }
      return arrow::struct_(std::move(fields));
    }
    case pb::DataType::kMap: {
      ARROW_ASSIGN_OR_RAISE(auto key, FromProto(type.map().key_type()));
      ARROW_ASSIGN_OR_RAISE(auto value, FromProto(type.map().value_type()));
      return plan::MapOf(std::move(key), std::move(value), type.map().value_contains_null());
    }
    case pb::DataType::kUnparsed: return plan::ParseSchemaString(type.unparsed().data_type_string());
    default: return Unsupported(type.ShortDebugString());
  }
}

arrow::Status ToProto(const arrow::DataType& type, pb::DataType* out) {
  switch (type.id()) {
    case arrow::Type::NA: out->mutable_null(); break;
    case arrow::Type::BOOL: out->mutable_boolean(); break;
    case arrow::Type::INT8: out->mutable_byte(); break;
    case arrow::Type::INT16: out->mutable_short_(); break;
    case arrow::Type::INT32: out->mutable_integer(); break;
    case arrow::Type::INT64: out->mutable_long_(); break;
    case arrow::Type::FLOAT: out->mutable_float_(); break;
    case arrow::Type::DOUBLE: out->mutable_double_(); break;
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING: out->mutable_string(); break;
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY: out->mutable_binary(); break;
    case arrow::Type::DATE32: out->mutable_date(); break;
    case arrow::Type::TIMESTAMP:
      if (static_cast<const arrow::TimestampType&>(type).timezone().empty()) {
        out->mutable_timestamp_ntz();
      } else {
        out->mutable_timestamp();
      }
      break;
    case arrow::Type::DECIMAL128: {
      const auto& decimal = static_cast<const arrow::Decimal128Type&>(type);
      out->mutable_decimal()->set_precision(decimal.precision());
      out->mutable_decimal()->set_scale(decimal.scale());
      break;
    }
    case arrow::Type::LIST: {
      const auto& element = static_cast<const arrow::ListType&>(type).value_field();
      auto* array = out->mutable_array();
      array->set_contains_null(element->nullable());
      return ToProto(*element->type(), array->mutable_element_type());
    }
    case arrow::Type::MAP: {
      const auto& map_type = static_cast<const arrow::MapType&>(type);
      auto* map = out->mutable_map();
      map->set_value_contains_null(map_type.item_field()->nullable());
      ARROW_RETURN_NOT_OK(ToProto(*map_type.key_type(), map->mutable_key_type()));
      return ToProto(*map_type.item_type(), map->mutable_value_type());
    }
    case arrow::Type::STRUCT: {
      auto* fields = out->mutable_struct_();
      for (const auto& f : type.fields()) {
        auto* field = fields->add_fields();
        field->set_name(f->name());
        field->set_nullable(f->nullable());
        ARROW_RETURN_NOT_OK(ToProto(*f->type(), field->mutable_data_type()));
      }
      break;
    }
    default:
      return Unsupported(type.ToString());
  }
  return arrow::Status::OK();
}

arrow::Status ToProto(const arrow::Schema& schema, pb::DataType* out) {
  return ToProto(arrow::StructType(schema.fields()), out);
}

arrow::Status ToProto(const arrow::Scalar& value, pb::Expression::Literal* out) {
  if (!value.is_valid) {
    out->mutable_null()->mutable_null();
    return arrow::Status::OK();
  }
  switch (value.type->id()) {
    case arrow::Type::BOOL: out->set_boolean(static_cast<const arrow::BooleanScalar&>(value).value); break;
    case arrow::Type::INT8: out->set_byte(static_cast<const arrow::Int8Scalar&>(value).value); break;
    case arrow::Type::INT16: out->set_short_(static_cast<const arrow::Int16Scalar&>(value).value); break;
    case arrow::Type::INT32: out->set_integer(static_cast<const arrow::Int32Scalar&>(value).value); break;
    case arrow::Type::INT64: out->set_long_(static_cast<const arrow::Int64Scalar&>(value).value); break;
    case arrow::Type::FLOAT: out->set_float_(static_cast<const arrow::FloatScalar&>(value).value); break;
    case arrow::Type::DOUBLE: out->set_double_(static_cast<const arrow::DoubleScalar&>(value).value); break;
    case arrow::Type::STRING:
      out->set_string(std::string(static_cast<const arrow::StringScalar&>(value).view()));
      break;
    case arrow::Type::BINARY:
      out->set_binary(std::string(static_cast<const arrow::BinaryScalar&>(value).view()));
      break;
    case arrow::Type::DATE32: out->set_date(static_cast<const arrow::Date32Scalar&>(value).value); break;
    case arrow::Type::TIMESTAMP: {
      int64_t micros = static_cast<const arrow::TimestampScalar&>(value).value;
      if (static_cast<const arrow::TimestampType&>(*value.type).timezone().empty()) {
        out->set_timestamp_ntz(micros);
      } else {
        out->set_timestamp(micros);
      }
      break;
    }
    case arrow::Type::DECIMAL128: {
      const auto& type = static_cast<const arrow::Decimal128Type&>(*value.type);
      auto* decimal = out->mutable_decimal();
      decimal->set_value(static_cast<const arrow::Decimal128Scalar&>(value).value.ToString(type.scale()));
      decimal->set_precision(type.precision());
      decimal->set_scale(type.scale());
      break;
    }
    case arrow::Type::LIST: {
      const auto& list = static_cast<const arrow::ListScalar&>(value);
      auto* array = out->mutable_array();
      ARROW_RETURN_NOT_OK(ToProto(*list.value->type(), array->mutable_element_type()));
      for (int64_t i = 0; i < list.value->length(); ++i) {
        ARROW_ASSIGN_OR_RAISE(auto element, list.value->GetScalar(i));
        ARROW_RETURN_NOT_OK(ToProto(*element, array->add_elements()));
      }
      break;
    }
    default:  // the client reads no map or struct literal
      return Unsupported("of a literal value " + value.type->ToString());
  }
  return arrow::Status::OK();
}


std::shared_ptr<arrow::DataType> EngineType(const std::shared_ptr<arrow::DataType>& type) {
  switch (type->id()) {
    case arrow::Type::LARGE_STRING: return arrow::utf8();
    case arrow::Type::LARGE_BINARY: return arrow::binary();
    case arrow::Type::TIMESTAMP: {
      const auto& ts = static_cast<const arrow::TimestampType&>(*type);
      return ts.timezone().empty() ? arrow::timestamp(arrow::TimeUnit::MICRO)
                                   : plan::TimestampType();
    }
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST: {
      auto element = type->field(0);
      auto engine = EngineType(element->type());
      if (!engine) return nullptr;
      return arrow::list(element->WithType(engine));
    }
    case arrow::Type::STRUCT: {
      arrow::FieldVector fields;
      for (const auto& f : type->fields()) {
        auto engine = EngineType(f->type());
        if (!engine) return nullptr;
        fields.push_back(f->WithType(engine));
      }
      return arrow::struct_(std::move(fields));
    }
    case arrow::Type::MAP: {
      const auto& map_type = static_cast<const arrow::MapType&>(*type);
      auto key = EngineType(map_type.key_type());
      auto value = EngineType(map_type.item_type());
      if (!key || !value) return nullptr;
      return std::make_shared<arrow::MapType>(map_type.key_field()->WithType(key),
                                              map_type.item_field()->WithType(value));
    }
    default:
      return plan::IsSupportedType(*type) ? type : nullptr;
  }
}

}  // namespace ember::connect
