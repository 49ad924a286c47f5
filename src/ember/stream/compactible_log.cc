#include "ember/stream/compactible_log.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "ember/common/interval.h"
#include "ember/error.h"

namespace ember::stream {

namespace fs = std::filesystem;
using arrow::Result;
using arrow::Status;

namespace {

// The batch id of a log file's name ("12" or "12.compact"), or nothing.
std::optional<int64_t> BatchIdOf(const std::string& name, bool* compact) {
  std::string number = name.substr(0, name.find('.'));
  if (number.empty() || number.size() > 18 ||
      number.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  *compact = name == number + ".compact";
  if (!*compact && name != number) return std::nullopt;
  return std::stoll(number);
}

}  // namespace

Result<int64_t> PositiveIntConf(
    const std::function<std::optional<std::string>(const std::string&)>& conf,
    const std::string& key, int64_t fallback, const std::string& must_be) {
  auto text = conf(key);
  if (!text) return fallback;
  int64_t value = 0;
  try {
    size_t used = 0;
    value = std::stoll(*text, &used);
    if (used != text->size()) throw std::invalid_argument(*text);
  } catch (...) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     key + " should be int, but was " + *text, "");
  }
  if (value <= 0) return UserError(ErrorKind::kIllegalArgument, "", must_be, "");
  return value;
}

namespace {

// Spark's deriveCompactInterval: with one compaction file, the smallest divisor of its batch
// id + 1 that is at least the default (or the id + 1 itself), so that file stays a compaction.
int64_t DeriveCompactInterval(int64_t default_interval, int64_t latest_compact) {
  int64_t n = latest_compact + 1;
  if (n <= default_interval || default_interval >= n / 2) return n;
  for (int64_t i = default_interval; i <= n / 2; ++i) {
    if (n % i == 0) return i;
  }
  return n;
}

}  // namespace

Result<int64_t> MinBatchesToRetain(
    const std::function<std::optional<std::string>(const std::string&)>& conf) {
  return PositiveIntConf(conf, "spark.sql.streaming.minBatchesToRetain", 100,
                 "The minimum number of batches to be retained must be positive.");
}

Result<CompactionPolicy> CompactionPolicy::FromConf(
    const std::function<std::optional<std::string>(const std::string&)>& conf,
    const std::string& log, const std::string& directory) {
  CompactionPolicy policy;
  const std::string prefix = "spark.sql.streaming." + log + ".log.";
  ARROW_ASSIGN_OR_RAISE(policy.compact_interval,
                        PositiveIntConf(conf, prefix + "compactInterval", 10,
                                "requirement failed: Please set " + prefix +
                                    "compactInterval (was " +
                                    conf(prefix + "compactInterval").value_or("") +
                                    ") to a positive value."));
  if (auto deletion = conf(prefix + "deletion")) {
    std::string value = *deletion;
    std::transform(value.begin(), value.end(), value.begin(), ::tolower);
    if (value != "true" && value != "false") {
      return UserError(ErrorKind::kIllegalArgument, "",
                       prefix + "deletion should be boolean, but was " + *deletion, "");
    }
    policy.deletion = value == "true";
  }
  if (auto delay = conf(prefix + "cleanupDelay")) {
    ARROW_ASSIGN_OR_RAISE(policy.cleanup_delay_ms, ParseTimeStringMs(*delay));
  }
  ARROW_ASSIGN_OR_RAISE(policy.min_batches_to_retain, MinBatchesToRetain(conf));
  // An existing log keeps the interval it was written with (SPARK-18187): that of its last two
  // compactions, or one its only compaction divides.
  std::vector<int64_t> compactions;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(directory, ec)) {
    bool compact = false;
    auto id = BatchIdOf(item.path().filename().string(), &compact);
    if (id && compact) compactions.push_back(*id);
  }
  std::sort(compactions.rbegin(), compactions.rend());
  if (compactions.size() >= 2) {
    policy.compact_interval = compactions[0] - compactions[1];
  } else if (compactions.size() == 1) {
    policy.compact_interval = DeriveCompactInterval(policy.compact_interval, compactions[0]);
  }
  return policy;
}

void ExpiredLogCleaner::AfterAdd(int64_t current_batch) {
  if (!policy_.deletion) return;
  const int64_t min_batch = current_batch + 1 - policy_.min_batches_to_retain;
  if (policy_.compact_interval > min_batch) return;
  // The compaction the oldest retained batch is read from: everything below it can go.
  const int64_t min_compaction = min_batch - min_batch % policy_.compact_interval - 1;
  if (oldest_left_ && *oldest_left_ >= min_compaction) return;
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const int64_t expired_ms = now_ms - policy_.cleanup_delay_ms;
  // Deletes an entry if it is old enough; false if it is too recent to.
  auto expire = [&](const fs::path& path) {
    struct stat status;
    if (::stat(path.c_str(), &status) != 0) return true;  // gone already
    int64_t modified_ms = static_cast<int64_t>(status.st_mtim.tv_sec) * 1000 +
                          status.st_mtim.tv_nsec / 1'000'000;
    if (modified_ms > expired_ms) return false;
    std::error_code ignored;
    fs::remove(path, ignored);
    return true;
  };
  if (!oldest_left_) {
    std::vector<std::pair<int64_t, fs::path>> entries;
    std::error_code ec;
    for (const auto& item : fs::directory_iterator(directory_, ec)) {
      bool compact = false;
      auto id = BatchIdOf(item.path().filename().string(), &compact);
      if (id) entries.emplace_back(*id, item.path());
    }
    std::sort(entries.begin(), entries.end());
    oldest_left_ = min_compaction;
    for (const auto& [id, path] : entries) {
      if (id >= min_compaction) break;
      if (!expire(path)) {
        oldest_left_ = id;
        break;
      }
    }
    return;
  }
  for (int64_t id = *oldest_left_; id < min_compaction; ++id) {
    fs::path plain = fs::path(directory_) / std::to_string(id);
    if (!expire(plain) || !expire(plain.string() + ".compact")) {
      oldest_left_ = id;
      return;
    }
  }
  oldest_left_ = min_compaction;
}

}  // namespace ember::stream
