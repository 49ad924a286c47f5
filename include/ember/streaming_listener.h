// Listening to streaming queries: Spark's StreamingQueryListener and the bus that delivers its
// events (StreamingQueryListenerBus). STREAMING.md 2.1 and 2.8 give the rules.
//
// Threads and order:
//  - kStarted is delivered on the thread that calls StreamingQuery::Start, before Start returns
//    (Spark calls onQueryStarted synchronously with DataStreamWriter.start()).
//  - Every other event is queued by the query's thread and delivered on the bus's own thread, one
//    at a time, in the order posted. A slow listener delays later events, never the query.
//  - The bus holds no lock while a listener runs, so a listener may add or remove listeners; an
//    event goes to the listeners registered when it was taken from the queue.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace ember {

/// One event in the life of a streaming query. Fields not used by a kind are empty.
struct StreamingQueryEvent {
  enum class Kind {
    kStarted,     // start(): id, run_id, name, timestamp (when start was called)
    kProgress,    // a micro-batch ran: progress (the JSON that lastProgress returns)
    kIdle,        // triggers found no data for noDataProgressEventInterval: id, run_id, timestamp
    kTerminated,  // the query stopped or failed: id, run_id, exception, error_class
  };
  Kind kind = Kind::kProgress;
  std::string id;
  std::string run_id;
  std::string name;       // kStarted: the query name, empty if none
  std::string timestamp;  // kStarted, kIdle: "2024-05-01T10:50:00.123Z"
  std::string progress;   // kProgress
  /// kTerminated: the failure as "<exception class>: <message>", none after stop().
  std::optional<std::string> exception;
  /// kTerminated: the failure's error condition, none without one (or without a failure).
  std::optional<std::string> error_class;
};

/// Spark's StreamingQueryListener; each method does nothing unless overridden.
class StreamingQueryListener {
 public:
  virtual ~StreamingQueryListener() = default;
  virtual void OnQueryStarted(const StreamingQueryEvent& /*event*/) {}
  virtual void OnQueryProgress(const StreamingQueryEvent& /*event*/) {}
  virtual void OnQueryIdle(const StreamingQueryEvent& /*event*/) {}
  virtual void OnQueryTerminated(const StreamingQueryEvent& /*event*/) {}
};

/// The listeners of one session (spark.streams) and the thread that calls them.
class StreamingQueryListenerBus {
 public:
  StreamingQueryListenerBus() = default;
  /// Stops taking events; the thread delivers what is queued and ends, without being waited for.
  ~StreamingQueryListenerBus();
  StreamingQueryListenerBus(const StreamingQueryListenerBus&) = delete;
  StreamingQueryListenerBus& operator=(const StreamingQueryListenerBus&) = delete;

  void AddListener(std::shared_ptr<StreamingQueryListener> listener);
  /// Later events are not delivered to `listener`; unknown listeners are ignored.
  void RemoveListener(const StreamingQueryListener* listener);
  /// kStarted: delivered now, on this thread. Others: queued for the bus's thread.
  void Post(StreamingQueryEvent event);
  /// Waits until every queued event was delivered; false on timeout.
  bool WaitUntilEmpty(double timeout_seconds);
  /// Delivers the queued events and stops the thread; later events are dropped.
  void Close();

 private:
  // Shared with the delivery thread, so a listener may drop the last reference to the bus.
  struct State {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::shared_ptr<StreamingQueryListener>> listeners;
    std::deque<StreamingQueryEvent> queue;
    bool delivering = false;  // the thread is calling listeners for an event it took
    bool closed = false;
    std::thread thread;  // started by the first queued event
  };
  static void Run(std::shared_ptr<State> state);
  void Shutdown(bool wait);

  std::shared_ptr<State> state_ = std::make_shared<State>();
};

}  // namespace ember
