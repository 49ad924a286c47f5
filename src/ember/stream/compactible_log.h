// The rules of Spark's CompactibleFileStreamLog, shared by the file source's log
// (<checkpoint>/sources/<i>) and the file sink's (<path>/_spark_metadata): entry N is the file
// "N", every compact_interval-th entry is "N.compact" and holds every earlier entry, and entries
// older than the compaction a retained batch starts from are deleted once the cleanup delay
// has passed (the delay leaves time to readers that listed the directory before the compaction).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <arrow/result.h>

namespace ember::stream {

struct CompactionPolicy {
  int64_t compact_interval = 10;           // spark.sql.streaming.<log>.log.compactInterval
  bool deletion = true;                    // spark.sql.streaming.<log>.log.deletion
  int64_t cleanup_delay_ms = 10 * 60'000;  // spark.sql.streaming.<log>.log.cleanupDelay
  int64_t min_batches_to_retain = 100;     // spark.sql.streaming.minBatchesToRetain

  /// The session's confs for `log` ("fileSource" or "fileSink"), `conf` answering a key or
  /// nothing, with the compaction interval an existing log in `directory` already follows.
  static arrow::Result<CompactionPolicy> FromConf(
      const std::function<std::optional<std::string>(const std::string&)>& conf,
      const std::string& log, const std::string& directory);

  bool IsCompaction(int64_t batch_id) const { return (batch_id + 1) % compact_interval == 0; }
  /// The newest compaction at or before `batch_id` (-1 when there is none yet).
  int64_t CompactionAtOrBefore(int64_t batch_id) const {
    return (batch_id + 1) / compact_interval * compact_interval - 1;
  }
};

/// A positive integer conf (`fallback` when unset); `must_be` is the error of one under 1.
arrow::Result<int64_t> PositiveIntConf(
    const std::function<std::optional<std::string>(const std::string&)>& conf,
    const std::string& key, int64_t fallback, const std::string& must_be);

/// spark.sql.streaming.minBatchesToRetain, checked positive as Spark checks it.
arrow::Result<int64_t> MinBatchesToRetain(
    const std::function<std::optional<std::string>(const std::string&)>& conf);

/// Spark's deleteExpiredLog for one log directory.
class ExpiredLogCleaner {
 public:
  ExpiredLogCleaner(std::string directory, CompactionPolicy policy)
      : directory_(std::move(directory)), policy_(policy) {}

  /// Called once entry `current_batch` is written: deletes the entries below the compaction that
  /// the oldest of the last min_batches_to_retain batches starts from, if they were last
  /// modified at least cleanup_delay_ms ago. The first call lists the directory; later ones
  /// look at the entries from the oldest one left, in order, and stop at the first too recent
  /// (entries are written in order). Best effort: a file that cannot be deleted is left.
  void AfterAdd(int64_t current_batch);

 private:
  std::string directory_;
  CompactionPolicy policy_;
  std::optional<int64_t> oldest_left_;  // no entry below it is left
};

}  // namespace ember::stream
