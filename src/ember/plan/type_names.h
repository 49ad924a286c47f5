// Spark's type names for arrow types, both ways. Ember represents Spark's types with arrow's:
// IntegerType is int32, LongType int64, StringType utf8, TimestampType timestamp[us, UTC],
// TimestampNTZType timestamp[us], DateType date32, DecimalType decimal128, StructType struct.
#pragma once

#include <memory>
#include <string>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

namespace ember::plan {

/// Spark's simpleString ("int", "bigint", "decimal(10,2)", "struct<a:int>"), or upper-cased
/// SQL form when `upper` ("INT", "BIGINT", "STRING").
std::string SparkTypeName(const arrow::DataType& type, bool upper = false);

/// Parses a Spark type name as written in SQL or DDL: int, integer, bigint, long, string,
/// decimal(10,2), timestamp, timestamp_ntz, array<int>, struct<a:int,b:string>, map<string,int>.
arrow::Result<std::shared_ptr<arrow::DataType>> ParseTypeName(const std::string& text);

/// A type written as Spark's JSON (DataType.json(): "long", {"type":"struct","fields":[...]}) or
/// as DDL ("a INT, b STRING", "struct<a:int>").
arrow::Result<std::shared_ptr<arrow::DataType>> ParseSchemaString(const std::string& text);

/// The type with every struct field, array element and map value nullable (Spark's asNullable).
std::shared_ptr<arrow::DataType> AsNullableType(const std::shared_ptr<arrow::DataType>& type);

/// The schema with every field nullable, nested ones too: Spark's asNullable, which file
/// sources apply to a user's schema (a file may lack any field).
std::shared_ptr<arrow::Schema> AsNullable(const arrow::Schema& schema);

/// Spark's ArrayType(element, containsNull): an arrow list whose element field is "element"
/// (Parquet's and Iceberg's name), nullable when the array may contain NULLs.
std::shared_ptr<arrow::DataType> ArrayOf(std::shared_ptr<arrow::DataType> element,
                                         bool contains_null = true);

/// Spark's MapType(key, value, valueContainsNull): an arrow map of fields "key" (never NULL) and
/// "value" (nullable when the map may hold NULL values).
std::shared_ptr<arrow::DataType> MapOf(std::shared_ptr<arrow::DataType> key,
                                       std::shared_ptr<arrow::DataType> value,
                                       bool value_contains_null = true);

/// Spark's TimestampType: microseconds, instant semantics.
std::shared_ptr<arrow::DataType> TimestampType();

/// Whether arrow type `type` stands for a Spark type Ember supports.
bool IsSupportedType(const arrow::DataType& type);

}  // namespace ember::plan
