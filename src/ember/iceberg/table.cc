#include "ember/iceberg/table.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <arrow/array/util.h>
#include <arrow/io/file.h>
#include <arrow/table.h>
#include <nlohmann/json.hpp>
#include <parquet/arrow/reader.h>

#include "ember/error.h"
#include "ember/iceberg/avro.h"
#include "ember/iceberg/data_file.h"
#include "ember/iceberg/schema.h"
#include "ember/io/file_reader.h"
#include "ember/stream/metadata_log.h"

namespace ember::iceberg {

namespace fs = std::filesystem;
using arrow::Result;
using arrow::Status;
using avro::Array;
using avro::Bytes;
using avro::Datum;
using avro::Record;

namespace {

// The Avro schemas of format v2 manifests and manifest lists, as Java writes them, for
// unpartitioned tables (the partition record r102 has no fields).
std::string MetricsMap(const char* name, int field, int key, int value, const char* value_type) {
  return std::string(R"({"name":")") + name + R"(","type":["null",{"type":"array","items":{"type":"record","name":"k)" +
         std::to_string(key) + "_v" + std::to_string(value) +
         R"(","fields":[{"name":"key","type":"int","field-id":)" + std::to_string(key) +
         R"(},{"name":"value","type":")" + value_type + R"(","field-id":)" + std::to_string(value) +
         R"(}]},"logicalType":"map"}],"default":null,"field-id":)" + std::to_string(field) + "}";
}

const std::string& ManifestEntrySchema() {
  static const std::string schema =
      R"({"type":"record","name":"manifest_entry","fields":[)"
      R"({"name":"status","type":"int","field-id":0},)"
      R"({"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},)"
      R"({"name":"sequence_number","type":["null","long"],"default":null,"field-id":3},)"
      R"({"name":"file_sequence_number","type":["null","long"],"default":null,"field-id":4},)"
      R"({"name":"data_file","type":{"type":"record","name":"r2","fields":[)"
      R"({"name":"content","type":"int","field-id":134},)"
      R"({"name":"file_path","type":"string","field-id":100},)"
      R"({"name":"file_format","type":"string","field-id":101},)"
      R"({"name":"partition","type":{"type":"record","name":"r102","fields":[]},"field-id":102},)"
      R"({"name":"record_count","type":"long","field-id":103},)"
      R"({"name":"file_size_in_bytes","type":"long","field-id":104},)" +
      MetricsMap("column_sizes", 108, 117, 118, "long") + "," +
      MetricsMap("value_counts", 109, 119, 120, "long") + "," +
      MetricsMap("null_value_counts", 110, 121, 122, "long") + "," +
      MetricsMap("nan_value_counts", 137, 138, 139, "long") + "," +
      MetricsMap("lower_bounds", 125, 126, 127, "bytes") + "," +
      MetricsMap("upper_bounds", 128, 129, 130, "bytes") + "," +
      R"({"name":"key_metadata","type":["null","bytes"],"default":null,"field-id":131},)"
      R"({"name":"split_offsets","type":["null",{"type":"array","items":"long","element-id":133}],"default":null,"field-id":132},)"
      R"({"name":"equality_ids","type":["null",{"type":"array","items":"int","element-id":136}],"default":null,"field-id":135},)"
      R"({"name":"sort_order_id","type":["null","int"],"default":null,"field-id":140})"
      R"(]},"field-id":2}]})";
  return schema;
}

const std::string& ManifestFileSchema() {
  static const std::string schema =
      R"({"type":"record","name":"manifest_file","fields":[)"
      R"({"name":"manifest_path","type":"string","field-id":500},)"
      R"({"name":"manifest_length","type":"long","field-id":501},)"
      R"({"name":"partition_spec_id","type":"int","field-id":502},)"
      R"({"name":"content","type":"int","field-id":517},)"
      R"({"name":"sequence_number","type":"long","field-id":515},)"
      R"({"name":"min_sequence_number","type":"long","field-id":516},)"
      R"({"name":"added_snapshot_id","type":"long","field-id":503},)"
      R"({"name":"added_files_count","type":"int","field-id":504},)"
      R"({"name":"existing_files_count","type":"int","field-id":505},)"
      R"({"name":"deleted_files_count","type":"int","field-id":506},)"
      R"({"name":"added_rows_count","type":"long","field-id":512},)"
      R"({"name":"existing_rows_count","type":"long","field-id":513},)"
      R"({"name":"deleted_rows_count","type":"long","field-id":514},)"
      R"({"name":"partitions","type":["null",{"type":"array","items":{"type":"record","name":"r508","fields":[)"
      R"({"name":"contains_null","type":"boolean","field-id":509},)"
      R"({"name":"contains_nan","type":["null","boolean"],"default":null,"field-id":518},)"
      R"({"name":"lower_bound","type":["null","bytes"],"default":null,"field-id":510},)"
      R"({"name":"upper_bound","type":["null","bytes"],"default":null,"field-id":511}]},"element-id":508}],"default":null,"field-id":507},)"
      R"({"name":"key_metadata","type":["null","bytes"],"default":null,"field-id":519}]})";
  return schema;
}

Datum MetricDatum(int64_t value) { return Datum(value); }
Datum MetricDatum(const std::string& bound) { return Datum(Bytes{bound}); }

// A metrics map keyed by field id, written as Iceberg writes int-keyed maps (an array of key/value
// records), or null when empty.
template <typename V>
Datum IdMap(const std::map<int, V>& values) {
  if (values.empty()) return nullptr;
  Array items;
  for (const auto& [k, v] : values) {
    Record entry;
    entry.fields = {Datum(int32_t{k}), MetricDatum(v)};
    items.items.push_back(Datum(std::move(entry)));
  }
  return Datum(std::move(items));
}

Status WriteBytes(const std::string& path, const std::string& bytes) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return Status::IOError("cannot write ", path);
  return Status::OK();
}

Result<std::string> ReadBytes(const std::string& uri) {
  std::string path = io::PathFromUri(uri);
  ARROW_ASSIGN_OR_RAISE(auto text, stream::ReadFileIfExists(path));
  if (!text) return Status::IOError("missing Iceberg file ", path);
  return *text;
}

// One manifest of ADDED data files for a new snapshot.
Result<Datum> WriteManifest(const TableMetadata& metadata, int64_t snapshot_id, int64_t sequence,
                            const std::vector<DataFile>& files, const std::string& path) {
  std::vector<Datum> entries;
  int64_t rows = 0;
  for (const auto& f : files) {
    Record data_file;
    data_file.fields = {
        Datum(int32_t{0}), Datum(f.path), Datum("PARQUET"), Datum(Record{}),
        Datum(int64_t{f.record_count}), Datum(int64_t{f.file_size_in_bytes}),
        IdMap(f.column_sizes), IdMap(f.value_counts),
        IdMap(f.null_value_counts), Datum(nullptr), IdMap(f.lower_bounds),
        IdMap(f.upper_bounds), Datum(nullptr),
        f.split_offsets.empty() ? Datum(nullptr) : [&] {
          Array offsets;
          for (int64_t o : f.split_offsets) offsets.items.push_back(Datum(int64_t{o}));
          return Datum(std::move(offsets));
        }(),
        Datum(nullptr), Datum(int32_t{0})};
    Record entry;
    // ADDED, with sequence numbers left to inheritance from the manifest list.
    entry.fields = {Datum(int32_t{1}), Datum(int64_t{snapshot_id}), Datum(nullptr), Datum(nullptr),
                    Datum(std::move(data_file))};
    entries.push_back(Datum(std::move(entry)));
    rows += f.record_count;
  }
  std::string schema_json = SchemaToJson(*metadata.schema, metadata.current_schema_id).dump();
  ARROW_ASSIGN_OR_RAISE(
      auto bytes, avro::WriteContainer(ManifestEntrySchema(),
                                       {{"schema", schema_json},
                                        {"schema-id", std::to_string(metadata.current_schema_id)},
                                        {"partition-spec", "[]"},
                                        {"partition-spec-id", "0"},
                                        {"format-version", "2"},
                                        {"content", "data"}},
                                       entries, avro::Codec::kDeflate));
  ARROW_RETURN_NOT_OK(WriteBytes(path, bytes));
  Record manifest_file;
  manifest_file.fields = {Datum(path),
                          Datum(int64_t{static_cast<int64_t>(bytes.size())}),
                          Datum(int32_t{0}),
                          Datum(int32_t{0}),
                          Datum(int64_t{sequence}),
                          Datum(int64_t{sequence}),
                          Datum(int64_t{snapshot_id}),
                          Datum(int32_t{static_cast<int32_t>(files.size())}),
                          Datum(int32_t{0}),
                          Datum(int32_t{0}),
                          Datum(int64_t{rows}),
                          Datum(int64_t{0}),
                          Datum(int64_t{0}),
                          Datum(Array{}),
                          Datum(nullptr)};
  return Datum(std::move(manifest_file));
}

// The manifest-list entries of a snapshot, as records of the manifest_file schema.
Result<std::vector<Datum>> ReadManifestList(const Snapshot& snapshot) {
  ARROW_ASSIGN_OR_RAISE(auto bytes, ReadBytes(snapshot.manifest_list));
  ARROW_ASSIGN_OR_RAISE(auto container, avro::ReadContainer(bytes));
  // Re-encode in Ember's schema by field id: the parent list may come from another writer whose
  // field names differ (Java's added_data_files_count).
  std::vector<Datum> out;
  static const int kIds[] = {500, 501, 502, 517, 515, 516, 503, 504, 505, 506, 512, 513, 514, 507, 519};
  for (const auto& record : container.records) {
    Record copy;
    for (int id : kIds) {
      const Datum* value = avro::FieldById(*container.schema, record, id);
      if (id == 517 || id == 502) {
        copy.fields.push_back(value && !value->is_null() ? *value : Datum(int32_t{0}));
      } else if (id == 515 || id == 516) {
        copy.fields.push_back(value && !value->is_null() ? *value : Datum(int64_t{0}));
      } else {
        copy.fields.push_back(value ? *value : Datum(nullptr));
      }
    }
    out.push_back(Datum(std::move(copy)));
  }
  return out;
}

struct LiveFile {
  std::string path;
  int64_t record_count = 0;
  int64_t size = 0;
};

Result<std::vector<LiveFile>> LiveFiles(const Snapshot& snapshot) {
  ARROW_ASSIGN_OR_RAISE(auto manifests, ReadManifestList(snapshot));
  std::vector<LiveFile> files;
  for (const auto& m : manifests) {
    const auto& fields = m.as<Record>().fields;
    if (fields[3].as<int32_t>() != 0) continue;  // delete manifests: not written by Ember
    ARROW_ASSIGN_OR_RAISE(auto bytes, ReadBytes(fields[0].as<std::string>()));
    ARROW_ASSIGN_OR_RAISE(auto container, avro::ReadContainer(bytes));
    for (const auto& entry : container.records) {
      const Datum* status = avro::FieldById(*container.schema, entry, 0);
      if (status && status->is<int32_t>() && status->as<int32_t>() == 2) continue;  // DELETED
      const Datum* data_file = avro::FieldById(*container.schema, entry, 2);
      int data_index = container.schema->FieldIndexById(2);
      const avro::Schema* data_schema =
          data_index < 0 ? nullptr : &container.schema->fields()[data_index].schema->NonNull();
      if (!data_file || !data_schema) continue;
      const Datum* path = avro::FieldById(*data_schema, *data_file, 100);
      const Datum* count = avro::FieldById(*data_schema, *data_file, 103);
      const Datum* size = avro::FieldById(*data_schema, *data_file, 104);
      const Datum* content = avro::FieldById(*data_schema, *data_file, 134);
      if (content && content->is<int32_t>() && content->as<int32_t>() != 0) {
        return UserError(ErrorKind::kUnsupportedOperation, "UNSUPPORTED_FEATURE",
                         "Reading Iceberg delete files (merge-on-read) is not supported by Ember yet.",
                         "0A000");
      }
      files.push_back(LiveFile{path->as<std::string>(), count ? count->as<int64_t>() : 0,
                               size ? size->as<int64_t>() : 0});
    }
  }
  return files;
}

std::map<std::string, std::string> Summary(const TableMetadata& base, const std::vector<DataFile>& added,
                                           const std::vector<LiveFile>& removed,
                                           const std::map<std::string, std::string>& extra) {
  auto parent_total = [&](const char* key) -> int64_t {
    const Snapshot* parent = base.current_snapshot();
    if (!parent) return 0;
    auto it = parent->summary.find(key);
    return it == parent->summary.end() ? 0 : std::stoll(it->second);
  };
  int64_t added_records = 0, added_size = 0, removed_records = 0, removed_size = 0;
  for (const auto& f : added) {
    added_records += f.record_count;
    added_size += f.file_size_in_bytes;
  }
  for (const auto& f : removed) {
    removed_records += f.record_count;
    removed_size += f.size;
  }
  std::map<std::string, std::string> s = extra;
  s["operation"] = removed.empty() ? "append" : (added.empty() ? "delete" : "overwrite");
  s["added-data-files"] = std::to_string(added.size());
  s["added-records"] = std::to_string(added_records);
  s["added-files-size"] = std::to_string(added_size);
  if (!removed.empty()) {
    s["deleted-data-files"] = std::to_string(removed.size());
    s["deleted-records"] = std::to_string(removed_records);
    s["removed-files-size"] = std::to_string(removed_size);
  }
  s["changed-partition-count"] = added.empty() && removed.empty() ? "0" : "1";
  s["total-data-files"] = std::to_string(parent_total("total-data-files") +
                                         static_cast<int64_t>(added.size()) -
                                         static_cast<int64_t>(removed.size()));
  s["total-records"] = std::to_string(parent_total("total-records") + added_records - removed_records);
  s["total-files-size"] = std::to_string(parent_total("total-files-size") + added_size - removed_size);
  s["total-delete-files"] = "0";
  s["total-position-deletes"] = "0";
  s["total-equality-deletes"] = "0";
  s["engine-name"] = "ember";
  return s;
}

}  // namespace

bool AncestryHas(const TableMetadata& metadata,
                 const std::function<bool(const std::map<std::string, std::string>&)>& predicate) {
  const Snapshot* s = metadata.current_snapshot();
  while (s) {
    if (predicate(s->summary)) return true;
    s = s->parent_snapshot_id ? metadata.snapshot(*s->parent_snapshot_id) : nullptr;
  }
  return false;
}

Result<bool> AppendRows(HadoopCatalog* catalog, const std::vector<std::string>& ident,
                        const std::shared_ptr<arrow::Table>& rows, const AppendOptions& options) {
  std::vector<DataFile> files;
  std::optional<Datum> manifest;
  std::string manifest_path;
  for (int attempt = 0;; ++attempt) {
    ARROW_ASSIGN_OR_RAISE(auto base, catalog->LoadTable(ident));
    if (options.already_committed && options.already_committed(base.metadata)) return false;
    const TableMetadata& m = base.metadata;
    int64_t snapshot_id = NewSnapshotId();
    int64_t sequence = m.last_sequence_number + 1;
    // Data files are written once and reused by every attempt.
    if (files.empty() && rows->num_rows() > 0) {
      ARROW_ASSIGN_OR_RAISE(auto conformed, ConformToSchema(rows, m.schema, catalog->QualifiedName(ident)));
      std::string path = m.location + "/data/00000-0-" + NewUuid() + "-0-00001.parquet";
      ARROW_ASSIGN_OR_RAISE(auto file, WriteDataFile(conformed, path));
      files.push_back(file);
    }
    std::vector<Datum> list;
    if (!files.empty()) {
      manifest_path = m.location + "/metadata/" + NewUuid() + "-m0.avro";
      ARROW_ASSIGN_OR_RAISE(auto entry, WriteManifest(m, snapshot_id, sequence, files, manifest_path));
      list.push_back(entry);
    }
    std::vector<LiveFile> removed;
    if (const Snapshot* parent = m.current_snapshot()) {
      if (options.overwrite) {
        ARROW_ASSIGN_OR_RAISE(removed, LiveFiles(*parent));
      } else {
        ARROW_ASSIGN_OR_RAISE(auto parent_list, ReadManifestList(*parent));
        list.insert(list.end(), parent_list.begin(), parent_list.end());
      }
    }
    std::string list_path = m.location + "/metadata/snap-" + std::to_string(snapshot_id) + "-" +
                            std::to_string(attempt) + "-" + NewUuid() + ".avro";
    ARROW_ASSIGN_OR_RAISE(
        auto list_bytes,
        avro::WriteContainer(ManifestFileSchema(),
                             {{"snapshot-id", std::to_string(snapshot_id)},
                              {"parent-snapshot-id", m.current_snapshot_id ? std::to_string(*m.current_snapshot_id) : "null"},
                              {"sequence-number", std::to_string(sequence)},
                              {"format-version", "2"}},
                             list, avro::Codec::kDeflate));
    ARROW_RETURN_NOT_OK(WriteBytes(list_path, list_bytes));

    TableMetadata updated = m;
    Snapshot snapshot;
    snapshot.snapshot_id = snapshot_id;
    snapshot.parent_snapshot_id = m.current_snapshot_id;
    snapshot.sequence_number = sequence;
    snapshot.timestamp_ms = std::max(CurrentTimeMs(), m.last_updated_ms);
    snapshot.manifest_list = list_path;
    snapshot.summary = Summary(m, files, removed, options.summary);
    snapshot.schema_id = m.current_schema_id;
    updated.snapshots.push_back(snapshot);
    updated.current_snapshot_id = snapshot_id;
    updated.last_sequence_number = sequence;
    updated.last_updated_ms = snapshot.timestamp_ms;
    updated.snapshot_log.emplace_back(snapshot.timestamp_ms, snapshot_id);
    ARROW_ASSIGN_OR_RAISE(bool committed, catalog->Commit(base, std::move(updated)));
    if (committed) return true;
    std::error_code ec;
    fs::remove(list_path, ec);
    if (!manifest_path.empty()) fs::remove(manifest_path, ec);
    if (attempt >= 10) {
      return UserError(ErrorKind::kRuntime, "ICEBERG_COMMIT_FAILED",
                       "Could not commit to " + catalog->QualifiedName(ident) +
                           ": other writers kept committing first.",
                       "40000");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10 << std::min(attempt, 6)));
  }
}

Result<std::shared_ptr<arrow::Table>> ScanTable(const LoadedTable& table,
                                                std::optional<int64_t> snapshot_id) {
  const TableMetadata& m = table.metadata;
  auto schema = m.schema;
  const Snapshot* snapshot = snapshot_id ? m.snapshot(*snapshot_id) : m.current_snapshot();
  if (snapshot_id && !snapshot) {
    return UserError(ErrorKind::kAnalysis, "", "Cannot find snapshot with ID " + std::to_string(*snapshot_id), "");
  }
  // Output columns carry the user's names without Iceberg's id metadata.
  arrow::FieldVector plain;
  for (const auto& f : schema->fields()) plain.push_back(arrow::field(f->name(), f->type(), f->nullable()));
  auto out_schema = arrow::schema(plain);
  if (!snapshot) return arrow::Table::MakeEmpty(out_schema);
  ARROW_ASSIGN_OR_RAISE(auto files, LiveFiles(*snapshot));
  std::vector<std::shared_ptr<arrow::Table>> parts;
  for (const auto& f : files) {
    ARROW_ASSIGN_OR_RAISE(auto input, arrow::io::ReadableFile::Open(io::PathFromUri(f.path)));
    ARROW_ASSIGN_OR_RAISE(auto reader, parquet::arrow::OpenFile(input, arrow::default_memory_pool()));
    std::shared_ptr<arrow::Table> data;
    ARROW_RETURN_NOT_OK(reader->ReadTable(&data));
    // Columns by field id: renames keep ids; a column missing from an older file reads as NULL.
    arrow::ChunkedArrayVector columns;
    for (const auto& field : schema->fields()) {
      int id = FieldId(*field);
      int index = -1;
      for (int i = 0; i < data->num_columns(); ++i) {
        if (FieldId(*data->field(i)) == id) index = i;
      }
      if (index < 0) {
        ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(field->type(), data->num_rows()));
        columns.push_back(std::make_shared<arrow::ChunkedArray>(nulls));
      } else {
        columns.push_back(data->column(index));
      }
    }
    parts.push_back(arrow::Table::Make(out_schema, columns, data->num_rows()));
  }
  if (parts.empty()) return arrow::Table::MakeEmpty(out_schema);
  return arrow::ConcatenateTables(parts);
}

}  // namespace ember::iceberg
