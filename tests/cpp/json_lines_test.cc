// The JSON Lines decoder under the sanitizers: irregular records by Spark's rules (the expected
// rows are what Spark 4.0 gives for the same lines; tests/python/differential/test_json_lines.py
// compares the two engines directly), and a large input split between threads.
#include "ember/io/json_lines.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <arrow/api.h>

namespace ember::io {
namespace {

namespace fs = std::filesystem;

std::string WriteTemp(const std::string& name, const std::string& text) {
  auto path = (fs::temp_directory_path() / ("ember_json_lines_" + name)).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::shared_ptr<arrow::Schema> Schema() {
  return arrow::schema({arrow::field("i8", arrow::int8()), arrow::field("i32", arrow::int32()),
                        arrow::field("d", arrow::float64()), arrow::field("s", arrow::utf8())});
}

JsonLinesResult Decode(const std::string& name, const std::string& text, JsonLinesOptions options,
                       int threads = 1) {
  std::string path = WriteTemp(name, text);
  auto result = DecodeJsonLines(path, Schema(), options, threads);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  fs::remove(path);
  return result.ok() ? *result : JsonLinesResult{};
}

std::string Text(const arrow::Table& table, int column, int64_t row) {
  auto scalar = table.column(column)->GetScalar(row);
  return scalar.ok() ? (*scalar)->ToString() : "?";
}

TEST(JsonLinesTest, IrregularRecordsFollowSparksRules) {
  JsonLinesOptions options;
  options.corrupt_column = true;
  auto result = Decode("irregular.json",
                       "{\"s\": 1.50, \"i8\": 200}\n"                // raw text; TINYINT wraps
                       "{\"s\": \"x\", \"i32\": \"7\", \"d\": 2}\n"  // partial result
                       "[{\"s\": \"a\"}, {\"s\": \"b\"}]\n"          // two records
                       "{\"s\": \"t\"} trailing\n"                   // the first value only
                       "{\"d\": \"-INF\", \"s\": \"p\", \"s\": \"q\"}\n"  // last key wins
                       "null\n"
                       "\n"
                       "{\"s\": \"last\"",
                       options);
  const arrow::Table& rows = *result.rows;
  ASSERT_EQ(rows.num_rows(), 8);
  EXPECT_EQ(Text(rows, 3, 0), "1.50");
  EXPECT_EQ(Text(rows, 0, 0), "-56");
  EXPECT_EQ(Text(rows, 3, 1), "x");
  EXPECT_EQ(Text(rows, 1, 1), "null");
  EXPECT_EQ(Text(rows, 2, 1), "2");
  EXPECT_EQ(Text(rows, 3, 2), "a");
  EXPECT_EQ(Text(rows, 3, 3), "b");
  EXPECT_EQ(Text(rows, 3, 4), "t");
  EXPECT_EQ(Text(rows, 3, 5), "q");
  EXPECT_EQ(Text(rows, 2, 5), "-inf");
  EXPECT_EQ(Text(rows, 3, 6), "null");
  EXPECT_EQ(Text(rows, 3, 7), "null");
  auto corrupt = std::static_pointer_cast<arrow::StringArray>(result.corrupt);
  ASSERT_EQ(corrupt->length(), 8);
  EXPECT_TRUE(corrupt->IsNull(0));
  EXPECT_EQ(corrupt->GetString(1), "{\"s\": \"x\", \"i32\": \"7\", \"d\": 2}");
  EXPECT_EQ(corrupt->GetString(6), "null");
  EXPECT_EQ(corrupt->GetString(7), "{\"s\": \"last\"");
}

TEST(JsonLinesTest, DropMalformedAndFailFast) {
  std::string text = "{\"i32\": 1}\n{\"i32\": 1.5}\n{\"i32\": 3}\n";
  JsonLinesOptions drop;
  drop.mode = JsonLinesOptions::Mode::kDropMalformed;
  EXPECT_EQ(Decode("drop.json", text, drop).rows->num_rows(), 2);
  JsonLinesOptions fail;
  fail.mode = JsonLinesOptions::Mode::kFailFast;
  std::string path = WriteTemp("fail.json", text);
  auto result = DecodeJsonLines(path, Schema(), fail, 1);
  fs::remove(path);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find(", line 2)"), std::string::npos) << result.status().message();
}

// About 9 MB of `n` records: two threads' parts.
std::string LargeText(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) {
    text += "{\"i32\": " + std::to_string(i) + ", \"s\": \"row " + std::to_string(i) +
            "\", \"d\": " + std::to_string(i) + ".25, \"padding\": \"xxxxxxxx\"}\n";
  }
  return text;
}

TEST(JsonLinesTest, ALargeInputSplitBetweenThreadsKeepsItsOrder) {
  const int n = 200000;
  std::string text = LargeText(n);
  ASSERT_GT(text.size(), size_t{8} << 20);
  auto result = Decode("large.json", text, JsonLinesOptions{}, /*threads=*/2);
  const arrow::Table& rows = *result.rows;
  ASSERT_EQ(rows.num_rows(), n);
  EXPECT_GT(rows.column(1)->num_chunks(), 1);
  for (int64_t i : {int64_t{0}, int64_t{n / 2 - 1}, int64_t{n / 2}, int64_t{n / 2 + 1}, int64_t{n - 1}}) {
    EXPECT_EQ(Text(rows, 1, i), std::to_string(i));
    EXPECT_EQ(Text(rows, 3, i), "row " + std::to_string(i));
  }
}

// The file is read a chunk at a time: lines cut anywhere by a chunk's end, some longer than a
// chunk, blank lines, and a last line without a line end all come out whole and in order.
TEST(JsonLinesTest, ChunksCutLinesAnywhere) {
  std::string text;
  std::vector<std::string> strings;
  for (int i = 0; i < 300; ++i) {
    strings.push_back(std::string(static_cast<size_t>(i % 37 * 3), static_cast<char>('a' + i % 26)));
    text += "{\"i32\": " + std::to_string(i) + ", \"s\": \"" + strings.back() + "\"}\n";
    if (i % 50 == 0) text += "\n";
  }
  text.pop_back();
  for (int64_t chunk : {1, 7, 64, 1000}) {
    JsonLinesOptions options;
    options.chunk_bytes = chunk;
    auto result = Decode("chunks.json", text, options);
    ASSERT_TRUE(result.rows);
    ASSERT_EQ(result.rows->num_rows(), 300) << "chunk " << chunk;
    for (int i = 0; i < 300; ++i) {
      ASSERT_EQ(Text(*result.rows, 1, i), std::to_string(i)) << "chunk " << chunk;
      ASSERT_EQ(Text(*result.rows, 3, i), strings[static_cast<size_t>(i)]) << "chunk " << chunk;
    }
  }
}

// FAILFAST names the malformed record's line of the whole file, wherever the threads' parts
// and the chunks cut it.
TEST(JsonLinesTest, FailFastNamesTheLineOfTheWholeFile) {
  const int n = 200000;
  std::string text = LargeText(n);
  std::string bad = "{\"i32\": 1.5}";
  size_t at = 0;
  for (int i = 0; i < n - 10; ++i) at = text.find('\n', at) + 1;
  text.replace(at, text.find('\n', at) - at, bad);  // line n - 9
  std::string path = WriteTemp("fail_large.json", text);
  JsonLinesOptions fail;
  fail.mode = JsonLinesOptions::Mode::kFailFast;
  fail.chunk_bytes = 4096;
  auto result = DecodeJsonLines(path, Schema(), fail, /*threads=*/2);
  fs::remove(path);
  ASSERT_FALSE(result.ok());
  const std::string& message = result.status().message();
  EXPECT_NE(message.find(bad + " (file " + path + ", line " + std::to_string(n - 9) + ")"),
            std::string::npos)
      << message;
}

}  // namespace
}  // namespace ember::io
