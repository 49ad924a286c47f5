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

// Runs a handler; a C++ exception (a malformed schema JSON, say) becomes an internal error
// instead of ending the server.
template <typename Handler>
grpc::Status Guarded(Handler&& handler) {
  try {
    return ToGrpcStatus(handler());
  } catch (const std::exception& e) {
    return ToGrpcStatus(arrow::Status::UnknownError(e.what()));
  }
}

bool Reattachable(const pb::ExecutePlanRequest& request) {
  for (const auto& option : request.request_options()) {
    if (option.has_reattach_options() && option.reattach_options().reattachable()) return true;
  }
  return false;
}

arrow::Status Write(const std::vector<pb::ExecutePlanResponse>& responses,
                    grpc::ServerWriter<pb::ExecutePlanResponse>* writer) {
  for (const auto& response : responses) {
    if (!writer->Write(response)) return arrow::Status::Cancelled("the client went away");
  }
  return arrow::Status::OK();
}

}  // namespace

grpc::Status Service::ExecutePlan(grpc::ServerContext*, const pb::ExecutePlanRequest* request,
                                  grpc::ServerWriter<pb::ExecutePlanResponse>* writer) {
  return Guarded([&]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto session, sessions_.Get(request->session_id(),
                                                      request->client_observed_server_side_session_id()));
    std::string operation_id = request->has_operation_id() ? request->operation_id() : NewUuid();
    ARROW_ASSIGN_OR_RAISE(auto responses, Execute(*session, *request, operation_id));
    if (Reattachable(*request)) session->KeepResponses(operation_id, responses);
    return Write(responses, writer);
  });
}

grpc::Status Service::AnalyzePlan(grpc::ServerContext*, const pb::AnalyzePlanRequest* request,
                                  pb::AnalyzePlanResponse* response) {
  return Guarded([&]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto session, sessions_.Get(request->session_id(),
                                                      request->client_observed_server_side_session_id()));
    response->set_session_id(session->session_id());
    response->set_server_side_session_id(session->server_side_session_id());
    return Analyze(session->session(), *request, response);
  });
}

grpc::Status Service::Config(grpc::ServerContext*, const pb::ConfigRequest* request,
                             pb::ConfigResponse* response) {
  return Guarded([&]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto session, sessions_.Get(request->session_id(),
                                                      request->client_observed_server_side_session_id()));
    response->set_session_id(session->session_id());
    response->set_server_side_session_id(session->server_side_session_id());
    return RunConfig(*session->session(), *request, response);
  });
}

grpc::Status Service::Interrupt(grpc::ServerContext*, const pb::InterruptRequest* request,
                                pb::InterruptResponse* response) {
  // Operations run to completion inside ExecutePlan, so none is running to interrupt.
  return Guarded([&]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto session, sessions_.Get(request->session_id(),
                                                      request->client_observed_server_side_session_id()));
    response->set_session_id(session->session_id());
    response->set_server_side_session_id(session->server_side_session_id());
    return arrow::Status::OK();
  });
}

grpc::Status Service::ReattachExecute(grpc::ServerContext*, const pb::ReattachExecuteRequest* request,
                                      grpc::ServerWriter<pb::ExecutePlanResponse>* writer) {
  return Guarded([&]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto session, sessions_.Get(request->session_id(),
                                                      request->client_observed_server_side_session_id()));
    ARROW_ASSIGN_OR_RAISE(auto responses,
                          session->ResponsesAfter(request->operation_id(),
                                                  request->has_last_response_id()
                                                      ? request->last_response_id()
                                                      : std::string()));
    return Write(responses, writer);
  });
}

grpc::Status Service::ReleaseExecute(grpc::ServerContext*, const pb::ReleaseExecuteRequest* request,
                                     pb::ReleaseExecuteResponse* response) {
  return Guarded([&]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto session, sessions_.Get(request->session_id(),
                                                      request->client_observed_server_side_session_id()));
    session->Release(request->operation_id(), request->has_release_until()
                                                  ? request->release_until().response_id()
                                                  : std::string());
    response->set_session_id(session->session_id());
    response->set_server_side_session_id(session->server_side_session_id());
    response->set_operation_id(request->operation_id());
    return arrow::Status::OK();
  });
}

grpc::Status Service::ReleaseSession(grpc::ServerContext*, const pb::ReleaseSessionRequest* request,
                                     pb::ReleaseSessionResponse* response) {
  sessions_.Release(request->session_id());
  response->set_session_id(request->session_id());
  return grpc::Status::OK;
}

grpc::Status Service::FetchErrorDetails(grpc::ServerContext*,
                                        const pb::FetchErrorDetailsRequest* request,
                                        pb::FetchErrorDetailsResponse* response) {
  // Errors go out whole in their ErrorInfo (without an errorId), so there is nothing more to
  // fetch: an empty answer tells the client to use the ErrorInfo.
  return Guarded([&]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto session, sessions_.Get(request->session_id(),
                                                      request->client_observed_server_side_session_id()));
    response->set_session_id(session->session_id());
    response->set_server_side_session_id(session->server_side_session_id());
    return arrow::Status::OK();
  });
}

}  // namespace ember::connect
