// Session: configuration with Spark's keys, temporary views, and the entry points that make
// DataFrames, as pyspark.sql.SparkSession.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/dataframe.h"
#include "ember/partitioning.h"

namespace ember {

namespace plan {
class Analyzer;
class StreamTable;
struct EvalContext;
struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;
}
namespace iceberg {
class Catalog;
}
class SessionCatalog;
struct SessionTable;
struct UserDataSource;
struct UserFunction;
struct UserTableFunction;

class Session : public std::enable_shared_from_this<Session> {
 public:
  static std::shared_ptr<Session> Make(std::map<std::string, std::string> conf = {});

  std::optional<std::string> GetConf(const std::string& key) const;
  std::string GetConf(const std::string& key, const std::string& fallback) const;
  void SetConf(const std::string& key, const std::string& value);
  void UnsetConf(const std::string& key);
  std::map<std::string, std::string> AllConf() const;

  arrow::Result<DataFrame> Sql(const std::string& query);
  arrow::Result<DataFrame> Range(int64_t start, int64_t end, int64_t step);
  arrow::Result<DataFrame> FromArrow(std::shared_ptr<arrow::Table> table);
  /// spark.read.format(format).schema(schema).options(options).load(paths); a null schema is
  /// inferred where Spark infers one. A format the session registered (a Python data source)
  /// reads through it when the plan runs.
  arrow::Result<DataFrame> ReadFiles(const std::string& format,
                                     const std::vector<std::string>& paths,
                                     std::shared_ptr<arrow::Schema> schema,
                                     const std::map<std::string, std::string>& options);
  arrow::Result<DataFrame> Table(const std::string& name);
  /// An Iceberg table of a configured catalog, for a stream that reads it (readStream.table):
  /// a handle that loads the table afresh, and the table's columns now.
  arrow::Result<std::pair<std::shared_ptr<const plan::StreamTable>, std::shared_ptr<arrow::Schema>>>
  StreamedTable(const std::string& name);

  /// The Iceberg catalog configured as spark.sql.catalog.<name> (type hadoop or jdbc), or null.
  arrow::Result<iceberg::Catalog*> IcebergCatalog(const std::string& name);
  /// A multi-part table name as (catalog, identifier within it); Spark's error if no catalog
  /// holds such a table name.
  arrow::Result<std::pair<iceberg::Catalog*, std::vector<std::string>>> ResolveTableName(
      const std::vector<std::string>& parts);
  /// INSERT INTO (or OVERWRITE) and df.write.insertInto: `df`'s columns by position into an
  /// existing table of any catalog.
  arrow::Status InsertInto(const std::string& name, const DataFrame& df, bool overwrite);
  /// Writes `df` to a catalog table, DataFrameWriterV2's way: mode append or overwrite (into
  /// the table, which must exist; Spark refuses both for the session catalog's file tables),
  /// create (fails if it exists), replace (fails if it does not) or create_or_replace. A new
  /// table has `partitioning` and `properties` (partitionedBy, tableProperty); in the session
  /// catalog, `provider` (using; empty: the default source).
  arrow::Status WriteTable(const std::string& name, const DataFrame& df, const std::string& mode,
                           const std::vector<PartitionTerm>& partitioning = {},
                           const std::map<std::string, std::string>& properties = {},
                           const std::string& provider = "");

  /// Spark's session catalog (spark_catalog) in spark.sql.warehouse.dir (default
  /// `spark-warehouse` in the working directory); null when `create` is false and no table was
  /// ever made there, so that reading a missing name leaves no directory behind.
  arrow::Result<SessionCatalog*> session_catalog(bool create);
  /// Whether a configured Iceberg catalog holds the table name; if not, it is a name of the
  /// session catalog.
  arrow::Result<bool> InIcebergCatalog(const std::vector<std::string>& parts);
  /// A session-catalog name as (database, table), lower-cased as Spark keeps them: the current
  /// database when none is given; Spark's REQUIRES_SINGLE_PART_NAMESPACE for deeper names.
  arrow::Result<std::pair<std::string, std::string>> SessionTableName(
      const std::vector<std::string>& parts) const;
  std::string current_database() const;
  void set_current_database(const std::string& database);
  /// df.write.format(format).mode(mode).partitionBy(...).saveAsTable(name) with Spark's save
  /// modes, for Iceberg and session-catalog tables; an empty format is spark.sql.sources.default.
  arrow::Status SaveAsTable(const std::string& name, const DataFrame& df, const std::string& format,
                            const std::string& mode, const std::vector<std::string>& partition_by);
  /// Appends to (or overwrites) a session-catalog table: the columns by position, cast to the
  /// table's types, written as the table's format into its location.
  arrow::Status WriteSessionTable(const SessionTable& table, const DataFrame& df, bool overwrite);

  arrow::Status CreateTempView(const std::string& name, const DataFrame& df, bool replace);
  bool DropTempView(const std::string& name);
  std::vector<std::string> TempViewNames() const;

  /// spark.udf.register: a temporary function of this session, called by its name in SQL and
  /// expressions (after the built-in functions, as Spark's search path has them); a function
  /// registered again under a name replaces it.
  void RegisterFunction(const std::string& name, std::shared_ptr<const UserFunction> function);
  /// The names of the functions registered with RegisterFunction, lower-cased.
  std::vector<std::string> UserFunctionNames() const;
  /// spark.udtf.register: a temporary table function of this session, called by its name in
  /// SQL's FROM (`f(1)`, `t, LATERAL f(t.a)`); registered again, it replaces the earlier one.
  void RegisterTableFunction(const std::string& name,
                             std::shared_ptr<const UserTableFunction> function);
  /// A call of a user's table function (`udtf(...)` in the DataFrame API): its rows, its
  /// arguments passed by their `keywords` (empty: by position).
  arrow::Result<DataFrame> TableFunction(std::shared_ptr<const UserTableFunction> function,
                                         const std::vector<Column>& args,
                                         std::vector<std::string> keywords);
  /// spark.dataSource.register: a format of this session's readers, by its (case-insensitive)
  /// name; registered again, it replaces the earlier one.
  void RegisterDataSource(std::shared_ptr<const UserDataSource> source);
  /// The registered data source of that name, or null.
  std::shared_ptr<const UserDataSource> FindDataSource(const std::string& name) const;

  /// The analyzer for this session's configuration and views.
  plan::Analyzer analyzer();
  /// The value of a constant expression, cast to `type` (a time-travel point, say); it may be
  /// NULL.
  arrow::Result<std::shared_ptr<arrow::Scalar>> Evaluate(const plan::ExprPtr& expr,
                                                         const std::shared_ptr<arrow::DataType>& type);
  plan::EvalContext eval_context() const;

  /// The metrics the latest action computed for observation `name` (df.observe), as Spark's
  /// listeners see them (QueryExecution.observedMetrics); none before one did. The latest 1024
  /// names are kept.
  std::optional<ObservedMetrics> LastObservedMetrics(const std::string& name) const;
  /// Keeps an action's metrics, by name (DataFrame::ToTable does).
  void RecordObservedMetrics(const std::map<std::string, ObservedMetrics>& metrics);

 private:
  Session() = default;

  mutable std::mutex mutex_;
  std::map<std::string, std::string> conf_;
  std::map<std::string, std::shared_ptr<const plan::LogicalPlan>> views_;  // lower-cased names
  std::map<std::string, std::shared_ptr<const UserFunction>> functions_;   // lower-cased names
  std::map<std::string, std::shared_ptr<const UserTableFunction>> table_functions_;  // lower-cased
  std::map<std::string, std::shared_ptr<const UserDataSource>> data_sources_;  // lower-cased
  std::map<std::string, std::shared_ptr<iceberg::Catalog>> catalogs_;
  std::vector<std::shared_ptr<iceberg::Catalog>> retired_catalogs_;
  std::shared_ptr<SessionCatalog> session_catalog_;
  std::string current_database_ = "default";
  std::map<std::string, ObservedMetrics> observed_metrics_;
  std::deque<std::string> observed_order_;  // their names, the oldest first
};

}  // namespace ember
