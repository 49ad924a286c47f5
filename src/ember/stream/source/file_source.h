// Spark's FileStreamSource: the files of a directory, each read once, in modification-time order.
// Its offset is the number K of the last source-log entry; entry K (sources/<i>/K in the
// checkpoint) lists the files selected by one trigger, as FileEntry JSON lines.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/io/file_reader.h"
#include "ember/plan/logical_plan.h"
#include "ember/stream/compactible_log.h"
#include "ember/stream/source/source.h"

namespace ember::stream {

class FileStreamSource : public Source {
 public:
  /// Validates Spark's options (maxFilesPerTrigger, maxBytesPerTrigger, latestFirst, maxFileAge,
  /// fileNameOnly, cleanSource, sourceArchiveDir); the source log is in the context's
  /// directory, compacted and cleaned up by spark.sql.streaming.fileSource.log.*.
  static arrow::Result<std::unique_ptr<Source>> Open(const SourceContext& context);
  /// A file stream's columns: the user's schema (required except for text), every field nullable.
  static arrow::Result<std::shared_ptr<arrow::Schema>> Schema(Session& session, plan::StreamSourceSpec& spec);

  /// Restores the files seen from the source log; fails naming a damaged entry.
  arrow::Status Restore() override;
  /// Fails, naming the missing file, when the source log has no entry for `end` (which the
  /// offsets log names): the files of a batch must not be chosen anew.
  arrow::Status CheckReplayable(const std::string& end) const override;
  arrow::Status PrepareForAvailableNow() override;
  void ReadAllAvailable() override { max_files_ = max_bytes_ = 0; }
  /// Selects the next files within the read limits and logs them as entry K: {"logOffset":K}.
  arrow::Result<Offset> LatestOffset(const Offset& start) override;
  arrow::Result<std::shared_ptr<arrow::Table>> ReadBatch(const Offset& start, const std::string& end,
                                                         const plan::EvalContext& ctx) override;
  /// One part a file, in the order Spark reads them (largest first).
  arrow::Result<std::vector<InputPartition>> PlanInputPartitions(const Offset& start,
                                                                 const std::string& end) override;
  arrow::Result<std::shared_ptr<arrow::Table>> ReadPartitions(const std::vector<InputPartition>& parts,
                                                              const plan::EvalContext& ctx) const override;
  /// cleanSource deletes or archives the committed entry's files (Spark's FileStreamSource.commit).
  arrow::Status Commit(const std::string& end) override;
  std::string Description() const override;

 private:
  struct Entry {
    std::string path;
    int64_t timestamp = 0;
    int64_t batch_id = 0;
  };
  FileStreamSource() = default;
  // The log entry an offset names: {"logOffset":K} (or K, as older checkpoints wrote it).
  static arrow::Result<int64_t> LogOffset(const Offset& offset);
  // The files in log entries start+1 .. end, largest first.
  arrow::Result<std::vector<InputPartition>> BatchFiles(int64_t start, int64_t end) const;
  // Every entry of log file `batch_id`, plain or .compact (nullopt when neither exists).
  arrow::Result<std::optional<std::vector<Entry>>> ReadLogFile(int64_t batch_id) const;
  /// The file of log entry `batch_id` (every tenth a compaction, "<id>.compact").
  std::string LogPath(int64_t batch_id) const;
  // The entries of source batch `batch_id` only.
  arrow::Result<std::vector<Entry>> ReadEntries(int64_t batch_id) const;
  // Every entry of batches 0 .. last, read from the newest compaction file on.
  arrow::Result<std::vector<Entry>> EntriesThrough(int64_t last) const;
  arrow::Status WriteEntries(int64_t batch_id, const std::vector<Entry>& entries);
  // Spark's fetchAllFiles: the data files under the paths, oldest first (newest first with
  // latestFirst); ties keep the listing's order.
  arrow::Result<std::vector<io::FileEntry>> ListAll() const;
  std::string SeenKey(const std::string& path) const;

  plan::FileSource source_;  // how the files are read
  std::vector<bool> columns_;  // referenced columns; empty: all
  std::string log_directory_;
  CompactionPolicy policy_;
  std::optional<ExpiredLogCleaner> cleaner_;
  int64_t latest_batch_ = -1;
  int64_t max_files_ = 0;   // 0: no limit
  int64_t max_bytes_ = 0;   // 0: no limit
  bool latest_first_ = false;
  bool file_name_only_ = false;
  // maxFileAge: files older than the newest file seen minus this age are not new.
  int64_t max_file_age_ms_ = 7LL * 24 * 3600 * 1000;
  int64_t latest_seen_ms_ = 0;
  std::string clean_source_ = "off";  // off, delete, archive
  std::string archive_directory_;
  std::set<std::string> seen_;
  // The own entries of the batches this run logged, the last compact_interval of them (Spark's
  // FileStreamSourceLog.fileEntryCache): getBatch and the next compaction need no reading.
  std::map<int64_t, std::vector<Entry>> recent_;
  // Trigger.AvailableNow: the listing taken when the query started; no trigger lists again.
  // Unless only file names count, seen files leave it (so a trigger costs no lookup per file):
  // those of earlier runs at the first trigger, the others as they are taken.
  std::optional<std::vector<io::FileEntry>> available_now_;
  bool available_now_unseen_ = false;  // the seen files of earlier runs have left it
  // Spark's unreadFiles: new files a read limit left for later triggers, served without listing.
  std::optional<std::vector<io::FileEntry>> unread_;
};

}  // namespace ember::stream
