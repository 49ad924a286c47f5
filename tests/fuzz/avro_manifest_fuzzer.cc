// Iceberg's Avro manifest lists and manifests (ember/iceberg/avro.h, table.h), as a scan or a
// commit reads a snapshot's files, whoever wrote them. The first byte chooses which file the rest
// is: the snapshot's manifest list, or the one data manifest of a manifest list this target
// writes; and whether the table is partitioned (the manifest's partition records are re-read by
// field id).
#include <cstddef>
#include <cstdint>
#include <string>

#include <arrow/api.h>

#include "ember/iceberg/avro.h"
#include "ember/iceberg/table.h"
#include "ember/iceberg/table_metadata.h"
#include "input_file.h"

namespace {

namespace avro = ember::iceberg::avro;
using avro::Datum;

const char kManifestListSchema[] =
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
    R"({"name":"deleted_rows_count","type":"long","field-id":514}]})";

// A manifest list of one data manifest at `manifest_path`, as a writer following the spec makes.
std::string ManifestListOf(const std::string& manifest_path, int64_t length) {
  avro::Record manifest;
  manifest.fields = {Datum(manifest_path), Datum(length),     Datum(int32_t{0}), Datum(int32_t{0}),
                     Datum(int64_t{1}),    Datum(int64_t{1}), Datum(int64_t{1}), Datum(int32_t{1}),
                     Datum(int32_t{0}),    Datum(int32_t{0}), Datum(int64_t{1}), Datum(int64_t{0}),
                     Datum(int64_t{0})};
  auto bytes = avro::WriteContainer(kManifestListSchema, {}, {Datum(std::move(manifest))},
                                    avro::Codec::kNull);
  EMBER_FUZZ_CHECK(bytes.ok());
  return *bytes;
}

ember::iceberg::TableMetadata Metadata(bool partitioned) {
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("s", arrow::utf8()),
                               arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"))});
  std::vector<ember::PartitionTerm> terms;
  if (partitioned) terms = {{"identity", "s", 0}, {"days", "ts", 0}, {"bucket", "id", 4}};
  auto metadata = ember::iceberg::NewTableMetadata(*schema, "/nonexistent/table", {}, terms);
  EMBER_FUZZ_CHECK(metadata.ok());
  return *metadata;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const auto unpartitioned = Metadata(false), partitioned = Metadata(true);
  const bool is_manifest = (data[0] & 1) != 0;
  const auto& metadata = (data[0] & 2) ? partitioned : unpartitioned;

  ember::iceberg::Snapshot snapshot;
  snapshot.snapshot_id = 1;
  snapshot.sequence_number = 1;
  if (is_manifest) {
    std::string manifest = ember::fuzz::WriteInputFile("manifest.avro", data + 1, size - 1);
    std::string list = ManifestListOf(manifest, static_cast<int64_t>(size - 1));
    snapshot.manifest_list = ember::fuzz::WriteInputFile(
        "snap-1.avro", reinterpret_cast<const uint8_t*>(list.data()), list.size());
  } else {
    snapshot.manifest_list = ember::fuzz::WriteInputFile("snap-1.avro", data + 1, size - 1);
  }
  (void)ember::iceberg::SnapshotManifests(snapshot);
  (void)ember::iceberg::SnapshotDataFiles(metadata, snapshot);
  return 0;
}
