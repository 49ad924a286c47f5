#include "ember/stream/source/file_source.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>

#include <arrow/table.h>
#include <nlohmann/json.hpp>

#include "ember/error.h"
#include "ember/io/atomic_file.h"
#include "ember/plan/functions.h"
#include "ember/plan/type_names.h"
#include "ember/stream/metadata_log.h"

namespace ember::stream {

namespace fs = std::filesystem;
using arrow::Result;
using arrow::Status;
using nlohmann::json;

namespace {

// Spark's FileStreamSource.MAX_CACHED_UNSEEN_FILES and DISCARD_UNSEEN_INPUT_RATIO.
constexpr size_t kMaxCachedUnreadFiles = 10000;
constexpr double kDiscardUnreadRatio = 0.2;

Result<int64_t> PositiveOption(const plan::FileSource& source, const std::string& key) {
  auto it = source.options.find(key);
  if (it == source.options.end()) return 0;
  std::string original = key == "maxfilespertrigger" ? "maxFilesPerTrigger" : "maxBytesPerTrigger";
  try {
    size_t used = 0;
    int64_t value = std::stoll(it->second, &used);
    if (used == it->second.size() && value > 0) return value;
  } catch (...) {
  }
  return UserError(ErrorKind::kIllegalArgument, "",
                   "Invalid value '" + it->second + "' for option '" + original +
                       "', must be a positive integer",
                   "");
}

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), ::tolower);
  return text;
}

// A duration as Spark's timeStringAsMs reads it: a number and a unit (us, ms, s, m, min, h, d;
// milliseconds without one).
Result<int64_t> DurationMs(const std::string& option, const std::string& text) {
  static const std::map<std::string, double> units = {
      {"", 1},          {"us", 0.001},      {"ms", 1},       {"s", 1000},
      {"m", 60000},     {"min", 60000},     {"h", 3600000},  {"d", 86400000}};
  std::string value = Lower(text);
  value.erase(std::remove(value.begin(), value.end(), ' '), value.end());
  size_t digits = value.find_first_not_of("0123456789");
  auto unit = units.find(digits == std::string::npos ? "" : value.substr(digits));
  if (digits == 0 || unit == units.end()) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Invalid value '" + text + "' for option '" + option +
                         "': a time such as 7d, 12h, 30m, 10s or 500ms was expected",
                     "");
  }
  return static_cast<int64_t>(std::stod(value.substr(0, digits)) * unit->second);
}

}  // namespace

Result<std::shared_ptr<arrow::Schema>> FileStreamSource::Schema(Session& /*session*/,
                                                                plan::StreamSourceSpec& spec) {
  if (spec.paths.empty()) {
    return UserError(ErrorKind::kIllegalArgument, "_LEGACY_ERROR_TEMP_2047", "'path' is not specified.", "");
  }
  std::shared_ptr<arrow::Schema> schema = spec.schema;
  if (spec.format == "text") {
    // One string column, named `value` unless the user's schema names it (as a batch read).
    if (!schema || schema->num_fields() != 1) schema = arrow::schema({arrow::field("value", arrow::utf8())});
  } else if (!schema) {
    return UserError(ErrorKind::kIllegalArgument, "_LEGACY_ERROR_TEMP_2048",
                     "Schema must be specified when creating a streaming source DataFrame. If some "
                     "files already exist in the directory, then depending on the file format you "
                     "may be able to create a static DataFrame on that directory with "
                     "'spark.read.load(directory)' and infer schema from it.",
                     "");
  }
  // Spark lists the path when the stream is loaded, to find its partitions: a directory of
  // conflicting partition layouts fails here, before any query starts.
  std::error_code ec;
  if (std::filesystem::is_directory(spec.paths[0], ec)) {
    auto lookup = spec.options.find("recursivefilelookup");
    bool recursive = lookup != spec.options.end() && Lower(lookup->second) == "true";
    ARROW_RETURN_NOT_OK(io::ListFileIndex(spec.paths[0], recursive).status());
  }
  // A file may lack any column, so each is nullable whatever the user's schema says (Spark's
  // DataSource.sourceSchema, schema.asNullable).
  return plan::AsNullable(*schema);
}

Result<std::unique_ptr<Source>> FileStreamSource::Open(const SourceContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto policy, CompactionPolicy::FromConf(context.conf, "fileSource", context.directory));
  std::unique_ptr<FileStreamSource> self(new FileStreamSource());
  auto source = std::make_shared<plan::FileSource>();
  source->format = context.spec->format;
  source->paths = context.spec->paths;
  source->schema = context.spec->schema;
  source->options = context.spec->options;
  self->columns_ = context.referenced_columns;
  ARROW_ASSIGN_OR_RAISE(self->max_files_, PositiveOption(*source, "maxfilespertrigger"));
  ARROW_ASSIGN_OR_RAISE(self->max_bytes_, PositiveOption(*source, "maxbytespertrigger"));
  if (self->max_files_ > 0 && self->max_bytes_ > 0) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Options 'maxFilesPerTrigger' and 'maxBytesPerTrigger' can't be both set at "
                     "the same time",
                     "");
  }
  auto flag = [&](const char* key) {
    auto it = source->options.find(key);
    if (it == source->options.end()) return false;
    std::string v = it->second;
    std::transform(v.begin(), v.end(), v.begin(), ::tolower);
    return v == "true";
  };
  self->latest_first_ = flag("latestfirst");
  self->file_name_only_ = flag("filenameonly");
  auto option = [&](const char* key) {
    auto it = source->options.find(key);
    return it == source->options.end() ? std::string() : it->second;
  };
  if (!option("maxfileage").empty()) {
    ARROW_ASSIGN_OR_RAISE(self->max_file_age_ms_, DurationMs("maxFileAge", option("maxfileage")));
  }
  // With latestFirst and a per-trigger limit, Spark ignores maxFileAge.
  if (self->latest_first_ && (self->max_files_ > 0 || self->max_bytes_ > 0)) {
    self->max_file_age_ms_ = std::numeric_limits<int64_t>::max() / 2;
  }
  if (!option("cleansource").empty()) self->clean_source_ = Lower(option("cleansource"));
  if (self->clean_source_ != "off" && self->clean_source_ != "delete" &&
      self->clean_source_ != "archive") {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Invalid value '" + option("cleansource") +
                         "' for option 'cleanSource': expected one of 'archive', 'delete', 'off'",
                     "");
  }
  if (self->clean_source_ == "archive") {
    self->archive_directory_ = option("sourcearchivedir");
    if (self->archive_directory_.empty()) {
      return UserError(ErrorKind::kIllegalArgument, "",
                       "Archive directory to store completed files should be set via the "
                       "'sourceArchiveDir' option when 'cleanSource' is 'archive'",
                       "");
    }
    std::string archive = fs::absolute(self->archive_directory_).lexically_normal().string();
    for (const auto& path : source->paths) {
      std::string input = fs::absolute(path).lexically_normal().string();
      if ((archive + "/").rfind(input + "/", 0) == 0) {
        return UserError(ErrorKind::kIllegalArgument, "",
                         "The 'sourceArchiveDir' " + self->archive_directory_ +
                             " is inside the source path " + path +
                             ": archived files would be read again",
                         "");
      }
    }
  }
  self->source_ = std::move(*source);
  self->log_directory_ = context.directory;
  self->policy_ = policy;
  self->cleaner_.emplace(self->log_directory_, policy);
  return std::unique_ptr<Source>(std::move(self));
}

Status FileStreamSource::Restore() {
  // The seen files are every entry of the log.
  std::error_code ec;
  int64_t latest = -1;
  for (const auto& item : fs::directory_iterator(log_directory_, ec)) {
    std::string name = item.path().filename().string();
    std::string number = name.substr(0, name.find('.'));
    if (!number.empty() && number.find_first_not_of("0123456789") == std::string::npos &&
        (name == number || name == number + ".compact")) {
      latest = std::max<int64_t>(latest, std::stoll(number));
    }
  }
  latest_batch_ = latest;
  ARROW_ASSIGN_OR_RAISE(auto entries, EntriesThrough(latest));
  for (const auto& e : entries) {
    seen_.insert(SeenKey(io::PathFromUri(e.path)));
    latest_seen_ms_ = std::max(latest_seen_ms_, e.timestamp);
  }
  return Status::OK();
}

std::string FileStreamSource::SeenKey(const std::string& path) const {
  return file_name_only_ ? fs::path(path).filename().string() : path;
}

std::string FileStreamSource::LogPath(int64_t batch_id) const {
  std::string name = std::to_string(batch_id);
  if (policy_.IsCompaction(batch_id)) name += ".compact";
  return (fs::path(log_directory_) / name).string();
}

Result<std::optional<std::vector<FileStreamSource::Entry>>> FileStreamSource::ReadLogFile(
    int64_t batch_id) const {
  std::string path = (fs::path(log_directory_) / std::to_string(batch_id)).string();
  ARROW_ASSIGN_OR_RAISE(auto text, io::ReadFileIfExists(path));
  if (!text) {
    path += ".compact";
    ARROW_ASSIGN_OR_RAISE(text, io::ReadFileIfExists(path));
    if (!text) return std::optional<std::vector<Entry>>();
  }
  ARROW_ASSIGN_OR_RAISE(auto body, LogBody(*text, path));
  std::vector<Entry> entries;
  std::istringstream lines(body);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    auto j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("path") || !j["path"].is_string() ||
        !j.value("timestamp", json()).is_number_integer() || !j.value("batchId", json()).is_number_integer()) {
      return DamagedCheckpointFile(path, "its line " + line + " is not a file entry");
    }
    entries.push_back(Entry{j["path"].get<std::string>(), j["timestamp"].get<int64_t>(),
                            j["batchId"].get<int64_t>()});
  }
  // An entry is written only for a batch that selected files.
  if (entries.empty()) return DamagedCheckpointFile(path, "it lists no file");
  return entries;
}

Result<std::vector<FileStreamSource::Entry>> FileStreamSource::ReadEntries(int64_t batch_id) const {
  if (auto it = recent_.find(batch_id); it != recent_.end()) return it->second;
  ARROW_ASSIGN_OR_RAISE(auto entries, ReadLogFile(batch_id));
  if (!entries) {
    return UserError(ErrorKind::kIllegalState, "",
                     "batch " + std::to_string(batch_id) + " doesn't exist in " + log_directory_ +
                         ": the file source log lost its entry " + LogPath(batch_id),
                     "");
  }
  // A compaction file holds earlier entries too: keep this batch's own, which come last, so a
  // compaction cut short has lost them.
  std::erase_if(*entries, [&](const Entry& e) { return e.batch_id != batch_id; });
  if (entries->empty()) {
    return DamagedCheckpointFile(LogPath(batch_id), "it lists no file of batch " + std::to_string(batch_id));
  }
  return std::move(*entries);
}

Result<std::vector<FileStreamSource::Entry>> FileStreamSource::EntriesThrough(int64_t last) const {
  std::vector<Entry> all;
  // The newest compaction at or before `last` holds every entry before it (Spark's
  // CompactibleFileStreamLog.allFiles starts there); without one, read from batch 0.
  int64_t first = 0;
  int64_t compaction = policy_.CompactionAtOrBefore(last);
  std::error_code ec;
  if (compaction >= 0 &&
      fs::exists(fs::path(log_directory_) / (std::to_string(compaction) + ".compact"), ec)) {
    ARROW_ASSIGN_OR_RAISE(auto entries, ReadLogFile(compaction));
    // Its own batch's entries come last: without them, it was cut short.
    if (entries && std::none_of(entries->begin(), entries->end(),
                                [&](const Entry& e) { return e.batch_id == compaction; })) {
      return DamagedCheckpointFile(LogPath(compaction),
                                   "it lists no file of batch " + std::to_string(compaction));
    }
    if (entries) all = std::move(*entries);
    first = compaction + 1;
  }
  for (int64_t k = first; k <= last; ++k) {
    ARROW_ASSIGN_OR_RAISE(auto entries, ReadEntries(k));
    all.insert(all.end(), entries.begin(), entries.end());
  }
  return all;
}

Status FileStreamSource::WriteEntries(int64_t batch_id, const std::vector<Entry>& entries) {
  std::vector<Entry> all;
  std::string name = std::to_string(batch_id);
  if (policy_.IsCompaction(batch_id)) {
    // Every tenth entry is a compaction: the previous compaction, the batches since and its own
    // entries, so readers start there.
    ARROW_ASSIGN_OR_RAISE(all, EntriesThrough(batch_id - 1));
    name += ".compact";
  }
  all.insert(all.end(), entries.begin(), entries.end());
  std::string body = "v1";
  for (const auto& e : all) {
    // FileEntry, its fields in Spark's order.
    nlohmann::ordered_json j = {{"path", e.path}, {"timestamp", e.timestamp}, {"batchId", e.batch_id}};
    body += "\n" + j.dump();
  }
  ARROW_ASSIGN_OR_RAISE(bool added,
                        io::WriteFileAtomically((fs::path(log_directory_) / name).string(), body));
  if (!added) {
    return UserError(ErrorKind::kIllegalState, "CONCURRENT_STREAM_LOG_UPDATE",
                     "Concurrent update to the log. Multiple streaming jobs detected for " +
                         std::to_string(batch_id) +
                         ". Please make sure only one streaming job runs on a specific checkpoint "
                         "location at a time.",
                     "40000");
  }
  cleaner_->AfterAdd(batch_id);
  return Status::OK();
}

Result<std::vector<io::FileEntry>> FileStreamSource::ListAll() const {
  std::vector<io::FileEntry> all;
  auto lookup = source_.options.find("recursivefilelookup");
  const bool recursive = lookup != source_.options.end() && Lower(lookup->second) == "true";
  for (const auto& path : source_.paths) {
    ARROW_ASSIGN_OR_RAISE(auto files, io::ListFileIndex(path, recursive));
    all.insert(all.end(), std::make_move_iterator(files.begin()), std::make_move_iterator(files.end()));
  }
  std::stable_sort(all.begin(), all.end(), [&](const io::FileEntry& a, const io::FileEntry& b) {
    return latest_first_ ? a.modification_time_ms > b.modification_time_ms
                         : a.modification_time_ms < b.modification_time_ms;
  });
  return all;
}

Status FileStreamSource::CheckReplayable(const std::string& end) const {
  ARROW_ASSIGN_OR_RAISE(int64_t offset, LogOffset(end));
  if (offset <= latest_batch_) return Status::OK();
  return UserError(ErrorKind::kIllegalState, "",
                   "batch " + std::to_string(offset) + " doesn't exist in " + log_directory_ +
                       ": the offsets log names it, but the file source log lost its entry " +
                       LogPath(offset),
                   "");
}

Status FileStreamSource::PrepareForAvailableNow() {
  ARROW_ASSIGN_OR_RAISE(auto files, ListAll());
  available_now_ = std::move(files);
  return Status::OK();
}

// Spark's fetchMaxOffset.
Result<Offset> FileStreamSource::LatestOffset(const Offset& start) {
  // Spark's SeenFilesMap.isNewFile: not seen, and not older than the purge threshold.
  const int64_t threshold = latest_seen_ms_ - max_file_age_ms_;
  std::vector<io::FileEntry> fresh;
  if (unread_) {
    // What an earlier trigger's limit left: served as it is, without listing.
    fresh = std::move(*unread_);
    unread_.reset();
  } else {
    std::vector<io::FileEntry> listed;
    if (!available_now_) {
      ARROW_ASSIGN_OR_RAISE(listed, ListAll());
    } else if (!file_name_only_ && !available_now_unseen_) {
      std::erase_if(*available_now_, [&](const io::FileEntry& f) { return seen_.count(SeenKey(f.path)) > 0; });
      available_now_unseen_ = true;
    }
    for (const auto& f : available_now_ ? *available_now_ : listed) {
      if (f.modification_time_ms < threshold || (!available_now_unseen_ && seen_.count(SeenKey(f.path)))) {
        continue;
      }
      fresh.push_back(f);
    }
  }
  // The read limit splits the new files into this batch's and the rest. Without latestFirst the
  // rest is kept for the next triggers, unless so little is left (under a fifth of the limit)
  // that the next trigger had better list again.
  size_t take = fresh.size();
  bool keep_rest = false;
  if (max_files_ > 0) {
    take = std::min<size_t>(take, static_cast<size_t>(max_files_));
    keep_rest = static_cast<double>(fresh.size() - take) >=
                static_cast<double>(max_files_) * kDiscardUnreadRatio;
  } else if (max_bytes_ > 0) {
    // Always one file; then files in order while the total stays within the limit.
    int64_t total = 0;
    take = 0;
    while (take < fresh.size() && (take == 0 || total + fresh[take].size <= max_bytes_)) {
      total += fresh[take++].size;
    }
    double rest = 0;
    for (size_t i = take; i < fresh.size(); ++i) rest += static_cast<double>(fresh[i].size);
    keep_rest = rest >= static_cast<double>(max_bytes_) * kDiscardUnreadRatio;
  }
  // Under AvailableNow, Spark filters its one listing again at every trigger instead.
  if (keep_rest && !latest_first_ && !available_now_ && take < fresh.size()) {
    size_t end = take + std::min(fresh.size() - take, kMaxCachedUnreadFiles);
    unread_.emplace(std::make_move_iterator(fresh.begin() + static_cast<std::ptrdiff_t>(take)),
                    std::make_move_iterator(fresh.begin() + static_cast<std::ptrdiff_t>(end)));
  }
  fresh.resize(take);
  if (fresh.empty()) return start;
  if (available_now_unseen_) {
    // The files taken are the first `take` of the listing's new ones, in order.
    std::vector<io::FileEntry> left;
    size_t taken = 0;
    for (auto& f : *available_now_) {
      if (taken < take && f.modification_time_ms >= threshold) {
        ++taken;
      } else {
        left.push_back(std::move(f));
      }
    }
    available_now_ = std::move(left);
  }
  int64_t k = latest_batch_ + 1;
  std::vector<Entry> entries;
  for (const auto& f : fresh) entries.push_back(Entry{io::PathToUri(f.path), f.modification_time_ms, k});
  ARROW_RETURN_NOT_OK(WriteEntries(k, entries));
  recent_[k] = std::move(entries);
  if (static_cast<int64_t>(recent_.size()) > policy_.compact_interval) recent_.erase(recent_.begin());
  for (const auto& f : fresh) {
    seen_.insert(SeenKey(f.path));
    latest_seen_ms_ = std::max(latest_seen_ms_, f.modification_time_ms);
  }
  latest_batch_ = k;
  return json({{"logOffset", k}}).dump();
}

Status FileStreamSource::Commit(const std::string& end) {
  if (clean_source_ == "off") return Status::OK();
  ARROW_ASSIGN_OR_RAISE(int64_t offset, LogOffset(end));
  ARROW_ASSIGN_OR_RAISE(auto entries, ReadEntries(offset));
  // Best effort, as in Spark: a file that cannot be moved stays where it is.
  for (const auto& e : entries) {
    fs::path file = io::PathFromUri(e.path);
    std::error_code ec;
    if (clean_source_ == "delete") {
      fs::remove(file, ec);
      continue;
    }
    fs::path target = fs::path(archive_directory_) / fs::absolute(file).relative_path();
    fs::create_directories(target.parent_path(), ec);
    fs::rename(file, target, ec);
  }
  return Status::OK();
}

Result<std::vector<InputPartition>> FileStreamSource::BatchFiles(int64_t start, int64_t end) const {
  std::vector<InputPartition> files;
  for (int64_t k = start + 1; k <= end; ++k) {
    ARROW_ASSIGN_OR_RAISE(auto entries, ReadEntries(k));
    for (const auto& e : entries) {
      InputPartition file{io::PathFromUri(e.path), 0};
      std::error_code ec;
      uintmax_t size = fs::file_size(file.location, ec);
      file.bytes = ec ? 0 : static_cast<int64_t>(size);
      files.push_back(std::move(file));
    }
  }
  // Spark reads a batch's files largest first (FilePartition packs splits by descending
  // length, stably); "first row wins" operators (dropDuplicates, first()) see rows in that order.
  std::stable_sort(files.begin(), files.end(),
                   [](const InputPartition& a, const InputPartition& b) { return a.bytes > b.bytes; });
  return files;
}

Result<std::vector<InputPartition>> FileStreamSource::PlanInputPartitions(const Offset& start,
                                                                          const std::string& end) {
  int64_t first = -1;
  if (start) {
    ARROW_ASSIGN_OR_RAISE(first, LogOffset(start));
  }
  ARROW_ASSIGN_OR_RAISE(int64_t last, LogOffset(end));
  return BatchFiles(first, last);
}

Result<std::shared_ptr<arrow::Table>> FileStreamSource::ReadPartitions(const std::vector<InputPartition>& parts,
                                                                      const plan::EvalContext& ctx) const {
  std::vector<std::string> paths;
  for (const auto& part : parts) paths.push_back(part.location);
  return io::ReadFiles(source_, paths, ctx, columns_);
}

Result<std::shared_ptr<arrow::Table>> FileStreamSource::ReadBatch(const Offset& start, const std::string& end,
                                                                 const plan::EvalContext& ctx) {
  ARROW_ASSIGN_OR_RAISE(auto files, PlanInputPartitions(start, end));
  return ReadPartitions(files, ctx);
}

std::string FileStreamSource::Description() const {
  return "FileStreamSource[" + source_.paths[0] + "]";
}

Result<int64_t> FileStreamSource::LogOffset(const Offset& offset) {
  auto j = json::parse(offset.value_or(""), nullptr, false);
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_object() && j.value("logOffset", json()).is_number_integer()) return j["logOffset"].get<int64_t>();
  return UserError(ErrorKind::kIllegalState, "", "Invalid file source offset: " + offset.value_or("-"), "");
}

}  // namespace ember::stream
