#include "ember/stream/progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>

#include <arrow/array.h>
#include <arrow/compute/api_scalar.h>
#include <arrow/compute/exec.h>
#include <arrow/record_batch.h>
#include <arrow/scalar.h>
#include <arrow/util/base64.h>

namespace ember::stream {

namespace cp = arrow::compute;
using arrow::Result;
using nlohmann::ordered_json;

// Spark's progress form of an instant: "2024-05-01T10:50:00.000Z".
std::string IsoInstant(int64_t ms) {
  time_t seconds = static_cast<time_t>(ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000));
  int64_t millis = ms - static_cast<int64_t>(seconds) * 1000;
  struct tm utc;
  gmtime_r(&seconds, &utc);
  char text[96];
  std::snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(millis));
  return text;
}

ordered_json StateOperatorsProgress(const std::vector<std::unique_ptr<OperatorState>>& states) {
  // Spark lists them as its plan traversal meets them: the outermost first.
  ordered_json all = ordered_json::array();
  for (auto it = states.rbegin(); it != states.rend(); ++it) {
    const StateMetrics& m = (*it)->metrics;
    ordered_json custom = ordered_json::object();
    if (m.dropped_duplicates >= 0) custom["numDroppedDuplicateRows"] = m.dropped_duplicates;
    ordered_json entry = {{"operatorName", m.operator_name},
                          {"numRowsTotal", m.rows_total},
                          {"numRowsUpdated", m.rows_updated},
                          {"allUpdatesTimeMs", m.update_ms},
                          {"numRowsRemoved", m.rows_removed},
                          {"allRemovalsTimeMs", m.removal_ms},
                          {"commitTimeMs", m.commit_ms},
                          {"memoryUsedBytes", m.memory_bytes},
                          {"numRowsDroppedByWatermark", m.rows_dropped_by_watermark},
                          {"numShufflePartitions", m.num_partitions},
                          {"numStateStoreInstances", m.store_instances >= 0
                                                         ? m.store_instances
                                                         : m.num_partitions * m.stores_per_partition}};
    if (!custom.empty()) entry["customMetrics"] = custom;
    all.push_back(entry);
  }
  return all;
}

// inputRowsPerSecond divides by the time since the previous trigger started (none: infinite,
// so 0), processedRowsPerSecond by the trigger's duration (at least 1 ms). Spark leaves a rate
// that is NaN or infinite out of the JSON.
void PutRates(ordered_json* j, int64_t rows, int64_t trigger_start_ms,
              int64_t previous_trigger_start_ms, int64_t duration_ms) {
  double since_previous = previous_trigger_start_ms < 0
                              ? std::numeric_limits<double>::infinity()
                              : static_cast<double>(trigger_start_ms - previous_trigger_start_ms) / 1000.0;
  double input = static_cast<double>(rows) / since_previous;
  double processed =
      static_cast<double>(rows) / (static_cast<double>(std::max<int64_t>(1, duration_ms)) / 1000.0);
  if (std::isfinite(input)) (*j)["inputRowsPerSecond"] = input;
  if (std::isfinite(processed)) (*j)["processedRowsPerSecond"] = processed;
}

// The start of a progress entry (StreamingQueryProgress.jsonValue), keys in Spark's order.
ordered_json ProgressHeader(const std::string& id, const std::string& run_id,
                            const std::string& name, int64_t batch_id, int64_t trigger_start_ms,
                            int64_t previous_trigger_start_ms, int64_t duration_ms, int64_t rows) {
  ordered_json j = {{"id", id},
                    {"runId", run_id},
                    {"name", name.empty() ? ordered_json(nullptr) : ordered_json(name)},
                    {"timestamp", IsoInstant(trigger_start_ms)},
                    {"batchId", batch_id},
                    {"batchDuration", duration_ms},
                    {"numInputRows", rows}};
  PutRates(&j, rows, trigger_start_ms, previous_trigger_start_ms, duration_ms);
  return j;
}

// durationMs, keys sorted as Spark writes them.
ordered_json DurationsProgress(const std::map<std::string, int64_t>& durations) {
  ordered_json j = ordered_json::object();
  for (const auto& [phase, ms] : durations) j[phase] = ms;
  return j;
}

ordered_json OffsetProgress(const std::optional<std::string>& offset) {
  return offset ? ordered_json::parse(*offset, nullptr, false) : ordered_json(nullptr);
}

namespace {

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// An instant as Spark's default formatters write it, whole seconds: `format` over the wall clock
// in `time_zone` (none: the value as it is, a TIMESTAMP_NTZ or a date).
Result<std::string> Format(int64_t seconds, const std::string& time_zone, const char* format) {
  auto type = time_zone.empty() ? arrow::timestamp(arrow::TimeUnit::SECOND)
                                : arrow::timestamp(arrow::TimeUnit::SECOND, time_zone);
  cp::StrftimeOptions options(format);
  ARROW_ASSIGN_OR_RAISE(auto text, cp::CallFunction("strftime",
                                                    {arrow::Datum(std::make_shared<arrow::TimestampScalar>(
                                                        seconds, std::move(type)))},
                                                    &options));
  return std::string(static_cast<const arrow::StringScalar&>(*text.scalar()).view());
}

// A value as Spark's Row.jsonValue writes it: numbers as numbers (NaN and the infinities as
// text), timestamps "yyyy-MM-dd HH:mm:ss" in the session's time zone, dates "yyyy-MM-dd",
// binary in base64, a struct as an object, a map as an object of its string keys in order (else
// as a list of {"key", "value"}).
Result<ordered_json> ValueJson(const arrow::Scalar& value, const std::string& time_zone) {
  if (!value.is_valid) return ordered_json(nullptr);
  switch (value.type->id()) {
    case arrow::Type::BOOL: return ordered_json(static_cast<const arrow::BooleanScalar&>(value).value);
    case arrow::Type::INT8: return ordered_json(static_cast<const arrow::Int8Scalar&>(value).value);
    case arrow::Type::INT16: return ordered_json(static_cast<const arrow::Int16Scalar&>(value).value);
    case arrow::Type::INT32: return ordered_json(static_cast<const arrow::Int32Scalar&>(value).value);
    case arrow::Type::INT64: return ordered_json(static_cast<const arrow::Int64Scalar&>(value).value);
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE: {
      double d = value.type->id() == arrow::Type::FLOAT
                     ? static_cast<double>(static_cast<const arrow::FloatScalar&>(value).value)
                     : static_cast<const arrow::DoubleScalar&>(value).value;
      if (std::isnan(d)) return ordered_json("NaN");
      if (std::isinf(d)) return ordered_json(d > 0 ? "Infinity" : "-Infinity");
      return ordered_json(d);
    }
    case arrow::Type::STRING:
      return ordered_json(std::string(static_cast<const arrow::StringScalar&>(value).view()));
    case arrow::Type::BINARY:
      return ordered_json(
          arrow::util::base64_encode(static_cast<const arrow::BinaryScalar&>(value).view()));
    case arrow::Type::DECIMAL128: {
      const auto& decimal = static_cast<const arrow::Decimal128Scalar&>(value);
      int32_t scale = static_cast<const arrow::Decimal128Type&>(*value.type).scale();
      return ordered_json(decimal.value.ToDouble(scale));
    }
    case arrow::Type::DATE32: {
      int64_t days = static_cast<const arrow::Date32Scalar&>(value).value;
      ARROW_ASSIGN_OR_RAISE(auto text, Format(days * 86400, "", "%Y-%m-%d"));
      return ordered_json(text);
    }
    case arrow::Type::TIMESTAMP: {
      const auto& zone = static_cast<const arrow::TimestampType&>(*value.type).timezone();
      int64_t seconds = FloorDiv(static_cast<const arrow::TimestampScalar&>(value).value, 1000000);
      ARROW_ASSIGN_OR_RAISE(auto text,
                            Format(seconds, zone.empty() ? "" : time_zone, "%Y-%m-%d %H:%M:%S"));
      return ordered_json(text);
    }
    case arrow::Type::LIST: {
      const auto& elements = *static_cast<const arrow::ListScalar&>(value).value;
      ordered_json out = ordered_json::array();
      for (int64_t i = 0; i < elements.length(); ++i) {
        ARROW_ASSIGN_OR_RAISE(auto element, elements.GetScalar(i));
        ARROW_ASSIGN_OR_RAISE(auto json, ValueJson(*element, time_zone));
        out.push_back(std::move(json));
      }
      return out;
    }
    case arrow::Type::MAP: {
      const auto& entries = static_cast<const arrow::StructArray&>(
          *static_cast<const arrow::MapScalar&>(value).value);
      const bool text_keys = entries.field(0)->type()->id() == arrow::Type::STRING;
      std::map<std::string, ordered_json> by_key;
      ordered_json pairs = ordered_json::array();
      for (int64_t i = 0; i < entries.length(); ++i) {
        ARROW_ASSIGN_OR_RAISE(auto key, entries.field(0)->GetScalar(i));
        ARROW_ASSIGN_OR_RAISE(auto item, entries.field(1)->GetScalar(i));
        ARROW_ASSIGN_OR_RAISE(auto item_json, ValueJson(*item, time_zone));
        if (text_keys) {
          by_key[key->ToString()] = std::move(item_json);
        } else {
          ARROW_ASSIGN_OR_RAISE(auto key_json, ValueJson(*key, time_zone));
          pairs.push_back({{"key", std::move(key_json)}, {"value", std::move(item_json)}});
        }
      }
      if (!text_keys) return pairs;
      ordered_json out = ordered_json::object();
      for (auto& [key, item] : by_key) out[key] = std::move(item);
      return out;
    }
    case arrow::Type::STRUCT: {
      const auto& fields = value.type->fields();
      const auto& values = static_cast<const arrow::StructScalar&>(value).value;
      ordered_json out = ordered_json::object();
      for (size_t i = 0; i < fields.size(); ++i) {
        ARROW_ASSIGN_OR_RAISE(out[fields[i]->name()], ValueJson(*values[i], time_zone));
      }
      return out;
    }
    default:
      return ordered_json(value.ToString());
  }
}

}  // namespace

Result<ordered_json> ObservedMetricsProgress(
    const std::map<std::string, std::shared_ptr<arrow::RecordBatch>>& metrics,
    const std::string& time_zone) {
  ordered_json out = ordered_json::object();
  for (const auto& [name, row] : metrics) {
    ordered_json fields = ordered_json::object();
    for (int i = 0; i < row->num_columns(); ++i) {
      ARROW_ASSIGN_OR_RAISE(auto value, row->column(i)->GetScalar(0));
      ARROW_ASSIGN_OR_RAISE(fields[row->schema()->field(i)->name()], ValueJson(*value, time_zone));
    }
    out[name] = std::move(fields);
  }
  return out;
}

}  // namespace ember::stream
