#include "ember/connect/streaming.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "ember/common/interval.h"
#include "ember/common/path_segment.h"
#include "ember/common/random.h"
#include "ember/connect.h"
#include "ember/connect/errors.h"
#include "ember/connect/translator.h"
#include "ember/error.h"
#include "ember/session.h"
#include "ember/user_function.h"
#include "ember/streaming.h"
#include "spark/connect/commands.pb.h"

namespace ember::connect {

namespace pb = spark::connect;
using arrow::Result;
using nlohmann::json;

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// The sinks that keep nothing a restart could resume from: without a checkpoint location they
// get a temporary one, deleted when the query stops (Spark's useTempCheckpointLocation).
bool IsOneTimeSink(const std::string& format) {
  return format == "memory" || format == "console" || format == "noop" ||
         format == "foreachbatch" || format == "foreach";
}

std::string Option(const std::map<std::string, std::string>& options, const std::string& key,
                   const std::string& fallback = "") {
  for (const auto& [k, v] : options) {
    if (Lower(k) == Lower(key)) return v;
  }
  return fallback;
}

// Spark's Object.toString of its console and noop sinks: the class, then an identity hash.
std::string JvmObject(const std::string& cls) {
  return "org.apache.spark.sql.execution." + cls + "@" + NewUuid().substr(0, 8);
}

// The foreach sink's description: Spark's ForeachWriterTable of a PythonForeachWriter and the
// lambda that converts its rows (a lambda class's name, then an identity hash).
std::string ForeachDescription() {
  std::string uuid = NewUuid();
  std::string address = uuid.substr(0, 8) + uuid.substr(9, 4) + uuid.substr(14, 4);
  return "ForeachWriterTable(" + JvmObject("python.streaming.PythonForeachWriter") + ",Right(" +
         JvmObject("streaming.sources.ForeachWriterTable$$$Lambda$1/0x" + address) + "))";
}

Result<std::shared_ptr<Sink>> ConsoleSink(const std::map<std::string, std::string>& options) {
  // Spark reads numRows with Java's Integer.parseInt: anything else is a NumberFormatException.
  std::string text = Option(options, "numRows", "20");
  int rows = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), rows);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    return UserError(ErrorKind::kNumberFormat, "", "For input string: \"" + text + "\"", "");
  }
  bool truncate = Lower(Option(options, "truncate", "true")) == "true";
  auto show = [rows, truncate](const DataFrame& batch, int64_t batch_id) -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto text, ShowString(batch, rows, truncate ? 20 : 0, false));
    std::cout << "-------------------------------------------\nBatch: " << batch_id
              << "\n-------------------------------------------\n"
              << text << "\n"  // show() is println(showString)
              << std::flush;
    return arrow::Status::OK();
  };
  return MakeForeachBatchSink(show, JvmObject("streaming.ConsoleTable$"));
}

Result<Trigger> TriggerOf(const pb::WriteStreamOperationStart& start) {
  using W = pb::WriteStreamOperationStart;
  Trigger trigger;
  switch (start.trigger_case()) {
    case W::kProcessingTimeInterval: {
      ARROW_ASSIGN_OR_RAISE(auto micros, ParseIntervalMicros(start.processing_time_interval()));
      trigger.kind = TriggerKind::kProcessingTime;
      trigger.interval_ms = micros / 1000;
      break;
    }
    case W::kAvailableNow: trigger.kind = TriggerKind::kAvailableNow; break;
    case W::kOnce: trigger.kind = TriggerKind::kOnce; break;
    case W::kContinuousCheckpointInterval:
      return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                       "The feature is not supported: continuous processing "
                       "(trigger(continuous=...)) on Ember.",
                       "0A000");
    case W::TRIGGER_NOT_SET: break;
  }
  return trigger;
}

// The query id a checkpoint keeps in its `metadata` file, or empty.
std::string CheckpointQueryId(const std::string& checkpoint) {
  std::ifstream in(std::filesystem::path(checkpoint) / "metadata");
  if (!in) return "";
  auto parsed = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object() || !parsed.contains("id") || !parsed["id"].is_string()) return "";
  return parsed["id"].get<std::string>();
}

void SetInstance(const StreamingQuery& q, pb::StreamingQueryInstanceId* out) {
  out->set_id(q.id());
  out->set_run_id(q.run_id());
}

}  // namespace

// The session's query events as Spark's listener events serialize them (the JSON its client
// parses with fromJson): kept for the client's listener bus while one is attached, and the
// started events until the start command answers with them.
class StreamingQueries::Events final : public StreamingQueryListener {
 public:
  void OnQueryStarted(const StreamingQueryEvent& e) override {
    std::lock_guard<std::mutex> lock(mutex_);
    started_[e.run_id] = json{{"id", e.id},
                              {"runId", e.run_id},
                              {"name", e.name.empty() ? json(nullptr) : json(e.name)},
                              {"timestamp", e.timestamp}}
                             .dump();
  }
  void OnQueryProgress(const StreamingQueryEvent& e) override {
    Push(pb::QUERY_PROGRESS_EVENT, "{\"progress\":" + e.progress + "}");
  }
  void OnQueryIdle(const StreamingQueryEvent& e) override {
    Push(pb::QUERY_IDLE_EVENT,
         json{{"id", e.id}, {"runId", e.run_id}, {"timestamp", e.timestamp}}.dump());
  }
  void OnQueryTerminated(const StreamingQueryEvent& e) override {
    Push(pb::QUERY_TERMINATED_EVENT,
         json{{"id", e.id},
              {"runId", e.run_id},
              {"exception", e.exception ? json(*e.exception) : json(nullptr)},
              {"errorClassOnException", e.error_class ? json(*e.error_class) : json(nullptr)}}
             .dump());
  }

  std::string TakeStarted(const std::string& run_id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = started_.find(run_id);
    if (it == started_.end()) return "";
    std::string event = std::move(it->second);
    started_.erase(it);
    return event;
  }

  /// A client's listener bus attaches: the later events are kept for it. Returns its number.
  uint64_t Attach() {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.clear();
    detached_ = false;
    changed_.notify_all();  // a client attached before is replaced
    return ++attached_;
  }
  /// Detaches client `number`, or whichever is attached (0).
  void Detach(uint64_t number = 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (number != 0 && number != attached_) return;
    ++attached_;
    detached_ = true;
    changed_.notify_all();
  }
  /// Waits for events for client `number`; false once it is detached or replaced.
  bool Next(uint64_t number, std::vector<std::pair<pb::StreamingQueryEventType, std::string>>* out) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !queue_.empty() || attached_ != number; });
    if (attached_ != number) return false;
    out->assign(queue_.begin(), queue_.end());
    queue_.clear();
    return true;
  }

 private:
  void Push(pb::StreamingQueryEventType type, std::string event) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (attached_ == 0 || detached_) return;
    queue_.emplace_back(type, std::move(event));
    changed_.notify_all();
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::string> started_;
  uint64_t attached_ = 0;  // the number of the client attached last
  bool detached_ = false;
  std::deque<std::pair<pb::StreamingQueryEventType, std::string>> queue_;
};

StreamingQueries::StreamingQueries(std::string session_id,
                                   std::shared_ptr<ConnectPythonRunner> python)
    : session_id_(std::move(session_id)),
      python_(std::move(python)),
      listeners_(std::make_shared<StreamingQueryListenerBus>()),
      events_(std::make_shared<Events>()) {
  listeners_->AddListener(events_);
}

arrow::Status StreamingQueries::StreamEvents(
    const std::function<bool(const pb::StreamingQueryListenerEventsResult&)>& send) {
  uint64_t number = events_->Attach();
  pb::StreamingQueryListenerEventsResult added;
  added.set_listener_bus_listener_added(true);
  if (!send(added)) return arrow::Status::Cancelled("the client went away");
  std::vector<std::pair<pb::StreamingQueryEventType, std::string>> events;
  while (events_->Next(number, &events)) {
    pb::StreamingQueryListenerEventsResult result;
    for (auto& [type, event] : events) {
      auto* e = result.add_events();
      e->set_event_type(type);
      e->set_event_json(std::move(event));
    }
    if (!send(result)) {
      events_->Detach(number);
      return arrow::Status::Cancelled("the client went away");
    }
  }
  return arrow::Status::OK();
}

void StreamingQueries::RemoveClientListener() { events_->Detach(); }

Result<DataFrame> StreamingQueries::CachedBatch(const std::string& relation_id) const {
  std::lock_guard<std::mutex> lock(batches_mutex_);
  auto it = batches_.find(relation_id);
  if (it == batches_.end()) {
    return UserError(ErrorKind::kRuntime, "INVALID_HANDLE.OPERATION_NOT_FOUND",
                     "The handle " + relation_id + " is invalid. Operation not found.", "HY000");
  }
  return it->second;
}

// As Spark's server does for its Python worker: the batch is cached under a fresh id for the
// function's calls back to this session, and let go when the function returns.
Result<std::shared_ptr<Sink>> StreamingQueries::PythonSink(const std::string& command,
                                                           bool foreach) {
  const char* api = foreach ? "foreach" : "foreachBatch";
  if (!python_) return Unsupported(std::string("writeStream.") + api + " outside a Python process");
  auto call = [this, command, foreach](const DataFrame& batch, int64_t batch_id) {
    std::string id = NewUuid();
    {
      std::lock_guard<std::mutex> lock(batches_mutex_);
      batches_.emplace(id, batch);
    }
    auto status = python_->ForeachBatch(command, foreach, session_id_, id, batch_id);
    std::lock_guard<std::mutex> lock(batches_mutex_);
    batches_.erase(id);
    return status;
  };
  return MakeForeachBatchSink(call, foreach ? ForeachDescription() : "ForeachBatchSink");
}

StreamingQueries::~StreamingQueries() {
  StopAll();
  listeners_->Close();
}

void StreamingQueries::StopAll() {
  std::vector<std::shared_ptr<Query>> queries;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    for (auto& [id, q] : queries_) queries.push_back(q);
  }
  for (auto& q : queries) q->query->Stop();  // unlocked: a foreachBatch function calls back
  events_->Detach();
}

Result<std::shared_ptr<StreamingQueries::Query>> StreamingQueries::Find(const std::string& id,
                                                                        const std::string& run_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = queries_.find(id);
  if (it == queries_.end() || (!run_id.empty() && it->second->query->run_id() != run_id)) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Streaming query " + id + " (runId " + run_id +
                         ") is not found in this session");
  }
  return it->second;
}

arrow::Status StreamingQueries::CheckNameFree(const std::string& name) {
  NoteEnded();
  if (name.empty()) return arrow::Status::OK();
  for (const auto& [id, q] : queries_) {
    if (q->query->IsActive() && q->query->name() == name) {
      return UserError(ErrorKind::kIllegalArgument, "",
                       "Cannot start query with name " + name +
                           " as a query with that name is already active in this SparkSession");
    }
  }
  return arrow::Status::OK();
}

void StreamingQueries::NoteEnded() {
  for (auto& [id, q] : queries_) {
    if (q->seen_ended || q->query->IsActive()) continue;
    q->seen_ended = true;
    auto failure = q->query->exception();
    if (!any_ended_ || !failure.ok()) {
      any_ended_ = true;
      ended_failure_ = failure;
    }
  }
}

arrow::Status StreamingQueries::Start(const Translator& t,
                                      const pb::WriteStreamOperationStart& start,
                                      pb::WriteStreamOperationStartResult* out) {
  const auto& session = t.session();
  ARROW_ASSIGN_OR_RAISE(auto df, t.Relation(start.input()));
  if (!df.is_streaming()) {
    return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_3102",
                     "'writeStream' can be called only on streaming Dataset/DataFrame");
  }
  StreamingQueryOptions options;
  options.name = start.query_name();
  options.output_mode = start.output_mode().empty() ? "append" : Lower(start.output_mode());
  if (options.output_mode != "append" && options.output_mode != "complete" &&
      options.output_mode != "update") {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Unknown output mode " + start.output_mode() +
                         ". Accepted output modes are 'append', 'complete', 'update'");
  }
  ARROW_ASSIGN_OR_RAISE(options.trigger, TriggerOf(start));
  options.listeners = listeners_;
  std::map<std::string, std::string> sink_options;
  for (const auto& [key, value] : start.options()) sink_options[key] = value;

  std::string format = start.has_table_name() ? "table"
                       : start.has_foreach_batch() ? "foreachbatch"
                       : start.has_foreach_writer() ? "foreach"
                       : Lower(start.format().empty()
                                   ? session->GetConf("spark.sql.sources.default", "parquet")
                                   : start.format());

  // The checkpoint: the option, else under the session's checkpoint root, else a temporary one
  // for the sinks that need none.
  options.checkpoint_location = Option(sink_options, "checkpointLocation");
  if (options.checkpoint_location.empty()) {
    if (auto root = session->GetConf("spark.sql.streaming.checkpointLocation")) {
      ARROW_ASSIGN_OR_RAISE(options.checkpoint_location,
                            QueryCheckpointLocation(*root, options.name.empty() ? NewUuid()
                                                                                : options.name));
    } else if (IsOneTimeSink(format)) {
      options.checkpoint_location =
          (std::filesystem::temp_directory_path() / ("temporary-" + NewUuid())).string();
      options.delete_checkpoint_on_stop = true;
    } else {
      return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1298",
                       "checkpointLocation must be specified either through "
                       "option(\"checkpointLocation\", ...) or "
                       "SparkSession.conf.set(\"spark.sql.streaming.checkpointLocation\", ...).");
    }
  }

  std::vector<std::string> partition_by(start.partitioning_column_names().begin(),
                                        start.partitioning_column_names().end());
  std::shared_ptr<Sink> sink;
  if (format == "table") {
    ARROW_ASSIGN_OR_RAISE(sink, MakeTableSink(session, start.table_name(), options.output_mode,
                                              *df.schema(), Lower(start.format()), partition_by));
  } else if (format == "memory") {
    if (options.name.empty()) {
      return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1217",
                       "queryName must be specified for memory sink");
    }
    sink = MakeMemorySink(session, options.name, options.output_mode);
  } else if (format == "console") {
    ARROW_ASSIGN_OR_RAISE(sink, ConsoleSink(sink_options));
  } else if (format == "noop") {
    sink = MakeForeachBatchSink([](const DataFrame&, int64_t) { return arrow::Status::OK(); },
                                JvmObject("datasources.noop.NoopTable$"));
  } else if (format == "parquet" || format == "json" || format == "csv") {
    std::string path = start.has_path() ? start.path() : Option(sink_options, "path");
    if (path.empty()) {
      return UserError(ErrorKind::kIllegalArgument, "", "'path' is not specified");
    }
    std::optional<std::string> retention;
    if (auto r = Option(sink_options, "retention"); !r.empty()) retention = r;
    ARROW_ASSIGN_OR_RAISE(sink, MakeFileSink(session, format, path, std::move(partition_by),
                                             std::move(retention)));
  } else if (format == "foreachbatch") {
    ARROW_ASSIGN_OR_RAISE(sink, PythonSink(start.foreach_batch().python_function().command(), false));
  } else if (format == "foreach") {
    ARROW_ASSIGN_OR_RAISE(sink, PythonSink(start.foreach_writer().python_function().command(), true));
  } else if (auto source = session->FindDataSource(format)) {  // a Python data source
    // Complete mode replaces what the sink holds: the writer's overwrite.
    bool overwrite = options.output_mode == "complete";
    if (start.has_path()) sink_options["path"] = start.path();  // start(path), as in Spark
    sink = MakeForeachBatchSink(
        [source, sink_options, overwrite](const DataFrame& batch, int64_t batch_id) -> arrow::Status {
          ARROW_ASSIGN_OR_RAISE(auto rows, batch.ToTable());
          return source->write(rows, sink_options, overwrite, batch_id);
        },
        "PythonStreamingSink");
  } else {
    return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                     "The feature is not supported: the streaming sink '" + format +
                         "' on Ember.",
                     "0A000");
  }

  // A restart on the checkpoint of an active query: Spark stops the active run first
  // (spark.sql.streaming.stopActiveRunOnRestart, true by default), or refuses.
  std::shared_ptr<Query> restarted;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ARROW_RETURN_NOT_OK(CheckNameFree(options.name));
    if (auto id = CheckpointQueryId(options.checkpoint_location); !id.empty()) {
      if (auto it = queries_.find(id); it != queries_.end() && it->second->query->IsActive()) {
        if (Lower(session->GetConf("spark.sql.streaming.stopActiveRunOnRestart", "true")) ==
            "false") {
          return UserError(ErrorKind::kIllegalState, "",
                           "Cannot start query with id " + id +
                               " as another query with same id is already active. Perhaps you "
                               "are attempting to restart a query from checkpoint that is "
                               "already active. You may stop the old query by setting the SQL "
                               "configuration: spark.conf.set(\"spark.sql.streaming."
                               "stopActiveRunOnRestart\", true) and retry.");
        }
        restarted = it->second;
      }
    }
  }
  // Stopped unlocked, as in StopAll: the old run's foreachBatch function may be calling back.
  if (restarted) restarted->query->Stop();
  std::lock_guard<std::mutex> lock(mutex_);
  ARROW_RETURN_NOT_OK(CheckNameFree(options.name));  // another start may have taken it meanwhile
  std::string mode = options.output_mode;
  ARROW_ASSIGN_OR_RAISE(auto query, StreamingQuery::Start(df, std::move(options), std::move(sink)));
  auto& entry = queries_[query->id()];
  entry = std::make_shared<Query>(Query{query, df, mode});
  SetInstance(*query, out->mutable_query_id());
  out->set_name(query->name());
  // The client hands it to its own listeners (onQueryStarted runs before start() returns).
  if (auto started = events_->TakeStarted(query->run_id()); !started.empty()) {
    out->set_query_started_event_json(std::move(started));
  }
  return arrow::Status::OK();
}

arrow::Status StreamingQueries::QueryCommand(const pb::StreamingQueryCommand& command,
                                             pb::StreamingQueryCommandResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto entry, Find(command.query_id().id(), command.query_id().run_id()));
  auto& q = *entry->query;
  SetInstance(q, out->mutable_query_id());
  using C = pb::StreamingQueryCommand;
  switch (command.command_case()) {
    case C::kStatus: {
      auto status = json::parse(q.Status());
      auto* result = out->mutable_status();
      result->set_status_message(status["message"].get<std::string>());
      result->set_is_data_available(status["isDataAvailable"].get<bool>());
      result->set_is_trigger_active(status["isTriggerActive"].get<bool>());
      result->set_is_active(q.IsActive());
      return arrow::Status::OK();
    }
    case C::kLastProgress: {
      auto* result = out->mutable_recent_progress();
      if (auto last = q.LastProgress(); !last.empty()) result->add_recent_progress_json(last);
      return arrow::Status::OK();
    }
    case C::kRecentProgress: {
      auto* result = out->mutable_recent_progress();
      for (auto& p : q.RecentProgress()) result->add_recent_progress_json(std::move(p));
      return arrow::Status::OK();
    }
    case C::kStop:
      q.Stop();
      return arrow::Status::OK();
    case C::kProcessAllAvailable:
      return q.ProcessAllAvailable();
    case C::kExplain: {
      // Spark explains the last batch's plan; before the first batch there is none.
      bool ran = false;
      for (const auto& p : q.RecentProgress()) {
        auto progress = json::parse(p, nullptr, false);
        if (progress.is_object() && progress.contains("durationMs") &&
            progress["durationMs"].contains("addBatch")) {
          ran = true;
        }
      }
      out->mutable_explain()->set_result(
          ran ? "== Physical Plan ==\n" + ExplainStream(entry->df, entry->output_mode, true)
              : "No physical plan. Waiting for data.");
      return arrow::Status::OK();
    }
    case C::kException: {
      auto* result = out->mutable_exception();
      auto failure = q.exception();
      if (!failure.ok()) {
        // The client drops the text up to the first ": " (the Java class of toString()).
        result->set_exception_message("org.apache.spark.sql.streaming.StreamingQueryException: " +
                                      failure.message());
        if (const ErrorDetail* detail = GetErrorDetail(failure)) {
          result->set_error_class(detail->condition());
        }
      }
      return arrow::Status::OK();
    }
    case C::kAwaitTermination: {
      std::optional<double> timeout;
      if (command.await_termination().has_timeout_ms()) {
        timeout = static_cast<double>(command.await_termination().timeout_ms()) / 1000.0;
      }
      ARROW_ASSIGN_OR_RAISE(bool ended, q.AwaitTermination(timeout));
      out->mutable_await_termination()->set_terminated(ended);
      return arrow::Status::OK();
    }
    case C::COMMAND_NOT_SET: break;
  }
  return Unsupported("streaming query command of no kind");
}

arrow::Status StreamingQueries::ManagerCommand(const pb::StreamingQueryManagerCommand& command,
                                               pb::StreamingQueryManagerCommandResult* out) {
  using C = pb::StreamingQueryManagerCommand;
  auto add = [](const StreamingQuery& q,
                pb::StreamingQueryManagerCommandResult::StreamingQueryInstance* instance) {
    SetInstance(q, instance->mutable_id());
    if (!q.name().empty()) instance->set_name(q.name());
  };
  switch (command.command_case()) {
    case C::kActive: {
      std::lock_guard<std::mutex> lock(mutex_);
      auto* result = out->mutable_active();
      for (const auto& [id, q] : queries_) {
        if (q->query->IsActive()) add(*q->query, result->add_active_queries());
      }
      return arrow::Status::OK();
    }
    case C::kGetQuery: {
      std::lock_guard<std::mutex> lock(mutex_);
      // Spark's get() finds active queries only.
      if (auto it = queries_.find(command.get_query());
          it != queries_.end() && it->second->query->IsActive()) {
        add(*it->second->query, out->mutable_query());
      }
      return arrow::Status::OK();
    }
    case C::kAwaitAnyTermination: {
      std::optional<std::chrono::steady_clock::time_point> deadline;
      if (command.await_any_termination().has_timeout_ms()) {
        deadline = std::chrono::steady_clock::now() +
                   std::chrono::milliseconds(command.await_any_termination().timeout_ms());
      }
      // Polls: queries end on their own threads, and one wait covers all of them.
      while (true) {
        {
          std::lock_guard<std::mutex> lock(mutex_);
          NoteEnded();
          if (any_ended_) {
            ARROW_RETURN_NOT_OK(ended_failure_);
            out->mutable_await_any_termination()->set_terminated(true);
            return arrow::Status::OK();
          }
          if (closed_) {  // the session was released: no query of it can end any more
            return UserError(ErrorKind::kIllegalState, "",
                             "The session was released while awaiting its queries' termination");
          }
        }
        if (deadline && std::chrono::steady_clock::now() >= *deadline) {
          out->mutable_await_any_termination()->set_terminated(false);
          return arrow::Status::OK();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    case C::kResetTerminated: {
      std::lock_guard<std::mutex> lock(mutex_);
      NoteEnded();
      any_ended_ = false;
      ended_failure_ = arrow::Status::OK();
      out->set_reset_terminated(true);
      return arrow::Status::OK();
    }
    case C::kListListeners:
      out->mutable_list_listeners();  // server-side listeners: none can be added from Python
      return arrow::Status::OK();
    case C::kAddListener:
    case C::kRemoveListener:
      return Unsupported("server-side streaming query listeners (Scala)");
    case C::COMMAND_NOT_SET: break;
  }
  return Unsupported("streaming query manager command of no kind");
}

}  // namespace ember::connect
