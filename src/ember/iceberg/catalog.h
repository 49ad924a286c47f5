// Iceberg catalogs configured with Spark's keys: spark.sql.catalog.<name>.type=hadoop and
// .warehouse=<dir>. The Hadoop layout: <warehouse>/<ns...>/<table>/metadata/v<N>.metadata.json
// and version-hint.text holding N (no newline); a commit links v<N+1> into place without
// overwriting, so two writers cannot both commit one version.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/iceberg/table_metadata.h"

namespace ember::iceberg {

struct LoadedTable {
  TableMetadata metadata;
  int version = 0;
  std::string metadata_path;
};

class HadoopCatalog {
 public:
  HadoopCatalog(std::string name, std::string warehouse);

  const std::string& name() const { return name_; }
  arrow::Status CreateNamespace(const std::vector<std::string>& ns, bool if_not_exists);
  arrow::Status DropNamespace(const std::vector<std::string>& ns, bool if_exists);
  bool NamespaceExists(const std::vector<std::string>& ns) const;
  std::vector<std::string> ListNamespaces(const std::vector<std::string>& parent) const;
  std::vector<std::string> ListTables(const std::vector<std::string>& ns) const;

  /// `ident` is the namespace levels then the table name.
  arrow::Status CreateTable(const std::vector<std::string>& ident, const arrow::Schema& schema,
                            std::map<std::string, std::string> properties, bool if_not_exists,
                            const std::vector<PartitionTerm>& partitioning = {});
  arrow::Result<bool> DropTable(const std::vector<std::string>& ident, bool purge);
  bool TableExists(const std::vector<std::string>& ident) const;
  arrow::Result<LoadedTable> LoadTable(const std::vector<std::string>& ident) const;
  /// Writes `updated` as version base.version + 1; false when another writer got there first.
  arrow::Result<bool> Commit(const LoadedTable& base, TableMetadata updated);
  std::string TableLocation(const std::vector<std::string>& ident) const;
  /// "catalog.ns.table" for messages.
  std::string QualifiedName(const std::vector<std::string>& ident) const;

 private:
  std::string name_;
  std::string warehouse_;
};

}  // namespace ember::iceberg
