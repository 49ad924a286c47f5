#include "ember/common/interval.h"

#include <chrono>

#include <algorithm>
#include <cctype>
#include <functional>
#include <sstream>

#include "ember/error.h"

namespace ember {

namespace {

int64_t UnitMicros(std::string unit) {
  std::transform(unit.begin(), unit.end(), unit.begin(), ::tolower);
  if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
  constexpr int64_t kSecond = 1000000, kDay = 86400 * kSecond;
  if (unit == "microsecond" || unit == "us") return 1;
  if (unit == "millisecond" || unit == "ms") return 1000;
  if (unit == "second" || unit == "sec") return kSecond;
  if (unit == "minute" || unit == "min") return 60 * kSecond;
  if (unit == "hour") return 3600 * kSecond;
  if (unit == "day") return kDay;
  if (unit == "week") return 7 * kDay;
  if (unit == "month") return 31 * kDay;
  if (unit == "year") return 12 * 31 * kDay;
  return 0;
}

}  // namespace

arrow::Result<int64_t> ParseIntervalMicros(const std::string& text) {
  auto invalid = [&] {
    return UserError(ErrorKind::kIllegalArgument, "INVALID_INTERVAL_FORMAT.INVALID_UNIT",
                     "Error parsing '" + text + "' to interval, invalid unit.", "22006");
  };
  std::istringstream in(text);
  std::string word;
  int64_t total = 0;
  bool any = false;
  while (in >> word) {
    std::string lower = word;
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    if (lower == "interval") continue;
    double amount = 0;
    try {
      size_t used = 0;
      amount = std::stod(word, &used);
      if (used != word.size()) return invalid();
    } catch (...) {
      return invalid();
    }
    std::string unit;
    if (!(in >> unit)) return invalid();
    int64_t micros = UnitMicros(unit);
    if (micros == 0) return invalid();
    total += static_cast<int64_t>(amount * static_cast<double>(micros));
    any = true;
  }
  if (!any) {
    return UserError(ErrorKind::kIllegalArgument, "INVALID_INTERVAL_FORMAT.INPUT_IS_EMPTY",
                     "Error parsing '" + text + "' to interval, input is empty.", "22006");
  }
  return total;
}

namespace {

// Spark's JavaUtils string forms: an integer (with a minus sign where `signed_number` allows
// it) and an optional unit of letters, lower-cased, surrounding whitespace ignored. `fail`
// gives the error for text of another shape, an unknown unit or a number out of range.
struct NumberAndUnit {
  int64_t number = 0;
  std::string unit;
};

arrow::Result<NumberAndUnit> SplitNumberAndUnit(
    const std::string& text, bool signed_number, const std::string& kind,
    const std::function<arrow::Status(const std::string&)>& fail) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  size_t first = lower.find_first_not_of(" \t\n\r");
  size_t last = lower.find_last_not_of(" \t\n\r");
  lower = first == std::string::npos ? "" : lower.substr(first, last - first + 1);
  size_t digits_at = signed_number && !lower.empty() && lower[0] == '-' ? 1 : 0;
  size_t unit_at = lower.find_first_not_of("0123456789", digits_at);
  if (unit_at == std::string::npos) unit_at = lower.size();
  NumberAndUnit out;
  out.unit = lower.substr(unit_at);
  bool letters = std::all_of(out.unit.begin(), out.unit.end(), [](char c) { return c >= 'a' && c <= 'z'; });
  if (unit_at == digits_at || !letters) return fail("Failed to parse " + kind + " string: " + text);
  try {
    out.number = std::stoll(lower.substr(0, unit_at));
  } catch (...) {
    return fail("For input string: \"" + lower.substr(0, unit_at) + "\"");
  }
  return out;
}

}  // namespace

arrow::Result<int64_t> ParseTimeStringMs(const std::string& text) {
  auto fail = [&](const std::string& reason) {
    return UserError(ErrorKind::kNumberFormat, "",
                     "Time must be specified as seconds (s), milliseconds (ms), microseconds (us), "
                     "minutes (m or min), hour (h), or day (d). E.g. 50s, 100ms, or 250us.\n" +
                         reason);
  };
  ARROW_ASSIGN_OR_RAISE(auto split, SplitNumberAndUnit(text, /*signed_number=*/true, "time", fail));
  int64_t micros_per_unit = 1000;  // no unit: milliseconds
  if (!split.unit.empty()) {
    static const std::pair<const char*, int64_t> kUnits[] = {
        {"us", 1}, {"ms", 1000}, {"s", 1000000}, {"m", 60000000}, {"min", 60000000},
        {"h", 3600000000LL}, {"d", 86400000000LL}};
    micros_per_unit = 0;
    for (const auto& [name, micros] : kUnits) {
      if (split.unit == name) micros_per_unit = micros;
    }
    if (micros_per_unit == 0) return fail("Invalid suffix: \"" + split.unit + "\"");
  }
  // TimeUnit.convert: whole units, truncated toward zero.
  if (micros_per_unit >= 1000) return split.number * (micros_per_unit / 1000);
  return split.number / (1000 / micros_per_unit);
}

int64_t NowEpochMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

arrow::Result<int64_t> ParseByteString(const std::string& text) {
  auto fail = [&](const std::string& reason) {
    return UserError(ErrorKind::kNumberFormat, "",
                     "Size must be specified as bytes (b), kibibytes (k), mebibytes (m), gibibytes "
                     "(g), tebibytes (t), or pebibytes(p). E.g. 50b, 100k, or 250m.\n" +
                         reason);
  };
  ARROW_ASSIGN_OR_RAISE(auto split, SplitNumberAndUnit(text, /*signed_number=*/false, "byte", fail));
  int shift = 0;  // no unit: bytes
  if (!split.unit.empty()) {
    static const std::pair<const char*, int> kUnits[] = {
        {"b", 0},  {"k", 10}, {"kb", 10}, {"m", 20}, {"mb", 20}, {"g", 30},
        {"gb", 30}, {"t", 40}, {"tb", 40}, {"p", 50}, {"pb", 50}};
    shift = -1;
    for (const auto& [name, bits] : kUnits) {
      if (split.unit == name) shift = bits;
    }
    if (shift < 0) return fail("Invalid suffix: \"" + split.unit + "\"");
  }
  return split.number << shift;
}

}  // namespace ember
