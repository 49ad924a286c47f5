#include "ember/api/session_catalog.h"

#include <arrow/type.h>

#include <cctype>
#include <filesystem>

#include "ember/common/path_segment.h"
#include "ember/error.h"
#include "ember/iceberg/catalog.h"
#include "ember/io/sqlite.h"
#include "ember/plan/type_names.h"

namespace ember {

using arrow::Result;
using arrow::Status;
namespace fs = std::filesystem;

namespace {

constexpr const char* kSchema =
    "CREATE TABLE IF NOT EXISTS databases (name TEXT PRIMARY KEY);"
    "CREATE TABLE IF NOT EXISTS tables (database TEXT NOT NULL, name TEXT NOT NULL, "
    "provider TEXT NOT NULL, location TEXT NOT NULL, managed INTEGER NOT NULL, "
    "columns TEXT NOT NULL, partition_columns TEXT NOT NULL, PRIMARY KEY (database, name));"
    "INSERT OR IGNORE INTO databases VALUES ('default');";

std::string Quoted(const std::string& name) { return "`" + name + "`"; }

// Columns as a DDL string ("`a` INT, `b` STRING"), the form the type parser reads back.
std::string ColumnsDdl(const arrow::Schema& schema) {
  std::string out;
  for (const auto& f : schema.fields()) {
    std::string name;
    for (char c : f->name()) name += c == '`' ? std::string("``") : std::string(1, c);
    out += (out.empty() ? "" : ", ") + Quoted(name) + " " + plan::SparkTypeName(*f->type(), true);
  }
  return out;
}

std::string JoinedNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : "\n") + n;
  return out;
}

}  // namespace

Status SessionSchemaNotFound(const std::string& database) {
  return UserError(ErrorKind::kAnalysis, "SCHEMA_NOT_FOUND",
                   "The schema " + Quoted("spark_catalog") + "." + Quoted(database) +
                       " cannot be found. Verify the spelling and correctness of the schema and "
                       "catalog.\nIf you did not qualify the name with a catalog, verify the "
                       "current_schema() output, or qualify the name with the correct catalog.\n"
                       "To tolerate the error on drop use DROP SCHEMA IF EXISTS.",
                   "42704");
}

Status CheckSessionTableFormat(const std::string& provider) {
  if (provider == "parquet" || provider == "json" || provider == "csv" || provider == "text") {
    return Status::OK();
  }
  return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                   "The feature is not supported: tables USING " + provider +
                       " in Ember's session catalog (parquet, json, csv and text are) yet.",
                   "0A000");
}

Result<std::shared_ptr<arrow::Schema>> SessionTableColumns(
    const arrow::Schema& columns, const std::vector<std::string>& partition_columns) {
  if (!partition_columns.empty()) {
    // Ember's file reader does not yet take partition values from `col=value` directories, so a
    // partitioned table could be written but not read back.
    return UserError(
        ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
        "The feature is not supported: partitioned tables in Ember's session catalog yet.",
        "0A000");
  }
  arrow::FieldVector fields;
  for (const auto& f : columns.fields()) fields.push_back(f->WithNullable(true));
  return arrow::schema(fields);
}

Result<std::unique_ptr<SessionCatalog>> SessionCatalog::Open(const std::string& warehouse_in) {
  std::error_code ec;
  std::string warehouse = fs::absolute(warehouse_in).lexically_normal().string();
  while (warehouse.size() > 1 && warehouse.back() == '/') warehouse.pop_back();
  fs::create_directories(warehouse, ec);
  if (ec) return FileWriteFailed(warehouse, ec.value());
  std::string file = warehouse + "/.ember-session-catalog.db";
  auto db = io::SqliteDatabase::Open(file, "Session catalog " + warehouse);
  if (!db.ok()) {
    return Status::IOError("Cannot open the session catalog ", file, ": ", db.status().message());
  }
  ARROW_RETURN_NOT_OK((*db)->Exec(kSchema));
  return std::unique_ptr<SessionCatalog>(new SessionCatalog(std::move(*db), warehouse));
}

SessionCatalog::SessionCatalog(std::unique_ptr<io::SqliteDatabase> db, std::string warehouse)
    : db_(std::move(db)), warehouse_(std::move(warehouse)) {}

SessionCatalog::~SessionCatalog() = default;

Result<std::string> SessionCatalog::DefaultLocation(const std::string& database,
                                                    const std::string& name) const {
  // Each level one directory under the warehouse: PathUnder refuses `..`, '/' and the like.
  ARROW_RETURN_NOT_OK(PathUnder(warehouse_, {database, name}).status());
  if (database == "default") return warehouse_ + "/" + name;
  return warehouse_ + "/" + database + ".db/" + name;
}

Result<bool> SessionCatalog::DatabaseExists(const std::string& database) {
  ARROW_ASSIGN_OR_RAISE(auto rows,
                        db_->Query("SELECT name FROM databases WHERE name = ?", {database}));
  return !rows.empty();
}

Status SessionCatalog::CreateDatabase(const std::string& database, bool if_not_exists) {
  ARROW_RETURN_NOT_OK(PathUnder(warehouse_, {database}).status());
  ARROW_ASSIGN_OR_RAISE(auto inserted, db_->Run("INSERT INTO databases VALUES (?)", {database}));
  bool conflict = inserted.conflict;
  if (conflict && !if_not_exists) {
    return iceberg::SchemaAlreadyExists({database});
  }
  if (!conflict && database != "default") {
    std::error_code ec;
    fs::create_directories(warehouse_ + "/" + database + ".db", ec);
  }
  return Status::OK();
}

Result<std::vector<std::string>> SessionCatalog::ListDatabases() {
  ARROW_ASSIGN_OR_RAISE(auto rows, db_->Query("SELECT name FROM databases ORDER BY name", {}));
  std::vector<std::string> names;
  for (const auto& r : rows) names.push_back(r[0].value_or(""));
  return names;
}

Result<std::optional<SessionTable>> SessionCatalog::GetTable(const std::string& database,
                                                             const std::string& name) {
  ARROW_ASSIGN_OR_RAISE(auto rows,
                        db_->Query("SELECT provider, location, managed, columns, partition_columns "
                                   "FROM tables WHERE database = ? AND name = ?",
                                   {database, name}));
  if (rows.empty()) return std::nullopt;
  std::vector<std::string> r;  // every column is NOT NULL
  for (const auto& value : rows[0]) r.push_back(value.value_or(""));
  SessionTable table;
  table.database = database;
  table.name = name;
  table.provider = r[0];
  table.location = r[1];
  table.managed = r[2] == "1";
  ARROW_ASSIGN_OR_RAISE(auto type, plan::ParseTypeName("struct<" + r[3] + ">"));
  table.schema = arrow::schema(type->fields());
  std::string rest = r[4];
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    table.partition_columns.push_back(rest.substr(0, end));
    rest = end == std::string::npos ? "" : rest.substr(end + 1);
  }
  return table;
}

Status SessionCatalog::CreateTable(const SessionTable& table) {
  ARROW_ASSIGN_OR_RAISE(bool db_exists, DatabaseExists(table.database));
  if (!db_exists) {
    return SessionSchemaNotFound(table.database);
  }
  ARROW_ASSIGN_OR_RAISE(auto inserted,
                        db_->Run("INSERT INTO tables VALUES (?, ?, ?, ?, ?, ?, ?)",
                                 {table.database, table.name, table.provider, table.location,
                                  table.managed ? "1" : "0", ColumnsDdl(*table.schema),
                                  JoinedNames(table.partition_columns)}));
  if (inserted.conflict) {
    return iceberg::TableAlreadyExists({"spark_catalog", table.database, table.name});
  }
  std::error_code ec;
  fs::create_directories(table.location, ec);  // Spark makes an empty table's directory
  if (ec) return FileWriteFailed(table.location, ec.value());
  return Status::OK();
}

Result<bool> SessionCatalog::DropTable(const std::string& database, const std::string& name) {
  ARROW_ASSIGN_OR_RAISE(auto table, GetTable(database, name));
  if (!table) return false;
  ARROW_RETURN_NOT_OK(
      db_->Run("DELETE FROM tables WHERE database = ? AND name = ?", {database, name}).status());
  if (table->managed) {
    std::error_code ec;
    fs::remove_all(table->location, ec);
    if (ec) return FileWriteFailed(table->location, ec.value());
  }
  return true;
}

Result<std::vector<std::string>> SessionCatalog::ListTables(const std::string& database) {
  ARROW_ASSIGN_OR_RAISE(
      auto rows,
      db_->Query("SELECT name FROM tables WHERE database = ? ORDER BY name", {database}));
  std::vector<std::string> names;
  for (const auto& r : rows) names.push_back(r[0].value_or(""));
  return names;
}

}  // namespace ember
