// The micro-batch engine: Spark's MicroBatchExecution protocol. For batch N: decide the end
// offsets and write offsets/N; run the query over the new input; let the sink commit batch N
// (idempotently); write commits/N. A restart re-runs a batch that has offsets but no commit, with
// exactly the logged offsets and timestamp.
#include <chrono>
#include <filesystem>
#include <random>
#include <sstream>

#include <arrow/table.h>
#include <nlohmann/json.hpp>

#include "ember/error.h"
#include "ember/exec/executor.h"
#include "ember/plan/analyzer.h"
#include "ember/session.h"
#include "ember/stream/file_source.h"
#include "ember/stream/metadata_log.h"
#include "ember/streaming.h"

namespace ember {

namespace fs = std::filesystem;
using arrow::Result;
using nlohmann::json;
using plan::LogicalPlan;
using plan::PlanKind;
using plan::PlanPtr;

namespace {

constexpr int64_t kMinBatchesToRetain = 100;  // spark.sql.streaming.minBatchesToRetain
constexpr int64_t kPollingDelayMs = 10;       // spark.sql.streaming.pollingDelay

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string RandomUuid() {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  uint64_t a = rng(), b = rng();
  a = (a & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;  // version 4
  b = (b & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // variant 1
  char text[37];
  std::snprintf(text, sizeof(text), "%08x-%04x-%04x-%04x-%012llx",
                static_cast<unsigned>(a >> 32), static_cast<unsigned>((a >> 16) & 0xFFFF),
                static_cast<unsigned>(a & 0xFFFF), static_cast<unsigned>(b >> 48),
                static_cast<unsigned long long>(b & 0xFFFFFFFFFFFFULL));
  return text;
}

void CollectSources(const PlanPtr& plan, std::vector<const LogicalPlan*>* out) {
  if (plan->kind == PlanKind::kStreamSource) {
    if (std::find(out->begin(), out->end(), plan.get()) == out->end()) out->push_back(plan.get());
    return;
  }
  for (const auto& child : plan->children) CollectSources(child, out);
}

bool Contains(const LogicalPlan& plan, PlanKind kind) {
  if (plan.kind == kind) return true;
  for (const auto& child : plan.children) {
    if (Contains(*child, kind)) return true;
  }
  return false;
}

// The plan with each streaming source replaced by the rows of this batch.
PlanPtr Bind(const PlanPtr& plan, const std::map<const LogicalPlan*, std::shared_ptr<arrow::Table>>& data) {
  if (plan->kind == PlanKind::kStreamSource) {
    auto local = std::make_shared<LogicalPlan>();
    local->kind = PlanKind::kLocalTable;
    local->output = plan->output;
    local->table = data.at(plan.get());
    return local;
  }
  if (!plan->is_streaming) return plan;
  auto copy = std::make_shared<LogicalPlan>(*plan);
  copy->is_streaming = false;
  for (auto& child : copy->children) child = Bind(child, data);
  return copy;
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
  std::vector<std::unique_ptr<stream::FileStreamSource>> sources;
  std::vector<int64_t> committed;  // end offsets of the last committed batch; -1: none
  int64_t next_batch = 0;
  // A logged batch without a commit, to run again as logged.
  std::optional<std::vector<int64_t>> rerun_end;
  int64_t rerun_timestamp_ms = 0;
  bool complete_mode = false;

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
  const LogicalPlan& plan = *df.plan();
  if (!plan.is_streaming) {
    return AnalysisError("'writeStream' can be called only on streaming Dataset/DataFrame");
  }
  std::string mode = options.output_mode;
  std::transform(mode.begin(), mode.end(), mode.begin(), ::tolower);
  bool aggregates = Contains(plan, PlanKind::kAggregate);
  if (mode == "append" && aggregates) {
    return AnalysisError(
        "Append output mode not supported when there are streaming aggregations on streaming "
        "DataFrames/DataSets without watermark;");
  }
  if (mode == "complete" && !aggregates) {
    return AnalysisError(
        "Complete output mode not supported when there are no streaming aggregations on "
        "streaming DataFrames/Datasets;");
  }
  if (mode == "update" && aggregates) {
    return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                     "Update output mode with aggregations is not supported by Ember yet; use "
                     "complete.",
                     "0A000");
  }
  if (!aggregates && (Contains(plan, PlanKind::kSort) || Contains(plan, PlanKind::kLimit))) {
    return AnalysisError(
        "Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated "
        "DataFrame/Dataset in Complete output mode;");
  }
  if (Contains(plan, PlanKind::kDeduplicate)) {
    return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                     "dropDuplicates on a stream is not supported by Ember yet.", "0A000");
  }

  auto query = std::shared_ptr<StreamingQuery>(new StreamingQuery(df, std::move(options), std::move(sink)));
  auto& execution = query->execution_;
  execution = std::make_unique<Execution>(query->options_.checkpoint_location);
  execution->complete_mode = mode == "complete";
  const std::string& root = execution->root;

  // The query id lives in <checkpoint>/metadata; a new checkpoint gets a new id.
  std::string metadata_path = (fs::path(root) / "metadata").string();
  ARROW_ASSIGN_OR_RAISE(auto metadata, stream::ReadFileIfExists(metadata_path));
  if (metadata) {
    auto j = json::parse(*metadata, nullptr, false);
    if (j.is_discarded() || !j.contains("id")) {
      return UserError(ErrorKind::kIllegalState, "", "Malformed checkpoint metadata " + metadata_path, "");
    }
    query->id_ = j["id"].get<std::string>();
  } else {
    query->id_ = RandomUuid();
    ARROW_RETURN_NOT_OK(
        stream::WriteFileAtomically(metadata_path, json({{"id", query->id_}}).dump()).status());
  }
  query->run_id_ = RandomUuid();
  query->sink_->SetQueryId(query->id_);
  ARROW_ASSIGN_OR_RAISE(auto latest_offsets, execution->offsets.Latest());
  if (latest_offsets && !query->sink_->SupportsRecovery()) {
    return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1299",
                     "This query does not support recovering from checkpoint location. Delete " +
                         (fs::path(root) / "offsets").string() + " to start over.",
                     "");
  }

  CollectSources(df.plan(), &execution->source_nodes);
  for (size_t i = 0; i < execution->source_nodes.size(); ++i) {
    auto log_dir = fs::path(root) / "sources" / std::to_string(i);
    std::error_code ec;
    fs::create_directories(log_dir, ec);
    ARROW_ASSIGN_OR_RAISE(auto source, stream::FileStreamSource::Open(
                                           execution->source_nodes[i]->file, log_dir.string()));
    execution->sources.push_back(std::move(source));
  }
  execution->committed.assign(execution->sources.size(), -1);

  // Recovery (Spark's populateStartOffsets).
  if (latest_offsets) {
    int64_t n = *latest_offsets;
    auto read_offsets = [&](int64_t batch) -> Result<std::pair<std::vector<int64_t>, int64_t>> {
      ARROW_ASSIGN_OR_RAISE(auto body, execution->offsets.Get(batch));
      if (!body) {
        return UserError(ErrorKind::kIllegalState, "", "batch " + std::to_string(batch) +
                                                           " doesn't exist", "");
      }
      std::istringstream lines(*body);
      std::string line;
      std::getline(lines, line);
      auto meta = json::parse(line, nullptr, false);
      int64_t timestamp = meta.is_object() ? meta.value("batchTimestampMs", int64_t{0}) : 0;
      std::vector<int64_t> ends;
      while (std::getline(lines, line)) {
        if (line == "-") {
          ends.push_back(-1);
        } else {
          ARROW_ASSIGN_OR_RAISE(auto offset, stream::FileStreamSource::ParseOffsetJson(line));
          ends.push_back(offset);
        }
      }
      if (ends.size() != execution->sources.size()) {
        return UserError(ErrorKind::kIllegalState, "",
                         "There are [" + std::to_string(ends.size()) +
                             "] sources in the checkpoint offsets and now there are [" +
                             std::to_string(execution->sources.size()) +
                             "] sources requested by the query. Cannot continue.",
                         "");
      }
      return std::make_pair(ends, timestamp);
    };
    ARROW_ASSIGN_OR_RAISE(auto latest, read_offsets(n));
    ARROW_ASSIGN_OR_RAISE(auto committed_latest, execution->commits.Latest());
    if (committed_latest && *committed_latest >= n) {
      execution->committed = latest.first;
      execution->next_batch = n + 1;
    } else {
      if (n > 0) {
        ARROW_ASSIGN_OR_RAISE(auto previous, read_offsets(n - 1));
        execution->committed = previous.first;
      }
      execution->next_batch = n;
      execution->rerun_end = latest.first;
      execution->rerun_timestamp_ms = latest.second;
    }
  }
  if (query->options_.trigger.kind == TriggerKind::kAvailableNow) {
    for (auto& source : execution->sources) ARROW_RETURN_NOT_OK(source->PrepareForAvailableNow());
  }
  query->thread_ = std::thread([raw = query.get()] { raw->Run(); });
  return query;
}

void StreamingQuery::Run() {
  arrow::Status status = RunLoop();
  std::lock_guard<std::mutex> lock(mutex_);
  if (!status.ok()) {
    failure_ = UserError(ErrorKind::kStreamingQuery, "STREAM_FAILED",
                         "Query [id = " + id_ + ", runId = " + run_id_ +
                             "] terminated with exception: " + status.message(),
                         "XXKST");
  }
  active_ = false;
  status_message_ = "Stopped";
  changed_.notify_all();
}

arrow::Status StreamingQuery::RunLoop() {
  Execution& ex = *execution_;
  auto session = df_.session();
  bool ran_once = false;
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_requested_) return arrow::Status::OK();
    }
    int64_t trigger_start = NowMs();
    std::vector<int64_t> end;
    int64_t batch_timestamp = trigger_start;
    bool has_batch = false;
    if (ex.rerun_end) {
      end = *ex.rerun_end;
      batch_timestamp = ex.rerun_timestamp_ms;
      ex.rerun_end.reset();
      has_batch = true;
    } else if (!(options_.trigger.kind == TriggerKind::kOnce && ran_once)) {
      for (auto& source : ex.sources) {
        ARROW_ASSIGN_OR_RAISE(int64_t latest, source->LatestOffset());
        end.push_back(latest);
      }
      has_batch = end != ex.committed;
      if (has_batch) {
        // offsets/N first: the write-ahead log of what batch N reads.
        json meta = {{"batchWatermarkMs", 0},
                     {"batchTimestampMs", batch_timestamp},
                     {"conf", {{"spark.sql.shuffle.partitions",
                                session->GetConf("spark.sql.shuffle.partitions", "2")}}}};
        std::string body = meta.dump();
        for (int64_t offset : end) {
          body += "\n" + (offset < 0 ? std::string("-") : stream::FileStreamSource::OffsetJson(offset));
        }
        ARROW_ASSIGN_OR_RAISE(bool added, ex.offsets.Add(ex.next_batch, body));
        if (!added) {
          return UserError(ErrorKind::kIllegalState, "CONCURRENT_STREAM_LOG_UPDATE",
                           "Concurrent update to the log. Multiple streaming jobs detected for " +
                               std::to_string(ex.next_batch) + ".",
                           "40000");
        }
      }
    }
    int64_t num_input_rows = 0, num_output_rows = 0;
    if (has_batch) {
      std::map<const LogicalPlan*, std::shared_ptr<arrow::Table>> data;
      plan::EvalContext ctx = session->eval_context();
      ctx.current_timestamp_us = batch_timestamp * 1000;
      for (size_t i = 0; i < ex.sources.size(); ++i) {
        // Complete mode recomputes the whole result from every file logged so far.
        int64_t start = ex.complete_mode ? -1 : ex.committed[i];
        ARROW_ASSIGN_OR_RAISE(auto table, ex.sources[i]->GetBatch(start, end[i], ctx));
        num_input_rows += ex.complete_mode ? 0 : table->num_rows();
        data[ex.source_nodes[i]] = table;
      }
      if (ex.complete_mode) {
        for (size_t i = 0; i < ex.sources.size(); ++i) {
          ARROW_ASSIGN_OR_RAISE(auto fresh, ex.sources[i]->GetBatch(ex.committed[i], end[i], ctx));
          num_input_rows += fresh->num_rows();
        }
      }
      exec::ExecOptions exec_options;
      exec_options.eval = ctx;
      exec_options.max_batch_rows = exec::BatchSizeFromEnvironment();
      ARROW_ASSIGN_OR_RAISE(auto result, exec::Execute(Bind(df_.plan(), data), exec_options));
      num_output_rows = result->num_rows();
      ARROW_ASSIGN_OR_RAISE(auto batch_df, session->FromArrow(result));
      ARROW_RETURN_NOT_OK(sink_->AddBatch(ex.next_batch, batch_df));
      ARROW_ASSIGN_OR_RAISE(bool committed,
                            ex.commits.Add(ex.next_batch, json({{"nextBatchWatermarkMs", 0}}).dump()));
      (void)committed;  // an existing commit means this batch was already committed
      ex.committed = end;
      if (ex.next_batch > kMinBatchesToRetain) {
        ARROW_RETURN_NOT_OK(ex.offsets.Purge(ex.next_batch - kMinBatchesToRetain));
        ARROW_RETURN_NOT_OK(ex.commits.Purge(ex.next_batch - kMinBatchesToRetain));
      }
      int64_t duration = std::max<int64_t>(NowMs() - trigger_start, 0);
      json progress = {
          {"id", id_},
          {"runId", run_id_},
          {"name", options_.name.empty() ? json(nullptr) : json(options_.name)},
          {"batchId", ex.next_batch},
          {"numInputRows", num_input_rows},
          {"processedRowsPerSecond",
           duration > 0 ? static_cast<double>(num_input_rows) * 1000.0 / static_cast<double>(duration) : 0.0},
          {"durationMs", {{"triggerExecution", duration}}},
          {"stateOperators", json::array()},
          {"sink", {{"numOutputRows", num_output_rows}}}};
      json sources = json::array();
      for (size_t i = 0; i < ex.sources.size(); ++i) {
        sources.push_back({{"description", "FileStreamSource[" + ex.source_nodes[i]->file->paths[0] + "]"},
                           {"endOffset", {{"logOffset", end[i]}}},
                           {"numInputRows", num_input_rows}});
      }
      progress["sources"] = sources;
      std::lock_guard<std::mutex> lock(mutex_);
      progress_.push_back(progress.dump());
      if (progress_.size() > 100) progress_.erase(progress_.begin());
      ++ex.next_batch;
    }
    ran_once = true;
    bool finished_by_trigger = !has_batch && (options_.trigger.kind == TriggerKind::kOnce ||
                                              options_.trigger.kind == TriggerKind::kAvailableNow);
    {
      std::unique_lock<std::mutex> lock(mutex_);
      idle_ = !has_batch;
      ++batches_done_;
      status_message_ = has_batch ? "Processing new data" : "Waiting for data to arrive";
      changed_.notify_all();
      if (finished_by_trigger) return arrow::Status::OK();
      if (!has_batch || options_.trigger.kind == TriggerKind::kProcessingTime) {
        int64_t wait_ms = kPollingDelayMs;
        if (options_.trigger.kind == TriggerKind::kProcessingTime && options_.trigger.interval_ms > 0) {
          int64_t interval = options_.trigger.interval_ms;
          wait_ms = std::max<int64_t>(0, (trigger_start / interval + 1) * interval - NowMs());
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

arrow::Status StreamingQuery::ProcessAllAvailable() {
  std::unique_lock<std::mutex> lock(mutex_);
  int64_t start = batches_done_;
  // Done once an attempt that began after this call found nothing new: the attempt running at
  // the call may have listed files before they arrived, so wait for the one after it.
  changed_.wait(lock, [&] { return !active_ || (idle_ && batches_done_ >= start + 2); });
  return failure_;
}

Result<bool> StreamingQuery::AwaitTermination(std::optional<double> timeout_seconds) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (timeout_seconds) {
    bool ended = changed_.wait_for(lock, std::chrono::duration<double>(*timeout_seconds),
                                   [&] { return !active_; });
    if (!ended) return false;
  } else {
    changed_.wait(lock, [&] { return !active_; });
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
