// Looking into a table: the metadata tables (`t.snapshots`, `t.history`, `t.files`,
// `t.manifests`) and the snapshot a time-travel query reads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/iceberg/table_metadata.h"

namespace ember::iceberg {

/// Whether `name` is a metadata table Ember provides.
bool IsMetadataTable(const std::string& name);

/// The rows of metadata table `name` (snapshots, history, files, manifests), with the columns
/// Iceberg's Spark runtime gives it (`files` without readable_metrics and the v3 columns).
arrow::Result<std::shared_ptr<arrow::Table>> MetadataTable(const TableMetadata& metadata,
                                                           const std::string& name);

/// `VERSION AS OF id`: the snapshot id, checked to exist.
arrow::Result<int64_t> SnapshotWithId(const TableMetadata& metadata, int64_t id);

/// `TIMESTAMP AS OF t`: the snapshot that was current at `timestamp_ms`.
arrow::Result<int64_t> SnapshotAsOf(const TableMetadata& metadata, int64_t timestamp_ms);

}  // namespace ember::iceberg
