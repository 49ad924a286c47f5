// The versioned state of one stateful operator, Spark's contract for HDFSBackedStateStoreProvider:
// per partition a key -> value map; batch N reads version N and commits version N+1; any retained
// version can be loaded again, so a re-run batch starts from exactly the state it first saw.
//
// A partition's map is an Arrow table (key columns first, then value columns) kept in memory.
// On disk, in <checkpoint>/state/<operator>/<partition>/, version v is "<v>.delta" (the rows put
// and the keys removed by the batch, in Arrow's IPC file format) or "<v>.snapshot" (the whole
// table). Every commit writes a delta in every partition (an empty one where the batch changed
// nothing), as Spark's HDFS provider does: loading version v needs the newest snapshot at or
// below v and every delta after it, and a missing or damaged file is Spark's
// CANNOT_LOAD_STATE_STORE, never state silently lost.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

namespace ember::stream {

/// How a store keeps its files (the file half of Spark's StateStoreConf).
struct StateStoreConf {
  int64_t min_versions_to_retain = 100;  // spark.sql.streaming.minBatchesToRetain
  int64_t min_deltas_for_snapshot = 10;  // spark.sql.streaming.stateStore.minDeltasForSnapshot
};

/// The partition an encoded key belongs to; stable across processes and versions.
int PartitionOf(std::string_view key, int num_partitions);

/// Splits rows by the partition of their values in `key_columns`.
arrow::Result<std::vector<std::shared_ptr<arrow::Table>>> SplitByPartition(
    const std::shared_ptr<arrow::Table>& table, const std::vector<int>& key_columns,
    int num_partitions);

class StateStore {
 public:
  /// Opens the store of operator `operator_id` under <checkpoint>/state. Writes the operator's
  /// metadata file once; on restart, fails if the checkpoint holds another operator there. An
  /// operator with several stores (a join's two sides) names each: its files are then in
  /// <partition>/<store_name>.
  static arrow::Result<std::unique_ptr<StateStore>> Open(const std::string& checkpoint,
                                                         int operator_id,
                                                         const std::string& operator_name,
                                                         int num_partitions,
                                                         std::shared_ptr<arrow::Schema> schema,
                                                         int num_keys, const StateStoreConf& conf,
                                                         const std::string& store_name = "");

  /// Makes `version` current: from memory when it is the version last committed here, else
  /// from its files.
  arrow::Status Load(int64_t version);
  /// The rows of partition p at the current version.
  const std::shared_ptr<arrow::Table>& rows(int p) const { return rows_[p]; }
  /// Sets partition p's next rows, with what changed: the rows put (a subset of `rows`) and the
  /// keys removed (none of them in `rows`); tables of the store's schema, except that `removed`
  /// needs only the key columns (the first ones).
  void Stage(int p, std::shared_ptr<arrow::Table> rows, std::shared_ptr<arrow::Table> puts,
             std::shared_ptr<arrow::Table> removed);
  /// Writes `version` (the staged partitions' deltas, and a snapshot of each partition that has
  /// more than min_deltas_for_snapshot deltas since its last one), deletes the files no longer
  /// needed for the retained versions (Maintain), and makes it current.
  arrow::Status Commit(int64_t version);

  int num_partitions() const { return static_cast<int>(rows_.size()); }
  int num_keys() const { return num_keys_; }
  const std::shared_ptr<arrow::Schema>& schema() const { return schema_; }
  int64_t num_rows() const;
  int64_t memory_bytes() const;

 private:
  StateStore(std::string directory, std::string store_name, std::shared_ptr<arrow::Schema> schema,
             int num_keys, int num_partitions, const StateStoreConf& conf);
  arrow::Result<std::shared_ptr<arrow::Table>> LoadPartition(int p, int64_t version) const;
  // Spark's maintenance of partition p once `version` is written: a snapshot of it when the
  // partition has more than min_deltas_for_snapshot deltas since its last one (doSnapshot), and
  // the deletion of the files older than the snapshot the oldest retained version loads from
  // (cleanup): version - min_versions_to_retain - 1, the state the oldest batch of the offsets
  // log reads.
  arrow::Status Maintain(int p, int64_t version, bool wrote_delta);
  std::string PartitionDirectory(int p) const;
  /// Names partition p's store in errors.
  std::string Describe(int p) const;

  std::string directory_;  // <checkpoint>/state/<operator>
  std::string store_name_;  // empty for the only store of an operator
  std::shared_ptr<arrow::Schema> schema_;
  int num_keys_;
  StateStoreConf conf_;
  // Per partition, its files: version -> (has a delta, has a snapshot); listed at the first
  // commit after a Load, then kept up to date.
  std::vector<std::optional<std::map<int64_t, std::pair<bool, bool>>>> files_;
  int64_t version_ = -1;  // the version rows_ holds; -1: none loaded
  std::vector<std::shared_ptr<arrow::Table>> rows_;
  struct Change {
    std::shared_ptr<arrow::Table> puts, removed;
  };
  std::vector<std::shared_ptr<arrow::Table>> staged_rows_;  // per partition; null: unchanged
  std::vector<Change> staged_;
};

}  // namespace ember::stream
