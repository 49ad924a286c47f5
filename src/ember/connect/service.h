// Spark Connect's SparkConnectService, the engine's side: each call arrives from the transport
// (transport.h) as a method name and a serialized request, finds its session and goes to the
// part of connect/ that serves it. Results are complete before the first response is written
// (ExecutePlan buffers them), so a reattach replays them.
#pragma once

#include "ember/connect/sessions.h"
#include "ember/connect/transport.h"

namespace ember::connect {

class Service final : public CallHandler {
 public:
  explicit Service(std::shared_ptr<ConnectPythonRunner> python) : sessions_(std::move(python)) {}
  /// Ends every session and its streaming queries.
  void ReleaseSessions() { sessions_.ReleaseAll(); }

  CallStatus Handle(const std::string& method, const std::string& request,
                    const std::function<bool(const std::string&)>& write) override;

 private:
  using Write = std::function<bool(const std::string&)>;

  arrow::Status ExecutePlan(const spark::connect::ExecutePlanRequest& request, const Write& write);
  arrow::Status ReattachExecute(const spark::connect::ReattachExecuteRequest& request,
                                const Write& write);
  arrow::Status AnalyzePlan(const spark::connect::AnalyzePlanRequest& request,
                            spark::connect::AnalyzePlanResponse* response);
  arrow::Status Config(const spark::connect::ConfigRequest& request,
                       spark::connect::ConfigResponse* response);
  arrow::Status Interrupt(const spark::connect::InterruptRequest& request,
                          spark::connect::InterruptResponse* response);
  arrow::Status ReleaseExecute(const spark::connect::ReleaseExecuteRequest& request,
                               spark::connect::ReleaseExecuteResponse* response);
  arrow::Status ReleaseSession(const spark::connect::ReleaseSessionRequest& request,
                               spark::connect::ReleaseSessionResponse* response);
  arrow::Status FetchErrorDetails(const spark::connect::FetchErrorDetailsRequest& request,
                                  spark::connect::FetchErrorDetailsResponse* response);

  SessionRegistry sessions_;
};

}  // namespace ember::connect
