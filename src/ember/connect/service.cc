#include "ember/connect/service.h"

#include <exception>

#include "ember/common/random.h"
#include "ember/connect/analyze.h"
#include "ember/connect/config.h"
#include "ember/connect/errors.h"
#include "ember/connect/execute.h"

namespace ember::connect {

namespace pb = spark::connect;

namespace {

constexpr int kInvalidArgument = 3;  // grpc::StatusCode
constexpr int kUnimplemented = 12;

bool Reattachable(const pb::ExecutePlanRequest& request) {
  for (const auto& option : request.request_options()) {
    if (option.has_reattach_options() && option.reattach_options().reattachable()) return true;
  }
  return false;
}

arrow::Status WriteAll(const std::vector<pb::ExecutePlanResponse>& responses,
                       const std::function<bool(const std::string&)>& write) {
  for (const auto& response : responses) {
    if (!write(response.SerializeAsString())) return arrow::Status::Cancelled("the client went away");
  }
  return arrow::Status::OK();
}

// A unary method: parse the request, fill the response, write it.
template <typename Request, typename Response>
CallStatus Unary(const std::string& bytes, const std::function<bool(const std::string&)>& write,
                 const std::function<arrow::Status(const Request&, Response*)>& serve) {
  Request request;
  if (!request.ParseFromString(bytes)) return {kInvalidArgument, "a malformed request", ""};
  Response response;
  arrow::Status status = serve(request, &response);
  if (status.ok() && !write(response.SerializeAsString())) {
    status = arrow::Status::Cancelled("the client went away");
  }
  return ToCallStatus(status);
}

template <typename Request>
CallStatus Streaming(const std::string& bytes,
                     const std::function<arrow::Status(const Request&)>& serve) {
  Request request;
  if (!request.ParseFromString(bytes)) return {kInvalidArgument, "a malformed request", ""};
  return ToCallStatus(serve(request));
}

}  // namespace

CallStatus Service::Handle(const std::string& method, const std::string& request,
                           const Write& write) {
  static const std::string kPrefix = "/spark.connect.SparkConnectService/";
  if (method.compare(0, kPrefix.size(), kPrefix) != 0) {
    return {kUnimplemented, "Unknown service of method " + method, ""};
  }
  const std::string name = method.substr(kPrefix.size());
  // A C++ exception (a malformed schema JSON, say) becomes an internal error instead of ending
  // the server.
  try {
    if (name == "ExecutePlan") {
      return Streaming<pb::ExecutePlanRequest>(
          request, [&](const auto& r) { return ExecutePlan(r, write); });
    }
    if (name == "ReattachExecute") {
      return Streaming<pb::ReattachExecuteRequest>(
          request, [&](const auto& r) { return ReattachExecute(r, write); });
    }
    if (name == "AnalyzePlan") {
      return Unary<pb::AnalyzePlanRequest, pb::AnalyzePlanResponse>(
          request, write, [&](const auto& r, auto* out) { return AnalyzePlan(r, out); });
    }
    if (name == "Config") {
      return Unary<pb::ConfigRequest, pb::ConfigResponse>(
          request, write, [&](const auto& r, auto* out) { return Config(r, out); });
    }
    if (name == "Interrupt") {
      return Unary<pb::InterruptRequest, pb::InterruptResponse>(
          request, write, [&](const auto& r, auto* out) { return Interrupt(r, out); });
    }
    if (name == "ReleaseExecute") {
      return Unary<pb::ReleaseExecuteRequest, pb::ReleaseExecuteResponse>(
          request, write, [&](const auto& r, auto* out) { return ReleaseExecute(r, out); });
    }
    if (name == "ReleaseSession") {
      return Unary<pb::ReleaseSessionRequest, pb::ReleaseSessionResponse>(
          request, write, [&](const auto& r, auto* out) { return ReleaseSession(r, out); });
    }
    if (name == "FetchErrorDetails") {
      return Unary<pb::FetchErrorDetailsRequest, pb::FetchErrorDetailsResponse>(
          request, write, [&](const auto& r, auto* out) { return FetchErrorDetails(r, out); });
    }
  } catch (const std::exception& e) {
    return ToCallStatus(arrow::Status::UnknownError(e.what()));
  }
  return {kUnimplemented, "Method " + name + " is not served by Ember", ""};
}

arrow::Status Service::ExecutePlan(const pb::ExecutePlanRequest& request, const Write& write) {
  ARROW_ASSIGN_OR_RAISE(auto session, sessions_.Get(request.session_id(),
                                                    request.client_observed_server_side_session_id()));
  std::string operation_id = request.has_operation_id() ? request.operation_id() : NewUuid();
  if (IsEventStream(request)) {
    return StreamEvents(*session, operation_id, [&](const pb::ExecutePlanResponse& r) {
      return write(r.SerializeAsString());
    });
  }
  ARROW_ASSIGN_OR_RAISE(auto responses, Execute(*session, request, operation_id));
  if (Reattachable(request)) session->KeepResponses(operation_id, responses);
  return WriteAll(responses, write);
}

arrow::Status Service::ReattachExecute(const pb::ReattachExecuteRequest& request,
                                       const Write& write) {
  ARROW_ASSIGN_OR_RAISE(auto session, sessions_.Get(request.session_id(),
                                                    request.client_observed_server_side_session_id()));
  ARROW_ASSIGN_OR_RAISE(auto responses,
                        session->ResponsesAfter(request.operation_id(),
                                                request.has_last_response_id()
                                                    ? request.last_response_id()
                                                    : std::string()));
  return WriteAll(responses, write);
}

arrow::Status Service::AnalyzePlan(const pb::AnalyzePlanRequest& request,
                                   pb::AnalyzePlanResponse* response) {
  ARROW_ASSIGN_OR_RAISE(auto session, sessions_.Get(request.session_id(),
                                                    request.client_observed_server_side_session_id()));
  response->set_session_id(session->session_id());
  response->set_server_side_session_id(session->server_side_session_id());
  return Analyze(*session, request, response);
}

arrow::Status Service::Config(const pb::ConfigRequest& request, pb::ConfigResponse* response) {
  ARROW_ASSIGN_OR_RAISE(auto session, sessions_.Get(request.session_id(),
                                                    request.client_observed_server_side_session_id()));
  response->set_session_id(session->session_id());
  response->set_server_side_session_id(session->server_side_session_id());
  return RunConfig(*session->session(), request, response);
}

arrow::Status Service::Interrupt(const pb::InterruptRequest& request,
                                 pb::InterruptResponse* response) {
  // Operations run to completion inside ExecutePlan, so none is running to interrupt.
  ARROW_ASSIGN_OR_RAISE(auto session, sessions_.Get(request.session_id(),
                                                    request.client_observed_server_side_session_id()));
  response->set_session_id(session->session_id());
  response->set_server_side_session_id(session->server_side_session_id());
  return arrow::Status::OK();
}

arrow::Status Service::ReleaseExecute(const pb::ReleaseExecuteRequest& request,
                                      pb::ReleaseExecuteResponse* response) {
  ARROW_ASSIGN_OR_RAISE(auto session, sessions_.Get(request.session_id(),
                                                    request.client_observed_server_side_session_id()));
  session->Release(request.operation_id(), request.has_release_until()
                                               ? request.release_until().response_id()
                                               : std::string());
  response->set_session_id(session->session_id());
  response->set_server_side_session_id(session->server_side_session_id());
  response->set_operation_id(request.operation_id());
  return arrow::Status::OK();
}

arrow::Status Service::ReleaseSession(const pb::ReleaseSessionRequest& request,
                                      pb::ReleaseSessionResponse* response) {
  sessions_.Release(request.session_id());
  response->set_session_id(request.session_id());
  return arrow::Status::OK();
}

arrow::Status Service::FetchErrorDetails(const pb::FetchErrorDetailsRequest& request,
                                         pb::FetchErrorDetailsResponse* response) {
  // Errors go out whole in their ErrorInfo (without an errorId), so there is nothing more to
  // fetch: an empty answer tells the client to use the ErrorInfo.
  ARROW_ASSIGN_OR_RAISE(auto session, sessions_.Get(request.session_id(),
                                                    request.client_observed_server_side_session_id()));
  response->set_session_id(session->session_id());
  response->set_server_side_session_id(session->server_side_session_id());
  return arrow::Status::OK();
}

}  // namespace ember::connect
