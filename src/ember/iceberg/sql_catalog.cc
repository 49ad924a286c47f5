#include "ember/iceberg/sql_catalog.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "ember/common/path_segment.h"
#include "ember/common/random.h"
#include "ember/error.h"
#include "ember/iceberg/data_file.h"
#include "ember/iceberg/purge.h"
#include "ember/io/atomic_file.h"
#include "ember/io/file_reader.h"
#include "ember/io/sqlite.h"

namespace ember::iceberg {

namespace fs = std::filesystem;
using arrow::Result;
using arrow::Status;

namespace {

using Value = io::SqliteDatabase::Value;
using Row = io::SqliteDatabase::Row;

std::string Joined(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
  return out;
}

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> out(1);
  for (char c : text) {
    if (c == separator) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

// The version a metastore metadata file name starts with ("00003-<uuid>.metadata.json" -> 3),
// -1 for another name (Java's BaseMetastoreTableOperations.parseVersion).
int MetadataVersion(const std::string& location) {
  size_t start = location.rfind('/');
  start = start == std::string::npos ? 0 : start + 1;
  size_t end = location.find('-', start);
  if (end == std::string::npos || end == start) return -1;
  std::string digits = location.substr(start, end - start);
  if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) return -1;
  return std::stoi(digits);
}

Status UnsupportedUri(const std::string& uri, const std::string& option, const std::string& why) {
  return UserError(ErrorKind::kIllegalArgument, "",
                   "Unsupported JDBC catalog URI '" + uri + "' in " + option + ": " + why +
                       " Ember's JDBC catalog keeps its tables in SQLite: give "
                       "jdbc:sqlite:/path/to/catalog.db (or PyIceberg's "
                       "sqlite:////path/to/catalog.db).",
                   "");
}

}  // namespace

Result<std::string> SqliteFileFromUri(const std::string& uri, const std::string& option) {
  std::string file;
  if (uri.rfind("jdbc:sqlite:", 0) == 0) {
    // sqlite-jdbc: jdbc:sqlite:<path>, jdbc:sqlite:file:<path>, jdbc:sqlite::memory:.
    file = uri.substr(12);
    if (file.rfind("file:", 0) == 0) file = io::PathFromUri(file.substr(0, file.find('?')));
  } else if (uri.rfind("sqlite:", 0) == 0 || uri.rfind("sqlite+", 0) == 0) {
    // SQLAlchemy: sqlite:///relative.db, sqlite:////absolute.db, sqlite:// in memory.
    size_t slashes = uri.find("://");
    if (slashes == std::string::npos) return UnsupportedUri(uri, option, "it has no '://'.");
    std::string rest = uri.substr(slashes + 3);
    rest = rest.substr(0, rest.find('?'));
    if (rest.empty()) return std::string(":memory:");
    if (rest[0] != '/') return UnsupportedUri(uri, option, "a SQLite URI names no host.");
    file = rest.substr(1);
  } else {
    size_t colon = uri.find(':', uri.rfind("jdbc:", 0) == 0 ? 5 : 0);
    std::string scheme = uri.substr(0, colon);
    return UnsupportedUri(uri, option,
                          colon == std::string::npos ? "it is not a database URI."
                                                     : "'" + scheme + "' is not SQLite.");
  }
  if (file.empty()) return UnsupportedUri(uri, option, "it names no database file.");
  return file;
}

namespace {

// The same DDL as Java's JdbcUtil (V0) and PyIceberg's SqlCatalog.
constexpr const char* kCreateTables =
    "CREATE TABLE IF NOT EXISTS iceberg_tables ("
    "catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL, "
    "table_name VARCHAR(255) NOT NULL, metadata_location VARCHAR(1000), "
    "previous_metadata_location VARCHAR(1000), "
    "PRIMARY KEY (catalog_name, table_namespace, table_name))";
constexpr const char* kCreateNamespaceProperties =
    "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties ("
    "catalog_name VARCHAR(255) NOT NULL, namespace VARCHAR(255) NOT NULL, "
    "property_key VARCHAR(255), property_value VARCHAR(1000), "
    "PRIMARY KEY (catalog_name, namespace, property_key))";

}  // namespace

Result<std::shared_ptr<SqlCatalog>> SqlCatalog::Open(std::string name, SqlCatalogOptions options) {
  ARROW_ASSIGN_OR_RAISE(auto file, SqliteFileFromUri(options.uri, options.uri_option));
  std::string warehouse = options.warehouse;
  while (warehouse.size() > 1 && warehouse.back() == '/') warehouse.pop_back();
  size_t scheme = warehouse.find("://");
  if (warehouse.rfind("file:", 0) != 0 && scheme != std::string::npos) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Unsupported warehouse '" + options.warehouse + "' in " +
                         options.warehouse_option +
                         ": Ember writes tables to the local file system; give a path or a "
                         "file:// URI.",
                     "");
  }
  if (warehouse.rfind("file:", 0) != 0) {
    warehouse = fs::absolute(warehouse).lexically_normal().string();
    while (warehouse.size() > 1 && warehouse.back() == '/') warehouse.pop_back();
  }
  auto opened = io::SqliteDatabase::Open(file, "JDBC catalog database " + file);
  if (!opened.ok()) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Cannot open the JDBC catalog database " + file + " of " +
                         options.uri_option + "=" + options.uri + ": " +
                         opened.status().message(),
                     "");
  }
  auto db = std::move(*opened);
  bool v1 = false;
  ARROW_RETURN_NOT_OK(db->Run(kCreateTables, {}).status());
  ARROW_RETURN_NOT_OK(db->Run(kCreateNamespaceProperties, {}).status());
  ARROW_ASSIGN_OR_RAISE(auto columns, db->Query("PRAGMA table_info(iceberg_tables)", {}));
  for (const auto& column : columns) {
    if (column.size() > 1 && column[1] == "iceberg_type") v1 = true;
  }
  if (!v1 && options.schema_v1) {
    auto added = db->Run("ALTER TABLE iceberg_tables ADD COLUMN iceberg_type VARCHAR(5)", {});
    // Another process may have added it meanwhile: look again rather than trust the error.
    ARROW_ASSIGN_OR_RAISE(columns, db->Query("PRAGMA table_info(iceberg_tables)", {}));
    for (const auto& column : columns) {
      if (column.size() > 1 && column[1] == "iceberg_type") v1 = true;
    }
    if (!v1) return added.status();
  }
  return std::shared_ptr<SqlCatalog>(
      new SqlCatalog(std::move(name), std::move(warehouse), std::move(db), v1));
}

SqlCatalog::SqlCatalog(std::string name, std::string warehouse,
                       std::unique_ptr<io::SqliteDatabase> db, bool v1)
    : Catalog(std::move(name)), warehouse_(std::move(warehouse)), db_(std::move(db)), v1_(v1) {}

SqlCatalog::~SqlCatalog() = default;

namespace {

// Rows of iceberg_tables that are tables (not views) in schema V1.
std::string TablesOnly(bool v1) {
  return v1 ? " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)" : "";
}

}  // namespace

Result<std::string> SqlCatalog::TableLocation(const std::vector<std::string>& ident) const {
  return PathUnder(warehouse_, ident);
}

Result<std::set<std::string>> SqlCatalog::NamespaceNames() const {
  ARROW_ASSIGN_OR_RAISE(
      auto rows,
      db_->Query("SELECT DISTINCT table_namespace FROM iceberg_tables WHERE catalog_name = ? "
                 "UNION SELECT DISTINCT namespace FROM iceberg_namespace_properties "
                 "WHERE catalog_name = ?",
                 {name(), name()}));
  std::set<std::string> out;
  for (const auto& row : rows) {
    if (row[0] && !row[0]->empty()) out.insert(*row[0]);
  }
  return out;
}

Result<bool> SqlCatalog::NamespaceExists(const std::vector<std::string>& ns) const {
  if (ns.empty()) return true;
  ARROW_ASSIGN_OR_RAISE(auto names, NamespaceNames());
  std::string joined = Joined(ns, ".");
  for (const auto& n : names) {
    if (n == joined || n.rfind(joined + ".", 0) == 0) return true;
  }
  return false;
}

Result<std::vector<std::string>> SqlCatalog::ListNamespaces(
    const std::vector<std::string>& parent) const {
  ARROW_ASSIGN_OR_RAISE(auto names, NamespaceNames());
  std::set<std::string> children;
  for (const auto& n : names) {
    auto levels = Split(n, '.');
    if (levels.size() > parent.size() && std::equal(parent.begin(), parent.end(), levels.begin())) {
      children.insert(levels[parent.size()]);
    }
  }
  return std::vector<std::string>(children.begin(), children.end());
}

Result<std::vector<std::string>> SqlCatalog::ListTables(const std::vector<std::string>& ns) const {
  ARROW_ASSIGN_OR_RAISE(
      auto rows, db_->Query("SELECT table_name FROM iceberg_tables WHERE catalog_name = ? AND "
                            "table_namespace = ?" +
                                TablesOnly(v1_) + " ORDER BY table_name",
                            {name(), Joined(ns, ".")}));
  std::vector<std::string> out;
  for (const auto& row : rows) out.push_back(row[0].value_or(""));
  return out;
}

Status SqlCatalog::CreateNamespace(const std::vector<std::string>& ns, bool if_not_exists) {
  // Its levels become directories of its tables' locations: refuse one that cannot be.
  ARROW_RETURN_NOT_OK(TableLocation(ns).status());
  ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExists(ns));
  if (!exists) {
    ARROW_ASSIGN_OR_RAISE(
        auto outcome,
        db_->Run("INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, "
                 "property_value) VALUES (?, ?, 'exists', 'true')",
                 {name(), Joined(ns, ".")}));
    if (!outcome.conflict) return Status::OK();
  }
  if (if_not_exists) return Status::OK();
  return SchemaAlreadyExists(ns);
}

Status SqlCatalog::DropNamespace(const std::vector<std::string>& ns, bool if_exists) {
  ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExists(ns));
  if (!exists) {
    if (if_exists) return Status::OK();
    return SchemaNotFound(ns);
  }
  ARROW_ASSIGN_OR_RAISE(auto tables, ListTables(ns));
  ARROW_ASSIGN_OR_RAISE(auto children, ListNamespaces(ns));
  if (!tables.empty() || !children.empty()) return SchemaNotEmpty(ns);
  return db_
      ->Run("DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ?",
            {name(), Joined(ns, ".")})
      .status();
}

Result<std::optional<std::string>> SqlCatalog::MetadataLocation(
    const std::vector<std::string>& ident) const {
  if (ident.empty()) return std::nullopt;
  std::vector<std::string> ns(ident.begin(), ident.end() - 1);
  ARROW_ASSIGN_OR_RAISE(
      auto rows,
      db_->Query("SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ? AND "
                 "table_namespace = ? AND table_name = ?" +
                     TablesOnly(v1_),
                 {name(), Joined(ns, "."), ident.back()}));
  if (rows.empty() || !rows[0][0]) return std::nullopt;
  return rows[0][0];
}

Result<bool> SqlCatalog::TableExists(const std::vector<std::string>& ident) const {
  ARROW_ASSIGN_OR_RAISE(auto location, MetadataLocation(ident));
  return location.has_value();
}

Result<LoadedTable> SqlCatalog::LoadTable(const std::vector<std::string>& ident) const {
  ARROW_ASSIGN_OR_RAISE(auto location, MetadataLocation(ident));
  if (!location) return TableOrViewNotFound(ident);
  ARROW_ASSIGN_OR_RAISE(auto text, io::ReadFileIfExists(LocalPath(*location)));
  if (!text) {
    return Status::IOError("The metadata file ", *location, " of table ", QualifiedName(ident),
                           ", current in the JDBC catalog, is missing");
  }
  ARROW_ASSIGN_OR_RAISE(auto metadata, TableMetadata::FromJson(*text));
  return LoadedTable{ident, std::move(metadata), MetadataVersion(*location), *location};
}

Result<bool> SqlCatalog::DropTable(const std::vector<std::string>& ident, bool purge) {
  if (ident.empty()) return false;
  std::optional<LoadedTable> files;
  if (purge) {
    auto table = LoadTable(ident);
    if (table.ok()) files = std::move(*table);
  }
  std::vector<std::string> ns(ident.begin(), ident.end() - 1);
  ARROW_ASSIGN_OR_RAISE(
      auto outcome,
      db_->Run("DELETE FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND "
               "table_name = ?" +
                   TablesOnly(v1_),
               {name(), Joined(ns, "."), ident.back()}));
  if (outcome.changed == 0) return false;
  if (files) ARROW_RETURN_NOT_OK(PurgeTableFiles(*files));
  return true;
}

Result<bool> SqlCatalog::Commit(const LoadedTable& base, TableMetadata updated) {
  bool create = base.metadata_path.empty();
  // The version after the base's; 0 after a name without one (-1), as Java numbers them.
  int version = create ? 0 : base.version + 1;
  std::vector<std::string> dropped;
  if (!create) {
    dropped = AddPreviousMetadata(&updated, base.metadata.last_updated_ms, base.metadata_path);
  }
  std::string directory = updated.location;
  auto custom = updated.properties.find("write.metadata.path");
  if (custom != updated.properties.end()) {
    directory = custom->second;
  } else {
    while (!directory.empty() && directory.back() == '/') directory.pop_back();
    directory += "/metadata";
  }
  while (!directory.empty() && directory.back() == '/') directory.pop_back();
  char prefix[16];
  std::snprintf(prefix, sizeof(prefix), "%05d-", version);
  std::string location = directory + "/" + prefix + NewUuid() + ".metadata.json";
  std::string file = LocalPath(location);
  ARROW_ASSIGN_OR_RAISE(bool written, io::WriteFileAtomically(file, updated.ToJson()));
  if (!written) return Status::IOError("metadata file ", location, " exists already");

  const auto& ident = base.ident;
  if (ident.empty()) return Status::Invalid("a commit to ", name(), " names no table");
  std::vector<std::string> ns(ident.begin(), ident.end() - 1);
  io::SqliteDatabase::Outcome outcome;
  if (create) {
    auto inserted = db_->Run(
        v1_ ? "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                  "metadata_location, previous_metadata_location, iceberg_type) "
                  "VALUES (?, ?, ?, ?, NULL, 'TABLE')"
                : "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                  "metadata_location, previous_metadata_location) VALUES (?, ?, ?, ?, NULL)",
        {name(), Joined(ns, "."), ident.back(), location});
    if (!inserted.ok()) {
      std::error_code ec;
      fs::remove(file, ec);
    }
    ARROW_ASSIGN_OR_RAISE(outcome, std::move(inserted));
  } else {
    // The compare-and-swap: only a row still pointing at the base's file changes.
    auto swapped = db_->Run(
        "UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ? "
        "WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? AND "
        "metadata_location = ?" +
            TablesOnly(v1_),
        {location, base.metadata_path, name(), Joined(ns, "."), ident.back(), base.metadata_path});
    if (!swapped.ok()) {
      std::error_code ec;
      fs::remove(file, ec);
    }
    ARROW_ASSIGN_OR_RAISE(outcome, std::move(swapped));
  }
  if (outcome.conflict || outcome.changed == 0) {
    std::error_code ec;
    fs::remove(file, ec);
    return false;
  }
  DeleteDroppedMetadata(updated, dropped);
  return true;
}

}  // namespace ember::iceberg
