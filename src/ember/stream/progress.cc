#include "ember/stream/progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>

namespace ember::stream {

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

ordered_json StateOperatorsProgress(const std::vector<std::unique_ptr<StatefulOperator>>& operators) {
  // Spark lists them as its plan traversal meets them: the outermost first.
  ordered_json all = ordered_json::array();
  for (auto it = operators.rbegin(); it != operators.rend(); ++it) {
    const auto& op = *it;
    const auto& m = op->metrics();
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

}  // namespace ember::stream
