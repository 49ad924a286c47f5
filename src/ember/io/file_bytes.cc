#include "ember/io/file_bytes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include <arrow/buffer.h>
#include <arrow/io/compressed.h>
#include <arrow/io/file.h>
#include <arrow/util/compression.h>

#include "ember/error.h"
#include "ember/io/file_reader.h"

namespace ember::io {

using arrow::Result;
using arrow::Status;

namespace {

constexpr char kByteOrderMark[] = "\xEF\xBB\xBF";

// Whether `name` ends in `suffix`, in any case (Hadoop's CompressionCodecFactory lowers the name).
bool EndsWith(std::string_view name, std::string_view suffix) {
  if (name.size() < suffix.size()) return false;
  name.remove_prefix(name.size() - suffix.size());
  return std::equal(name.begin(), name.end(), suffix.begin(),
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

// Spark's FAILED_READ_FILE, with why.
Status FailedRead(const std::string& path, const std::string& why) {
  return UserError(ErrorKind::kRuntime, "FAILED_READ_FILE.NO_HINT",
                   "Encountered error while reading file " + PathToUri(path) + ". " + why,
                   "KD001");
}

// A stream-format codec's file (gzip, zlib, bzip2, zstd: concatenated streams too, as Hadoop's
// codecs read them), decompressed by Arrow's codec.
Result<std::shared_ptr<arrow::Buffer>> DecompressStream(const std::string& path,
                                                        arrow::Compression::type type) {
  ARROW_ASSIGN_OR_RAISE(auto codec, arrow::util::Codec::Create(type));
  ARROW_ASSIGN_OR_RAISE(auto raw, arrow::io::ReadableFile::Open(path));
  ARROW_ASSIGN_OR_RAISE(auto stream, arrow::io::CompressedInputStream::Make(codec.get(), raw));
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::ResizableBuffer> out, arrow::AllocateResizableBuffer(0));
  int64_t size = 0;
  constexpr int64_t kStep = 1 << 20;
  while (true) {
    if (out->capacity() < size + kStep) ARROW_RETURN_NOT_OK(out->Reserve(std::max(size + kStep, size * 2)));
    ARROW_RETURN_NOT_OK(out->Resize(size + kStep, /*shrink_to_fit=*/false));
    ARROW_ASSIGN_OR_RAISE(int64_t got, stream->Read(kStep, out->mutable_data() + size));
    size += got;
    if (got == 0) break;
  }
  ARROW_RETURN_NOT_OK(out->Resize(size, /*shrink_to_fit=*/false));
  ARROW_RETURN_NOT_OK(stream->Close());
  return out;
}

uint32_t BigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

// Hadoop's block format (BlockCompressorStream, of its Lz4Codec and SnappyCodec): blocks of a
// 4-byte big-endian decompressed length, then chunks of a 4-byte compressed length and the raw
// LZ4 or Snappy block, until the block's bytes are all there.
Result<std::shared_ptr<arrow::Buffer>> DecompressBlocks(const std::string& path,
                                                        arrow::Compression::type type) {
  ARROW_ASSIGN_OR_RAISE(auto codec, arrow::util::Codec::Create(type));
  ARROW_ASSIGN_OR_RAISE(auto raw, arrow::io::ReadableFile::Open(path));
  ARROW_ASSIGN_OR_RAISE(int64_t raw_size, raw->GetSize());
  ARROW_ASSIGN_OR_RAISE(auto in, raw->ReadAt(0, raw_size));
  const uint8_t* p = in->data();
  const uint8_t* end = p + in->size();
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::ResizableBuffer> out, arrow::AllocateResizableBuffer(0));
  int64_t size = 0;
  auto truncated = [] { return Status::IOError("the file ends inside a block"); };
  while (p < end) {
    if (end - p < 4) return truncated();
    int64_t block = BigEndian32(p);
    p += 4;
    ARROW_RETURN_NOT_OK(out->Resize(size + block, /*shrink_to_fit=*/false));
    int64_t block_end = size + block;
    while (size < block_end) {
      if (end - p < 4) return truncated();
      int64_t chunk = BigEndian32(p);
      p += 4;
      if (end - p < chunk) return truncated();
      ARROW_ASSIGN_OR_RAISE(int64_t got, codec->Decompress(chunk, p, block_end - size,
                                                           out->mutable_data() + size));
      if (got == 0 && chunk > 0) return Status::IOError("an empty chunk");
      p += chunk;
      size += got;
    }
  }
  ARROW_RETURN_NOT_OK(out->Resize(size, /*shrink_to_fit=*/false));
  return out;
}

Result<std::shared_ptr<arrow::Buffer>> Decompress(const std::string& path, const std::string& codec) {
  if (codec == "gzip" || codec == "deflate") return DecompressStream(path, arrow::Compression::GZIP);
  if (codec == "bzip2") return DecompressStream(path, arrow::Compression::BZ2);
  if (codec == "zstd") return DecompressStream(path, arrow::Compression::ZSTD);
  if (codec == "lz4") return DecompressBlocks(path, arrow::Compression::LZ4);
  return DecompressBlocks(path, arrow::Compression::SNAPPY);
}

}  // namespace

std::string CodecOfFile(const std::string& path) {
  static const std::pair<const char*, const char*> kCodecs[] = {
      {".gz", "gzip"}, {".bz2", "bzip2"}, {".zst", "zstd"},
      {".deflate", "deflate"}, {".lz4", "lz4"}, {".snappy", "snappy"}};
  for (const auto& [extension, codec] : kCodecs) {
    if (EndsWith(path, extension)) return codec;
  }
  return "";
}

Result<std::unique_ptr<FileBytes>> FileBytes::Open(const std::string& path) {
  std::unique_ptr<FileBytes> file(new FileBytes(path));
  std::string codec = CodecOfFile(path);
  if (!codec.empty()) {
    auto contents = Decompress(path, codec);
    if (!contents.ok()) {
      if (GetErrorDetail(contents.status())) return contents.status();
      return FailedRead(path, "It is not a valid " + codec + " file (the codec its extension names): " +
                                  contents.status().message());
    }
    file->contents_ = *contents;
    file->size_ = file->contents_->size();
  } else {
    file->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (file->fd_ < 0 || ::fstat(file->fd_, &st) != 0) {
      return Status::IOError("cannot open ", path, ": ", std::strerror(errno));
    }
    file->size_ = static_cast<int64_t>(st.st_size);
  }
  char head[3] = {0, 0, 0};
  ARROW_ASSIGN_OR_RAISE(int64_t got, file->ReadAt(0, 3, head));
  if (got == 3 && std::memcmp(head, kByteOrderMark, 3) == 0) {
    file->start_ = 3;
    file->size_ -= 3;
  }
  return file;
}

FileBytes::~FileBytes() {
  if (fd_ >= 0) ::close(fd_);
}

Result<int64_t> FileBytes::ReadAt(int64_t offset, int64_t length, char* out) const {
  offset += start_;
  if (contents_) {
    int64_t n = std::clamp<int64_t>(contents_->size() - offset, 0, length);
    if (n > 0) std::memcpy(out, contents_->data() + offset, static_cast<size_t>(n));
    return n;
  }
  int64_t done = 0;
  while (done < length) {
    ssize_t got = ::pread(fd_, out + done, static_cast<size_t>(length - done), offset + done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return Status::IOError("cannot read ", path_, ": ", std::strerror(errno));
    if (got == 0) break;
    done += got;
  }
  return done;
}

Status FileBytes::ReadFully(int64_t offset, int64_t length, char* out) const {
  ARROW_ASSIGN_OR_RAISE(int64_t got, ReadAt(offset, length, out));
  if (got < length) return Status::IOError("cannot read ", path_, ": it got shorter");
  return Status::OK();
}

Result<std::shared_ptr<arrow::Buffer>> ReadFileContents(const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(auto file, FileBytes::Open(path));
  if (file->contents_) return arrow::SliceBuffer(file->contents_, file->start_);
  ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> out, arrow::AllocateBuffer(file->size()));
  ARROW_RETURN_NOT_OK(file->ReadFully(0, file->size(), reinterpret_cast<char*>(out->mutable_data())));
  return out;
}

}  // namespace ember::io
