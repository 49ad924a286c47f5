#include "ember/dataframe.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>

#include <arrow/table.h>
#include <arrow/type.h>

#include "ember/common/random.h"
#include "ember/error.h"
#include "ember/exec/executor.h"
#include "ember/iceberg/table_metadata.h"
#include "ember/io/file_writer.h"
#include "ember/plan/analyzer.h"
#include "ember/session.h"

namespace ember {

using arrow::Result;

namespace {

std::vector<plan::ExprPtr> Exprs(const std::vector<Column>& columns) {
  std::vector<plan::ExprPtr> out;
  for (const auto& c : columns) out.push_back(c.expr());
  return out;
}

Result<plan::JoinType> ParseJoinType(std::string how) {
  std::transform(how.begin(), how.end(), how.begin(), ::tolower);
  how.erase(std::remove(how.begin(), how.end(), '_'), how.end());
  if (how == "inner") return plan::JoinType::kInner;
  if (how == "cross") return plan::JoinType::kCross;
  if (how == "outer" || how == "full" || how == "fullouter") return plan::JoinType::kFullOuter;
  if (how == "left" || how == "leftouter") return plan::JoinType::kLeftOuter;
  if (how == "right" || how == "rightouter") return plan::JoinType::kRightOuter;
  if (how == "semi" || how == "leftsemi") return plan::JoinType::kLeftSemi;
  if (how == "anti" || how == "leftanti") return plan::JoinType::kLeftAnti;
  return UserError(ErrorKind::kIllegalArgument, "UNSUPPORTED_JOIN_TYPE",
                   "Unsupported join type '" + how +
                       "'. Supported join types include: 'inner', 'outer', 'full', 'fullouter', "
                       "'full_outer', 'leftouter', 'left', 'left_outer', 'rightouter', 'right', "
                       "'right_outer', 'leftsemi', 'left_semi', 'semi', 'leftanti', 'left_anti', "
                       "'anti', 'cross'.",
                   "0A000");
}

}  // namespace

std::shared_ptr<arrow::Schema> DataFrame::schema() const {
  arrow::FieldVector fields;
  for (const auto& a : plan_->output) fields.push_back(arrow::field(a.name, a.type, a.nullable));
  return arrow::schema(fields);
}

bool DataFrame::is_streaming() const { return plan_->is_streaming; }

Result<DataFrame> DataFrame::With(Result<std::shared_ptr<const plan::LogicalPlan>> plan) const {
  ARROW_ASSIGN_OR_RAISE(auto p, std::move(plan));
  return DataFrame(session_, std::move(p));
}

Result<Column> DataFrame::operator[](const std::string& name) const {
  if (name == "*") return Col(name);
  ARROW_ASSIGN_OR_RAISE(auto resolved,
                        session_->analyzer().ResolveExpr(plan::ColumnFromString(name), plan_));
  return Column(resolved);
}

Result<DataFrame> DataFrame::Select(const std::vector<Column>& columns) const {
  return With(session_->analyzer().Project(plan_, Exprs(columns)));
}

Result<DataFrame> DataFrame::Filter(const Column& condition) const {
  return With(session_->analyzer().Filter(plan_, condition.expr()));
}

Result<DataFrame> DataFrame::WithColumns(const std::vector<std::string>& names,
                                         const std::vector<Column>& columns) const {
  auto analyzer = session_->analyzer();
  std::vector<plan::ExprPtr> exprs;
  std::vector<bool> placed(names.size(), false);
  for (const auto& a : plan_->output) {
    plan::ExprPtr e = plan::AttributeRef(a);
    for (size_t i = 0; i < names.size(); ++i) {
      if (analyzer.NameEquals(a.name, names[i])) {
        e = plan::Alias(columns[i].expr(), names[i]);
        placed[i] = true;
      }
    }
    exprs.push_back(e);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (!placed[i]) exprs.push_back(plan::Alias(columns[i].expr(), names[i]));
  }
  return With(analyzer.Project(plan_, exprs));
}

Result<DataFrame> DataFrame::WithColumnsRenamed(
    const std::vector<std::pair<std::string, std::string>>& renames) const {
  return With(session_->analyzer().WithColumnsRenamed(plan_, renames));
}

Result<DataFrame> DataFrame::Drop(const std::vector<Column>& columns) const {
  return With(session_->analyzer().Drop(plan_, Exprs(columns)));
}

Result<DataFrame> DataFrame::Alias(const std::string& alias) const {
  return With(session_->analyzer().SubqueryAlias(plan_, alias));
}

Result<DataFrame> DataFrame::Observe(const std::string& name, const std::vector<Column>& metrics,
                                     int64_t observation_id) const {
  return With(session_->analyzer().CollectMetrics(plan_, name, Exprs(metrics), observation_id));
}

Result<DataFrame> DataFrame::WithWatermark(const std::string& column,
                                           const std::string& delay) const {
  return With(session_->analyzer().Watermark(plan_, column, delay));
}

Result<DataFrame> DataFrame::MapBatches(std::shared_ptr<const UserBatchFunction> function) const {
  return With(session_->analyzer().MapBatches(plan_, std::move(function)));
}

Result<DataFrame> DataFrame::GroupMap(const std::vector<Column>& keys,
                                      std::shared_ptr<const UserGroupFunction> function,
                                      std::shared_ptr<const GroupStateSpec> state) const {
  return With(session_->analyzer().GroupMap({{plan_, Exprs(keys)}}, std::move(function), std::move(state)));
}

Result<DataFrame> DataFrame::CoGroupMap(const std::vector<Column>& keys, const DataFrame& other,
                                        const std::vector<Column>& other_keys,
                                        std::shared_ptr<const UserGroupFunction> function) const {
  return With(session_->analyzer().GroupMap({{plan_, Exprs(keys)}, {other.plan_, Exprs(other_keys)}},
                                            std::move(function), nullptr));
}

Result<DataFrame> DataFrame::GroupBy(const std::vector<Column>& keys,
                                     const std::vector<Column>& aggregates) const {
  return With(session_->analyzer().Aggregate(plan_, Exprs(keys), Exprs(aggregates),
                                             /*include_groupings=*/true));
}

Result<DataFrame> DataFrame::OrderBy(const std::vector<Column>& orders) const {
  return With(session_->analyzer().Sort(plan_, Exprs(orders)));
}

Result<DataFrame> DataFrame::Limit(int64_t n) const {
  return With(session_->analyzer().Limit(plan_, n));
}

Result<DataFrame> DataFrame::DropDuplicates(const std::vector<std::string>& columns) const {
  return With(session_->analyzer().Deduplicate(plan_, columns));
}

Result<DataFrame> DataFrame::DropDuplicatesWithinWatermark(
    const std::vector<std::string>& columns) const {
  return With(session_->analyzer().Deduplicate(plan_, columns, /*within_watermark=*/true));
}

Result<DataFrame> DataFrame::Distinct() const {
  if (!plan_->is_streaming) return DropDuplicates({});
  std::vector<plan::ExprPtr> keys;
  for (const auto& a : plan_->output) keys.push_back(plan::AttributeRef(a));
  return With(session_->analyzer().Aggregate(plan_, keys, {}, /*include_groupings=*/true));
}

Result<DataFrame> DataFrame::Union(const DataFrame& other, bool by_name,
                                   bool allow_missing_columns) const {
  return With(session_->analyzer().Union(plan_, other.plan_, by_name, allow_missing_columns));
}

Result<DataFrame> DataFrame::Join(const DataFrame& other, const Column* condition,
                                  const std::vector<std::string>& using_columns,
                                  const std::string& how) const {
  ARROW_ASSIGN_OR_RAISE(auto type, ParseJoinType(how));
  return With(session_->analyzer().Join(plan_, other.plan_, type,
                                        condition ? condition->expr() : nullptr, using_columns));
}

Result<std::shared_ptr<arrow::Table>> DataFrame::ToTable(
    std::map<std::string, ObservedMetrics>* observed) const {
  if (plan_->is_streaming) {
    return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_3102",
                     "Queries with streaming sources must be executed with writeStream.start();",
                     "");
  }
  exec::ExecOptions options;
  options.eval = session_->eval_context();
  options.max_batch_rows = exec::BatchSizeFromEnvironment();
  std::map<std::string, ObservedMetrics> metrics;
  std::mutex mutex;
  options.metrics_observer = [&](const plan::LogicalPlan& node, std::shared_ptr<arrow::RecordBatch> row) {
    std::lock_guard<std::mutex> lock(mutex);
    metrics[node.alias] = ObservedMetrics{std::move(row), node.observation_id};
  };
  ARROW_ASSIGN_OR_RAISE(auto table, exec::Execute(plan_, options));
  if (!metrics.empty()) session_->RecordObservedMetrics(metrics);
  if (observed) *observed = std::move(metrics);
  return table;
}

arrow::Status DataFrame::Save(const std::string& format, const std::optional<std::string>& path,
                             const std::map<std::string, std::string>& options,
                             const std::string& mode,
                             const std::vector<std::string>& partition_by) const {
  auto option = options.find("path");
  std::vector<std::string> paths;
  if (path) paths.push_back(*path);
  if (option != options.end() && !(path && session_->GetConf("spark.sql.legacy.pathOptionBehavior.enabled", "false") == "true")) {
    if (path) {
      return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1307",
                       "There is a 'path' option set and save() is called with a path parameter. "
                       "Either remove the path option, or call save() without the parameter. To "
                       "ignore this check, set 'spark.sql.legacy.pathOptionBehavior.enabled' to "
                       "'true'.",
                       "");
    }
    paths.push_back(option->second);
  }
  if (paths.size() != 1) {
    return UserError(ErrorKind::kIllegalArgument, "_LEGACY_ERROR_TEMP_2050",
                     "Expected exactly one path to be specified, but got: .", "");
  }
  return WriteFiles(format.empty() ? session_->GetConf("spark.sql.sources.default", "parquet") : format,
                    paths[0], mode, partition_by);
}

arrow::Status DataFrame::WriteFiles(const std::string& format, const std::string& path,
                                    const std::string& mode,
                                    const std::vector<std::string>& partition_by) const {
  namespace fs = std::filesystem;
  std::string lower = format;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  if (lower != "parquet" && lower != "json" && lower != "csv") {
    return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                     "The feature is not supported: writing the data source '" + format +
                         "' to a path is not supported by Ember yet.",
                     "0A000");
  }
  std::error_code ec;
  bool exists = fs::exists(path, ec);
  if (exists && (mode == "error" || mode == "errorifexists")) {
    return UserError(ErrorKind::kAnalysis, "PATH_ALREADY_EXISTS",
                     "Path file:" + fs::absolute(path).string() +
                         " already exists. Set mode as \"overwrite\" to overwrite the existing path.",
                     "42K04");
  }
  if (exists && mode == "ignore") return arrow::Status::OK();
  if (mode != "error" && mode != "errorifexists" && mode != "overwrite" && mode != "append" &&
      mode != "ignore") {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Unknown save mode: " + mode +
                         ". Accepted save modes are 'overwrite', 'append', 'ignore', 'error', "
                         "'errorifexists', 'default'.",
                     "");
  }
  ARROW_ASSIGN_OR_RAISE(auto rows, ToTable());
  if (mode == "overwrite") fs::remove_all(path, ec);
  fs::create_directories(path, ec);
  ARROW_RETURN_NOT_OK(io::WritePartFiles(lower, rows, path, partition_by, NewUuid(),
                                         session_->eval_context())
                          .status());
  std::string marker = (fs::path(path) / "_SUCCESS").string();
  std::ofstream out(marker);
  out.close();
  if (!out) return FileWriteFailed(marker, errno);
  return arrow::Status::OK();
}

Result<int64_t> DataFrame::Count() const {
  ARROW_ASSIGN_OR_RAISE(auto counted,
                        session_->analyzer().Aggregate(
                            plan_, {}, {plan::Alias(plan::Call("count", {plan::Star()}), "count")},
                            false));
  ARROW_ASSIGN_OR_RAISE(auto table, DataFrame(session_, counted).ToTable());
  ARROW_ASSIGN_OR_RAISE(auto scalar, table->column(0)->GetScalar(0));
  return static_cast<const arrow::Int64Scalar&>(*scalar).value;
}

std::string DataFrame::Explain() const { return plan::PlanToString(*plan_); }

}  // namespace ember
