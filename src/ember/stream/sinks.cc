#include <algorithm>

#include <arrow/table.h>

#include "ember/error.h"

#include "ember/iceberg/catalog.h"
#include "ember/iceberg/table.h"
#include "ember/plan/expr.h"
#include "ember/session.h"
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
    if (complete_ || !table_) {
      table_ = rows;
    } else {
      ARROW_ASSIGN_OR_RAISE(table_, arrow::ConcatenateTables({table_, rows}));
    }
    last_batch_id_ = batch_id;
    ARROW_ASSIGN_OR_RAISE(auto view, session_->FromArrow(table_));
    return session_->CreateTempView(view_name_, view, /*replace=*/true);
  }

  // Only complete mode can start again from a checkpoint: appended rows are not in it.
  bool SupportsRecovery() const override { return complete_; }

 private:
  std::shared_ptr<Session> session_;
  std::string view_name_;
  bool complete_ = false;
  int64_t last_batch_id_ = -1;
  std::shared_ptr<arrow::Table> table_;
};

class ForeachBatchSink : public Sink {
 public:
  explicit ForeachBatchSink(std::function<arrow::Status(const DataFrame&, int64_t)> function)
      : function_(std::move(function)) {}
  arrow::Status AddBatch(int64_t batch_id, const DataFrame& batch) override {
    return function_(batch, batch_id);
  }

 private:
  std::function<arrow::Status(const DataFrame&, int64_t)> function_;
};

class TableSink : public Sink {
 public:
  TableSink(iceberg::HadoopCatalog* catalog, std::vector<std::string> ident, bool complete)
      : catalog_(catalog), ident_(std::move(ident)), complete_(complete) {}

  void SetQueryId(const std::string& query_id) override { query_id_ = query_id; }

  arrow::Status AddBatch(int64_t batch_id, const DataFrame& batch) override {
    ARROW_ASSIGN_OR_RAISE(auto rows, batch.ToTable());
    iceberg::AppendOptions options;
    options.overwrite = complete_;
    options.summary = {{"ember.query-id", query_id_}, {"ember.batch-id", std::to_string(batch_id)}};
    const std::string query_id = query_id_;
    options.already_committed = [query_id, batch_id](const iceberg::TableMetadata& metadata) {
      return iceberg::AncestryHas(metadata, [&](const std::map<std::string, std::string>& summary) {
        auto q = summary.find("ember.query-id");
        auto b = summary.find("ember.batch-id");
        return q != summary.end() && b != summary.end() && q->second == query_id &&
               std::stoll(b->second) >= batch_id;
      });
    };
    return iceberg::AppendRows(catalog_, ident_, rows, options).status();
  }

 private:
  iceberg::HadoopCatalog* catalog_;
  std::vector<std::string> ident_;
  bool complete_;
  std::string query_id_;
};

}  // namespace

arrow::Result<std::shared_ptr<Sink>> MakeTableSink(std::shared_ptr<Session> session,
                                                   const std::string& table_name,
                                                   std::string output_mode) {
  auto parts = plan::ColumnFromString(table_name)->name_parts;
  ARROW_ASSIGN_OR_RAISE(auto resolved, session->ResolveTableName(parts));
  if (!resolved.first->TableExists(resolved.second)) {
    return UserError(ErrorKind::kAnalysis, "TABLE_OR_VIEW_NOT_FOUND",
                     "The table or view `" + table_name + "` cannot be found.", "42P01");
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
    std::function<arrow::Status(const DataFrame&, int64_t)> function) {
  return std::make_shared<ForeachBatchSink>(std::move(function));
}

}  // namespace ember
