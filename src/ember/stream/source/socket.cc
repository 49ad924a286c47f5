// Spark's socket source (TextSocketMicroBatchStream): the lines a TCP server sends, for tutorials
// and debugging. It keeps the lines in memory only, so it cannot recover: as in Spark, a restarted
// query counts its offsets from -1 again and a batch logged before the restart reads nothing.
// The offset is the number of the last line received (-1 before the first), a line's timestamp
// its arrival time. The connection opens when the first batch is read, as Spark opens it.
#include <arrow/array/builder_binary.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/table.h>
#include <arrow/type.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "ember/common/interval.h"
#include "ember/common/parallel.h"
#include "ember/error.h"
#include "ember/io/utf8.h"
#include "ember/plan/functions.h"
#include "ember/stream/source/source.h"

namespace ember::stream {

using arrow::Result;

namespace {

struct SocketOptions {
  std::string host;
  int port = 0;
  bool include_timestamp = false;
  int64_t partitions = 1;
};

Result<SocketOptions> ParseSocket(const plan::StreamSourceSpec& spec) {
  auto option = [&](const char* key) -> std::optional<std::string> {
    auto it = spec.options.find(key);
    if (it == spec.options.end()) return std::nullopt;
    return it->second;
  };
  SocketOptions o;
  if (!option("host")) {
    return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1295",
                     "Set a host to read from with option(\"host\", ...).", "");
  }
  if (!option("port")) {
    return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1296",
                     "Set a port to read from with option(\"port\", ...).", "");
  }
  std::string timestamp = option("includetimestamp").value_or("false");
  std::transform(timestamp.begin(), timestamp.end(), timestamp.begin(), ::tolower);
  if (timestamp != "true" && timestamp != "false") {
    return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1297",
                     "IncludeTimestamp must be set to either \"true\" or \"false\".", "");
  }
  o.host = *option("host");
  o.include_timestamp = timestamp == "true";
  ARROW_ASSIGN_OR_RAISE(int64_t port, IntegerOption(spec, "port", 0, 0, 65535));
  o.port = static_cast<int>(port);
  ARROW_ASSIGN_OR_RAISE(
      o.partitions,
      IntegerOption(spec, "numpartitions", CoreCount()));
  if (o.partitions <= 0) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Invalid value '" + std::to_string(o.partitions) +
                         "'. The option 'numPartitions' must be positive",
                     "");
  }
  return o;
}

std::shared_ptr<arrow::Schema> SocketColumns(bool include_timestamp) {
  arrow::FieldVector fields = {arrow::field("value", arrow::utf8())};
  if (include_timestamp)
    fields.push_back(arrow::field("timestamp", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")));
  return arrow::schema(fields);
}

class SocketSource : public Source {
 public:
  explicit SocketSource(SocketOptions options) : options_(std::move(options)) {}
  ~SocketSource() override { Stop(); }

  Result<Offset> LatestOffset(const Offset& /*start*/) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::to_string(current_);
  }

  Result<std::shared_ptr<arrow::Table>> ReadBatch(const Offset& start, const std::string& end,
                                                  const plan::EvalContext& /*ctx*/) override {
    ARROW_ASSIGN_OR_RAISE(int64_t first, LineNumber(start.value_or("-1")));
    ARROW_ASSIGN_OR_RAISE(int64_t last, LineNumber(end));
    ARROW_RETURN_NOT_OK(Connect());
    std::vector<Line> lines;
    {
      // The buffer holds the lines after the last committed one; a range outside it (a batch
      // logged before a restart) reads nothing, as in Spark.
      std::lock_guard<std::mutex> lock(mutex_);
      int64_t from = std::max<int64_t>(0, first - committed_);
      int64_t to = std::min<int64_t>(static_cast<int64_t>(buffer_.size()), last - committed_);
      for (int64_t i = from; i < to; ++i) lines.push_back(buffer_[static_cast<size_t>(i)]);
    }
    // Line i goes to part i % numPartitions; the parts one after the other, as Spark collects.
    arrow::StringBuilder values;
    arrow::TimestampBuilder times(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                                  arrow::default_memory_pool());
    for (int64_t p = 0; p < options_.partitions; ++p) {
      for (size_t i = static_cast<size_t>(p); i < lines.size();
           i += static_cast<size_t>(options_.partitions)) {
        ARROW_RETURN_NOT_OK(values.Append(lines[i].text));
        ARROW_RETURN_NOT_OK(times.Append(lines[i].arrival_ms * 1000));
      }
    }
    std::vector<std::shared_ptr<arrow::Array>> columns(1);
    ARROW_RETURN_NOT_OK(values.Finish(&columns[0]));
    if (options_.include_timestamp) {
      columns.emplace_back();
      ARROW_RETURN_NOT_OK(times.Finish(&columns[1]));
    }
    return arrow::Table::Make(SocketColumns(options_.include_timestamp), columns);
  }

  // The committed lines leave the buffer.
  arrow::Status Commit(const std::string& end) override {
    ARROW_ASSIGN_OR_RAISE(int64_t last, LineNumber(end));
    std::lock_guard<std::mutex> lock(mutex_);
    if (last < committed_) {
      return arrow::Status::Invalid("Offsets committed out of order: ", committed_, " followed by ",
                                    last);
    }
    size_t drop = std::min(buffer_.size(), static_cast<size_t>(last - committed_));
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(drop));
    committed_ = last;
    return arrow::Status::OK();
  }

  void Stop() override {
    int fd = -1;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fd = fd_;
    }
    // recv() cannot be interrupted otherwise: shutting the socket down ends the reader.
    if (fd >= 0) ::shutdown(fd, SHUT_RDWR);
    if (reader_.joinable()) reader_.join();
    std::lock_guard<std::mutex> lock(mutex_);
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  std::string Description() const override {
    return "TextSocketV2[host: " + options_.host + ", port: " + std::to_string(options_.port) + "]";
  }

 private:
  struct Line {
    std::string text;
    int64_t arrival_ms = 0;
  };

  static Result<int64_t> LineNumber(const std::string& offset) {
    auto j = nlohmann::json::parse(offset, nullptr, false);
    if (!j.is_number_integer()) {
      return UserError(ErrorKind::kIllegalState, "", "Invalid socket source offset: " + offset, "");
    }
    return j.get<int64_t>();
  }

  arrow::Status Connect() {
    if (connected_) return arrow::Status::OK();
    connected_ = true;
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    std::string where = options_.host + ":" + std::to_string(options_.port);
    if (int rc = ::getaddrinfo(options_.host.c_str(), std::to_string(options_.port).c_str(), &hints,
                               &found);
        rc != 0) {
      return arrow::Status::IOError("Cannot resolve the socket source's host ", where, ": ",
                                    gai_strerror(rc));
    }
    int fd = -1, error = 0;
    for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
      fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd >= 0 && ::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
        error = errno;
        ::close(fd);
        fd = -1;
      }
    }
    ::freeaddrinfo(found);
    if (fd < 0) {
      return arrow::Status::IOError("Connection to the socket source ", where,
                                    " failed: ", std::strerror(error));
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fd_ = fd;
    }
    reader_ = std::thread([this, fd] { ReadLines(fd); });
    return arrow::Status::OK();
  }

  // Splits what arrives into lines as Java's readLine does (\n, \r or \r\n), until the server
  // closes the connection or Stop shuts it down.
  void ReadLines(int fd) {
    std::string pending;
    bool after_cr = false;
    char chunk[65536];
    while (true) {
      ssize_t got = ::recv(fd, chunk, sizeof(chunk), 0);
      if (got <= 0) {
        // The server closed the stream: readLine returns an unended last line too.
        if (got == 0 && !pending.empty()) Add(std::move(pending));
        return;
      }
      for (ssize_t i = 0; i < got; ++i) {
        char c = chunk[i];
        if (after_cr && c == '\n') {
          after_cr = false;
          continue;
        }
        after_cr = c == '\r';
        if (c == '\n' || c == '\r') {
          Add(std::move(pending));
          pending.clear();
        } else {
          pending.push_back(c);
        }
      }
    }
  }

  void Add(std::string line) {
    std::lock_guard<std::mutex> lock(mutex_);
    buffer_.push_back(Line{io::ReplaceMalformedUtf8(line), NowEpochMs()});
    ++current_;
  }

  SocketOptions options_;
  bool connected_ = false;
  std::thread reader_;
  std::mutex mutex_;  // guards the fields below, shared with the reader thread
  int fd_ = -1;
  std::deque<Line> buffer_;  // the lines after the last committed one
  int64_t current_ = -1;     // the number of the last line received
  int64_t committed_ = -1;   // the number of the last line committed
};

}  // namespace

// Spark warns as load() reads the options.
Result<std::shared_ptr<arrow::Schema>> SocketSchema(Session& /*session*/,
                                                    plan::StreamSourceSpec& spec) {
  std::cerr << "WARN TextSocketSourceProvider: The socket source should not be used for production "
               "applications! It does not support recovery."
            << std::endl;
  ARROW_ASSIGN_OR_RAISE(auto options, ParseSocket(spec));
  return SocketColumns(options.include_timestamp);
}

Result<std::unique_ptr<Source>> OpenSocket(const SourceContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto options, ParseSocket(*context.spec));
  return std::make_unique<SocketSource>(std::move(options));
}

}  // namespace ember::stream
