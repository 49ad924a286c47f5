// The sessions of a Connect server. A client names its session by a session id of its choosing;
// the server gives each one its own ember::Session (configuration, temporary views) and a
// server-side id that every response carries, so the client notices a server that lost its
// session (a restart) instead of running on a fresh one unknowingly.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <arrow/result.h>

#include "ember/connect/streaming.h"
#include "spark/connect/base.pb.h"

namespace ember {
class ConnectPythonRunner;
class Session;
}

namespace ember::connect {

class ConnectSession {
 public:
  ConnectSession(std::string session_id, std::shared_ptr<Session> session,
                 std::shared_ptr<ConnectPythonRunner> python);

  const std::string& session_id() const { return session_id_; }
  const std::string& server_side_session_id() const { return server_side_session_id_; }
  const std::shared_ptr<Session>& session() const { return session_; }
  /// The session's streaming queries (spark.streams).
  StreamingQueries& streams() const { return *streams_; }
  /// Where the clients' Python functions run; none outside a Python process.
  const std::shared_ptr<ConnectPythonRunner>& python() const { return python_; }

  /// Keeps a finished reattachable operation's responses until the client releases them, for
  /// ReattachExecute after a broken stream.
  void KeepResponses(const std::string& operation_id,
                     std::vector<spark::connect::ExecutePlanResponse> responses);
  /// The kept responses after `last_response_id` (all of them when it is empty); an
  /// INVALID_HANDLE.OPERATION_NOT_FOUND error for an operation that is not kept.
  arrow::Result<std::vector<spark::connect::ExecutePlanResponse>> ResponsesAfter(
      const std::string& operation_id, const std::string& last_response_id) const;
  /// ReleaseExecute: drops the responses up to and including `response_id`, or all of them
  /// (and the operation) when it is empty.
  void Release(const std::string& operation_id, const std::string& response_id);

 private:
  const std::string session_id_;
  const std::string server_side_session_id_;
  const std::shared_ptr<Session> session_;
  const std::shared_ptr<ConnectPythonRunner> python_;
  const std::unique_ptr<StreamingQueries> streams_;
  mutable std::mutex mutex_;
  std::map<std::string, std::vector<spark::connect::ExecutePlanResponse>> operations_;
};

class SessionRegistry {
 public:
  explicit SessionRegistry(std::shared_ptr<ConnectPythonRunner> python)
      : python_(std::move(python)) {}
  /// The session of `session_id`, made on first use. A client that saw another server-side id
  /// for it (`observed`, if not empty) gets INVALID_HANDLE.SESSION_CHANGED.
  arrow::Result<std::shared_ptr<ConnectSession>> Get(const std::string& session_id,
                                                     const std::string& observed);
  /// ReleaseSession: forgets the session; a later request with its id starts a new one.
  void Release(const std::string& session_id);
  /// Forgets every session, stopping their queries (the server shuts down).
  void ReleaseAll();

 private:
  const std::shared_ptr<ConnectPythonRunner> python_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<ConnectSession>> sessions_;
};

}  // namespace ember::connect
