// Structured Streaming over Spark Connect: a session's streaming queries (Spark's per-session
// StreamingQueryManager) and the commands that start, inspect and stop them
// (WriteStreamOperationStart, StreamingQueryCommand, StreamingQueryManagerCommand).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <arrow/result.h>
#include <arrow/status.h>

#include "ember/dataframe.h"

namespace spark::connect {
class StreamingQueryListenerEventsResult;
class StreamingQueryCommand;
class StreamingQueryCommandResult;
class StreamingQueryManagerCommand;
class StreamingQueryManagerCommandResult;
class WriteStreamOperationStart;
class WriteStreamOperationStartResult;
}  // namespace spark::connect

namespace ember {
class ConnectPythonRunner;
class Session;
class Sink;
class StreamingQuery;
class StreamingQueryListenerBus;
}  // namespace ember

namespace ember::connect {

class Translator;

class StreamingQueries {
 public:
  /// `python` runs the clients' foreachBatch and foreach functions; none: they are refused.
  StreamingQueries(std::string session_id, std::shared_ptr<ConnectPythonRunner> python);
  /// Stops the session's active queries (a released session's queries end, as in Spark).
  ~StreamingQueries();
  /// Stops the queries and ends the client's event stream: the session is released, and the
  /// calls still waiting on it (awaitTermination, the listener bus) end.
  void StopAll();
  StreamingQueries(const StreamingQueries&) = delete;
  StreamingQueries& operator=(const StreamingQueries&) = delete;

  arrow::Status Start(const Translator& t, const spark::connect::WriteStreamOperationStart& start,
                      spark::connect::WriteStreamOperationStartResult* out);
  arrow::Status QueryCommand(const spark::connect::StreamingQueryCommand& command,
                             spark::connect::StreamingQueryCommandResult* out);
  arrow::Status ManagerCommand(const spark::connect::StreamingQueryManagerCommand& command,
                               spark::connect::StreamingQueryManagerCommandResult* out);
  /// The client's listener bus (StreamingQueryListenerBusCommand add_listener_bus_listener):
  /// sends the confirmation, then the session's query events, each through `send`, until the
  /// client removes it (RemoveClientListener) or `send` fails (the client went away). One per
  /// session: a second one replaces the first.
  arrow::Status StreamEvents(
      const std::function<bool(const spark::connect::StreamingQueryListenerEventsResult&)>& send);
  void RemoveClientListener();

  /// A micro-batch handed to a foreachBatch function, by the id its client names it with
  /// (a cached_remote_relation); Spark's INVALID_HANDLE when there is none.
  arrow::Result<DataFrame> CachedBatch(const std::string& relation_id) const;

 private:
  struct Query {
    std::shared_ptr<StreamingQuery> query;
    DataFrame df;             // for explain()
    std::string output_mode;  // for explain()
    bool seen_ended = false;  // counted by awaitAnyTermination's bookkeeping
  };
  /// The foreachBatch (or foreach) sink that calls the client's pickled function `command`.
  arrow::Result<std::shared_ptr<Sink>> PythonSink(const std::string& command, bool foreach);
  arrow::Result<std::shared_ptr<Query>> Find(const std::string& id, const std::string& run_id);
  /// Notes the queries that ended since the last look (under mutex_): Spark's
  /// lastTerminatedQuery, where a failure sticks over a later clean end.
  void NoteEnded();
  /// Spark's error when an active query of this session has the name (under mutex_).
  arrow::Status CheckNameFree(const std::string& name);

  const std::string session_id_;
  const std::shared_ptr<ConnectPythonRunner> python_;
  mutable std::mutex batches_mutex_;
  std::map<std::string, DataFrame> batches_;  // being handed to foreachBatch functions
  std::mutex mutex_;
  // Every run started in this session, by query id (the latest run of an id): a client may still
  // ask an ended query for its progress or exception.
  std::map<std::string, std::shared_ptr<Query>> queries_;
  bool any_ended_ = false;
  bool closed_ = false;  // StopAll ran: the session is being released
  arrow::Status ended_failure_;
  std::shared_ptr<StreamingQueryListenerBus> listeners_;

  // The events for the client's listener bus, as Spark's JSON; the started events by run id,
  // for the start command's answer.
  class Events;
  std::shared_ptr<Events> events_;
};

}  // namespace ember::connect
