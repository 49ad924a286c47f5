#include "ember/iceberg/inspect.h"

#include <ctime>
#include <optional>
#include <set>

#include <arrow/api.h>

#include "ember/error.h"

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

}  // namespace

bool IsMetadataTable(const std::string& name) { return name == "snapshots" || name == "history"; }

Result<std::shared_ptr<arrow::Table>> MetadataTable(const TableMetadata& metadata,
                                                    const std::string& name) {
  if (name == "snapshots") return Snapshots(metadata);
  if (name == "history") return History(metadata);
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
