#include "ember/common/interval.h"

#include <algorithm>
#include <cctype>
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

}  // namespace ember
