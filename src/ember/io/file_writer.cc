#include "ember/io/file_writer.h"

#include <cstdio>
#include <fstream>

#include <arrow/array.h>
#include <arrow/csv/writer.h>
#include <arrow/io/file.h>
#include <arrow/scalar.h>
#include <arrow/table.h>
#include <arrow/util/decimal.h>
#include <parquet/arrow/writer.h>

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
  if (!out) return Status::IOError("cannot write ", path);
  return Status::OK();
}

}  // namespace

Status WriteFile(const std::string& format, const std::shared_ptr<arrow::Table>& table,
                 const std::string& path, const plan::EvalContext&) {
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

}  // namespace ember::io
