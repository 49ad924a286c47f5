// Spark's progress JSON (StreamingQueryProgress.jsonValue and its parts), built by the
// micro-batch loop for lastProgress, recentProgress and the listeners' progress events. Keys are
// in Spark's order; rates that are NaN or infinite are left out, as Spark leaves them out.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>
#include <nlohmann/json.hpp>

#include "ember/stream/stateful.h"

namespace ember::stream {

/// An instant as progress shows it: "2024-05-01T10:50:00.000Z" (UTC, milliseconds).
std::string IsoInstant(int64_t ms);

/// id, runId, name, timestamp (the trigger's start), batchId, batchDuration, numInputRows and the
/// two rates.
nlohmann::ordered_json ProgressHeader(const std::string& id, const std::string& run_id,
                                      const std::string& name, int64_t batch_id,
                                      int64_t trigger_start_ms, int64_t previous_trigger_start_ms,
                                      int64_t duration_ms, int64_t rows);

/// inputRowsPerSecond (rows over the time since the previous trigger started; the first trigger
/// has none, so 0) and processedRowsPerSecond (rows over the trigger's duration, at least 1 ms).
void PutRates(nlohmann::ordered_json* j, int64_t rows, int64_t trigger_start_ms,
              int64_t previous_trigger_start_ms, int64_t duration_ms);

/// durationMs, phases in sorted order.
nlohmann::ordered_json DurationsProgress(const std::map<std::string, int64_t>& durations);

/// A source's offset as progress shows it: its JSON, or null before the source had data.
nlohmann::ordered_json OffsetProgress(const std::optional<std::string>& offset);

/// stateOperators: one entry per stateful operator, the outermost first.
nlohmann::ordered_json StateOperatorsProgress(
    const std::vector<std::unique_ptr<OperatorState>>& states);

/// observedMetrics: per observe() name its row as Spark's Row.jsonValue writes it, an object of
/// the metrics by name (timestamps as text in `time_zone`, the session's).
arrow::Result<nlohmann::ordered_json> ObservedMetricsProgress(
    const std::map<std::string, std::shared_ptr<arrow::RecordBatch>>& metrics,
    const std::string& time_zone);

}  // namespace ember::stream
