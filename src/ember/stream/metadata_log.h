// A directory of numbered entries written atomically, in the layout of Spark's HDFSMetadataLog:
// entry N is the file named "N", whose first line is the version ("v1"). An entry is written to a
// temporary file and moved into place without overwriting, so a reader never sees a partial
// entry and two writers of one entry cannot both succeed. There is no fsync (as Spark on a local
// file system): an entry survives a crash of the process, not of the machine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <arrow/result.h>

namespace ember::stream {

/// The lines after the version line "v1" of a log file's `text`; Spark's INVALID_LOG_VERSION
/// naming `path` when the first line is not a supported version (an empty or truncated file).
arrow::Result<std::string> LogBody(const std::string& text, const std::string& path);
/// Spark's error for a checkpoint file that exists but cannot be what it should be: names the
/// file and what is wrong with it.
arrow::Status DamagedCheckpointFile(const std::string& path, const std::string& what);

class MetadataLog {
 public:
  explicit MetadataLog(std::string directory) : directory_(std::move(directory)) {}

  /// Adds entry `batch_id` with the lines after the version line; false if it exists.
  arrow::Result<bool> Add(int64_t batch_id, const std::string& body);
  /// The lines after the version line of an entry, or nothing.
  arrow::Result<std::optional<std::string>> Get(int64_t batch_id) const;
  arrow::Result<std::optional<int64_t>> Latest() const;
  /// The file of entry `batch_id`, for errors.
  std::string Path(int64_t batch_id) const;
  /// Deletes entries below `threshold`.
  arrow::Status Purge(int64_t threshold);
  std::vector<int64_t> BatchIds() const;
  const std::string& directory() const { return directory_; }

 private:
  std::string directory_;
  std::optional<int64_t> purged_below_;  // no entry below this id is left
};

}  // namespace ember::stream
