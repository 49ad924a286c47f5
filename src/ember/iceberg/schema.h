// Iceberg schemas: every field, list element and map key/value carries an id unique in the table.
// Ember keeps a table's columns as an arrow::Schema whose fields carry their Iceberg id in the
// field metadata key "PARQUET:field_id", the key Arrow's Parquet writer turns into Parquet field ids.
#pragma once

#include <memory>
#include <string>

#include <arrow/result.h>
#include <arrow/type_fwd.h>
#include <nlohmann/json_fwd.hpp>

namespace ember::iceberg {

inline constexpr const char* kFieldIdKey = "PARQUET:field_id";

/// The schema with fresh ids 1, 2, ... in Iceberg's order (fields first, then nested ones);
/// `last_column_id` receives the largest id.
std::shared_ptr<arrow::Schema> AssignFieldIds(const arrow::Schema& schema, int* last_column_id);

/// The id of an arrow field of a table schema, or -1.
int FieldId(const arrow::Field& field);

/// Iceberg's JSON of a schema with ids.
nlohmann::json SchemaToJson(const arrow::Schema& schema, int schema_id);
arrow::Result<std::shared_ptr<arrow::Schema>> SchemaFromJson(const nlohmann::json& json);

/// Iceberg's type name of a primitive arrow type ("int", "timestamptz", "decimal(10,2)").
arrow::Result<std::string> IcebergTypeName(const arrow::DataType& type);

}  // namespace ember::iceberg
