// The gRPC transport (transport.h): a generic callback service that takes every call as bytes
// and hands it to the engine's CallHandler on a thread of the call's own. Built as its own
// module, libember_connect_grpc.so; it links gRPC and nothing of the engine or of Arrow.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>

#include "ember/connect/transport.h"

namespace ember::connect {

namespace {

std::string Flatten(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string out;
  if (!buffer.Dump(&slices).ok()) return out;
  for (const auto& slice : slices) out.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  return out;
}

// One call: read its request, run the handler on a thread of its own (a query may run long, and
// gRPC's callback threads must not block), write each response when the previous one is out,
// then finish with the handler's status. gRPC deletes nothing: OnDone deletes the reactor, after
// Finish, which the worker calls last.
class Call final : public grpc::ServerGenericBidiReactor {
 public:
  Call(grpc::GenericCallbackServerContext* context, CallHandler* handler)
      : method_(context->method()), handler_(handler) {
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "a call without a request"));
      return;
    }
    std::thread([this] { Run(); }).detach();
  }

  void OnWriteDone(bool ok) override {
    std::lock_guard<std::mutex> lock(mutex_);
    writing_ = false;
    write_ok_ = ok;
    written_.notify_all();
  }

  void OnDone() override { delete this; }

 private:
  void Run() {
    CallStatus status = handler_->Handle(method_, Flatten(request_),
                                         [this](const std::string& bytes) { return Write(bytes); });
    // The last use of `this`: once finished, gRPC may call OnDone at any time.
    if (status.code == 0) {
      Finish(grpc::Status::OK);
    } else {
      Finish(grpc::Status(static_cast<grpc::StatusCode>(status.code), status.message,
                          status.details));
    }
  }

  bool Write(const std::string& bytes) {
    std::unique_lock<std::mutex> lock(mutex_);
    grpc::Slice slice(bytes);
    response_ = grpc::ByteBuffer(&slice, 1);
    writing_ = true;
    StartWrite(&response_);
    written_.wait(lock, [this] { return !writing_; });
    return write_ok_;
  }

  const std::string method_;
  CallHandler* const handler_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer response_;
  std::mutex mutex_;
  std::condition_variable written_;
  bool writing_ = false;
  bool write_ok_ = true;
};

class Service final : public grpc::CallbackGenericService {
 public:
  explicit Service(CallHandler* handler) : handler_(handler) {}
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override {
    return new Call(context, handler_);
  }

 private:
  CallHandler* const handler_;
};

class GrpcTransport final : public Transport {
 public:
  explicit GrpcTransport(CallHandler* handler) : service_(handler) {}
  ~GrpcTransport() override { Shutdown(); }

  bool Start(const std::string& address, int max_message_bytes) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port_);
    builder.SetMaxReceiveMessageSize(max_message_bytes);
    builder.SetMaxSendMessageSize(max_message_bytes);
    builder.RegisterCallbackGenericService(&service_);
    server_ = builder.BuildAndStart();
    return server_ && port_ != 0;
  }

  int port() const override { return port_; }
  void Shutdown() override {
    std::call_once(shutdown_, [this] {
      if (server_) server_->Shutdown(std::chrono::system_clock::now());
    });
  }
  void Wait() override {
    if (server_) server_->Wait();
  }

 private:
  Service service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::once_flag shutdown_;
};

}  // namespace

}  // namespace ember::connect

extern "C" __attribute__((visibility("default"))) ember::connect::Transport*
ember_connect_start_transport(const char* address, ember::connect::CallHandler* handler,
                              int max_message_bytes, std::string* error) {
  auto transport = std::make_unique<ember::connect::GrpcTransport>(handler);
  if (!transport->Start(address, max_message_bytes)) {
    *error = std::string("Cannot serve Spark Connect on ") + address +
             " (an address in use or not of this machine?)";
    return nullptr;
  }
  return transport.release();
}
