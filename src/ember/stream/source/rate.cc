// Spark's rate sources, which generate (timestamp, value) rows, values counting up from 0:
//  - "rate" (RateStreamMicroBatchStream): rowsPerSecond rows for every second since the query's
//    first start (after rampUpTime's ramp), its offset the seconds elapsed ("5"). The start time
//    is kept in sources/<i>/0 so a restart continues, and a batch read again is the same.
//  - "rate-micro-batch" (RatePerMicroBatchStream): rowsPerBatch rows a batch whatever the clock,
//    each batch's timestamp advanceMillisPerBatch later; its offset {"offset":N,"timestamp":T}.
// Both split a batch's values into numPartitions parts, value v in part v % numPartitions, and
// return the parts one after the other, as Spark's partitions are collected.
#include <arrow/array/builder_primitive.h>
#include <arrow/table.h>
#include <arrow/type.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "ember/common/interval.h"
#include "ember/common/parallel.h"
#include "ember/error.h"
#include "ember/io/atomic_file.h"
#include "ember/plan/functions.h"
#include "ember/stream/metadata_log.h"
#include "ember/stream/source/source.h"

namespace ember::stream {

namespace fs = std::filesystem;
using arrow::Result;
using nlohmann::json;

namespace {

std::shared_ptr<arrow::Schema> RateColumns() {
  return arrow::schema({arrow::field("timestamp", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
                        arrow::field("value", arrow::int64())});
}

arrow::Status Invalid(int64_t value, const std::string& option, const std::string& rule) {
  return UserError(
      ErrorKind::kIllegalArgument, "",
      "Invalid value '" + std::to_string(value) + "'. The option '" + option + "' " + rule, "");
}

// numPartitions: Spark's default parallelism, one per core on one machine.
Result<int64_t> NumPartitions(const plan::StreamSourceSpec& spec) {
  ARROW_ASSIGN_OR_RAISE(int64_t n, IntegerOption(spec, "numpartitions", CoreCount()));
  if (n <= 0) return Invalid(n, "numPartitions", "must be positive");
  return n;
}

// The rows of values [first, end) in `parts` parts (value v in part v % parts, the parts in
// order), each row's timestamp given by `timestamp_ms(v)`.
template <typename Timestamp>
Result<std::shared_ptr<arrow::Table>> RateRows(int64_t first, int64_t end, int64_t parts,
                                               Timestamp timestamp_ms) {
  arrow::TimestampBuilder timestamps(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                                     arrow::default_memory_pool());
  arrow::Int64Builder values;
  int64_t rows = std::max<int64_t>(0, end - first);
  ARROW_RETURN_NOT_OK(timestamps.Reserve(rows));
  ARROW_RETURN_NOT_OK(values.Reserve(rows));
  for (int64_t p = 0; p < parts && rows > 0; ++p) {
    for (int64_t v = first + p; v < end; v += parts) {
      timestamps.UnsafeAppend(timestamp_ms(v) * 1000);
      values.UnsafeAppend(v);
    }
  }
  std::shared_ptr<arrow::Array> ts, vs;
  ARROW_RETURN_NOT_OK(timestamps.Finish(&ts));
  ARROW_RETURN_NOT_OK(values.Finish(&vs));
  return arrow::Table::Make(RateColumns(), {ts, vs});
}

Result<int64_t> LongOffset(const std::string& text) {
  auto j = json::parse(text, nullptr, false);
  if (!j.is_number_integer()) {
    return UserError(ErrorKind::kIllegalState, "", "Invalid rate source offset: " + text, "");
  }
  return j.get<int64_t>();
}

struct RateOptions {
  int64_t rows_per_second = 1;
  int64_t ramp_up_seconds = 0;
  int64_t partitions = 1;
  std::string partitions_text = "default";  // as the user gave it, for the description
};

Result<RateOptions> ParseRate(const plan::StreamSourceSpec& spec) {
  RateOptions o;
  ARROW_ASSIGN_OR_RAISE(o.rows_per_second, IntegerOption(spec, "rowspersecond", 1));
  if (o.rows_per_second <= 0)
    return Invalid(o.rows_per_second, "rowsPerSecond", "must be positive");
  if (auto it = spec.options.find("rampuptime"); it != spec.options.end()) {
    // JavaUtils.timeStringAsSec: seconds without a unit, finer units truncated.
    const std::string& text = it->second;
    bool plain = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    ARROW_ASSIGN_OR_RAISE(int64_t ms, ParseTimeStringMs(plain ? text + "s" : text));
    o.ramp_up_seconds = ms / 1000;
  }
  if (o.ramp_up_seconds < 0)
    return Invalid(o.ramp_up_seconds, "rampUpTime", "must not be negative");
  ARROW_ASSIGN_OR_RAISE(o.partitions, NumPartitions(spec));
  if (auto it = spec.options.find("numpartitions"); it != spec.options.end())
    o.partitions_text = it->second;
  if (o.ramp_up_seconds > std::numeric_limits<int64_t>::max() / o.rows_per_second) {
    return UserError(ErrorKind::kArithmetic, "",
                     "Integer overflow. Max offset with " + std::to_string(o.rows_per_second) +
                         " rowsPerSecond is " +
                         std::to_string(std::numeric_limits<int64_t>::max() / o.rows_per_second) +
                         ", but 'rampUpTimeSeconds' is " + std::to_string(o.ramp_up_seconds) + ".",
                     "");
  }
  return o;
}

class RateSource : public Source {
 public:
  RateSource(RateOptions options, std::string directory)
      : options_(options), directory_(std::move(directory)) {}

  // The start time: read from sources/<i>/0, or now, written there on the first start.
  arrow::Status Restore() override {
    std::string path = (fs::path(directory_) / "0").string();
    ARROW_ASSIGN_OR_RAISE(auto text, io::ReadFileIfExists(path));
    if (text) {
      auto newline = text->find('\n');
      auto j = json::parse(newline == std::string::npos ? "" : text->substr(newline + 1), nullptr,
                           false);
      if (text->rfind("v1\n", 0) != 0 || !j.is_number_integer()) {
        return DamagedCheckpointFile(path, "it does not hold the rate source's start time");
      }
      creation_ms_ = j.get<int64_t>();
    } else {
      creation_ms_ = NowEpochMs();
      std::error_code ec;
      fs::create_directories(directory_, ec);
      ARROW_ASSIGN_OR_RAISE(bool written,
                            io::WriteFileAtomically(path, "v1\n" + std::to_string(creation_ms_)));
      if (!written) return Restore();  // another run wrote it first: use its time
    }
    last_ms_ = creation_ms_;
    return arrow::Status::OK();
  }

  // Without Spark's SupportsTriggerAvailableNow, AvailableNow reads up to the offset of now.
  arrow::Status PrepareForAvailableNow() override {
    ARROW_ASSIGN_OR_RAISE(auto now, LatestOffset(std::nullopt));
    available_now_ = *now;
    return arrow::Status::OK();
  }

  Result<Offset> LatestOffset(const Offset& /*start*/) override {
    if (available_now_) return available_now_;
    last_ms_ = std::max(last_ms_, NowEpochMs());
    return std::to_string((last_ms_ - creation_ms_) / 1000);
  }

  Result<std::shared_ptr<arrow::Table>> ReadBatch(const Offset& start, const std::string& end,
                                                  const plan::EvalContext& /*ctx*/) override {
    int64_t start_seconds = 0;
    if (start) {
      ARROW_ASSIGN_OR_RAISE(start_seconds, LongOffset(*start));
    }
    ARROW_ASSIGN_OR_RAISE(int64_t end_seconds, LongOffset(end));
    int64_t max_seconds = std::numeric_limits<int64_t>::max() / options_.rows_per_second;
    if (end_seconds > max_seconds) {
      return UserError(ErrorKind::kArithmetic, "",
                       "Integer overflow. Max offset with " +
                           std::to_string(options_.rows_per_second) + " rowsPerSecond is " +
                           std::to_string(max_seconds) + ", but it's " +
                           std::to_string(end_seconds) + " now.",
                       "");
    }
    // A batch read again after a restart: later offsets continue from its end.
    last_ms_ = std::max(last_ms_, creation_ms_ + end_seconds * 1000);
    int64_t first = ValueAtSecond(start_seconds), last = ValueAtSecond(end_seconds);
    int64_t start_ms = creation_ms_ + start_seconds * 1000;
    double ms_per_value = last == first
                              ? 0
                              : static_cast<double>((end_seconds - start_seconds) * 1000) /
                                    static_cast<double>(last - first);
    return RateRows(first, last, options_.partitions, [&](int64_t v) {
      return start_ms + std::llround(static_cast<double>(v - first) * ms_per_value);
    });
  }

  std::string Description() const override {
    // Spark's toString, unclosed bracket included.
    return "RateStreamV2[rowsPerSecond=" + std::to_string(options_.rows_per_second) +
           ", rampUpTimeSeconds=" + std::to_string(options_.ramp_up_seconds) +
           ", numPartitions=" + options_.partitions_text;
  }

 private:
  // The values generated before `seconds`: a linear ramp to rowsPerSecond over rampUpTime,
  // then rowsPerSecond a second.
  int64_t ValueAtSecond(int64_t seconds) const {
    int64_t ramp = options_.ramp_up_seconds;
    int64_t delta = options_.rows_per_second / (ramp + 1);
    if (seconds <= ramp) {
      // delta * seconds * (seconds + 1) / 2, halving the even factor first against overflow.
      return seconds % 2 == 1 ? (seconds + 1) / 2 * delta * seconds
                              : seconds / 2 * delta * (seconds + 1);
    }
    return ValueAtSecond(ramp) + (seconds - ramp) * options_.rows_per_second;
  }

  RateOptions options_;
  std::string directory_;
  int64_t creation_ms_ = 0;
  int64_t last_ms_ = 0;
  Offset available_now_;
};

struct RateMicroBatchOptions {
  int64_t rows_per_batch = 0;
  int64_t partitions = 1;
  int64_t start_timestamp = 0;
  int64_t advance_ms = 1000;
};

Result<RateMicroBatchOptions> ParseRateMicroBatch(const plan::StreamSourceSpec& spec) {
  RateMicroBatchOptions o;
  ARROW_ASSIGN_OR_RAISE(o.rows_per_batch, IntegerOption(spec, "rowsperbatch", 0));
  if (o.rows_per_batch <= 0) return Invalid(o.rows_per_batch, "rowsPerBatch", "must be positive");
  ARROW_ASSIGN_OR_RAISE(o.partitions, NumPartitions(spec));
  ARROW_ASSIGN_OR_RAISE(o.start_timestamp, IntegerOption(spec, "starttimestamp", 0));
  if (o.start_timestamp < 0)
    return Invalid(o.start_timestamp, "startTimestamp", "must be non-negative");
  ARROW_ASSIGN_OR_RAISE(o.advance_ms, IntegerOption(spec, "advancemillisperbatch", 1000));
  if (o.advance_ms < 0)
    return Invalid(o.advance_ms, "advanceMillisPerBatch", "must be non-negative");
  return o;
}

class RateMicroBatchSource : public Source {
 public:
  explicit RateMicroBatchSource(RateMicroBatchOptions options) : options_(options) {}

  arrow::Status PrepareForAvailableNow() override {
    available_now_ = true;
    return arrow::Status::OK();
  }

  // One batch of rowsPerBatch after `start`; under AvailableNow, only the first.
  Result<Offset> LatestOffset(const Offset& start) override {
    if (available_now_ && available_now_end_) return available_now_end_;
    ARROW_ASSIGN_OR_RAISE(Position from, Parse(start));
    int64_t end = from.offset > std::numeric_limits<int64_t>::max() - options_.rows_per_batch
                      ? std::numeric_limits<int64_t>::max()
                      : from.offset + options_.rows_per_batch;
    Offset next = Json({end, from.timestamp + options_.advance_ms});
    if (available_now_) available_now_end_ = next;
    return next;
  }

  Result<std::shared_ptr<arrow::Table>> ReadBatch(const Offset& start, const std::string& end,
                                                  const plan::EvalContext& /*ctx*/) override {
    ARROW_ASSIGN_OR_RAISE(Position from, Parse(start));
    ARROW_ASSIGN_OR_RAISE(Position to, Parse(end));
    return RateRows(from.offset, to.offset, options_.partitions,
                    [&](int64_t) { return from.timestamp; });
  }

  std::string Description() const override {
    return "RatePerMicroBatchStream[rowsPerBatch=" + std::to_string(options_.rows_per_batch) +
           ", numPartitions=" + std::to_string(options_.partitions) +
           ", startTimestamp=" + std::to_string(options_.start_timestamp) +
           ", advanceMsPerBatch=" + std::to_string(options_.advance_ms) + "]";
  }

 private:
  struct Position {
    int64_t offset = 0;
    int64_t timestamp = 0;
  };

  // RatePerMicroBatchStreamOffset's JSON; no offset is the initial one.
  Result<Position> Parse(const Offset& offset) const {
    if (!offset) return Position{0, options_.start_timestamp};
    auto j = json::parse(*offset, nullptr, false);
    if (!j.is_object() || !j.value("offset", json()).is_number_integer() ||
        !j.value("timestamp", json()).is_number_integer()) {
      return UserError(ErrorKind::kIllegalState, "", "Invalid rate-micro-batch offset: " + *offset,
                       "");
    }
    return Position{j["offset"].get<int64_t>(), j["timestamp"].get<int64_t>()};
  }

  static std::string Json(const Position& p) {
    return nlohmann::ordered_json({{"offset", p.offset}, {"timestamp", p.timestamp}}).dump();
  }

  RateMicroBatchOptions options_;
  bool available_now_ = false;
  Offset available_now_end_;
};

}  // namespace

Result<std::shared_ptr<arrow::Schema>> RateSchema(Session& /*session*/,
                                                  plan::StreamSourceSpec& spec) {
  ARROW_RETURN_NOT_OK(ParseRate(spec).status());
  return RateColumns();
}

Result<std::unique_ptr<Source>> OpenRate(const SourceContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto options, ParseRate(*context.spec));
  return std::make_unique<RateSource>(options, context.directory);
}

Result<std::shared_ptr<arrow::Schema>> RateMicroBatchSchema(Session& /*session*/,
                                                            plan::StreamSourceSpec& spec) {
  ARROW_RETURN_NOT_OK(ParseRateMicroBatch(spec).status());
  return RateColumns();
}

Result<std::unique_ptr<Source>> OpenRateMicroBatch(const SourceContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto options, ParseRateMicroBatch(*context.spec));
  return std::make_unique<RateMicroBatchSource>(options);
}

}  // namespace ember::stream
