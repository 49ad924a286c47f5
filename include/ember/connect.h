// The Spark Connect server: Ember behind Spark Connect's gRPC protocol, so that PySpark's Connect
// client (SparkSession.builder.remote("sc://host:port")) and Spark's other Connect clients run
// their programs on Ember. Each client session (by session id) gets its own ember::Session.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/user_function.h"

namespace ember {

/// The Python functions a Connect client sends (foreachBatch, foreach, UDFs), run by a server that
/// lives inside a Python process (ember.connect.start() or activate()): the Python module
/// provides it. Calls come from a query's thread, without the GIL.
class ConnectPythonRunner {
 public:
  virtual ~ConnectPythonRunner() = default;
  /// Calls the client's pickled function `command` on one micro-batch, which a client of
  /// session `session_id` reaches as the cached relation `relation_id`. `foreach`: the command
  /// is foreach's (a function of a partition's rows) rather than foreachBatch's.
  virtual arrow::Status ForeachBatch(const std::string& command, bool foreach,
                                     const std::string& session_id,
                                     const std::string& relation_id, int64_t batch_id) = 0;
  /// Calls the client's pickled UDF `command`, of Spark's PythonEvalType `eval_type`, on one
  /// batch's argument columns, each passed by its keyword in `keywords` (empty: by position);
  /// returns its `length` values as `return_type`. `conf`, here and below: the session's
  /// settings that Spark hands its Python worker (its runner conf).
  virtual arrow::Result<std::shared_ptr<arrow::Array>> CallFunction(
      const std::string& command, int32_t eval_type,
      const std::shared_ptr<arrow::DataType>& return_type, const std::vector<std::string>& keywords,
      const std::map<std::string, std::string>& conf,
      const std::vector<std::shared_ptr<arrow::Array>>& args, int64_t length) = 0;
  /// Calls the client's pickled aggregate function `command` (a grouped-aggregate pandas_udf:
  /// Spark's `eval_type`) on each group of `groups` (its rows the arguments, passed as
  /// `keywords` says); returns a value of `return_type` per group.
  virtual arrow::Result<std::shared_ptr<arrow::Array>> AggregateGroups(
      const std::string& command, int32_t eval_type,
      const std::shared_ptr<arrow::DataType>& return_type, const std::vector<std::string>& keywords,
      const std::map<std::string, std::string>& conf, const GroupedRows& groups) = 0;
  /// Calls the client's pickled function of batches `command` (mapInPandas, mapInArrow: Spark's
  /// `eval_type`) on one batch; returns its rows with `output_schema`'s columns.
  virtual arrow::Result<std::shared_ptr<arrow::RecordBatch>> MapBatch(
      const std::string& command, int32_t eval_type,
      const std::shared_ptr<arrow::Schema>& output_schema,
      const std::map<std::string, std::string>& conf,
      const std::shared_ptr<arrow::RecordBatch>& batch) = 0;
  /// Calls the client's pickled function of groups `command` (applyInPandas, applyInArrow,
  /// applyInPandasWithState with `state`, cogroup's: Spark's `eval_type`) on one batch's groups.
  virtual arrow::Result<GroupedResult> ApplyToGroups(
      const std::string& command, int32_t eval_type,
      const std::shared_ptr<arrow::Schema>& output_schema, const GroupStateSpec* state,
      const std::map<std::string, std::string>& conf, const GroupedRows& groups) = 0;
  /// Calls the client's pickled table function `command` (a Python UDTF, Spark's `eval_type`)
  /// on a batch of argument rows, as UserTableFunction::call; `analyzed`: the pickled result of
  /// its analyze(), handed to its constructor, or empty.
  virtual arrow::Result<std::shared_ptr<arrow::RecordBatch>> CallTableFunction(
      const std::string& command, int32_t eval_type,
      const std::shared_ptr<arrow::Schema>& output_schema, const std::string& analyzed,
      const std::map<std::string, std::string>& conf,
      const std::shared_ptr<arrow::RecordBatch>& args) = 0;
  /// What a UDTF's static analyze() gave (Spark's AnalyzeResult): its columns (a Spark Connect
  /// DataType, serialized), the pickled result, and what it asks of a table argument's rows,
  /// as SQL expression texts.
  struct TableFunctionAnalysis {
    std::string schema;
    std::string pickled;
    bool single_partition = false;
    std::vector<std::string> partition_by;
    struct Order {
      std::string expression;
      bool ascending = true;
      int nulls = 0;  // 0: the default, 1: first, 2: last
    };
    std::vector<Order> order_by;
    std::vector<std::pair<std::string, std::string>> select;  // (expression, alias)
  };
  /// The static analyze() of that function's class, for `args`.
  virtual arrow::Result<TableFunctionAnalysis> AnalyzeTableFunction(
      const std::string& command, const std::vector<TableFunctionArgument>& args) = 0;
  /// A Python data source (spark.dataSource.register), its pickled class `command` with the
  /// reader's `options`: its schema() as Spark's DDL text.
  virtual arrow::Result<std::string> DataSourceSchema(
      const std::string& command, const std::map<std::string, std::string>& options) = 0;
  /// A batch read of it: the rows of all the reader's partitions, with `schema`.
  virtual arrow::Result<std::shared_ptr<arrow::RecordBatch>> ReadDataSource(
      const std::string& command, const std::shared_ptr<arrow::Schema>& schema,
      const std::map<std::string, std::string>& options) = 0;
  /// Its stream reader (simpleStreamReader's where it has no streamReader).
  virtual arrow::Result<std::unique_ptr<UserStreamReader>> OpenStreamReader(
      const std::string& command, const std::shared_ptr<arrow::Schema>& schema,
      const std::map<std::string, std::string>& options) = 0;
  /// Writes `rows` through its writer (streamWriter's for a micro-batch, `batch_id` >= 0) and
  /// commits them, or aborts and fails.
  virtual arrow::Status WriteDataSource(const std::string& command,
                                        const std::map<std::string, std::string>& options,
                                        bool overwrite, int64_t batch_id,
                                        const std::shared_ptr<arrow::Table>& rows) = 0;
};

class ConnectServer {
 public:
  /// Starts serving on `address` ("127.0.0.1:15002"; port 0 picks a free port) on gRPC's
  /// threads; it serves until Shutdown() or destruction.
  /// `python`: where the clients' Python functions run; none outside a Python process.
  static arrow::Result<std::unique_ptr<ConnectServer>> Start(
      const std::string& address, std::shared_ptr<ConnectPythonRunner> python = nullptr);
  ~ConnectServer();

  /// The port it listens on (the chosen one when started with port 0).
  int port() const;
  /// Stops accepting calls, cancels those in progress and returns when all have ended.
  /// Safe to call more than once, from any thread.
  void Shutdown();
  /// Blocks until the server has shut down.
  void Wait();

 private:
  struct State;
  explicit ConnectServer(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace ember
