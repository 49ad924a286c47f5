// Structured Streaming: a query that runs a DataFrame over a stream in micro-batches, with Spark's
// checkpoint layout and exactly-once protocol (see ../shared/STREAMING.md sections 1 and 2).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <arrow/result.h>
#include <arrow/status.h>

#include "ember/dataframe.h"
#include "ember/streaming_listener.h"

namespace ember {

enum class TriggerKind {
  kDefault,         // the next batch as soon as the previous one finished
  kProcessingTime,  // batches start on multiples of the interval
  kOnce,            // one batch, then stop
  kAvailableNow,    // everything present at start, in batches within the read limits, then stop
};

struct Trigger {
  TriggerKind kind = TriggerKind::kDefault;
  int64_t interval_ms = 0;
};

/// A micro-batch a sink takes in parts written side by side (Spark's write tasks).
class PartedBatch {
 public:
  virtual ~PartedBatch() = default;
  /// Adds the rows of the batch's file number `file` (in the batch's order of files) to part
  /// `part`; each part is written from one thread, parts from several.
  virtual arrow::Status Write(int part, int64_t file, const std::shared_ptr<arrow::Table>& rows) = 0;
  /// Ends the batch as AddBatch would, once every part is written.
  virtual arrow::Status Commit() = 0;
};

/// Where a micro-batch goes. AddBatch must be idempotent per batch id: a batch id may be
/// offered again after a restart.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual arrow::Status AddBatch(int64_t batch_id, const DataFrame& batch) = 0;
  /// The batch in `parts` parts instead of whole, or null where the sink takes it whole.
  virtual arrow::Result<std::unique_ptr<PartedBatch>> BeginParts(int64_t /*batch_id*/,
                                                                 int /*parts*/) {
    return nullptr;
  }
  /// Whether a query may restart from a checkpoint with this sink.
  virtual bool SupportsRecovery() const { return true; }
  /// Called once when the query starts, before any batch: the query's id (stable across
  /// restarts) and the schema of its rows.
  virtual arrow::Status Open(const std::string& /*query_id*/,
                             const std::shared_ptr<arrow::Schema>& /*schema*/) {
    return arrow::Status::OK();
  }
  /// Progress's sink.description: the text Spark's sink of the same kind gives.
  virtual std::string Description() const = 0;
  /// Whether progress's sink.numOutputRows counts rows: Spark's V1 sinks (foreachBatch, files)
  /// report -1 instead.
  virtual bool CountsOutputRows() const { return true; }
};

class Session;

/// explain() of a streaming DataFrame, or of a query in `output_mode`: the plan with Spark's
/// names for the stateful operators; `ran` once the query ran a batch (sources as their scan).
std::string ExplainStream(const DataFrame& df, const std::string& output_mode, bool ran);

/// spark.readStream.format(f)...load(path): a stream from a source of any registered format
/// (src/ember/stream/source/registry.cc); `path` empty when load() has none. File formats need
/// a schema except text, as in Spark; the others decide their columns themselves.
arrow::Result<DataFrame> ReadStream(const std::shared_ptr<Session>& session, const std::string& format,
                                    const std::string& path, std::shared_ptr<arrow::Schema> schema,
                                    const std::map<std::string, std::string>& options);

/// spark.readStream.table(name): an Iceberg table's appended snapshots, or a session-catalog
/// table's files (Spark's file source over its location, with the table's columns).
arrow::Result<DataFrame> ReadStreamTable(const std::shared_ptr<Session>& session,
                                         const std::string& name,
                                         const std::map<std::string, std::string>& options);

/// The memory sink: a temporary view named after the query holding every row appended so far
/// (append) or the latest result (complete).
std::shared_ptr<Sink> MakeMemorySink(std::shared_ptr<Session> session, std::string view_name,
                                     std::string output_mode);
/// foreachBatch: calls the function with each batch and its id (at-least-once, as in Spark).
/// The console, noop and foreach sinks run through it too, each with Spark's description.
std::shared_ptr<Sink> MakeForeachBatchSink(
    std::function<arrow::Status(const DataFrame&, int64_t)> function,
    std::string description = "ForeachBatchSink");

/// writeStream.toTable: appends each batch to an Iceberg table (complete mode replaces the
/// table's rows) in one snapshot whose summary records ember.query-id and ember.batch-id; a batch
/// the table's history already holds is skipped, so a re-run batch is not written twice.
/// An Iceberg table, or a session-catalog table (Spark's file sink into its location, with the
/// _spark_metadata log); created with `schema` (and for a session-catalog table `format`, empty:
/// spark.sql.sources.default, and `partition_by`) when it does not exist, as Spark's toTable does.
arrow::Result<std::shared_ptr<Sink>> MakeTableSink(std::shared_ptr<Session> session,
                                                   const std::string& table_name,
                                                   std::string output_mode,
                                                   const arrow::Schema& schema,
                                                   const std::string& format = "",
                                                   std::vector<std::string> partition_by = {});

/// The parquet, json and csv sinks: part files under `path` (in `column=value` directories of
/// `partition_by`), committed through its `_spark_metadata` log. `retention` is the sink's
/// `retention` option, a time string such as "12h": a compaction of the log leaves out files
/// modified longer ago than that (Spark's FileStreamSinkLog); without it nothing is left out.
arrow::Result<std::shared_ptr<Sink>> MakeFileSink(std::shared_ptr<Session> session,
                                                  const std::string& format,
                                                  const std::string& path,
                                                  std::vector<std::string> partition_by = {},
                                                  std::optional<std::string> retention = {});

struct StreamingQueryOptions {
  std::string name;                // queryName, or empty
  std::string checkpoint_location;
  std::string output_mode = "append";
  Trigger trigger;
  bool delete_checkpoint_on_stop = false;  // a temporary checkpoint
  /// Where the query's events go (spark.streams' listeners); none: nowhere.
  std::shared_ptr<StreamingQueryListenerBus> listeners;
};

class StreamingQuery : public std::enable_shared_from_this<StreamingQuery> {
 public:
  static arrow::Result<std::shared_ptr<StreamingQuery>> Start(const DataFrame& df,
                                                              StreamingQueryOptions options,
                                                              std::shared_ptr<Sink> sink);
  ~StreamingQuery();

  const std::string& id() const { return id_; }
  const std::string& run_id() const { return run_id_; }
  const std::string& name() const { return options_.name; }
  bool IsActive() const;
  /// Called about every 100 ms while a caller waits on the query; true ends the wait with
  /// Status::Cancelled (the Python binding checks for Ctrl-C there).
  using WaitInterrupt = std::function<bool()>;
  /// Blocks until every input available now is processed (or the query failed or stopped).
  arrow::Status ProcessAllAvailable(const WaitInterrupt& interrupted = nullptr);
  /// Waits for the query to end; false on timeout. The query's failure is the status.
  arrow::Result<bool> AwaitTermination(std::optional<double> timeout_seconds,
                                       const WaitInterrupt& interrupted = nullptr);
  void Stop();
  /// The failure that ended the query, if any.
  arrow::Status exception() const;
  /// The last progress report as Spark's JSON, or empty.
  std::string LastProgress() const;
  std::vector<std::string> RecentProgress() const;
  /// The status as Spark's JSON: message, isDataAvailable, isTriggerActive.
  std::string Status() const;

 private:
  StreamingQuery(DataFrame df, StreamingQueryOptions options, std::shared_ptr<Sink> sink);
  void Run();
  arrow::Status RunLoop();
  void Post(StreamingQueryEvent event) const;
  enum class WaitEnd { kDone, kTimedOut, kInterrupted };
  /// Waits under `lock` until `done`, the deadline or `interrupted` (called unlocked).
  WaitEnd WaitFor(std::unique_lock<std::mutex>& lock, const std::function<bool()>& done,
               std::optional<std::chrono::steady_clock::time_point> deadline,
               const WaitInterrupt& interrupted);
  /// Adds a progress entry (the last 100 are kept) and, for an executed batch, posts it.
  void ReportProgress(std::string progress, bool executed);
  /// A trigger that ran no batch: Spark's idle progress entry and QueryIdleEvent, when due.
  void ReportIdleTrigger(int64_t trigger_start_ms);

  struct Execution;  // checkpoint logs, source and batch bookkeeping (micro_batch.cc)
  DataFrame df_;
  StreamingQueryOptions options_;
  std::shared_ptr<Sink> sink_;
  std::string id_;
  std::string run_id_;
  std::unique_ptr<Execution> execution_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool active_ = true;
  bool stop_requested_ = false;
  bool idle_ = false;          // the last attempt found no new data
  int64_t batches_done_ = 0;   // counts attempts, so waiters see progress
  arrow::Status failure_;
  // What reading the checkpoint's logs at start found wrong: as in Spark, the query starts and
  // its run fails with it (STREAM_FAILED), the listener hearing of both.
  arrow::Status recovery_failure_;
  std::vector<std::string> progress_;
  // When a trigger last reported progress or idleness (Spark's lastNoExecutionProgressEventTime);
  // none before the first report.
  std::optional<int64_t> last_report_ms_;
  int64_t no_data_progress_interval_ms_ = 10000;  // spark.sql.streaming.noDataProgressEventInterval
  std::string status_message_ = "Initializing sources";
  std::thread thread_;
};

}  // namespace ember
