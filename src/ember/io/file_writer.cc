#include "ember/io/file_writer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <fstream>

#include <arrow/array.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/compute/api.h>
#include <arrow/csv/writer.h>
#include <arrow/io/file.h>
#include <arrow/scalar.h>
#include <arrow/table.h>
#include <arrow/util/decimal.h>
#include <parquet/arrow/writer.h>

#include "ember/common/row_keys.h"
#include "ember/error.h"

namespace ember::io {

using arrow::Status;

std::string PartFileExtension(const std::string& format) {
  if (format == "parquet") return ".snappy.parquet";
  return "." + format;
}

namespace {

void AppendJsonString(const std::string_view& text, std::string* out) {
  out->push_back('"');
  for (unsigned char c : text) {
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
          *out += buffer;
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

// One value as Spark's JSON writer renders it.
Status AppendJsonValue(const arrow::Array& array, int64_t row, std::string* out) {
  switch (array.type_id()) {
    case arrow::Type::STRING:
      AppendJsonString(static_cast<const arrow::StringArray&>(array).GetView(row), out);
      return Status::OK();
    case arrow::Type::BOOL:
      *out += static_cast<const arrow::BooleanArray&>(array).Value(row) ? "true" : "false";
      return Status::OK();
    case arrow::Type::TIMESTAMP: {
      // Spark's default timestampFormat: yyyy-MM-dd'T'HH:mm:ss.SSSXXX (UTC here: "Z").
      int64_t micros = static_cast<const arrow::TimestampArray&>(array).Value(row);
      int64_t ms = micros >= 0 ? micros / 1000 : -((-micros + 999) / 1000);
      time_t seconds = static_cast<time_t>(ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000));
      struct tm utc;
      gmtime_r(&seconds, &utc);
      char buffer[96];
      bool zoned = !static_cast<const arrow::TimestampType&>(*array.type()).timezone().empty();
      std::snprintf(buffer, sizeof(buffer), "\"%04d-%02d-%02dT%02d:%02d:%02d.%03d%s\"",
                    utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min,
                    utc.tm_sec, static_cast<int>(ms - static_cast<int64_t>(seconds) * 1000),
                    zoned ? "Z" : "");
      *out += buffer;
      return Status::OK();
    }
    default: {
      ARROW_ASSIGN_OR_RAISE(auto scalar, array.GetScalar(row));
      if (array.type_id() == arrow::Type::DATE32) {
        *out += "\"" + scalar->ToString() + "\"";
      } else {
        *out += scalar->ToString();
      }
      return Status::OK();
    }
  }
}

Status WriteJsonLines(const std::shared_ptr<arrow::Table>& table, const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(auto combined, table->CombineChunks());
  std::string text;
  for (int64_t row = 0; row < combined->num_rows(); ++row) {
    text += "{";
    bool first = true;
    for (int c = 0; c < combined->num_columns(); ++c) {
      const auto& array = *combined->column(c)->chunk(0);
      if (array.IsNull(row)) continue;  // Spark leaves NULL fields out
      if (!first) text += ",";
      first = false;
      AppendJsonString(combined->field(c)->name(), &text);
      text += ":";
      ARROW_RETURN_NOT_OK(AppendJsonValue(array, row, &text));
    }
    text += "}\n";
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Status::IOError(std::strerror(errno));
  return Status::OK();
}

Status WriteFormat(const std::string& format, const std::shared_ptr<arrow::Table>& table,
                   const std::string& path) {
  if (format == "json") return WriteJsonLines(table, path);
  ARROW_ASSIGN_OR_RAISE(auto out, arrow::io::FileOutputStream::Open(path));
  if (format == "parquet") {
    auto properties = parquet::WriterProperties::Builder().compression(arrow::Compression::SNAPPY)->build();
    ARROW_RETURN_NOT_OK(parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), out,
                                                   1 << 20, properties));
  } else if (format == "csv") {
    auto options = arrow::csv::WriteOptions::Defaults();
    options.include_header = false;  // Spark's default header=false
    ARROW_RETURN_NOT_OK(arrow::csv::WriteCSV(*table, options, out.get()));
  } else {
    return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                     "The file format '" + format + "' is not supported by Ember's file sink.",
                     "0A000");
  }
  return out->Close();
}

}  // namespace

Status WriteFile(const std::string& format, const std::shared_ptr<arrow::Table>& table,
                 const std::string& path, const plan::EvalContext&) {
  return DataFileWriteFailed(path, WriteFormat(format, table, path));
}

namespace {

// Spark's ExternalCatalogUtils.escapePathName: the characters a path cannot hold as %XX.
std::string EscapePathName(const std::string& text) {
  static const std::string special = "\"#%'*/:=?\\\x7f{[]^";
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || special.find(static_cast<char>(c)) != std::string::npos) {
      char buffer[4];
      std::snprintf(buffer, sizeof(buffer), "%%%02X", c);
      out += buffer;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// A partition value as Spark writes it in a directory name.
arrow::Result<std::string> PartitionValue(const arrow::ChunkedArray& column, int64_t row) {
  ARROW_ASSIGN_OR_RAISE(auto scalar, column.GetScalar(row));
  if (!scalar->is_valid) return std::string("__HIVE_DEFAULT_PARTITION__");
  if (scalar->type->id() == arrow::Type::TIMESTAMP) {
    // "2024-01-01 10:00:00", with a fraction only when there is one.
    ARROW_ASSIGN_OR_RAISE(auto text, scalar->CastTo(arrow::utf8()));
    std::string value = text->ToString();
    if (!value.empty() && value.back() == 'Z') value.pop_back();
    if (value.find('.') != std::string::npos) {
      while (value.back() == '0') value.pop_back();
      if (value.back() == '.') value.pop_back();
    }
    return EscapePathName(value);
  }
  return EscapePathName(scalar->ToString());
}

}  // namespace

arrow::Result<std::vector<std::string>> WritePartFiles(
    const std::string& format, const std::shared_ptr<arrow::Table>& table,
    const std::string& directory, const std::vector<std::string>& partition_columns,
    const std::string& job_id, const plan::EvalContext& ctx) {
  std::vector<std::string> written;
  if (table->num_rows() == 0) return written;
  std::vector<int> keys, data;
  for (const auto& name : partition_columns) {
    int index = table->schema()->GetFieldIndex(name);
    if (index < 0) {
      return UserError(ErrorKind::kAnalysis, "UNRESOLVED_COLUMN.WITH_SUGGESTION",
                       "A column or function parameter with name `" + name +
                           "` cannot be resolved. partitionBy() names a column the data does not "
                           "have.",
                       "42703");
    }
    keys.push_back(index);
  }
  for (int i = 0; i < table->num_columns(); ++i) {
    if (std::find(keys.begin(), keys.end(), i) == keys.end()) data.push_back(i);
  }
  // Rows by partition, in order of first appearance.
  std::vector<std::vector<int64_t>> groups;
  if (keys.empty()) {
    groups.emplace_back();
  } else {
    ARROW_ASSIGN_OR_RAISE(auto key_table, table->SelectColumns(keys));
    ARROW_ASSIGN_OR_RAISE(auto encoded, EncodeKeys(*key_table, static_cast<int>(keys.size())));
    std::map<std::string, size_t> index;
    for (size_t row = 0; row < encoded.size(); ++row) {
      auto [it, fresh] = index.emplace(encoded[row], groups.size());
      if (fresh) groups.emplace_back();
      groups[it->second].push_back(static_cast<int64_t>(row));
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto values, table->SelectColumns(data));
  for (size_t g = 0; g < groups.size(); ++g) {
    std::filesystem::path dir = directory;
    std::shared_ptr<arrow::Table> rows = values;
    if (!keys.empty()) {
      for (int k : keys) {
        ARROW_ASSIGN_OR_RAISE(auto value, PartitionValue(*table->column(k), groups[g][0]));
        dir /= EscapePathName(table->schema()->field(k)->name()) + "=" + value;
      }
      arrow::Int64Builder builder;
      ARROW_RETURN_NOT_OK(builder.AppendValues(groups[g]));
      ARROW_ASSIGN_OR_RAISE(auto indices, builder.Finish());
      ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(arrow::Datum(values), arrow::Datum(indices)));
      rows = taken.table();
    }
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    char number[32];
    std::snprintf(number, sizeof(number), "%05zu", g);
    std::string file = (dir / ("part-" + std::string(number) + "-" + job_id + "-c000" +
                               PartFileExtension(format)))
                           .string();
    ARROW_RETURN_NOT_OK(WriteFile(format, rows, file, ctx));
    written.push_back(file);
  }
  return written;
}

}  // namespace ember::io
