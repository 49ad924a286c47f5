#include <algorithm>

#include <arrow/table.h>

#include "ember/common/interval.h"
#include "ember/common/random.h"
#include "ember/api/session_catalog.h"
#include "ember/error.h"
#include "ember/io/atomic_file.h"

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "ember/iceberg/catalog.h"
#include "ember/iceberg/maintenance.h"
#include "ember/iceberg/table.h"
#include "ember/io/file_reader.h"
#include "ember/io/file_writer.h"
#include "ember/plan/expr.h"
#include "ember/session.h"
#include "ember/stream/compactible_log.h"
#include "ember/stream/metadata_log.h"
#include "ember/streaming.h"

namespace ember {

namespace {

class MemorySink : public Sink {
 public:
  MemorySink(std::shared_ptr<Session> session, std::string view_name, std::string output_mode)
      : session_(std::move(session)), view_name_(std::move(view_name)) {
    std::transform(output_mode.begin(), output_mode.end(), output_mode.begin(), ::tolower);
    complete_ = output_mode == "complete";
  }

  arrow::Status AddBatch(int64_t batch_id, const DataFrame& batch) override {
    // Spark's MemorySink skips a batch it already has.
    if (batch_id <= last_batch_id_) return arrow::Status::OK();
    ARROW_ASSIGN_OR_RAISE(auto rows, batch.ToTable());
    return Append(batch_id, rows);
  }

  arrow::Result<std::unique_ptr<PartedBatch>> BeginParts(int64_t batch_id, int parts) override {
    if (complete_) return nullptr;
    return std::make_unique<PartedMemoryBatch>(this, batch_id, parts);
  }

  // Only complete mode can start again from a checkpoint: appended rows are not in it.
  bool SupportsRecovery() const override { return complete_; }
  // As Spark, the query's view is (re)placed when it starts: empty until its first batch, even
  // where an earlier query of the name left rows.
  arrow::Status Open(const std::string& /*query_id*/, const std::shared_ptr<arrow::Schema>& schema) override {
    ARROW_ASSIGN_OR_RAISE(auto empty, arrow::Table::MakeEmpty(schema));
    ARROW_ASSIGN_OR_RAISE(auto view, session_->FromArrow(empty));
    return session_->CreateTempView(view_name_, view, /*replace=*/true);
  }
  std::string Description() const override { return "MemorySink"; }

 private:
  // The parts' rows, appended in the batch's order of files when the batch commits (Spark's
  // order: its partitions hold consecutive runs of the files).
  class PartedMemoryBatch : public PartedBatch {
   public:
    PartedMemoryBatch(MemorySink* sink, int64_t batch_id, int parts)
        : sink_(sink), batch_id_(batch_id), parts_(static_cast<size_t>(parts)) {}
    arrow::Status Write(int part, int64_t file, const std::shared_ptr<arrow::Table>& rows) override {
      parts_[static_cast<size_t>(part)].emplace_back(file, rows);
      return arrow::Status::OK();
    }
    arrow::Status Commit() override {
      if (batch_id_ <= sink_->last_batch_id_) return arrow::Status::OK();
      std::vector<std::pair<int64_t, std::shared_ptr<arrow::Table>>> files;
      for (const auto& part : parts_) files.insert(files.end(), part.begin(), part.end());
      if (files.empty()) return arrow::Status::OK();
      std::sort(files.begin(), files.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      std::vector<std::shared_ptr<arrow::Table>> all;
      for (auto& [file, rows] : files) all.push_back(std::move(rows));
      ARROW_ASSIGN_OR_RAISE(auto rows, arrow::ConcatenateTables(all));
      return sink_->Append(batch_id_, rows);
    }

   private:
    MemorySink* sink_;
    int64_t batch_id_;
    std::vector<std::vector<std::pair<int64_t, std::shared_ptr<arrow::Table>>>> parts_;
  };

  arrow::Status Append(int64_t batch_id, const std::shared_ptr<arrow::Table>& rows) {
    if (complete_ || !table_) {
      table_ = rows;
    } else {
      ARROW_ASSIGN_OR_RAISE(table_, arrow::ConcatenateTables({table_, rows}));
    }
    last_batch_id_ = batch_id;
    ARROW_ASSIGN_OR_RAISE(auto view, session_->FromArrow(table_));
    return session_->CreateTempView(view_name_, view, /*replace=*/true);
  }

  std::shared_ptr<Session> session_;
  std::string view_name_;
  bool complete_ = false;
  int64_t last_batch_id_ = -1;
  std::shared_ptr<arrow::Table> table_;
};

class ForeachBatchSink : public Sink {
 public:
  ForeachBatchSink(std::function<arrow::Status(const DataFrame&, int64_t)> function,
                   std::string description)
      : function_(std::move(function)), description_(std::move(description)) {}
  arrow::Status AddBatch(int64_t batch_id, const DataFrame& batch) override {
    return function_(batch, batch_id);
  }
  std::string Description() const override { return description_; }
  // Spark's foreachBatch is a V1 sink; the console, noop and foreach sinks that run through
  // this class are V2 tables, which count.
  bool CountsOutputRows() const override { return description_ != "ForeachBatchSink"; }

 private:
  std::function<arrow::Status(const DataFrame&, int64_t)> function_;
  std::string description_;
};

class TableSink : public Sink {
 public:
  TableSink(iceberg::Catalog* catalog, std::vector<std::string> ident, bool complete)
      : catalog_(catalog), ident_(std::move(ident)), complete_(complete) {}

  arrow::Status Open(const std::string& query_id, const std::shared_ptr<arrow::Schema>& /*schema*/) override {
    query_id_ = query_id;
    return arrow::Status::OK();
  }
  // Iceberg's SparkTable prints its table's name: the catalog, then the identifier.
  std::string Description() const override {
    std::string name = catalog_->name();
    for (const auto& part : ident_) name += "." + part;
    return name;
  }

  arrow::Status AddBatch(int64_t batch_id, const DataFrame& batch) override {
    ARROW_ASSIGN_OR_RAISE(auto rows, batch.ToTable());
    ARROW_ASSIGN_OR_RAISE(bool committed, iceberg::AppendRows(catalog_, ident_, rows, Options(batch_id)));
    return AfterCommit(committed);
  }

  arrow::Result<std::unique_ptr<PartedBatch>> BeginParts(int64_t batch_id, int parts) override {
    if (complete_) return nullptr;
    ARROW_ASSIGN_OR_RAISE(auto append,
                          iceberg::PartedAppend::Begin(catalog_, ident_, parts, Options(batch_id)));
    if (!append) return nullptr;
    return std::make_unique<PartedTableBatch>(this, std::move(append));
  }

 private:
  class PartedTableBatch : public PartedBatch {
   public:
    PartedTableBatch(TableSink* sink, std::unique_ptr<iceberg::PartedAppend> append)
        : sink_(sink), append_(std::move(append)) {}
    arrow::Status Write(int part, int64_t, const std::shared_ptr<arrow::Table>& rows) override {
      return append_->Write(part, rows);  // a data file's rows in any order
    }
    arrow::Status Commit() override {
      ARROW_ASSIGN_OR_RAISE(bool committed, append_->Commit());
      return sink_->AfterCommit(committed);
    }

   private:
    TableSink* sink_;
    std::unique_ptr<iceberg::PartedAppend> append_;
  };

  // Every ember.stream.expire-interval-commits commits (100; 0: never) of this sink, snapshots
  // expire by the table's history.expire.max-snapshot-age-ms and min-snapshots-to-keep, with the
  // files only they reach (iceberg::ExpireSnapshots), so that a long stream's table stays bounded.
  arrow::Status AfterCommit(bool committed) {
    if (!committed) return arrow::Status::OK();
    if (!expire_interval_) {  // read once per query run
      ARROW_ASSIGN_OR_RAISE(auto table, catalog_->LoadTable(ident_));
      expire_interval_ = 100;
      auto it = table.metadata.properties.find("ember.stream.expire-interval-commits");
      if (it != table.metadata.properties.end()) {
        try {
          expire_interval_ = std::stoll(it->second);
        } catch (...) {
          return UserError(ErrorKind::kIllegalArgument, "",
                           "Table property ember.stream.expire-interval-commits of " +
                               catalog_->QualifiedName(ident_) + " is not a number: " + it->second,
                           "");
        }
      }
    }
    if (*expire_interval_ <= 0 || ++commits_ % *expire_interval_ != 0) return arrow::Status::OK();
    return iceberg::ExpireSnapshots(catalog_, ident_, {}).status();
  }

  // One snapshot per batch, its summary naming the query and the batch, so that a re-run batch
  // finds itself in the table's history and is not written twice.
  iceberg::AppendOptions Options(int64_t batch_id) const {
    iceberg::AppendOptions options;
    options.overwrite = complete_;
    options.summary = {{"ember.query-id", query_id_}, {"ember.batch-id", std::to_string(batch_id)}};
    options.already_committed = [query_id = query_id_, batch_id](const iceberg::TableMetadata& metadata) {
      return iceberg::AncestryHas(metadata, [&](const std::map<std::string, std::string>& summary) {
        auto q = summary.find("ember.query-id");
        auto b = summary.find("ember.batch-id");
        return q != summary.end() && b != summary.end() && q->second == query_id &&
               std::stoll(b->second) >= batch_id;
      });
    };
    return options;
  }

  iceberg::Catalog* catalog_;
  std::vector<std::string> ident_;
  bool complete_;
  std::string query_id_;
  int64_t commits_ = 0;
  std::optional<int64_t> expire_interval_;
};

// Parquet, JSON or CSV files under a directory, committed through Spark's _spark_metadata log
// (FileStreamSinkLog): entry N lists batch N's files, every tenth entry is a compaction holding all
// earlier ones, and a batch already in the log is skipped (the sink's idempotence). With the
// `retention` option a compaction leaves out the files whose modification time is more than the
// retention before the compaction's clock (Spark's shouldRetain), so readers no longer list them.
class FileSink : public Sink {
 public:
  FileSink(std::shared_ptr<Session> session, std::string format, std::string path,
           std::vector<std::string> partition_by, std::optional<int64_t> retention_ms,
           stream::CompactionPolicy policy)
      : session_(std::move(session)),
        format_(std::move(format)),
        path_(std::move(path)),
        partition_by_(std::move(partition_by)),
        retention_ms_(retention_ms),
        policy_(policy),
        cleaner_((std::filesystem::path(path_) / "_spark_metadata").string(), policy) {}

  // Spark's FileStreamSink prints its qualified Hadoop path: file: and the absolute path,
  // normalized, with no trailing slash.
  std::string Description() const override {
    std::string path = path_.rfind("file:", 0) == 0 ? path_.substr(5) : path_;
    while (path.rfind("//", 0) == 0) path = path.substr(1);
    std::error_code ec;
    std::string normal = std::filesystem::absolute(path, ec).lexically_normal().string();
    if (normal.size() > 1 && normal.back() == '/') normal.pop_back();
    return "FileSink[file:" + normal + "]";
  }

  bool CountsOutputRows() const override { return false; }  // a V1 sink in Spark

  arrow::Status AddBatch(int64_t batch_id, const DataFrame& batch) override {
    std::filesystem::path log = std::filesystem::path(path_) / "_spark_metadata";
    if (batch_id <= LatestLogged(log)) return arrow::Status::OK();
    ARROW_ASSIGN_OR_RAISE(auto rows, batch.ToTable());
    std::vector<std::string> entries;
    ARROW_ASSIGN_OR_RAISE(auto files, io::WritePartFiles(format_, rows, path_, partition_by_,
                                                         NewUuid(),
                                                         session_->eval_context()));
    for (const auto& file : files) {
      ARROW_ASSIGN_OR_RAISE(auto status, io::StatFile(file));
      // SinkFileStatus, its fields in Spark's order.
      nlohmann::ordered_json entry = {{"path", io::PathToUri(file)},
                                      {"size", status.size},
                                      {"isDir", false},
                                      {"modificationTime", status.modification_time_ms},
                                      {"blockReplication", 1},
                                      {"blockSize", 33554432},
                                      {"action", "add"}};
      entries.push_back(entry.dump());
    }
    std::string name = std::to_string(batch_id);
    if (policy_.IsCompaction(batch_id)) {
      // A compaction repeats every earlier entry still retained, so readers can start from it:
      // the previous compaction's and those of the batches since (Spark's
      // getValidBatchesBeforeCompactionBatch).
      std::vector<std::string> all;
      for (int64_t k = std::max<int64_t>(0, batch_id - policy_.compact_interval); k < batch_id; ++k) {
        std::filesystem::path file = log / std::to_string(k);
        std::ifstream in(file);
        if (!in) in.open(file.string() + ".compact");
        if (!in) {
          return UserError(ErrorKind::kIllegalState, "",
                           file.string() + " doesn't exist when compacting batch " +
                               std::to_string(batch_id) + " (compactInterval: " +
                               std::to_string(policy_.compact_interval) + ")",
                           "");
        }
        std::string line;
        std::getline(in, line);  // version
        while (std::getline(in, line)) {
          if (!line.empty()) all.push_back(line);
        }
      }
      all.insert(all.end(), entries.begin(), entries.end());
      entries.clear();
      int64_t now = iceberg::CurrentTimeMs();
      for (auto& line : all) {
        if (Retained(line, now)) entries.push_back(std::move(line));
      }
      name += ".compact";
    }
    std::string body = "v1";
    for (const auto& e : entries) body += "\n" + e;
    ARROW_ASSIGN_OR_RAISE(bool added, io::WriteFileAtomically((log / name).string(), body));
    if (added) cleaner_.AfterAdd(batch_id);
    (void)added;  // another attempt at this batch committed it first: same rows
    return arrow::Status::OK();
  }

 private:
  // FileStreamSinkLog.shouldRetain: kept unless older than the retention at `now`.
  bool Retained(const std::string& line, int64_t now) const {
    if (!retention_ms_) return true;
    auto entry = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!entry.is_object() || !entry.contains("modificationTime")) return true;
    return now - entry["modificationTime"].get<int64_t>() <= *retention_ms_;
  }

  static int64_t LatestLogged(const std::filesystem::path& log) {
    int64_t latest = -1;
    std::error_code ec;
    for (const auto& item : std::filesystem::directory_iterator(log, ec)) {
      std::string name = item.path().filename().string();
      std::string number = name.substr(0, name.find('.'));
      if (!number.empty() && number.find_first_not_of("0123456789") == std::string::npos &&
          (name == number || name == number + ".compact")) {
        latest = std::max<int64_t>(latest, std::stoll(number));
      }
    }
    return latest;
  }

  std::shared_ptr<Session> session_;
  std::string format_;
  std::string path_;
  std::vector<std::string> partition_by_;
  std::optional<int64_t> retention_ms_;
  stream::CompactionPolicy policy_;  // the fileSink log confs
  stream::ExpiredLogCleaner cleaner_;
};

}  // namespace

arrow::Result<std::shared_ptr<Sink>> MakeFileSink(std::shared_ptr<Session> session,
                                                  const std::string& format,
                                                  const std::string& path,
                                                  std::vector<std::string> partition_by,
                                                  std::optional<std::string> retention) {
  std::string lower = format;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  if (lower != "parquet" && lower != "json" && lower != "csv") {
    return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                     "The streaming sink '" + format + "' is not supported by Ember yet.", "0A000");
  }
  std::optional<int64_t> retention_ms;
  if (retention) {
    ARROW_ASSIGN_OR_RAISE(retention_ms, ParseTimeStringMs(*retention));
  }
  std::error_code ec;
  std::filesystem::path log = std::filesystem::path(path) / "_spark_metadata";
  std::filesystem::create_directories(log, ec);
  auto conf = [&](const std::string& key) { return session->GetConf(key); };
  ARROW_ASSIGN_OR_RAISE(auto policy,
                        stream::CompactionPolicy::FromConf(conf, "fileSink", log.string()));
  std::shared_ptr<Sink> sink = std::make_shared<FileSink>(std::move(session), lower, path,
                                                          std::move(partition_by), retention_ms,
                                                          policy);
  return sink;
}

arrow::Result<std::shared_ptr<Sink>> MakeTableSink(std::shared_ptr<Session> session,
                                                   const std::string& table_name,
                                                   std::string output_mode,
                                                   const arrow::Schema& schema,
                                                   const std::string& format,
                                                   std::vector<std::string> partition_by) {
  auto parts = plan::ColumnFromString(table_name)->name_parts;
  ARROW_ASSIGN_OR_RAISE(bool in_iceberg, session->InIcebergCatalog(parts));
  if (!in_iceberg) {
    // A session-catalog table: made from the stream's columns when missing, then Spark's file
    // sink into its location.
    ARROW_ASSIGN_OR_RAISE(auto ident, session->SessionTableName(parts));
    ARROW_ASSIGN_OR_RAISE(auto catalog, session->session_catalog(true));
    ARROW_ASSIGN_OR_RAISE(auto table, catalog->GetTable(ident.first, ident.second));
    if (!table) {
      SessionTable created;
      created.database = ident.first;
      created.name = ident.second;
      std::string provider = format.empty() ? session->GetConf("spark.sql.sources.default", "parquet") : format;
      std::transform(provider.begin(), provider.end(), provider.begin(), ::tolower);
      created.provider = provider;
      ARROW_ASSIGN_OR_RAISE(created.location, catalog->DefaultLocation(ident.first, ident.second));
      created.partition_columns = partition_by;
      ARROW_RETURN_NOT_OK(CheckSessionTableFormat(provider));
      ARROW_ASSIGN_OR_RAISE(created.schema, SessionTableColumns(schema, partition_by));
      ARROW_RETURN_NOT_OK(catalog->CreateTable(created));
      table = created;
    }
    return MakeFileSink(std::move(session), table->provider, table->location,
                        table->partition_columns, std::nullopt);
  }
  ARROW_ASSIGN_OR_RAISE(auto resolved, session->ResolveTableName(parts));
  ARROW_ASSIGN_OR_RAISE(bool exists, resolved.first->TableExists(resolved.second));
  if (!exists) {
    ARROW_RETURN_NOT_OK(resolved.first->CreateTable(resolved.second, schema, {}, /*if_not_exists=*/true));
  }
  std::transform(output_mode.begin(), output_mode.end(), output_mode.begin(), ::tolower);
  std::shared_ptr<Sink> sink =
      std::make_shared<TableSink>(resolved.first, resolved.second, output_mode == "complete");
  return sink;
}

std::shared_ptr<Sink> MakeMemorySink(std::shared_ptr<Session> session, std::string view_name,
                                     std::string output_mode) {
  return std::make_shared<MemorySink>(std::move(session), std::move(view_name),
                                      std::move(output_mode));
}

std::shared_ptr<Sink> MakeForeachBatchSink(
    std::function<arrow::Status(const DataFrame&, int64_t)> function, std::string description) {
  return std::make_shared<ForeachBatchSink>(std::move(function), std::move(description));
}

}  // namespace ember
