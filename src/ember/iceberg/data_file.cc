#include "ember/iceberg/data_file.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include <arrow/compute/api.h>
#include <arrow/io/file.h>
#include <arrow/table.h>
#include <parquet/arrow/writer.h>
#include <parquet/metadata.h>
#include <parquet/schema.h>
#include <parquet/statistics.h>

#include "ember/error.h"
#include "ember/iceberg/schema.h"

namespace ember::iceberg {

using arrow::Result;

namespace {

// Parquet's plain encoding of these types equals Iceberg's single-value serialization. Other
// types get no bounds, which every reader accepts (bounds are optional).
bool BoundsAreSafe(const parquet::ColumnDescriptor& column) {
  using parquet::Type;
  switch (column.physical_type()) {
    case Type::BOOLEAN:
    case Type::INT32:
    case Type::INT64: {
      auto logical = column.logical_type();
      return !logical || !logical->is_decimal();
    }
    case Type::BYTE_ARRAY: {
      auto logical = column.logical_type();
      return logical && logical->is_string();
    }
    default:
      return false;  // floats (NaN rules), decimals (big-endian in Iceberg), fixed
  }
}

}  // namespace

std::string LocalPath(const std::string& location) {
  if (location.rfind("file://", 0) == 0) return location.substr(7);
  if (location.rfind("file:", 0) == 0) return location.substr(5);
  return location;
}

Result<std::unique_ptr<DataFileWriter>> DataFileWriter::Open(
    const std::shared_ptr<arrow::Schema>& schema, const std::string& location) {
  std::string path = LocalPath(location);
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  ARROW_ASSIGN_OR_RAISE(auto out, arrow::io::FileOutputStream::Open(path));
  auto properties = parquet::WriterProperties::Builder()
                        .compression(arrow::Compression::ZSTD)
                        ->max_row_group_length(kRowGroupRows)
                        ->build();
  auto arrow_properties = parquet::ArrowWriterProperties::Builder().build();
  ARROW_ASSIGN_OR_RAISE(auto writer,
                        parquet::arrow::FileWriter::Open(*schema, arrow::default_memory_pool(), out,
                                                         properties, arrow_properties));
  return std::unique_ptr<DataFileWriter>(
      new DataFileWriter(location, std::move(out), std::move(writer)));
}

DataFileWriter::DataFileWriter(std::string location, std::shared_ptr<arrow::io::OutputStream> out,
                               std::unique_ptr<parquet::arrow::FileWriter> writer)
    : location_(std::move(location)), out_(std::move(out)), writer_(std::move(writer)) {}

DataFileWriter::~DataFileWriter() = default;

arrow::Status DataFileWriter::Write(const arrow::Table& rows) {
  // Record batches fill the open row group up to kRowGroupRows, whatever their sizes.
  arrow::TableBatchReader batches(rows);
  std::shared_ptr<arrow::RecordBatch> batch;
  while (true) {
    ARROW_RETURN_NOT_OK(batches.ReadNext(&batch));
    if (!batch) return arrow::Status::OK();
    ARROW_RETURN_NOT_OK(writer_->WriteRecordBatch(*batch));
  }
}

Result<DataFile> DataFileWriter::Finish() {
  ARROW_RETURN_NOT_OK(writer_->Close());
  ARROW_RETURN_NOT_OK(out_->Close());
  std::string path = LocalPath(location_);
  DataFile file;
  file.path = location_;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return arrow::Status::IOError("cannot stat ", path);
  file.file_size_in_bytes = st.st_size;
  auto metadata = writer_->metadata();  // the footer just written
  file.record_count = metadata->num_rows();
  const auto* schema = metadata->schema();
  for (int g = 0; g < metadata->num_row_groups(); ++g) {
    auto group = metadata->RowGroup(g);
    file.split_offsets.push_back(group->file_offset());
    for (int c = 0; c < group->num_columns(); ++c) {
      const auto* descriptor = schema->Column(c);
      int id = descriptor->schema_node()->field_id();
      if (id < 0) continue;
      auto chunk = group->ColumnChunk(c);
      file.column_sizes[id] += chunk->total_compressed_size();
      file.value_counts[id] += chunk->num_values();
      auto stats = chunk->statistics();
      if (!stats) continue;
      if (stats->HasNullCount()) file.null_value_counts[id] += stats->null_count();
      // Bounds only for top-level columns in one row group: merging encoded bounds across
      // groups needs typed comparisons.
      if (metadata->num_row_groups() == 1 && descriptor->max_repetition_level() == 0 &&
          stats->HasMinMax() && BoundsAreSafe(*descriptor)) {
        std::string min = stats->EncodeMin(), max = stats->EncodeMax();
        bool is_text = descriptor->physical_type() == parquet::Type::BYTE_ARRAY;
        if (!is_text || (min.size() <= 16 && max.size() <= 16)) {
          file.lower_bounds[id] = min;
          file.upper_bounds[id] = max;
        }
      }
    }
  }
  std::sort(file.split_offsets.begin(), file.split_offsets.end());
  return file;
}

Result<DataFile> WriteDataFile(const std::shared_ptr<arrow::Table>& rows,
                               const std::string& location) {
  ARROW_ASSIGN_OR_RAISE(auto writer, DataFileWriter::Open(rows->schema(), location));
  ARROW_RETURN_NOT_OK(writer->Write(*rows));
  return writer->Finish();
}

Result<std::shared_ptr<arrow::Table>> ConformToSchema(const std::shared_ptr<arrow::Table>& rows,
                                                      const std::shared_ptr<arrow::Schema>& schema,
                                                      const std::string& table_name) {
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), ::tolower);
    return s;
  };
  arrow::ChunkedArrayVector columns;
  for (const auto& field : schema->fields()) {
    int index = -1;
    for (int i = 0; i < rows->num_columns(); ++i) {
      if (lower(rows->field(i)->name()) == lower(field->name())) index = i;
    }
    if (index < 0) {
      return UserError(ErrorKind::kAnalysis, "INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_FIND_DATA",
                       "Cannot write incompatible data for the table `" + table_name +
                           "`: Cannot find data for the output column `" + field->name() + "`.",
                       "KD000");
    }
    auto column = rows->column(index);
    if (!column->type()->Equals(*field->type())) {
      ARROW_ASSIGN_OR_RAISE(auto cast, arrow::compute::Cast(arrow::Datum(column), field->type()));
      column = cast.chunked_array();
    }
    if (!field->nullable() && column->null_count() > 0) {
      return UserError(ErrorKind::kRuntime, "NOT_NULL_ASSERT_VIOLATION",
                       "NULL value appeared in non-nullable field: `" + field->name() + "`.",
                       "42000");
    }
    columns.push_back(column);
  }
  return arrow::Table::Make(schema, columns, rows->num_rows());
}

}  // namespace ember::iceberg
