#include "ember/stream/state_store.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <unordered_set>

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/io/buffered.h>
#include <arrow/io/file.h>
#include <arrow/ipc/api.h>
#include <arrow/util/compression.h>
#include <nlohmann/json.hpp>

#include "ember/common/parallel.h"
#include "ember/common/row_keys.h"
#include "ember/error.h"
#include "ember/io/atomic_file.h"
#include "ember/stream/metadata_log.h"

namespace ember::stream {

namespace fs = std::filesystem;
using arrow::Result;
using arrow::Status;

namespace {

constexpr const char* kRemoved = "__removed";

std::shared_ptr<arrow::Schema> WithRemovedFlag(const std::shared_ptr<arrow::Schema>& schema) {
  auto fields = schema->fields();
  fields.push_back(arrow::field(kRemoved, arrow::boolean(), false));
  return arrow::schema(fields);
}

Result<std::shared_ptr<arrow::Table>> AddFlag(const std::shared_ptr<arrow::Table>& table, bool removed) {
  ARROW_ASSIGN_OR_RAISE(auto flag, arrow::MakeArrayFromScalar(arrow::BooleanScalar(removed),
                                                              table->num_rows()));
  return table->AddColumn(table->num_columns(), arrow::field(kRemoved, arrow::boolean(), false),
                          std::make_shared<arrow::ChunkedArray>(flag));
}

// Writes a table as an Arrow IPC file (LZ4) under a temporary name, streamed to disk as it is
// encoded, then renames it over `path`: a reader sees the old file or the new one. A re-run
// batch rewrites its version this way. No fsync, like the metadata logs: safe against a crash of
// the process, not of the machine.
Status WriteTableTo(const std::string& temp, const std::shared_ptr<arrow::Table>& table) {
  ARROW_ASSIGN_OR_RAISE(auto file, arrow::io::FileOutputStream::Open(temp));
  // The writer's many small pieces (metadata, each buffer) leave in writes of up to 256 KiB.
  ARROW_ASSIGN_OR_RAISE(auto sink, arrow::io::BufferedOutputStream::Create(
                                       256 << 10, arrow::default_memory_pool(), std::move(file)));
  auto options = arrow::ipc::IpcWriteOptions::Defaults();
  ARROW_ASSIGN_OR_RAISE(options.codec, arrow::util::Codec::Create(arrow::Compression::LZ4_FRAME));
  ARROW_ASSIGN_OR_RAISE(auto writer, arrow::ipc::MakeFileWriter(sink, table->schema(), options));
  ARROW_RETURN_NOT_OK(writer->WriteTable(*table));
  ARROW_RETURN_NOT_OK(writer->Close());
  return sink->Close();
}

Status WriteTable(const std::string& path, const std::shared_ptr<arrow::Table>& table) {
  std::string temp = path + ".tmp";
  Status written = WriteTableTo(temp, table);
  if (!written.ok()) {
    ::unlink(temp.c_str());  // a full disk keeps no half-written file
    return FileWriteFailed(path, written);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) return FileWriteFailed(path, errno);
  return Status::OK();
}

// Spark's CANNOT_LOAD_STATE_STORE with a sub-condition; `store` says which store.
Status CannotLoad(const std::string& sub_condition, const std::string& detail) {
  return UserError(ErrorKind::kRuntime, "CANNOT_LOAD_STATE_STORE." + sub_condition,
                   "An error occurred during loading state. " + detail, "58030");
}

// A state file that exists but cannot be read whole (truncated, emptied, overwritten).
Status Unreadable(const std::string& path, const std::string& store, const Status& cause) {
  return CannotLoad("UNCATEGORIZED", "Error reading state file " + path + " of " + store +
                                         ": the file is damaged (" + cause.message() + ").");
}

Result<std::shared_ptr<arrow::Table>> ReadTable(const std::string& path, const std::string& store,
                                                const std::shared_ptr<arrow::Schema>& expected) {
  auto opened = arrow::io::ReadableFile::Open(path);
  if (!opened.ok()) return Unreadable(path, store, opened.status());
  auto read = arrow::ipc::RecordBatchFileReader::Open(*opened);
  if (!read.ok()) return Unreadable(path, store, read.status());
  auto reader = *read;
  if (!reader->schema()->Equals(*expected, /*check_metadata=*/false)) {
    return UserError(ErrorKind::kRuntime, "STATE_STORE_KEY_SCHEMA_NOT_COMPATIBLE",
                     "Provided key schema does not match existing state key schema. Existing "
                     "schema=" + reader->schema()->ToString() + " and new schema=" +
                         expected->ToString() + " in " + path +
                         ". The query's stateful operators changed since the checkpoint was written.",
                     "XXKST");
  }
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  for (int i = 0; i < reader->num_record_batches(); ++i) {
    auto batch = reader->ReadRecordBatch(i);
    if (!batch.ok()) return Unreadable(path, store, batch.status());
    if (auto valid = (*batch)->ValidateFull(); !valid.ok()) return Unreadable(path, store, valid);
    batches.push_back(*std::move(batch));
  }
  return arrow::Table::FromRecordBatches(reader->schema(), batches);
}

// Versions of a partition's files: name -> (version, is_snapshot).
std::map<int64_t, std::pair<bool, bool>> ListVersions(const std::string& directory) {
  std::map<int64_t, std::pair<bool, bool>> versions;  // version -> (has delta, has snapshot)
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(directory, ec)) {
    std::string name = entry.path().filename().string();
    auto dot = name.find('.');
    if (dot == std::string::npos || dot == 0) continue;
    std::string stem = name.substr(0, dot), kind = name.substr(dot + 1);
    if (stem.find_first_not_of("0123456789") != std::string::npos) continue;
    int64_t v = std::stoll(stem);
    if (kind == "delta") versions[v].first = true;
    if (kind == "snapshot") versions[v].second = true;
  }
  return versions;
}

std::string VersionFile(const std::string& directory, int64_t version, const char* kind) {
  return (fs::path(directory) / (std::to_string(version) + "." + kind)).string();
}

}  // namespace

int PartitionOf(std::string_view key, int num_partitions) {
  return static_cast<int>(HashKey(key) % static_cast<uint64_t>(num_partitions));
}

Result<std::vector<std::shared_ptr<arrow::Table>>> SplitByPartition(
    const std::shared_ptr<arrow::Table>& table, const std::vector<int>& key_columns,
    int num_partitions) {
  if (num_partitions == 1) return std::vector<std::shared_ptr<arrow::Table>>{table};
  ARROW_ASSIGN_OR_RAISE(auto key_table, table->SelectColumns(key_columns));
  // The rows' key hashes, as PartitionOf would compute them from their encoded keys.
  ARROW_ASSIGN_OR_RAISE(auto hashes, HashKeys(*key_table, static_cast<int>(key_columns.size())));
  std::vector<arrow::Int64Builder> rows(static_cast<size_t>(num_partitions));
  for (size_t i = 0; i < hashes.size(); ++i) {
    ARROW_RETURN_NOT_OK(rows[hashes[i] % static_cast<uint64_t>(num_partitions)].Append(
        static_cast<int64_t>(i)));
  }
  std::vector<std::shared_ptr<arrow::Table>> parts;
  for (auto& builder : rows) {
    ARROW_ASSIGN_OR_RAISE(auto indices, builder.Finish());
    ARROW_ASSIGN_OR_RAISE(auto part, arrow::compute::Take(arrow::Datum(table), arrow::Datum(indices)));
    parts.push_back(part.table());
  }
  return parts;
}

StateStore::StateStore(std::string directory, std::string store_name,
                       std::shared_ptr<arrow::Schema> schema, int num_keys, int num_partitions,
                       const StateStoreConf& conf)
    : directory_(std::move(directory)),
      store_name_(std::move(store_name)),
      schema_(std::move(schema)),
      num_keys_(num_keys),
      conf_(conf),
      files_(static_cast<size_t>(num_partitions)),
      rows_(static_cast<size_t>(num_partitions)),
      staged_rows_(static_cast<size_t>(num_partitions)),
      staged_(static_cast<size_t>(num_partitions)) {}

Result<std::unique_ptr<StateStore>> StateStore::Open(const std::string& checkpoint, int operator_id,
                                                     const std::string& operator_name,
                                                     int num_partitions,
                                                     std::shared_ptr<arrow::Schema> schema,
                                                     int num_keys, const StateStoreConf& conf,
                                                     const std::string& store_name) {
  std::string directory = (fs::path(checkpoint) / "state" / std::to_string(operator_id)).string();
  std::string metadata_path = (fs::path(directory) / "_metadata" / "metadata").string();
  ARROW_ASSIGN_OR_RAISE(auto metadata, io::ReadFileIfExists(metadata_path));
  if (metadata) {
    ARROW_ASSIGN_OR_RAISE(auto text, LogBody(*metadata, metadata_path));
    auto body = nlohmann::json::parse(text, nullptr, false);
    if (!body.is_object() || !body.value("operatorInfo", nlohmann::json()).is_object() ||
        !body["operatorInfo"].value("operatorName", nlohmann::json()).is_string()) {
      return DamagedCheckpointFile(metadata_path, "it does not name the stateful operator (JSON)");
    }
    std::string stored = body["operatorInfo"]["operatorName"].get<std::string>();
    if (stored != operator_name) {
      return UserError(ErrorKind::kRuntime, "STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA",
                       "Streaming stateful operator name does not match with the operator in state "
                       "metadata. This likely to happen when user adds/removes/changes stateful "
                       "operator of existing streaming query.\nStateful operators in the metadata: "
                       "[(OperatorId: " + std::to_string(operator_id) + " -> OperatorName: " + stored +
                           ")].\nStateful operators in current batch: [(OperatorId: " +
                           std::to_string(operator_id) + " -> OperatorName: " + operator_name + ")].",
                       "42K03");
    }
  } else {
    nlohmann::json body = {
        {"operatorInfo", {{"operatorId", operator_id}, {"operatorName", operator_name}}},
        {"stateStoreInfo",
         nlohmann::json::array({{{"storeName", store_name.empty() ? "default" : store_name},
                                 {"numColsPrefixKey", 0},
                                 {"numPartitions", num_partitions}}})}};
    ARROW_RETURN_NOT_OK(io::WriteFileAtomically(metadata_path, "v1\n" + body.dump()).status());
  }
  auto store = std::unique_ptr<StateStore>(
      new StateStore(std::move(directory), store_name, std::move(schema), num_keys, num_partitions,
                     conf));
  return store;
}

std::string StateStore::PartitionDirectory(int p) const {
  fs::path partition = fs::path(directory_) / std::to_string(p);
  return (store_name_.empty() ? partition : partition / store_name_).string();
}

std::string StateStore::Describe(int p) const {
  return "the state store (operator " + fs::path(directory_).filename().string() + ", partition " +
         std::to_string(p) + (store_name_.empty() ? "" : ", store " + store_name_) + ") in " +
         PartitionDirectory(p);
}

Result<std::shared_ptr<arrow::Table>> StateStore::LoadPartition(int p, int64_t version) const {
  std::string directory = PartitionDirectory(p);
  auto versions = ListVersions(directory);
  // The newest snapshot at or below `version`, then the delta of every version after it: each
  // commit writes one per partition, so a missing one is state lost, never an empty change.
  int64_t base = 0;
  for (const auto& [v, kinds] : versions) {
    if (v <= version && kinds.second) base = v;
  }
  for (int64_t v = base + 1; v <= version; ++v) {
    auto found = versions.find(v);
    if (found == versions.end() || !found->second.first) {
      std::string path = VersionFile(directory, v, "delta");
      return CannotLoad("CANNOT_READ_DELTA_FILE_NOT_EXISTS", "Error reading delta file " + path +
                                                                 " of " + Describe(p) + ": " + path +
                                                                 " does not exist.");
    }
  }
  std::shared_ptr<arrow::Table> rows;
  if (base > 0) {
    ARROW_ASSIGN_OR_RAISE(rows, ReadTable(VersionFile(directory, base, "snapshot"), Describe(p), schema_));
  } else {
    ARROW_ASSIGN_OR_RAISE(rows, arrow::Table::MakeEmpty(schema_));
  }
  std::vector<std::shared_ptr<arrow::Table>> layers;
  auto flagged = WithRemovedFlag(schema_);
  for (int64_t v = base + 1; v <= version; ++v) {
    ARROW_ASSIGN_OR_RAISE(auto delta, ReadTable(VersionFile(directory, v, "delta"), Describe(p), flagged));
    if (delta->num_rows() > 0) layers.push_back(std::move(delta));
  }
  if (layers.empty()) return rows;
  ARROW_ASSIGN_OR_RAISE(auto base_layer, AddFlag(rows, false));
  layers.insert(layers.begin(), base_layer);
  ARROW_ASSIGN_OR_RAISE(auto all, arrow::ConcatenateTables(layers));
  ARROW_ASSIGN_OR_RAISE(all, all->CombineChunks());
  // The last entry of each key wins; a removal leaves nothing.
  ARROW_ASSIGN_OR_RAISE(auto keys, EncodeKeys(*all, num_keys_));
  const auto& removed = static_cast<const arrow::BooleanArray&>(*all->column(all->num_columns() - 1)->chunk(0));
  std::unordered_set<std::string_view> seen;
  std::vector<int64_t> kept;
  for (int64_t i = all->num_rows() - 1; i >= 0; --i) {
    if (!seen.insert(keys[static_cast<size_t>(i)]).second) continue;
    if (!removed.Value(i)) kept.push_back(i);
  }
  std::reverse(kept.begin(), kept.end());
  arrow::Int64Builder indices;
  ARROW_RETURN_NOT_OK(indices.AppendValues(kept));
  ARROW_ASSIGN_OR_RAISE(auto index_array, indices.Finish());
  ARROW_ASSIGN_OR_RAISE(auto result, arrow::compute::Take(arrow::Datum(all), arrow::Datum(index_array)));
  return result.table()->RemoveColumn(all->num_columns() - 1);
}

Status StateStore::Load(int64_t version) {
  if (version == version_) return Status::OK();
  std::vector<Status> statuses(rows_.size());
  std::vector<std::shared_ptr<arrow::Table>> loaded(rows_.size());
  ParallelFor(num_partitions(), [&](int p) {
    auto result = LoadPartition(p, version);
    if (result.ok()) {
      loaded[static_cast<size_t>(p)] = *result;
    } else {
      statuses[static_cast<size_t>(p)] = result.status();
    }
  });
  for (const auto& status : statuses) ARROW_RETURN_NOT_OK(status);
  rows_ = std::move(loaded);
  version_ = version;
  for (auto& staged : staged_rows_) staged.reset();
  files_.assign(rows_.size(), std::nullopt);
  return Status::OK();
}

void StateStore::Stage(int p, std::shared_ptr<arrow::Table> rows, std::shared_ptr<arrow::Table> puts,
                       std::shared_ptr<arrow::Table> removed) {
  staged_rows_[static_cast<size_t>(p)] = std::move(rows);
  staged_[static_cast<size_t>(p)] = Change{std::move(puts), std::move(removed)};
}

Status StateStore::Commit(int64_t version) {
  std::vector<Status> statuses(rows_.size());
  ParallelFor(num_partitions(), [&](int p) {
    auto& status = statuses[static_cast<size_t>(p)];
    const auto& change = staged_[static_cast<size_t>(p)];
    std::string directory = PartitionDirectory(p);
    std::error_code ec;
    fs::create_directories(directory, ec);
    bool wrote_delta = false;
    auto write_delta = [&]() -> Status {
      bool has_puts = change.puts && change.puts->num_rows() > 0;
      bool has_removals = change.removed && change.removed->num_rows() > 0;
      // An unchanged partition gets an empty delta, as in Spark: every version's file exists,
      // so a restart can tell a lost file from a batch that changed nothing.
      wrote_delta = true;
      std::vector<std::shared_ptr<arrow::Table>> parts;
      if (!has_puts && !has_removals) {
        ARROW_ASSIGN_OR_RAISE(auto empty, arrow::Table::MakeEmpty(WithRemovedFlag(schema_)));
        parts.push_back(empty);
      }
      if (has_puts) {
        ARROW_ASSIGN_OR_RAISE(auto puts, change.puts->SelectColumns([&] {
          std::vector<int> all(static_cast<size_t>(schema_->num_fields()));
          for (int i = 0; i < schema_->num_fields(); ++i) all[static_cast<size_t>(i)] = i;
          return all;
        }()));
        ARROW_ASSIGN_OR_RAISE(auto flagged, AddFlag(puts, false));
        parts.push_back(flagged);
      }
      if (has_removals) {
        // Removed keys with NULL values.
        std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
        int64_t n = change.removed->num_rows();
        for (int i = 0; i < schema_->num_fields(); ++i) {
          if (i < num_keys_) {
            columns.push_back(change.removed->column(i));
          } else {
            ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(schema_->field(i)->type(), n));
            columns.push_back(std::make_shared<arrow::ChunkedArray>(nulls));
          }
        }
        ARROW_ASSIGN_OR_RAISE(auto flagged, AddFlag(arrow::Table::Make(schema_, columns, n), true));
        parts.push_back(flagged);
      }
      ARROW_ASSIGN_OR_RAISE(auto delta, arrow::ConcatenateTables(parts));
      return WriteTable(VersionFile(directory, version, "delta"), delta);
    };
    status = write_delta();
    if (status.ok()) status = Maintain(p, version, wrote_delta);
  });
  for (const auto& status : statuses) ARROW_RETURN_NOT_OK(status);
  for (size_t p = 0; p < rows_.size(); ++p) {
    if (staged_rows_[p]) rows_[p] = std::move(staged_rows_[p]);
    if (!rows_[p]) {
      ARROW_ASSIGN_OR_RAISE(rows_[p], arrow::Table::MakeEmpty(schema_));
    }
    staged_rows_[p].reset();
    staged_[p] = Change{};
  }
  version_ = version;
  return Status::OK();
}

Status StateStore::Maintain(int p, int64_t version, bool wrote_delta) {
  auto& files = files_[static_cast<size_t>(p)];
  std::string directory = PartitionDirectory(p);
  if (!files) {
    files = ListVersions(directory);
  } else if (wrote_delta) {
    (*files)[version].first = true;
  }
  int64_t deltas = 0;  // since the newest snapshot up to `version`
  for (const auto& [v, kinds] : *files) {
    if (v > version) break;
    if (kinds.second) {
      deltas = 0;
    } else if (kinds.first) {
      ++deltas;
    }
  }
  if (deltas > conf_.min_deltas_for_snapshot) {
    const auto& staged = staged_rows_[static_cast<size_t>(p)];
    std::shared_ptr<arrow::Table> rows = staged ? staged : rows_[static_cast<size_t>(p)];
    if (!rows) {
      ARROW_ASSIGN_OR_RAISE(rows, arrow::Table::MakeEmpty(schema_));
    }
    ARROW_RETURN_NOT_OK(WriteTable(VersionFile(directory, version, "snapshot"), rows));
    (*files)[version].second = true;
  }
  // Spark's cleanup keeps version - minVersionsToRetain; one more here, so that the oldest batch
  // the offsets log keeps (its state is one version behind its commit) can run again.
  const int64_t oldest_kept = version - conf_.min_versions_to_retain - 1;
  int64_t start = -1;  // the newest snapshot the oldest retained version loads from
  for (const auto& [v, kinds] : *files) {
    if (v > oldest_kept) break;
    if (kinds.second) start = v;
  }
  std::error_code ec;
  while (!files->empty() && files->begin()->first < start) {
    int64_t v = files->begin()->first;
    fs::remove(VersionFile(directory, v, "delta"), ec);
    fs::remove(VersionFile(directory, v, "snapshot"), ec);
    files->erase(files->begin());
  }
  return Status::OK();
}

int64_t StateStore::num_rows() const {
  int64_t n = 0;
  for (const auto& rows : rows_) n += rows ? rows->num_rows() : 0;
  return n;
}

int64_t StateStore::memory_bytes() const {
  int64_t bytes = 0;
  for (const auto& rows : rows_) {
    if (!rows) continue;
    for (const auto& column : rows->columns()) {
      for (const auto& chunk : column->chunks()) {
        for (const auto& buffer : chunk->data()->buffers) bytes += buffer ? buffer->size() : 0;
      }
    }
  }
  return bytes;
}

}  // namespace ember::stream
