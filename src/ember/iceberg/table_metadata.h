// Iceberg table metadata (format v2): the JSON document a catalog points at. Ember writes the
// fields Java writes, in Java's order; it reads what Java, PyIceberg and Ember write.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/iceberg/partition.h"

namespace ember::iceberg {

struct Snapshot {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  std::string manifest_list;
  std::map<std::string, std::string> summary;  // "operation" and the counters
  int schema_id = 0;
};

struct TableMetadata {
  int format_version = 2;
  std::string table_uuid;
  std::string location;
  int64_t last_sequence_number = 0;
  int64_t last_updated_ms = 0;
  int last_column_id = 0;
  int current_schema_id = 0;
  std::shared_ptr<arrow::Schema> schema;  // the current schema, fields carrying ids
  std::vector<PartitionSpec> partition_specs{PartitionSpec{}};
  int default_spec_id = 0;
  int last_partition_id = 999;
  std::string sort_orders_json = R"([{"order-id":0,"fields":[]}])";  // kept as read
  int default_sort_order_id = 0;
  std::map<std::string, std::string> properties;
  /// A table property as an integer or a boolean; `fallback` when unset or unreadable.
  int64_t LongProperty(const std::string& key, int64_t fallback) const;
  bool BoolProperty(const std::string& key, bool fallback) const;
  /// The statistics files (Puffin) and partition statistics files another writer recorded, kept
  /// as read (JSON arrays) so that a commit carries them over and a purge deletes them.
  std::string statistics_json = "[]";
  std::string partition_statistics_json = "[]";
  std::optional<int64_t> current_snapshot_id;
  std::vector<Snapshot> snapshots;
  std::vector<std::pair<int64_t, int64_t>> snapshot_log;           // (timestamp-ms, snapshot-id)
  std::vector<std::pair<int64_t, std::string>> metadata_log;       // (timestamp-ms, file)

  const Snapshot* current_snapshot() const;
  const Snapshot* snapshot(int64_t id) const;
  /// The spec new data files are written with, and the spec with an id (null if none).
  const PartitionSpec& default_spec() const;
  const PartitionSpec* spec(int id) const;

  std::string ToJson() const;
  static arrow::Result<TableMetadata> FromJson(const std::string& text);
};

/// A new table's metadata: fresh field ids, partitioned by `partitioning`, unsorted, no snapshot.
arrow::Result<TableMetadata> NewTableMetadata(const arrow::Schema& schema, std::string location,
                                              std::map<std::string, std::string> properties,
                                              const std::vector<PartitionTerm>& partitioning = {});

/// Records the metadata file `updated` follows (written at `timestamp_ms`) in its metadata log,
/// keeping the newest write.metadata.previous-versions-max entries (default 100, at least 1), as
/// Iceberg's TableMetadata.Builder does. Returns the files that left the log.
std::vector<std::string> AddPreviousMetadata(TableMetadata* updated, int64_t timestamp_ms,
                                             std::string file);

/// After a commit of `committed`: deletes the metadata files that left its log when
/// write.metadata.delete-after-commit.enabled is true (default false), as Iceberg's table
/// operations do. Best effort: a file that cannot be deleted is an orphan, not an error.
void DeleteDroppedMetadata(const TableMetadata& committed, const std::vector<std::string>& dropped);

/// A positive random snapshot id, as Java makes them.
int64_t NewSnapshotId();
int64_t CurrentTimeMs();

}  // namespace ember::iceberg
