#include "ember/stream/metadata_log.h"

#include <algorithm>
#include <filesystem>

#include "ember/error.h"
#include "ember/io/atomic_file.h"
#include "ember/io/atomic_file.h"

namespace ember::stream {

namespace fs = std::filesystem;
using arrow::Result;
using arrow::Status;

std::string MetadataLog::Path(int64_t batch_id) const {
  return (fs::path(directory_) / std::to_string(batch_id)).string();
}

Result<bool> MetadataLog::Add(int64_t batch_id, const std::string& body) {
  return io::WriteFileAtomically(Path(batch_id), "v1\n" + body);
}

Result<std::string> LogBody(const std::string& text, const std::string& path) {
  if (text.empty()) {
    // Spark's words for an empty log file (HDFSMetadataLog.get).
    return UserError(ErrorKind::kIllegalState, "",
                     "Failed to read log file " + path + ". Incomplete log file: the file is empty.", "");
  }
  size_t newline = text.find('\n');
  std::string version = text.substr(0, newline);
  if (version.size() < 2 || version.size() > 18 || version[0] != 'v' ||
      version.find_first_not_of("0123456789", 1) != std::string::npos || version == "v0") {
    return UserError(ErrorKind::kIllegalState, "INVALID_LOG_VERSION.EXACT_MATCH_VERSION",
                     "Log file was malformed: failed to read correct log version from " + path + ".",
                     "KD002");
  }
  if (std::stoll(version.substr(1)) > 1) {
    return UserError(ErrorKind::kIllegalState, "INVALID_LOG_VERSION.MAX_SUPPORTED_VERSION",
                     "The log file " + path + " was produced by a newer version (" + version +
                         ") than this one supports (v1).",
                     "KD002");
  }
  return newline == std::string::npos ? "" : text.substr(newline + 1);
}

Status DamagedCheckpointFile(const std::string& path, const std::string& what) {
  return UserError(ErrorKind::kIllegalState, "",
                   "The checkpoint file " + path + " is damaged: " + what +
                       ". Restore it, or start the query on a new checkpoint location.",
                   "");
}

Result<std::optional<std::string>> MetadataLog::Get(int64_t batch_id) const {
  ARROW_ASSIGN_OR_RAISE(auto text, io::ReadFileIfExists(Path(batch_id)));
  if (!text) return text;
  ARROW_ASSIGN_OR_RAISE(auto body, LogBody(*text, Path(batch_id)));
  return std::optional<std::string>(std::move(body));
}

std::vector<int64_t> MetadataLog::BatchIds() const {
  std::vector<int64_t> ids;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(directory_, ec)) {
    std::string name = entry.path().filename().string();
    if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos) {
      ids.push_back(std::stoll(name));
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

Result<std::optional<int64_t>> MetadataLog::Latest() const {
  auto ids = BatchIds();
  if (ids.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(ids.back());
}

Status MetadataLog::Purge(int64_t threshold) {
  // The first purge lists the directory; later ones delete the ids since the last threshold
  // without listing, as entries are only ever added above it.
  // A file that could not be deleted is tried again next time: the purge stops before it.
  std::error_code ec;
  int64_t reached = threshold;
  if (!purged_below_) {
    for (int64_t id : BatchIds()) {
      if (id >= threshold) break;
      if (!fs::remove(Path(id), ec) && ec) {
        reached = id;
        break;
      }
    }
  } else {
    for (int64_t id = *purged_below_; id < threshold; ++id) {
      if (!fs::remove(Path(id), ec) && ec) {
        reached = id;
        break;
      }
    }
  }
  if (!purged_below_ || reached > *purged_below_) purged_below_ = reached;
  return Status::OK();
}

}  // namespace ember::stream
