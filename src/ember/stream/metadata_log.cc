#include "ember/stream/metadata_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ember/error.h"

namespace ember::stream {

namespace fs = std::filesystem;
using arrow::Result;
using arrow::Status;

Result<bool> WriteFileAtomically(const std::string& path, const std::string& content) {
  static std::atomic<uint64_t> counter{0};
  fs::path directory = fs::path(path).parent_path();
  std::string temp = (directory / ("." + fs::path(path).filename().string() + "." +
                                   std::to_string(::getpid()) + "." + std::to_string(counter++) +
                                   ".tmp"))
                         .string();
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 && errno == ENOENT) {
    // The directory's first entry.
    std::error_code ec;
    fs::create_directories(directory, ec);
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  if (fd < 0) return FileWriteFailed(path, errno);
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      int error = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      return FileWriteFailed(path, error);
    }
    written += static_cast<size_t>(n);
  }
  // No fsync, as Spark on a local file system: the temp file and the no-clobber move make the
  // commit atomic against a crash of the process, not of the machine (docs/streaming.md).
  ::close(fd);
  // The no-clobber commit: a rename that fails if the target exists; link(2) where the file
  // system cannot do that.
  int rc = ::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE);
  int error = errno;
  if (rc != 0 && (error == EINVAL || error == ENOSYS)) {
    rc = ::link(temp.c_str(), path.c_str());
    error = errno;
    ::unlink(temp.c_str());
  } else if (rc != 0) {
    ::unlink(temp.c_str());
  }
  if (rc != 0) {
    if (error == EEXIST) return false;
    return FileWriteFailed(path, error);
  }
  return true;
}

Result<std::optional<std::string>> ReadFileIfExists(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::optional<std::string>();
  std::stringstream buffer;
  buffer << in.rdbuf();
  return std::optional<std::string>(buffer.str());
}

std::string MetadataLog::Path(int64_t batch_id) const {
  return (fs::path(directory_) / std::to_string(batch_id)).string();
}

Result<bool> MetadataLog::Add(int64_t batch_id, const std::string& body) {
  return WriteFileAtomically(Path(batch_id), "v1\n" + body);
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
  ARROW_ASSIGN_OR_RAISE(auto text, ReadFileIfExists(Path(batch_id)));
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
