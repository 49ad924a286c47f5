// The Spark Connect server: Ember behind Spark Connect's gRPC protocol, so that PySpark's Connect
// client (SparkSession.builder.remote("sc://host:port")) and Spark's other Connect clients run
// their programs on Ember. Each client session (by session id) gets its own ember::Session.
#pragma once

#include <memory>
#include <string>

#include <arrow/result.h>

namespace ember {

class ConnectServer {
 public:
  /// Starts serving on `address` ("127.0.0.1:15002"; port 0 picks a free port) on gRPC's
  /// threads; it serves until Shutdown() or destruction.
  static arrow::Result<std::unique_ptr<ConnectServer>> Start(const std::string& address);
  ~ConnectServer();

  /// The port it listens on (the chosen one when started with port 0).
  int port() const;
  /// Stops accepting calls, cancels those in progress and returns when all have ended.
  /// Safe to call more than once, from any thread.
  void Shutdown();
  /// Blocks until the server has shut down.
  void Wait();

 private:
  struct State;
  explicit ConnectServer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace ember
