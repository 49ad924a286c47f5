// Iceberg's SQL (JDBC) catalog on SQLite, sharing its database with Java's JdbcCatalog (Spark's
// spark.sql.catalog.<name>.type=jdbc) and PyIceberg's SqlCatalog (ICEBERG.md 4.2).
//
// Two tables hold the catalog, rows keyed by the catalog's name:
//   iceberg_tables(catalog_name, table_namespace, table_name, metadata_location,
//                  previous_metadata_location [, iceberg_type])
//   iceberg_namespace_properties(catalog_name, namespace, property_key, property_value)
// A namespace's levels are joined with '.'. A namespace exists when a property row (Java and
// PyIceberg write exists=true) or a table names it or one of its children. The iceberg_type
// column ('TABLE', 'VIEW' or NULL) is Java's schema V1; Ember creates the V0 tables as Java and
// PyIceberg do, uses the column when it is there and adds it on jdbc.schema-version=V1.
//
// Metadata files are <table location>/metadata/<NNNNN>-<uuid>.metadata.json, NNNNN counting from
// 00000 (Java's BaseMetastoreTableOperations and PyIceberg). A commit writes the new file, then
//   UPDATE iceberg_tables SET metadata_location = new, previous_metadata_location = old
//   WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND metadata_location = old
// and one row changed means it won; none means another writer committed first.
//
// Thread safety: one connection per catalog, used under a mutex; other processes are waited for
// (SQLite's busy timeout).
#pragma once

#include <arrow/result.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ember/iceberg/catalog.h"

namespace ember::io {
class SqliteDatabase;
}

namespace ember::iceberg {

struct SqlCatalogOptions {
  /// jdbc:sqlite:<file> (Spark) or sqlite:///<file> (PyIceberg, SQLAlchemy's form: sqlite:////abs).
  std::string uri;
  /// The configuration key that gave `uri`, for messages.
  std::string uri_option;
  /// Where new tables go: <warehouse>/<ns levels joined by '/'>/<table>, as Java's JdbcCatalog.
  /// A plain path or a file: URI, kept as given (made absolute when relative).
  std::string warehouse;
  std::string warehouse_option;
  /// jdbc.schema-version=V1: add the iceberg_type column if the database lacks it.
  bool schema_v1 = false;
};

/// The SQLite database file a catalog URI names (":memory:" for an in-memory database), or an
/// error naming `option` when the URI is not a SQLite one.
arrow::Result<std::string> SqliteFileFromUri(const std::string& uri, const std::string& option);

class SqlCatalog : public Catalog {
 public:
  /// Opens (and creates if needed) the database and the catalog tables.
  static arrow::Result<std::shared_ptr<SqlCatalog>> Open(std::string name,
                                                         SqlCatalogOptions options);
  ~SqlCatalog() override;

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
  arrow::Result<bool> Commit(const LoadedTable& base, TableMetadata updated) override;
  arrow::Result<std::string> TableLocation(const std::vector<std::string>& ident) const override;

 private:
  SqlCatalog(std::string name, std::string warehouse, std::unique_ptr<io::SqliteDatabase> db,
             bool v1);
  /// Every namespace named by a property row or a table of this catalog, levels joined by '.'.
  arrow::Result<std::set<std::string>> NamespaceNames() const;
  /// The row of a table: its metadata location, or nothing.
  arrow::Result<std::optional<std::string>> MetadataLocation(
      const std::vector<std::string>& ident) const;

  std::string warehouse_;
  std::unique_ptr<io::SqliteDatabase> db_;
  bool v1_;  // Java's schema V1: iceberg_tables has the iceberg_type column
};

}  // namespace ember::iceberg
