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

/// Writes `content` to `path` atomically; false if `path` already exists.
arrow::Result<bool> WriteFileAtomically(const std::string& path, const std::string& content);
arrow::Result<std::optional<std::string>> ReadFileIfExists(const std::string& path);

class MetadataLog {
 public:
  explicit MetadataLog(std::string directory) : directory_(std::move(directory)) {}

  /// Adds entry `batch_id` with the lines after the version line; false if it exists.
  arrow::Result<bool> Add(int64_t batch_id, const std::string& body);
  /// The lines after the version line of an entry, or nothing.
  arrow::Result<std::optional<std::string>> Get(int64_t batch_id) const;
  arrow::Result<std::optional<int64_t>> Latest() const;
  /// Deletes entries below `threshold`.
  arrow::Status Purge(int64_t threshold);
  std::vector<int64_t> BatchIds() const;
  const std::string& directory() const { return directory_; }

 private:
  std::string Path(int64_t batch_id) const;
  std::string directory_;
  std::optional<int64_t> purged_below_;  // no entry below this id is left
};

}  // namespace ember::stream
