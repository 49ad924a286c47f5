#include "ember/iceberg/inspect.h"

#include <ctime>
#include <optional>
#include <set>

#include <arrow/api.h>

#include "ember/error.h"
#include "ember/iceberg/table.h"

namespace ember::iceberg {

using arrow::Result;

namespace {

std::shared_ptr<arrow::DataType> Timestamp() { return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"); }

// The snapshot ids from the current one back through its parents.
std::set<int64_t> CurrentAncestry(const TableMetadata& metadata) {
  std::set<int64_t> ids;
  for (const Snapshot* s = metadata.current_snapshot(); s;
       s = s->parent_snapshot_id ? metadata.snapshot(*s->parent_snapshot_id) : nullptr) {
    if (!ids.insert(s->snapshot_id).second) break;
  }
  return ids;
}

Result<std::shared_ptr<arrow::Table>> Snapshots(const TableMetadata& metadata) {
  arrow::TimestampBuilder committed(Timestamp(), arrow::default_memory_pool());
  arrow::Int64Builder id, parent;
  arrow::StringBuilder operation, manifest_list;
  arrow::MapBuilder summary(arrow::default_memory_pool(), std::make_shared<arrow::StringBuilder>(),
                            std::make_shared<arrow::StringBuilder>());
  auto* keys = static_cast<arrow::StringBuilder*>(summary.key_builder());
  auto* values = static_cast<arrow::StringBuilder*>(summary.item_builder());
  for (const auto& s : metadata.snapshots) {
    ARROW_RETURN_NOT_OK(committed.Append(s.timestamp_ms * 1000));
    ARROW_RETURN_NOT_OK(id.Append(s.snapshot_id));
    ARROW_RETURN_NOT_OK(s.parent_snapshot_id ? parent.Append(*s.parent_snapshot_id) : parent.AppendNull());
    auto op = s.summary.find("operation");
    ARROW_RETURN_NOT_OK(op == s.summary.end() ? operation.AppendNull() : operation.Append(op->second));
    ARROW_RETURN_NOT_OK(manifest_list.Append(s.manifest_list));
    ARROW_RETURN_NOT_OK(summary.Append());
    for (const auto& [k, v] : s.summary) {
      if (k == "operation") continue;
      ARROW_RETURN_NOT_OK(keys->Append(k));
      ARROW_RETURN_NOT_OK(values->Append(v));
    }
  }
  auto schema = arrow::schema({arrow::field("committed_at", Timestamp()),
                               arrow::field("snapshot_id", arrow::int64()),
                               arrow::field("parent_id", arrow::int64()),
                               arrow::field("operation", arrow::utf8()),
                               arrow::field("manifest_list", arrow::utf8()),
                               arrow::field("summary", arrow::map(arrow::utf8(), arrow::utf8()))});
  std::vector<std::shared_ptr<arrow::Array>> columns(6);
  ARROW_RETURN_NOT_OK(committed.Finish(&columns[0]));
  ARROW_RETURN_NOT_OK(id.Finish(&columns[1]));
  ARROW_RETURN_NOT_OK(parent.Finish(&columns[2]));
  ARROW_RETURN_NOT_OK(operation.Finish(&columns[3]));
  ARROW_RETURN_NOT_OK(manifest_list.Finish(&columns[4]));
  ARROW_RETURN_NOT_OK(summary.Finish(&columns[5]));
  return arrow::Table::Make(schema, columns);
}

Result<std::shared_ptr<arrow::Table>> History(const TableMetadata& metadata) {
  auto ancestry = CurrentAncestry(metadata);
  arrow::TimestampBuilder made_current(Timestamp(), arrow::default_memory_pool());
  arrow::Int64Builder id, parent;
  arrow::BooleanBuilder ancestor;
  for (const auto& [timestamp_ms, snapshot_id] : metadata.snapshot_log) {
    const Snapshot* s = metadata.snapshot(snapshot_id);
    ARROW_RETURN_NOT_OK(made_current.Append(timestamp_ms * 1000));
    ARROW_RETURN_NOT_OK(id.Append(snapshot_id));
    ARROW_RETURN_NOT_OK(s && s->parent_snapshot_id ? parent.Append(*s->parent_snapshot_id)
                                                   : parent.AppendNull());
    ARROW_RETURN_NOT_OK(ancestor.Append(ancestry.count(snapshot_id) > 0));
  }
  auto schema = arrow::schema({arrow::field("made_current_at", Timestamp()),
                               arrow::field("snapshot_id", arrow::int64()),
                               arrow::field("parent_id", arrow::int64()),
                               arrow::field("is_current_ancestor", arrow::boolean())});
  std::vector<std::shared_ptr<arrow::Array>> columns(4);
  ARROW_RETURN_NOT_OK(made_current.Finish(&columns[0]));
  ARROW_RETURN_NOT_OK(id.Finish(&columns[1]));
  ARROW_RETURN_NOT_OK(parent.Finish(&columns[2]));
  ARROW_RETURN_NOT_OK(ancestor.Finish(&columns[3]));
  return arrow::Table::Make(schema, columns);
}

// Appends a manifest value to a builder of the matching Arrow type: records to structs, arrays
// of key/value records to maps, other arrays to lists.
arrow::Status AppendDatum(arrow::ArrayBuilder* builder, const avro::Datum& value) {
  if (value.is_null()) return builder->AppendNull();
  switch (builder->type()->id()) {
    case arrow::Type::BOOL:
      return static_cast<arrow::BooleanBuilder*>(builder)->Append(value.as<bool>());
    case arrow::Type::INT32:
      return static_cast<arrow::Int32Builder*>(builder)->Append(value.as<int32_t>());
    case arrow::Type::DATE32:
      return static_cast<arrow::Date32Builder*>(builder)->Append(value.as<int32_t>());
    case arrow::Type::INT64:
      return static_cast<arrow::Int64Builder*>(builder)->Append(value.as<int64_t>());
    case arrow::Type::TIMESTAMP:
      return static_cast<arrow::TimestampBuilder*>(builder)->Append(value.as<int64_t>());
    case arrow::Type::FLOAT:
      return static_cast<arrow::FloatBuilder*>(builder)->Append(value.as<float>());
    case arrow::Type::DOUBLE:
      return static_cast<arrow::DoubleBuilder*>(builder)->Append(value.as<double>());
    case arrow::Type::STRING:
      return static_cast<arrow::StringBuilder*>(builder)->Append(value.as<std::string>());
    case arrow::Type::BINARY:
      return static_cast<arrow::BinaryBuilder*>(builder)->Append(value.as<avro::Bytes>().data);
    case arrow::Type::STRUCT: {
      auto* b = static_cast<arrow::StructBuilder*>(builder);
      ARROW_RETURN_NOT_OK(b->Append());
      const auto& fields = value.as<avro::Record>().fields;
      for (int i = 0; i < b->num_fields(); ++i) {
        ARROW_RETURN_NOT_OK(AppendDatum(b->field_builder(i), i < static_cast<int>(fields.size())
                                                                 ? fields[i]
                                                                 : avro::Datum(nullptr)));
      }
      return arrow::Status::OK();
    }
    case arrow::Type::MAP: {
      auto* b = static_cast<arrow::MapBuilder*>(builder);
      ARROW_RETURN_NOT_OK(b->Append());
      for (const auto& entry : value.as<avro::Array>().items) {
        const auto& kv = entry.as<avro::Record>().fields;
        ARROW_RETURN_NOT_OK(AppendDatum(b->key_builder(), kv[0]));
        ARROW_RETURN_NOT_OK(AppendDatum(b->item_builder(), kv[1]));
      }
      return arrow::Status::OK();
    }
    case arrow::Type::LIST: {
      auto* b = static_cast<arrow::ListBuilder*>(builder);
      ARROW_RETURN_NOT_OK(b->Append());
      for (const auto& item : value.as<avro::Array>().items) {
        ARROW_RETURN_NOT_OK(AppendDatum(b->value_builder(), item));
      }
      return arrow::Status::OK();
    }
    default:
      return arrow::Status::NotImplemented("metadata column of type ", builder->type()->ToString());
  }
}

// Rows of `schema` from records whose fields are the columns in order.
Result<std::shared_ptr<arrow::Table>> TableOfRecords(const std::shared_ptr<arrow::Schema>& schema,
                                                     const std::vector<avro::Datum>& records) {
  std::unique_ptr<arrow::ArrayBuilder> builder;
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(),
                                         arrow::struct_(schema->fields()), &builder));
  for (const auto& r : records) ARROW_RETURN_NOT_OK(AppendDatum(builder.get(), r));
  ARROW_ASSIGN_OR_RAISE(auto array, builder->Finish());
  ARROW_ASSIGN_OR_RAISE(auto batch, arrow::RecordBatch::FromStructArray(array));
  return arrow::Table::FromRecordBatches(schema, {batch});
}

// Spark's `files` table: the current snapshot's live data files, partition values by the
// default spec's fields (absent when unpartitioned, as in Spark).
Result<std::shared_ptr<arrow::Table>> Files(const TableMetadata& metadata) {
  const PartitionSpec& spec = metadata.default_spec();
  arrow::FieldVector partition_fields;
  for (const auto& f : spec.fields) {
    ARROW_ASSIGN_OR_RAISE(auto type, PartitionResultType(f, *metadata.schema));
    partition_fields.push_back(arrow::field(f.name, type));
  }
  auto long_map = arrow::map(arrow::int32(), arrow::int64());
  auto bytes_map = arrow::map(arrow::int32(), arrow::binary());
  arrow::FieldVector fields = {arrow::field("content", arrow::int32()),
                               arrow::field("file_path", arrow::utf8()),
                               arrow::field("file_format", arrow::utf8()),
                               arrow::field("spec_id", arrow::int32())};
  if (!spec.fields.empty()) fields.push_back(arrow::field("partition", arrow::struct_(partition_fields)));
  for (const auto& f : {arrow::field("record_count", arrow::int64()),
                        arrow::field("file_size_in_bytes", arrow::int64()),
                        arrow::field("column_sizes", long_map), arrow::field("value_counts", long_map),
                        arrow::field("null_value_counts", long_map),
                        arrow::field("nan_value_counts", long_map),
                        arrow::field("lower_bounds", bytes_map), arrow::field("upper_bounds", bytes_map),
                        arrow::field("key_metadata", arrow::binary()),
                        arrow::field("split_offsets", arrow::list(arrow::int64())),
                        arrow::field("equality_ids", arrow::list(arrow::int32())),
                        arrow::field("sort_order_id", arrow::int32())}) {
    fields.push_back(f);
  }
  std::vector<avro::Datum> records;
  if (const Snapshot* current = metadata.current_snapshot()) {
    ARROW_ASSIGN_OR_RAISE(auto files, SnapshotDataFiles(metadata, *current));
    for (auto& file : files) {
      auto values = file.data_file.as<avro::Record>().fields;
      // Partition values by field id: a file of an older spec has nulls for fields it lacks.
      const PartitionSpec* file_spec = metadata.spec(file.spec_id);
      avro::Record partition;
      for (const auto& f : spec.fields) {
        avro::Datum value;
        for (size_t i = 0; file_spec && i < file_spec->fields.size(); ++i) {
          if (file_spec->fields[i].field_id == f.field_id) {
            value = values[3].as<avro::Record>().fields.at(i);
          }
        }
        partition.fields.push_back(std::move(value));
      }
      avro::Record row;
      row.fields = {values[0], values[1], values[2], avro::Datum(int32_t{file.spec_id})};
      if (!spec.fields.empty()) row.fields.push_back(avro::Datum(std::move(partition)));
      row.fields.insert(row.fields.end(), values.begin() + 4, values.end());
      records.push_back(avro::Datum(std::move(row)));
    }
  }
  return TableOfRecords(arrow::schema(fields), records);
}

// Spark's `manifests` table: the current snapshot's manifests, partition bounds as text.
Result<std::shared_ptr<arrow::Table>> Manifests(const TableMetadata& metadata) {
  auto summary = arrow::struct_({arrow::field("contains_null", arrow::boolean(), false),
                                 arrow::field("contains_nan", arrow::boolean()),
                                 arrow::field("lower_bound", arrow::utf8()),
                                 arrow::field("upper_bound", arrow::utf8())});
  auto schema = arrow::schema({arrow::field("content", arrow::int32()),
                               arrow::field("path", arrow::utf8()),
                               arrow::field("length", arrow::int64()),
                               arrow::field("partition_spec_id", arrow::int32()),
                               arrow::field("added_snapshot_id", arrow::int64()),
                               arrow::field("added_data_files_count", arrow::int32()),
                               arrow::field("existing_data_files_count", arrow::int32()),
                               arrow::field("deleted_data_files_count", arrow::int32()),
                               arrow::field("added_delete_files_count", arrow::int32()),
                               arrow::field("existing_delete_files_count", arrow::int32()),
                               arrow::field("deleted_delete_files_count", arrow::int32()),
                               arrow::field("partition_summaries", arrow::list(summary))});
  std::vector<avro::Datum> records;
  if (const Snapshot* current = metadata.current_snapshot()) {
    ARROW_ASSIGN_OR_RAISE(auto manifests, SnapshotManifests(*current));
    for (const auto& manifest : manifests) {
      const auto& m = manifest.as<avro::Record>().fields;
      const PartitionSpec* spec = metadata.spec(m[2].as<int32_t>());
      avro::Array summaries;
      const auto* partitions = m[13].get_if<avro::Array>();
      for (size_t i = 0; partitions && spec && i < partitions->items.size() && i < spec->fields.size(); ++i) {
        const auto& p = partitions->items[i].as<avro::Record>().fields;
        ARROW_ASSIGN_OR_RAISE(auto type, PartitionResultType(spec->fields[i], *metadata.schema));
        auto text = [&](const avro::Datum& bound) {
          if (bound.is_null()) return avro::Datum(nullptr);
          auto value = PartitionValueFromBytes(bound.as<avro::Bytes>().data, *type);
          return avro::Datum(PartitionValueText(spec->fields[i], *type, value));
        };
        avro::Record s;
        s.fields = {p[0], p[1], text(p[2]), text(p[3])};
        summaries.items.push_back(avro::Datum(std::move(s)));
      }
      bool deletes = m[3].as<int32_t>() != 0;
      avro::Datum zero(int32_t{0});
      avro::Record row;
      row.fields = {m[3], m[0], m[1], m[2], m[6],
                    deletes ? zero : m[7], deletes ? zero : m[8], deletes ? zero : m[9],
                    deletes ? m[7] : zero, deletes ? m[8] : zero, deletes ? m[9] : zero,
                    avro::Datum(std::move(summaries))};
      records.push_back(avro::Datum(std::move(row)));
    }
  }
  return TableOfRecords(schema, records);
}

}  // namespace

bool IsMetadataTable(const std::string& name) {
  return name == "snapshots" || name == "history" || name == "files" || name == "manifests";
}

Result<std::shared_ptr<arrow::Table>> MetadataTable(const TableMetadata& metadata,
                                                    const std::string& name) {
  if (name == "snapshots") return Snapshots(metadata);
  if (name == "history") return History(metadata);
  if (name == "files") return Files(metadata);
  if (name == "manifests") return Manifests(metadata);
  return arrow::Status::Invalid("no metadata table ", name);
}

Result<int64_t> SnapshotWithId(const TableMetadata& metadata, int64_t id) {
  if (!metadata.snapshot(id)) {
    return UserError(ErrorKind::kIllegalArgument, "", "Cannot find snapshot with ID " + std::to_string(id), "");
  }
  return id;
}

Result<int64_t> SnapshotAsOf(const TableMetadata& metadata, int64_t timestamp_ms) {
  // The last snapshot made current at or before the instant (Iceberg's SnapshotUtil).
  std::optional<int64_t> found;
  for (const auto& [made_current_ms, snapshot_id] : metadata.snapshot_log) {
    if (made_current_ms <= timestamp_ms) found = snapshot_id;
  }
  if (!found) {
    time_t seconds = static_cast<time_t>(timestamp_ms / 1000);
    struct tm utc;
    gmtime_r(&seconds, &utc);
    char text[64];
    std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S+00:00", &utc);
    return UserError(ErrorKind::kIllegalArgument, "",
                     std::string("Cannot find a snapshot older than ") + text, "");
  }
  return *found;
}

}  // namespace ember::iceberg
