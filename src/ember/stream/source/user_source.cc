// A data source the user wrote in Python (spark.dataSource.register) as a stream: its
// DataSourceStreamReader (or SimpleDataSourceStreamReader) behind the source interface, its
// offsets (the reader's dicts as JSON) in the offset log as Spark's PythonMicroBatchStream
// writes them. The reader is made when the query starts and stopped with it.
#include <arrow/table.h>

#include "ember/stream/source/source.h"
#include "ember/user_function.h"

namespace ember::stream {

using arrow::Result;

namespace {

class UserSource final : public Source {
 public:
  UserSource(std::unique_ptr<UserStreamReader> reader, std::shared_ptr<arrow::Schema> schema)
      : reader_(std::move(reader)), schema_(std::move(schema)) {}
  ~UserSource() override { Stop(); }

  Result<Offset> LatestOffset(const Offset& start) override {
    ARROW_ASSIGN_OR_RAISE(std::string latest, reader_->LatestOffset());
    // Before the first batch the stream starts at its initial offset: nothing new yet there.
    if (!start) {
      ARROW_ASSIGN_OR_RAISE(std::string initial, reader_->InitialOffset());
      if (SameOffset(initial, latest)) return start;
    }
    return latest;
  }

  Result<std::shared_ptr<arrow::Table>> ReadBatch(const Offset& start, const std::string& end,
                                                  const plan::EvalContext&) override {
    std::string from;
    if (start) {
      from = *start;
    } else {
      ARROW_ASSIGN_OR_RAISE(from, reader_->InitialOffset());
    }
    ARROW_ASSIGN_OR_RAISE(auto rows, reader_->Read(from, end));
    return arrow::Table::FromRecordBatches(schema_, {rows});
  }

  arrow::Status Commit(const std::string& end) override { return reader_->Commit(end); }

  void Stop() override {
    if (!stopped_) reader_->Stop();
    stopped_ = true;
  }

  std::string Description() const override { return "PythonMicroBatchStream"; }

 private:
  std::unique_ptr<UserStreamReader> reader_;
  std::shared_ptr<arrow::Schema> schema_;
  bool stopped_ = false;
};

}  // namespace

Result<std::unique_ptr<Source>> OpenUserSource(const SourceContext& context) {
  const auto& spec = *context.spec;
  ARROW_ASSIGN_OR_RAISE(auto reader, spec.user_source->open_stream(spec.schema, spec.options));
  return std::make_unique<UserSource>(std::move(reader), spec.schema);
}

}  // namespace ember::stream
