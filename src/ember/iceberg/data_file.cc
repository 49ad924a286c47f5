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

template <typename DType>
void MergeTyped(parquet::Statistics* merged, const parquet::Statistics& group) {
  static_cast<parquet::TypedStatistics<DType>*>(merged)->Merge(
      static_cast<const parquet::TypedStatistics<DType>&>(group));
}

// Widens `merged` (statistics of a column BoundsAreSafe takes) by `group`'s, in Parquet's order
// for the column: false before true, signed integers, strings byte by byte as Iceberg compares
// them.
void MergeStatistics(parquet::Statistics* merged, const parquet::Statistics& group) {
  switch (group.physical_type()) {
    case parquet::Type::BOOLEAN:
      return MergeTyped<parquet::BooleanType>(merged, group);
    case parquet::Type::INT32:
      return MergeTyped<parquet::Int32Type>(merged, group);
    case parquet::Type::INT64:
      return MergeTyped<parquet::Int64Type>(merged, group);
    default:
      return MergeTyped<parquet::ByteArrayType>(merged, group);
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
  auto out = arrow::io::FileOutputStream::Open(path);
  if (!out.ok()) return DataFileWriteFailed(path, out.status());
  return std::unique_ptr<DataFileWriter>(new DataFileWriter(location, schema, *std::move(out)));
}

DataFileWriter::DataFileWriter(std::string location, std::shared_ptr<arrow::Schema> schema,
                               std::shared_ptr<arrow::io::OutputStream> out)
    : location_(std::move(location)), schema_(std::move(schema)), out_(std::move(out)) {}

DataFileWriter::~DataFileWriter() = default;

// A dictionary only pays for repeated values. For a column of mostly distinct values (ids,
// instants, amounts) Parquet would hash every value into a table of megabytes until the
// dictionary reached its size limit, then fall back to plain pages anyway; such a column, judged
// by the first rows, is written plain from the start.
arrow::Status DataFileWriter::StartWriter(const arrow::Table* first_rows) {
  parquet::WriterProperties::Builder properties;
  properties.compression(arrow::Compression::ZSTD)->max_row_group_length(kRowGroupRows);
  if (first_rows && first_rows->num_rows() >= kRowsToJudgeDictionaries) {
    for (int i = 0; i < schema_->num_fields(); ++i) {
      const auto& field = *schema_->field(i);
      if (field.type()->id() == arrow::Type::BOOL || arrow::is_nested(field.type()->id())) continue;
      ARROW_ASSIGN_OR_RAISE(auto distinct,
                            arrow::compute::CallFunction("count_distinct", {first_rows->column(i)}));
      if (2 * distinct.scalar_as<arrow::Int64Scalar>().value > first_rows->num_rows()) {
        properties.disable_dictionary(
            std::make_shared<parquet::schema::ColumnPath>(std::vector<std::string>{field.name()}));
      }
    }
  }
  ARROW_ASSIGN_OR_RAISE(writer_, parquet::arrow::FileWriter::Open(
                                     *schema_, arrow::default_memory_pool(), out_,
                                     properties.build(),
                                     parquet::ArrowWriterProperties::Builder().build()));
  return arrow::Status::OK();
}

arrow::Status DataFileWriter::Write(const arrow::Table& rows) {
  return DataFileWriteFailed(LocalPath(location_), WriteRows(rows));
}

arrow::Status DataFileWriter::WriteRows(const arrow::Table& rows) {
  if (!writer_) ARROW_RETURN_NOT_OK(StartWriter(&rows));
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
  std::string path = LocalPath(location_);
  if (!writer_) ARROW_RETURN_NOT_OK(DataFileWriteFailed(path, StartWriter(nullptr)));
  ARROW_RETURN_NOT_OK(DataFileWriteFailed(path, writer_->Close()));
  ARROW_RETURN_NOT_OK(DataFileWriteFailed(path, out_->Close()));
  DataFile file;
  file.path = location_;
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return arrow::Status::IOError("cannot stat ", path);
  file.file_size_in_bytes = st.st_size;
  auto metadata = writer_->metadata();  // the footer just written
  file.record_count = metadata->num_rows();
  const auto* schema = metadata->schema();
  // The file's bounds of a column are its row groups' merged, each group's only values counted.
  std::vector<std::shared_ptr<parquet::Statistics>> bounds(static_cast<size_t>(schema->num_columns()));
  std::vector<bool> bounded(bounds.size());
  for (int c = 0; c < schema->num_columns(); ++c) {
    const auto* descriptor = schema->Column(c);
    bounded[c] = descriptor->max_repetition_level() == 0 && BoundsAreSafe(*descriptor);
  }
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
      if (stats && stats->HasNullCount()) file.null_value_counts[id] += stats->null_count();
      if (!bounded[c]) continue;
      if (stats && stats->HasMinMax()) {
        if (!bounds[c]) bounds[c] = parquet::Statistics::Make(descriptor);
        MergeStatistics(bounds[c].get(), *stats);
      } else if (!stats || !stats->HasNullCount() || stats->null_count() != chunk->num_values()) {
        bounded[c] = false;  // a group with values but without bounds: the file has none
      }
    }
  }
  for (int c = 0; c < schema->num_columns(); ++c) {
    if (!bounded[c] || !bounds[c]) continue;
    std::string min = bounds[c]->EncodeMin(), max = bounds[c]->EncodeMax();
    bool is_text = schema->Column(c)->physical_type() == parquet::Type::BYTE_ARRAY;
    if (is_text && (min.size() > 16 || max.size() > 16)) continue;
    int id = schema->Column(c)->schema_node()->field_id();
    file.lower_bounds[id] = min;
    file.upper_bounds[id] = max;
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
