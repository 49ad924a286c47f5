#include "ember/iceberg/catalog.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "ember/common/path_segment.h"
#include "ember/error.h"
#include "ember/iceberg/data_file.h"
#include "ember/iceberg/purge.h"
#include "ember/iceberg/sql_catalog.h"
#include "ember/io/atomic_file.h"

namespace ember::iceberg {

namespace fs = std::filesystem;
using arrow::Result;
using arrow::Status;

namespace {

std::string Backquoted(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "`" : ".`") + p + "`";
  return out;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// A Hadoop table's directory holds metadata/<...>.metadata.json.
bool IsTableDirectory(const fs::path& directory) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(directory / "metadata", ec)) {
    std::string name = entry.path().filename().string();
    if (name.size() > 14 && name.compare(name.size() - 14, 14, ".metadata.json") == 0) return true;
  }
  return false;
}

bool IsNamespaceDirectory(const fs::path& directory) {
  std::error_code ec;
  return fs::is_directory(directory, ec) && !IsTableDirectory(directory);
}

}  // namespace

Status SchemaAlreadyExists(const std::vector<std::string>& ns) {
  return UserError(ErrorKind::kAnalysis, "SCHEMA_ALREADY_EXISTS",
                   "Cannot create schema " + Backquoted(ns) +
                       " because it already exists.\nChoose a different name, drop the existing "
                       "schema, or add the IF NOT EXISTS clause to tolerate pre-existing schema.",
                   "42P06");
}

Status SchemaNotFound(const std::vector<std::string>& ns) {
  return UserError(ErrorKind::kAnalysis, "SCHEMA_NOT_FOUND",
                   "The schema " + Backquoted(ns) +
                       " cannot be found. Verify the spelling and correctness of the schema and "
                       "catalog.",
                   "42704");
}

Status SchemaNotEmpty(const std::vector<std::string>& ns) {
  return UserError(ErrorKind::kAnalysis, "SCHEMA_NOT_EMPTY",
                   "Cannot drop a schema " + Backquoted(ns) +
                       " because it contains objects.\nUse DROP SCHEMA ... CASCADE to drop the "
                       "schema and all its objects.",
                   "2BP01");
}

Status TableAlreadyExists(const std::vector<std::string>& ident) {
  return UserError(ErrorKind::kAnalysis, "TABLE_OR_VIEW_ALREADY_EXISTS",
                   "Cannot create table or view " + Backquoted(ident) +
                       " because it already exists.\nChoose a different name, drop or replace "
                       "the existing object, or add the IF NOT EXISTS clause to tolerate "
                       "pre-existing objects.",
                   "42P07");
}

std::string Catalog::QualifiedName(const std::vector<std::string>& ident) const {
  std::string out = name_;
  for (const auto& part : ident) out += "." + part;
  return out;
}

Status Catalog::CreateTable(const std::vector<std::string>& ident, const arrow::Schema& schema,
                            std::map<std::string, std::string> properties, bool if_not_exists,
                            const std::vector<PartitionTerm>& partitioning) {
  ARROW_ASSIGN_OR_RAISE(std::string location, TableLocation(ident));
  ARROW_ASSIGN_OR_RAISE(bool exists, TableExists(ident));
  if (exists) {
    if (if_not_exists) return Status::OK();
    return TableAlreadyExists(ident);
  }
  std::vector<std::string> ns(ident.begin(), ident.end() - 1);
  if (!ns.empty()) {
    ARROW_ASSIGN_OR_RAISE(bool ns_exists, NamespaceExists(ns));
    if (!ns_exists) return SchemaNotFound(ns);
  }
  ARROW_ASSIGN_OR_RAISE(auto metadata, NewTableMetadata(schema, std::move(location),
                                                        std::move(properties), partitioning));
  LoadedTable none;  // no metadata file yet: the commit creates the table
  none.ident = ident;
  ARROW_ASSIGN_OR_RAISE(bool created, Commit(none, std::move(metadata)));
  if (!created && !if_not_exists) return TableAlreadyExists(ident);
  return Status::OK();
}

Result<std::shared_ptr<Catalog>> MakeCatalog(const std::string& name,
                                             const std::map<std::string, std::string>& options) {
  std::string prefix = "spark.sql.catalog." + name;
  auto option = [&](const std::string& key) -> const std::string* {
    auto it = options.find(key);
    return it == options.end() ? nullptr : &it->second;
  };
  const std::string* type = option("type");
  const std::string* impl = option("catalog-impl");
  if (type && impl) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Cannot create catalog " + name + ": both " + prefix + ".type and " + prefix +
                         ".catalog-impl are set (type=" + *type + ", catalog-impl=" + *impl + ")",
                     "");
  }
  std::string kind = "hadoop";
  if (type) {
    kind = Lower(*type);
    if (kind == "sql") kind = "jdbc";
  } else if (impl) {
    if (*impl == "org.apache.iceberg.jdbc.JdbcCatalog") {
      kind = "jdbc";
    } else if (*impl == "org.apache.iceberg.hadoop.HadoopCatalog") {
      kind = "hadoop";
    } else {
      return UserError(ErrorKind::kIllegalArgument, "UNSUPPORTED_FEATURE",
                       "Iceberg catalog implementation '" + *impl + "' of " + prefix +
                           ".catalog-impl is not supported by Ember; use "
                           "org.apache.iceberg.jdbc.JdbcCatalog or "
                           "org.apache.iceberg.hadoop.HadoopCatalog.",
                       "0A000");
    }
  }
  if (kind != "hadoop" && kind != "jdbc") {
    return UserError(ErrorKind::kIllegalArgument, "UNSUPPORTED_FEATURE",
                     "Iceberg catalog type '" + kind + "' of " + prefix +
                         ".type is not supported by Ember yet; use hadoop or jdbc.",
                     "0A000");
  }
  const std::string* warehouse = option("warehouse");
  if (!warehouse || warehouse->empty()) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     std::string("Cannot create ") + (kind == "hadoop" ? "a Hadoop" : "a JDBC") +
                         " catalog without a warehouse: set " + prefix + ".warehouse.",
                     "");
  }
  if (kind == "hadoop") return std::make_shared<HadoopCatalog>(name, *warehouse);
  const std::string* uri = option("uri");
  if (!uri || uri->empty()) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Cannot create a JDBC catalog without a database: set " + prefix +
                         ".uri, e.g. to jdbc:sqlite:/path/to/catalog.db.",
                     "");
  }
  SqlCatalogOptions sql;
  sql.uri_option = prefix + ".uri";
  sql.uri = *uri;
  sql.warehouse = *warehouse;
  sql.warehouse_option = prefix + ".warehouse";
  const std::string* version = option("jdbc.schema-version");
  sql.schema_v1 = version && Lower(*version) == "v1";
  ARROW_ASSIGN_OR_RAISE(auto catalog, SqlCatalog::Open(name, std::move(sql)));
  return std::shared_ptr<Catalog>(std::move(catalog));
}

HadoopCatalog::HadoopCatalog(std::string name, std::string warehouse)
    : Catalog(std::move(name)), warehouse_(std::move(warehouse)) {
  if (warehouse_.rfind("file://", 0) == 0) warehouse_ = warehouse_.substr(7);
  if (warehouse_.rfind("file:", 0) == 0) warehouse_ = warehouse_.substr(5);
  warehouse_ = fs::absolute(warehouse_).lexically_normal().string();
  while (warehouse_.size() > 1 && warehouse_.back() == '/') warehouse_.pop_back();
}

Result<std::string> HadoopCatalog::TableLocation(const std::vector<std::string>& ident) const {
  return PathUnder(warehouse_, ident);
}

Result<bool> HadoopCatalog::NamespaceExists(const std::vector<std::string>& ns) const {
  ARROW_ASSIGN_OR_RAISE(std::string directory, TableLocation(ns));
  return IsNamespaceDirectory(directory);
}

Result<bool> HadoopCatalog::TableExists(const std::vector<std::string>& ident) const {
  ARROW_ASSIGN_OR_RAISE(std::string directory, TableLocation(ident));
  return IsTableDirectory(directory);
}

Status HadoopCatalog::CreateNamespace(const std::vector<std::string>& ns, bool if_not_exists) {
  ARROW_ASSIGN_OR_RAISE(std::string directory, TableLocation(ns));
  if (IsNamespaceDirectory(directory)) {
    if (if_not_exists) return Status::OK();
    return SchemaAlreadyExists(ns);
  }
  std::error_code ec;
  fs::create_directories(directory, ec);
  if (ec) return Status::IOError("cannot create ", directory, ": ", ec.message());
  return Status::OK();
}

Status HadoopCatalog::DropNamespace(const std::vector<std::string>& ns, bool if_exists) {
  ARROW_ASSIGN_OR_RAISE(std::string directory, TableLocation(ns));
  if (!IsNamespaceDirectory(directory)) {
    if (if_exists) return Status::OK();
    return UserError(ErrorKind::kAnalysis, "SCHEMA_NOT_FOUND",
                     "The schema " + Backquoted(ns) + " cannot be found.", "42704");
  }
  std::error_code ec;
  if (!fs::is_empty(directory, ec)) return SchemaNotEmpty(ns);
  fs::remove(directory, ec);
  return Status::OK();
}

Result<std::vector<std::string>> HadoopCatalog::ListNamespaces(
    const std::vector<std::string>& parent) const {
  ARROW_ASSIGN_OR_RAISE(std::string directory, TableLocation(parent));
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(directory, ec)) {
    if (entry.is_directory() && !IsTableDirectory(entry.path())) {
      out.push_back(entry.path().filename().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<std::string>> HadoopCatalog::ListTables(const std::vector<std::string>& ns) const {
  ARROW_ASSIGN_OR_RAISE(std::string directory, TableLocation(ns));
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(directory, ec)) {
    if (IsTableDirectory(entry.path())) out.push_back(entry.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<bool> HadoopCatalog::DropTable(const std::vector<std::string>& ident, bool purge) {
  ARROW_ASSIGN_OR_RAISE(bool exists, TableExists(ident));
  if (!exists) return false;
  // The Hadoop catalog owns the table directory: dropping the table deletes its files, as Java
  // does, but only those its metadata lists and the catalog's own: v1..vN and the version hint.
  (void)purge;
  ARROW_ASSIGN_OR_RAISE(auto table, LoadTable(ident));
  fs::path metadata_dir = fs::path(table.metadata_path).parent_path();
  std::vector<std::string> catalog_files{(metadata_dir / "version-hint.text").string()};
  for (int v = 1; v <= table.version; ++v) {
    catalog_files.push_back((metadata_dir / ("v" + std::to_string(v) + ".metadata.json")).string());
  }
  ARROW_RETURN_NOT_OK(PurgeTableFiles(table, catalog_files));
  return true;
}

Result<LoadedTable> HadoopCatalog::LoadTable(const std::vector<std::string>& ident) const {
  ARROW_ASSIGN_OR_RAISE(std::string directory, TableLocation(ident));
  fs::path metadata_dir = fs::path(directory) / "metadata";
  int version = 0;
  ARROW_ASSIGN_OR_RAISE(auto hint, io::ReadFileIfExists((metadata_dir / "version-hint.text").string()));
  if (hint) {
    try {
      version = std::stoi(*hint);
    } catch (...) {
      version = 0;
    }
  }
  // The hint may lag behind: probe forward, as Java does; without one, take the largest.
  std::error_code ec;
  if (version == 0) {
    for (const auto& entry : fs::directory_iterator(metadata_dir, ec)) {
      std::string name = entry.path().filename().string();
      if (name.size() > 15 && name[0] == 'v' && name.compare(name.size() - 14, 14, ".metadata.json") == 0) {
        try {
          version = std::max(version, std::stoi(name.substr(1, name.size() - 15)));
        } catch (...) {
        }
      }
    }
  }
  while (fs::exists(metadata_dir / ("v" + std::to_string(version + 1) + ".metadata.json"), ec)) ++version;
  std::string path = (metadata_dir / ("v" + std::to_string(version) + ".metadata.json")).string();
  ARROW_ASSIGN_OR_RAISE(auto text, io::ReadFileIfExists(path));
  if (version == 0 || !text) {
    return TableOrViewNotFound(ident);
  }
  ARROW_ASSIGN_OR_RAISE(auto metadata, TableMetadata::FromJson(*text));
  return LoadedTable{ident, std::move(metadata), version, path};
}

Result<bool> HadoopCatalog::Commit(const LoadedTable& base, TableMetadata updated) {
  fs::path metadata_dir = fs::path(LocalPath(updated.location)) / "metadata";
  int version = base.version + 1;
  std::vector<std::string> dropped;
  if (base.version > 0) {
    dropped = AddPreviousMetadata(&updated, base.metadata.last_updated_ms, "file:" + base.metadata_path);
  }
  std::string path = (metadata_dir / ("v" + std::to_string(version) + ".metadata.json")).string();
  ARROW_ASSIGN_OR_RAISE(bool written, io::WriteFileAtomically(path, updated.ToJson()));
  if (!written) return false;
  DeleteDroppedMetadata(updated, dropped);
  // The hint is best effort: readers probe past it.
  std::string hint = (metadata_dir / "version-hint.text").string();
  std::error_code ec;
  fs::remove(hint, ec);
  ARROW_RETURN_NOT_OK(io::WriteFileAtomically(hint, std::to_string(version)).status());
  return true;
}

}  // namespace ember::iceberg
