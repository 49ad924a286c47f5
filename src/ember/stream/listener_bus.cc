#include "ember/streaming_listener.h"

#include <algorithm>
#include <chrono>

namespace ember {

namespace {

void Deliver(const std::vector<std::shared_ptr<StreamingQueryListener>>& listeners,
             const StreamingQueryEvent& event) {
  for (const auto& listener : listeners) {
    switch (event.kind) {
      case StreamingQueryEvent::Kind::kStarted: listener->OnQueryStarted(event); break;
      case StreamingQueryEvent::Kind::kProgress: listener->OnQueryProgress(event); break;
      case StreamingQueryEvent::Kind::kIdle: listener->OnQueryIdle(event); break;
      case StreamingQueryEvent::Kind::kTerminated: listener->OnQueryTerminated(event); break;
    }
  }
}

}  // namespace

// Without waiting: the bus may go away on a thread that its listeners need (Python's GIL). The
// thread shares the state, finishes the queue and ends by itself.
StreamingQueryListenerBus::~StreamingQueryListenerBus() { Shutdown(/*wait=*/false); }

void StreamingQueryListenerBus::Close() { Shutdown(/*wait=*/true); }

void StreamingQueryListenerBus::AddListener(std::shared_ptr<StreamingQueryListener> listener) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->listeners.push_back(std::move(listener));
}

void StreamingQueryListenerBus::RemoveListener(const StreamingQueryListener* listener) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  auto& listeners = state_->listeners;
  listeners.erase(std::remove_if(listeners.begin(), listeners.end(),
                                 [&](const auto& l) { return l.get() == listener; }),
                  listeners.end());
}

void StreamingQueryListenerBus::Post(StreamingQueryEvent event) {
  std::unique_lock<std::mutex> lock(state_->mutex);
  if (state_->closed) return;
  if (event.kind == StreamingQueryEvent::Kind::kStarted) {
    auto listeners = state_->listeners;
    lock.unlock();
    Deliver(listeners, event);
    return;
  }
  state_->queue.push_back(std::move(event));
  if (!state_->thread.joinable()) state_->thread = std::thread(Run, state_);
  state_->changed.notify_all();
}

void StreamingQueryListenerBus::Run(std::shared_ptr<State> state) {
  std::unique_lock<std::mutex> lock(state->mutex);
  while (true) {
    state->changed.wait(lock, [&] { return state->closed || !state->queue.empty(); });
    if (state->queue.empty()) return;  // closed, and everything delivered
    StreamingQueryEvent event = std::move(state->queue.front());
    state->queue.pop_front();
    auto listeners = state->listeners;
    state->delivering = true;
    lock.unlock();
    Deliver(listeners, event);
    listeners.clear();  // a listener removed meanwhile is released here, outside the lock
    lock.lock();
    state->delivering = false;
    state->changed.notify_all();
  }
}

bool StreamingQueryListenerBus::WaitUntilEmpty(double timeout_seconds) {
  std::unique_lock<std::mutex> lock(state_->mutex);
  return state_->changed.wait_for(lock, std::chrono::duration<double>(timeout_seconds), [&] {
    return state_->queue.empty() && !state_->delivering;
  });
}

void StreamingQueryListenerBus::Shutdown(bool wait) {
  std::thread thread;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->closed = true;
    state_->changed.notify_all();
    thread = std::move(state_->thread);
  }
  if (!thread.joinable()) return;
  // Closed from a listener, on the bus's own thread, it cannot wait for itself.
  if (!wait || thread.get_id() == std::this_thread::get_id()) {
    thread.detach();
  } else {
    thread.join();
  }
}

}  // namespace ember
