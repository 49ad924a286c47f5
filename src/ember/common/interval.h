// Spark interval strings ("10 minutes", "1 hour 30 minutes", "interval 2 days") as durations,
// and Spark's time and size strings ("12h", "4m").
#pragma once

#include <cstdint>
#include <string>

#include <arrow/result.h>

namespace ember {

/// Microseconds of an interval string. A month counts as 31 days, as in Spark's
/// IntervalUtils.getDuration; a year as 12 such months.
arrow::Result<int64_t> ParseIntervalMicros(const std::string& text);

/// Milliseconds of a time string as Spark's JavaUtils.timeStringAsMs reads it: an integer and an
/// optional unit (us, ms, s, m, min, h, d; milliseconds without one), e.g. "12h", "500ms".
/// Finer units truncate ("1500us" is 1 ms). Anything else is Spark's NumberFormatException.
arrow::Result<int64_t> ParseTimeStringMs(const std::string& text);

/// The wall clock: milliseconds since the epoch (batch timestamps, rate and socket rows).
int64_t NowEpochMs();

/// Bytes of a size string as Spark's JavaUtils.byteStringAsBytes reads it: an integer and an
/// optional binary unit (b, k, kb, m, mb, g, gb, t, tb, p, pb; bytes without one), e.g. "4m".
arrow::Result<int64_t> ParseByteString(const std::string& text);

}  // namespace ember
