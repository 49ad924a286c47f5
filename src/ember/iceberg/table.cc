#include "ember/iceberg/table.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

#include <arrow/array/util.h>
#include <arrow/io/file.h>
#include <arrow/scalar.h>
#include <arrow/table.h>
#include <arrow/util/byte_size.h>
#include <arrow/util/parallel.h>
#include <nlohmann/json.hpp>
#include <parquet/arrow/reader.h>

#include "ember/common/random.h"
#include "ember/error.h"
#include "ember/iceberg/avro.h"
#include "ember/iceberg/data_file.h"
#include "ember/iceberg/partition.h"
#include "ember/iceberg/schema.h"
#include "ember/io/atomic_file.h"

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

// `partition` is the Avro schema of the partition record r102 for the manifest's spec.
std::string ManifestEntrySchema(const std::string& partition) {
  return R"({"type":"record","name":"manifest_entry","fields":[)"
         R"({"name":"status","type":"int","field-id":0},)"
         R"({"name":"snapshot_id","type":["null","long"],"default":null,"field-id":1},)"
         R"({"name":"sequence_number","type":["null","long"],"default":null,"field-id":3},)"
         R"({"name":"file_sequence_number","type":["null","long"],"default":null,"field-id":4},)"
         R"({"name":"data_file","type":{"type":"record","name":"r2","fields":[)"
         R"({"name":"content","type":"int","field-id":134},)"
         R"({"name":"file_path","type":"string","field-id":100},)"
         R"({"name":"file_format","type":"string","field-id":101},)"
         R"({"name":"partition","type":)" + partition + R"(,"field-id":102},)"
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

Status WriteBytes(const std::string& location, const std::string& bytes) {
  std::string path = LocalPath(location);
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) return FileWriteFailed(path, errno);
  return Status::OK();
}

Result<std::string> ReadBytes(const std::string& uri) {
  std::string path = LocalPath(uri);
  ARROW_ASSIGN_OR_RAISE(auto text, io::ReadFileIfExists(path));
  if (!text) return Status::IOError("missing Iceberg file ", path);
  return *text;
}

Datum DataFileDatum(const DataFile& f) {
  Record data_file;
  data_file.fields = {
      Datum(int32_t{0}), Datum(f.path), Datum("PARQUET"), Datum(f.partition),
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
  return Datum(std::move(data_file));
}

// A manifest entry with the inherited snapshot id and sequence numbers filled in, and its data
// file in Ember's manifest schema whoever wrote it.
struct ManifestEntry {
  int32_t status = 1;  // 0 EXISTING, 1 ADDED, 2 DELETED
  int64_t snapshot_id = 0;
  std::optional<int64_t> sequence_number;  // null: inherited from the manifest list
  std::optional<int64_t> file_sequence_number;
  std::string path;
  int64_t record_count = 0;
  int64_t size = 0;
  Datum data_file;  // Ember's data_file layout (EmberDataFile)
  int spec_id = 0;
};

// The manifest list's summary of one partition field over a manifest's files: whether a value
// is null, and the bounds of the others.
Datum PartitionSummary(const std::vector<const Datum*>& values) {
  bool contains_null = false;
  const Datum* lower = nullptr;
  const Datum* upper = nullptr;
  for (const Datum* v : values) {
    if (v->is_null()) {
      contains_null = true;
      continue;
    }
    if (!lower || ComparePartitionValues(*v, *lower) < 0) lower = v;
    if (!upper || ComparePartitionValues(*v, *upper) > 0) upper = v;
  }
  auto bound = [](const Datum* v) { return v ? Datum(Bytes{SingleValueBytes(*v)}) : Datum(nullptr); };
  Record summary;
  summary.fields = {Datum(contains_null), Datum(false), bound(lower), bound(upper)};
  return Datum(std::move(summary));
}

// Writes a data manifest of files partitioned by `spec` for snapshot `snapshot_id` and returns
// its manifest-list record.
Result<Datum> WriteManifest(const TableMetadata& metadata, const PartitionSpec& spec,
                            int64_t snapshot_id, int64_t sequence,
                            const std::vector<ManifestEntry>& entries, const std::string& path) {
  std::vector<Datum> records;
  int32_t counts[3] = {0, 0, 0};  // by status
  int64_t rows[3] = {0, 0, 0};
  int64_t min_sequence = sequence;
  std::vector<std::vector<const Datum*>> partition_values(spec.fields.size());
  for (const auto& e : entries) {
    auto optional = [](const std::optional<int64_t>& v) {
      return v ? Datum(int64_t{*v}) : Datum(nullptr);
    };
    Record entry;
    entry.fields = {Datum(int32_t{e.status}), Datum(int64_t{e.snapshot_id}),
                    optional(e.sequence_number), optional(e.file_sequence_number), e.data_file};
    records.push_back(Datum(std::move(entry)));
    counts[e.status] += 1;
    rows[e.status] += e.record_count;
    if (e.status != 2 && e.sequence_number) {
      min_sequence = std::min(min_sequence, *e.sequence_number);
    }
    const auto& partition = e.data_file.as<Record>().fields[3].as<Record>().fields;
    for (size_t f = 0; f < partition.size() && f < spec.fields.size(); ++f) {
      partition_values[f].push_back(&partition[f]);
    }
  }
  Array summaries;
  for (const auto& values : partition_values) summaries.items.push_back(PartitionSummary(values));
  ARROW_ASSIGN_OR_RAISE(auto partition_schema, PartitionRecordSchema(spec, *metadata.schema));
  std::string schema_json = SchemaToJson(*metadata.schema, metadata.current_schema_id).dump();
  ARROW_ASSIGN_OR_RAISE(
      auto bytes, avro::WriteContainer(ManifestEntrySchema(partition_schema),
                                       {{"schema", schema_json},
                                        {"schema-id", std::to_string(metadata.current_schema_id)},
                                        {"partition-spec", PartitionFieldsToJson(spec).dump()},
                                        {"partition-spec-id", std::to_string(spec.spec_id)},
                                        {"format-version", "2"},
                                        {"content", "data"}},
                                       records, avro::Codec::kDeflate));
  ARROW_RETURN_NOT_OK(WriteBytes(path, bytes));
  Record manifest_file;
  manifest_file.fields = {Datum(path),
                          Datum(int64_t{static_cast<int64_t>(bytes.size())}),
                          Datum(int32_t{spec.spec_id}),
                          Datum(int32_t{0}),
                          Datum(int64_t{sequence}),
                          Datum(int64_t{min_sequence}),
                          Datum(int64_t{snapshot_id}),
                          Datum(int32_t{counts[1]}),
                          Datum(int32_t{counts[0]}),
                          Datum(int32_t{counts[2]}),
                          Datum(int64_t{rows[1]}),
                          Datum(int64_t{rows[0]}),
                          Datum(int64_t{rows[2]}),
                          Datum(std::move(summaries)),
                          Datum(nullptr)};
  return Datum(std::move(manifest_file));
}

// ADDED entries for new data files, sequence numbers left to inheritance.
std::vector<ManifestEntry> AddedEntries(const std::vector<DataFile>& files, int64_t snapshot_id,
                                        int spec_id) {
  std::vector<ManifestEntry> entries;
  for (const auto& f : files) {
    entries.push_back(ManifestEntry{1, snapshot_id, std::nullopt, std::nullopt, f.path,
                                    f.record_count, f.file_size_in_bytes, DataFileDatum(f), spec_id});
  }
  return entries;
}

// The manifest-list entries of a snapshot, as records of the manifest_file schema.
Result<std::vector<Datum>> ReadManifestList(const Snapshot& snapshot) {
  ARROW_ASSIGN_OR_RAISE(auto bytes, ReadBytes(snapshot.manifest_list));
  ARROW_ASSIGN_OR_RAISE(auto container, avro::ReadContainer(bytes));
  // Re-encode in Ember's schema by field id: the parent list may come from another writer whose
  // field names differ (Java's added_data_files_count).
  // A field of another type than ManifestFileSchema's (or a missing path or snapshot id) is an
  // error naming the file: readers of these records take each field as that type.
  std::vector<Datum> out;
  struct Field {
    int id;
    std::string_view type;
    bool required;
  };
  static const Field kFields[] = {
      {500, "string", true}, {501, "long", false}, {502, "int", false},  {517, "int", false},
      {515, "long", false},  {516, "long", false}, {503, "long", true},  {504, "int", false},
      {505, "int", false},   {506, "int", false},  {512, "long", false}, {513, "long", false},
      {514, "long", false},  {507, "array", false}, {519, "bytes", false}};
  for (const auto& record : container.records) {
    Record copy;
    for (const Field& field : kFields) {
      const Datum* value = avro::FieldById(*container.schema, record, field.id);
      if (value && !value->is_null() && value->type_name() != field.type) {
        return Status::Invalid("manifest list ", snapshot.manifest_list, ": field id ", field.id,
                               " is ", value->type_name(), ", not ", field.type);
      }
      if (field.required && (!value || value->is_null())) {
        return Status::Invalid("manifest list ", snapshot.manifest_list, ": no field id ", field.id);
      }
      if (field.id == 517 || field.id == 502) {
        copy.fields.push_back(value && !value->is_null() ? *value : Datum(int32_t{0}));
      } else if (field.id == 515 || field.id == 516) {
        copy.fields.push_back(value && !value->is_null() ? *value : Datum(int64_t{0}));
      } else {
        copy.fields.push_back(value ? *value : Datum(nullptr));
      }
    }
    out.push_back(Datum(std::move(copy)));
  }
  return out;
}

// A data file entry rewritten in Ember's manifest schema, by field id, so that a manifest from
// another writer (Java's r2 has more fields) can be carried into a rewritten manifest. The
// partition record is re-encoded in `spec`'s field order, also by id.
Datum EmberDataFile(const avro::Schema& schema, const Datum& data_file, const PartitionSpec& spec) {
  static const int kIds[] = {134, 100, 101, 102, 103, 104, 108, 109,
                             110, 137, 125, 128, 131, 132, 135, 140};
  Record out;
  for (int id : kIds) {
    const Datum* value = avro::FieldById(schema, data_file, id);
    if (id == 134) {
      out.fields.push_back(value && value->is<int32_t>() ? *value : Datum(int32_t{0}));
    } else if (id == 102) {
      const avro::Schema::Field* field = schema.FieldWithId(102);
      Record partition;
      for (const auto& f : spec.fields) {
        const Datum* v = value && field ? avro::FieldById(field->schema->NonNull(), *value, f.field_id)
                                         : nullptr;
        partition.fields.push_back(v ? *v : Datum(nullptr));
      }
      out.fields.push_back(Datum(std::move(partition)));
    } else {
      out.fields.push_back(value ? *value : Datum(nullptr));
    }
  }
  return Datum(std::move(out));
}

const PartitionSpec* ManifestSpec(const TableMetadata& metadata, const Datum& manifest) {
  return metadata.spec(manifest.as<Record>().fields[2].as<int32_t>());
}

// The entries of a data manifest, given its manifest-list record (ReadManifestList's layout).
Result<std::vector<ManifestEntry>> ReadManifestEntries(const TableMetadata& metadata,
                                                       const Datum& manifest) {
  const auto& m = manifest.as<Record>().fields;
  const PartitionSpec* spec = ManifestSpec(metadata, manifest);
  if (!spec) {
    return Status::Invalid("manifest ", m[0].as<std::string>(), " uses unknown partition spec ",
                           m[2].as<int32_t>());
  }
  ARROW_ASSIGN_OR_RAISE(auto bytes, ReadBytes(m[0].as<std::string>()));
  ARROW_ASSIGN_OR_RAISE(auto container, avro::ReadContainer(bytes));
  const avro::Schema& schema = *container.schema;
  int data_index = schema.FieldIndexById(2);
  if (data_index < 0) {
    return Status::Invalid("manifest without data_file: ", m[0].as<std::string>());
  }
  const avro::Schema& data_schema = schema.fields()[data_index].schema->NonNull();
  auto long_or = [](const Datum* d) -> std::optional<int64_t> {
    if (d && d->is<int64_t>()) return d->as<int64_t>();
    return std::nullopt;
  };
  std::vector<ManifestEntry> entries;
  for (const auto& record : container.records) {
    ManifestEntry e;
    const Datum* status = avro::FieldById(schema, record, 0);
    e.status = status && status->is<int32_t>() ? status->as<int32_t>() : 1;
    // Null snapshot ids and sequence numbers inherit from the manifest list.
    e.snapshot_id = long_or(avro::FieldById(schema, record, 1)).value_or(m[6].as<int64_t>());
    e.sequence_number = long_or(avro::FieldById(schema, record, 3)).value_or(m[4].as<int64_t>());
    e.file_sequence_number =
        long_or(avro::FieldById(schema, record, 4)).value_or(m[4].as<int64_t>());
    const Datum* data_file = avro::FieldById(schema, record, 2);
    if (!data_file) continue;
    const Datum* content = avro::FieldById(data_schema, *data_file, 134);
    if (e.status != 2 && content && content->is<int32_t>() && content->as<int32_t>() != 0) {
      return UserError(
          ErrorKind::kUnsupportedOperation, "UNSUPPORTED_FEATURE",
          "Reading Iceberg delete files (merge-on-read) is not supported by Ember yet.", "0A000");
    }
    const Datum* path = avro::FieldById(data_schema, *data_file, 100);
    if (!path || !path->is<std::string>()) {
      return Status::Invalid("manifest ", m[0].as<std::string>(),
                             ": a data_file without a file_path string (field id 100)");
    }
    e.path = path->as<std::string>();
    e.record_count = long_or(avro::FieldById(data_schema, *data_file, 103)).value_or(0);
    e.size = long_or(avro::FieldById(data_schema, *data_file, 104)).value_or(0);
    e.data_file = EmberDataFile(data_schema, *data_file, *spec);
    e.spec_id = spec->spec_id;
    entries.push_back(std::move(e));
  }
  return entries;
}

bool IsDataManifest(const Datum& manifest) {
  return manifest.as<Record>().fields[3].as<int32_t>() == 0;
}

// Whether a manifest still lists a file any scan reads (ADDED or EXISTING).
bool HasLiveFiles(const Datum& manifest) {
  const auto& m = manifest.as<Record>().fields;
  auto count = [](const Datum& d) { return d.is<int32_t>() ? d.as<int32_t>() : 1; };
  return count(m[7]) + count(m[8]) > 0;
}

Result<std::vector<ManifestEntry>> LiveFiles(const TableMetadata& metadata, const Snapshot& snapshot) {
  ARROW_ASSIGN_OR_RAISE(auto manifests, ReadManifestList(snapshot));
  std::vector<ManifestEntry> files;
  for (const auto& m : manifests) {
    if (!IsDataManifest(m)) {
      if (!HasLiveFiles(m)) continue;
      return UserError(
          ErrorKind::kUnsupportedOperation, "UNSUPPORTED_FEATURE",
          "Reading Iceberg delete files (merge-on-read) is not supported by Ember yet.", "0A000");
    }
    ARROW_ASSIGN_OR_RAISE(auto entries, ReadManifestEntries(metadata, m));
    for (auto& e : entries) {
      if (e.status != 2) files.push_back(std::move(e));
    }
  }
  return files;
}

std::map<std::string, std::string> Summary(const TableMetadata& base, const std::string& operation,
                                           const std::vector<DataFile>& added,
                                           const std::vector<ManifestEntry>& removed,
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
  s["operation"] = operation;
  s["added-data-files"] = std::to_string(added.size());
  s["added-records"] = std::to_string(added_records);
  s["added-files-size"] = std::to_string(added_size);
  if (!removed.empty()) {
    s["deleted-data-files"] = std::to_string(removed.size());
    s["deleted-records"] = std::to_string(removed_records);
    s["removed-files-size"] = std::to_string(removed_size);
  }
  // Partitions by spec and values; an unpartitioned table has one.
  std::set<std::string> partitions;
  for (const auto& f : added) {
    partitions.insert(std::to_string(base.default_spec_id) + Datum(f.partition).ToString());
  }
  for (const auto& f : removed) {
    partitions.insert(std::to_string(f.spec_id) + f.data_file.as<Record>().fields[3].ToString());
  }
  s["changed-partition-count"] = std::to_string(partitions.size());
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

namespace {

// One attempt's changes on top of a fresh base: the new snapshot's manifest list and what it
// removes.
struct Changes {
  std::vector<Datum> manifests;
  std::vector<ManifestEntry> removed;
  std::string operation;
};

// Iceberg's ListPacker.packEnd with a lookback of 1: bins of consecutive manifests filled from
// the end of the list up to `target` bytes each (an item larger than the target gets a bin of
// its own), so that the under-filled bin is the first one, merged again next time.
std::vector<std::vector<Datum>> PackFromEnd(const std::vector<Datum>& manifests, int64_t target) {
  std::vector<std::vector<Datum>> bins;
  int64_t weight = 0;
  for (auto it = manifests.rbegin(); it != manifests.rend(); ++it) {
    int64_t length = it->as<Record>().fields[1].as<int64_t>();
    if (bins.empty() || weight + length > target) {
      bins.emplace_back();
      weight = 0;
    }
    bins.back().push_back(*it);
    weight += length;
  }
  std::reverse(bins.begin(), bins.end());
  for (auto& bin : bins) std::reverse(bin.begin(), bin.end());
  return bins;
}

// Iceberg's manifest merging (MergingSnapshotProducer, ManifestMergeManager) on a new manifest
// list whose first manifest is `first`: data manifests of one spec are packed into bins of
// commit.manifest.target-size-bytes (8 MB); a bin of several manifests is rewritten as one,
// except the bin holding the first manifest while it has fewer than
// commit.manifest.min-count-to-merge (100). A rewritten manifest keeps the files this snapshot
// adds as ADDED and deletes as DELETED, the other live files as EXISTING with their sequence
// numbers, and drops older deletes. So a table that gains a manifest per commit keeps at most
// about 100 of them, and no commit reads more than that.
Result<std::vector<Datum>> MergeManifests(const TableMetadata& m, int64_t snapshot_id,
                                          int64_t sequence, std::vector<Datum> manifests,
                                          std::vector<std::string>* written) {
  if (!m.BoolProperty("commit.manifest-merge.enabled", true) || manifests.empty()) {
    return manifests;
  }
  int64_t min_count = m.LongProperty("commit.manifest.min-count-to-merge", 100);
  int64_t target = m.LongProperty("commit.manifest.target-size-bytes", 8LL << 20);
  const std::string first = manifests[0].as<Record>().fields[0].as<std::string>();
  // Groups by spec, the highest spec id first (Java's reverse-ordered map); others stay last.
  std::map<int, std::vector<Datum>, std::greater<int>> groups;
  std::vector<Datum> others;
  for (auto& manifest : manifests) {
    if (IsDataManifest(manifest)) {
      groups[manifest.as<Record>().fields[2].as<int32_t>()].push_back(std::move(manifest));
    } else {
      others.push_back(std::move(manifest));
    }
  }
  std::vector<Datum> out;
  for (auto& [spec_id, group] : groups) {
    for (auto& bin : PackFromEnd(group, target)) {
      bool has_first = std::any_of(bin.begin(), bin.end(), [&](const Datum& d) {
        return d.as<Record>().fields[0].as<std::string>() == first;
      });
      if (bin.size() == 1 || (has_first && static_cast<int64_t>(bin.size()) < min_count)) {
        out.insert(out.end(), bin.begin(), bin.end());
        continue;
      }
      std::vector<ManifestEntry> merged;
      for (const auto& manifest : bin) {
        ARROW_ASSIGN_OR_RAISE(auto entries, ReadManifestEntries(m, manifest));
        for (auto& e : entries) {
          bool ours = e.snapshot_id == snapshot_id;
          if (e.status == 2 && !ours) continue;  // deleted by an older snapshot
          if (e.status == 1 && ours) {
            e.sequence_number = e.file_sequence_number = std::nullopt;  // inherited
          } else if (e.status != 2) {
            e.status = 0;
          }
          merged.push_back(std::move(e));
        }
      }
      std::string path = m.location + "/metadata/" + NewUuid() + "-m" +
                         std::to_string(out.size()) + ".avro";
      written->push_back(path);
      ARROW_ASSIGN_OR_RAISE(auto entry, WriteManifest(m, *m.spec(spec_id), snapshot_id, sequence,
                                                      merged, path));
      out.push_back(std::move(entry));
      // This attempt's own manifests merged away are not kept.
      for (const auto& manifest : bin) {
        const auto& merged_path = manifest.as<Record>().fields[0].as<std::string>();
        auto it = std::find(written->begin(), written->end(), merged_path);
        if (it == written->end()) continue;
        std::error_code ec;
        fs::remove(LocalPath(merged_path), ec);
        written->erase(it);
      }
    }
  }
  out.insert(out.end(), others.begin(), others.end());
  return out;
}

using ApplyFn = std::function<Result<Changes>(const TableMetadata& base, int64_t snapshot_id,
                                              int64_t sequence, std::vector<std::string>* written)>;

// Iceberg's optimistic commit loop (ICEBERG.md 5.1): refresh, apply the change to the fresh
// base, swap the metadata; on a lost race remove this attempt's manifests and try again.
// `added` holds the data files written once before the loop; `skip` may end the loop early.
Result<bool> CommitWithRetries(Catalog* catalog, const std::vector<std::string>& ident,
                               const std::vector<DataFile>& added,
                               const std::map<std::string, std::string>& summary,
                               const std::function<bool(const TableMetadata&)>& skip,
                               const ApplyFn& apply) {
  for (int attempt = 0;; ++attempt) {
    ARROW_ASSIGN_OR_RAISE(auto base, catalog->LoadTable(ident));
    if (skip && skip(base.metadata)) return false;
    const TableMetadata& m = base.metadata;
    int64_t snapshot_id = NewSnapshotId();
    int64_t sequence = m.last_sequence_number + 1;
    std::vector<std::string> written;
    ARROW_ASSIGN_OR_RAISE(auto changes, apply(m, snapshot_id, sequence, &written));
    ARROW_ASSIGN_OR_RAISE(changes.manifests, MergeManifests(m, snapshot_id, sequence,
                                                            std::move(changes.manifests), &written));
    std::string list_path = m.location + "/metadata/snap-" + std::to_string(snapshot_id) + "-" +
                            std::to_string(attempt) + "-" + NewUuid() + ".avro";
    written.push_back(list_path);
    ARROW_ASSIGN_OR_RAISE(
        auto list_bytes,
        avro::WriteContainer(
            ManifestFileSchema(),
            {{"snapshot-id", std::to_string(snapshot_id)},
             {"parent-snapshot-id",
              m.current_snapshot_id ? std::to_string(*m.current_snapshot_id) : "null"},
             {"sequence-number", std::to_string(sequence)},
             {"format-version", "2"}},
            changes.manifests, avro::Codec::kDeflate));
    ARROW_RETURN_NOT_OK(WriteBytes(list_path, list_bytes));

    TableMetadata updated = m;
    Snapshot snapshot;
    snapshot.snapshot_id = snapshot_id;
    snapshot.parent_snapshot_id = m.current_snapshot_id;
    snapshot.sequence_number = sequence;
    snapshot.timestamp_ms = std::max(CurrentTimeMs(), m.last_updated_ms);
    snapshot.manifest_list = list_path;
    snapshot.summary = Summary(m, changes.operation, added, changes.removed, summary);
    snapshot.schema_id = m.current_schema_id;
    updated.snapshots.push_back(snapshot);
    updated.current_snapshot_id = snapshot_id;
    updated.last_sequence_number = sequence;
    updated.last_updated_ms = snapshot.timestamp_ms;
    updated.snapshot_log.emplace_back(snapshot.timestamp_ms, snapshot_id);
    ARROW_ASSIGN_OR_RAISE(bool committed, catalog->Commit(base, std::move(updated)));
    if (committed) return true;
    std::error_code ec;
    for (const auto& path : written) fs::remove(LocalPath(path), ec);
    ARROW_RETURN_NOT_OK(BackOffAfterLostCommit(catalog, ident, attempt));
  }
}

}  // namespace

Status BackOffAfterLostCommit(Catalog* catalog, const std::vector<std::string>& ident,
                              int attempt) {
  if (attempt >= 10) {
    return UserError(ErrorKind::kRuntime, "ICEBERG_COMMIT_FAILED",
                     "Could not commit to " + catalog->QualifiedName(ident) +
                         ": other writers kept committing first.",
                     "40000");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(10 << std::min(attempt, 6)));
  return Status::OK();
}

namespace {

// Rows conformed to the table's schema as new data files, one per partition of the default
// spec (under data/<partition path>/ as Java lays them out), or none for no rows.
Result<std::vector<DataFile>> WriteRows(Catalog* catalog,
                                        const std::vector<std::string>& ident,
                                        const std::shared_ptr<arrow::Table>& rows) {
  if (rows->num_rows() == 0) return std::vector<DataFile>{};
  ARROW_ASSIGN_OR_RAISE(auto base, catalog->LoadTable(ident));
  const TableMetadata& m = base.metadata;
  ARROW_ASSIGN_OR_RAISE(auto conformed,
                        ConformToSchema(rows, m.schema, catalog->QualifiedName(ident)));
  ARROW_ASSIGN_OR_RAISE(auto groups, SplitByPartition(m.default_spec(), *m.schema, conformed));
  // Files roll toward the table's target size, judged by the rows' size in memory (Parquet's
  // encoding and compression make the files smaller).
  int64_t target = std::max<int64_t>(1, m.LongProperty("write.target-file-size-bytes", 512LL << 20));
  std::string uuid = NewUuid();
  std::vector<DataFile> files;
  for (auto& group : groups) {
    std::string dir = m.location + "/data/" + (group.path.empty() ? "" : group.path + "/");
    int64_t rows_in_group = group.rows->num_rows();
    int64_t parts = std::max<int64_t>(1, (arrow::util::TotalBufferSize(*group.rows) + target - 1) / target);
    int64_t rows_per_file = std::max<int64_t>(1, (rows_in_group + parts - 1) / parts);
    for (int64_t offset = 0, n = 1; offset < rows_in_group; offset += rows_per_file, ++n) {
      char suffix[32];
      std::snprintf(suffix, sizeof(suffix), "-0-%05lld.parquet", static_cast<long long>(n));
      std::string path = dir + "00000-" + std::to_string(files.size()) + "-" + uuid + suffix;
      ARROW_ASSIGN_OR_RAISE(auto file, WriteDataFile(group.rows->Slice(offset, rows_per_file), path));
      file.partition = group.partition;
      files.push_back(std::move(file));
    }
  }
  return files;
}

// The manifest of the files a commit adds, first in the new manifest list.
Result<std::vector<Datum>> AddedManifest(const TableMetadata& m, int64_t snapshot_id,
                                         int64_t sequence, const std::vector<DataFile>& added,
                                         std::vector<std::string>* written) {
  if (added.empty()) return std::vector<Datum>{};
  std::string path = m.location + "/metadata/" + NewUuid() + "-m0.avro";
  written->push_back(path);
  ARROW_ASSIGN_OR_RAISE(
      auto entry, WriteManifest(m, m.default_spec(), snapshot_id, sequence,
                                AddedEntries(added, snapshot_id, m.default_spec_id), path));
  return std::vector<Datum>{entry};
}

std::string PathList(const std::vector<std::string>& paths) {
  std::string out;
  for (const auto& p : paths) out += (out.empty() ? "" : ", ") + p;
  return "[" + out + "]";
}

// Iceberg's validation of a copy-on-write commit against the commits made since its scan: the
// files it removes must still be live (a concurrent delete or rewrite conflicts), and under
// serializable isolation no data file may have been added (Ember's conflict filter is `true`).
Status ValidateSinceScan(const TableMetadata& m, const OverwriteRequest& request) {
  if (m.current_snapshot_id == request.scan_snapshot_id) return Status::OK();
  std::set<std::string> live_now, live_then;
  if (const Snapshot* current = m.current_snapshot()) {
    ARROW_ASSIGN_OR_RAISE(auto files, LiveFiles(m, *current));
    for (const auto& f : files) live_now.insert(f.path);
  }
  if (request.scan_snapshot_id) {
    const Snapshot* scanned = m.snapshot(*request.scan_snapshot_id);
    if (!scanned) {
      return UserError(ErrorKind::kRuntime, "",
                       "Cannot determine history between read snapshot " +
                           std::to_string(*request.scan_snapshot_id) +
                           " and the current table state",
                       "");
    }
    ARROW_ASSIGN_OR_RAISE(auto files, LiveFiles(m, *scanned));
    for (const auto& f : files) live_then.insert(f.path);
  }
  std::vector<std::string> deleted, added;
  for (const auto& path : request.removed) {
    if (!live_now.count(path)) deleted.push_back(path);
  }
  if (!deleted.empty()) {
    return UserError(ErrorKind::kRuntime, "",
                     "Found conflicting deleted files that can contain records matching true: " +
                         PathList(deleted),
                     "");
  }
  for (const auto& path : live_now) {
    if (!live_then.count(path)) added.push_back(path);
  }
  if (request.serializable && !added.empty()) {
    return UserError(
        ErrorKind::kRuntime, "",
        "Found conflicting files that can contain records matching true: " + PathList(added), "");
  }
  return Status::OK();
}

}  // namespace

namespace {

// Commits data files already written as an append (complete mode: an overwrite of every row).
Result<bool> AppendFiles(Catalog* catalog, const std::vector<std::string>& ident,
                         const std::vector<DataFile>& added, const AppendOptions& options) {
  auto apply = [&](const TableMetadata& m, int64_t snapshot_id, int64_t sequence,
                   std::vector<std::string>* written) -> Result<Changes> {
    Changes changes;
    ARROW_ASSIGN_OR_RAISE(changes.manifests,
                          AddedManifest(m, snapshot_id, sequence, added, written));
    if (const Snapshot* parent = m.current_snapshot()) {
      if (options.overwrite) {
        ARROW_ASSIGN_OR_RAISE(changes.removed, LiveFiles(m, *parent));
      } else {
        ARROW_ASSIGN_OR_RAISE(auto parent_list, ReadManifestList(*parent));
        changes.manifests.insert(changes.manifests.end(), parent_list.begin(), parent_list.end());
      }
    }
    changes.operation = changes.removed.empty() ? "append" : added.empty() ? "delete" : "overwrite";
    return changes;
  };
  return CommitWithRetries(catalog, ident, added, options.summary, options.already_committed,
                           apply);
}

}  // namespace

Result<bool> AppendRows(Catalog* catalog, const std::vector<std::string>& ident,
                        const std::shared_ptr<arrow::Table>& rows, const AppendOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto base, catalog->LoadTable(ident));
  if (options.already_committed && options.already_committed(base.metadata)) return false;
  ARROW_ASSIGN_OR_RAISE(auto added, WriteRows(catalog, ident, rows));
  return AppendFiles(catalog, ident, added, options);
}

struct PartedAppend::State {
  Catalog* catalog;
  std::vector<std::string> ident;
  AppendOptions options;
  bool skipped = false;
  std::shared_ptr<arrow::Schema> schema;
  std::string file_prefix;  // each part's file is <prefix><part>-<uuid>-0-00001.parquet
  std::string uuid;
  std::vector<std::unique_ptr<DataFileWriter>> writers;  // per part; null until its first rows
};

Result<std::unique_ptr<PartedAppend>> PartedAppend::Begin(Catalog* catalog,
                                                          std::vector<std::string> ident,
                                                          int parts, AppendOptions options) {
  ARROW_ASSIGN_OR_RAISE(auto base, catalog->LoadTable(ident));
  const TableMetadata& m = base.metadata;
  if (!m.default_spec().fields.empty()) return nullptr;
  auto state = std::make_unique<State>();
  state->skipped = options.already_committed && options.already_committed(m);
  state->catalog = catalog;
  state->ident = std::move(ident);
  state->options = std::move(options);
  state->schema = m.schema;
  state->file_prefix = m.location + "/data/00000-";
  state->uuid = NewUuid();
  state->writers.resize(static_cast<size_t>(parts));
  std::unique_ptr<PartedAppend> append(new PartedAppend());
  append->state_ = std::move(state);
  return append;
}

PartedAppend::~PartedAppend() = default;

Status PartedAppend::Write(int part, const std::shared_ptr<arrow::Table>& rows) {
  State& s = *state_;
  if (s.skipped || rows->num_rows() == 0) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto conformed,
                        ConformToSchema(rows, s.schema, s.catalog->QualifiedName(s.ident)));
  auto& writer = s.writers[static_cast<size_t>(part)];
  if (!writer) {
    ARROW_ASSIGN_OR_RAISE(writer, DataFileWriter::Open(s.schema, s.file_prefix + std::to_string(part) +
                                                                     "-" + s.uuid + "-0-00001.parquet"));
  }
  return writer->Write(*conformed);
}

Result<bool> PartedAppend::Commit() {
  State& s = *state_;
  if (s.skipped) return false;
  // The parts' files are finished side by side, each flushing its last row group.
  std::vector<DataFile> files(s.writers.size());
  ARROW_RETURN_NOT_OK(arrow::internal::ParallelFor(static_cast<int>(s.writers.size()), [&](int i) -> Status {
    if (!s.writers[static_cast<size_t>(i)]) return Status::OK();
    ARROW_ASSIGN_OR_RAISE(files[static_cast<size_t>(i)], s.writers[static_cast<size_t>(i)]->Finish());
    return Status::OK();
  }));
  std::vector<DataFile> added;
  for (size_t i = 0; i < files.size(); ++i) {
    if (s.writers[i]) added.push_back(std::move(files[i]));
  }
  return AppendFiles(s.catalog, s.ident, added, s.options);
}

Status OverwriteFiles(Catalog* catalog, const std::vector<std::string>& ident,
                      const OverwriteRequest& request) {
  ARROW_ASSIGN_OR_RAISE(auto added, WriteRows(catalog, ident, request.added));
  std::set<std::string> removed(request.removed.begin(), request.removed.end());
  auto apply = [&](const TableMetadata& m, int64_t snapshot_id, int64_t sequence,
                   std::vector<std::string>* written) -> Result<Changes> {
    ARROW_RETURN_NOT_OK(ValidateSinceScan(m, request));
    Changes changes;
    bool deletes = !removed.empty() || request.delete_statement;
    changes.operation = deletes && added.empty() ? "delete" : "overwrite";
    ARROW_ASSIGN_OR_RAISE(changes.manifests,
                          AddedManifest(m, snapshot_id, sequence, added, written));
    const Snapshot* parent = m.current_snapshot();
    if (!parent) return changes;
    ARROW_ASSIGN_OR_RAISE(auto parent_list, ReadManifestList(*parent));
    for (const auto& manifest : parent_list) {
      // A manifest whose files were all removed by earlier commits is dropped, as Java does.
      if (!HasLiveFiles(manifest)) continue;
      if (!IsDataManifest(manifest)) {
        changes.manifests.push_back(manifest);
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(auto entries, ReadManifestEntries(m, manifest));
      bool touched = std::any_of(entries.begin(), entries.end(), [&](const ManifestEntry& e) {
        return e.status != 2 && removed.count(e.path);
      });
      if (!touched) {
        changes.manifests.push_back(manifest);
        continue;
      }
      // Rewrite it: removed files become DELETED by this snapshot, the others EXISTING with
      // their sequence numbers written out; entries deleted earlier are dropped.
      std::vector<ManifestEntry> rewritten;
      for (auto& e : entries) {
        if (e.status == 2) continue;
        if (removed.count(e.path)) {
          e.status = 2;
          e.snapshot_id = snapshot_id;
          changes.removed.push_back(e);
        } else {
          e.status = 0;
        }
        rewritten.push_back(std::move(e));
      }
      std::string path = m.location + "/metadata/" + NewUuid() + "-m" +
                         std::to_string(changes.manifests.size()) + ".avro";
      written->push_back(path);
      ARROW_ASSIGN_OR_RAISE(auto entry, WriteManifest(m, *ManifestSpec(m, manifest), snapshot_id,
                                                      sequence, rewritten, path));
      changes.manifests.push_back(std::move(entry));
    }
    return changes;
  };
  return CommitWithRetries(catalog, ident, added, request.summary, nullptr, apply).status();
}

namespace {

// A non-null scalar of a column type as the Datum partition values and bounds decode to.
std::optional<Datum> ScalarDatum(const arrow::Scalar& scalar) {
  if (!scalar.is_valid) return std::nullopt;
  switch (scalar.type->id()) {
    case arrow::Type::INT32:
      return Datum(static_cast<const arrow::Int32Scalar&>(scalar).value);
    case arrow::Type::DATE32:
      return Datum(static_cast<const arrow::Date32Scalar&>(scalar).value);
    case arrow::Type::INT64:
      return Datum(static_cast<const arrow::Int64Scalar&>(scalar).value);
    case arrow::Type::TIMESTAMP:
      return Datum(static_cast<const arrow::TimestampScalar&>(scalar).value);
    case arrow::Type::BOOL:
      return Datum(static_cast<const arrow::BooleanScalar&>(scalar).value);
    case arrow::Type::STRING:
      return Datum(static_cast<const arrow::StringScalar&>(scalar).view());
    default:
      return std::nullopt;
  }
}

// The value of key `id` in a metrics map of a data_file record, or null.
const Datum* MetricOf(const Datum& map, int id) {
  const auto* entries = map.get_if<Array>();
  if (!entries) return nullptr;
  for (const auto& entry : entries->items) {
    const auto& kv = entry.as<Record>().fields;
    if (kv[0].as<int32_t>() == id) return &kv[1];
  }
  return nullptr;
}

// Whether a data file may hold a row satisfying `p`, judging by an identity partition value of
// the column or else its bounds and counts (ICEBERG.md 2.5). Float columns are never pruned:
// NaN is not in their bounds.
bool MayMatch(const TableMetadata& m, const ManifestEntry& file, const ColumnPredicate& p) {
  const arrow::Field* column = nullptr;
  for (const auto& f : m.schema->fields()) {
    if (FieldId(*f) == p.field_id) column = f.get();
  }
  if (!column) return true;
  switch (column->type()->id()) {
    case arrow::Type::INT32: case arrow::Type::INT64: case arrow::Type::DATE32:
    case arrow::Type::TIMESTAMP: case arrow::Type::STRING: case arrow::Type::BOOL:
      break;
    default:
      return true;
  }
  const auto& f = file.data_file.as<Record>().fields;
  std::optional<int64_t> values, nulls;
  std::optional<Datum> lower, upper;
  if (const Datum* v = MetricOf(f[7], p.field_id)) values = v->as<int64_t>();
  if (const Datum* v = MetricOf(f[8], p.field_id)) nulls = v->as<int64_t>();
  if (const Datum* v = MetricOf(f[10], p.field_id)) lower = PartitionValueFromBytes(v->as<Bytes>().data, *column->type());
  if (const Datum* v = MetricOf(f[11], p.field_id)) upper = PartitionValueFromBytes(v->as<Bytes>().data, *column->type());
  if (const PartitionSpec* spec = m.spec(file.spec_id)) {
    const auto& partition = f[3].as<Record>().fields;
    for (size_t i = 0; i < spec->fields.size() && i < partition.size(); ++i) {
      if (spec->fields[i].source_id != p.field_id || spec->fields[i].transform != "identity") continue;
      values = file.record_count;
      nulls = partition[i].is_null() ? file.record_count : 0;
      if (partition[i].is_null()) {
        lower = upper = std::nullopt;
      } else {
        lower = upper = partition[i];
      }
    }
  }
  bool all_null = values && nulls && *values == *nulls;
  using Op = ColumnPredicate::Op;
  if (p.op == Op::kIsNull) return !(nulls && *nulls == 0);
  if (p.op == Op::kNotNull) return !all_null;
  if (all_null) return false;  // a comparison with NULL is never true
  for (const auto& scalar : p.values) {
    auto x = ScalarDatum(*scalar);
    if (!x || x->value.index() != (lower ? lower->value.index() : x->value.index())) return true;
    bool excluded = false;
    switch (p.op) {
      case Op::kEq: case Op::kIn:
        excluded = (lower && ComparePartitionValues(*x, *lower) < 0) ||
                   (upper && ComparePartitionValues(*x, *upper) > 0);
        break;
      case Op::kLt: excluded = lower && ComparePartitionValues(*lower, *x) >= 0; break;
      case Op::kLtEq: excluded = lower && ComparePartitionValues(*lower, *x) > 0; break;
      case Op::kGt: excluded = upper && ComparePartitionValues(*upper, *x) <= 0; break;
      case Op::kGtEq: excluded = upper && ComparePartitionValues(*upper, *x) < 0; break;
      default: break;
    }
    if (!excluded) return true;  // IN: any value may match
  }
  return p.values.empty();
}

}  // namespace

Result<std::vector<FileRows>> ScanFiles(const LoadedTable& table,
                                        std::optional<int64_t> snapshot_id,
                                        const std::vector<ColumnPredicate>& predicates) {
  const TableMetadata& m = table.metadata;
  auto schema = m.schema;
  const Snapshot* snapshot = snapshot_id ? m.snapshot(*snapshot_id) : m.current_snapshot();
  if (snapshot_id && !snapshot) {
    return UserError(ErrorKind::kAnalysis, "", "Cannot find snapshot with ID " + std::to_string(*snapshot_id), "");
  }
  if (!snapshot) return std::vector<FileRows>{};
  ARROW_ASSIGN_OR_RAISE(auto files, LiveFiles(m, *snapshot));
  std::vector<FileRows> parts;
  for (const auto& f : files) {
    bool skip = std::any_of(predicates.begin(), predicates.end(),
                            [&](const ColumnPredicate& p) { return !MayMatch(m, f, p); });
    if (skip) continue;
    ARROW_ASSIGN_OR_RAISE(auto rows, ReadDataFile(schema, f.path));
    parts.push_back(FileRows{f.path, std::move(rows)});
  }
  return parts;
}

Result<std::shared_ptr<arrow::Table>> ReadDataFile(const std::shared_ptr<arrow::Schema>& schema,
                                                   const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(auto input, arrow::io::ReadableFile::Open(LocalPath(path)));
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
  return arrow::Table::Make(PlainSchema(*schema), columns, data->num_rows());
}

Result<std::shared_ptr<arrow::Table>> ScanTable(const LoadedTable& table,
                                                std::optional<int64_t> snapshot_id,
                                                const std::vector<ColumnPredicate>& predicates) {
  ARROW_ASSIGN_OR_RAISE(auto files, ScanFiles(table, snapshot_id, predicates));
  if (files.empty()) return arrow::Table::MakeEmpty(PlainSchema(*table.metadata.schema));
  std::vector<std::shared_ptr<arrow::Table>> parts;
  for (const auto& f : files) parts.push_back(f.rows);
  return arrow::ConcatenateTables(parts);
}

Result<std::vector<Datum>> SnapshotManifests(const Snapshot& snapshot) {
  return ReadManifestList(snapshot);
}

Result<std::vector<LiveDataFile>> SnapshotDataFiles(const TableMetadata& metadata,
                                                    const Snapshot& snapshot) {
  ARROW_ASSIGN_OR_RAISE(auto entries, LiveFiles(metadata, snapshot));
  std::vector<LiveDataFile> files;
  for (auto& e : entries) files.push_back(LiveDataFile{e.spec_id, std::move(e.data_file)});
  return files;
}

Result<std::vector<std::string>> ManifestLiveFilePaths(const TableMetadata& metadata,
                                                       const Datum& manifest) {
  std::vector<std::string> paths;
  if (!IsDataManifest(manifest)) return paths;
  ARROW_ASSIGN_OR_RAISE(auto entries, ReadManifestEntries(metadata, manifest));
  for (auto& e : entries) {
    if (e.status != 2) paths.push_back(std::move(e.path));
  }
  return paths;
}

Result<std::vector<ManifestDataEntry>> ManifestDataEntries(const TableMetadata& metadata,
                                                           const Datum& manifest) {
  std::vector<ManifestDataEntry> out;
  if (!IsDataManifest(manifest)) return out;
  ARROW_ASSIGN_OR_RAISE(auto entries, ReadManifestEntries(metadata, manifest));
  for (auto& e : entries) {
    out.push_back(ManifestDataEntry{e.status, e.snapshot_id, std::move(e.path), e.record_count, e.size});
  }
  return out;
}

std::shared_ptr<arrow::Schema> PlainSchema(const arrow::Schema& schema) {
  // Output columns carry the user's names without Iceberg's id metadata.
  arrow::FieldVector plain;
  for (const auto& f : schema.fields())
    plain.push_back(arrow::field(f->name(), f->type(), f->nullable()));
  return arrow::schema(plain);
}

}  // namespace ember::iceberg
