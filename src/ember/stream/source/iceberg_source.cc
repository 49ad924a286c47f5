// Iceberg tables as a stream, by the rules of Iceberg's Spark source (SparkMicroBatchStream,
// Iceberg 1.10): each batch reads the data files that appended snapshots added, in snapshot
// order. Its offset is Iceberg's StreamingOffset,
// {"version":1,"snapshot_id":S,"position":P,"scan_all_files":false}: the files of snapshot S
// before position P are read. A snapshot's positions count the files its own manifests list as
// added by it, each manifest starting at the sum of the added and existing files of the ones
// before it. Read limits may end a batch inside a snapshot. A replace snapshot (compaction) is
// skipped; a delete or overwrite snapshot fails the query unless the options skip it.
// Trigger.AvailableNow reads everything up to the snapshot current at the start in one batch.
//
// The first offset is chosen when the query first starts and kept in sources/<i>/offsets/0, as
// Iceberg keeps it: the oldest ancestor of the current snapshot (or the oldest one committed at
// or after stream-from-timestamp), position 0; an empty table's is (-1, -1).
#include <arrow/table.h>

#include <cctype>
#include <climits>
#include <cstdio>
#include <functional>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "ember/error.h"
#include "ember/io/atomic_file.h"
#include "ember/session.h"
#include "ember/iceberg/catalog.h"
#include "ember/iceberg/table.h"
#include "ember/stream/metadata_log.h"
#include "ember/stream/source/source.h"

namespace ember::stream {

namespace fs = std::filesystem;
using arrow::Result;
using nlohmann::json;

namespace {

// Iceberg's StreamingOffset.
struct Position {
  int64_t snapshot_id = -1;
  int64_t position = -1;
  bool scan_all_files = false;
  bool operator==(const Position&) const = default;
};

const Position kStart;  // StreamingOffset.START_OFFSET: no snapshot yet

std::string Json(const Position& p) {
  return nlohmann::ordered_json({{"version", 1},
                                 {"snapshot_id", p.snapshot_id},
                                 {"position", p.position},
                                 {"scan_all_files", p.scan_all_files}})
      .dump();
}

Result<Position> Parse(const std::string& text) {
  auto j = json::parse(text, nullptr, false);
  auto bad = [&](const std::string& why) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Invalid Iceberg streaming offset " + text + ": " + why, "");
  };
  if (!j.is_object()) return bad("not a JSON object");
  if (!j.contains("version") || !j["version"].is_number_integer()) return bad("no version");
  if (j["version"].get<int64_t>() != 1) {
    return bad("version " + j["version"].dump() + " is not supported, only version 1");
  }
  if (!j.contains("snapshot_id") || !j["snapshot_id"].is_number_integer() ||
      !j.contains("position") || !j["position"].is_number_integer() ||
      !j.contains("scan_all_files") || !j["scan_all_files"].is_boolean()) {
    return bad("it needs snapshot_id, position and scan_all_files");
  }
  return Position{j["snapshot_id"].get<int64_t>(), j["position"].get<int64_t>(),
                  j["scan_all_files"].get<bool>()};
}

struct Options {
  int64_t from_timestamp = LLONG_MIN;
  bool skip_delete = false;
  bool skip_overwrite = false;
  int64_t max_files = INT_MAX;
  int64_t max_rows = INT_MAX;
};

// Java's Boolean.parseBoolean: "true" in any case, anything else false.
bool BoolOption(const plan::StreamSourceSpec& spec, const std::string& key) {
  auto it = spec.options.find(key);
  if (it == spec.options.end() || it->second.size() != 4) return false;
  std::string v = it->second;
  for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return v == "true";
}

Result<Options> ParseOptions(const plan::StreamSourceSpec& spec) {
  Options o;
  ARROW_ASSIGN_OR_RAISE(o.from_timestamp,
                        IntegerOption(spec, "stream-from-timestamp", LLONG_MIN, LLONG_MIN, LLONG_MAX));
  ARROW_ASSIGN_OR_RAISE(o.max_files, IntegerOption(spec, "streaming-max-files-per-micro-batch",
                                                   INT_MAX, INT_MIN, INT_MAX));
  ARROW_ASSIGN_OR_RAISE(o.max_rows, IntegerOption(spec, "streaming-max-rows-per-micro-batch",
                                                  INT_MAX, INT_MIN, INT_MAX));
  o.skip_delete = BoolOption(spec, "streaming-skip-delete-snapshots");
  o.skip_overwrite = BoolOption(spec, "streaming-skip-overwrite-snapshots");
  return o;
}

// A data manifest of a snapshot, with the position of its first file.
struct IndexedManifest {
  int64_t first = 0;
  std::vector<iceberg::ManifestDataEntry> files;  // those the stream reads, in order
};

class IcebergSource : public Source {
 public:
  IcebergSource(const SourceContext& context, const iceberg::StreamedTable* table,
                Options options)
      : spec_(context.spec), table_(table), options_(options), directory_(context.directory) {}

  // The initial offset: sources/<i>/offsets/0 if a run wrote it, else chosen now and written.
  arrow::Status Restore() override {
    std::string path = (fs::path(directory_) / "offsets" / "0").string();
    ARROW_ASSIGN_OR_RAISE(auto text, io::ReadFileIfExists(path));
    if (text) {
      auto parsed = Parse(*text);
      if (!parsed.ok()) {
        return DamagedCheckpointFile(path, "it does not hold an Iceberg streaming offset");
      }
      initial_ = *parsed;
      return arrow::Status::OK();
    }
    ARROW_RETURN_NOT_OK(Refresh());
    ARROW_ASSIGN_OR_RAISE(initial_, StartingPosition());
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    ARROW_ASSIGN_OR_RAISE(bool written, io::WriteFileAtomically(path, Json(initial_)));
    if (!written) return Restore();  // another run wrote it first: use its offset
    return arrow::Status::OK();
  }

  // Iceberg 1.10's source lacks SupportsTriggerAvailableNow, so Spark wraps it: one end offset,
  // everything up to the snapshot current now, fetched once without read limits.
  arrow::Status PrepareForAvailableNow() override {
    ARROW_ASSIGN_OR_RAISE(available_now_end_, Latest(initial_, INT_MAX, INT_MAX));
    available_now_ = true;
    return arrow::Status::OK();
  }

  void ReadAllAvailable() override { options_.max_files = options_.max_rows = INT_MAX; }

  Result<Offset> LatestOffset(const Offset& start) override {
    Position from = initial_;
    if (start) {
      ARROW_ASSIGN_OR_RAISE(from, Parse(*start));
    }
    std::optional<Position> latest = available_now_end_;
    if (!available_now_) {
      ARROW_ASSIGN_OR_RAISE(latest, Latest(from, options_.max_files, options_.max_rows));
    }
    if (!latest) return start;  // nothing new
    return Json(*latest);
  }

  arrow::Result<std::vector<InputPartition>> PlanInputPartitions(const Offset& start,
                                                                 const std::string& end) override {
    Position from = initial_;
    if (start) {
      ARROW_ASSIGN_OR_RAISE(from, Parse(*start));
    }
    ARROW_ASSIGN_OR_RAISE(Position to, Parse(end));
    return PlanFiles(from, to);
  }

  Result<std::shared_ptr<arrow::Table>> ReadBatch(const Offset& start, const std::string& end,
                                                  const plan::EvalContext& ctx) override {
    ARROW_ASSIGN_OR_RAISE(auto parts, PlanInputPartitions(start, end));
    return ReadPartitions(parts, ctx);
  }

  Result<std::shared_ptr<arrow::Table>> ReadPartitions(
      const std::vector<InputPartition>& parts, const plan::EvalContext& /*ctx*/) const override {
    std::vector<std::shared_ptr<arrow::Table>> tables;
    for (const auto& part : parts) {
      ARROW_ASSIGN_OR_RAISE(auto rows, iceberg::ReadDataFile(file_schema_, part.location));
      tables.push_back(std::move(rows));
    }
    if (tables.empty()) return arrow::Table::MakeEmpty(spec_->schema);
    ARROW_ASSIGN_OR_RAISE(auto rows, arrow::ConcatenateTables(tables));
    return rows->CombineChunks();
  }

  // Spark's is Java's default toString, the class and an identity hash.
  std::string Description() const override {
    char hash[16];
    std::snprintf(hash, sizeof(hash), "%x",
                  static_cast<unsigned>(std::hash<const void*>()(this) & 0x7fffffff));
    return std::string("org.apache.iceberg.spark.source.SparkMicroBatchStream@") + hash;
  }

 private:
  // The table's current metadata, and the schema its files are read in (the stream's columns,
  // by name, with the table's field ids).
  arrow::Status Refresh() {
    ARROW_ASSIGN_OR_RAISE(meta_, table_->Load());
    arrow::FieldVector fields;
    for (const auto& column : spec_->schema->fields()) {
      auto field = meta_.metadata.schema->GetFieldByName(column->name());
      if (!field) {
        return UserError(ErrorKind::kIllegalState, "",
                         "Column " + column->name() + " of the stream is no longer in table " +
                             table_->Name(),
                         "");
      }
      fields.push_back(field);
    }
    file_schema_ = arrow::schema(fields);
    return arrow::Status::OK();
  }

  const iceberg::TableMetadata& metadata() const { return meta_.metadata; }

  Result<const iceberg::Snapshot*> SnapshotAt(const Position& p) const {
    const iceberg::Snapshot* s = metadata().snapshot(p.snapshot_id);
    if (!s) {
      return UserError(ErrorKind::kIllegalState, "",
                       "Cannot load current offset at snapshot " + std::to_string(p.snapshot_id) +
                           ", the snapshot was expired or removed",
                       "");
    }
    return s;
  }

  // The child of `id` among the current snapshot's ancestors (Iceberg's SnapshotUtil.snapshotAfter).
  Result<const iceberg::Snapshot*> SnapshotAfter(int64_t id) const {
    for (const iceberg::Snapshot* s = metadata().current_snapshot(); s;
         s = s->parent_snapshot_id ? metadata().snapshot(*s->parent_snapshot_id) : nullptr) {
      if (s->parent_snapshot_id == id) return s;
    }
    return UserError(ErrorKind::kIllegalState, "",
                     "Cannot find snapshot after " + std::to_string(id) +
                         ": not an ancestor of table's current snapshot",
                     "");
  }

  const iceberg::Snapshot* OldestAncestor() const {
    const iceberg::Snapshot* s = metadata().current_snapshot();
    while (s && s->parent_snapshot_id && metadata().snapshot(*s->parent_snapshot_id)) {
      s = metadata().snapshot(*s->parent_snapshot_id);
    }
    return s;
  }

  // Iceberg's determineStartingOffset.
  Result<Position> StartingPosition() const {
    const iceberg::Snapshot* current = metadata().current_snapshot();
    if (!current) return kStart;
    if (current->timestamp_ms < options_.from_timestamp) return kStart;
    // The oldest ancestor committed at or after the timestamp; when every ancestor is, the
    // oldest of all.
    const iceberg::Snapshot* last = nullptr;
    for (const iceberg::Snapshot* s = current; s;
         s = s->parent_snapshot_id ? metadata().snapshot(*s->parent_snapshot_id) : nullptr) {
      if (s->timestamp_ms < options_.from_timestamp) break;
      last = s;
      if (s->timestamp_ms == options_.from_timestamp) break;
    }
    if (!last) return kStart;
    return Position{last->snapshot_id, 0, false};
  }

  // Whether the stream reads a snapshot's files: appends yes, replaces (compactions) no; deletes
  // and overwrites fail unless their option skips them.
  Result<bool> ShouldProcess(const iceberg::Snapshot& s) const {
    auto it = s.summary.find("operation");
    std::string op = it == s.summary.end() ? "" : it->second;
    std::string id = std::to_string(s.snapshot_id);
    if (op == "append") return true;
    if (op == "replace") return false;
    if (op == "delete") {
      if (options_.skip_delete) return false;
      return UserError(ErrorKind::kIllegalState, "",
                       "Cannot process delete snapshot: " + id +
                           ", to ignore deletes, set streaming-skip-delete-snapshots=true",
                       "");
    }
    if (op == "overwrite") {
      if (options_.skip_overwrite) return false;
      return UserError(ErrorKind::kIllegalState, "",
                       "Cannot process overwrite snapshot: " + id +
                           ", to ignore overwrites, set streaming-skip-overwrite-snapshots=true",
                       "");
    }
    return UserError(ErrorKind::kIllegalState, "",
                     "Cannot process unknown snapshot operation: " + op + " (snapshot id " + id + ")",
                     "");
  }

  // The next snapshot after `s` that the stream reads; null when all the rest up to the current
  // one are skipped.
  Result<const iceberg::Snapshot*> NextValidSnapshot(const iceberg::Snapshot& s) const {
    ARROW_ASSIGN_OR_RAISE(const iceberg::Snapshot* next, SnapshotAfter(s.snapshot_id));
    while (true) {
      ARROW_ASSIGN_OR_RAISE(bool process, ShouldProcess(*next));
      if (process) return next;
      if (next->snapshot_id == *metadata().current_snapshot_id) return nullptr;
      ARROW_ASSIGN_OR_RAISE(next, SnapshotAfter(next->snapshot_id));
    }
  }

  // A snapshot's manifests from the one holding position `start` on (Iceberg's
  // skippedManifestIndexesFromSnapshot), each with the files the stream reads from it: those the
  // snapshot added, or every live one when scanning all files.
  Result<std::vector<IndexedManifest>> Manifests(const iceberg::Snapshot& s, int64_t start,
                                                 bool scan_all) {
    auto key = std::make_pair(s.snapshot_id, scan_all);
    auto cached = manifests_.find(key);
    if (cached == manifests_.end()) {
      ARROW_ASSIGN_OR_RAISE(auto list, iceberg::SnapshotManifests(s));
      std::vector<IndexedManifest> all;
      int64_t next = 0;
      for (const auto& m : list) {
        const auto& f = m.as<iceberg::avro::Record>().fields;
        if (f[3].as<int32_t>() != 0) continue;  // delete files
        if (!scan_all && f[6].as<int64_t>() != s.snapshot_id) continue;
        auto count = [](const iceberg::avro::Datum& d) { return d.is<int32_t>() ? d.as<int32_t>() : 0; };
        IndexedManifest indexed{next, {}};
        next += count(f[7]) + count(f[8]);
        ARROW_ASSIGN_OR_RAISE(auto entries, iceberg::ManifestDataEntries(metadata(), m));
        for (auto& e : entries) {
          bool read = scan_all ? e.status != 2 : (e.status == 1 && e.snapshot_id == s.snapshot_id);
          if (read) indexed.files.push_back(std::move(e));
        }
        all.push_back(std::move(indexed));
      }
      if (manifests_.size() > 256) manifests_.clear();  // manifests never change: a plain cache
      cached = manifests_.emplace(key, std::move(all)).first;
    }
    const auto& all = cached->second;
    if (start == 0) return all;
    // From the last manifest starting at or before `start`.
    size_t skip = 0;
    while (skip < all.size() && all[skip].first <= start) ++skip;
    size_t from = skip == 0 ? 0 : skip - 1;
    return std::vector<IndexedManifest>(all.begin() + static_cast<std::ptrdiff_t>(from), all.end());
  }

  // A snapshot's added files by the summary, as Iceberg's addedFilesCount.
  Result<int64_t> AddedFiles(const iceberg::Snapshot& s) {
    auto it = s.summary.find("added-data-files");
    if (it != s.summary.end()) {
      try {
        return std::stoll(it->second);
      } catch (...) {
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto manifests, Manifests(s, 0, false));
    int64_t n = 0;
    for (const auto& m : manifests) n += static_cast<int64_t>(m.files.size());
    return n;
  }

  // Iceberg's latestOffset(start, limit): the end of the next batch, or nullopt when nothing
  // is new.
  Result<std::optional<Position>> Latest(const Position& start, int64_t max_files,
                                         int64_t max_rows) {
    ARROW_RETURN_NOT_OK(Refresh());
    const iceberg::Snapshot* current = metadata().current_snapshot();
    if (!current || current->timestamp_ms < options_.from_timestamp) return kStart;
    Position from = start;
    if (start == kStart) {
      ARROW_ASSIGN_OR_RAISE(from, StartingPosition());
    }
    ARROW_ASSIGN_OR_RAISE(const iceberg::Snapshot* snapshot, SnapshotAt(from));
    int64_t start_position = from.position;
    bool scan_all = from.scan_all_files;
    bool more = true;
    int64_t files = 0, rows = 0, position = 0;
    while (more) {
      ARROW_ASSIGN_OR_RAISE(auto manifests, Manifests(*snapshot, start_position, scan_all));
      for (size_t i = 0; i < manifests.size() && more; ++i) {
        position = manifests[i].first;
        for (const auto& file : manifests[i].files) {
          if (position >= start_position) {
            if (files + 1 > max_files) {
              more = false;
              break;
            }
            ++files;
            rows += file.record_count;
            if (rows >= max_rows) {
              ++position;  // this file is in the batch
              more = false;
              break;
            }
          }
          ++position;
        }
      }
      if (snapshot->snapshot_id == current->snapshot_id) break;
      if (more) {
        ARROW_ASSIGN_OR_RAISE(const iceberg::Snapshot* next, NextValidSnapshot(*snapshot));
        if (!next) break;
        snapshot = next;
        start_position = -1;
        scan_all = false;
      }
    }
    Position end{snapshot->snapshot_id, position, scan_all};
    if (end == from) return std::nullopt;
    return end;
  }

  // Iceberg's planFiles: the files after `start` up to `end`, snapshot after snapshot.
  Result<std::vector<InputPartition>> PlanFiles(const Position& start, const Position& end) {
    std::vector<InputPartition> parts;
    if (end == kStart) return parts;
    ARROW_RETURN_NOT_OK(Refresh());
    Position from = start;
    if (start == kStart) {
      ARROW_ASSIGN_OR_RAISE(from, StartingPosition());
    }
    std::optional<Position> at;
    do {
      if (!at) {
        at = from;
      } else {
        ARROW_ASSIGN_OR_RAISE(const iceberg::Snapshot* after, SnapshotAfter(at->snapshot_id));
        at = Position{after->snapshot_id, 0, false};
      }
      ARROW_ASSIGN_OR_RAISE(const iceberg::Snapshot* snapshot, SnapshotAt(*at));
      ARROW_ASSIGN_OR_RAISE(bool process, ShouldProcess(*snapshot));
      if (!process) continue;
      int64_t until = 0;
      if (at->snapshot_id == end.snapshot_id) {
        until = end.position;
      } else {
        ARROW_ASSIGN_OR_RAISE(until, AddedFiles(*snapshot));
      }
      ARROW_ASSIGN_OR_RAISE(auto manifests, Manifests(*snapshot, at->position, at->scan_all_files));
      for (const auto& m : manifests) {
        int64_t position = m.first;
        for (const auto& file : m.files) {
          if (position >= until) break;
          if (position >= at->position) parts.push_back(InputPartition{file.path, file.size});
          ++position;
        }
      }
    } while (at->snapshot_id != end.snapshot_id);
    return parts;
  }

  std::shared_ptr<const plan::StreamSourceSpec> spec_;
  const iceberg::StreamedTable* table_;
  Options options_;
  std::string directory_;
  Position initial_;
  bool available_now_ = false;
  std::optional<Position> available_now_end_;
  iceberg::LoadedTable meta_;
  std::shared_ptr<arrow::Schema> file_schema_;
  std::map<std::pair<int64_t, bool>, std::vector<IndexedManifest>> manifests_;
};

Result<const iceberg::StreamedTable*> TableOf(const plan::StreamSourceSpec& spec) {
  auto table = dynamic_cast<const iceberg::StreamedTable*>(spec.table.get());
  if (!table) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "An iceberg stream needs a table: spark.readStream.table(\"catalog.db.t\") or "
                     "format(\"iceberg\").load(\"catalog.db.t\")",
                     "");
  }
  return table;
}

}  // namespace

// The table, resolved now with the session's catalogs (the stream reloads it each trigger), and
// its columns.
Result<std::shared_ptr<arrow::Schema>> IcebergSchema(Session& session, plan::StreamSourceSpec& spec) {
  if (spec.schema) {
    return UserError(ErrorKind::kAnalysis, "",
                     "Iceberg tables do not support a user-specified schema in readStream", "");
  }
  if (spec.paths.empty()) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Cannot open table: path is not set (give load() or table() a table name)", "");
  }
  ARROW_ASSIGN_OR_RAISE(auto table, session.StreamedTable(spec.paths[0]));
  spec.table = std::move(table.first);
  return std::move(table.second);
}

Result<std::unique_ptr<Source>> OpenIceberg(const SourceContext& context) {
  ARROW_ASSIGN_OR_RAISE(auto table, TableOf(*context.spec));
  ARROW_ASSIGN_OR_RAISE(auto options, ParseOptions(*context.spec));
  return std::make_unique<IcebergSource>(context, table, options);
}

}  // namespace ember::stream
