// Operations on Iceberg tables: appends (a data file, a manifest, a manifest list and a new
// metadata version, committed optimistically with retries) and scans.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/iceberg/catalog.h"

namespace ember::iceberg {

struct AppendOptions {
  /// Extra snapshot summary entries (ember.query-id, ember.batch-id for streaming commits).
  std::map<std::string, std::string> summary;
  /// Checked against each fresh metadata before committing: true means "already committed, do
  /// nothing" (a streaming batch committed before a crash).
  std::function<bool(const TableMetadata&)> already_committed;
  /// Replace every current row (complete mode, INSERT OVERWRITE) instead of adding.
  bool overwrite = false;
};

/// Appends `rows` (matched to the table's columns by name). Returns false if skipped.
arrow::Result<bool> AppendRows(HadoopCatalog* catalog, const std::vector<std::string>& ident,
                               const std::shared_ptr<arrow::Table>& rows, const AppendOptions& options);

/// The rows of a snapshot (the current one by default), columns of the table's current schema.
arrow::Result<std::shared_ptr<arrow::Table>> ScanTable(const LoadedTable& table,
                                                       std::optional<int64_t> snapshot_id = {});

/// Whether a snapshot or one of its ancestors carries summary[key] == value for every pair.
bool AncestryHas(const TableMetadata& metadata,
                 const std::function<bool(const std::map<std::string, std::string>&)>& predicate);

}  // namespace ember::iceberg
