// The state store's contract (STREAMING.md 1.7): version N+1 is what batch N committed, any
// retained version loads again from files, and a re-run batch overwrites its version. The
// expected maps are written out by hand in each test.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <map>

#include <arrow/api.h>
#include <arrow/json/from_string.h>

#include "ember/common/row_keys.h"
#include "ember/stream/state_store.h"

namespace ember::stream {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<arrow::Schema> Schema() {
  return arrow::schema({arrow::field("key", arrow::utf8()), arrow::field("count", arrow::int64())});
}

std::shared_ptr<arrow::Table> Rows(const std::map<std::string, int64_t>& rows) {
  arrow::StringBuilder keys;
  arrow::Int64Builder counts;
  for (const auto& [k, v] : rows) {
    EXPECT_TRUE(keys.Append(k).ok());
    EXPECT_TRUE(counts.Append(v).ok());
  }
  return arrow::Table::Make(Schema(), {*keys.Finish(), *counts.Finish()});
}

std::map<std::string, int64_t> AsMap(const std::shared_ptr<arrow::Table>& table) {
  std::map<std::string, int64_t> out;
  auto combined = *table->CombineChunks();
  if (combined->num_rows() == 0) return out;
  const auto& keys = static_cast<const arrow::StringArray&>(*combined->column(0)->chunk(0));
  const auto& counts = static_cast<const arrow::Int64Array&>(*combined->column(1)->chunk(0));
  for (int64_t i = 0; i < combined->num_rows(); ++i) out[keys.GetString(i)] = counts.Value(i);
  return out;
}

class StateStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ember-state-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<StateStore> Open(const std::string& name = "stateStoreSave", int64_t retain = 100) {
    StateStoreConf conf;
    conf.min_versions_to_retain = retain;
    auto store = StateStore::Open(dir_.string(), 0, name, 1, Schema(), 1, conf);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return std::move(*store);
  }

  // Batch `batch`: loads version `batch`, sets the new rows, commits version batch + 1.
  void RunBatch(StateStore* store, int64_t batch, const std::map<std::string, int64_t>& puts,
                const std::vector<std::string>& removals) {
    ASSERT_TRUE(store->Load(batch).ok());
    auto rows = AsMap(store->rows(0));
    for (const auto& [k, v] : puts) rows[k] = v;
    std::map<std::string, int64_t> removed;
    for (const auto& k : removals) {
      rows.erase(k);
      removed[k] = 0;
    }
    store->Stage(0, Rows(rows), Rows(puts), Rows(removed));
    ASSERT_TRUE(store->Commit(batch + 1).ok());
  }

  fs::path dir_;
};

TEST_F(StateStoreTest, BatchNCommitsVersionNPlusOneAndEveryVersionReloads) {
  auto store = Open();
  RunBatch(store.get(), 0, {{"a", 1}, {"b", 2}}, {});
  RunBatch(store.get(), 1, {{"a", 5}}, {"b"});
  RunBatch(store.get(), 2, {{"c", 7}}, {});
  EXPECT_TRUE(fs::exists(dir_ / "state" / "0" / "0" / "1.delta"));
  EXPECT_TRUE(fs::exists(dir_ / "state" / "0" / "0" / "3.delta"));
  auto fresh = Open();
  ASSERT_TRUE(fresh->Load(1).ok());
  EXPECT_EQ(AsMap(fresh->rows(0)), (std::map<std::string, int64_t>{{"a", 1}, {"b", 2}}));
  ASSERT_TRUE(fresh->Load(2).ok());
  EXPECT_EQ(AsMap(fresh->rows(0)), (std::map<std::string, int64_t>{{"a", 5}}));
  ASSERT_TRUE(fresh->Load(3).ok());
  EXPECT_EQ(AsMap(fresh->rows(0)), (std::map<std::string, int64_t>{{"a", 5}, {"c", 7}}));
  ASSERT_TRUE(fresh->Load(0).ok());
  EXPECT_TRUE(AsMap(fresh->rows(0)).empty());
}

TEST_F(StateStoreTest, ARerunBatchOverwritesItsVersion) {
  auto store = Open();
  RunBatch(store.get(), 0, {{"a", 1}}, {});
  RunBatch(store.get(), 1, {{"a", 2}}, {});
  // The process died before commits/1; a new one runs batch 1 again from version 1.
  auto again = Open();
  RunBatch(again.get(), 1, {{"a", 2}, {"z", 9}}, {});
  auto check = Open();
  ASSERT_TRUE(check->Load(2).ok());
  EXPECT_EQ(AsMap(check->rows(0)), (std::map<std::string, int64_t>{{"a", 2}, {"z", 9}}));
}

TEST_F(StateStoreTest, SnapshotsBoundWhatIsKeptAndLoaded) {
  auto store = Open("stateStoreSave", /*retain=*/5);
  std::map<std::string, int64_t> want;
  for (int64_t batch = 0; batch < 25; ++batch) {
    std::string key = "k" + std::to_string(batch % 4);
    want[key] = batch;
    RunBatch(store.get(), batch, {{key, batch}}, {});
  }
  fs::path partition = dir_ / "state" / "0" / "0";
  // Spark's doSnapshot: a snapshot once a partition has more than minDeltasForSnapshot (10)
  // deltas since its last one: at versions 11 and 22.
  EXPECT_TRUE(fs::exists(partition / "11.snapshot"));
  EXPECT_TRUE(fs::exists(partition / "22.snapshot"));
  EXPECT_FALSE(fs::exists(partition / "10.snapshot"));
  // Cleaning up runs with each snapshot: at version 22 the oldest version kept is 22 - 5 - 1 =
  // 16 (the state the oldest batch of the offsets log reads), which starts from the snapshot at
  // 11, so the files before it are gone and it stays.
  EXPECT_TRUE(fs::exists(partition / "11.snapshot"));
  EXPECT_FALSE(fs::exists(partition / "10.delta"));
  EXPECT_FALSE(fs::exists(partition / "1.delta"));
  EXPECT_TRUE(fs::exists(partition / "12.delta"));
  auto fresh = Open();
  ASSERT_TRUE(fresh->Load(25).ok());
  EXPECT_EQ(AsMap(fresh->rows(0)), want);
  for (int64_t version = 16; version <= 25; ++version) {
    ASSERT_TRUE(fresh->Load(version).ok());
    EXPECT_EQ(AsMap(fresh->rows(0)).size(), 4u) << version;
    EXPECT_EQ(AsMap(fresh->rows(0)).at("k" + std::to_string((version - 1) % 4)), version - 1);
  }
}

TEST_F(StateStoreTest, AnotherOperatorInTheCheckpointIsAnError) {
  Open("stateStoreSave");
  auto other = StateStore::Open(dir_.string(), 0, "dedupe", 1, Schema(), 1, StateStoreConf{});
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA"),
            std::string::npos)
      << other.status().ToString();
}

// Spark's HDFS provider writes a delta for every version, so a missing one is lost state: an
// unchanged batch leaves an empty delta, and a version whose delta is gone fails to load.
TEST_F(StateStoreTest, EveryVersionHasADeltaAndAMissingOneFailsToLoad) {
  auto store = Open();
  RunBatch(store.get(), 0, {{"a", 1}}, {});
  RunBatch(store.get(), 1, {}, {});
  RunBatch(store.get(), 2, {{"b", 2}}, {});
  fs::path partition = dir_ / "state" / "0" / "0";
  ASSERT_TRUE(fs::exists(partition / "2.delta"));
  fs::remove(partition / "2.delta");
  auto fresh = Open();
  ASSERT_TRUE(fresh->Load(1).ok());
  auto status = fresh->Load(3);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("CANNOT_LOAD_STATE_STORE.CANNOT_READ_DELTA_FILE_NOT_EXISTS"),
            std::string::npos)
      << status.ToString();
  EXPECT_NE(status.message().find((partition / "2.delta").string() + " does not exist"), std::string::npos)
      << status.ToString();
}

TEST_F(StateStoreTest, ACutDeltaFailsToLoadNamingIt) {
  auto store = Open();
  RunBatch(store.get(), 0, {{"a", 1}}, {});
  fs::path delta = dir_ / "state" / "0" / "0" / "1.delta";
  fs::resize_file(delta, fs::file_size(delta) / 2);
  auto status = Open()->Load(1);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("CANNOT_LOAD_STATE_STORE.UNCATEGORIZED"), std::string::npos)
      << status.ToString();
  EXPECT_NE(status.message().find(delta.string()), std::string::npos) << status.ToString();
}

TEST(RowKeys, EqualValuesEncodeEquallyAndNullDiffersFromEmpty) {
  arrow::StringBuilder strings;
  ASSERT_TRUE(strings.Append("").ok());
  ASSERT_TRUE(strings.AppendNull().ok());
  ASSERT_TRUE(strings.Append("").ok());
  ASSERT_TRUE(strings.Append("ab").ok());
  arrow::Int64Builder numbers;
  ASSERT_TRUE(numbers.AppendValues({1, 1, 1, 1}).ok());
  auto table = arrow::Table::Make(
      arrow::schema({arrow::field("s", arrow::utf8()), arrow::field("n", arrow::int64())}),
      {*strings.Finish(), *numbers.Finish()});
  auto keys = EncodeKeys(*table, 2);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ((*keys)[0], (*keys)[2]);
  EXPECT_NE((*keys)[0], (*keys)[1]);
  EXPECT_NE((*keys)[0], (*keys)[3]);
  EXPECT_EQ(PartitionOf((*keys)[0], 7), PartitionOf((*keys)[2], 7));
}

// SplitByPartition hashes key columns without encoding them; a key must land in the partition
// PartitionOf gives its encoded bytes, or restored state and new rows would part ways.
TEST(RowKeys, HashesEqualTheHashOfTheEncodedKey) {
  auto window = arrow::struct_({arrow::field("start", arrow::int64()), arrow::field("end", arrow::int64())});
  auto structs = *arrow::json::ArrayFromJSONString(
      window, R"([{"start": 1, "end": 2}, null, {"start": null, "end": 5}, {"start": 1, "end": 2}])");
  auto first = *arrow::json::ArrayFromJSONString(arrow::utf8(), R"(["a", null, ""])");
  auto second = *arrow::json::ArrayFromJSONString(arrow::utf8(), R"(["a long key past fifteen bytes"])");
  auto strings = std::make_shared<arrow::ChunkedArray>(arrow::ArrayVector{first, second});
  auto flags = *arrow::json::ArrayFromJSONString(arrow::boolean(), "[true, false, null, true]");
  auto table = arrow::Table::Make(
      arrow::schema({arrow::field("w", window), arrow::field("s", arrow::utf8()),
                     arrow::field("b", arrow::boolean())}),
      {std::make_shared<arrow::ChunkedArray>(structs), strings, std::make_shared<arrow::ChunkedArray>(flags)});
  auto keys = EncodeKeys(*table, 3);
  auto hashes = HashKeys(*table, 3);
  ASSERT_TRUE(keys.ok() && hashes.ok());
  ASSERT_EQ(hashes->size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ((*hashes)[i], HashKey((*keys)[i])) << "row " << i;
  auto parts = SplitByPartition(table, {0, 1, 2}, 3);
  ASSERT_TRUE(parts.ok());
  for (int p = 0; p < 3; ++p) {
    auto part_keys = EncodeKeys(*(*parts)[static_cast<size_t>(p)], 3);
    ASSERT_TRUE(part_keys.ok());
    for (const auto& key : *part_keys) EXPECT_EQ(PartitionOf(key, 3), p);
  }
}

}  // namespace
}  // namespace ember::stream
