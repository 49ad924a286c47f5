// Relations of a Connect plan to DataFrames: one function per relation kind, dispatched in
// Translator::Relation.
#include <algorithm>
#include <cctype>

#include <arrow/array.h>
#include <arrow/array/util.h>
#include <arrow/builder.h>
#include <arrow/compute/cast.h>
#include <arrow/table.h>

#include "ember/connect/arrow_ipc.h"
#include "ember/connect/data_types.h"
#include "ember/connect/errors.h"
#include "ember/plan/type_names.h"
#include "ember/connect/sessions.h"
#include "ember/connect/streaming.h"
#include "ember/connect/translator.h"
#include "ember/error.h"
#include "ember/session.h"
#include "ember/streaming.h"
#include "ember/user_function.h"
#include "spark/connect/catalog.pb.h"
#include "spark/connect/relations.pb.h"

namespace ember::connect {

namespace pb = spark::connect;
using arrow::Result;

namespace {

Result<std::vector<Column>> Columns(const Translator& t,
                                    const google::protobuf::RepeatedPtrField<pb::Expression>& in) {
  std::vector<Column> columns;
  columns.reserve(in.size());
  for (const auto& e : in) {
    ARROW_ASSIGN_OR_RAISE(auto c, t.Expression(e));
    columns.push_back(std::move(c));
  }
  return columns;
}

// applyInPandasWithState's state, timeout and output mode, checked as Spark's
// RelationalGroupedDataset checks them.
Result<std::shared_ptr<const GroupStateSpec>> GroupState(const pb::ApplyInPandasWithState& apply) {
  auto state = std::make_shared<GroupStateSpec>();
  ARROW_ASSIGN_OR_RAISE(state->type, plan::ParseSchemaString(apply.state_schema()));
  std::string mode = apply.output_mode();
  std::transform(mode.begin(), mode.end(), mode.begin(), [](unsigned char c) { return std::tolower(c); });
  if (mode != "append" && mode != "update" && mode != "complete") {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Unknown output mode " + apply.output_mode() +
                         ". Accepted output modes are 'append', 'complete', 'update'");
  }
  if (mode == "complete") {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "The output mode of function should be append or update");
  }
  state->output_mode = mode;
  std::string timeout = apply.timeout_conf();
  std::transform(timeout.begin(), timeout.end(), timeout.begin(), [](unsigned char c) { return std::tolower(c); });
  if (timeout == "notimeout") {
    state->timeout = "NoTimeout";
  } else if (timeout == "processingtimetimeout") {
    state->timeout = "ProcessingTimeTimeout";
  } else if (timeout == "eventtimetimeout") {
    state->timeout = "EventTimeTimeout";
  } else {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Unknown timeout conf " + apply.timeout_conf() +
                         ". Accepted timeout configurations are 'NoTimeout', "
                         "'ProcessingTimeTimeout', 'EventTimeTimeout'");
  }
  return state;
}

// The rows of a relation without an input (a select of literals): one row and no column.
Result<DataFrame> OneRow(const Translator& t) {
  ARROW_ASSIGN_OR_RAISE(auto range, t.session()->Range(0, 1, 1));
  return range.Select({});
}

Result<DataFrame> Input(const Translator& t, bool has_input, const pb::Relation& input) {
  if (!has_input) return OneRow(t);
  return t.Relation(input);
}

// Spark 3.x clients send the fields that Spark 4.0 marks deprecated (args, pos_args,
// rename_columns_map); they are read here like the ones that replace them.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
bool HasParameters(const pb::SQL& sql) {
  return sql.args_size() || sql.pos_args_size() || sql.named_arguments_size() ||
         sql.pos_arguments_size();
}

const google::protobuf::Map<std::string, std::string>& RenameMap(const pb::WithColumnsRenamed& w) {
  return w.rename_columns_map();
}
#pragma GCC diagnostic pop

Result<DataFrame> Sql(const Translator& t, const pb::SQL& sql) {
  if (HasParameters(sql)) {
    return Unsupported("parameterized SQL (spark.sql with args)");
  }
  return t.session()->Sql(sql.query());
}

Result<DataFrame> Range(const Translator& t, const pb::Range& range) {
  return t.session()->Range(range.has_start() ? range.start() : 0, range.end(), range.step());
}

// A client's rows (createDataFrame): arrow data built by the client from its inferred or given
// schema; the server renames and casts the columns to the schema, as Spark does.
Result<DataFrame> LocalRelation(const Translator& t, const pb::LocalRelation& local) {
  std::shared_ptr<arrow::Schema> schema;
  if (local.has_schema()) {
    ARROW_ASSIGN_OR_RAISE(auto type, plan::ParseSchemaString(local.schema()));
    if (type->id() == arrow::Type::STRUCT) {
      schema = arrow::schema(type->fields());
    } else {
      schema = arrow::schema({arrow::field("value", type)});
    }
  }
  std::shared_ptr<arrow::Table> table;
  if (local.has_data()) {
    ARROW_ASSIGN_OR_RAISE(table, ReadIpcStream(local.data()));
  } else if (schema) {
    ARROW_ASSIGN_OR_RAISE(table, arrow::Table::MakeEmpty(schema));
  } else {
    return UserError(ErrorKind::kAnalysis, "INVALID_SCHEMA_OR_RELATION_TYPE",
                     "A local relation needs data or a schema.", "42K09");
  }
  if (schema && schema->num_fields() != table->num_columns()) {
    return UserError(ErrorKind::kAnalysis, "AXIS_LENGTH_MISMATCH",
                     "Length mismatch: Expected axis has " +
                         std::to_string(schema->num_fields()) + " elements, new values have " +
                         std::to_string(table->num_columns()) + " elements.",
                     "");
  }
  arrow::FieldVector fields;
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  for (int i = 0; i < table->num_columns(); ++i) {
    auto field = schema ? schema->field(i) : table->schema()->field(i);
    auto type = schema ? field->type() : EngineType(field->type());
    if (!type) return Unsupported("local data of type " + field->type()->ToString());
    auto column = table->column(i);
    if (!column->type()->Equals(*type)) {
      ARROW_ASSIGN_OR_RAISE(auto cast, arrow::compute::Cast(column, type));
      column = cast.chunked_array();
    }
    fields.push_back(arrow::field(field->name(), type, field->nullable()));
    columns.push_back(std::move(column));
  }
  return t.session()->FromArrow(
      arrow::Table::Make(arrow::schema(std::move(fields)), std::move(columns), table->num_rows()));
}

Result<DataFrame> Project(const Translator& t, const pb::Project& project) {
  ARROW_ASSIGN_OR_RAISE(auto input, Input(t, project.has_input(), project.input()));
  ARROW_ASSIGN_OR_RAISE(auto columns, Columns(t, project.expressions()));
  return input.Select(columns);
}

Result<DataFrame> Filter(const Translator& t, const pb::Filter& filter) {
  ARROW_ASSIGN_OR_RAISE(auto input, t.Relation(filter.input()));
  ARROW_ASSIGN_OR_RAISE(auto condition, t.Expression(filter.condition()));
  return input.Filter(condition);
}

Result<DataFrame> Sort(const Translator& t, const pb::Sort& sort) {
  ARROW_ASSIGN_OR_RAISE(auto input, t.Relation(sort.input()));
  std::vector<Column> orders;
  for (const auto& order : sort.order()) {
    pb::Expression expression;
    *expression.mutable_sort_order() = order;
    ARROW_ASSIGN_OR_RAISE(auto column, t.Expression(expression));
    orders.push_back(std::move(column));
  }
  return input.OrderBy(orders);
}

Result<DataFrame> Limit(const Translator& t, const pb::Limit& limit) {
  ARROW_ASSIGN_OR_RAISE(auto input, t.Relation(limit.input()));
  return input.Limit(limit.limit());
}

Result<DataFrame> Aggregate(const Translator& t, const pb::Aggregate& aggregate) {
  if (aggregate.group_type() != pb::Aggregate::GROUP_TYPE_GROUPBY) {
    return Unsupported("aggregate of group type " +
                       pb::Aggregate::GroupType_Name(aggregate.group_type()));
  }
  ARROW_ASSIGN_OR_RAISE(auto input, t.Relation(aggregate.input()));
  ARROW_ASSIGN_OR_RAISE(auto keys, Columns(t, aggregate.grouping_expressions()));
  ARROW_ASSIGN_OR_RAISE(auto aggregates, Columns(t, aggregate.aggregate_expressions()));
  return input.GroupBy(keys, aggregates);
}

// df.stat.corr / cov (Pearson only), df.approxQuantile: one row, as Spark's server answers,
// computed by the aggregates corr, covar_samp and percentile_approx.
Result<DataFrame> StatPair(const Translator& t, const pb::Relation& input, const std::string& col1,
                           const std::string& col2, const std::string& aggregate,
                           const std::string& name) {
  ARROW_ASSIGN_OR_RAISE(auto df, t.Relation(input));
  auto value = Call(aggregate, {Col("`" + col1 + "`").Cast(arrow::float64()),
                                Col("`" + col2 + "`").Cast(arrow::float64())});
  return df.GroupBy({}, {value.Alias(name)});
}

Result<DataFrame> StatCorr(const Translator& t, const pb::StatCorr& corr) {
  if (corr.has_method() && corr.method() != "pearson") {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "requirement failed: Currently only the calculation of the Pearson "
                     "Correlation coefficient is supported.");
  }
  return StatPair(t, corr.input(), corr.col1(), corr.col2(), "corr", "corr");
}

Result<DataFrame> StatApproxQuantile(const Translator& t, const pb::StatApproxQuantile& quantile) {
  ARROW_ASSIGN_OR_RAISE(auto df, t.Relation(quantile.input()));
  if (quantile.relative_error() < 0) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "requirement failed: Relative Error must be non-negative but got " +
                         std::to_string(quantile.relative_error()));
  }
  std::vector<Column> probabilities;
  for (double p : quantile.probabilities()) probabilities.push_back(Lit(arrow::MakeScalar(p)));
  auto percentages = Call("array", probabilities);
  std::vector<Column> per_column;
  for (const auto& name : quantile.cols()) {
    per_column.push_back(
        Call("percentile_approx", {Col("`" + name + "`").Cast(arrow::float64()), percentages}));
  }
  return df.GroupBy({}, {Call("array", per_column).Alias("approx_quantile")});
}

Result<DataFrame> ShowStringRelation(const Translator& t, const pb::ShowString& show) {
  ARROW_ASSIGN_OR_RAISE(auto input, t.Relation(show.input()));
  ARROW_ASSIGN_OR_RAISE(auto text,
                        ShowString(input, show.num_rows(), show.truncate(), show.vertical()));
  arrow::StringBuilder builder;
  ARROW_RETURN_NOT_OK(builder.Append(text));
  ARROW_ASSIGN_OR_RAISE(auto array, builder.Finish());
  return t.session()->FromArrow(arrow::Table::Make(
      arrow::schema({arrow::field("show_string", arrow::utf8(), false)}), {array}));
}

Result<DataFrame> ToDf(const Translator& t, const pb::ToDF& to_df) {
  ARROW_ASSIGN_OR_RAISE(auto input, t.Relation(to_df.input()));
  auto schema = input.schema();
  if (to_df.column_names_size() != schema->num_fields()) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "requirement failed: The number of columns doesn't match.\nOld column "
                     "names (" + std::to_string(schema->num_fields()) + ")\nNew column names (" +
                         std::to_string(to_df.column_names_size()) + ")");
  }
  std::vector<Column> columns;
  for (int i = 0; i < schema->num_fields(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto column, input["`" + schema->field(i)->name() + "`"]);
    columns.push_back(column.Alias(to_df.column_names(i)));
  }
  return input.Select(columns);
}

Result<DataFrame> WithColumns(const Translator& t, const pb::WithColumns& with) {
  ARROW_ASSIGN_OR_RAISE(auto input, t.Relation(with.input()));
  std::vector<std::string> names;
  std::vector<Column> columns;
  for (const auto& alias : with.aliases()) {
    if (alias.name_size() != 1) return Unsupported("withColumns with a multi-part name");
    ARROW_ASSIGN_OR_RAISE(auto column, t.Expression(alias.expr()));
    names.push_back(alias.name(0));
    columns.push_back(std::move(column));
  }
  return input.WithColumns(names, columns);
}

Result<DataFrame> WithColumnsRenamed(const Translator& t, const pb::WithColumnsRenamed& with) {
  ARROW_ASSIGN_OR_RAISE(auto input, t.Relation(with.input()));
  std::vector<std::pair<std::string, std::string>> renames;
  for (const auto& [from, to] : RenameMap(with)) renames.emplace_back(from, to);
  for (const auto& rename : with.renames()) {
    renames.emplace_back(rename.col_name(), rename.new_col_name());
  }
  return input.WithColumnsRenamed(renames);
}

Result<DataFrame> Drop(const Translator& t, const pb::Drop& drop) {
  ARROW_ASSIGN_OR_RAISE(auto input, t.Relation(drop.input()));
  ARROW_ASSIGN_OR_RAISE(auto columns, Columns(t, drop.columns()));
  for (const auto& name : drop.column_names()) columns.push_back(Col("`" + name + "`"));
  return input.Drop(columns);
}

Result<DataFrame> Deduplicate(const Translator& t, const pb::Deduplicate& dedup) {
  ARROW_ASSIGN_OR_RAISE(auto input, t.Relation(dedup.input()));
  std::vector<std::string> names(dedup.column_names().begin(), dedup.column_names().end());
  if (dedup.within_watermark()) return input.DropDuplicatesWithinWatermark(names);
  return input.DropDuplicates(dedup.all_columns_as_keys() ? std::vector<std::string>{} : names);
}

Result<DataFrame> SubqueryAlias(const Translator& t, const pb::SubqueryAlias& alias) {
  ARROW_ASSIGN_OR_RAISE(auto input, t.Relation(alias.input()));
  return input.Alias(alias.alias());
}

Result<DataFrame> Join(const Translator& t, const pb::Join& join) {
  ARROW_ASSIGN_OR_RAISE(auto left, t.Relation(join.left()));
  ARROW_ASSIGN_OR_RAISE(auto right, t.Relation(join.right()));
  std::string how;
  switch (join.join_type()) {
    case pb::Join::JOIN_TYPE_UNSPECIFIED:
    case pb::Join::JOIN_TYPE_INNER: how = "inner"; break;
    case pb::Join::JOIN_TYPE_FULL_OUTER: how = "full"; break;
    case pb::Join::JOIN_TYPE_LEFT_OUTER: how = "left"; break;
    case pb::Join::JOIN_TYPE_RIGHT_OUTER: how = "right"; break;
    case pb::Join::JOIN_TYPE_LEFT_ANTI: how = "left_anti"; break;
    case pb::Join::JOIN_TYPE_LEFT_SEMI: how = "left_semi"; break;
    case pb::Join::JOIN_TYPE_CROSS: how = "cross"; break;
    default: return Unsupported("join of type " + pb::Join::JoinType_Name(join.join_type()));
  }
  std::vector<std::string> using_columns(join.using_columns().begin(), join.using_columns().end());
  if (!join.has_join_condition()) return left.Join(right, nullptr, using_columns, how);
  ARROW_ASSIGN_OR_RAISE(auto condition, t.Expression(join.join_condition()));
  return left.Join(right, &condition, using_columns, how);
}

// union, unionAll and unionByName; Spark's DataFrame union keeps duplicates (is_all).
Result<DataFrame> SetOperation(const Translator& t, const pb::SetOperation& op) {
  if (op.set_op_type() != pb::SetOperation::SET_OP_TYPE_UNION) {
    return Unsupported("set operation " + pb::SetOperation::SetOpType_Name(op.set_op_type()));
  }
  ARROW_ASSIGN_OR_RAISE(auto left, t.Relation(op.left_input()));
  ARROW_ASSIGN_OR_RAISE(auto right, t.Relation(op.right_input()));
  ARROW_ASSIGN_OR_RAISE(auto all, left.Union(right, op.by_name(), op.allow_missing_columns()));
  if (op.has_is_all() && !op.is_all()) return all.Distinct();
  return all;
}

Result<DataFrame> WithWatermark(const Translator& t, const pb::WithWatermark& watermark) {
  ARROW_ASSIGN_OR_RAISE(auto input, t.Relation(watermark.input()));
  return input.WithWatermark(watermark.event_time(), watermark.delay_threshold());
}

// df.observe(name, metrics): an action sends the metrics after its rows (execute.cc); the
// relation's plan id is the observation's (Spark's dataframeId).
Result<DataFrame> CollectMetrics(const Translator& t, const pb::Relation& relation) {
  const auto& collect = relation.collect_metrics();
  ARROW_ASSIGN_OR_RAISE(auto input, t.Relation(collect.input()));
  ARROW_ASSIGN_OR_RAISE(auto metrics, Columns(t, collect.metrics()));
  const bool has_id = relation.has_common() && relation.common().has_plan_id();
  return input.Observe(collect.name(), metrics, has_id ? relation.common().plan_id() : -1);
}

// Hints and repartitioning leave the rows as they are: Ember plans one machine's work itself.
Result<DataFrame> SameRows(const Translator& t, const pb::Relation& input) {
  return t.Relation(input);
}

// A read's schema as the user gave it (`.schema(...)`), or null.
Result<std::shared_ptr<arrow::Schema>> UserSchema(const pb::Read::DataSource& source) {
  if (!source.has_schema() || source.schema().empty()) return nullptr;
  ARROW_ASSIGN_OR_RAISE(auto type, plan::ParseSchemaString(source.schema()));
  return arrow::schema(type->fields());
}

// spark.readStream: a stream from any source Ember registers; a table name reads an Iceberg
// table's appended snapshots or a session-catalog table's files.
Result<DataFrame> ReadStream(const Translator& t, const pb::Read& read) {
  if (read.has_named_table()) {
    const auto& table = read.named_table();
    std::map<std::string, std::string> options(table.options().begin(), table.options().end());
    return ember::ReadStreamTable(t.session(), table.unparsed_identifier(), options);
  }
  const auto& source = read.data_source();
  ARROW_ASSIGN_OR_RAISE(auto schema, UserSchema(source));
  std::map<std::string, std::string> options(source.options().begin(), source.options().end());
  if (source.paths_size() > 1) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "requirement failed: multiple paths are not supported for a streaming "
                     "source");
  }
  std::string path = source.paths_size() ? source.paths(0) : "";
  if (path.empty()) {
    if (auto it = options.find("path"); it != options.end()) path = it->second;
  }
  std::string format = source.has_format()
                           ? source.format()
                           : t.session()->GetConf("spark.sql.sources.default", "parquet");
  return ember::ReadStream(t.session(), format, path, schema, options);
}

Result<DataFrame> Read(const Translator& t, const pb::Read& read) {
  if (read.is_streaming()) return ReadStream(t, read);
  if (read.has_named_table()) return t.session()->Table(read.named_table().unparsed_identifier());
  const auto& source = read.data_source();
  ARROW_ASSIGN_OR_RAISE(auto schema, UserSchema(source));
  std::map<std::string, std::string> options(source.options().begin(), source.options().end());
  std::vector<std::string> paths(source.paths().begin(), source.paths().end());
  if (paths.empty()) {
    if (auto path = options.find("path"); path != options.end()) paths.push_back(path->second);
  }
  std::string format = source.has_format() ? source.format() : "parquet";
  return t.session()->ReadFiles(format, paths, schema, options);
}

// spark.catalog's calls that Ember answers, each a DataFrame of one value as Spark's server
// gives it (the client reads its first cell).
Result<DataFrame> Catalog(const Translator& t, const pb::Catalog& catalog) {
  auto one = [&](std::shared_ptr<arrow::Scalar> value) -> Result<DataFrame> {
    ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*value, 1));
    return t.session()->FromArrow(
        arrow::Table::Make(arrow::schema({arrow::field("value", value->type)}), {array}));
  };
  switch (catalog.cat_type_case()) {
    case pb::Catalog::kDropTempView:
      return one(std::make_shared<arrow::BooleanScalar>(
          t.session()->DropTempView(catalog.drop_temp_view().view_name())));
    case pb::Catalog::kDropGlobalTempView:  // Ember has no global temporary views
      return one(std::make_shared<arrow::BooleanScalar>(false));
    case pb::Catalog::kCurrentDatabase:
      return one(std::make_shared<arrow::StringScalar>(t.session()->current_database()));
    case pb::Catalog::kCurrentCatalog:
      return one(std::make_shared<arrow::StringScalar>("spark_catalog"));
    default: {
      const auto* field = pb::Catalog::descriptor()->FindFieldByNumber(catalog.cat_type_case());
      return Unsupported("spark.catalog's `" + (field ? field->name() : std::string("?")) + "`");
    }
  }
}

}  // namespace

Translator::Translator(const ConnectSession& session)
    : session_(session.session()), streams_(&session.streams()), python_(session.python()) {}

Result<DataFrame> Translator::Relation(const pb::Relation& relation) const {
  Result<DataFrame> df = [&]() -> Result<DataFrame> {
    switch (relation.rel_type_case()) {
      case pb::Relation::kSql: return Sql(*this, relation.sql());
      case pb::Relation::kRange: return Range(*this, relation.range());
      case pb::Relation::kLocalRelation: return LocalRelation(*this, relation.local_relation());
      case pb::Relation::kProject: return Project(*this, relation.project());
      case pb::Relation::kFilter: return Filter(*this, relation.filter());
      case pb::Relation::kSort: return Sort(*this, relation.sort());
      case pb::Relation::kLimit: return Limit(*this, relation.limit());
      case pb::Relation::kAggregate: return Aggregate(*this, relation.aggregate());
      case pb::Relation::kShowString: return ShowStringRelation(*this, relation.show_string());
      case pb::Relation::kCorr: return StatCorr(*this, relation.corr());
      case pb::Relation::kCov: {
        const auto& cov = relation.cov();
        return StatPair(*this, cov.input(), cov.col1(), cov.col2(), "covar_samp", "cov");
      }
      case pb::Relation::kApproxQuantile:
        return StatApproxQuantile(*this, relation.approx_quantile());
      case pb::Relation::kToDf: return ToDf(*this, relation.to_df());
      case pb::Relation::kWithColumns: return WithColumns(*this, relation.with_columns());
      case pb::Relation::kWithColumnsRenamed:
        return WithColumnsRenamed(*this, relation.with_columns_renamed());
      case pb::Relation::kDrop: return Drop(*this, relation.drop());
      case pb::Relation::kDeduplicate: return Deduplicate(*this, relation.deduplicate());
      case pb::Relation::kSubqueryAlias: return SubqueryAlias(*this, relation.subquery_alias());
      case pb::Relation::kRead: return Read(*this, relation.read());
      case pb::Relation::kJoin: return Join(*this, relation.join());
      case pb::Relation::kSetOp: return SetOperation(*this, relation.set_op());
      case pb::Relation::kWithWatermark: return WithWatermark(*this, relation.with_watermark());
      case pb::Relation::kCollectMetrics: return CollectMetrics(*this, relation);
      case pb::Relation::kCachedRemoteRelation:
        if (!streams_) return Unsupported("relation `cached_remote_relation` here");
        return streams_->CachedBatch(relation.cached_remote_relation().relation_id());
      case pb::Relation::kMapPartitions: {  // mapInPandas, mapInArrow
        const auto& map = relation.map_partitions();
        ARROW_ASSIGN_OR_RAISE(auto input, Relation(map.input()));
        ARROW_ASSIGN_OR_RAISE(auto function, PythonBatchFunction(map.func()));
        return input.MapBatches(std::move(function));
      }
      case pb::Relation::kGroupMap: {  // applyInPandas, applyInArrow
        const auto& map = relation.group_map();
        if (map.is_map_groups_with_state() || map.has_initial_input()) {
          return Unsupported("Scala's flatMapGroupsWithState");
        }
        ARROW_ASSIGN_OR_RAISE(auto input, Relation(map.input()));
        ARROW_ASSIGN_OR_RAISE(auto keys, Columns(*this, map.grouping_expressions()));
        ARROW_ASSIGN_OR_RAISE(auto function, PythonGroupFunction(map.func(), nullptr, false));
        return input.GroupMap(keys, std::move(function));
      }
      case pb::Relation::kCoGroupMap: {  // cogroup().applyInPandas, applyInArrow
        const auto& map = relation.co_group_map();
        ARROW_ASSIGN_OR_RAISE(auto input, Relation(map.input()));
        ARROW_ASSIGN_OR_RAISE(auto other, Relation(map.other()));
        ARROW_ASSIGN_OR_RAISE(auto keys, Columns(*this, map.input_grouping_expressions()));
        ARROW_ASSIGN_OR_RAISE(auto other_keys, Columns(*this, map.other_grouping_expressions()));
        ARROW_ASSIGN_OR_RAISE(auto function, PythonGroupFunction(map.func(), nullptr, true));
        return input.CoGroupMap(keys, other, other_keys, std::move(function));
      }
      case pb::Relation::kApplyInPandasWithState: {
        const auto& apply = relation.apply_in_pandas_with_state();
        ARROW_ASSIGN_OR_RAISE(auto input, Relation(apply.input()));
        ARROW_ASSIGN_OR_RAISE(auto keys, Columns(*this, apply.grouping_expressions()));
        ARROW_ASSIGN_OR_RAISE(auto state, GroupState(apply));
        ARROW_ASSIGN_OR_RAISE(auto function, PythonGroupFunction(apply.func(), state, false));
        return input.GroupMap(keys, std::move(function), std::move(state));
      }
      case pb::Relation::kCommonInlineUserDefinedTableFunction: {  // udtf(...)
        const auto& call = relation.common_inline_user_defined_table_function();
        ARROW_ASSIGN_OR_RAISE(auto args, Arguments(call.arguments()));
        ARROW_ASSIGN_OR_RAISE(auto function, PythonTableFunction(call));
        return session_->TableFunction(std::move(function), args.first, std::move(args.second));
      }
      case pb::Relation::kCatalog: return Catalog(*this, relation.catalog());
      case pb::Relation::kHint: return SameRows(*this, relation.hint().input());
      case pb::Relation::kRepartition: return SameRows(*this, relation.repartition().input());
      case pb::Relation::kRepartitionByExpression:
        return SameRows(*this, relation.repartition_by_expression().input());
      case pb::Relation::REL_TYPE_NOT_SET: return Unsupported("relation of no type");
      default: {
        const auto* field = pb::Relation::descriptor()->FindFieldByNumber(relation.rel_type_case());
        return Unsupported("relation `" + (field ? field->name() : std::string("?")) + "`");
      }
    }
  }();
  // Columns that name this relation by its plan id (df["a"]) bind to its output.
  if (df.ok() && relation.has_common() && relation.common().has_plan_id()) {
    frames_.insert_or_assign(relation.common().plan_id(), *df);
  }
  return df;
}

}  // namespace ember::connect
