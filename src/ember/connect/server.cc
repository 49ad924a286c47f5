#include "ember/connect.h"

#include <dlfcn.h>

#include <mutex>

#include "ember/connect/service.h"
#include "ember/connect/transport.h"
#include "ember/error.h"

namespace ember {

namespace {

// Spark's spark.connect.grpc.maxInboundMessageSize, which the Python client also sends at most.
constexpr int kMaxMessageBytes = 128 * 1024 * 1024;

// The transport module (transport.h), loaded once into a symbol scope of its own and never
// unloaded: it sits next to the binary that holds this code (ember's Python module, say).
arrow::Result<connect::StartTransportFunction> LoadTransport() {
  static std::mutex mutex;
  static connect::StartTransportFunction start = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (start) return start;
  Dl_info self;
  if (dladdr(reinterpret_cast<void*>(&LoadTransport), &self) == 0 || !self.dli_fname) {
    return arrow::Status::IOError("Cannot find where Ember's Connect server is installed");
  }
  std::string path = self.dli_fname;
  path = path.substr(0, path.rfind('/') + 1) + connect::kTransportLibrary;
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) return arrow::Status::IOError("Cannot load ", path, ": ", dlerror());
  void* symbol = dlsym(library, connect::kStartTransportSymbol);
  if (!symbol) return arrow::Status::IOError("No ", connect::kStartTransportSymbol, " in ", path);
  start = reinterpret_cast<connect::StartTransportFunction>(symbol);
  return start;
}

}  // namespace

struct ConnectServer::State {
  explicit State(std::shared_ptr<ConnectPythonRunner> python) : service(std::move(python)) {}
  connect::Service service;
  std::unique_ptr<connect::Transport> transport;  // after the service: it goes first
  std::once_flag shutdown;
};

ConnectServer::ConnectServer(std::unique_ptr<State> state) : state_(std::move(state)) {}

ConnectServer::~ConnectServer() {
  Shutdown();
  state_->transport.reset();
}

arrow::Result<std::unique_ptr<ConnectServer>> ConnectServer::Start(
    const std::string& address, std::shared_ptr<ConnectPythonRunner> python) {
  ARROW_ASSIGN_OR_RAISE(auto start_transport, LoadTransport());
  auto state = std::make_unique<State>(std::move(python));
  std::string error;
  state->transport.reset(start_transport(address.c_str(), &state->service, kMaxMessageBytes, &error));
  if (!state->transport) return UserError(ErrorKind::kIllegalArgument, "", error);
  return std::unique_ptr<ConnectServer>(new ConnectServer(std::move(state)));
}

int ConnectServer::port() const { return state_->transport->port(); }

void ConnectServer::Shutdown() {
  std::call_once(state_->shutdown, [this] {
    // The queries stop first: a call waiting on one (awaitTermination) then ends, and a
    // foreachBatch function still reaches the server for its batch.
    state_->service.ReleaseSessions();
    state_->transport->Shutdown();
    state_->service.ReleaseSessions();  // any a client started meanwhile
  });
}

void ConnectServer::Wait() { state_->transport->Wait(); }

}  // namespace ember
