#include "ember/iceberg/maintenance.h"

#include <sys/stat.h>

#include <filesystem>
#include <set>

#include "ember/error.h"
#include "ember/iceberg/avro.h"
#include "ember/iceberg/data_file.h"
#include "ember/iceberg/table.h"

namespace ember::iceberg {

namespace fs = std::filesystem;
using arrow::Result;
using arrow::Status;

namespace {

constexpr int64_t kDayMs = 24LL * 60 * 60 * 1000;

// A location as the local path files are compared and deleted by.
std::string Key(const std::string& location) {
  return fs::path(LocalPath(location)).lexically_normal().string();
}

// The files snapshots reach: their manifest lists, manifests and live data files.
struct Reachable {
  std::set<std::string> lists, manifests, data;
};

// Adds what `snapshot` reaches, reading each manifest once. A missing manifest list fails.
Status AddReachable(const TableMetadata& m, const Snapshot& snapshot, Reachable* r) {
  if (snapshot.manifest_list.empty()) return Status::OK();
  r->lists.insert(Key(snapshot.manifest_list));
  ARROW_ASSIGN_OR_RAISE(auto manifests, SnapshotManifests(snapshot));
  for (const auto& manifest : manifests) {
    const auto& path = manifest.as<avro::Record>().fields[0].as<std::string>();
    if (!r->manifests.insert(Key(path)).second) continue;
    ARROW_ASSIGN_OR_RAISE(auto files, ManifestLiveFilePaths(m, manifest));
    for (const auto& f : files) r->data.insert(Key(f));
  }
  return Status::OK();
}

bool Remove(const std::string& path) {
  std::error_code ec;
  return fs::remove(path, ec);
}

Status IllegalArgument(const std::string& message) {
  return UserError(ErrorKind::kIllegalArgument, "", message, "");
}

}  // namespace

Result<ExpireResult> ExpireSnapshots(Catalog* catalog, const std::vector<std::string>& ident,
                                     const ExpireOptions& options) {
  if (options.retain_last && *options.retain_last < 1) {
    return IllegalArgument("Number of snapshots to retain must be at least 1, cannot be: " +
                           std::to_string(*options.retain_last));
  }
  for (int attempt = 0;; ++attempt) {
    ARROW_ASSIGN_OR_RAISE(auto base, catalog->LoadTable(ident));
    const TableMetadata& m = base.metadata;
    if (m.snapshots.empty()) return ExpireResult{};
    int64_t now = CurrentTimeMs();
    int64_t older_than = options.older_than_ms.value_or(
        now - m.LongProperty("history.expire.max-snapshot-age-ms", 5 * kDayMs));
    int64_t retain_last = options.retain_last.value_or(
        std::max<int64_t>(1, m.LongProperty("history.expire.min-snapshots-to-keep", 1)));
    std::set<int64_t> remove(options.snapshot_ids.begin(), options.snapshot_ids.end());
    if (m.current_snapshot_id && remove.count(*m.current_snapshot_id)) {
      return IllegalArgument("Cannot expire " + std::to_string(*m.current_snapshot_id) +
                             ". Still referenced by refs: [main]");
    }
    // The main branch keeps its head and ancestors by count and age; other snapshots by age.
    std::set<int64_t> retain, ancestors;
    bool counting = true;
    for (const Snapshot* s = m.current_snapshot(); s;
         s = s->parent_snapshot_id ? m.snapshot(*s->parent_snapshot_id) : nullptr) {
      ancestors.insert(s->snapshot_id);
      if (counting && (static_cast<int64_t>(retain.size()) < retain_last || s->timestamp_ms >= older_than)) {
        retain.insert(s->snapshot_id);
      } else {
        counting = false;
      }
    }
    for (const auto& s : m.snapshots) {
      if (!ancestors.count(s.snapshot_id) && s.timestamp_ms >= older_than) retain.insert(s.snapshot_id);
    }
    std::vector<Snapshot> kept, expired;
    for (const auto& s : m.snapshots) {
      bool expire = remove.count(s.snapshot_id) || !retain.count(s.snapshot_id);
      (expire ? expired : kept).push_back(s);
    }
    if (expired.empty()) return ExpireResult{};
    TableMetadata updated = m;
    updated.snapshots = kept;
    // A log entry of a removed snapshot drops the history before it too: no gaps (Iceberg's rule).
    updated.snapshot_log.clear();
    for (const auto& entry : m.snapshot_log) {
      if (updated.snapshot(entry.second)) {
        updated.snapshot_log.push_back(entry);
      } else {
        updated.snapshot_log.clear();
      }
    }
    updated.last_updated_ms = std::max(now, m.last_updated_ms);
    ARROW_ASSIGN_OR_RAISE(bool committed, catalog->Commit(base, std::move(updated)));
    if (!committed) {
      ARROW_RETURN_NOT_OK(BackOffAfterLostCommit(catalog, ident, attempt));
      continue;
    }
    // The reachable-files cleanup: what the kept snapshots reach stays.
    Reachable keep;
    for (const auto& s : kept) ARROW_RETURN_NOT_OK(AddReachable(m, s, &keep));
    ExpireResult result;
    result.expired_snapshots = static_cast<int64_t>(expired.size());
    std::set<std::string> seen;
    for (const auto& s : expired) {
      if (s.manifest_list.empty() || keep.lists.count(Key(s.manifest_list))) continue;
      auto manifests = SnapshotManifests(s);
      if (!manifests.ok()) continue;  // deleted already
      for (const auto& manifest : *manifests) {
        std::string path = Key(manifest.as<avro::Record>().fields[0].as<std::string>());
        if (keep.manifests.count(path) || !seen.insert(path).second) continue;
        auto files = ManifestLiveFilePaths(m, manifest);
        if (!files.ok()) continue;
        for (const auto& f : *files) {
          std::string file = Key(f);
          if (!keep.data.count(file) && seen.insert(file).second && Remove(file)) {
            ++result.deleted_data_files;
          }
        }
        if (Remove(path)) ++result.deleted_manifests;
      }
      if (Remove(Key(s.manifest_list))) ++result.deleted_manifest_lists;
    }
    return result;
  }
}

Result<std::vector<std::string>> RemoveOrphanFiles(Catalog* catalog,
                                                   const std::vector<std::string>& ident,
                                                   const OrphanOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto base, catalog->LoadTable(ident));
  const TableMetadata& m = base.metadata;
  int64_t older_than = options.older_than_ms.value_or(CurrentTimeMs() - 3 * kDayMs);
  Reachable valid;
  for (const auto& s : m.snapshots) ARROW_RETURN_NOT_OK(AddReachable(m, s, &valid));
  std::set<std::string> metadata_files{Key(base.metadata_path),
                                       Key(m.location + "/metadata/version-hint.text")};
  for (const auto& entry : m.metadata_log) metadata_files.insert(Key(entry.second));
  std::string root = Key(options.location.value_or(m.location));
  std::vector<std::string> orphans;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, ec), end;
  if (ec) {
    return IllegalArgument("Cannot list location " + root + ": " + ec.message());
  }
  for (; it != end; it.increment(ec)) {
    if (ec) return Status::IOError("cannot list ", root, ": ", ec.message());
    std::string name = it->path().filename().string();
    bool hidden = !name.empty() && (name[0] == '.' || name[0] == '_');
    if (it->is_directory(ec)) {
      if (hidden) it.disable_recursion_pending();
      continue;
    }
    if (hidden || !it->is_regular_file(ec)) continue;
    std::string path = it->path().lexically_normal().string();
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) continue;
    int64_t modified_ms = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
    if (modified_ms >= older_than) continue;
    if (valid.lists.count(path) || valid.manifests.count(path) || valid.data.count(path) ||
        metadata_files.count(path)) {
      continue;
    }
    orphans.push_back(path);
  }
  std::sort(orphans.begin(), orphans.end());
  std::vector<std::string> locations;
  for (const auto& path : orphans) {
    if (!options.dry_run) Remove(path);
    locations.push_back("file:" + path);
  }
  return locations;
}

}  // namespace ember::iceberg
