#include "ember/iceberg/purge.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "ember/iceberg/avro.h"
#include "ember/iceberg/catalog.h"
#include "ember/iceberg/data_file.h"
#include "ember/iceberg/table.h"
#include "ember/io/atomic_file.h"

namespace ember::iceberg {

namespace fs = std::filesystem;
using arrow::Result;
using arrow::Status;

namespace {

// The file_path of every entry of a manifest, whatever its status and content (data or deletes).
Result<std::vector<std::string>> ManifestFilePaths(const std::string& manifest) {
  ARROW_ASSIGN_OR_RAISE(auto bytes, io::ReadFileIfExists(LocalPath(manifest)));
  if (!bytes) return std::vector<std::string>{};
  ARROW_ASSIGN_OR_RAISE(auto container, avro::ReadContainer(*bytes));
  const avro::Schema& schema = *container.schema;
  int data_index = schema.FieldIndexById(2);
  if (data_index < 0) return Status::Invalid("manifest without data_file: ", manifest);
  const avro::Schema& data_schema = schema.fields()[data_index].schema->NonNull();
  std::vector<std::string> paths;
  for (const auto& record : container.records) {
    const avro::Datum* data_file = avro::FieldById(schema, record, 2);
    if (!data_file) continue;
    const avro::Datum* path = avro::FieldById(data_schema, *data_file, 100);
    if (path && path->is<std::string>()) paths.push_back(path->as<std::string>());
  }
  return paths;
}

// The statistics-path of each entry of a statistics or partition-statistics array.
std::vector<std::string> StatisticsPaths(const std::string& json) {
  std::vector<std::string> paths;
  auto entries = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!entries.is_array()) return paths;
  for (const auto& entry : entries) {
    if (entry.is_object() && entry.contains("statistics-path") &&
        entry["statistics-path"].is_string()) {
      paths.push_back(entry["statistics-path"].get<std::string>());
    }
  }
  return paths;
}

// Whether `path` is `root` or inside it, both lexically normal.
bool IsUnder(const fs::path& path, const fs::path& root) {
  auto [r, p] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return r == root.end();
}

}  // namespace

Status PurgeTableFiles(const LoadedTable& table, const std::vector<std::string>& catalog_files) {
  const TableMetadata& metadata = table.metadata;
  std::vector<std::string> files;  // data files first, the metadata that lists them last
  std::set<std::string> listed;
  auto add = [&](const std::string& file) {
    if (!file.empty() && listed.insert(file).second) files.push_back(file);
  };
  std::vector<std::string> manifests, manifest_lists;
  for (const auto& snapshot : metadata.snapshots) {
    if (snapshot.manifest_list.empty()) continue;
    manifest_lists.push_back(snapshot.manifest_list);
    auto records = SnapshotManifests(snapshot);
    if (!records.ok()) continue;
    for (const auto& record : *records) {
      manifests.push_back(record.as<avro::Record>().fields[0].as<std::string>());
    }
  }
  std::sort(manifests.begin(), manifests.end());
  manifests.erase(std::unique(manifests.begin(), manifests.end()), manifests.end());
  if (metadata.BoolProperty("gc.enabled", true)) {
    for (const auto& manifest : manifests) {
      auto paths = ManifestFilePaths(manifest);
      if (!paths.ok()) continue;
      for (const auto& path : *paths) add(path);
    }
  }
  for (const auto& manifest : manifests) add(manifest);
  for (const auto& list : manifest_lists) add(list);
  for (const auto& file : StatisticsPaths(metadata.statistics_json)) add(file);
  for (const auto& file : StatisticsPaths(metadata.partition_statistics_json)) add(file);
  for (const auto& [timestamp, file] : metadata.metadata_log) add(file);
  add(table.metadata_path);
  for (const auto& file : catalog_files) add(file);

  std::string root = LocalPath(metadata.location);
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  fs::path location = fs::path(root).lexically_normal();
  std::set<fs::path> directories;
  Status failure;
  for (const auto& file : files) {
    fs::path path = fs::path(LocalPath(file)).lexically_normal();
    std::error_code ec;
    fs::remove(path, ec);
    if (ec && ec != std::errc::no_such_file_or_directory && failure.ok()) {
      failure = Status::IOError("Cannot delete ", path.string(), " of dropped table ",
                                metadata.location, ": ", ec.message());
    }
    for (fs::path dir = path.parent_path(); IsUnder(dir, location) && dir != location;
         dir = dir.parent_path()) {
      directories.insert(dir);
    }
  }
  // Deepest first; removing a directory that still holds something fails and leaves it.
  std::vector<fs::path> ordered(directories.begin(), directories.end());
  std::sort(ordered.begin(), ordered.end(), [](const fs::path& a, const fs::path& b) {
    return std::distance(a.begin(), a.end()) > std::distance(b.begin(), b.end());
  });
  ordered.push_back(location);
  for (const auto& dir : ordered) {
    std::error_code ec;
    if (fs::is_directory(fs::symlink_status(dir, ec))) fs::remove(dir, ec);
  }
  return failure;
}

}  // namespace ember::iceberg
