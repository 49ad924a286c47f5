// The combine kernels of streaming aggregation state (exec/buffer_combine.h) and the group index
// they rely on (exec/group_index.h). Expected values are worked out by hand from each rule.
#include "ember/exec/buffer_combine.h"

#include <arrow/api.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "ember/exec/group_index.h"
#include "ember/exec/hyperloglog.h"

namespace ember::exec {
namespace {

std::shared_ptr<arrow::Array> FromJson(const std::shared_ptr<arrow::DataType>& type,
                                       const std::string& json) {
  auto array = arrow::json::ArrayFromJSONString(type, json);
  EXPECT_TRUE(array.ok()) << array.status().ToString();
  return *array;
}

// Three stored groups; the batch touches rows 2 and 0 and adds two new groups (rows 3 and 4).
const std::vector<int64_t> kTargets = {2, 3, 0, 4};

void ExpectCombined(CombineRule rule, const std::shared_ptr<arrow::DataType>& type,
                    const std::string& stored, const std::string& fresh, const std::string& want) {
  auto result = CombineBuffers(rule, *FromJson(type, stored), *FromJson(type, fresh), kTargets, 5);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  auto expected = FromJson(type, want);
  EXPECT_TRUE((*result)->Equals(*expected)) << (*result)->ToString() << " vs " << expected->ToString();
}

TEST(BufferCombine, SumsSkipNullsAndWrapAround) {
  ExpectCombined(CombineRule::kAdd, arrow::int64(), "[1, null, 9223372036854775807]",
                 "[1, null, null, 5]", "[1, null, -9223372036854775808, null, 5]");
  ExpectCombined(CombineRule::kAdd, arrow::float64(), "[null, 2.5, 1]", "[0.5, 3, 4, null]",
                 "[4, 2.5, 1.5, 3, null]");
}

TEST(BufferCombine, MinAndMaxOfNumbersTimesAndStrings) {
  ExpectCombined(CombineRule::kMin, arrow::int32(), "[5, 1, null]", "[7, 3, 4, null]",
                 "[4, 1, 7, 3, null]");
  ExpectCombined(CombineRule::kMax, arrow::float64(), "[5, 1, 2]", "[NaN, 3, 4, null]",
                 "[5, 1, 2, 3, null]");
  ExpectCombined(CombineRule::kMax, arrow::timestamp(arrow::TimeUnit::MICRO), "[5, 1, 2]",
                 "[9, 3, null, 1]", "[5, 1, 9, 3, 1]");
  // Byte order: "é" (0xC3 0xA9) sorts after "z"; "B" before "a".
  ExpectCombined(CombineRule::kMin, arrow::utf8(), R"(["a", "x", null])", R"(["b", "é", "B", null])",
                 R"(["B", "x", "b", "é", null])");
  ExpectCombined(CombineRule::kMax, arrow::utf8(), R"(["a", "x", "z"])", R"(["é", "q", null, "c"])",
                 R"(["a", "x", "é", "q", "c"])");
}

TEST(BufferCombine, FirstAndLastKeepNullsUnlessTheySkipThem) {
  const std::string stored = "[null, 1, 2]", fresh = "[8, 9, 7, null]";
  ExpectCombined(CombineRule::kKeepFirst, arrow::int64(), stored, fresh, "[null, 1, 2, 9, null]");
  ExpectCombined(CombineRule::kFirstValid, arrow::int64(), stored, fresh, "[7, 1, 2, 9, null]");
  ExpectCombined(CombineRule::kTakeLast, arrow::int64(), stored, "[null, 9, null, 6]",
                 "[null, 1, null, 9, 6]");
  ExpectCombined(CombineRule::kLastValid, arrow::int64(), "[3, 1, 2]", "[null, 9, 7, 6]",
                 "[7, 1, 2, 9, 6]");
  ExpectCombined(CombineRule::kTakeLast, arrow::utf8(), R"(["a", "b", "c"])",
                 R"([null, "n", "m", "o"])", R"(["m", "b", null, "n", "o"])");
}

TEST(BufferCombine, SketchesMergeRegisterByRegister) {
  HyperLogLog hll(4);
  auto sketch = [&](std::vector<uint64_t> hashes) {
    std::vector<uint64_t> words(static_cast<size_t>(hll.num_words()));
    for (uint64_t h : hashes) hll.Add(words, h);
    return std::string(reinterpret_cast<const char*>(words.data()), words.size() * 8);
  };
  const uint64_t a = 0x1000000000000000, b = 0x2400000000000000, c = 0xF000000000000001;
  arrow::BinaryBuilder stored, fresh, want;
  ASSERT_TRUE(stored.AppendValues({sketch({a}), sketch({b}), sketch({c})}).ok());
  ASSERT_TRUE(fresh.AppendValues({sketch({b}), sketch({c}), sketch({a, c}), sketch({a})}).ok());
  ASSERT_TRUE(want.AppendValues({sketch({a, c}), sketch({b}), sketch({c, b}), sketch({c}), sketch({a})}).ok());
  auto result = CombineBuffers(CombineRule::kMergeSketch, **stored.Finish(), **fresh.Finish(), kTargets, 5);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE((*result)->Equals(**want.Finish()));
}

TEST(BufferCombine, RefusesWhatItCannotCombine) {
  EXPECT_FALSE(CanCombine(CombineRule::kAdd, *arrow::decimal128(10, 2)));
  EXPECT_FALSE(CanCombine(CombineRule::kMin, *arrow::boolean()));
  EXPECT_TRUE(CanCombine(CombineRule::kKeepFirst, *arrow::boolean()));
  auto out_of_range = CombineBuffers(CombineRule::kAdd, *FromJson(arrow::int64(), "[1]"),
                                     *FromJson(arrow::int64(), "[1]"), std::vector<int64_t>{3}, 2);
  EXPECT_FALSE(out_of_range.ok());
}

TEST(GroupIndex, FindsStoredGroupsAppendsNewOnesAndForgetsRemovedOnes) {
  auto schema = arrow::schema({arrow::field("k", arrow::utf8()), arrow::field("n", arrow::int64())});
  auto table = [&](const std::string& keys) {
    auto k = FromJson(arrow::utf8(), keys);
    auto n = *arrow::MakeArrayOfNull(arrow::int64(), k->length());
    return arrow::Table::Make(schema, {k, n});
  };
  auto index = GroupIndex::Build(*table(R"(["c", "a", null, "b"])"), 1);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  auto located = index->Locate(*table(R"(["b", "d", null, "e"])"));
  ASSERT_TRUE(located.ok());
  EXPECT_EQ(located->targets, (std::vector<int64_t>{3, 4, 2, 5}));
  EXPECT_EQ(located->new_groups, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(index->num_rows(), 6);
  // Rows 0 ("c") and 4 ("d") go; the others move up.
  auto kept = FromJson(arrow::boolean(), "[false, true, true, true, false, true]");
  ASSERT_TRUE(index->Retain(static_cast<const arrow::BooleanArray&>(*kept),
                            *table(R"(["a", null, "b", "e"])")).ok());
  located = index->Locate(*table(R"(["e", "c", "a"])"));
  ASSERT_TRUE(located.ok());
  EXPECT_EQ(located->targets, (std::vector<int64_t>{3, 4, 0}));
  EXPECT_EQ(located->new_groups, (std::vector<int64_t>{1}));
  EXPECT_FALSE(index->Locate(*table(R"(["x", "x"])")).ok());
}

}  // namespace
}  // namespace ember::exec
