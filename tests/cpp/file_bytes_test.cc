// The readers' byte handling under the sanitizers: Hadoop's block format with several blocks and
// chunks, a byte order mark, damaged files, and random bytes through the UTF-8 decoders (whose
// output must always be valid UTF-8; tests/python/differential/test_file_bytes.py compares the
// results with Spark's on the same bytes).
#include "ember/io/file_bytes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <arrow/api.h>
#include <arrow/util/compression.h>

#include "ember/error.h"
#include "ember/io/csv_lines.h"
#include "ember/io/utf8.h"

namespace ember::io {
namespace {

namespace fs = std::filesystem;

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  auto path = (fs::temp_directory_path() / ("ember_file_bytes_" + name)).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

void PutBigEndian32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xFF);
}

// Hadoop's BlockCompressorStream: per block its length, then chunks of a length and raw bytes.
std::string HadoopBlocks(const std::string& data, arrow::Compression::type type) {
  auto codec = *arrow::util::Codec::Create(type);
  std::string out;
  for (size_t start = 0; start < data.size(); start += 5000) {
    std::string block = data.substr(start, 5000);
    PutBigEndian32(out, static_cast<uint32_t>(block.size()));
    for (size_t at = 0; at < block.size(); at += 1500) {
      std::string chunk = block.substr(at, 1500);
      std::string compressed(static_cast<size_t>(codec->MaxCompressedLen(
                                 static_cast<int64_t>(chunk.size()), nullptr)), '\0');
      int64_t n = *codec->Compress(static_cast<int64_t>(chunk.size()),
                                   reinterpret_cast<const uint8_t*>(chunk.data()),
                                   static_cast<int64_t>(compressed.size()),
                                   reinterpret_cast<uint8_t*>(compressed.data()));
      PutBigEndian32(out, static_cast<uint32_t>(n));
      out += compressed.substr(0, static_cast<size_t>(n));
    }
  }
  return out;
}

std::string Lines(int count) {
  std::string text = "\xEF\xBB\xBF";
  for (int i = 0; i < count; ++i) text += "{\"id\":" + std::to_string(i) + "}\n";
  return text;
}

TEST(FileBytes, HadoopBlockFilesDecompressAcrossBlocksAndChunks) {
  std::string text = Lines(3000);
  for (auto [extension, type] : {std::pair{".lz4", arrow::Compression::LZ4},
                                 std::pair{".snappy", arrow::Compression::SNAPPY}}) {
    std::string path = WriteTemp(std::string("blocks.json") + extension, HadoopBlocks(text, type));
    auto contents = ReadFileContents(path);
    ASSERT_TRUE(contents.ok()) << contents.status().ToString();
    EXPECT_EQ((*contents)->ToString(), text.substr(3)) << extension;  // without the BOM
    fs::remove(path);
  }
}

TEST(FileBytes, AByteOrderMarkIsLeftOutOfOffsetsAndSize) {
  std::string path = WriteTemp("bom.txt", "\xEF\xBB\xBFxyz");
  auto file = FileBytes::Open(path);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ((*file)->size(), 3);
  char out[8] = {};
  EXPECT_EQ(*(*file)->ReadAt(1, 8, out), 2);
  EXPECT_EQ(std::string(out, 2), "yz");
  fs::remove(path);
}

TEST(FileBytes, ADamagedCompressedFileNamesItselfAndItsCodec) {
  for (const char* extension : {".gz", ".bz2", ".zst", ".lz4", ".snappy", ".deflate"}) {
    std::string path = WriteTemp(std::string("damaged.json") + extension,
                                 std::string("\x00\x00\x01\x00garbage", 11));
    auto contents = ReadFileContents(path);
    ASSERT_FALSE(contents.ok()) << extension;
    ASSERT_NE(GetErrorDetail(contents.status()), nullptr) << contents.status().ToString();
    EXPECT_EQ(GetErrorDetail(contents.status())->condition(), "FAILED_READ_FILE.NO_HINT");
    EXPECT_NE(contents.status().message().find(path), std::string::npos);
    EXPECT_NE(contents.status().message().find(CodecOfFile(path)), std::string::npos);
    fs::remove(path);
  }
}

TEST(Utf8, RandomBytesAlwaysBecomeValidText) {
  std::mt19937 rng(5);
  const std::string edges = "az\x80\x8f\x90\x9f\xa0\xbd\xbf\xc0\xc1\xc2\xdf\xe0\xed\xef\xf0\xf4\xf5\xf8\xff\"";
  for (int round = 0; round < 20000; ++round) {
    std::string bytes;
    for (int i = static_cast<int>(rng() % 12); i >= 0; --i) bytes += edges[rng() % edges.size()];
    std::string replaced = ReplaceMalformedUtf8(bytes);
    ASSERT_TRUE(IsValidUtf8(replaced));
    if (IsValidUtf8(bytes)) {
      EXPECT_EQ(replaced, bytes);
    }
    if (auto jackson = JacksonUtf8(bytes)) {
      ASSERT_TRUE(IsValidUtf8(*jackson));
    }
  }
}

TEST(CsvLines, RandomLinesNeverFailInPermissiveMode) {
  std::mt19937 rng(9);
  const std::string alphabet = "ab1,\"\\\n\r ";
  auto schema = arrow::schema({arrow::field("i", arrow::int32()), arrow::field("s", arrow::utf8())});
  CsvOptions options;
  options.corrupt_column = true;
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    for (int i = static_cast<int>(rng() % 40); i >= 0; --i) text += alphabet[rng() % alphabet.size()];
    auto result = DecodeCsvLines("random.csv", text, schema, options);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_EQ(result->rows->num_rows(), result->corrupt->length());
  }
}

}  // namespace
}  // namespace ember::io
