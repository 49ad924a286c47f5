// The micro-batch engine: Spark's MicroBatchExecution protocol. For batch N: decide the end
// offsets and write offsets/N; run the query over the new input; let the sink commit batch N
// (idempotently); write commits/N. A restart re-runs a batch that has offsets but no commit, with
// exactly the logged offsets and timestamp.
#include <chrono>
#include <ctime>
#include <filesystem>
#include <random>
#include <sstream>

#include <arrow/array/array_primitive.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/table.h>
#include <nlohmann/json.hpp>

#include "ember/error.h"
#include "ember/exec/executor.h"
#include "ember/plan/analyzer.h"
#include "ember/plan/type_names.h"
#include "ember/common/interval.h"
#include <arrow/compute/api.h>
#include <arrow/scalar.h>
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

const LogicalPlan* Find(const LogicalPlan& plan, PlanKind kind) {
  if (plan.kind == kind) return &plan;
  for (const auto& child : plan.children) {
    if (const LogicalPlan* found = Find(*child, kind)) return found;
  }
  return nullptr;
}

// The plan with each streaming source replaced by the rows of this batch, and other nodes
// replaced as `replace` says (the aggregation's emission filter).
PlanPtr Bind(const PlanPtr& plan, const std::map<const LogicalPlan*, std::shared_ptr<arrow::Table>>& data,
             const std::map<const LogicalPlan*, PlanPtr>& replace = {}) {
  auto replaced = replace.find(plan.get());
  if (replaced != replace.end()) return Bind(replaced->second, data, {});
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
  for (auto& child : copy->children) child = Bind(child, data, replace);
  return copy;
}

// Spark's progress form of an instant: "2024-05-01T10:50:00.000Z".
std::string IsoInstant(int64_t ms) {
  time_t seconds = static_cast<time_t>(ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000));
  int64_t millis = ms - static_cast<int64_t>(seconds) * 1000;
  struct tm utc;
  gmtime_r(&seconds, &utc);
  char text[96];
  std::snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(millis));
  return text;
}

// The shared pointer of a node of `plan`.
PlanPtr FindShared(const PlanPtr& plan, const LogicalPlan* node) {
  if (plan.get() == node) return plan;
  for (const auto& child : plan->children) {
    if (auto found = FindShared(child, node)) return found;
  }
  return nullptr;
}

plan::ExprPtr TimestampLiteral(int64_t micros) {
  return plan::Literal(std::make_shared<arrow::TimestampScalar>(micros, plan::TimestampType()));
}

arrow::Status AnalysisError(const std::string& message) {
  return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_3102", message, "");
}

}  // namespace

// What a streaming aggregation needs. Ember computes it again from every input row logged so far
// (a batch's rows are the files of its source-log range), dropping the rows that were late when
// their batch ran and emitting, in append mode, the groups closed by this batch's watermark. The
// result equals Spark's state-store execution; its cost grows with the input (the state store
// issue makes it incremental).
struct Aggregation {
  const LogicalPlan* node = nullptr;  // the kAggregate
  bool append = false;
  bool update = false;
  // The event-time key: the watermarked column itself, or a window over it (then key time is
  // the window's end).
  int key_index = -1;
  bool key_is_window = false;
  int64_t window_size = 0, window_slide = 0, window_offset = 0;  // micros
  int64_t time_attribute = -1;  // the watermarked column, in the source's output
};

struct StreamingQuery::Execution {
  std::string root;
  stream::MetadataLog offsets;
  stream::MetadataLog commits;
  std::vector<const LogicalPlan*> source_nodes;
  std::vector<std::unique_ptr<stream::FileStreamSource>> sources;
  std::vector<int64_t> committed;  // end offsets of the last committed batch; -1: none
  int64_t next_batch = 0;
  int64_t watermark_ms = 0;         // the watermark of the next batch
  // A logged batch without a commit, to run again as logged.
  std::optional<std::vector<int64_t>> rerun_end;
  int64_t rerun_timestamp_ms = 0;
  bool complete_mode = false;
  // withWatermark: the column and the delay.
  int64_t watermark_attribute = -1;
  int64_t watermark_delay_ms = 0;
  std::optional<Aggregation> aggregation;
  // Per committed batch: its end offsets and the watermark it ran with (for re-computation).
  std::vector<std::pair<std::vector<int64_t>, int64_t>> history;

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
  const LogicalPlan* watermark = Find(plan, PlanKind::kWatermark);
  std::optional<Aggregation> aggregation;
  if (aggregates) {
    Aggregation a;
    a.node = Find(plan, PlanKind::kAggregate);
    a.append = mode == "append";
    a.update = mode == "update";
    // The event-time key: the watermarked column, or a window over it.
    for (size_t i = 0; watermark && i < a.node->groupings.size(); ++i) {
      const auto& key = *a.node->groupings[i];
      int64_t wm_id = watermark->exprs[0]->id;
      if (key.kind == plan::ExprKind::kAttribute && key.id == wm_id) {
        a.key_index = static_cast<int>(i);
        a.time_attribute = wm_id;
      } else if (key.kind == plan::ExprKind::kCall && key.name == "window" &&
                 key.args[0]->kind == plan::ExprKind::kAttribute && key.args[0]->id == wm_id) {
        a.key_index = static_cast<int>(i);
        a.key_is_window = true;
        a.time_attribute = wm_id;
        auto text = [&](size_t j) { return key.args[j]->value ? key.args[j]->value->ToString() : ""; };
        ARROW_ASSIGN_OR_RAISE(a.window_size, ParseIntervalMicros(text(1)));
        ARROW_ASSIGN_OR_RAISE(a.window_slide, ParseIntervalMicros(text(2)));
        if (key.args.size() > 3) {
          ARROW_ASSIGN_OR_RAISE(a.window_offset, ParseIntervalMicros(text(3)));
        }
      }
    }
    if (mode == "append" && a.key_index < 0) {
      return UserError(ErrorKind::kAnalysis, "STREAMING_OUTPUT_MODE.UNSUPPORTED_OPERATION",
                       "Invalid streaming output mode: append. This output mode is not supported "
                       "for streaming aggregations without watermark on streaming "
                       "DataFrames/DataSets.",
                       "42KDE");
    }
    aggregation = a;
  }
  if (mode == "complete" && !aggregates) {
    return AnalysisError(
        "Complete output mode not supported when there are no streaming aggregations on "
        "streaming DataFrames/Datasets;");
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
  execution->aggregation = aggregation;
  if (watermark) {
    execution->watermark_attribute = watermark->exprs[0]->id;
    execution->watermark_delay_ms = watermark->limit;
  }
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
    struct Logged {
      std::vector<int64_t> ends;
      int64_t timestamp_ms = 0;
      int64_t watermark_ms = 0;
    };
    auto read_offsets = [&](int64_t batch) -> Result<Logged> {
      ARROW_ASSIGN_OR_RAISE(auto body, execution->offsets.Get(batch));
      if (!body) {
        return UserError(ErrorKind::kIllegalState, "", "batch " + std::to_string(batch) +
                                                           " doesn't exist", "");
      }
      std::istringstream lines(*body);
      std::string line;
      std::getline(lines, line);
      auto meta = json::parse(line, nullptr, false);
      Logged logged;
      if (meta.is_object()) {
        logged.timestamp_ms = meta.value("batchTimestampMs", int64_t{0});
        logged.watermark_ms = meta.value("batchWatermarkMs", int64_t{0});
      }
      while (std::getline(lines, line)) {
        if (line == "-") {
          logged.ends.push_back(-1);
        } else {
          ARROW_ASSIGN_OR_RAISE(auto offset, stream::FileStreamSource::ParseOffsetJson(line));
          logged.ends.push_back(offset);
        }
      }
      if (logged.ends.size() != execution->sources.size()) {
        return UserError(ErrorKind::kIllegalState, "",
                         "There are [" + std::to_string(logged.ends.size()) +
                             "] sources in the checkpoint offsets and now there are [" +
                             std::to_string(execution->sources.size()) +
                             "] sources requested by the query. Cannot continue.",
                         "");
      }
      return logged;
    };
    ARROW_ASSIGN_OR_RAISE(auto latest, read_offsets(n));
    ARROW_ASSIGN_OR_RAISE(auto committed_latest, execution->commits.Latest());
    bool finished = committed_latest && *committed_latest >= n;
    // The batches before the one to run next, for aggregations that recompute from them.
    for (int64_t m = 0; m < n + (finished ? 1 : 0); ++m) {
      auto logged = read_offsets(m);
      if (!logged.ok()) continue;  // purged: older than minBatchesToRetain
      execution->history.emplace_back(logged->ends, logged->watermark_ms);
    }
    if (finished) {
      execution->committed = latest.ends;
      execution->next_batch = n + 1;
      execution->watermark_ms = latest.watermark_ms;
      ARROW_ASSIGN_OR_RAISE(auto commit, execution->commits.Get(n));
      if (commit) {
        auto j = json::parse(*commit, nullptr, false);
        if (j.is_object()) {
          execution->watermark_ms = std::max(execution->watermark_ms, j.value("nextBatchWatermarkMs", int64_t{0}));
        }
      }
    } else {
      if (n > 0) {
        ARROW_ASSIGN_OR_RAISE(auto previous, read_offsets(n - 1));
        execution->committed = previous.ends;
      }
      execution->next_batch = n;
      execution->rerun_end = latest.ends;
      execution->rerun_timestamp_ms = latest.timestamp_ms;
      execution->watermark_ms = latest.watermark_ms;
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

namespace {

// The column of a source's output holding an attribute, or -1.
int ColumnOf(const LogicalPlan& source, int64_t attribute) {
  for (size_t i = 0; i < source.output.size(); ++i) {
    if (source.output[i].id == attribute) return static_cast<int>(i);
  }
  return -1;
}

// The largest event time of a column, in ms (floor), or nothing if all are NULL.
Result<std::optional<int64_t>> MaxEventTimeMs(const arrow::Table& table, int column) {
  std::optional<int64_t> best;
  for (const auto& chunk : table.column(column)->chunks()) {
    const auto& ts = static_cast<const arrow::TimestampArray&>(*chunk);
    for (int64_t i = 0; i < ts.length(); ++i) {
      if (ts.IsNull(i)) continue;
      int64_t micros = ts.Value(i);
      int64_t ms = micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
      if (!best || ms > *best) best = ms;
    }
  }
  return best;
}

// Rows whose group closed before their batch ran are late (key time <= late watermark): Spark
// drops them. The key time is the event time, or the end of its window.
Result<std::shared_ptr<arrow::Table>> DropLate(const std::shared_ptr<arrow::Table>& table, int column,
                                               const Aggregation& aggregation, int64_t late_ms) {
  arrow::BooleanBuilder keep;
  ARROW_RETURN_NOT_OK(keep.Reserve(table->num_rows()));
  for (const auto& chunk : table->column(column)->chunks()) {
    const auto& ts = static_cast<const arrow::TimestampArray&>(*chunk);
    for (int64_t i = 0; i < ts.length(); ++i) {
      if (ts.IsNull(i)) {
        keep.UnsafeAppend(false);
        continue;
      }
      int64_t key = ts.Value(i);
      if (aggregation.key_is_window) {
        int64_t shifted = key - aggregation.window_offset;
        int64_t rem = shifted % aggregation.window_size;
        if (rem < 0) rem += aggregation.window_size;
        key = key - rem + aggregation.window_size;
      }
      keep.UnsafeAppend(key > late_ms * 1000);
    }
  }
  std::shared_ptr<arrow::Array> mask;
  ARROW_RETURN_NOT_OK(keep.Finish(&mask));
  ARROW_ASSIGN_OR_RAISE(auto filtered, arrow::compute::Filter(arrow::Datum(table), arrow::Datum(mask)));
  return filtered.table();
}

}  // namespace

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
    // The watermark the previous batch evicted with; a later watermark lets an append-mode
    // aggregation emit more groups, even without new data (Spark's no-data batch).
    std::optional<int64_t> last_eviction;
    if (!ex.history.empty()) last_eviction = ex.history.back().second;
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
      bool new_data = end != ex.committed;
      bool no_data_batch = !new_data && ex.aggregation && ex.aggregation->append &&
                           last_eviction && ex.watermark_ms > *last_eviction;
      has_batch = new_data || no_data_batch;
      if (has_batch) {
        // offsets/N first: the write-ahead log of what batch N reads.
        json meta = {{"batchWatermarkMs", ex.watermark_ms},
                     {"batchTimestampMs", batch_timestamp},
                     {"conf", {{"spark.sql.shuffle.partitions",
                                session->GetConf("spark.sql.shuffle.partitions", "2")},
                               {"spark.sql.streaming.multipleWatermarkPolicy", "min"}}}};
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
    int64_t num_input_rows = 0, num_output_rows = 0, dropped_by_watermark = 0;
    if (has_batch) {
      plan::EvalContext ctx = session->eval_context();
      ctx.current_timestamp_us = batch_timestamp * 1000;
      std::map<const LogicalPlan*, std::shared_ptr<arrow::Table>> data;
      int64_t next_watermark = ex.watermark_ms;
      std::optional<int64_t> max_event_ms;
      for (size_t i = 0; i < ex.sources.size(); ++i) {
        ARROW_ASSIGN_OR_RAISE(auto fresh, ex.sources[i]->GetBatch(ex.committed[i], end[i], ctx));
        num_input_rows += fresh->num_rows();
        int column = ColumnOf(*ex.source_nodes[i], ex.watermark_attribute);
        if (column >= 0) {
          ARROW_ASSIGN_OR_RAISE(auto batch_max, MaxEventTimeMs(*fresh, column));
          if (batch_max && (!max_event_ms || *batch_max > *max_event_ms)) max_event_ms = batch_max;
        }
        data[ex.source_nodes[i]] = fresh;
      }
      if (max_event_ms) {
        next_watermark = std::max(ex.watermark_ms, *max_event_ms - ex.watermark_delay_ms);
      }
      std::map<const LogicalPlan*, PlanPtr> replace;
      std::map<const LogicalPlan*, std::shared_ptr<arrow::Table>> current;  // this batch, late rows dropped
      if (ex.aggregation) {
        const Aggregation& agg = *ex.aggregation;
        bool drops_late = !ex.complete_mode && agg.key_index >= 0;
        // Every batch's rows so far, each without the rows that were late when it ran.
        for (size_t i = 0; i < ex.sources.size(); ++i) {
          int column = ColumnOf(*ex.source_nodes[i], agg.time_attribute);
          std::vector<std::shared_ptr<arrow::Table>> parts;
          int64_t start = -1;
          for (size_t m = 0; m <= ex.history.size(); ++m) {
            int64_t stop = m < ex.history.size() ? ex.history[m].first[i] : end[i];
            int64_t late_ms = m == 0 ? 0 : ex.history[m - 1].second;
            std::shared_ptr<arrow::Table> rows;
            if (m < ex.history.size()) {
              ARROW_ASSIGN_OR_RAISE(rows, ex.sources[i]->GetBatch(start, stop, ctx));
            } else {
              rows = data[ex.source_nodes[i]];
            }
            if (drops_late && column >= 0) {
              int64_t before = rows->num_rows();
              ARROW_ASSIGN_OR_RAISE(rows, DropLate(rows, column, agg, late_ms));
              if (m == ex.history.size()) dropped_by_watermark += before - rows->num_rows();
            }
            parts.push_back(rows);
            if (m == ex.history.size()) current[ex.source_nodes[i]] = rows;
            start = stop;
          }
          ARROW_ASSIGN_OR_RAISE(data[ex.source_nodes[i]], arrow::ConcatenateTables(parts));
        }
        if (agg.update) {
          // Update mode emits the groups this batch's rows touched, with their new values: the
          // groups of the whole result whose keys occur in the aggregation of this batch alone.
          PlanPtr aggregate_node = FindShared(df_.plan(), agg.node);
          auto analyzer = session->analyzer();
          PlanPtr full = Bind(aggregate_node, data);
          PlanPtr delta = Bind(aggregate_node, current);
          std::vector<plan::ExprPtr> keys;
          for (size_t k = 0; k < agg.node->groupings.size(); ++k) {
            keys.push_back(plan::Alias(plan::AttributeRef(agg.node->output[k]), "__key" + std::to_string(k)));
          }
          ARROW_ASSIGN_OR_RAISE(auto delta_keys, analyzer.Project(delta, keys));
          plan::ExprPtr matches;
          for (size_t k = 0; k < keys.size(); ++k) {
            auto same = plan::Call("<=>", {plan::AttributeRef(agg.node->output[k]),
                                           plan::AttributeRef(delta_keys->output[k])});
            matches = matches ? plan::Call("and", {matches, same}) : same;
          }
          PlanPtr touched = full;
          if (matches) {
            ARROW_ASSIGN_OR_RAISE(touched, analyzer.Join(full, delta_keys, plan::JoinType::kLeftSemi, matches, {}));
          } else {
            // A global aggregation: its one group changes whenever rows arrive.
            int64_t fresh = 0;
            for (const auto& [node, rows] : current) fresh += rows->num_rows();
            if (fresh == 0) {
              ARROW_ASSIGN_OR_RAISE(touched, analyzer.Limit(full, 0));
            }
          }
          replace[agg.node] = touched;
        }
        if (agg.append) {
          // Emit the groups this batch's watermark closes: key time in (previous, current].
          const auto& key = agg.node->output[agg.key_index];
          plan::ExprPtr key_time = plan::AttributeRef(key);
          if (agg.key_is_window) {
            key_time = plan::Call("get_field", {key_time, plan::Literal(std::make_shared<arrow::StringScalar>("end"))});
          }
          plan::ExprPtr closed = plan::Call("<=", {key_time, TimestampLiteral(ex.watermark_ms * 1000)});
          if (last_eviction) {
            closed = plan::Call("and", {plan::Call(">", {key_time, TimestampLiteral(*last_eviction * 1000)}), closed});
          }
          auto analyzer = session->analyzer();
          ARROW_ASSIGN_OR_RAISE(auto emitted, analyzer.Filter(FindShared(df_.plan(), agg.node), closed));
          replace[agg.node] = emitted;
        }
      }
      exec::ExecOptions exec_options;
      exec_options.eval = ctx;
      exec_options.max_batch_rows = exec::BatchSizeFromEnvironment();
      ARROW_ASSIGN_OR_RAISE(auto result, exec::Execute(Bind(df_.plan(), data, replace), exec_options));
      num_output_rows = result->num_rows();
      ARROW_ASSIGN_OR_RAISE(auto batch_df, session->FromArrow(result));
      ARROW_RETURN_NOT_OK(sink_->AddBatch(ex.next_batch, batch_df));
      ARROW_ASSIGN_OR_RAISE(bool committed,
                            ex.commits.Add(ex.next_batch, json({{"nextBatchWatermarkMs", next_watermark}}).dump()));
      (void)committed;  // an existing commit means this batch was already committed
      ex.history.emplace_back(end, ex.watermark_ms);
      ex.committed = end;
      ex.watermark_ms = next_watermark;
      // Aggregations recompute from every logged batch, so their logs are kept whole.
      if (!ex.aggregation && ex.next_batch > kMinBatchesToRetain) {
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
          {"eventTime", {{"watermark", IsoInstant(ex.history.back().second)}}},
          {"stateOperators", ex.aggregation
                                 ? json::array({{{"operatorName", "stateStoreSave"},
                                                 {"numRowsDroppedByWatermark", dropped_by_watermark}}})
                                 : json::array()},
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
