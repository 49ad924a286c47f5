#include "ember/connect/sessions.h"

#include <algorithm>

#include "ember/common/random.h"
#include "ember/error.h"
#include "ember/session.h"

namespace ember::connect {

ConnectSession::ConnectSession(std::string session_id, std::shared_ptr<Session> session,
                               std::shared_ptr<ConnectPythonRunner> python)
    : session_id_(std::move(session_id)),
      server_side_session_id_(NewUuid()),
      session_(std::move(session)),
      python_(python),
      streams_(std::make_unique<StreamingQueries>(session_id_, std::move(python))) {}

void ConnectSession::KeepResponses(const std::string& operation_id,
                                   std::vector<spark::connect::ExecutePlanResponse> responses) {
  std::lock_guard<std::mutex> lock(mutex_);
  operations_[operation_id] = std::move(responses);
}

arrow::Result<std::vector<spark::connect::ExecutePlanResponse>> ConnectSession::ResponsesAfter(
    const std::string& operation_id, const std::string& last_response_id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = operations_.find(operation_id);
  if (it == operations_.end()) {
    return UserError(ErrorKind::kRuntime, "INVALID_HANDLE.OPERATION_NOT_FOUND",
                     "The handle " + operation_id +
                         " is invalid. Operation not found.",
                     "HY000");
  }
  const auto& responses = it->second;
  auto from = responses.begin();
  if (!last_response_id.empty()) {
    auto last = std::find_if(responses.begin(), responses.end(), [&](const auto& r) {
      return r.response_id() == last_response_id;
    });
    if (last != responses.end()) from = last + 1;
  }
  return std::vector<spark::connect::ExecutePlanResponse>(from, responses.end());
}

void ConnectSession::Release(const std::string& operation_id, const std::string& response_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = operations_.find(operation_id);
  if (it == operations_.end()) return;
  if (response_id.empty()) {
    operations_.erase(it);
    return;
  }
  auto& responses = it->second;
  auto last = std::find_if(responses.begin(), responses.end(),
                           [&](const auto& r) { return r.response_id() == response_id; });
  if (last != responses.end()) responses.erase(responses.begin(), last + 1);
}

arrow::Result<std::shared_ptr<ConnectSession>> SessionRegistry::Get(const std::string& session_id,
                                                                    const std::string& observed) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& entry = sessions_[session_id];
  if (!entry) entry = std::make_shared<ConnectSession>(session_id, Session::Make(), python_);
  if (!observed.empty() && observed != entry->server_side_session_id()) {
    return UserError(ErrorKind::kRuntime, "INVALID_HANDLE.SESSION_CHANGED",
                     "The handle " + session_id +
                         " is invalid. The existing Spark server driver instance has restarted. "
                         "Please reconnect.",
                     "HY000");
  }
  return entry;
}

// A session's queries stop before it leaves the registry: a foreachBatch function running during
// the stop calls the server back with the session's id, and must find the session, not a new
// empty one. Stopped unlocked: stopping waits for the batches that call back.
void SessionRegistry::Release(const std::string& session_id) {
  std::shared_ptr<ConnectSession> released;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = sessions_.find(session_id);
    if (it == sessions_.end()) return;
    released = it->second;
  }
  released->streams().StopAll();
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = sessions_.find(session_id); it != sessions_.end() && it->second == released) {
    sessions_.erase(it);
  }
}

void SessionRegistry::ReleaseAll() {
  std::vector<std::string> ids;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [id, session] : sessions_) ids.push_back(id);
  }
  for (const auto& id : ids) Release(id);
}

}  // namespace ember::connect
