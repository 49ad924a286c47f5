// The logical plan: one tree for the DataFrame API and SQL. Every node built by the analyzer is
// resolved: its `output` lists the attributes it produces. The SQL parser also builds unresolved
// nodes (kUnresolvedRelation, kSelect) that only the analyzer consumes.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

#include "ember/plan/expr.h"

namespace ember::plan {

struct LogicalPlan;
using PlanPtr = std::shared_ptr<const LogicalPlan>;

enum class PlanKind {
  kLocalTable,   // an in-memory arrow::Table (createDataFrame, range, a memory sink's batch);
                 // from the parser, VALUES: `projections` holds its rows
  kFileScan,     // files read with a schema: json, csv, parquet, text
  kTableScan,    // a catalog table, read when the plan runs: `scan`
  kStreamSource, // a streaming source (stream_source); each micro-batch replaces it with its rows
  kProject,      // exprs: the projection list
  kFilter,       // exprs[0]: the condition
  kAggregate,    // groupings + exprs: aggregate calls only, each aliased to its output attribute
  kJoin,         // exprs: empty or {condition}
  kSort,         // exprs: sort orders
  kLimit,        // limit
  kUnion,        // children of identical column types; UNION ALL
  kDeduplicate,  // keep one row per distinct value of `groupings` (attribute refs)
  kSubqueryAlias,       // alias: re-qualifies the child's output
  kWatermark,           // withWatermark: exprs[0] the event-time column, limit the delay in ms
  kExpand,              // each input row once per list of `projections` (sliding windows)
  kGenerate,            // exprs[0]: a generator call (explode, posexplode, ..._outer); output: the
                        // child's columns, then the generator's (pos if any, col), per element
  kMapBatches,          // batch_function: the child's rows, batch by batch, through a user's
                        // function (mapInPandas); output: the function's columns
  kGroupMap,            // group_function over each child's rows grouped by its part of
                        // `groupings` (attribute refs, as many per child); exprs: each child's
                        // columns the function sees, in turn (applyInPandas; two children:
                        // cogroup). With a group_state, a stream's applyInPandasWithState.
                        // Output: the function's columns
  kCollectMetrics,      // observe(alias, exprs): the child's rows unchanged; exprs, each named,
                        // aggregate them (Spark's CollectMetrics), see metrics_plan
  kWindow,              // exprs: window expressions (kWindow) of one window specification, each
                        // aliased; output: the child's columns, then one per expression
  kUnresolvedRelation,  // parser only: name_parts of a table or view
  kSelect,              // parser only: a SELECT block, see SelectBlock
};

enum class JoinType { kInner, kLeftOuter, kRightOuter, kFullOuter, kLeftSemi, kLeftAnti, kCross };

const char* JoinTypeName(JoinType type);

/// Where a file scan reads from and how.
struct FileSource {
  std::string format;  // json, csv, parquet, text
  std::vector<std::string> paths;
  std::shared_ptr<arrow::Schema> schema;      // the user's schema, Spark types as arrow types
  std::map<std::string, std::string> options; // keys lower-cased
};

/// A streaming source as the user described it (spark.readStream.format(f).options(...).load(p));
/// the stream layer's source registry knows the formats.
/// A catalog table a stream reads (readStream.table): the api layer resolves its name with the
/// session's catalogs; the source of the stream's format knows the concrete type.
class StreamTable {
 public:
  virtual ~StreamTable() = default;
  /// "local.db.t", for messages.
  virtual std::string Name() const = 0;
};

struct StreamSourceSpec {
  std::string format;                          // lower-cased: json, rate, socket, ...
  std::vector<std::string> paths;              // load()'s paths, if any
  std::shared_ptr<arrow::Schema> schema;       // the source's columns
  std::map<std::string, std::string> options;  // keys lower-cased
  std::shared_ptr<const StreamTable> table;    // the table read, for a table's format
  std::shared_ptr<const UserDataSource> user_source;  // a format the session registered
};

/// A catalog table read when the plan runs, so that a filter right above it can skip files.
class TableScan {
 public:
  virtual ~TableScan() = default;
  /// The rows, columns in the order of `output`. `conjuncts` (over `output`'s attributes) may
  /// let the scan skip data that cannot match; the rows it returns are filtered anyway.
  virtual arrow::Result<std::shared_ptr<arrow::Table>> Read(
      const std::vector<ExprPtr>& conjuncts, const std::vector<Attribute>& output) const = 0;
  /// For explain(): "iceberg local.db.t".
  virtual std::string Describe() const = 0;
};

/// The parts of a SQL SELECT block before analysis.
struct SelectBlock {
  std::vector<ExprPtr> select_list;
  ExprPtr where;
  std::vector<ExprPtr> group_by;
  ExprPtr having;
  std::vector<ExprPtr> order_by;  // kSortOrder
  int64_t limit = -1;
  bool distinct = false;
};

struct LogicalPlan {
  PlanKind kind = PlanKind::kLocalTable;
  std::vector<PlanPtr> children;
  std::vector<Attribute> output;

  std::vector<ExprPtr> exprs;
  std::vector<ExprPtr> groupings;
  JoinType join_type = JoinType::kInner;
  std::vector<std::string> using_columns;  // parser only: JOIN ... USING (...)
  int64_t limit = -1;
  std::string alias;
  std::vector<std::string> name_parts;     // kUnresolvedRelation
  std::shared_ptr<arrow::Table> table;     // kLocalTable
  std::shared_ptr<FileSource> file;        // kFileScan
  std::shared_ptr<const StreamSourceSpec> stream_source;  // kStreamSource
  std::shared_ptr<const TableScan> scan;   // kTableScan
  std::shared_ptr<SelectBlock> select;     // kSelect
  bool is_streaming = false;               // a streaming source somewhere below
  bool within_watermark = false;           // kDeduplicate: dropDuplicatesWithinWatermark
  bool generated_only = false;  // kGenerate from the parser: a table-valued function over a
                                // table argument gives its own columns only
  // kGenerate over a table argument's partitions (PARTITION BY, in `groupings`; none: WITH
  // SINGLE PARTITION), a call each, the rows sorted by the keys and then (from the parser)
  // ORDER BY's sort orders, after the call in `exprs`.
  bool partitioned = false;
  std::vector<std::vector<ExprPtr>> projections;  // kExpand
  std::shared_ptr<const UserBatchFunction> batch_function;  // kMapBatches
  std::shared_ptr<const UserGroupFunction> group_function;  // kGroupMap
  std::shared_ptr<const GroupStateSpec> group_state;        // kGroupMap with state
  // kUnresolvedRelation: time travel, `VERSION AS OF <version>` or `TIMESTAMP AS OF <timestamp>`.
  ExprPtr as_of_version, as_of_timestamp;
  // kCollectMetrics: the metrics as a global aggregation (one row, a column per metric) whose
  // leaf is a kLocalTable without a table standing for the rows that pass: the executor gives it
  // them. `observation_id` is Spark's dataframeId, the DataFrame that called observe(): a
  // Connect plan id, or -1 when that DataFrame is the child itself (the DataFrame API).
  PlanPtr metrics_plan;
  int64_t observation_id = -1;
};

/// An indented tree for explain() and error messages.
std::string PlanToString(const LogicalPlan& plan);

/// The attributes a plan's result depends on: its output, and from there down what each node
/// computes the attributes needed of it from (a column not among them can be left unread, Spark's
/// column pruning). Positional outputs count whole: every column under a union or a distinct.
std::set<int64_t> ReferencedAttributes(const LogicalPlan& plan);

/// For a file scan or stream source node: whether each column (of `output`, in order) is referenced.
std::vector<bool> ReferencedColumns(const LogicalPlan& source, const std::set<int64_t>& referenced);

}  // namespace ember::plan
