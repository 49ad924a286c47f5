// Spark's xxhash64 and HyperLogLog++ as Ember computes them, against answers of the real Spark.
//
// Every expected number below was read from Apache Spark 4.0.1 (pyspark 4.0.1, local mode):
// the hashes from `SELECT xxhash64(<literal>)`, the estimates from
// `SELECT approx_count_distinct(CASE WHEN id < n THEN <value> END, <rsd>D) FROM range(100000)`.
// None was computed by Ember.
#include "ember/common/hyperloglog.h"

#include <arrow/api.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/common/spark_hash.h"

namespace ember {
namespace {

std::shared_ptr<arrow::Array> FromJson(const std::shared_ptr<arrow::DataType>& type,
                                       const std::string& json) {
  auto array = arrow::json::ArrayFromJSONString(type, json);
  EXPECT_TRUE(array.ok()) << array.status().ToString();
  return *array;
}

// Spark's xxhash64 of the single value of `json` (a one-element JSON array).
int64_t SparkHashOf(const std::shared_ptr<arrow::DataType>& type, const std::string& json) {
  auto hashes = SparkXxHash64(*FromJson(type, json));
  EXPECT_TRUE(hashes.ok()) << hashes.status().ToString();
  EXPECT_EQ(hashes->size(), 1u);
  return static_cast<int64_t>((*hashes)[0]);
}

TEST(SparkHash, PrimitivesEqualSparksXxhash64) {
  EXPECT_EQ(SparkHashOf(arrow::int32(), "[1]"), -6698625589789238999);
  EXPECT_EQ(SparkHashOf(arrow::boolean(), "[true]"), -6698625589789238999);  // true hashes as 1
  EXPECT_EQ(SparkHashOf(arrow::int8(), "[-1]"), 2017008487422258757);
  EXPECT_EQ(SparkHashOf(arrow::int16(), "[-7]"), 4987848727247274714);
  EXPECT_EQ(SparkHashOf(arrow::int64(), "[1]"), -7001672635703045582);
  EXPECT_EQ(SparkHashOf(arrow::date32(), "[19724]"), 2483697508354006915);  // 2024-01-02
  // timestamp'2024-01-02 03:04:05' (UTC) and timestamp_ntz'2024-01-02 03:04:05'
  EXPECT_EQ(SparkHashOf(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), "[1704164645000000]"),
            3399828698716617085);
  EXPECT_EQ(SparkHashOf(arrow::timestamp(arrow::TimeUnit::MICRO), "[1704164645000000]"),
            3399828698716617085);
  EXPECT_EQ(SparkHashOf(arrow::float64(), "[-1.5]"), -1519168156472177911);
  EXPECT_EQ(SparkHashOf(arrow::float32(), "[1.5]"), 6163473420726370430);
}

TEST(SparkHash, NegativeZeroAndNaNAreNormalized) {
  EXPECT_EQ(SparkHashOf(arrow::float64(), "[0.0]"), -5252525462095825812);
  EXPECT_EQ(SparkHashOf(arrow::float64(), "[-0.0]"), -5252525462095825812);
  auto nan = arrow::MakeArrayFromScalar(arrow::DoubleScalar(std::nan("7")), 1);
  ASSERT_TRUE(nan.ok());
  auto hashes = SparkXxHash64(**nan);
  ASSERT_TRUE(hashes.ok());
  EXPECT_EQ(static_cast<int64_t>((*hashes)[0]), -3127944061524951246);
}

TEST(SparkHash, BytesEqualSparksXxhash64) {
  EXPECT_EQ(SparkHashOf(arrow::utf8(), R"([""])"), -7444071767201028348);
  EXPECT_EQ(SparkHashOf(arrow::utf8(), R"(["abc"])"), 1423657621850124518);
  // Longer than 32 bytes: XXH64's striped loop.
  EXPECT_EQ(SparkHashOf(arrow::utf8(),
                        R"(["The quick brown fox jumps over the lazy dog, again and again"])"),
            8617175083128995855);
  EXPECT_EQ(SparkHashOf(arrow::utf8(), R"(["héllo wörld, 1234567890abcdefghijklmnopqrstuvwxyz"])"),
            6035279928569951610);
  EXPECT_EQ(SparkHashOf(arrow::large_utf8(), R"(["abc"])"), 1423657621850124518);
  arrow::BinaryBuilder bytes;  // X'00ff10'
  ASSERT_TRUE(bytes.Append(std::string("\x00\xff\x10", 3)).ok());
  auto hashes = SparkXxHash64(**bytes.Finish());
  ASSERT_TRUE(hashes.ok());
  EXPECT_EQ(static_cast<int64_t>((*hashes)[0]), 5415089035989094387);
}

TEST(SparkHash, DecimalsByPrecision) {
  // decimal(10,2): the unscaled long; decimal(30,2) and wider: BigInteger.toByteArray's bytes.
  EXPECT_EQ(SparkHashOf(arrow::decimal128(10, 2), R"(["12.34"])"), -3802813071951760351);
  EXPECT_EQ(SparkHashOf(arrow::decimal128(30, 2), R"(["12.34"])"), 804797035677707363);
  EXPECT_EQ(SparkHashOf(arrow::decimal128(30, 2), R"(["-12.34"])"), -5902959860576184235);
  EXPECT_EQ(SparkHashOf(arrow::decimal128(30, 2), R"(["0.00"])"), -8959994473701255385);
  EXPECT_EQ(SparkHashOf(arrow::decimal128(38, 0), R"(["100000000000000000000"])"),
            -3927927920515673470);
  EXPECT_EQ(SparkHashOf(arrow::decimal128(25, 0), R"(["-128"])"), -7898411661632158123);
  EXPECT_EQ(SparkHashOf(arrow::decimal128(25, 0), R"(["128"])"), 6715097930120473301);
}

TEST(SparkHash, NestedValuesChainTheSeed) {
  EXPECT_EQ(SparkHashOf(arrow::list(arrow::int32()), "[[1, 2]]"), -8133857028838179022);
  EXPECT_EQ(SparkHashOf(arrow::list(arrow::int64()), "[[1, null, 3]]"), 7452347529957652509);
  EXPECT_EQ(SparkHashOf(arrow::list(arrow::int32()), "[[1, null]]"), -6698625589789238999);
  EXPECT_EQ(SparkHashOf(arrow::list(arrow::float64()), "[[-0.0]]"), -5252525462095825812);
  auto st = arrow::struct_({arrow::field("a", arrow::int32()), arrow::field("b", arrow::utf8())});
  EXPECT_EQ(SparkHashOf(st, R"([{"a": 1, "b": "x"}])"), 8510603489595372987);
  EXPECT_EQ(SparkHashOf(st, R"([{"a": null, "b": "x"}])"), -5636050478767222463);
  // With spark.sql.legacy.allowHashOnMapType=true.
  EXPECT_EQ(SparkHashOf(arrow::map(arrow::int32(), arrow::utf8()), R"([[[1, "a"], [2, "b"]]])"),
            8744364272684979380);
}

TEST(SparkHash, NullHashesToTheSeed) {
  auto hashes = SparkXxHash64(*FromJson(arrow::int32(), "[null, 1]"));
  ASSERT_TRUE(hashes.ok());
  EXPECT_EQ((*hashes)[0], kSparkHashSeed);
  EXPECT_FALSE(SparkHashable(*arrow::uint32()));
}

TEST(HyperLogLog, PrecisionFollowsSparksRule) {
  EXPECT_EQ(*HyperLogLog::PrecisionFor(0.05), 9);
  EXPECT_EQ(*HyperLogLog::PrecisionFor(0.01), 14);
  EXPECT_EQ(*HyperLogLog::PrecisionFor(0.1), 7);
  EXPECT_EQ(*HyperLogLog::PrecisionFor(0.39), 4);
  EXPECT_FALSE(HyperLogLog::PrecisionFor(0.5).ok());
  EXPECT_EQ(HyperLogLog(9).num_words(), 52);  // Spark's buffer: m / 10 + 1 longs
  EXPECT_EQ(*HyperLogLog::PrecisionOfSketch(HyperLogLog(14).sketch_bytes()), 14);
}

// The estimate of the values 0..n-1 (as ints, or as the strings "v0".."v{n-1}").
int64_t EstimateOf(int precision, int64_t n, bool strings) {
  std::shared_ptr<arrow::Array> values;
  if (strings) {
    arrow::StringBuilder builder;
    for (int64_t i = 0; i < n; ++i) EXPECT_TRUE(builder.Append("v" + std::to_string(i)).ok());
    EXPECT_TRUE(builder.Finish(&values).ok());
  } else {
    arrow::Int32Builder builder;
    for (int64_t i = 0; i < n; ++i) EXPECT_TRUE(builder.Append(static_cast<int32_t>(i)).ok());
    EXPECT_TRUE(builder.Finish(&values).ok());
  }
  HyperLogLog hll(precision);
  std::vector<uint64_t> words(static_cast<size_t>(hll.num_words()));
  for (uint64_t h : *SparkXxHash64(*values)) hll.Add(words, h);
  return hll.Estimate(words);
}

struct SparkEstimates {
  double rsd;
  bool strings;
  std::vector<int64_t> expected;  // for n = 0, 1, 10, 100, 1000, 5000, 20000, 100000
};

TEST(HyperLogLog, EstimatesEqualSparks) {
  const std::vector<int64_t> sizes = {0, 1, 10, 100, 1000, 5000, 20000, 100000};
  const std::vector<SparkEstimates> cases = {
      {0.05, false, {0, 1, 10, 99, 1026, 4956, 18595, 94954}},
      {0.05, true, {0, 1, 10, 99, 950, 4835, 19530, 102048}},
      {0.01, false, {0, 1, 10, 100, 1002, 5003, 19972, 101521}},
      {0.01, true, {0, 1, 10, 100, 1000, 5019, 20006, 100627}},
      {0.1, false, {0, 1, 9, 104, 1000, 5347, 18418, 92868}},
      {0.1, true, {0, 1, 10, 108, 1015, 4527, 19559, 102556}},
      {0.3, false, {0, 1, 13, 67, 1044, 5955, 11569, 56350}},
      {0.3, true, {0, 1, 11, 109, 1029, 4197, 30434, 105524}},
  };
  for (const auto& c : cases) {
    int precision = *HyperLogLog::PrecisionFor(c.rsd);
    for (size_t i = 0; i < sizes.size(); ++i) {
      EXPECT_EQ(EstimateOf(precision, sizes[i], c.strings), c.expected[i])
          << "rsd " << c.rsd << (c.strings ? " strings" : " ints") << " n " << sizes[i];
    }
  }
}

TEST(HyperLogLog, MergedSketchesEstimateTheUnion) {
  // Halves sketched apart and merged give the sketch of the whole, hence Spark's estimate.
  HyperLogLog hll(9);
  std::vector<uint64_t> a(52), b(52), whole(52);
  arrow::Int32Builder builder;
  for (int32_t i = 0; i < 5000; ++i) ASSERT_TRUE(builder.Append(i).ok());
  auto values = *builder.Finish();
  auto hashes = *SparkXxHash64(*values);
  for (size_t i = 0; i < hashes.size(); ++i) {
    hll.Add(i % 2 ? a : b, hashes[i]);
    hll.Add(whole, hashes[i]);
  }
  hll.Merge(a, b);
  EXPECT_EQ(a, whole);
  EXPECT_EQ(hll.Estimate(a), 4956);
}

}  // namespace
}  // namespace ember
