// The micro-batch engine: Spark's MicroBatchExecution protocol. For batch N: decide the end
// offsets and write offsets/N; run the query over the new input; let the sink commit batch N
// (idempotently); write commits/N. A restart re-runs a batch that has offsets but no commit, with
// exactly the logged offsets and timestamp.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include <arrow/array/array_primitive.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/table.h>
#include <nlohmann/json.hpp>

#include "ember/common/interval.h"
#include "ember/common/parallel.h"
#include "ember/common/random.h"
#include "ember/error.h"
#include "ember/exec/executor.h"
#include "ember/io/atomic_file.h"
#include "ember/plan/analyzer.h"
#include "ember/plan/streaming.h"
#include "ember/session.h"
#include "ember/stream/compactible_log.h"
#include "ember/stream/incremental.h"
#include "ember/stream/source/source.h"
#include "ember/stream/metadata_log.h"
#include "ember/stream/progress.h"
#include "ember/stream/state_store.h"
#include "ember/stream/stateful.h"
#include "ember/stream/stream_join.h"
#include "ember/streaming.h"

namespace ember {

namespace fs = std::filesystem;
using arrow::Result;
using nlohmann::json;
using nlohmann::ordered_json;
using plan::LogicalPlan;
using plan::PlanKind;
using plan::PlanPtr;

namespace {

constexpr int64_t kPollingDelayMs = 10;       // spark.sql.streaming.pollingDelay
// The nodes of one kind, in plan order, each once.
void CollectKind(const LogicalPlan& plan, PlanKind kind, std::vector<const LogicalPlan*>* out) {
  if (plan.kind == kind && std::find(out->begin(), out->end(), &plan) == out->end()) {
    out->push_back(&plan);
  }
  for (const auto& child : plan.children) CollectKind(*child, kind, out);
}

arrow::Status AnalysisError(const std::string& message) {
  return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_3102", message, "");
}

}  // namespace

struct StreamingQuery::Execution {
  std::string root;
  stream::MetadataLog offsets;
  stream::MetadataLog commits;
  std::vector<const LogicalPlan*> source_nodes;
  std::vector<std::unique_ptr<stream::Source>> sources;
  std::vector<stream::Offset> committed;  // end offsets of the last committed batch
  int64_t next_batch = 0;
  int64_t min_batches_to_retain = 100;  // spark.sql.streaming.minBatchesToRetain
  int num_partitions = 0;  // of the state; recorded in the offset log
  int64_t watermark_ms = 0;         // the watermark of the next batch
  // A logged batch without a commit, to run again as logged.
  std::optional<std::vector<stream::Offset>> rerun_end;
  int64_t rerun_timestamp_ms = 0;
  // withWatermark: the column and the delay.
  // withWatermark nodes in plan order, each with its own watermark (none before it saw a row),
  // and how they combine (spark.sql.streaming.multipleWatermarkPolicy).
  struct WatermarkNode {
    const LogicalPlan* node;
    std::optional<int64_t> watermark_ms;
  };
  std::vector<WatermarkNode> watermarks;
  std::string watermark_policy = "min";
  // The watermark the last batch ran with (its late rows are judged by it); none before batch 0.
  std::optional<int64_t> last_batch_watermark_ms;
  // The physical plan: the stateful operators, and how each batch runs.
  std::unique_ptr<stream::IncrementalExecution> incremental;
  // The semantic confs offsets/N records (Spark's OffsetSeqMetadata.relevantSQLConfs), in the
  // order Spark writes them.
  std::vector<std::pair<std::string, std::string>> logged_conf;
  // The progress of the last executed batch, for the entries of triggers that run nothing.
  std::optional<ordered_json> last_executed_progress;
  int64_t previous_trigger_start_ms = -1;
  int64_t current_trigger_start_ms = -1;
  // durationMs of the current trigger, by Spark's phase names (latestOffset, walCommit, getBatch,
  // queryPlanning, addBatch, commitOffsets, triggerExecution).
  std::map<std::string, int64_t> durations;

  explicit Execution(const std::string& checkpoint)
      : root(checkpoint),
        offsets((fs::path(checkpoint) / "offsets").string()),
        commits((fs::path(checkpoint) / "commits").string()) {}
};

StreamingQuery::StreamingQuery(DataFrame df, StreamingQueryOptions options,
                               std::shared_ptr<Sink> sink)
    : df_(std::move(df)), options_(std::move(options)), sink_(std::move(sink)) {}

StreamingQuery::~StreamingQuery() {
  Stop();
}

Result<std::shared_ptr<StreamingQuery>> StreamingQuery::Start(const DataFrame& df,
                                                              StreamingQueryOptions options,
                                                              std::shared_ptr<Sink> sink) {
  int64_t start_ms = NowEpochMs();
  const LogicalPlan& plan = *df.plan();
  if (!plan.is_streaming) {
    return AnalysisError("'writeStream' can be called only on streaming Dataset/DataFrame");
  }
  std::string mode = options.output_mode;
  std::transform(mode.begin(), mode.end(), mode.begin(), ::tolower);
  ARROW_RETURN_NOT_OK(plan::CheckStreamingQuery(plan, mode));

  auto query = std::shared_ptr<StreamingQuery>(new StreamingQuery(df, std::move(options), std::move(sink)));
  auto& execution = query->execution_;
  execution = std::make_unique<Execution>(query->options_.checkpoint_location);
  std::vector<const LogicalPlan*> watermark_nodes;
  CollectKind(plan, PlanKind::kWatermark, &watermark_nodes);
  for (const LogicalPlan* node : watermark_nodes) execution->watermarks.push_back({node, std::nullopt});
  const std::string& root = execution->root;
  // The commit log first: a batch's offsets are written before its commit, so a process that
  // commits between the two reads cannot make a commit appear without its offsets.
  auto committed_read = execution->commits.Latest();
  ARROW_ASSIGN_OR_RAISE(auto latest_offsets, execution->offsets.Latest());
  // Semantic confs a checkpoint keeps: the logged value wins over the session's.
  json logged_conf = json::object();
  if (latest_offsets) {
    // A damaged entry fails the run below, naming the file.
    auto logged = execution->offsets.Get(*latest_offsets);
    auto meta = json::parse(logged.ok() && *logged ? (*logged)->substr(0, (*logged)->find('\n')) : "",
                            nullptr, false);
    if (meta.is_object() && meta.contains("conf") && meta["conf"].is_object()) logged_conf = meta["conf"];
  }
  auto conf = [&](const std::string& key, const std::string& fallback) {
    return logged_conf.contains(key) ? logged_conf[key].get<std::string>()
                                     : df.session()->GetConf(key, fallback);
  };
  std::string policy = conf("spark.sql.streaming.multipleWatermarkPolicy", "min");
  std::transform(policy.begin(), policy.end(), policy.begin(), ::tolower);
  if (policy != "min" && policy != "max") {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Could not recognize watermark policy '" + policy + "'", "");
  }
  execution->watermark_policy = policy;
  auto session_conf = [&](const std::string& key) { return df.session()->GetConf(key); };
  ARROW_ASSIGN_OR_RAISE(execution->min_batches_to_retain, stream::MinBatchesToRetain(session_conf));
  ARROW_ASSIGN_OR_RAISE(query->no_data_progress_interval_ms_,
                        ParseTimeStringMs(df.session()->GetConf(
                            "spark.sql.streaming.noDataProgressEventInterval", "10000")));

  // The physical plan, its stateful operators numbered bottom-up. The number of state
  // partitions is the one the checkpoint was started with.
  const std::set<int64_t> referenced = plan::ReferencedAttributes(plan);
  stream::StatefulOptions state;
  state.checkpoint = root;
  state.output_mode = mode;
  state.referenced = &referenced;
  if (stream::HasState(plan, mode)) {
    state.store_conf.min_versions_to_retain = execution->min_batches_to_retain;
    ARROW_ASSIGN_OR_RAISE(state.store_conf.min_deltas_for_snapshot,
                          stream::PositiveIntConf(session_conf,
                                                  "spark.sql.streaming.stateStore.minDeltasForSnapshot",
                                                  10, "Must be greater than 0"));
    // One state partition per core where the session sets none: Ember runs on one machine
    // (Spark's 200 is sized for a cluster).
    std::string partitions = conf("spark.sql.shuffle.partitions", "");
    state.num_partitions = partitions.empty() ? CoreCount() : std::stoi(partitions);
    execution->num_partitions = state.num_partitions;
  }
  ARROW_ASSIGN_OR_RAISE(execution->incremental, stream::IncrementalExecution::Plan(df.plan(), state));

  // Spark 4.0's values where neither the checkpoint nor the session sets one.
  const std::pair<const char*, const char*> kLoggedConfs[] = {
      {"spark.sql.streaming.stateStore.providerClass",
       "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider"},
      {"spark.sql.streaming.stateStore.rocksdb.formatVersion", "5"},
      {"spark.sql.streaming.stateStore.encodingFormat", "unsaferow"},
      {"spark.sql.streaming.statefulOperator.useStrictDistribution", "true"},
      {"spark.sql.streaming.flatMapGroupsWithState.stateFormatVersion", "2"},
      {"spark.sql.streaming.multipleWatermarkPolicy", nullptr},
      {"spark.sql.streaming.aggregation.stateFormatVersion", "2"},
      {"spark.sql.shuffle.partitions", nullptr},
      {"spark.sql.streaming.join.stateFormatVersion", "2"},
      {"spark.sql.streaming.stateStore.compression.codec", "lz4"},
      {"spark.sql.optimizer.pruneFiltersCanPruneStreamingSubplan", "false"}};
  for (const auto& [key, fallback] : kLoggedConfs) {
    std::string value;
    if (std::string(key) == "spark.sql.streaming.multipleWatermarkPolicy") {
      value = policy;
    } else if (std::string(key) == "spark.sql.shuffle.partitions") {
      // The state's partitions; without state, what the session says (Spark records it always).
      value = execution->num_partitions > 0 ? std::to_string(execution->num_partitions)
                                            : conf(key, std::to_string(CoreCount()));
    } else {
      value = conf(key, fallback);
    }
    execution->logged_conf.emplace_back(key, value);
  }

  // The query id lives in <checkpoint>/metadata; a new checkpoint gets a new id.
  std::string metadata_path = (fs::path(root) / "metadata").string();
  ARROW_ASSIGN_OR_RAISE(auto metadata, io::ReadFileIfExists(metadata_path));
  if (metadata) {
    auto j = json::parse(*metadata, nullptr, false);
    if (!j.is_object() || !j.value("id", json()).is_string()) {
      return stream::DamagedCheckpointFile(metadata_path, "it does not hold the query's id (JSON)");
    }
    query->id_ = j["id"].get<std::string>();
  } else {
    query->id_ = NewUuid();
    ARROW_RETURN_NOT_OK(
        io::WriteFileAtomically(metadata_path, json({{"id", query->id_}}).dump()).status());
  }
  query->run_id_ = NewUuid();
  if (latest_offsets && !query->sink_->SupportsRecovery()) {
    return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1299",
                     "This query does not support recovering from checkpoint location. Delete " +
                         (fs::path(root) / "offsets").string() + " to start over.",
                     "");
  }
  ARROW_RETURN_NOT_OK(query->sink_->Open(query->id_, df.schema()));

  CollectKind(*df.plan(), PlanKind::kStreamSource, &execution->source_nodes);
  for (size_t i = 0; i < execution->source_nodes.size(); ++i) {
    auto directory = fs::path(root) / "sources" / std::to_string(i);
    std::error_code ec;
    fs::create_directories(directory, ec);
    stream::SourceContext context;
    context.spec = execution->source_nodes[i]->stream_source;
    context.directory = directory.string();
    context.conf = session_conf;
    context.referenced_columns = plan::ReferencedColumns(*execution->source_nodes[i], referenced);
    ARROW_ASSIGN_OR_RAISE(auto source, stream::OpenSource(context));
    execution->sources.push_back(std::move(source));
  }
  // The logs are read as the run starts: what is wrong with them fails the run.
  query->recovery_failure_ = [&]() -> arrow::Status {
    for (auto& source : execution->sources) ARROW_RETURN_NOT_OK(source->Restore());
    execution->committed.assign(execution->sources.size(), std::nullopt);
    // A commit is written after its batch's offsets: one past the last offsets means the
    // offsets of a committed batch are gone, and its input cannot be known again.
    ARROW_ASSIGN_OR_RAISE(auto committed_latest, committed_read);
    if (committed_latest && (!latest_offsets || *committed_latest > *latest_offsets)) {
      return UserError(ErrorKind::kIllegalState, "",
                       "batch " + std::to_string(*committed_latest) + " doesn't exist: " +
                           execution->offsets.Path(*committed_latest) + " is missing, but " +
                           execution->commits.Path(*committed_latest) + " says the batch committed",
                       "");
    }

    // Recovery (Spark's populateStartOffsets).
    if (latest_offsets) {
      int64_t n = *latest_offsets;
      struct Logged {
        std::vector<stream::Offset> ends;
        int64_t timestamp_ms = 0;
        int64_t watermark_ms = 0;
      };
      // An entry that exists but is not whole (emptied, truncated) is an error naming the file,
      // never a batch read with fewer sources or offsets.
      auto read_offsets = [&](int64_t batch) -> Result<Logged> {
        const std::string path = execution->offsets.Path(batch);
        ARROW_ASSIGN_OR_RAISE(auto body, execution->offsets.Get(batch));
        if (!body) {
          return UserError(ErrorKind::kIllegalState, "", "batch " + std::to_string(batch) +
                                                             " doesn't exist: " + path + " is missing", "");
        }
        std::istringstream lines(*body);
        std::string line;
        std::getline(lines, line);
        auto meta = json::parse(line, nullptr, false);
        if (!meta.is_object() || !meta.value("batchTimestampMs", json()).is_number_integer() ||
            !meta.value("batchWatermarkMs", json()).is_number_integer()) {
          return stream::DamagedCheckpointFile(path, "its second line is not the batch's metadata "
                                                     "(batchWatermarkMs, batchTimestampMs)");
        }
        Logged logged;
        logged.timestamp_ms = meta["batchTimestampMs"].get<int64_t>();
        logged.watermark_ms = meta["batchWatermarkMs"].get<int64_t>();
        while (std::getline(lines, line)) {
          if (line == "-") {
            logged.ends.push_back(std::nullopt);
          } else {
            if (!json::accept(line)) {
              return stream::DamagedCheckpointFile(path, "its line " + line + " is not a source's offset");
            }
            logged.ends.push_back(line);
          }
        }
        if (logged.ends.size() != execution->sources.size()) {
          return UserError(ErrorKind::kIllegalState, "",
                           "There are [" + std::to_string(logged.ends.size()) +
                               "] sources in the checkpoint offsets and now there are [" +
                               std::to_string(execution->sources.size()) +
                               "] sources requested by the query. Cannot continue. (The offsets are "
                               "those of " + path + ": if the query's sources did not change, the "
                               "file is damaged.)",
                           "");
        }
        return logged;
      };
      ARROW_ASSIGN_OR_RAISE(auto latest, read_offsets(n));
      // The source logs must hold the entries the offsets name.
      for (size_t i = 0; i < execution->sources.size(); ++i) {
        if (latest.ends[i]) ARROW_RETURN_NOT_OK(execution->sources[i]->CheckReplayable(*latest.ends[i]));
      }
      bool finished = committed_latest && *committed_latest == n;
      if (finished) {
        execution->committed = latest.ends;
        execution->next_batch = n + 1;
        execution->watermark_ms = latest.watermark_ms;
        execution->last_batch_watermark_ms = latest.watermark_ms;
        // A commit that exists reads as committed only when it is whole.
        ARROW_ASSIGN_OR_RAISE(auto commit, execution->commits.Get(n));
        auto j = json::parse(commit.value_or(""), nullptr, false);
        if (!j.is_object() || !j.value("nextBatchWatermarkMs", json()).is_number_integer()) {
          return stream::DamagedCheckpointFile(execution->commits.Path(n),
                                               "its second line is not the commit's metadata "
                                               "(nextBatchWatermarkMs)");
        }
        execution->watermark_ms = std::max(execution->watermark_ms, j["nextBatchWatermarkMs"].get<int64_t>());
      } else {
        if (n > 0) {
          ARROW_ASSIGN_OR_RAISE(auto previous, read_offsets(n - 1));
          execution->committed = previous.ends;
          execution->last_batch_watermark_ms = previous.watermark_ms;
        }
        execution->next_batch = n;
        execution->rerun_end = latest.ends;
        execution->rerun_timestamp_ms = latest.timestamp_ms;
        execution->watermark_ms = latest.watermark_ms;
      }
    }
    return arrow::Status::OK();
  }();
  if (!query->recovery_failure_.ok()) {
    // Nothing of the run is left to prepare; the thread ends with the failure.
  } else if (query->options_.trigger.kind == TriggerKind::kAvailableNow) {
    for (auto& source : execution->sources) ARROW_RETURN_NOT_OK(source->PrepareForAvailableNow());
  }
  if (query->options_.trigger.kind == TriggerKind::kOnce) {
    for (auto& source : execution->sources) source->ReadAllAvailable();
  }
  // Spark delivers onQueryStarted before start() returns, ahead of any other event of the query.
  StreamingQueryEvent started;
  started.kind = StreamingQueryEvent::Kind::kStarted;
  started.id = query->id_;
  started.run_id = query->run_id_;
  started.name = query->options_.name;
  started.timestamp = stream::IsoInstant(start_ms);
  query->Post(std::move(started));
  query->thread_ = std::thread([raw = query.get()] { raw->Run(); });
  return query;
}

void StreamingQuery::Run() {
  arrow::Status status;
  // An exception out of a library (a bug of Ember's) ends the query with an error, not the
  // process: nothing is committed for the batch it interrupted, so a restart runs it again.
  try {
    status = RunLoop();
  } catch (const std::exception& e) {
    status = arrow::Status::UnknownError("the query's thread stopped on an exception: ", e.what());
  }
  // A query that ended keeps its progress, not its state and logs: the session's manager keeps
  // the query (Python) object until resetTerminated().
  if (execution_) {
    for (auto& source : execution_->sources) source->Stop();
  }
  execution_.reset();
  std::lock_guard<std::mutex> lock(mutex_);
  StreamingQueryEvent terminated;
  terminated.kind = StreamingQueryEvent::Kind::kTerminated;
  terminated.id = id_;
  terminated.run_id = run_id_;
  if (!status.ok()) {
    failure_ = UserError(ErrorKind::kStreamingQuery, "STREAM_FAILED",
                         "Query [id = " + id_ + ", runId = " + run_id_ +
                             "] terminated with exception: " + status.message(),
                         "XXKST");
    // Spark reports the cause (not the STREAM_FAILED wrapper) and its error condition.
    const ErrorDetail* detail = GetErrorDetail(status);
    terminated.exception = std::string(detail ? ErrorKindName(detail->kind()) : "SparkException") +
                           ": " + status.message();
    if (detail && !detail->condition().empty()) terminated.error_class = detail->condition();
  }
  active_ = false;
  status_message_ = "Stopped";
  // Posted before waiters wake, as Spark posts QueryTerminatedEvent before awaitTermination
  // returns; listeners receive it on the bus's thread.
  Post(std::move(terminated));
  changed_.notify_all();
}

void StreamingQuery::Post(StreamingQueryEvent event) const {
  if (options_.listeners) options_.listeners->Post(std::move(event));
}

void StreamingQuery::ReportProgress(std::string progress, bool executed) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (executed) {
    StreamingQueryEvent event;
    event.kind = StreamingQueryEvent::Kind::kProgress;
    event.id = id_;
    event.run_id = run_id_;
    event.progress = progress;
    Post(std::move(event));
  }
  progress_.push_back(std::move(progress));
  if (progress_.size() > 100) progress_.erase(progress_.begin());
}

namespace {

// What the watermark node saw in a batch (Spark's EventTimeStats). As Spark reads the column
// with getLong, a NULL event time counts as 0.
struct EventTimeStats {
  int64_t max_ms = 0, min_ms = 0, count = 0;
  double avg_ms = 0;

  void Add(const arrow::TimestampArray& ts) {
    for (int64_t i = 0; i < ts.length(); ++i) {
      int64_t micros = ts.IsNull(i) ? 0 : ts.Value(i);
      int64_t ms = micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
      max_ms = count == 0 ? ms : std::max(max_ms, ms);
      min_ms = count == 0 ? ms : std::min(min_ms, ms);
      ++count;
      avg_ms += (static_cast<double>(ms) - avg_ms) / static_cast<double>(count);
    }
  }

  void Merge(const EventTimeStats& other) {
    if (other.count == 0) return;
    if (count == 0) {
      *this = other;
      return;
    }
    max_ms = std::max(max_ms, other.max_ms);
    min_ms = std::min(min_ms, other.min_ms);
    avg_ms = (avg_ms * static_cast<double>(count) + other.avg_ms * static_cast<double>(other.count)) /
             static_cast<double>(count + other.count);
    count += other.count;
  }

  json Progress(int64_t watermark_ms) const {
    json j = json::object();
    if (count > 0) {
      j["avg"] = stream::IsoInstant(static_cast<int64_t>(avg_ms));
      j["max"] = stream::IsoInstant(max_ms);
      j["min"] = stream::IsoInstant(min_ms);
    }
    j["watermark"] = stream::IsoInstant(watermark_ms);
    return j;
  }
};

}  // namespace

void StreamingQuery::ReportIdleTrigger(int64_t trigger_start_ms) {
  Execution& ex = *execution_;
  int64_t now = NowEpochMs();
  std::optional<int64_t> last;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    last = last_report_ms_;
  }
  // ProgressReporter.updateIdleness: at most one entry per noDataProgressEventInterval since the
  // last report; the very first one adds an entry without an event.
  if (last && now - no_data_progress_interval_ms_ < *last) return;
  int64_t duration = std::max<int64_t>(now - trigger_start_ms, 0);
  ordered_json progress = stream::ProgressHeader(id_, run_id_, options_.name, ex.next_batch, trigger_start_ms,
                                         ex.previous_trigger_start_ms, duration, 0);
  ex.durations["triggerExecution"] = duration;
  progress["durationMs"] = stream::DurationsProgress(ex.durations);
  // What the last executed batch reported, with this trigger's counts reset, as Spark's
  // resetExecStatsForNoExecution does.
  if (ex.last_executed_progress) {
    const ordered_json& executed = *ex.last_executed_progress;
    if (executed.contains("eventTime")) {
      progress["eventTime"] = {{"watermark", executed["eventTime"]["watermark"]}};
    }
    ordered_json operators = executed["stateOperators"];
    for (auto& op : operators) {
      op["numRowsUpdated"] = 0;
      op["numRowsDroppedByWatermark"] = 0;
    }
    progress["stateOperators"] = operators;
  } else {
    progress["stateOperators"] = ordered_json::array();
  }
  ordered_json sources = ordered_json::array();
  for (size_t i = 0; i < ex.sources.size(); ++i) {
    ordered_json source = {{"description", ex.sources[i]->Description()},
                           {"startOffset", stream::OffsetProgress(ex.committed[i])},
                           {"endOffset", stream::OffsetProgress(ex.committed[i])},
                           {"latestOffset", stream::OffsetProgress(ex.committed[i])},
                           {"numInputRows", 0},
                           {"inputRowsPerSecond", 0.0},
                           {"processedRowsPerSecond", 0.0}};
    sources.push_back(source);
  }
  progress["sources"] = sources;
  progress["sink"] = {{"description", sink_->Description()},
                      {"numOutputRows", sink_->CountsOutputRows() ? 0 : -1}};
  ReportProgress(progress.dump(), /*executed=*/false);
  std::lock_guard<std::mutex> lock(mutex_);
  if (last) {
    StreamingQueryEvent idle;
    idle.kind = StreamingQueryEvent::Kind::kIdle;
    idle.id = id_;
    idle.run_id = run_id_;
    idle.timestamp = stream::IsoInstant(trigger_start_ms);
    Post(std::move(idle));
  }
  last_report_ms_ = now;
}

arrow::Status StreamingQuery::RunLoop() {
  ARROW_RETURN_NOT_OK(recovery_failure_);
  Execution& ex = *execution_;
  auto session = df_.session();
  bool ran_once = false;
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_requested_) return arrow::Status::OK();
    }
    int64_t trigger_start = NowEpochMs();
    // Trigger.Once ends after its one trigger: the loop's next pass is no trigger of Spark's.
    bool real_trigger = !(options_.trigger.kind == TriggerKind::kOnce && ran_once);
    ex.previous_trigger_start_ms = ex.current_trigger_start_ms;
    ex.current_trigger_start_ms = trigger_start;
    ex.durations.clear();
    auto timed = [&](const char* phase, int64_t since) {
      ex.durations[phase] += std::max<int64_t>(NowEpochMs() - since, 0);
    };
    std::vector<stream::Offset> end;
    int64_t batch_timestamp = trigger_start;
    bool has_batch = false;
    // Whether the batch reads new data; a batch without (Spark's no-data batch) counts as idle:
    // processAllAvailable returns and Once and AvailableNow end after it.
    bool new_data = false;
    if (ex.rerun_end) {
      end = *ex.rerun_end;
      batch_timestamp = ex.rerun_timestamp_ms;
      ex.rerun_end.reset();
      has_batch = true;
      new_data = true;
    } else if (!(options_.trigger.kind == TriggerKind::kOnce && ran_once)) {
      int64_t latest_start = NowEpochMs();
      for (size_t i = 0; i < ex.sources.size(); ++i) {
        ARROW_ASSIGN_OR_RAISE(auto latest, ex.sources[i]->LatestOffset(ex.committed[i]));
        end.push_back(std::move(latest));
      }
      timed("latestOffset", latest_start);
      for (size_t i = 0; i < end.size(); ++i) new_data = new_data || !stream::SameOffset(end[i], ex.committed[i]);
      // Spark's no-data batch: a stateful operator asks for one, as when the watermark moved and
      // it can use it to emit or evict.
      bool watermark_moved = ex.last_batch_watermark_ms && ex.watermark_ms > *ex.last_batch_watermark_ms;
      bool no_data_batch = !new_data && ex.incremental->ShouldRunAnotherBatch(watermark_moved);
      has_batch = new_data || no_data_batch;
      if (has_batch) {
        int64_t wal_start = NowEpochMs();
        // offsets/N first: the write-ahead log of what batch N reads.
        // OffsetSeqMetadata, its fields in Spark's order.
        ordered_json conf = ordered_json::object();
        for (const auto& [key, value] : ex.logged_conf) conf[key] = value;
        ordered_json meta = {{"batchWatermarkMs", ex.watermark_ms},
                             {"batchTimestampMs", batch_timestamp},
                             {"conf", conf}};
        std::string body = meta.dump();
        for (const auto& offset : end) body += "\n" + offset.value_or("-");
        ARROW_ASSIGN_OR_RAISE(bool added, ex.offsets.Add(ex.next_batch, body));
        if (!added) {
          return UserError(ErrorKind::kIllegalState, "CONCURRENT_STREAM_LOG_UPDATE",
                           "Concurrent update to the log. Multiple streaming jobs detected for " +
                               std::to_string(ex.next_batch) + ".",
                           "40000");
        }
        // The previous batch is durable now: its sources may discard (clean) its input.
        for (size_t i = 0; i < ex.sources.size(); ++i) {
          if (ex.committed[i]) ARROW_RETURN_NOT_OK(ex.sources[i]->Commit(*ex.committed[i]));
        }
        timed("walCommit", wal_start);
      }
    }
    int64_t num_input_rows = 0, num_output_rows = 0;
    if (has_batch) {
      plan::EvalContext ctx = session->eval_context();
      ctx.current_timestamp_us = batch_timestamp * 1000;
      exec::ExecOptions exec_options;
      exec_options.eval = ctx;
      exec_options.max_batch_rows = exec::BatchSizeFromEnvironment();
      std::vector<stream::BatchSource> batch_sources;
      for (size_t i = 0; i < ex.sources.size(); ++i) {
        batch_sources.push_back({ex.source_nodes[i], ex.sources[i].get(), ex.committed[i], end[i]});
      }
      // Spark's cost of opening a file, in bytes: a part smaller than that is worth no task.
      ARROW_ASSIGN_OR_RAISE(int64_t open_cost,
                            ParseByteString(session->GetConf("spark.sql.files.openCostInBytes", "4m")));
      ARROW_ASSIGN_OR_RAISE(auto batch_plan, ex.incremental->PlanBatch(batch_sources, open_cost));
      // Each watermark node observes the rows passing it as the plan runs (Spark's
      // EventTimeWatermarkExec and its EventTimeStats accumulator).
      std::map<int64_t, EventTimeStats> seen_by_watermark;  // by event-time attribute
      std::mutex seen_mutex;
      if (!ex.watermarks.empty()) {
        exec_options.watermark_observer = [&](int64_t event_time_id, const arrow::Array& times) {
          EventTimeStats seen;
          seen.Add(static_cast<const arrow::TimestampArray&>(times));
          std::lock_guard<std::mutex> lock(seen_mutex);
          seen_by_watermark[event_time_id].Merge(seen);
        };
      }
      // Each observe() node's metrics over the batch's rows (Spark's observedMetrics).
      std::map<std::string, std::shared_ptr<arrow::RecordBatch>> observed;
      std::mutex observed_mutex;
      exec_options.metrics_observer = [&](const LogicalPlan& node, std::shared_ptr<arrow::RecordBatch> row) {
        std::lock_guard<std::mutex> lock(observed_mutex);
        observed[node.alias] = std::move(row);
      };
      stream::BatchContext batch;
      batch.batch_id = ex.next_batch;
      batch.late_ms = ex.last_batch_watermark_ms.value_or(0);
      batch.eviction_ms = ex.watermark_ms;
      batch.eval = ctx;
      // addBatch: running the batch's plan (stateful operators included) and the sink, as in
      // Spark, where the plan runs lazily inside the sink's addBatch.
      int64_t add_batch_start = NowEpochMs();
      ARROW_ASSIGN_OR_RAISE(auto outcome, ex.incremental->RunBatch(batch_plan, batch_sources, batch, exec_options,
                                                                   *session, *sink_, timed));
      num_input_rows = outcome.input_rows;
      num_output_rows = outcome.output_rows;
      const std::vector<int64_t>& source_rows = outcome.source_rows;
      timed("addBatch", add_batch_start);
      // The next batch's watermark: the policy over the nodes' watermarks, never decreasing.
      EventTimeStats event_times;
      std::optional<int64_t> candidate;
      for (auto& w : ex.watermarks) {
        const LogicalPlan& node = *w.node;
        const EventTimeStats& seen = seen_by_watermark[node.exprs[0]->id];
        event_times.Merge(seen);
        if (seen.count > 0 && (!w.watermark_ms || seen.max_ms - node.limit > *w.watermark_ms)) {
          w.watermark_ms = seen.max_ms - node.limit;
        }
        int64_t node_ms = w.watermark_ms.value_or(0);
        candidate = !candidate ? node_ms
                    : ex.watermark_policy == "max" ? std::max(*candidate, node_ms)
                                                   : std::min(*candidate, node_ms);
      }
      int64_t next_watermark = std::max(ex.watermark_ms, candidate.value_or(0));
      // RunBatch's reading (getBatch) and planning (queryPlanning) are phases of their own.
      ex.durations["addBatch"] = std::max<int64_t>(
          0, ex.durations["addBatch"] - ex.durations["getBatch"] - ex.durations["queryPlanning"]);
      int64_t commit_start = NowEpochMs();
      ARROW_ASSIGN_OR_RAISE(bool committed,
                            ex.commits.Add(ex.next_batch, json({{"nextBatchWatermarkMs", next_watermark}}).dump()));
      (void)committed;  // an existing commit means this batch was already committed
      int64_t batch_watermark = ex.watermark_ms;
      ex.last_batch_watermark_ms = ex.watermark_ms;
      std::vector<stream::Offset> start_offsets = ex.committed;
      ex.committed = end;
      ex.watermark_ms = next_watermark;
      if (ex.next_batch > ex.min_batches_to_retain) {
        ARROW_RETURN_NOT_OK(ex.offsets.Purge(ex.next_batch - ex.min_batches_to_retain));
        ARROW_RETURN_NOT_OK(ex.commits.Purge(ex.next_batch - ex.min_batches_to_retain));
      }
      timed("commitOffsets", commit_start);
      int64_t duration = std::max<int64_t>(NowEpochMs() - trigger_start, 0);
      ordered_json progress = stream::ProgressHeader(id_, run_id_, options_.name, ex.next_batch, trigger_start,
                                             ex.previous_trigger_start_ms, duration, num_input_rows);
      ex.durations["triggerExecution"] = duration;
      progress["durationMs"] = stream::DurationsProgress(ex.durations);
      if (!ex.watermarks.empty()) {
        progress["eventTime"] = ordered_json::parse(event_times.Progress(batch_watermark).dump());
      }
      progress["stateOperators"] = stream::StateOperatorsProgress(ex.incremental->states());
      ordered_json sources = ordered_json::array();
      for (size_t i = 0; i < ex.sources.size(); ++i) {
        ordered_json source = {{"description", ex.sources[i]->Description()},
                               {"startOffset", stream::OffsetProgress(start_offsets[i])},
                               {"endOffset", stream::OffsetProgress(end[i])},
                               {"latestOffset", stream::OffsetProgress(end[i])},
                               {"numInputRows", source_rows[i]}};
        stream::PutRates(&source, source_rows[i], trigger_start, ex.previous_trigger_start_ms, duration);
        auto metrics = ex.sources[i]->Metrics(end[i]);
        if (!metrics.empty()) source["metrics"] = metrics;
        sources.push_back(source);
      }
      progress["sources"] = sources;
      progress["sink"] = {{"description", sink_->Description()},
                          {"numOutputRows", sink_->CountsOutputRows() ? num_output_rows : -1}};
      if (!observed.empty()) {
        ARROW_ASSIGN_OR_RAISE(progress["observedMetrics"],
                              stream::ObservedMetricsProgress(observed, ctx.time_zone));
      }
      ex.last_executed_progress = progress;
      ReportProgress(progress.dump(), /*executed=*/true);
      std::lock_guard<std::mutex> lock(mutex_);
      last_report_ms_ = NowEpochMs();
      ++ex.next_batch;
    }
    if (!has_batch && real_trigger) ReportIdleTrigger(trigger_start);
    ran_once = true;
    bool finished_by_trigger = !new_data && (options_.trigger.kind == TriggerKind::kOnce ||
                                             options_.trigger.kind == TriggerKind::kAvailableNow);
    {
      std::unique_lock<std::mutex> lock(mutex_);
      idle_ = !new_data;
      ++batches_done_;
      status_message_ = new_data ? "Processing new data" : "Waiting for data to arrive";
      changed_.notify_all();
      if (finished_by_trigger) return arrow::Status::OK();
      if (!new_data || options_.trigger.kind == TriggerKind::kProcessingTime) {
        int64_t wait_ms = kPollingDelayMs;
        if (options_.trigger.kind == TriggerKind::kProcessingTime && options_.trigger.interval_ms > 0) {
          int64_t interval = options_.trigger.interval_ms;
          wait_ms = std::max<int64_t>(0, (trigger_start / interval + 1) * interval - NowEpochMs());
        }
        changed_.wait_for(lock, std::chrono::milliseconds(wait_ms), [&] { return stop_requested_; });
      }
    }
  }
}

bool StreamingQuery::IsActive() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return active_;
}

StreamingQuery::WaitEnd StreamingQuery::WaitFor(
    std::unique_lock<std::mutex>& lock, const std::function<bool()>& done,
    std::optional<std::chrono::steady_clock::time_point> deadline,
    const WaitInterrupt& interrupted) {
  constexpr auto kSlice = std::chrono::milliseconds(100);
  while (!done()) {
    auto until = std::chrono::steady_clock::now() + kSlice;
    if (deadline && *deadline < until) until = *deadline;
    if (changed_.wait_until(lock, until, done)) break;
    if (deadline && std::chrono::steady_clock::now() >= *deadline) return WaitEnd::kTimedOut;
    if (interrupted) {
      lock.unlock();
      bool stop = interrupted();
      lock.lock();
      if (stop) return WaitEnd::kInterrupted;
    }
  }
  return WaitEnd::kDone;
}

arrow::Status StreamingQuery::ProcessAllAvailable(const WaitInterrupt& interrupted) {
  std::unique_lock<std::mutex> lock(mutex_);
  int64_t start = batches_done_;
  // Done once an attempt that began after this call found nothing new: the attempt running at
  // the call may have listed files before they arrived, so wait for the one after it.
  auto done = [&] { return !active_ || (idle_ && batches_done_ >= start + 2); };
  if (WaitFor(lock, done, std::nullopt, interrupted) == WaitEnd::kInterrupted) {
    return arrow::Status::Cancelled("processAllAvailable was interrupted");
  }
  return failure_;
}

Result<bool> StreamingQuery::AwaitTermination(std::optional<double> timeout_seconds,
                                              const WaitInterrupt& interrupted) {
  std::unique_lock<std::mutex> lock(mutex_);
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (timeout_seconds) {
    deadline = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(*timeout_seconds));
  }
  switch (WaitFor(lock, [&] { return !active_; }, deadline, interrupted)) {
    case WaitEnd::kTimedOut: return false;
    case WaitEnd::kInterrupted: return arrow::Status::Cancelled("awaitTermination was interrupted");
    case WaitEnd::kDone: break;
  }
  ARROW_RETURN_NOT_OK(failure_);
  return true;
}

void StreamingQuery::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_requested_ = true;
    changed_.notify_all();
  }
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
  if (options_.delete_checkpoint_on_stop && failure_.ok()) {
    std::error_code ec;
    fs::remove_all(options_.checkpoint_location, ec);
  }
}

arrow::Status StreamingQuery::exception() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return failure_;
}

std::string StreamingQuery::LastProgress() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return progress_.empty() ? "" : progress_.back();
}

std::vector<std::string> StreamingQuery::RecentProgress() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return progress_;
}

std::string StreamingQuery::Status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return json({{"message", status_message_},
               {"isDataAvailable", !idle_},
               {"isTriggerActive", active_ && !idle_}})
      .dump();
}

}  // namespace ember
