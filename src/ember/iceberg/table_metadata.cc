#include "ember/iceberg/table_metadata.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <list>
#include <mutex>

#include <arrow/type.h>
#include <nlohmann/json.hpp>

#include "ember/common/random.h"
#include "ember/error.h"
#include "ember/iceberg/data_file.h"
#include "ember/iceberg/json_integer.h"
#include "ember/iceberg/schema.h"

namespace ember::iceberg {

using arrow::Result;
using nlohmann::ordered_json;

int64_t TableMetadata::LongProperty(const std::string& key, int64_t fallback) const {
  auto it = properties.find(key);
  if (it == properties.end()) return fallback;
  try {
    return std::stoll(it->second);
  } catch (...) {
    return fallback;
  }
}

bool TableMetadata::BoolProperty(const std::string& key, bool fallback) const {
  auto it = properties.find(key);
  if (it == properties.end()) return fallback;
  std::string v = it->second;
  std::transform(v.begin(), v.end(), v.begin(), ::tolower);
  return v == "true" ? true : v == "false" ? false : fallback;
}

std::vector<std::string> AddPreviousMetadata(TableMetadata* updated, int64_t timestamp_ms,
                                             std::string file) {
  int64_t keep = std::max<int64_t>(1, updated->LongProperty("write.metadata.previous-versions-max", 100));
  auto& log = updated->metadata_log;
  log.emplace_back(timestamp_ms, std::move(file));
  std::vector<std::string> dropped;
  while (static_cast<int64_t>(log.size()) > keep) {
    dropped.push_back(std::move(log.front().second));
    log.erase(log.begin());
  }
  return dropped;
}

void DeleteDroppedMetadata(const TableMetadata& committed, const std::vector<std::string>& dropped) {
  if (!committed.BoolProperty("write.metadata.delete-after-commit.enabled", false)) return;
  for (const auto& file : dropped) {
    std::error_code ec;
    std::filesystem::remove(LocalPath(file), ec);
  }
}

int64_t CurrentTimeMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t NewSnapshotId() {
  // Java XORs the halves of a random UUID and keeps it positive.
  int64_t id = static_cast<int64_t>((RandomBits() ^ RandomBits()) & 0x7FFFFFFFFFFFFFFFULL);
  return id == 0 ? 1 : id;
}

const Snapshot* TableMetadata::current_snapshot() const {
  return current_snapshot_id ? snapshot(*current_snapshot_id) : nullptr;
}

const Snapshot* TableMetadata::snapshot(int64_t id) const {
  for (const auto& s : snapshots) {
    if (s.snapshot_id == id) return &s;
  }
  return nullptr;
}

const PartitionSpec& TableMetadata::default_spec() const {
  const PartitionSpec* s = spec(default_spec_id);
  return s ? *s : partition_specs.front();
}

const PartitionSpec* TableMetadata::spec(int id) const {
  for (const auto& s : partition_specs) {
    if (s.spec_id == id) return &s;
  }
  return nullptr;
}

Result<TableMetadata> NewTableMetadata(const arrow::Schema& schema, std::string location,
                                       std::map<std::string, std::string> properties,
                                       const std::vector<PartitionTerm>& partitioning) {
  TableMetadata m;
  m.table_uuid = NewUuid();
  m.location = std::move(location);
  m.last_updated_ms = CurrentTimeMs();
  m.schema = AssignFieldIds(schema, &m.last_column_id);
  m.properties = std::move(properties);
  ARROW_ASSIGN_OR_RAISE(m.partition_specs[0], MakePartitionSpec(*m.schema, partitioning));
  for (const auto& f : m.partition_specs[0].fields) m.last_partition_id = std::max(m.last_partition_id, f.field_id);
  return m;
}

std::string TableMetadata::ToJson() const {
  ordered_json j;
  j["format-version"] = format_version;
  j["table-uuid"] = table_uuid;
  j["location"] = location;
  j["last-sequence-number"] = last_sequence_number;
  j["last-updated-ms"] = last_updated_ms;
  j["last-column-id"] = last_column_id;
  j["current-schema-id"] = current_schema_id;
  j["schemas"] = ordered_json::array({ordered_json::parse(SchemaToJson(*schema, current_schema_id).dump())});
  j["default-spec-id"] = default_spec_id;
  ordered_json specs = ordered_json::array();
  for (const auto& spec : partition_specs) {
    specs.push_back({{"spec-id", spec.spec_id},
                     {"fields", ordered_json::parse(PartitionFieldsToJson(spec).dump())}});
  }
  j["partition-specs"] = specs;
  j["last-partition-id"] = last_partition_id;
  j["default-sort-order-id"] = default_sort_order_id;
  j["sort-orders"] = ordered_json::parse(sort_orders_json);
  j["properties"] = properties;
  j["current-snapshot-id"] = current_snapshot_id ? *current_snapshot_id : -1;
  ordered_json refs = ordered_json::object();
  if (current_snapshot_id) refs["main"] = {{"snapshot-id", *current_snapshot_id}, {"type", "branch"}};
  j["refs"] = refs;
  ordered_json snaps = ordered_json::array();
  for (const auto& s : snapshots) {
    ordered_json sj;
    sj["sequence-number"] = s.sequence_number;
    sj["snapshot-id"] = s.snapshot_id;
    if (s.parent_snapshot_id) sj["parent-snapshot-id"] = *s.parent_snapshot_id;
    sj["timestamp-ms"] = s.timestamp_ms;
    sj["summary"] = s.summary;
    sj["manifest-list"] = s.manifest_list;
    sj["schema-id"] = s.schema_id;
    snaps.push_back(sj);
  }
  j["snapshots"] = snaps;
  j["statistics"] = ordered_json::parse(statistics_json);
  j["partition-statistics"] = ordered_json::parse(partition_statistics_json);
  ordered_json slog = ordered_json::array();
  for (const auto& [ts, id] : snapshot_log) slog.push_back({{"timestamp-ms", ts}, {"snapshot-id", id}});
  j["snapshot-log"] = slog;
  ordered_json mlog = ordered_json::array();
  for (const auto& [ts, file] : metadata_log) mlog.push_back({{"timestamp-ms", ts}, {"metadata-file", file}});
  j["metadata-log"] = mlog;
  return j.dump(2);
}

namespace {

Result<TableMetadata> ParseMetadata(const std::string& text);

}  // namespace

Result<TableMetadata> TableMetadata::FromJson(const std::string& text) {
  // A table's metadata is read several times a commit (the scan, the write, the commit's fresh
  // base), and it grows with the snapshots it lists: the last few parsed documents are kept,
  // looked up by their whole text.
  static std::mutex mutex;
  static std::list<std::pair<std::string, TableMetadata>> recent;
  constexpr size_t kRecent = 4;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto it = recent.begin(); it != recent.end(); ++it) {
      if (it->first != text) continue;
      recent.splice(recent.begin(), recent, it);
      return recent.front().second;
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto metadata, ParseMetadata(text));
  std::lock_guard<std::mutex> lock(mutex);
  recent.emplace_front(text, metadata);
  if (recent.size() > kRecent) recent.pop_back();
  return metadata;
}

namespace {

Result<TableMetadata> ParseMetadata(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return UserError(ErrorKind::kRuntime, "", "Malformed Iceberg table metadata JSON", "");
  }
  try {
    TableMetadata m;
    m.format_version = JsonInteger(j, "format-version", 1);
    m.table_uuid = j.value("table-uuid", "");
    m.location = j.at("location").get<std::string>();
    m.last_sequence_number = JsonInteger(j, "last-sequence-number", int64_t{0});
    m.last_updated_ms = JsonInteger(j, "last-updated-ms", int64_t{0});
    m.last_column_id = JsonInteger(j, "last-column-id", 0);
    m.current_schema_id = JsonInteger(j, "current-schema-id", 0);
    const nlohmann::json* schema_json = nullptr;
    if (j.contains("schemas")) {
      for (const auto& s : j["schemas"]) {
        if (JsonInteger(s, "schema-id", 0) == m.current_schema_id) schema_json = &s;
      }
    } else if (j.contains("schema")) {
      schema_json = &j["schema"];
    }
    if (!schema_json) return UserError(ErrorKind::kRuntime, "", "Table metadata has no current schema", "");
    ARROW_ASSIGN_OR_RAISE(m.schema, SchemaFromJson(*schema_json));
    if (j.contains("partition-specs")) {
      m.partition_specs.clear();
      for (const auto& spec : j["partition-specs"]) {
        ARROW_ASSIGN_OR_RAISE(auto parsed, PartitionSpecFromJson(spec));
        m.partition_specs.push_back(std::move(parsed));
      }
      if (m.partition_specs.empty()) m.partition_specs.emplace_back();
    } else if (j.contains("partition-spec")) {  // format v1's single spec
      ARROW_ASSIGN_OR_RAISE(m.partition_specs[0],
                            PartitionSpecFromJson({{"spec-id", 0}, {"fields", j["partition-spec"]}}));
    }
    m.default_spec_id = JsonInteger(j, "default-spec-id", 0);
    m.last_partition_id = JsonInteger(j, "last-partition-id", 999);
    if (j.contains("sort-orders")) m.sort_orders_json = j["sort-orders"].dump();
    if (j.contains("statistics") && j["statistics"].is_array()) {
      m.statistics_json = j["statistics"].dump();
    }
    if (j.contains("partition-statistics") && j["partition-statistics"].is_array()) {
      m.partition_statistics_json = j["partition-statistics"].dump();
    }
    m.default_sort_order_id = JsonInteger(j, "default-sort-order-id", 0);
    if (j.contains("properties") && j["properties"].is_object()) {
      for (auto& [k, v] : j["properties"].items()) m.properties[k] = v.get<std::string>();
    }
    if (j.contains("current-snapshot-id") && !j["current-snapshot-id"].is_null() &&
        JsonInteger<int64_t>(j["current-snapshot-id"], "current-snapshot-id") != -1) {
      m.current_snapshot_id = JsonInteger<int64_t>(j["current-snapshot-id"], "current-snapshot-id");
    }
    for (const auto& s : j.value("snapshots", nlohmann::json::array())) {
      Snapshot snap;
      snap.snapshot_id = JsonInteger<int64_t>(s.at("snapshot-id"), "snapshot-id");
      if (s.contains("parent-snapshot-id") && !s["parent-snapshot-id"].is_null()) {
        snap.parent_snapshot_id = JsonInteger<int64_t>(s["parent-snapshot-id"], "parent-snapshot-id");
      }
      snap.sequence_number = JsonInteger(s, "sequence-number", int64_t{0});
      snap.timestamp_ms = JsonInteger(s, "timestamp-ms", int64_t{0});
      snap.manifest_list = s.value("manifest-list", "");
      snap.schema_id = JsonInteger(s, "schema-id", 0);
      if (s.contains("summary")) {
        for (auto& [k, v] : s["summary"].items()) snap.summary[k] = v.is_string() ? v.get<std::string>() : v.dump();
      }
      m.snapshots.push_back(snap);
    }
    for (const auto& e : j.value("snapshot-log", nlohmann::json::array())) {
      m.snapshot_log.emplace_back(JsonInteger<int64_t>(e.at("timestamp-ms"), "timestamp-ms"),
                                  JsonInteger<int64_t>(e.at("snapshot-id"), "snapshot-id"));
    }
    for (const auto& e : j.value("metadata-log", nlohmann::json::array())) {
      m.metadata_log.emplace_back(JsonInteger<int64_t>(e.at("timestamp-ms"), "timestamp-ms"),
                                  e.at("metadata-file").get<std::string>());
    }
    return m;
  } catch (const std::exception& e) {
    return UserError(ErrorKind::kRuntime, "", std::string("Malformed Iceberg table metadata: ") + e.what(), "");
  }
}

}  // namespace

}  // namespace ember::iceberg
