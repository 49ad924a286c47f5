#include <algorithm>

#include <arrow/table.h>

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

}  // namespace

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
