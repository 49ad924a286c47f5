// The streaming listener bus (Spark's StreamingQueryListenerBus): kStarted on the posting thread,
// the other events on the bus's thread in posting order, removal, and shutdown from a listener.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "ember/common/interval.h"
#include "ember/streaming_listener.h"

namespace ember {
namespace {

using Kind = StreamingQueryEvent::Kind;

class Recording : public StreamingQueryListener {
 public:
  void OnQueryStarted(const StreamingQueryEvent& e) override { Record("started", e); }
  void OnQueryProgress(const StreamingQueryEvent& e) override { Record("progress:" + e.progress, e); }
  void OnQueryIdle(const StreamingQueryEvent& e) override { Record("idle", e); }
  void OnQueryTerminated(const StreamingQueryEvent& e) override { Record("terminated", e); }

  std::vector<std::string> seen() {
    std::lock_guard<std::mutex> lock(mutex_);
    return seen_;
  }
  std::vector<std::thread::id> threads() {
    std::lock_guard<std::mutex> lock(mutex_);
    return threads_;
  }

 private:
  void Record(const std::string& what, const StreamingQueryEvent&) {
    std::lock_guard<std::mutex> lock(mutex_);
    seen_.push_back(what);
    threads_.push_back(std::this_thread::get_id());
  }
  std::mutex mutex_;
  std::vector<std::string> seen_;
  std::vector<std::thread::id> threads_;
};

StreamingQueryEvent Event(Kind kind, const std::string& progress = "") {
  StreamingQueryEvent e;
  e.kind = kind;
  e.id = "q";
  e.progress = progress;
  return e;
}

TEST(ListenerBusTest, StartedNowOthersInOrderOnTheBusThread) {
  StreamingQueryListenerBus bus;
  auto listener = std::make_shared<Recording>();
  bus.AddListener(listener);
  bus.Post(Event(Kind::kStarted));
  ASSERT_EQ(listener->seen(), std::vector<std::string>{"started"});  // before Post returned
  for (int i = 0; i < 50; ++i) bus.Post(Event(Kind::kProgress, std::to_string(i)));
  bus.Post(Event(Kind::kIdle));
  bus.Post(Event(Kind::kTerminated));
  ASSERT_TRUE(bus.WaitUntilEmpty(10));
  auto seen = listener->seen();
  ASSERT_EQ(seen.size(), 53u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(seen[i + 1], "progress:" + std::to_string(i));
  EXPECT_EQ(seen[51], "idle");
  EXPECT_EQ(seen[52], "terminated");
  auto threads = listener->threads();
  EXPECT_EQ(threads[0], std::this_thread::get_id());
  EXPECT_NE(threads[1], std::this_thread::get_id());
  for (size_t i = 2; i < threads.size(); ++i) EXPECT_EQ(threads[i], threads[1]);
}

TEST(ListenerBusTest, RemovedListenersGetNothingMore) {
  StreamingQueryListenerBus bus;
  auto kept = std::make_shared<Recording>();
  auto removed = std::make_shared<Recording>();
  bus.AddListener(kept);
  bus.AddListener(removed);
  bus.Post(Event(Kind::kProgress, "0"));
  ASSERT_TRUE(bus.WaitUntilEmpty(10));
  bus.RemoveListener(removed.get());
  bus.Post(Event(Kind::kProgress, "1"));
  bus.Close();  // delivers what is queued
  EXPECT_EQ(kept->seen(), (std::vector<std::string>{"progress:0", "progress:1"}));
  EXPECT_EQ(removed->seen(), std::vector<std::string>{"progress:0"});
  bus.Post(Event(Kind::kProgress, "2"));  // after Close: dropped
  EXPECT_EQ(kept->seen().size(), 2u);
}

// A listener that drops the last reference to its bus: the bus's thread cannot wait for itself.
class Dropping : public StreamingQueryListener {
 public:
  std::shared_ptr<StreamingQueryListenerBus> bus;
  std::atomic<bool> done{false};
  void OnQueryTerminated(const StreamingQueryEvent&) override {
    bus.reset();
    done = true;
  }
};

TEST(ListenerBusTest, ABusMayEndInsideItsListener) {
  auto listener = std::make_shared<Dropping>();
  listener->bus = std::make_shared<StreamingQueryListenerBus>();
  listener->bus->AddListener(listener);
  auto bus = listener->bus.get();
  bus->Post(Event(Kind::kTerminated));
  for (int i = 0; i < 1000 && !listener->done; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_TRUE(listener->done);
}

TEST(TimeStringTest, SparkTimeStringAsMs) {
  EXPECT_EQ(*ParseTimeStringMs("12h"), 12 * 3600 * 1000);
  EXPECT_EQ(*ParseTimeStringMs("7d"), 7LL * 86400 * 1000);
  EXPECT_EQ(*ParseTimeStringMs("500"), 500);
  EXPECT_EQ(*ParseTimeStringMs(" 30S "), 30000);
  EXPECT_EQ(*ParseTimeStringMs("2min"), 120000);
  EXPECT_EQ(*ParseTimeStringMs("1500us"), 1);
  EXPECT_EQ(*ParseTimeStringMs("-1m"), -60000);
  for (const char* bad : {"soon", "10x", "5 s", "", "1.5h"}) {
    auto r = ParseTimeStringMs(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("Time must be specified as seconds (s)"), std::string::npos);
  }
  EXPECT_NE(ParseTimeStringMs("10x").status().message().find("Invalid suffix: \"x\""),
            std::string::npos);
}

// Spark's JavaUtils.byteStringAsBytes (spark.sql.files.openCostInBytes): binary units.
TEST(TimeStringTest, SparkByteStringAsBytes) {
  EXPECT_EQ(*ParseByteString("4194304"), 4194304);
  EXPECT_EQ(*ParseByteString("4m"), 4LL << 20);
  EXPECT_EQ(*ParseByteString(" 2KB "), 2048);
  EXPECT_EQ(*ParseByteString("1g"), 1LL << 30);
  EXPECT_EQ(*ParseByteString("3b"), 3);
  for (const char* bad : {"lots", "10x", "-1m", "", "1.5m"}) {
    auto r = ParseByteString(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("Size must be specified as bytes (b)"), std::string::npos);
  }
  EXPECT_NE(ParseByteString("10x").status().message().find("Invalid suffix: \"x\""),
            std::string::npos);
  EXPECT_NE(ParseByteString("1.5m").status().message().find("Failed to parse byte string: 1.5m"),
            std::string::npos);
}

}  // namespace
}  // namespace ember
