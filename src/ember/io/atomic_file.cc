#include "ember/io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ember/error.h"

namespace ember::io {

namespace fs = std::filesystem;
using arrow::Result;

Result<bool> WriteFileAtomically(const std::string& path, const std::string& content) {
  static std::atomic<uint64_t> counter{0};
  fs::path directory = fs::path(path).parent_path();
  std::string temp = (directory / ("." + fs::path(path).filename().string() + "." +
                                   std::to_string(::getpid()) + "." + std::to_string(counter++) +
                                   ".tmp"))
                         .string();
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 && errno == ENOENT) {
    // The directory's first entry.
    std::error_code ec;
    fs::create_directories(directory, ec);
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  }
  if (fd < 0) return FileWriteFailed(path, errno);
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      int error = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      return FileWriteFailed(path, error);
    }
    written += static_cast<size_t>(n);
  }
  // No fsync, as Spark on a local file system: the temp file and the no-clobber move make the
  // commit atomic against a crash of the process, not of the machine (docs/streaming.md).
  ::close(fd);
  // The no-clobber commit: a rename that fails if the target exists; link(2) where the file
  // system cannot do that.
  int rc = ::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE);
  int error = errno;
  if (rc != 0 && (error == EINVAL || error == ENOSYS)) {
    rc = ::link(temp.c_str(), path.c_str());
    error = errno;
    ::unlink(temp.c_str());
  } else if (rc != 0) {
    ::unlink(temp.c_str());
  }
  if (rc != 0) {
    if (error == EEXIST) return false;
    return FileWriteFailed(path, error);
  }
  return true;
}

Result<std::optional<std::string>> ReadFileIfExists(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::optional<std::string>();
  std::stringstream buffer;
  buffer << in.rdbuf();
  return std::optional<std::string>(buffer.str());
}

}  // namespace ember::io
