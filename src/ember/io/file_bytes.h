// The bytes of a data file as Spark's Hadoop input reads them: decompressed by the codec its
// name's extension names (Hadoop's CompressionCodecFactory: .gz, .bz2, .zst, .deflate, .lz4,
// .snappy), and without the UTF-8 byte order mark it may start with.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

namespace ember::io {

/// The Hadoop codec of a file by its name ("gzip", "bzip2", "zstd", "deflate", "lz4",
/// "snappy"), or "" when its name ends in none of their extensions.
std::string CodecOfFile(const std::string& path);

/// The whole contents of a data file, as FileBytes reads them.
arrow::Result<std::shared_ptr<arrow::Buffer>> ReadFileContents(const std::string& path);

/// A data file opened for reading at offsets, by several threads at once. An uncompressed file
/// is read where it lies; a compressed one is decompressed into memory when opened.
class FileBytes {
 public:
  /// Opens the file; a damaged compressed file is an error naming the file and its codec.
  static arrow::Result<std::unique_ptr<FileBytes>> Open(const std::string& path);
  ~FileBytes();
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  const std::string& path() const { return path_; }
  /// The size of the (decompressed) contents, the byte order mark left out.
  int64_t size() const { return size_; }

  /// Reads `length` bytes at `offset`; fewer only where the contents end.
  arrow::Result<int64_t> ReadAt(int64_t offset, int64_t length, char* out) const;
  /// Reads exactly `length` bytes at `offset`: the file must not get shorter while it is read.
  arrow::Status ReadFully(int64_t offset, int64_t length, char* out) const;

 private:
  explicit FileBytes(std::string path) : path_(std::move(path)) {}
  friend arrow::Result<std::shared_ptr<arrow::Buffer>> ReadFileContents(const std::string& path);

  std::string path_;
  int fd_ = -1;
  int64_t start_ = 0;  // past the byte order mark
  int64_t size_ = 0;
  std::shared_ptr<arrow::Buffer> contents_;  // a compressed file's, decompressed
};


}  // namespace ember::io
