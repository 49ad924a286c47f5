// SparkConnectService on gRPC's synchronous API: each call runs on a gRPC thread, finds its
// session and hands the request to the part of connect/ that serves it. Results are complete
// before the first response is sent (ExecutePlan buffers them), so a reattach replays them.
#pragma once

#include "ember/connect/sessions.h"
#include "spark/connect/base.grpc.pb.h"

namespace ember::connect {

class Service final : public spark::connect::SparkConnectService::Service {
 public:
  grpc::Status ExecutePlan(grpc::ServerContext* context,
                           const spark::connect::ExecutePlanRequest* request,
                           grpc::ServerWriter<spark::connect::ExecutePlanResponse>* writer) override;
  grpc::Status AnalyzePlan(grpc::ServerContext* context,
                           const spark::connect::AnalyzePlanRequest* request,
                           spark::connect::AnalyzePlanResponse* response) override;
  grpc::Status Config(grpc::ServerContext* context, const spark::connect::ConfigRequest* request,
                      spark::connect::ConfigResponse* response) override;
  grpc::Status Interrupt(grpc::ServerContext* context,
                         const spark::connect::InterruptRequest* request,
                         spark::connect::InterruptResponse* response) override;
  grpc::Status ReattachExecute(
      grpc::ServerContext* context, const spark::connect::ReattachExecuteRequest* request,
      grpc::ServerWriter<spark::connect::ExecutePlanResponse>* writer) override;
  grpc::Status ReleaseExecute(grpc::ServerContext* context,
                              const spark::connect::ReleaseExecuteRequest* request,
                              spark::connect::ReleaseExecuteResponse* response) override;
  grpc::Status ReleaseSession(grpc::ServerContext* context,
                              const spark::connect::ReleaseSessionRequest* request,
                              spark::connect::ReleaseSessionResponse* response) override;
  grpc::Status FetchErrorDetails(grpc::ServerContext* context,
                                 const spark::connect::FetchErrorDetailsRequest* request,
                                 spark::connect::FetchErrorDetailsResponse* response) override;

 private:
  SessionRegistry sessions_;
};

}  // namespace ember::connect
