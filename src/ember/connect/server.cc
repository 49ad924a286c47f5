#include "ember/connect.h"

#include <mutex>

#include <grpcpp/grpcpp.h>

#include "ember/connect/service.h"
#include "ember/error.h"

namespace ember {

// Spark's spark.connect.grpc.maxInboundMessageSize, which the Python client also sends at most.
constexpr int kMaxMessageBytes = 128 * 1024 * 1024;

struct ConnectServer::State {
  connect::Service service;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  std::once_flag shutdown;
};

ConnectServer::ConnectServer(std::unique_ptr<State> state) : state_(std::move(state)) {}

ConnectServer::~ConnectServer() { Shutdown(); }

arrow::Result<std::unique_ptr<ConnectServer>> ConnectServer::Start(const std::string& address) {
  auto state = std::make_unique<State>();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &state->port);
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder.SetMaxSendMessageSize(kMaxMessageBytes);
  builder.RegisterService(&state->service);
  state->server = builder.BuildAndStart();
  if (!state->server || state->port == 0) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Cannot serve Spark Connect on " + address +
                         " (an address in use or not of this machine?)");
  }
  return std::unique_ptr<ConnectServer>(new ConnectServer(std::move(state)));
}

int ConnectServer::port() const { return state_->port; }

void ConnectServer::Shutdown() {
  std::call_once(state_->shutdown, [this] { state_->server->Shutdown(); });
}

void ConnectServer::Wait() { state_->server->Wait(); }

}  // namespace ember
