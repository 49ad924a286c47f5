// Iceberg partitioning (ICEBERG.md section 7): partition specs, the transforms that give each row
// its partition values, the partition record manifests store, and the paths Java gives
// partitioned data files.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>
#include <nlohmann/json_fwd.hpp>

#include "ember/iceberg/avro.h"
#include "ember/partitioning.h"

namespace ember::iceberg {

struct PartitionField {
  int source_id = 0;
  int field_id = 0;
  std::string name;
  std::string transform;  // as specs write it: identity, year, month, day, hour, bucket[N], truncate[W], void
};

struct PartitionSpec {
  int spec_id = 0;
  std::vector<PartitionField> fields;
};

/// Spec 0 for `terms` over `schema` (fields carrying ids): Java's default field names, field ids
/// from 1000. Errors name the column or transform that Iceberg refuses.
arrow::Result<PartitionSpec> MakePartitionSpec(const arrow::Schema& schema,
                                               const std::vector<PartitionTerm>& terms);

/// The spec's fields as Iceberg's JSON array, and back.
nlohmann::json PartitionFieldsToJson(const PartitionSpec& spec);
arrow::Result<PartitionSpec> PartitionSpecFromJson(const nlohmann::json& json);

/// The Avro schema (JSON) of the partition record r102 of manifests written for `spec`.
arrow::Result<std::string> PartitionRecordSchema(const PartitionSpec& spec,
                                                 const arrow::Schema& schema);

/// Rows of one partition: their partition record (one value per spec field, in spec order, as
/// the manifest stores it) and the relative directory Java writes them to ("day=2024-01-01").
struct PartitionedRows {
  std::shared_ptr<arrow::Table> rows;
  avro::Record partition;
  std::string path;
};

/// Splits `rows` (columns of `schema`) by their partition values, in order of first appearance.
/// An unpartitioned spec gives one group with an empty record and path.
arrow::Result<std::vector<PartitionedRows>> SplitByPartition(
    const PartitionSpec& spec, const arrow::Schema& schema,
    const std::shared_ptr<arrow::Table>& rows);

/// The type of a field's values (day: date; year, month, hour, bucket: int; others: the source's).
arrow::Result<std::shared_ptr<arrow::DataType>> PartitionResultType(const PartitionField& field,
                                                                    const arrow::Schema& schema);

/// A partition value as Java's toHumanString writes it in paths and metadata tables ("2024-01",
/// "2024-01-01-10", "null").
std::string PartitionValueText(const PartitionField& field, const arrow::DataType& result_type,
                               const avro::Datum& value);

/// A partition value back from its single-value serialization, given the field's result type.
avro::Datum PartitionValueFromBytes(const std::string& bytes, const arrow::DataType& result_type);

/// Iceberg's murmur3_x86_32 (seed 0) over `bytes`, the hash of the bucket transform.
int32_t Murmur3(std::string_view bytes);

/// A partition value's single-value serialization (Appendix D), as summaries store bounds.
std::string SingleValueBytes(const avro::Datum& value);

/// Orders two non-null partition values of one field (negative, zero, positive).
int ComparePartitionValues(const avro::Datum& a, const avro::Datum& b);

}  // namespace ember::iceberg
