// Writes a table as one file in Spark's formats: parquet (snappy), csv, json (JSON lines, NULL
// fields omitted, timestamps in ISO-8601 with the session's offset, as Spark writes them).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <arrow/result.h>
#include <arrow/status.h>
#include <arrow/type_fwd.h>

#include "ember/plan/functions.h"

namespace ember::io {

/// The file name extension Spark gives the format's part files (".snappy.parquet", ".csv", ...).
std::string PartFileExtension(const std::string& format);

arrow::Status WriteFile(const std::string& format, const std::shared_ptr<arrow::Table>& table,
                        const std::string& path, const plan::EvalContext& ctx);

/// Writes rows as Spark's part files under `directory` ("part-00000-<job>-c000.snappy.parquet"),
/// in Hive-style `column=value` subdirectories of `partition_columns`, which leave the files.
/// Returns the paths written; no file for no rows.
arrow::Result<std::vector<std::string>> WritePartFiles(
    const std::string& format, const std::shared_ptr<arrow::Table>& table,
    const std::string& directory, const std::vector<std::string>& partition_columns,
    const std::string& job_id, const plan::EvalContext& ctx);

}  // namespace ember::io
