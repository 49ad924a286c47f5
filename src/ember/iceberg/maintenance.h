// Iceberg table maintenance, as Iceberg's Spark procedures do it: expiring old snapshots with the
// files only they reach, and removing files under a table that no snapshot or metadata reaches.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <arrow/result.h>

#include "ember/iceberg/catalog.h"

namespace ember::iceberg {

/// expire_snapshots' arguments; unset ones take the table's properties.
struct ExpireOptions {
  /// Snapshots older than this may expire; default now - history.expire.max-snapshot-age-ms
  /// (5 days).
  std::optional<int64_t> older_than_ms;
  /// The current snapshot and its newest ancestors kept whatever their age; default
  /// history.expire.min-snapshots-to-keep (1). At least 1.
  std::optional<int64_t> retain_last;
  /// Snapshots expired whatever their age (never the current one).
  std::vector<int64_t> snapshot_ids;
};

/// What an expiry deleted, Iceberg's ExpireSnapshots.Result counts.
struct ExpireResult {
  int64_t deleted_data_files = 0;
  int64_t deleted_manifests = 0;
  int64_t deleted_manifest_lists = 0;
  int64_t expired_snapshots = 0;
};

/// Iceberg's RemoveSnapshots: keeps the current snapshot's ancestors while fewer than
/// retain_last are kept or they are not older than older_than, and other snapshots not older than
/// older_than; removes the rest (and their snapshot-log history) in one metadata commit, then
/// deletes the manifest lists, manifests and data files only removed snapshots reached (the
/// reachable-files cleanup: never a file a kept snapshot reaches). Nothing to expire commits
/// nothing.
arrow::Result<ExpireResult> ExpireSnapshots(Catalog* catalog, const std::vector<std::string>& ident,
                                            const ExpireOptions& options);

/// remove_orphan_files' arguments.
struct OrphanOptions {
  /// Only files last modified before this are orphans; default now - 3 days.
  std::optional<int64_t> older_than_ms;
  /// The directory to list; default the table's location.
  std::optional<std::string> location;
  /// Report the orphans without deleting them.
  bool dry_run = false;
};

/// Iceberg's DeleteOrphanFiles: the files under the location (skipping hidden names, starting
/// with '.' or '_') older than older_than that no snapshot's manifest list, manifests or live data
/// files, no current or logged metadata file and no version hint reach; deletes them unless
/// dry_run. Returns their locations as file: URIs.
arrow::Result<std::vector<std::string>> RemoveOrphanFiles(Catalog* catalog,
                                                          const std::vector<std::string>& ident,
                                                          const OrphanOptions& options);

}  // namespace ember::iceberg
