// The Connect server's gRPC transport, kept apart from the engine. gRPC brings Debian's re2 and
// OpenSSL, and pyarrow's libraries (which the engine links) export their own copies of both,
// other versions under the same unversioned names: in one symbol scope each copy would call the
// other's functions (Ember's regex kernels and Python's hashlib both crashed so). So the transport
// is a module of its own, libember_connect_grpc.so, loaded with dlopen into a scope of its own,
// and speaks to the engine only through this header: serialized messages in and out, calls
// through virtual functions, and one entry point found with dlsym. Nothing here includes gRPC.
#pragma once

#include <functional>
#include <string>

namespace ember::connect {

/// A call's outcome as gRPC reports it: code 0 is OK, else a grpc::StatusCode; `details` is the
/// serialized google.rpc.Status that travels in the trailer (grpc-status-details-bin).
struct CallStatus {
  int code = 0;
  std::string message;
  std::string details;
};

/// The engine's side of every call, implemented by connect::Service.
class CallHandler {
 public:
  virtual ~CallHandler() = default;
  /// Serves one call of `method` ("/spark.connect.SparkConnectService/Config") given its one
  /// serialized request; `write` sends a serialized response and returns false once the client
  /// is gone. Runs on a thread of the call's own, and may block as long as the query runs.
  virtual CallStatus Handle(const std::string& method, const std::string& request,
                            const std::function<bool(const std::string&)>& write) = 0;
};

/// A running gRPC server; deleting it shuts it down.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual int port() const = 0;
  /// Cancels the calls in progress and returns once they have ended; idempotent.
  virtual void Shutdown() = 0;
  virtual void Wait() = 0;
};

/// The transport module's entry point, `extern "C"` under kStartTransportSymbol: serves
/// `address` with `handler` (which must outlive the transport), or returns null with `error`.
using StartTransportFunction = Transport* (*)(const char* address, CallHandler* handler,
                                              int max_message_bytes, std::string* error);
inline constexpr const char* kStartTransportSymbol = "ember_connect_start_transport";
/// The module's file name; it sits next to the binary that holds the engine.
inline constexpr const char* kTransportLibrary = "libember_connect_grpc.so";

}  // namespace ember::connect
