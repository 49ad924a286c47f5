// Reads json, csv, parquet and text files into arrow tables with Spark's rules: the user's schema,
// Spark's option names (case-insensitive), and the JSON parse modes PERMISSIVE, DROPMALFORMED and
// FAILFAST.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/plan/functions.h"
#include "ember/plan/logical_plan.h"

namespace ember::io {

struct FileEntry {
  std::string path;
  int64_t size = 0;
  int64_t modification_time_ms = 0;
};

/// The local path of a file URI ("file:///a/b%20c" -> "/a/b c"); a plain path is returned as is.
std::string PathFromUri(const std::string& uri);
/// The file URI of a local path, as Spark writes it in its logs ("/a/b c" -> "file:///a/b%20c").
std::string PathToUri(const std::string& path);
/// Size and modification time of a file (Spark's PATH_NOT_FOUND if it does not exist).
arrow::Result<FileEntry> StatFile(const std::string& path);

/// Data files under a path: the file itself, or the files below a directory (recursively when
/// asked), skipping names that start with '_' or '.'; glob patterns are expanded.
arrow::Result<std::vector<FileEntry>> ListDataFiles(const std::string& path, bool recursive);

/// The files Spark's InMemoryFileIndex.allFiles gives for a path, as its streaming file source
/// lists them: every directory below is walked (names starting with '.', or with '_' and
/// holding no '=', and names ending in "._COPYING_" skipped), then the directories that hold
/// files are parsed for `col=value` partition directories. Without any, only the files directly
/// in the path are read; with some, only the files of partition directories, after Spark's
/// CONFLICTING_DIRECTORY_STRUCTURES check. `recursive_file_lookup` takes every file instead.
arrow::Result<std::vector<FileEntry>> ListFileIndex(const std::string& path,
                                                    bool recursive_file_lookup);

/// The schema Spark would infer for the files (JSON and CSV with inferSchema), or the schema
/// stored in Parquet files.
arrow::Result<std::shared_ptr<arrow::Schema>> InferSchema(const plan::FileSource& source,
                                                          const std::vector<std::string>& files);

/// Reads the given files of a source into one table with the source's schema. `columns`, when
/// given, says which columns the query references: JSON leaves the others NULL, unread.
arrow::Result<std::shared_ptr<arrow::Table>> ReadFiles(const plan::FileSource& source,
                                                       const std::vector<std::string>& files,
                                                       const plan::EvalContext& ctx,
                                                       const std::vector<bool>& columns = {});

/// Reads every data file of a batch source.
arrow::Result<std::shared_ptr<arrow::Table>> ReadFileSource(const plan::FileSource& source,
                                                            const plan::EvalContext& ctx,
                                                            const std::vector<bool>& columns = {});

}  // namespace ember::io
