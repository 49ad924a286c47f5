// The analyzer resolves names and types. The DataFrame API calls its builders one node at a time,
// so a mistake is reported where the user makes it, as Spark does; SQL text goes through Resolve,
// which walks the parser's tree and calls the same builders.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <arrow/result.h>

#include "ember/plan/logical_plan.h"

namespace ember::plan {

struct FunctionDef;

struct AnalyzerOptions {
  bool case_sensitive = false;  // spark.sql.caseSensitive
  /// Finds a temporary view or table by its name parts, at a version or timestamp when the
  /// relation has one (time travel); a status for "not found" is fine.
  std::function<arrow::Result<PlanPtr>(const LogicalPlan& relation)> lookup_relation;
  /// Finds a temporary function (spark.udf.register) by name, or null.
  std::function<std::shared_ptr<const UserFunction>(const std::string& name)> lookup_function;
  /// The value of a constant expression (no column, nothing random), cast to `type`.
  std::function<arrow::Result<std::shared_ptr<arrow::Scalar>>(
      const ExprPtr& expr, const std::shared_ptr<arrow::DataType>& type)>
      evaluate;
  /// Finds a temporary table function (spark.udtf.register) by name, or null.
  std::function<std::shared_ptr<const UserTableFunction>(const std::string& name)>
      lookup_table_function;
};

class Analyzer {
 public:
  explicit Analyzer(AnalyzerOptions options) : options_(std::move(options)) {}

  arrow::Result<PlanPtr> Resolve(const PlanPtr& unresolved) const;

  arrow::Result<PlanPtr> Project(const PlanPtr& child, const std::vector<ExprPtr>& exprs) const;
  arrow::Result<PlanPtr> Filter(const PlanPtr& child, const ExprPtr& condition) const;
  /// groupBy(groupings).agg(outputs); outputs may be any expressions over aggregates and
  /// grouping expressions. With `include_groupings` the grouping columns come first (as in
  /// DataFrame.groupBy().agg()).
  arrow::Result<PlanPtr> Aggregate(const PlanPtr& child, const std::vector<ExprPtr>& groupings,
                                   const std::vector<ExprPtr>& outputs, bool include_groupings,
                                   const ExprPtr& having = nullptr,
                                   const std::vector<ExprPtr>& order_by = {}) const;
  arrow::Result<PlanPtr> Join(const PlanPtr& left, const PlanPtr& right, JoinType type,
                              const ExprPtr& condition,
                              const std::vector<std::string>& using_columns) const;
  arrow::Result<PlanPtr> Sort(const PlanPtr& child, const std::vector<ExprPtr>& orders) const;
  arrow::Result<PlanPtr> Limit(const PlanPtr& child, int64_t limit) const;
  /// mapInPandas / mapInArrow: the child's rows through `function`, batch by batch.
  arrow::Result<PlanPtr> MapBatches(const PlanPtr& child,
                                    std::shared_ptr<const UserBatchFunction> function) const;
  /// A side of a GroupMap: a plan's rows grouped by `groupings`.
  struct GroupedSide {
    PlanPtr child;
    std::vector<ExprPtr> groupings;
  };
  /// applyInPandas (one side, state: null), applyInPandasWithState (one side, a state) and
  /// cogroup().applyInPandas (two sides): each group (of each side) through `function`.
  arrow::Result<PlanPtr> GroupMap(const std::vector<GroupedSide>& sides,
                                  std::shared_ptr<const UserGroupFunction> function,
                                  std::shared_ptr<const GroupStateSpec> state) const;
  arrow::Result<PlanPtr> Union(const PlanPtr& left, const PlanPtr& right, bool by_name,
                               bool allow_missing_columns) const;
  /// dropDuplicates(columns); all columns when empty (distinct()).
  arrow::Result<PlanPtr> Deduplicate(const PlanPtr& child, const std::vector<std::string>& columns,
                                     bool within_watermark = false) const;
  arrow::Result<PlanPtr> SubqueryAlias(const PlanPtr& child, const std::string& alias) const;
  /// observe(name, metrics), Spark's CollectMetrics: the child's rows, and `metrics` (aggregate
  /// expressions, named as a projection names them) computed over them, with Spark's checks
  /// (INVALID_OBSERVED_METRICS.*, DUPLICATED_METRICS_NAME). `observation_id` is Spark's
  /// dataframeId, a Connect plan id; -1: the observed DataFrame (`child`) is the id, as in
  /// Spark's classic API.
  arrow::Result<PlanPtr> CollectMetrics(const PlanPtr& child, const std::string& name,
                                        const std::vector<ExprPtr>& metrics,
                                        int64_t observation_id = -1) const;
  /// withWatermark(column, delay): a timestamp column and Spark's interval text.
  arrow::Result<PlanPtr> Watermark(const PlanPtr& child, const std::string& column,
                                   const std::string& delay) const;
  arrow::Result<PlanPtr> WithColumnsRenamed(
      const PlanPtr& child, const std::vector<std::pair<std::string, std::string>>& renames) const;
  arrow::Result<PlanPtr> Drop(const PlanPtr& child, const std::vector<ExprPtr>& columns) const;

  /// Spark's Generate: the child's rows, each joined with the rows `generator` (explode, a
  /// user's table function) gives for it, whose columns are named `names` (or the generator's
  /// own names) and qualified by `qualifier`; `scope` are the columns its arguments may read.
  arrow::Result<PlanPtr> Generate(const PlanPtr& child, const std::vector<Attribute>& scope,
                                  const ExprPtr& generator, const std::vector<std::string>& names,
                                  const std::string& qualifier) const;

  /// Resolves an expression against a plan's output (df["x"], df.col("x")).
  arrow::Result<ExprPtr> ResolveExpr(const ExprPtr& expr, const PlanPtr& input) const;

  bool NameEquals(const std::string& a, const std::string& b) const;

 private:
  struct Scope;
  arrow::Result<ExprPtr> Resolve(const ExprPtr& expr, const Scope& scope) const;
  arrow::Result<ExprPtr> ResolveColumn(const Expr& column, const Scope& scope) const;
  arrow::Result<ExprPtr> ResolveTableFunctionCall(const Expr& call, const Scope& scope) const;
  arrow::Result<ExprPtr> ResolveLambda(const Expr& call, const FunctionDef& def,
                                       const std::vector<ExprPtr>& args, size_t index,
                                       const Scope& scope) const;
  bool IsRangeCall(const Expr& call) const;
  arrow::Result<PlanPtr> ResolveGenerate(const LogicalPlan& p) const;
  arrow::Result<PlanPtr> PartitionedGenerate(const PlanPtr& child, const LogicalPlan& p) const;
  arrow::Result<PlanPtr> InlineTable(const std::vector<std::vector<ExprPtr>>& rows) const;
  arrow::Result<PlanPtr> RangeRelation(const Expr& call) const;
  arrow::Result<std::vector<ExprPtr>> ExpandStars(const std::vector<ExprPtr>& exprs,
                                                  const Scope& scope) const;
  arrow::Result<PlanPtr> ResolveSelect(const LogicalPlan& select) const;
  bool IsOrderByAll(const Expr& e, const std::vector<Attribute>& input) const;
  arrow::Result<PlanPtr> WithGenerator(const PlanPtr& child, std::vector<ExprPtr>* exprs) const;
  arrow::Result<PlanPtr> WithEventTime(const PlanPtr& child, ExprPtr* resolved,
                                       const Scope& scope) const;
  /// ContainsAggregate before resolution: a call of a session function (a registered
  /// grouped-aggregate UDF) by name counts too.
  bool CallsAggregate(const Expr& expr) const;
  arrow::Result<ExprPtr> ResolveByGroupingKey(const PlanPtr& child, const ExprPtr& order) const;

  AnalyzerOptions options_;
};

/// spark.range's rows, the column `id` (bigint) from `start` up to `end` by `step`, in
/// `partitions` chunks (a table function's partitions); Spark's error for a step of 0.
arrow::Result<std::shared_ptr<arrow::Table>> RangeTable(int64_t start, int64_t end, int64_t step,
                                                        int64_t partitions);

/// Spark's OneRowRelation: one row without columns (SELECT without FROM).
PlanPtr OneRowRelation();

/// The output attribute a resolved named expression produces in a projection.
Attribute OutputAttribute(const ExprPtr& resolved);

}  // namespace ember::plan
