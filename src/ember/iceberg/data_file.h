// Data files of Iceberg tables: Parquet written by Arrow with a field id on every node, and the
// column metrics the manifest records for them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <arrow/result.h>
#include <arrow/io/type_fwd.h>
#include <arrow/type_fwd.h>

#include "ember/iceberg/avro.h"

namespace parquet::arrow {
class FileWriter;
}

namespace ember::iceberg {

struct DataFile {
  std::string path;
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  std::map<int, int64_t> column_sizes;
  std::map<int, int64_t> value_counts;
  std::map<int, int64_t> null_value_counts;
  std::map<int, std::string> lower_bounds;  // Iceberg's single-value serialization
  std::map<int, std::string> upper_bounds;
  std::vector<int64_t> split_offsets;
  avro::Record partition;  // the values of the default spec's fields; empty if unpartitioned
};

/// The local file an Iceberg file location names. Locations are Hadoop path strings, not URIs:
/// "%C3%BC" in one is those six characters (Java and PyIceberg write such directories).
std::string LocalPath(const std::string& location);

/// A new Parquet data file written in pieces: rows go into row groups of up to kRowGroupRows.
/// The first rows written decide which columns get a dictionary: one whose values are mostly
/// distinct does not (see StartWriter).
class DataFileWriter {
 public:
  // The open row group is buffered whole: Arrow's default of a million rows held 30 MB per open
  // file in W1 (docs/benchmarks.md), 131,072 rows 5 MB. DuckDB's row groups are of 122,880 rows.
  static constexpr int64_t kRowGroupRows = 1 << 16;
  /// The fewest first rows that judge the columns' dictionaries; fewer keep them all.
  static constexpr int64_t kRowsToJudgeDictionaries = 1000;
  /// Opens location `path` for rows of `schema` (the table's columns in order, with field ids).
  static arrow::Result<std::unique_ptr<DataFileWriter>> Open(
      const std::shared_ptr<arrow::Schema>& schema, const std::string& location);
  ~DataFileWriter();
  arrow::Status Write(const arrow::Table& rows);
  /// Closes the file and measures it.
  arrow::Result<DataFile> Finish();

 private:
  DataFileWriter(std::string location, std::shared_ptr<arrow::Schema> schema,
                 std::shared_ptr<arrow::io::OutputStream> out);
  arrow::Status StartWriter(const arrow::Table* first_rows);
  arrow::Status WriteRows(const arrow::Table& rows);
  std::string location_;
  std::shared_ptr<arrow::Schema> schema_;
  std::shared_ptr<arrow::io::OutputStream> out_;
  std::unique_ptr<parquet::arrow::FileWriter> writer_;
};

/// Writes `rows` (columns already in the table schema's order and types, fields carrying ids) to
/// a new Parquet file at location `path` and measures it.
arrow::Result<DataFile> WriteDataFile(const std::shared_ptr<arrow::Table>& rows,
                                      const std::string& path);

/// Casts rows to a table schema by column name (case-insensitive), as an append requires.
arrow::Result<std::shared_ptr<arrow::Table>> ConformToSchema(
    const std::shared_ptr<arrow::Table>& rows, const std::shared_ptr<arrow::Schema>& schema,
    const std::string& table_name);

}  // namespace ember::iceberg
