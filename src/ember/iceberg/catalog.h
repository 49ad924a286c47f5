// Iceberg catalogs configured with Spark's keys (spark.sql.catalog.<name>...): where a table's
// current metadata file is recorded and how a new one replaces it atomically.
//
// - HadoopCatalog (.type=hadoop, .warehouse=<dir>): <warehouse>/<ns...>/<table>/metadata/
//   v<N>.metadata.json and version-hint.text holding N (no newline); a commit links v<N+1> into
//   place without overwriting, so two writers cannot both commit one version.
// - SqlCatalog (.type=jdbc, .uri=jdbc:sqlite:<file>): Iceberg's JDBC catalog tables in SQLite, as
//   Java's JdbcCatalog and PyIceberg's SqlCatalog keep them (sql_catalog.h).
//
// Thread safety: a catalog may be used from several threads at once (a streaming query's thread
// and the session's); each implementation serialises what needs it.
#pragma once

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ember/iceberg/table_metadata.h"
#include "ember/plan/logical_plan.h"

namespace ember::iceberg {

/// A table's current metadata as a catalog points at it.
struct LoadedTable {
  /// The table within its catalog: namespace levels, then the name.
  std::vector<std::string> ident;
  TableMetadata metadata;
  /// The version of the metadata file: N of a Hadoop table's v<N>.metadata.json, the leading
  /// number of a metastore's <NNNNN>-<uuid>.metadata.json (-1 when the name has none). Only the
  /// catalog that loaded the table interprets it.
  int version = 0;
  /// The metadata file, exactly as the catalog records it (a SQL catalog's commit compares it).
  /// Empty for a table that does not exist yet: committing on such a base creates the table.
  std::string metadata_path;
};

/// The catalog operations Ember's statements, writers and sinks use. `ns` is a namespace's
/// levels; `ident` is the namespace levels then the table name.
class Catalog {
 public:
  explicit Catalog(std::string name) : name_(std::move(name)) {}
  virtual ~Catalog() = default;
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  /// The catalog's name in Spark's configuration (spark.sql.catalog.<name>).
  const std::string& name() const { return name_; }

  virtual arrow::Status CreateNamespace(const std::vector<std::string>& ns, bool if_not_exists) = 0;
  /// Fails with SCHEMA_NOT_EMPTY when the namespace holds tables or namespaces.
  virtual arrow::Status DropNamespace(const std::vector<std::string>& ns, bool if_exists) = 0;
  virtual arrow::Result<bool> NamespaceExists(const std::vector<std::string>& ns) const = 0;
  /// The names of the namespaces directly under `parent` (the top level for none), sorted.
  virtual arrow::Result<std::vector<std::string>> ListNamespaces(
      const std::vector<std::string>& parent) const = 0;
  /// The names of the tables in `ns`, sorted.
  virtual arrow::Result<std::vector<std::string>> ListTables(
      const std::vector<std::string>& ns) const = 0;

  /// A new, empty table at TableLocation(ident), partitioned by `partitioning`. The namespace
  /// must exist; a name TableLocation refuses is refused first.
  arrow::Status CreateTable(const std::vector<std::string>& ident, const arrow::Schema& schema,
                            std::map<std::string, std::string> properties, bool if_not_exists,
                            const std::vector<PartitionTerm>& partitioning = {});
  /// Removes the table from the catalog; false when there was none. `purge` also deletes the
  /// files its metadata lists (PurgeTableFiles, purge.h; the Hadoop catalog always does: the
  /// directory is the table).
  virtual arrow::Result<bool> DropTable(const std::vector<std::string>& ident, bool purge) = 0;
  virtual arrow::Result<bool> TableExists(const std::vector<std::string>& ident) const = 0;
  /// The table's current metadata; TABLE_OR_VIEW_NOT_FOUND when there is none.
  virtual arrow::Result<LoadedTable> LoadTable(const std::vector<std::string>& ident) const = 0;
  /// Compare-and-swap: writes `updated` as the metadata following `base` and makes it current
  /// only if `base` is still current. False when another writer committed first (refresh and
  /// retry). A base without metadata_path creates the table; false then means it exists.
  virtual arrow::Result<bool> Commit(const LoadedTable& base, TableMetadata updated) = 0;
  /// Where a new table's files go: each level of `ident` one directory under the warehouse
  /// (PathUnder, ember/common/path_segment.h), so a level that cannot be a directory name is
  /// INVALID_SCHEMA_OR_RELATION_NAME.
  virtual arrow::Result<std::string> TableLocation(const std::vector<std::string>& ident) const = 0;
  /// "catalog.ns.table" for messages.
  std::string QualifiedName(const std::vector<std::string>& ident) const;

 private:
  std::string name_;
};

/// The catalog configured by `options`, the keys of spark.sql.catalog.<name>.* without that
/// prefix ("type", "catalog-impl", "warehouse", "uri", ...); `""` holds the value of
/// spark.sql.catalog.<name> itself. Errors name the option at fault.
arrow::Result<std::shared_ptr<Catalog>> MakeCatalog(
    const std::string& name, const std::map<std::string, std::string>& options);

/// A catalog on a directory tree; see the top of this file. Every operation maps the names it is
/// given to directories with TableLocation, so each refuses a name that cannot be one.
class HadoopCatalog : public Catalog {
 public:
  HadoopCatalog(std::string name, std::string warehouse);

  arrow::Status CreateNamespace(const std::vector<std::string>& ns, bool if_not_exists) override;
  arrow::Status DropNamespace(const std::vector<std::string>& ns, bool if_exists) override;
  arrow::Result<bool> NamespaceExists(const std::vector<std::string>& ns) const override;
  arrow::Result<std::vector<std::string>> ListNamespaces(
      const std::vector<std::string>& parent) const override;
  arrow::Result<std::vector<std::string>> ListTables(
      const std::vector<std::string>& ns) const override;
  arrow::Result<bool> DropTable(const std::vector<std::string>& ident, bool purge) override;
  arrow::Result<bool> TableExists(const std::vector<std::string>& ident) const override;
  arrow::Result<LoadedTable> LoadTable(const std::vector<std::string>& ident) const override;
  /// Writes `updated` as version base.version + 1.
  arrow::Result<bool> Commit(const LoadedTable& base, TableMetadata updated) override;
  arrow::Result<std::string> TableLocation(const std::vector<std::string>& ident) const override;

 private:
  std::string warehouse_;
};

/// A table of a catalog that a stream reads: loaded afresh at every trigger.
class StreamedTable : public plan::StreamTable {
 public:
  StreamedTable(std::shared_ptr<Catalog> catalog, std::vector<std::string> ident)
      : catalog_(std::move(catalog)), ident_(std::move(ident)) {}
  arrow::Result<LoadedTable> Load() const { return catalog_->LoadTable(ident_); }
  std::string Name() const override { return catalog_->QualifiedName(ident_); }

 private:
  std::shared_ptr<Catalog> catalog_;
  std::vector<std::string> ident_;
};

/// Spark's errors for catalog operations, shared by the catalogs.
arrow::Status SchemaAlreadyExists(const std::vector<std::string>& ns);
arrow::Status SchemaNotFound(const std::vector<std::string>& ns);
arrow::Status SchemaNotEmpty(const std::vector<std::string>& ns);
arrow::Status TableAlreadyExists(const std::vector<std::string>& ident);

}  // namespace ember::iceberg
