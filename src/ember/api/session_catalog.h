// Spark's session catalog (spark_catalog) without Hive: databases and file-format tables
// (parquet, json, csv, text) whose data lives under spark.sql.warehouse.dir (managed) or at a
// given location (external). Spark's in-memory catalog forgets its tables when the process ends;
// Ember keeps them in a SQLite database in the warehouse so that they survive.
#pragma once

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ember::io {
class SqliteDatabase;
}

namespace ember {

struct SessionTable {
  std::string database;  // lower-cased, as Spark keeps names in its session catalog
  std::string name;      // lower-cased
  std::string provider;  // parquet, json, csv or text
  std::string location;  // an absolute directory
  bool managed = true;   // DROP TABLE deletes the data of a managed table only
  std::shared_ptr<arrow::Schema> schema;  // partition columns last, as Spark orders them
  std::vector<std::string> partition_columns;
};

/// Spark's SCHEMA_NOT_FOUND for a database of the session catalog.
arrow::Status SessionSchemaNotFound(const std::string& database);

/// The formats a session-catalog table can have; Spark's UNSUPPORTED_FEATURE-style error for
/// others (orc, avro, a Hive serde).
arrow::Status CheckSessionTableFormat(const std::string& provider);

/// A new table's columns from a query's: nullable, as Spark's file tables have them.
/// Partition columns are UNSUPPORTED_FEATURE until the file reader reads `col=value` directories
/// (they will move last, in their given order, as Spark orders them).
arrow::Result<std::shared_ptr<arrow::Schema>> SessionTableColumns(
    const arrow::Schema& columns, const std::vector<std::string>& partition_columns);

class SessionCatalog {
 public:
  /// The catalog of the warehouse directory (made if missing), its metadata in
  /// <warehouse>/.ember-session-catalog.db (a hidden name: Spark's and DuckDB's listings skip it).
  static arrow::Result<std::unique_ptr<SessionCatalog>> Open(const std::string& warehouse);
  ~SessionCatalog();

  const std::string& warehouse() const { return warehouse_; }
  /// Where a managed table's data goes: <warehouse>/<table>, or <warehouse>/<db>.db/<table>;
  /// Spark's INVALID_SCHEMA_OR_RELATION_NAME for a name that is not one directory level.
  arrow::Result<std::string> DefaultLocation(const std::string& database,
                                             const std::string& name) const;

  arrow::Result<bool> DatabaseExists(const std::string& database);
  /// Spark's SCHEMA_ALREADY_EXISTS unless if_not_exists.
  arrow::Status CreateDatabase(const std::string& database, bool if_not_exists);
  arrow::Result<std::vector<std::string>> ListDatabases();

  arrow::Result<std::optional<SessionTable>> GetTable(const std::string& database,
                                                      const std::string& name);
  /// Spark's TABLE_OR_VIEW_ALREADY_EXISTS, or SCHEMA_NOT_FOUND for a missing database.
  arrow::Status CreateTable(const SessionTable& table);
  /// Whether the table was there; a managed table's directory goes with it.
  arrow::Result<bool> DropTable(const std::string& database, const std::string& name);
  arrow::Result<std::vector<std::string>> ListTables(const std::string& database);

 private:
  SessionCatalog(std::unique_ptr<io::SqliteDatabase> db, std::string warehouse);

  std::unique_ptr<io::SqliteDatabase> db_;
  std::string warehouse_;
};

}  // namespace ember
