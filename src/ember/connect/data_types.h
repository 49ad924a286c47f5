// Spark's data types as Spark Connect sends them (spark.connect.DataType, or a schema string in
// Spark's JSON or DDL form) and Ember's arrow types for them (plan/type_names.h), both ways.
#pragma once

#include <memory>
#include <string>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

namespace spark::connect {
class DataType;
class Expression_Literal;
}

namespace ember::connect {

arrow::Result<std::shared_ptr<arrow::DataType>> FromProto(const spark::connect::DataType& type);

/// An arrow type as the client reads it; nullability comes from the arrow fields.
arrow::Status ToProto(const arrow::DataType& type, spark::connect::DataType* out);
/// A schema as a struct type, the form of ExecutePlanResponse.schema and AnalyzePlan's schema.
arrow::Status ToProto(const arrow::Schema& schema, spark::connect::DataType* out);

/// A value as Spark sends one back (an observed metric): a literal of its type; NULL as a
/// literal of NullType, as Spark's LiteralValueProtoConverter writes it.
arrow::Status ToProto(const arrow::Scalar& value, spark::connect::Expression_Literal* out);

/// The type Ember represents a client's arrow type with: timestamps in microseconds (UTC when
/// zoned), large strings and binaries as plain ones; null if Ember has no such type.
std::shared_ptr<arrow::DataType> EngineType(const std::shared_ptr<arrow::DataType>& type);

}  // namespace ember::connect
