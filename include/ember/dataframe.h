// DataFrame: an analyzed logical plan and the session it belongs to, as pyspark.sql.DataFrame.
// Transformations analyse eagerly, so a mistake fails where it is made; actions execute.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/column.h"

namespace ember {

namespace plan {
struct LogicalPlan;
}
class Session;
struct UserBatchFunction;
struct UserGroupFunction;
struct GroupStateSpec;

/// One observation's result after an action (df.observe): its metrics as one row, a column per
/// metric, and the observing DataFrame's id (Spark's dataframeId: a Connect plan id, or -1).
struct ObservedMetrics {
  std::shared_ptr<arrow::RecordBatch> row;
  int64_t observation_id = -1;
};

class DataFrame {
 public:
  DataFrame(std::shared_ptr<Session> session, std::shared_ptr<const plan::LogicalPlan> plan)
      : session_(std::move(session)), plan_(std::move(plan)) {}

  const std::shared_ptr<Session>& session() const { return session_; }
  const std::shared_ptr<const plan::LogicalPlan>& plan() const { return plan_; }

  /// Column names and Spark types (as arrow types) of the result.
  std::shared_ptr<arrow::Schema> schema() const;
  bool is_streaming() const;

  /// df["name"]: a column bound to this DataFrame's output.
  arrow::Result<Column> operator[](const std::string& name) const;

  arrow::Result<DataFrame> Select(const std::vector<Column>& columns) const;
  arrow::Result<DataFrame> Filter(const Column& condition) const;
  arrow::Result<DataFrame> WithColumns(const std::vector<std::string>& names,
                                       const std::vector<Column>& columns) const;
  arrow::Result<DataFrame> WithColumnsRenamed(
      const std::vector<std::pair<std::string, std::string>>& renames) const;
  arrow::Result<DataFrame> Drop(const std::vector<Column>& columns) const;
  arrow::Result<DataFrame> Alias(const std::string& alias) const;
  arrow::Result<DataFrame> WithWatermark(const std::string& column, const std::string& delay) const;
  /// mapInPandas / mapInArrow: the rows through a user's function of whole batches.
  arrow::Result<DataFrame> MapBatches(std::shared_ptr<const UserBatchFunction> function) const;
  /// groupBy(keys).applyInPandas: each group's rows through a user's function; with `state`,
  /// applyInPandasWithState on a stream.
  arrow::Result<DataFrame> GroupMap(const std::vector<Column>& keys,
                                    std::shared_ptr<const UserGroupFunction> function,
                                    std::shared_ptr<const GroupStateSpec> state = nullptr) const;
  /// groupBy(keys).cogroup(other.groupBy(other_keys)).applyInPandas: each key's rows of both
  /// through a user's function.
  arrow::Result<DataFrame> CoGroupMap(const std::vector<Column>& keys, const DataFrame& other,
                                      const std::vector<Column>& other_keys,
                                      std::shared_ptr<const UserGroupFunction> function) const;
  /// groupBy(keys).agg(aggregates): the keys come first in the result.
  arrow::Result<DataFrame> GroupBy(const std::vector<Column>& keys,
                                   const std::vector<Column>& aggregates) const;
  arrow::Result<DataFrame> OrderBy(const std::vector<Column>& orders) const;
  arrow::Result<DataFrame> Limit(int64_t n) const;
  /// dropDuplicates(columns), or distinct() when empty.
  arrow::Result<DataFrame> DropDuplicates(const std::vector<std::string>& columns) const;
  /// dropDuplicatesWithinWatermark(columns): on a stream, a key's duplicates are dropped until
  /// the watermark passes its first event time plus the delay.
  arrow::Result<DataFrame> DropDuplicatesWithinWatermark(const std::vector<std::string>& columns) const;
  /// distinct(): on a stream an aggregation over every column, as in Spark.
  arrow::Result<DataFrame> Distinct() const;
  arrow::Result<DataFrame> Union(const DataFrame& other, bool by_name = false,
                                 bool allow_missing_columns = false) const;
  /// how: inner, left, right, full (and Spark's synonyms), left_semi, left_anti, cross.
  arrow::Result<DataFrame> Join(const DataFrame& other, const Column* condition,
                                const std::vector<std::string>& using_columns,
                                const std::string& how) const;

  /// observe(name, metrics), Spark's Dataset.observe: the same rows; an action or a streaming
  /// batch also computes `metrics`, aggregate expressions over the rows that pass here, and
  /// reports them under `name` (ToTable's `observed`, a batch's progress). One plan may hold two
  /// observations of a name only from one observing DataFrame (Spark's dataframeId): a Connect
  /// plan id as `observation_id`, or with -1 this DataFrame.
  arrow::Result<DataFrame> Observe(const std::string& name, const std::vector<Column>& metrics,
                                   int64_t observation_id = -1) const;

  /// The result; with `observed`, also the metrics of each observation the plan computed, by
  /// name. The session keeps them too (Session::LastObservedMetrics).
  arrow::Result<std::shared_ptr<arrow::Table>> ToTable(
      std::map<std::string, ObservedMetrics>* observed = nullptr) const;
  arrow::Result<int64_t> Count() const;
  /// df.write...save(path): the path given, or else the writer's "path" option (Spark refuses
  /// both); an empty format is spark.sql.sources.default.
  arrow::Status Save(const std::string& format, const std::optional<std::string>& path,
                     const std::map<std::string, std::string>& options, const std::string& mode,
                     const std::vector<std::string>& partition_by) const;
  /// df.write.mode(mode).partitionBy(...).format(format).save(path): part files and a _SUCCESS
  /// marker under `path`; mode is errorifexists (error), overwrite, append or ignore.
  arrow::Status WriteFiles(const std::string& format, const std::string& path,
                           const std::string& mode,
                           const std::vector<std::string>& partition_by) const;
  /// The plan as text, for explain().
  std::string Explain() const;

 private:
  arrow::Result<DataFrame> With(arrow::Result<std::shared_ptr<const plan::LogicalPlan>> plan) const;

  std::shared_ptr<Session> session_;
  std::shared_ptr<const plan::LogicalPlan> plan_;
};

}  // namespace ember
