// A function the user wrote (a Python UDF), as the engine calls it: on one batch's argument
// columns at a time, wherever the expression is evaluated.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <arrow/result.h>
#include <arrow/status.h>
#include <arrow/type_fwd.h>

namespace ember {
namespace plan {
struct Expr;
}

/// One call of a function of groups (UserGroupFunction, a grouped-aggregate UserFunction): a
/// batch's groups, each group's rows together.
struct GroupedRows {
  /// The function's input columns, group after group.
  std::shared_ptr<arrow::RecordBatch> rows;
  /// cogroup: the other side's, group after group; `groups` then has `other_offset`,
  /// `other_length` and the key's columns as the other side has them after `length`.
  std::shared_ptr<arrow::RecordBatch> other_rows;
  /// One row per group, in the order the function sees them: the grouping key's columns, then
  /// `offset` and `length` (int64) of the group's rows in `rows`. With state, then `state` (the
  /// state's struct; NULL where the group has none) and `timed_out` (bool: called for its
  /// timeout, without rows).
  std::shared_ptr<arrow::RecordBatch> groups;
  int64_t batch_time_ms = 0;       // the micro-batch's processing time
  int64_t watermark_ms = 0;        // the event-time watermark (0 before there is one)
  bool watermark_present = false;  // whether the function's input has a watermarked column
};

struct UserFunction {
  std::string name;  // shown in column names, as Spark shows `f(a)`
  std::shared_ptr<arrow::DataType> return_type;
  bool deterministic = true;
  /// Returns a column of `return_type` with `length` values; `args` hold `length` values each,
  /// each passed by its keyword in `keywords` (`f(v, w=col)`; empty: by position).
  /// Called on the engine's threads, possibly several at once.
  std::function<arrow::Result<std::shared_ptr<arrow::Array>>(
      const std::vector<std::shared_ptr<arrow::Array>>& args, int64_t length,
      const std::vector<std::string>& keywords)>
      call;
  /// A grouped-aggregate function (pandas_udf GROUPED_AGG) has this instead of `call`: one
  /// value of `return_type` per group of `groups`, whose rows are the argument columns.
  std::function<arrow::Result<std::shared_ptr<arrow::Array>>(
      const GroupedRows& groups, const std::vector<std::string>& keywords)>
      aggregate;
};

/// A user's function of whole batches (mapInPandas, mapInArrow): a batch of rows in, any number
/// of rows with `output_schema`'s columns out.
struct UserBatchFunction {
  std::string name;
  std::shared_ptr<arrow::Schema> output_schema;
  /// Called on the engine's threads, possibly several at once.
  std::function<arrow::Result<std::shared_ptr<arrow::RecordBatch>>(
      const std::shared_ptr<arrow::RecordBatch>& batch)>
      call;
};

/// An argument of a user's table function as its `analyze` sees it (Spark's AnalyzeArgument).
struct TableFunctionArgument {
  std::shared_ptr<arrow::DataType> type;
  std::shared_ptr<arrow::Scalar> value;  // a constant argument's value, else null
  std::string keyword;                   // passed by keyword (`f(a => 1)`), or empty
  bool is_table = false;                 // TABLE(t): a struct of the table's columns per row
};

/// What a table function's analyze() asks of its table argument's rows (Spark's AnalyzeResult),
/// as expressions over the table's columns: a call per partition (`partition_by`, or one with
/// `single_partition`), each partition's rows sorted by `order_by` (sort orders); `select`
/// (named expressions): the columns its rows have (empty: all).
struct TableArgumentRequest {
  bool single_partition = false;
  std::vector<std::shared_ptr<const plan::Expr>> partition_by, order_by, select;
  bool partitioned() const { return single_partition || !partition_by.empty(); }
};

/// A user's table function (a Python UDTF): rows for each row of its arguments, then, at the
/// end of its input (Spark's partition; here each batch), the rows of its terminate().
struct UserTableFunction {
  std::string name;
  /// Its columns; null when the function names them itself, see `analyze`.
  std::shared_ptr<arrow::Schema> output_schema;
  bool deterministic = true;
  /// `args`: one row per call, each column passed by its name as the keyword (empty: by
  /// position). Returns the rows, `output_schema`'s columns and then `row` (int64): the argument
  /// row each came from (terminate()'s: the last one, as Spark joins them; NULL without
  /// rows). Called on the engine's threads.
  std::function<arrow::Result<std::shared_ptr<arrow::RecordBatch>>(
      const std::shared_ptr<arrow::RecordBatch>& args)>
      call;
  /// Set by `analyze` for a call with a table argument.
  TableArgumentRequest table_request;
  /// A function without `output_schema` (Spark's `analyze`): the function for these
  /// arguments, with its columns.
  std::function<arrow::Result<std::shared_ptr<const UserTableFunction>>(
      const std::vector<TableFunctionArgument>& args)>
      analyze;
};

/// What a UserGroupFunction gives back.
struct GroupedResult {
  std::shared_ptr<arrow::RecordBatch> rows;  // the function's output columns
  /// With state: one row per group of the call, in its order: `state` (NULL when the group has
  /// none after the call), `timeout_ms` (int64, -1 for none), `updated` and `removed` (bool).
  std::shared_ptr<arrow::RecordBatch> states;
};

/// A user's function of groups of rows (applyInPandas; with state, applyInPandasWithState),
/// called on all of a batch's groups at once.
struct UserGroupFunction {
  std::string name;
  std::shared_ptr<arrow::Schema> output_schema;
  /// Called on the engine's threads.
  std::function<arrow::Result<GroupedResult>(const GroupedRows& groups)> call;
};

/// A stream reader of a user's data source (Spark's DataSourceStreamReader), offsets as the
/// JSON text the offset log holds. Called on a query's thread, one call at a time.
class UserStreamReader {
 public:
  virtual ~UserStreamReader() = default;
  virtual arrow::Result<std::string> InitialOffset() = 0;
  virtual arrow::Result<std::string> LatestOffset() = 0;
  /// The rows after `start` up to `end`, with the reader's schema.
  virtual arrow::Result<std::shared_ptr<arrow::RecordBatch>> Read(const std::string& start,
                                                                  const std::string& end) = 0;
  virtual arrow::Status Commit(const std::string& end) = 0;
  virtual void Stop() = 0;
};

/// A data source the user wrote (Spark's Python Data Source API, pyspark.sql.datasource),
/// registered in a session under `name`; `options` are the reader's.
struct UserDataSource {
  std::string name;
  /// Its schema() where the reader gives none.
  std::function<arrow::Result<std::shared_ptr<arrow::Schema>>(
      const std::map<std::string, std::string>& options)>
      schema;
  /// A batch read: the rows of all its partitions.
  std::function<arrow::Result<std::shared_ptr<arrow::RecordBatch>>(
      const std::shared_ptr<arrow::Schema>& schema, const std::map<std::string, std::string>& options)>
      read;
  /// A stream: its reader.
  std::function<arrow::Result<std::unique_ptr<UserStreamReader>>(
      const std::shared_ptr<arrow::Schema>& schema, const std::map<std::string, std::string>& options)>
      open_stream;
  /// Writes `rows` through its writer and commits them: a batch write (df.write) when
  /// `batch_id` is negative, else a stream's micro-batch (writeStream); `overwrite` as the save
  /// mode or the output mode asks.
  std::function<arrow::Status(const std::shared_ptr<arrow::Table>& rows,
                              const std::map<std::string, std::string>& options, bool overwrite,
                              int64_t batch_id)>
      write;
};

/// The state of applyInPandasWithState: a value of `type` per group, kept from batch to batch.
struct GroupStateSpec {
  std::shared_ptr<arrow::DataType> type;  // a struct
  std::string timeout;                    // NoTimeout, ProcessingTimeTimeout, EventTimeTimeout
  std::string output_mode;                // append or update: how the function's rows go out
};

}  // namespace ember
