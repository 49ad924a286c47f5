// Iceberg's partition transforms against the test vectors of the table spec (Appendix B and the
// transform section), which Java's and PyIceberg's implementations also pass.
#include <gtest/gtest.h>

#include <arrow/api.h>

#include "ember/iceberg/partition.h"
#include "ember/iceberg/schema.h"

namespace ember::iceberg {
namespace {

std::string LongBytes(int64_t v) {
  std::string bytes(8, '\0');
  for (int b = 0; b < 8; ++b) bytes[b] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * b)) & 0xFF);
  return bytes;
}

TEST(Murmur3, SpecVectors) {
  EXPECT_EQ(Murmur3(LongBytes(34)), 2017239379);
  EXPECT_EQ(Murmur3("iceberg"), 1210000089);
  EXPECT_EQ(Murmur3(LongBytes(17486)), -653330422);                // date 2017-11-16, as a long
  EXPECT_EQ(Murmur3(LongBytes(1510871468000000LL)), -2047944441);  // 2017-11-16T22:31:08
  EXPECT_EQ(Murmur3(std::string("\x05\x8c", 2)), -500754589);      // decimal 14.20: unscaled 1420
}

// The partition values SplitByPartition gives one column under one transform, one per row.
std::vector<avro::Datum> Transformed(const std::shared_ptr<arrow::Array>& column,
                                     const std::string& transform, int64_t argument) {
  int last_id = 0;
  auto schema = AssignFieldIds(*arrow::schema({arrow::field("c", column->type())}), &last_id);
  auto spec = MakePartitionSpec(*schema, {{transform, "c", argument}});
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  std::vector<avro::Datum> values;
  for (int64_t i = 0; i < column->length(); ++i) {
    auto row = arrow::Table::Make(schema, {column->Slice(i, 1)});
    auto groups = SplitByPartition(*spec, *schema, row);
    EXPECT_TRUE(groups.ok()) << groups.status().ToString();
    values.push_back(groups->at(0).partition.fields.at(0));
  }
  return values;
}

std::shared_ptr<arrow::Array> Longs(std::vector<int64_t> values) {
  arrow::Int64Builder b;
  EXPECT_TRUE(b.AppendValues(values).ok());
  return b.Finish().ValueOrDie();
}

std::shared_ptr<arrow::Array> Micros(std::vector<int64_t> values) {
  arrow::TimestampBuilder b(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), arrow::default_memory_pool());
  EXPECT_TRUE(b.AppendValues(values).ok());
  return b.Finish().ValueOrDie();
}

TEST(Transforms, BucketAndTruncate) {
  EXPECT_EQ(Transformed(Longs({34}), "bucket", 16), std::vector<avro::Datum>{int32_t{3}});
  EXPECT_EQ(Transformed(Longs({1, -1, 10, -10}), "truncate", 10),
            (std::vector<avro::Datum>{int64_t{0}, int64_t{-10}, int64_t{10}, int64_t{-10}}));
  arrow::StringBuilder text;
  ASSERT_TRUE(text.AppendValues({"iceberg", "\xC3\xA4\xE6\xBC\xA2x", "a"}).ok());
  ASSERT_TRUE(text.AppendNull().ok());
  EXPECT_EQ(Transformed(text.Finish().ValueOrDie(), "truncate", 3),
            (std::vector<avro::Datum>{"ice", "\xC3\xA4\xE6\xBC\xA2x", "a", nullptr}));
}

TEST(Transforms, TimeFloorsBeforeTheEpoch) {
  // 1969-12-31T23:59:59.999999 and 2017-11-16T22:31:08.
  auto ts = Micros({-1, 1510871468000000LL});
  EXPECT_EQ(Transformed(ts, "hours", 0), (std::vector<avro::Datum>{int32_t{-1}, int32_t{419686}}));
  EXPECT_EQ(Transformed(ts, "days", 0), (std::vector<avro::Datum>{int32_t{-1}, int32_t{17486}}));
  EXPECT_EQ(Transformed(ts, "months", 0), (std::vector<avro::Datum>{int32_t{-1}, int32_t{574}}));
  EXPECT_EQ(Transformed(ts, "years", 0), (std::vector<avro::Datum>{int32_t{-1}, int32_t{47}}));
}

TEST(Transforms, RefusedSourceTypes) {
  int last_id = 0;
  auto schema = AssignFieldIds(*arrow::schema({arrow::field("d", arrow::date32()),
                                               arrow::field("f", arrow::float64())}),
                               &last_id);
  auto hours = MakePartitionSpec(*schema, {{"hours", "d", 0}});
  ASSERT_FALSE(hours.ok());
  EXPECT_NE(hours.status().message().find("Invalid source type date for transform: hour"), std::string::npos)
      << hours.status().message();
  EXPECT_FALSE(MakePartitionSpec(*schema, {{"bucket", "f", 4}}).ok());
  auto missing = MakePartitionSpec(*schema, {{"identity", "x", 0}});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("Cannot find source column: x"), std::string::npos);
}

}  // namespace
}  // namespace ember::iceberg
