#include "ember/io/file_reader.h"

#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <arrow/acero/exec_plan.h>
#include <nlohmann/json.hpp>
#include <arrow/acero/options.h>
#include <arrow/array/builder_binary.h>
#include <arrow/array/util.h>
#include <arrow/buffer.h>
#include <arrow/compute/api.h>
#include <arrow/csv/api.h>
#include <arrow/io/file.h>
#include <arrow/io/memory.h>
#include <arrow/json/api.h>
#include <arrow/table.h>
#include <arrow/util/parallel.h>
#include <arrow/util/thread_pool.h>
#include <parquet/arrow/reader.h>

#include "ember/error.h"
#include "ember/io/csv_lines.h"
#include "ember/io/file_bytes.h"
#include "ember/io/json_lines.h"
#include "ember/io/utf8.h"
#include "ember/plan/type_names.h"

namespace ember::io {

namespace fs = std::filesystem;
namespace cp = arrow::compute;
using arrow::Result;
using arrow::Status;

namespace {

std::string Option(const plan::FileSource& source, const std::string& key,
                   const std::string& fallback = "") {
  auto it = source.options.find(key);
  return it == source.options.end() ? fallback : it->second;
}

bool BoolOption(const plan::FileSource& source, const std::string& key, bool fallback) {
  std::string v = Option(source, key, fallback ? "true" : "false");
  std::transform(v.begin(), v.end(), v.begin(), ::tolower);
  return v == "true";
}

bool Hidden(const std::string& name) { return !name.empty() && (name[0] == '_' || name[0] == '.'); }

// Spark's paths are text: a file whose name is not UTF-8 cannot be recorded in a source log or
// opened again by that name, so it is refused by name rather than skipped (which would lose it).
arrow::Status CheckFileName(const std::string& path) {
  if (IsValidUtf8(path)) return arrow::Status::OK();
  std::string shown;  // the name's bytes, those past ASCII as \xNN
  for (unsigned char c : path) {
    char escaped[5];
    std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
    shown += c < 0x80 ? std::string(1, static_cast<char>(c)) : std::string(escaped);
  }
  return UserError(ErrorKind::kRuntime, "FAILED_READ_FILE.NO_HINT",
                   "Encountered error while reading file " + shown +
                       ". The file's name is not valid UTF-8, which a path in Spark cannot hold; "
                       "rename the file.",
                   "KD001");
}

Result<FileEntry> Stat(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return UserError(ErrorKind::kAnalysis, "PATH_NOT_FOUND",
                     "Path does not exist: file:" + fs::absolute(path).string() + ".", "42K03");
  }
  FileEntry entry;
  entry.path = fs::absolute(path).lexically_normal().string();
  entry.size = st.st_size;
  entry.modification_time_ms =
      static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
  return entry;
}

// A data file's text: decompressed, without its byte order mark.
Result<std::string> ReadWholeFile(const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(auto contents, ReadFileContents(path));
  return contents->ToString();
}

// Timestamp and date columns are read as text and converted with Spark's parser afterwards.
bool ReadAsText(const arrow::DataType& type) {
  return type.id() == arrow::Type::TIMESTAMP || type.id() == arrow::Type::DATE32;
}

std::shared_ptr<arrow::Schema> ReadSchema(const arrow::Schema& schema) {
  arrow::FieldVector fields;
  for (const auto& f : schema.fields()) {
    fields.push_back(arrow::field(f->name(), ReadAsText(*f->type()) ? arrow::utf8() : f->type()));
  }
  return arrow::schema(fields);
}

// Rows from which a file's time columns are converted on every core.
constexpr int64_t kParallelConversionRows = 65536;

// Converts text columns read for timestamp and date fields; malformed text becomes NULL. With
// `on_every_core`, a large table's chunks convert side by side (not from a pool thread: it waits).
Result<std::shared_ptr<arrow::Table>> ConvertTimeColumns(const std::shared_ptr<arrow::Table>& raw,
                                                         const arrow::Schema& schema,
                                                         const plan::EvalContext& ctx,
                                                         bool on_every_core) {
  auto table = raw;
  for (int i = 0; i < schema.num_fields(); ++i) {
    const auto& target = schema.field(i)->type();
    if (target->id() != arrow::Type::TIMESTAMP && target->id() != arrow::Type::DATE32) continue;
    ARROW_ASSIGN_OR_RAISE(auto expr, plan::LowerCast(cp::field_ref("text"), arrow::utf8(), target,
                                                     /*try_cast=*/true, ctx));
    if (target->id() == arrow::Type::DATE32) {
      ARROW_ASSIGN_OR_RAISE(auto ts, plan::LowerCast(cp::field_ref("text"), arrow::utf8(),
                                                     plan::TimestampType(), true, ctx));
      ARROW_ASSIGN_OR_RAISE(expr, plan::LowerCast(ts, plan::TimestampType(), target, true, ctx));
    }
    // Each chunk (a file, or a part of one) on a core of its own, without an Acero plan: W5's
    // one-file batches pay for no plan, and a large batch converts on every core.
    auto text_schema = arrow::schema({arrow::field("text", arrow::utf8())});
    ARROW_ASSIGN_OR_RAISE(expr, expr.Bind(*text_schema));
    const auto& chunks = table->column(i)->chunks();
    arrow::ArrayVector converted(chunks.size());
    auto convert = [&](int k) -> Status {
      const auto& chunk = chunks[static_cast<size_t>(k)];
      cp::ExecBatch batch({chunk}, chunk->length());
      ARROW_ASSIGN_OR_RAISE(auto value, cp::ExecuteScalarExpression(expr, batch));
      converted[static_cast<size_t>(k)] = value.make_array();
      return Status::OK();
    };
    if (on_every_core && chunks.size() > 1 && table->num_rows() >= kParallelConversionRows) {
      ARROW_RETURN_NOT_OK(arrow::internal::ParallelFor(static_cast<int>(chunks.size()), convert));
    } else {
      for (size_t k = 0; k < chunks.size(); ++k) ARROW_RETURN_NOT_OK(convert(static_cast<int>(k)));
    }
    auto column = std::make_shared<arrow::ChunkedArray>(std::move(converted), target);
    ARROW_ASSIGN_OR_RAISE(table, table->SetColumn(i, schema.field(i), column));
  }
  return table;
}

// The decoded rows with the corrupt-record column (a value per record) at `index`. Rows of no
// other column are as many as the records: the column alone.
Result<std::shared_ptr<arrow::Table>> WithCorruptColumn(const std::shared_ptr<arrow::Table>& rows,
                                                        int index, const std::string& name,
                                                        const std::shared_ptr<arrow::Array>& corrupt) {
  auto field = arrow::field(name, arrow::utf8());
  auto column = std::make_shared<arrow::ChunkedArray>(corrupt);
  if (rows->num_columns() == 0) return arrow::Table::Make(arrow::schema({field}), {column});
  return rows->AddColumn(index, field, column);
}

Result<std::shared_ptr<arrow::Table>> ParseJson(std::string_view text,
                                                const std::shared_ptr<arrow::Schema>& schema) {
  auto buffer = std::make_shared<arrow::Buffer>(reinterpret_cast<const uint8_t*>(text.data()),
                                                static_cast<int64_t>(text.size()));
  auto read = arrow::json::ReadOptions::Defaults();
  read.use_threads = false;
  read.block_size = static_cast<int32_t>(std::max<size_t>(text.size() + 1, 1 << 20));
  auto parse = arrow::json::ParseOptions::Defaults();
  parse.explicit_schema = schema;
  parse.unexpected_field_behavior = arrow::json::UnexpectedFieldBehavior::Ignore;
  ARROW_ASSIGN_OR_RAISE(auto reader,
                        arrow::json::TableReader::Make(arrow::default_memory_pool(),
                                                       std::make_shared<arrow::io::BufferReader>(buffer),
                                                       read, parse));
  return reader->Read();
}

Result<std::shared_ptr<arrow::Table>> ReadJsonFile(const plan::FileSource& source,
                                                   const std::string& path, int threads) {
  std::string mode = Option(source, "mode", "PERMISSIVE");
  std::transform(mode.begin(), mode.end(), mode.begin(), ::toupper);
  std::string corrupt_column = Option(source, "columnnameofcorruptrecord", "_corrupt_record");
  int corrupt_index = source.schema->GetFieldIndex(corrupt_column);

  arrow::FieldVector data_fields;
  auto read_schema = ReadSchema(*source.schema);
  for (const auto& f : read_schema->fields()) {
    if (f->name() != corrupt_column) data_fields.push_back(f);
  }
  auto data_schema = arrow::schema(data_fields);
  auto with_corrupt = [&](std::shared_ptr<arrow::Table> table,
                          std::shared_ptr<arrow::Array> corrupt) -> Result<std::shared_ptr<arrow::Table>> {
    if (corrupt_index < 0) return table;
    if (!corrupt) {
      ARROW_ASSIGN_OR_RAISE(corrupt, arrow::MakeArrayOfNull(arrow::utf8(), table->num_rows()));
    }
    return WithCorruptColumn(table, corrupt_index, corrupt_column, corrupt);
  };
  if (JsonLinesSupports(*data_schema)) {
    JsonLinesOptions options;
    options.mode = mode == "FAILFAST"        ? JsonLinesOptions::Mode::kFailFast
                   : mode == "DROPMALFORMED" ? JsonLinesOptions::Mode::kDropMalformed
                                             : JsonLinesOptions::Mode::kPermissive;
    options.corrupt_column = corrupt_index >= 0;
    options.allow_single_quotes = BoolOption(source, "allowsinglequotes", true);
    for (const auto& f : source.schema->fields()) {
      if (f->name() != corrupt_column) options.time_columns.push_back(ReadAsText(*f->type()));
    }
    ARROW_ASSIGN_OR_RAISE(auto decoded, DecodeJsonLines(path, data_schema, options, threads));
    return with_corrupt(decoded.rows, decoded.corrupt);
  }
  ARROW_ASSIGN_OR_RAISE(std::string text, ReadWholeFile(path));
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    ARROW_ASSIGN_OR_RAISE(auto empty, arrow::Table::MakeEmpty(data_schema));
    return with_corrupt(empty, nullptr);
  }
  // Nested fields: Arrow's reader, a line at a time when some line is malformed or some byte
  // is not UTF-8.
  if (IsValidUtf8(text)) {
    auto whole = ParseJson(text, data_schema);
    if (whole.ok()) return with_corrupt(*whole, nullptr);
  }

  // Some record is malformed or single-quoted: parse line by line to apply the mode to each.
  const bool single_quotes = BoolOption(source, "allowsinglequotes", true);
  std::vector<std::shared_ptr<arrow::Table>> rows;
  arrow::StringBuilder corrupt;
  std::istringstream lines{text};
  std::string line;
  int64_t line_number = 0;
  ARROW_ASSIGN_OR_RAISE(auto null_row, arrow::Table::MakeEmpty(data_schema));
  while (std::getline(lines, line)) {
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // Jackson skips a line's BOM
    std::optional<std::string> decoded = line;
    if (!IsValidUtf8(line)) {
      decoded = JacksonUtf8(line);  // as Jackson decodes it, or malformed
      line = ReplaceMalformedUtf8(line);  // the record's text, as Spark gives it
    }
    auto parsed = decoded ? ParseJson(*decoded + "\n", data_schema)
                          : Result<std::shared_ptr<arrow::Table>>(Status::Invalid("not UTF-8"));
    if (!parsed.ok() && decoded && single_quotes) {
      if (auto json = SingleQuotedJson(*decoded)) parsed = ParseJson(*json + "\n", data_schema);
    }
    if (parsed.ok() && (*parsed)->num_rows() == 1) {
      rows.push_back(*parsed);
      ARROW_RETURN_NOT_OK(corrupt.AppendNull());
      continue;
    }
    if (mode == "FAILFAST") {
      return UserError(ErrorKind::kRuntime, "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
                       "Malformed records are detected in record parsing: " + line +
                           " (file " + path + ", line " + std::to_string(line_number) +
                           "). Parse Mode: FAILFAST. To process malformed records as null result, "
                           "try setting the option 'mode' as 'PERMISSIVE'.",
                       "22023");
    }
    if (mode == "DROPMALFORMED") continue;
    // PERMISSIVE: a row of nulls, with the text in the corrupt-record column if present.
    arrow::ArrayVector nulls;
    for (const auto& f : data_schema->fields()) {
      ARROW_ASSIGN_OR_RAISE(auto n, arrow::MakeArrayOfNull(f->type(), 1));
      nulls.push_back(n);
    }
    rows.push_back(arrow::Table::Make(data_schema, nulls, 1));
    ARROW_RETURN_NOT_OK(corrupt.Append(line));
  }
  std::shared_ptr<arrow::Table> table = null_row;
  if (!rows.empty()) {
    ARROW_ASSIGN_OR_RAISE(table, arrow::ConcatenateTables(rows));
  }
  std::shared_ptr<arrow::Array> corrupt_array;
  ARROW_RETURN_NOT_OK(corrupt.Finish(&corrupt_array));
  return with_corrupt(table, corrupt_array);
}

// The CSV options of a source, by Spark's names.
CsvOptions CsvOptionsOf(const plan::FileSource& source) {
  CsvOptions options;
  options.header = BoolOption(source, "header", false);
  std::string sep = Option(source, "sep", Option(source, "delimiter", ","));
  if (sep == "\\t") sep = "\t";
  options.delimiter = sep.empty() ? ',' : sep[0];
  std::string quote = Option(source, "quote", "\"");
  options.quote = quote.empty() ? '\0' : quote[0];
  std::string escape = Option(source, "escape", "\\");
  options.escape = escape.empty() ? '\\' : escape[0];
  options.null_value = Option(source, "nullvalue", "");
  std::string mode = Option(source, "mode", "PERMISSIVE");
  std::transform(mode.begin(), mode.end(), mode.begin(), ::toupper);
  options.mode = mode == "FAILFAST"        ? CsvOptions::Mode::kFailFast
                 : mode == "DROPMALFORMED" ? CsvOptions::Mode::kDropMalformed
                                           : CsvOptions::Mode::kPermissive;
  return options;
}

// A CSV file's text: Java's reader decodes the bytes, a malformed sequence is U+FFFD.
Result<std::string> ReadCsvText(const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(std::string text, ReadWholeFile(path));
  if (!IsValidUtf8(text)) text = ReplaceMalformedUtf8(text);
  return text;
}

Result<std::shared_ptr<arrow::Table>> ReadCsvFile(const plan::FileSource& source,
                                                  const std::string& path) {
  CsvOptions options = CsvOptionsOf(source);
  // The corrupt-record column is no column of the file.
  std::string corrupt_column = Option(source, "columnnameofcorruptrecord", "_corrupt_record");
  int corrupt_index = source.schema->GetFieldIndex(corrupt_column);
  options.corrupt_column = corrupt_index >= 0;
  arrow::FieldVector data_fields;
  auto read_schema = ReadSchema(*source.schema);
  for (const auto& f : read_schema->fields()) {
    if (f->name() != corrupt_column) data_fields.push_back(f);
  }
  ARROW_ASSIGN_OR_RAISE(std::string text, ReadCsvText(path));
  ARROW_ASSIGN_OR_RAISE(auto decoded, DecodeCsvLines(path, text, arrow::schema(data_fields), options));
  if (corrupt_index < 0) return decoded.rows;
  return WithCorruptColumn(decoded.rows, corrupt_index, corrupt_column, decoded.corrupt);
}

Result<std::shared_ptr<arrow::Table>> ReadParquetFile(const std::shared_ptr<arrow::Schema>& schema,
                                                      const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(auto input, arrow::io::ReadableFile::Open(path));
  ARROW_ASSIGN_OR_RAISE(auto reader, parquet::arrow::OpenFile(input, arrow::default_memory_pool()));
  std::shared_ptr<arrow::Table> table;
  ARROW_RETURN_NOT_OK(reader->ReadTable(&table));
  if (!schema) return table;
  // Columns by name, case-insensitively; a missing column reads as NULL.
  arrow::ChunkedArrayVector columns;
  for (const auto& f : schema->fields()) {
    int index = -1;
    for (int i = 0; i < table->num_columns(); ++i) {
      std::string a = table->field(i)->name(), b = f->name();
      std::transform(a.begin(), a.end(), a.begin(), ::tolower);
      std::transform(b.begin(), b.end(), b.begin(), ::tolower);
      if (a == b) index = i;
    }
    if (index < 0) {
      ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(f->type(), table->num_rows()));
      columns.push_back(std::make_shared<arrow::ChunkedArray>(nulls));
      continue;
    }
    auto column = table->column(index);
    if (!column->type()->Equals(*f->type())) {
      ARROW_ASSIGN_OR_RAISE(auto cast, cp::Cast(arrow::Datum(column), f->type()));
      column = cast.chunked_array();
    }
    columns.push_back(column);
  }
  return arrow::Table::Make(schema, columns, table->num_rows());
}

Result<std::shared_ptr<arrow::Table>> ReadTextFile(const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(auto text, ReadWholeFile(path));
  arrow::StringBuilder builder;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // Spark's strings reach users decoded by Java: a malformed sequence is U+FFFD.
    ARROW_RETURN_NOT_OK(builder.Append(IsValidUtf8(line) ? line : ReplaceMalformedUtf8(line)));
  }
  std::shared_ptr<arrow::Array> values;
  ARROW_RETURN_NOT_OK(builder.Finish(&values));
  return arrow::Table::Make(arrow::schema({arrow::field("value", arrow::utf8())}), {values});
}

}  // namespace

std::string PathToUri(const std::string& path) {
  // Hadoop's Path.toUri, i.e. java.net.URI's quoting of a path: unreserved and punctuation
  // characters, '/' and '@' stay, as do non-ASCII characters; the rest is %-escaped.
  static const std::string kLegal = "/@_-!.~'()*,;:$&+=";
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c >= 0x80 || kLegal.find(static_cast<char>(c)) != std::string::npos) {
      out += static_cast<char>(c);
    } else {
      char buffer[4];
      std::snprintf(buffer, sizeof(buffer), "%%%02X", c);
      out += buffer;
    }
  }
  return out;
}

Result<FileEntry> StatFile(const std::string& path) { return Stat(path); }

std::string PathFromUri(const std::string& uri) {
  if (uri.rfind("file:", 0) != 0) return uri;  // a plain path: nothing is escaped
  std::string path = uri.rfind("file://", 0) == 0 ? uri.substr(7) : uri.substr(5);
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '%' && i + 2 < path.size() && std::isxdigit(static_cast<unsigned char>(path[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(path[i + 2]))) {
      out += static_cast<char>(std::stoi(path.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += path[i];
    }
  }
  return out;
}

namespace {

// The files a streaming file sink committed, from its _spark_metadata log: the latest compaction
// file holds every earlier entry, later entries follow it.
Result<std::vector<FileEntry>> SinkLogFiles(const fs::path& log) {
  int64_t latest = -1, latest_compact = -1;
  std::error_code ec;
  for (const auto& item : fs::directory_iterator(log, ec)) {
    std::string name = item.path().filename().string();
    std::string number = name.substr(0, name.find('.'));
    if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) continue;
    int64_t id = std::stoll(number);
    if (name == number) latest = std::max(latest, id);
    if (name == number + ".compact") {
      latest = std::max(latest, id);
      latest_compact = std::max(latest_compact, id);
    }
  }
  std::vector<FileEntry> files;
  for (int64_t id = std::max<int64_t>(latest_compact, 0); id <= latest; ++id) {
    fs::path file = log / std::to_string(id);
    if (id == latest_compact) file = log / (std::to_string(id) + ".compact");
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);  // version
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      auto status = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (!status.is_object() || !status.contains("path") || !status["path"].is_string()) {
        return UserError(ErrorKind::kIllegalState, "",
                         "Malformed file sink log entry in " + file.string() + ": " + line, "");
      }
      if (status.value("action", std::string("add")) != "add") continue;
      ARROW_ASSIGN_OR_RAISE(auto entry, Stat(PathFromUri(status["path"].get<std::string>())));
      files.push_back(entry);
    }
  }
  return files;
}

}  // namespace

Result<std::vector<FileEntry>> ListDataFiles(const std::string& path_in, bool recursive) {
  std::string path = path_in.rfind("file://", 0) == 0 ? path_in.substr(7) : path_in;
  if (path.rfind("file:", 0) == 0) path = path.substr(5);
  std::vector<std::string> roots;
  if (path.find_first_of("*?[") != std::string::npos) {
    glob_t matches;
    if (::glob(path.c_str(), 0, nullptr, &matches) == 0) {
      for (size_t i = 0; i < matches.gl_pathc; ++i) roots.emplace_back(matches.gl_pathv[i]);
    }
    ::globfree(&matches);
  } else {
    roots.push_back(path);
  }
  std::vector<FileEntry> files;
  for (const auto& root : roots) {
    std::error_code ec;
    if (!fs::exists(root, ec)) {
      return UserError(ErrorKind::kAnalysis, "PATH_NOT_FOUND",
                       "Path does not exist: file:" + fs::absolute(root).string() + ".", "42K03");
    }
    if (!fs::is_directory(root, ec)) {
      ARROW_ASSIGN_OR_RAISE(auto entry, Stat(root));
      files.push_back(entry);
      continue;
    }
    // The output of a streaming file sink: only the files its log committed (Spark's
    // MetadataLogFileIndex), so a batch that crashed halfway leaves nothing visible.
    if (fs::is_directory(fs::path(root) / "_spark_metadata", ec)) {
      ARROW_ASSIGN_OR_RAISE(auto committed, SinkLogFiles(fs::path(root) / "_spark_metadata"));
      files.insert(files.end(), committed.begin(), committed.end());
      continue;
    }
    std::vector<std::string> pending{root};
    while (!pending.empty()) {
      std::string dir = pending.back();
      pending.pop_back();
      for (const auto& item : fs::directory_iterator(dir, ec)) {
        std::string name = item.path().filename().string();
        if (Hidden(name)) continue;
        ARROW_RETURN_NOT_OK(CheckFileName(item.path().string()));
        if (item.is_directory()) {
          if (recursive || name.find('=') != std::string::npos) pending.push_back(item.path().string());
        } else {
          ARROW_ASSIGN_OR_RAISE(auto entry, Stat(item.path().string()));
          files.push_back(entry);
        }
      }
    }
  }
  std::sort(files.begin(), files.end(),
            [](const FileEntry& a, const FileEntry& b) { return a.path < b.path; });
  return files;
}

namespace {

// Spark's HadoopFSUtils.shouldFilterOutPathName, for files and directories alike (Parquet's
// summary files are kept).
bool FilteredOut(const std::string& name) {
  auto ends_with = [&](const std::string& suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  bool excluded = (name[0] == '_' && name.find('=') == std::string::npos) || name[0] == '.' ||
                  ends_with("._COPYING_");
  return excluded && name.rfind("_metadata", 0) != 0 && name.rfind("_common_metadata", 0) != 0;
}

// The base of Spark's PartitioningUtils.parsePartition for a directory holding files: walking up
// from it towards `root`, `col=value` names are partition columns (added to `columns`, outermost
// first), and the walk ends at the root or at the first other name above a column (the base is
// then its parent). Without a column the base is the directory itself.
fs::path PartitionBase(const fs::path& root, const fs::path& dir, std::vector<std::string>* columns) {
  fs::path current = dir;
  while (current != root && current.has_parent_path() && current != current.parent_path()) {
    const std::string name = current.filename().string();
    const size_t equals = name.find('=');
    if (equals != std::string::npos) columns->insert(columns->begin(), name.substr(0, equals));
    current = current.parent_path();
    if (equals == std::string::npos && !columns->empty()) break;
  }
  return columns->empty() ? dir : current;
}

}  // namespace

Result<std::vector<FileEntry>> ListFileIndex(const std::string& path_in, bool recursive_file_lookup) {
  std::string path = path_in.rfind("file://", 0) == 0 ? path_in.substr(7) : path_in;
  if (path.rfind("file:", 0) == 0) path = path.substr(5);
  // A glob, a file, or a file sink's output: as batch reads list them.
  std::error_code ec;
  if (path.find_first_of("*?[") != std::string::npos || !fs::is_directory(path, ec) ||
      fs::is_directory(fs::path(path) / "_spark_metadata", ec)) {
    return ListDataFiles(path_in, /*recursive=*/true);
  }
  // Absolute, without a trailing separator: partition walks stop at it, errors print it.
  fs::path root = fs::absolute(path, ec).lexically_normal();
  if (!root.has_filename() && root.has_parent_path() && root != root.root_path()) root = root.parent_path();
  // Each directory's files, directories in the order the walk met them.
  std::vector<std::pair<fs::path, std::vector<FileEntry>>> dirs;
  std::vector<fs::path> pending{root};
  while (!pending.empty()) {
    fs::path dir = pending.back();
    pending.pop_back();
    std::vector<FileEntry> files;
    for (const auto& item : fs::directory_iterator(dir, ec)) {
      std::string name = item.path().filename().string();
      if (FilteredOut(name)) continue;
      ARROW_RETURN_NOT_OK(CheckFileName(item.path().string()));
      if (item.is_directory()) {
        pending.push_back(item.path());
      } else {
        ARROW_ASSIGN_OR_RAISE(auto entry, Stat(item.path().string()));
        files.push_back(entry);
      }
    }
    if (!files.empty()) dirs.emplace_back(dir, std::move(files));
  }
  std::vector<FileEntry> out;
  std::vector<std::string> bases;                  // lower-cased, as Spark compares them
  std::vector<std::vector<std::string>> column_lists;  // distinct, in the order met
  std::vector<std::string> partition_dirs;
  std::vector<bool> partitioned(dirs.size());
  for (size_t i = 0; i < dirs.size(); ++i) {
    std::vector<std::string> columns;
    std::string base = PartitionBase(root, dirs[i].first, &columns).string();
    std::transform(base.begin(), base.end(), base.begin(), ::tolower);
    if (std::find(bases.begin(), bases.end(), base) == bases.end()) bases.push_back(base);
    partitioned[i] = !columns.empty();
    if (columns.empty()) continue;
    partition_dirs.push_back("file:" + dirs[i].first.string());
    if (std::find(column_lists.begin(), column_lists.end(), columns) == column_lists.end()) {
      column_lists.push_back(columns);
    }
  }
  const bool any_partitioned = !partition_dirs.empty();
  if (any_partitioned && !recursive_file_lookup && bases.size() > 1) {
    std::string listed = "\n";
    for (const auto& base : bases) listed += "\tfile:" + base + "\n";
    return UserError(ErrorKind::kRuntime, "CONFLICTING_DIRECTORY_STRUCTURES",
                     "Conflicting directory structures detected.\nSuspicious paths:\n" + listed +
                         "\nIf provided paths are partition directories, please set \"basePath\" in "
                         "the options of the data source to specify the root directory of the "
                         "table.\nIf there are multiple root directories, please load them "
                         "separately and then union them.",
                     "KD009");
  }
  if (any_partitioned && !recursive_file_lookup && column_lists.size() > 1) {
    std::string lists = "\n";
    for (size_t i = 0; i < column_lists.size(); ++i) {
      std::string names;
      for (const auto& name : column_lists[i]) names += (names.empty() ? "" : ", ") + name;
      lists += "\tPartition column name list #" + std::to_string(i) + ": " + names + "\n";
    }
    std::string paths;
    for (const auto& dir : partition_dirs) paths += "\n\t" + dir;
    return UserError(ErrorKind::kRuntime, "CONFLICTING_PARTITION_COLUMN_NAMES",
                     "Conflicting partition column names detected:\n" + lists +
                         "\nFor partitioned table directories, data files should only live in leaf "
                         "directories.\nAnd directories at the same level should have the same "
                         "partition column name.\nPlease check the following directories for "
                         "unexpected files or inconsistent partition column names:\n" + paths,
                     "KD009");
  }
  for (size_t i = 0; i < dirs.size(); ++i) {
    // Spark reads the files of partition directories only, or without partitions the path's own.
    bool read = recursive_file_lookup || (any_partitioned ? bool(partitioned[i]) : dirs[i].first == root);
    if (read) out.insert(out.end(), dirs[i].second.begin(), dirs[i].second.end());
  }
  std::sort(out.begin(), out.end(), [](const FileEntry& a, const FileEntry& b) { return a.path < b.path; });
  return out;
}

Result<std::shared_ptr<arrow::Schema>> InferSchema(const plan::FileSource& source,
                                                   const std::vector<std::string>& files) {
  if (source.format == "text") return arrow::schema({arrow::field("value", arrow::utf8())});
  if (files.empty()) {
    return UserError(ErrorKind::kAnalysis, "UNABLE_TO_INFER_SCHEMA",
                     "Unable to infer schema for " + source.format +
                         ". It must be specified manually.",
                     "42KD9");
  }
  if (source.format == "parquet") {
    ARROW_ASSIGN_OR_RAISE(auto input, arrow::io::ReadableFile::Open(files[0]));
    ARROW_ASSIGN_OR_RAISE(auto reader, parquet::arrow::OpenFile(input, arrow::default_memory_pool()));
    std::shared_ptr<arrow::Schema> schema;
    ARROW_RETURN_NOT_OK(reader->GetSchema(&schema));
    return schema;
  }
  if (source.format == "json") {
    // Spark's inference: integers are bigint, fractions double, everything else string; fields
    // sorted by name.
    std::map<std::string, std::shared_ptr<arrow::DataType>> fields;
    auto infer = [](std::string text) -> Result<std::shared_ptr<arrow::Table>> {
      auto read = arrow::json::ReadOptions::Defaults();
      read.use_threads = false;
      ARROW_ASSIGN_OR_RAISE(auto reader, arrow::json::TableReader::Make(
                                             arrow::default_memory_pool(),
                                             std::make_shared<arrow::io::BufferReader>(
                                                 arrow::Buffer::FromString(std::move(text))),
                                             read, arrow::json::ParseOptions::Defaults()));
      return reader->Read();
    };
    std::string mode = Option(source, "mode", "PERMISSIVE");
    std::transform(mode.begin(), mode.end(), mode.begin(), ::toupper);
    bool malformed = false;
    std::vector<std::shared_ptr<arrow::Table>> tables;
    for (const auto& file : files) {
      ARROW_ASSIGN_OR_RAISE(auto text, ReadWholeFile(file));
      if (IsValidUtf8(text)) {
        auto whole = infer(text);
        if (whole.ok()) {
          tables.push_back(*whole);
          continue;
        }
      }
      // Some record is malformed: record by record, as Jackson decodes each line.
      std::istringstream lines{text};
      std::string line;
      while (std::getline(lines, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
        std::optional<std::string> decoded = line;
        if (!IsValidUtf8(line)) decoded = JacksonUtf8(line);
        auto table = decoded ? infer(*decoded + "\n") : Status::Invalid("not UTF-8");
        if (!table.ok() && decoded && BoolOption(source, "allowsinglequotes", true)) {
          if (auto json = SingleQuotedJson(*decoded)) table = infer(*json + "\n");
        }
        // Spark reads the line's first value, as decoding does (Arrow may read two objects).
        if ((!table.ok() || (*table)->num_rows() != 1) && decoded) {
          if (auto first = FirstJsonValue(*decoded)) table = infer(std::string(*first) + "\n");
        }
        if (table.ok() && (*table)->num_rows() == 1) {
          tables.push_back(*table);
        } else if (mode == "FAILFAST") {
          return UserError(ErrorKind::kRuntime, "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
                           "Malformed records are detected in schema inference: " +
                               (IsValidUtf8(line) ? line : ReplaceMalformedUtf8(line)) + " (file " +
                               file + "). Parse Mode: FAILFAST.",
                           "22023");
        } else {
          malformed = true;
        }
      }
    }
    // PERMISSIVE: a malformed record gives the corrupt-record column, as in Spark.
    if (malformed && mode != "DROPMALFORMED") {
      fields[Option(source, "columnnameofcorruptrecord", "_corrupt_record")] = arrow::utf8();
    }
    for (const auto& table : tables) {
      for (const auto& f : table->schema()->fields()) {
        std::shared_ptr<arrow::DataType> t = f->type();
        if (t->id() == arrow::Type::TIMESTAMP) t = arrow::utf8();
        auto it = fields.find(f->name());
        if (it == fields.end() || it->second->id() == arrow::Type::NA) {
          fields[f->name()] = t;
        } else if (!it->second->Equals(*t) && t->id() != arrow::Type::NA) {
          bool numeric = plan::IsNumeric(*it->second) && plan::IsNumeric(*t);
          it->second = numeric ? arrow::float64() : arrow::utf8();
        }
      }
    }
    arrow::FieldVector out;
    for (auto& [name, type] : fields) {
      out.push_back(arrow::field(name, type->id() == arrow::Type::NA ? arrow::utf8() : type));
    }
    return arrow::schema(out);
  }
  if (source.format == "csv") {
    // Spark's columns: as many as the first record has, named by it with a header. Their types,
    // with inferSchema, from Arrow's inference over the records of that many fields.
    CsvOptions options = CsvOptionsOf(source);
    ARROW_ASSIGN_OR_RAISE(std::string text, ReadCsvText(files[0]));
    arrow::FieldVector out;
    for (const auto& name : CsvColumnNames(CsvFirstRecord(text, options), options)) {
      out.push_back(arrow::field(name, arrow::utf8()));
    }
    if (!BoolOption(source, "inferschema", false) || out.empty()) return arrow::schema(out);
    auto read = arrow::csv::ReadOptions::Defaults();
    read.use_threads = false;
    read.skip_rows = options.header ? 1 : 0;
    for (size_t i = 0; i < out.size(); ++i) read.column_names.push_back("c" + std::to_string(i));
    auto parse = arrow::csv::ParseOptions::Defaults();
    parse.delimiter = options.delimiter;
    parse.invalid_row_handler = [](const arrow::csv::InvalidRow&) {
      return arrow::csv::InvalidRowResult::Skip;
    };
    auto input = std::make_shared<arrow::io::BufferReader>(arrow::Buffer::FromString(std::move(text)));
    ARROW_ASSIGN_OR_RAISE(auto reader, arrow::csv::TableReader::Make(
                                           arrow::io::default_io_context(), input, read, parse,
                                           arrow::csv::ConvertOptions::Defaults()));
    ARROW_ASSIGN_OR_RAISE(auto table, reader->Read());
    for (int i = 0; i < table->num_columns(); ++i) {
      auto t = table->field(i)->type();
      if (!(plan::IsNumeric(*t) || t->id() == arrow::Type::BOOL)) t = arrow::utf8();
      if (t->id() == arrow::Type::INT64) t = arrow::int32();
      out[static_cast<size_t>(i)] = arrow::field(out[static_cast<size_t>(i)]->name(), t);
    }
    return arrow::schema(out);
  }
  return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1136",
                   "Unsupported data source format: " + source.format + ".", "");
}

namespace {

// Zeroed memory from calloc: the pages of a NULL column's buffers are never written, so they
// cost no memory.
class ZeroBuffer : public arrow::Buffer {
 public:
  ZeroBuffer(void* data, int64_t size) : arrow::Buffer(static_cast<const uint8_t*>(data), size) {}
  ~ZeroBuffer() override { std::free(const_cast<uint8_t*>(data_)); }
};

// `rows` NULLs of `type`; primitive and string columns share `zeros` (at least 8 * (rows + 1)
// bytes) for every buffer.
Result<std::shared_ptr<arrow::Array>> NullColumn(const std::shared_ptr<arrow::DataType>& type,
                                                 int64_t rows,
                                                 const std::shared_ptr<arrow::Buffer>& zeros) {
  if (arrow::is_primitive(type->id()) && type->bit_width() <= 64) {
    return arrow::MakeArray(arrow::ArrayData::Make(type, rows, {zeros, zeros}, rows));
  }
  if (arrow::is_base_binary_like(type->id())) {
    return arrow::MakeArray(arrow::ArrayData::Make(type, rows, {zeros, zeros, SliceBuffer(zeros, 0, 0)}, rows));
  }
  return arrow::MakeArrayOfNull(type, rows);
}

// Spark's column pruning for JSON: the fields the query does not reference are not decoded (so,
// as in Spark, a value of the wrong type there makes no record malformed) and read as NULLs.
// Not with a corrupt-record column, whose text is the whole record; at least one field is
// decoded, so malformed lines are still judged.
std::optional<std::vector<bool>> PrunedJsonColumns(const plan::FileSource& source,
                                                   std::vector<bool> columns) {
  if (source.format != "json" || columns.size() != static_cast<size_t>(source.schema->num_fields())) {
    return std::nullopt;
  }
  std::string corrupt_column = Option(source, "columnnameofcorruptrecord", "_corrupt_record");
  if (source.schema->GetFieldIndex(corrupt_column) >= 0) return std::nullopt;
  if (std::all_of(columns.begin(), columns.end(), [](bool c) { return c; })) return std::nullopt;
  if (std::none_of(columns.begin(), columns.end(), [](bool c) { return c; })) columns[0] = true;
  return columns;
}

}  // namespace

Result<std::shared_ptr<arrow::Table>> ReadFiles(const plan::FileSource& source,
                                                const std::vector<std::string>& files,
                                                const plan::EvalContext& ctx,
                                                const std::vector<bool>& columns) {
  if (auto pruned_columns = PrunedJsonColumns(source, columns)) {
    plan::FileSource pruned = source;
    arrow::FieldVector fields;
    for (int i = 0; i < source.schema->num_fields(); ++i) {
      if ((*pruned_columns)[static_cast<size_t>(i)]) fields.push_back(source.schema->field(i));
    }
    pruned.schema = arrow::schema(fields);
    ARROW_ASSIGN_OR_RAISE(auto table, ReadFiles(pruned, files, ctx));
    int64_t rows = table->num_rows();
    void* zeros = std::calloc(static_cast<size_t>(rows + 1), 8);
    if (!zeros) return Status::OutOfMemory("NULL columns of ", rows, " rows");
    auto zero_buffer = std::make_shared<ZeroBuffer>(zeros, (rows + 1) * 8);
    arrow::ChunkedArrayVector out;
    for (int i = 0, kept = 0; i < source.schema->num_fields(); ++i) {
      if ((*pruned_columns)[static_cast<size_t>(i)]) {
        out.push_back(table->column(kept++));
      } else {
        ARROW_ASSIGN_OR_RAISE(auto nulls, NullColumn(source.schema->field(i)->type(), rows, zero_buffer));
        out.push_back(std::make_shared<arrow::ChunkedArray>(std::move(nulls)));
      }
    }
    return arrow::Table::Make(source.schema, out, rows);
  }
  // Several files are read side by side, one thread each; a single file is split between the
  // threads instead (JSON Lines).
  int cores = arrow::GetCpuThreadPoolCapacity();
  int threads_per_file = files.size() == 1 ? cores : 1;
  std::vector<std::shared_ptr<arrow::Table>> tables(files.size());
  const bool side_by_side = files.size() > 1 && cores > 1;
  auto read_one = [&](int i) -> Status {
    const std::string& file = files[i];
    // Time columns are read as text and converted file by file, so a batch of many files never
    // holds all of their text (Nexmark's 1.84 million bid times: 49 MB).
    if (source.format == "json") {
      ARROW_ASSIGN_OR_RAISE(auto text, ReadJsonFile(source, file, threads_per_file));
      ARROW_ASSIGN_OR_RAISE(tables[i], ConvertTimeColumns(text, *source.schema, ctx, !side_by_side));
    } else if (source.format == "csv") {
      ARROW_ASSIGN_OR_RAISE(auto text, ReadCsvFile(source, file));
      ARROW_ASSIGN_OR_RAISE(tables[i], ConvertTimeColumns(text, *source.schema, ctx, !side_by_side));
    } else if (source.format == "parquet") {
      ARROW_ASSIGN_OR_RAISE(tables[i], ReadParquetFile(source.schema, file));
    } else if (source.format == "text") {
      ARROW_ASSIGN_OR_RAISE(tables[i], ReadTextFile(file));
    } else {
      return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1136",
                       "Unsupported data source format: " + source.format + ".", "");
    }
    return Status::OK();
  };
  // Ember's own failures name the file; no exception may escape a pool thread.
  auto read = [&](int i) -> Status {
    Status status;
    try {
      status = read_one(i);
    } catch (const std::exception& e) {
      status = Status::IOError(e.what());
    }
    if (status.ok() || GetErrorDetail(status)) return status;
    return status.WithMessage("reading ", files[i], ": ", status.message());
  };
  if (side_by_side) {
    ARROW_RETURN_NOT_OK(arrow::internal::ParallelFor(static_cast<int>(files.size()), read));
  } else {
    for (size_t i = 0; i < files.size(); ++i) ARROW_RETURN_NOT_OK(read(static_cast<int>(i)));
  }
  if (tables.empty()) return arrow::Table::MakeEmpty(source.schema);
  ARROW_ASSIGN_OR_RAISE(auto combined, arrow::ConcatenateTables(tables));
  return combined->ReplaceSchemaMetadata(nullptr);
}

Result<std::shared_ptr<arrow::Table>> ReadFileSource(const plan::FileSource& source,
                                                     const plan::EvalContext& ctx,
                                                     const std::vector<bool>& columns) {
  std::vector<std::string> files;
  for (const auto& path : source.paths) {
    ARROW_ASSIGN_OR_RAISE(auto entries, ListDataFiles(path, /*recursive=*/false));
    for (const auto& e : entries) files.push_back(e.path);
  }
  return ReadFiles(source, files, ctx, columns);
}

}  // namespace ember::io
