// Deleting a dropped table's files (DROP TABLE ... PURGE) by Iceberg's rule, CatalogUtil's
// dropTableData: only what the table's metadata lists, never a directory walk.
#pragma once

#include <string>
#include <vector>

#include <arrow/status.h>

namespace ember::iceberg {

struct LoadedTable;

/// Deletes the files `table`'s metadata lists: the data and delete files in every snapshot's
/// manifests (unless the table property gc.enabled is false, as Java), the manifests, the
/// manifest lists, the statistics and partition statistics files, the metadata files of the
/// metadata log and the current one; then
/// `catalog_files` (files the catalog keeps beside them, such as a Hadoop table's version hint).
/// Then each directory under the table's location that held one of them is removed once empty,
/// up to the location itself. A file the metadata does not list survives, and so does its
/// directory; nothing outside the listed files and the location's directories is touched.
/// Missing files are skipped; an unreadable manifest list or manifest is skipped too (Java logs
/// and goes on), so that what can be deleted is. An IOError names the first file that could not
/// be deleted.
arrow::Status PurgeTableFiles(const LoadedTable& table,
                              const std::vector<std::string>& catalog_files = {});

}  // namespace ember::iceberg
