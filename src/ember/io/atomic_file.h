// Whole files written atomically: the content goes to a temporary file in the same directory,
// which is then moved into place without overwriting, so a reader never sees a partial file and
// two writers of one file cannot both succeed. There is no fsync (as Spark on a local file
// system): a file survives a crash of the process, not of the machine. Checkpoint logs and
// Iceberg's metadata commits rely on it.
#pragma once

#include <optional>
#include <string>

#include <arrow/result.h>

namespace ember::io {

/// Writes `content` to `path` atomically, creating its directory; false if `path` already exists.
arrow::Result<bool> WriteFileAtomically(const std::string& path, const std::string& content);

/// The content of `path`, or nothing if it does not exist.
arrow::Result<std::optional<std::string>> ReadFileIfExists(const std::string& path);

}  // namespace ember::io
