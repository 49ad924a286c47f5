// Operations on Iceberg tables: appends and copy-on-write overwrites (data files, manifests, a
// manifest list and a new metadata version, committed optimistically with retries) and scans.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/iceberg/avro.h"
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
arrow::Result<bool> AppendRows(Catalog* catalog, const std::vector<std::string>& ident,
                               const std::shared_ptr<arrow::Table>& rows, const AppendOptions& options);

/// One append written in parts side by side (a streaming batch's write tasks): each part's rows go
/// to a data file of its own, and Commit adds them all in one snapshot.
class PartedAppend {
 public:
  /// Null for a partitioned table, whose rows need a file per partition value: append those
  /// whole. An append `options.already_committed` says was made writes nothing.
  static arrow::Result<std::unique_ptr<PartedAppend>> Begin(Catalog* catalog,
                                                            std::vector<std::string> ident,
                                                            int parts, AppendOptions options);
  ~PartedAppend();
  /// Adds rows (matched to the table's columns by name) to part `part`; parts may be written
  /// from threads of their own, each part from one thread.
  arrow::Status Write(int part, const std::shared_ptr<arrow::Table>& rows);
  /// Closes the parts' files and commits them. Returns false if skipped.
  arrow::Result<bool> Commit();

 private:
  PartedAppend() = default;
  struct State;
  std::unique_ptr<State> state_;
};

/// What a copy-on-write commit (Iceberg's OverwriteFiles, ICEBERG.md 5.3) changes.
struct OverwriteRequest {
  /// The snapshot the rewritten rows were read from (none: the table was empty).
  std::optional<int64_t> scan_snapshot_id;
  /// Data files to remove, by path as the manifests list them.
  std::vector<std::string> removed;
  /// Rows for one new data file (matched to the table's columns by name); may be empty.
  std::shared_ptr<arrow::Table> added;
  /// Extra snapshot summary entries.
  std::map<std::string, std::string> summary;
  /// A DELETE statement: its snapshot is a `delete` whenever it adds no file, even when nothing
  /// matched (Spark's metadata-only delete).
  bool delete_statement = false;
  /// Serializable isolation (Iceberg's default) also fails when a commit since the scan added
  /// data files; snapshot isolation fails only when one removed a file this commit removes.
  bool serializable = true;
};

/// Commits `request` as a new snapshot: operation `delete` when it only removes files, otherwise
/// `overwrite`. Manifests listing removed files are rewritten with them DELETED; the others are
/// carried over. A lost race is retried on the fresh table, after validating the commits made
/// since the scan.
arrow::Status OverwriteFiles(Catalog* catalog, const std::vector<std::string>& ident,
                             const OverwriteRequest& request);

/// A live data file and its rows, columns of the table's current schema.
struct FileRows {
  std::string path;
  std::shared_ptr<arrow::Table> rows;
};

/// A condition on one column that lets a scan skip data files whose partition values or column
/// bounds and null counts show that no row can satisfy it. Rows are never filtered by it.
struct ColumnPredicate {
  enum class Op { kEq, kLt, kLtEq, kGt, kGtEq, kIsNull, kNotNull, kIn };
  int field_id = 0;
  Op op = Op::kEq;
  std::vector<std::shared_ptr<arrow::Scalar>> values;  // of the column's type; kIn: several
};

/// The live data files of a snapshot (the current one by default) with their rows, skipping
/// files that cannot satisfy every predicate.
arrow::Result<std::vector<FileRows>> ScanFiles(const LoadedTable& table,
                                               std::optional<int64_t> snapshot_id = {},
                                               const std::vector<ColumnPredicate>& predicates = {});

/// The rows of a snapshot (the current one by default), columns of the table's current schema.
arrow::Result<std::shared_ptr<arrow::Table>> ScanTable(
    const LoadedTable& table, std::optional<int64_t> snapshot_id = {},
    const std::vector<ColumnPredicate>& predicates = {});

/// After losing commit race number `attempt` (from 0) on `ident`: waits before the next try (10 ms
/// doubling up to 640 ms), or gives up after the tenth with ICEBERG_COMMIT_FAILED.
arrow::Status BackOffAfterLostCommit(Catalog* catalog, const std::vector<std::string>& ident,
                                     int attempt);

/// The manifests of a snapshot: manifest-list records whoever wrote them, with the fields in this
/// order: path, length, partition spec id, content, sequence number, min sequence number, added
/// snapshot id, added/existing/deleted files count, added/existing/deleted rows count, partition
/// summaries (contains_null, contains_nan, lower_bound, upper_bound), key metadata.
arrow::Result<std::vector<avro::Datum>> SnapshotManifests(const Snapshot& snapshot);

/// A live data file of a snapshot: its spec and its data_file record, fields in this order:
/// content, file_path, file_format, partition (the spec's fields in order), record_count,
/// file_size_in_bytes, column_sizes, value_counts, null_value_counts, nan_value_counts,
/// lower_bounds, upper_bounds, key_metadata, split_offsets, equality_ids, sort_order_id.
struct LiveDataFile {
  int spec_id = 0;
  avro::Datum data_file;
};
arrow::Result<std::vector<LiveDataFile>> SnapshotDataFiles(const TableMetadata& metadata,
                                                           const Snapshot& snapshot);

/// The paths of the data files a data manifest lists as live (ADDED or EXISTING), given its
/// manifest-list record (SnapshotManifests' layout).
arrow::Result<std::vector<std::string>> ManifestLiveFilePaths(const TableMetadata& metadata,
                                                              const avro::Datum& manifest);

/// An entry of a data manifest (the ADDED, EXISTING and DELETED ones, in the manifest's order),
/// as a streaming read counts a snapshot's files.
struct ManifestDataEntry {
  int32_t status = 1;  // 0 EXISTING, 1 ADDED, 2 DELETED
  int64_t snapshot_id = 0;
  std::string path;
  int64_t record_count = 0;
  int64_t size = 0;
};
arrow::Result<std::vector<ManifestDataEntry>> ManifestDataEntries(const TableMetadata& metadata,
                                                                  const avro::Datum& manifest);

/// The rows of one data file, columns of `schema` (a table schema with field ids) matched by
/// field id; a column the file lacks (added later) reads as NULL.
arrow::Result<std::shared_ptr<arrow::Table>> ReadDataFile(
    const std::shared_ptr<arrow::Schema>& schema, const std::string& path);

/// The table schema without Iceberg's field-id metadata, as scans return it.
std::shared_ptr<arrow::Schema> PlainSchema(const arrow::Schema& schema);

/// Whether a snapshot or one of its ancestors carries summary[key] == value for every pair.
bool AncestryHas(const TableMetadata& metadata,
                 const std::function<bool(const std::map<std::string, std::string>&)>& predicate);

}  // namespace ember::iceberg
