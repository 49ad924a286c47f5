// Expressions of a Connect plan to Columns: one function per expression kind, dispatched in
// Translator::Expression.
#include <map>
#include <optional>

#include <arrow/scalar.h>
#include <arrow/type.h>
#include <arrow/util/decimal.h>

#include "ember/connect/data_types.h"
#include "ember/connect/errors.h"
#include "ember/connect/translator.h"
#include "ember/plan/expr.h"
#include "ember/plan/type_names.h"
#include "ember/sql/parser.h"
#include "ember/connect.h"
#include "ember/error.h"
#include "ember/session.h"
#include "ember/user_function.h"
#include "spark/connect/expressions.pb.h"
#include "spark/connect/relations.pb.h"

namespace ember::connect {

namespace pb = spark::connect;
using arrow::Result;

namespace {

Result<std::shared_ptr<arrow::Scalar>> LiteralValue(const pb::Expression::Literal& literal) {
  using L = pb::Expression::Literal;
  switch (literal.literal_type_case()) {
    case L::kNull: {
      ARROW_ASSIGN_OR_RAISE(auto type, FromProto(literal.null()));
      return arrow::MakeNullScalar(type);
    }
    case L::kBinary:
      return std::make_shared<arrow::BinaryScalar>(arrow::Buffer::FromString(literal.binary()));
    case L::kBoolean: return std::make_shared<arrow::BooleanScalar>(literal.boolean());
    case L::kByte: return std::make_shared<arrow::Int8Scalar>(static_cast<int8_t>(literal.byte()));
    case L::kShort:
      return std::make_shared<arrow::Int16Scalar>(static_cast<int16_t>(literal.short_()));
    case L::kInteger: return std::make_shared<arrow::Int32Scalar>(literal.integer());
    case L::kLong: return std::make_shared<arrow::Int64Scalar>(literal.long_());
    case L::kFloat: return std::make_shared<arrow::FloatScalar>(literal.float_());
    case L::kDouble: return std::make_shared<arrow::DoubleScalar>(literal.double_());
    case L::kDecimal: {
      int32_t precision = 0;
      int32_t scale = 0;
      arrow::Decimal128 value;
      ARROW_RETURN_NOT_OK(arrow::Decimal128::FromString(literal.decimal().value(), &value,
                                                        &precision, &scale));
      if (literal.decimal().has_precision()) precision = literal.decimal().precision();
      if (literal.decimal().has_scale()) {
        ARROW_ASSIGN_OR_RAISE(value, value.Rescale(scale, literal.decimal().scale()));
        scale = literal.decimal().scale();
      }
      return std::make_shared<arrow::Decimal128Scalar>(value, arrow::decimal128(precision, scale));
    }
    case L::kString: return std::make_shared<arrow::StringScalar>(literal.string());
    case L::kDate: return std::make_shared<arrow::Date32Scalar>(literal.date());
    case L::kTimestamp:
      return std::make_shared<arrow::TimestampScalar>(literal.timestamp(), plan::TimestampType());
    case L::kTimestampNtz:
      return std::make_shared<arrow::TimestampScalar>(literal.timestamp_ntz(),
                                                      arrow::timestamp(arrow::TimeUnit::MICRO));
    default: {
      const auto* field = L::descriptor()->FindFieldByNumber(literal.literal_type_case());
      return Unsupported("literal of type `" + (field ? field->name() : std::string("?")) + "`");
    }
  }
}

// Spark Connect's names for the operators the client builds, where Ember's catalog names them
// otherwise (Column.__eq__ sends "==", Spark SQL's `=`).
std::string FunctionName(const std::string& name) {
  if (name == "==") return "=";
  return name;
}

// A function call, with what Spark's analyzer adds where Ember's catalog needs it spelled out:
// window(ts, duration) slides by its duration, and the time windows are columns named
// `window` and `session_window` unless aliased.
Column FunctionCall(const std::string& name, std::vector<Column> args, bool distinct) {
  if (name == "window" && args.size() == 2) args.push_back(args[1]);
  Column call = Call(name, args, distinct);
  if (name == "window" || name == "session_window") return call.Alias(name);
  return call;
}

// s.withField("a.b", v) is s.withField("a", s.a.withField("b", v)); dropFields likewise.
Column UpdateFields(const Column& base, const std::vector<std::string>& path,
                    const std::optional<Column>& value) {
  auto name = Lit(std::make_shared<arrow::StringScalar>(path[0]));
  if (path.size() > 1) {
    std::vector<std::string> rest(path.begin() + 1, path.end());
    return Call("with_field", {base, name, UpdateFields(base.GetField(path[0]), rest, value)});
  }
  if (value) return Call("with_field", {base, name, *value});
  return Call("drop_field", {base, name});
}

}  // namespace

Result<Column> Translator::Expression(const pb::Expression& expression) const {
  using E = pb::Expression;
  switch (expression.expr_type_case()) {
    case E::kLiteral: {
      ARROW_ASSIGN_OR_RAISE(auto value, LiteralValue(expression.literal()));
      return Lit(std::move(value));
    }
    case E::kUnresolvedAttribute: {
      const auto& attribute = expression.unresolved_attribute();
      if (attribute.has_plan_id()) {
        auto frame = frames_.find(attribute.plan_id());
        if (frame != frames_.end()) return frame->second[attribute.unparsed_identifier()];
      }
      return Col(attribute.unparsed_identifier());
    }
    case E::kUnresolvedFunction: {
      const auto& function = expression.unresolved_function();
      std::vector<Column> args;
      for (const auto& arg : function.arguments()) {
        ARROW_ASSIGN_OR_RAISE(auto column, Expression(arg));
        args.push_back(std::move(column));
      }
      return FunctionCall(FunctionName(function.function_name()), std::move(args),
                          function.is_distinct());
    }
    case E::kCallFunction: {  // F.call_function: a function by the name it is known in SQL
      const auto& function = expression.call_function();
      std::vector<Column> args;
      for (const auto& arg : function.arguments()) {
        ARROW_ASSIGN_OR_RAISE(auto column, Expression(arg));
        args.push_back(std::move(column));
      }
      return FunctionCall(function.function_name(), std::move(args), false);
    }
    case E::kExpressionString: {
      ARROW_ASSIGN_OR_RAISE(auto parsed, sql::ParseExpression(expression.expression_string().expression()));
      return Column(std::move(parsed));
    }
    case E::kUnresolvedStar: {
      const auto& star = expression.unresolved_star();
      return Col(star.has_unparsed_target() ? star.unparsed_target() : "*");
    }
    case E::kAlias: {
      const auto& alias = expression.alias();
      ARROW_ASSIGN_OR_RAISE(auto child, Expression(alias.expr()));
      if (alias.name_size() != 1) {
        return Column(plan::MultiAlias(child.expr(), {alias.name().begin(), alias.name().end()}));
      }
      // A name given to a column that has its default one (a time window) replaces it.
      if (child.expr()->kind == plan::ExprKind::kAlias) child = Column(child.expr()->args[0]);
      return child.Alias(alias.name(0));
    }
    case E::kCast: {
      const auto& cast = expression.cast();
      ARROW_ASSIGN_OR_RAISE(auto child, Expression(cast.expr()));
      std::shared_ptr<arrow::DataType> type;
      if (cast.has_type()) {
        ARROW_ASSIGN_OR_RAISE(type, FromProto(cast.type()));
      } else {
        ARROW_ASSIGN_OR_RAISE(type, plan::ParseSchemaString(cast.type_str()));
      }
      return child.Cast(std::move(type), cast.eval_mode() == E::Cast::EVAL_MODE_TRY);
    }
    case E::kSortOrder: {
      const auto& order = expression.sort_order();
      ARROW_ASSIGN_OR_RAISE(auto child, Expression(order.child()));
      bool ascending = order.direction() != E::SortOrder::SORT_DIRECTION_DESCENDING;
      bool nulls_first = order.null_ordering() == E::SortOrder::SORT_NULLS_UNSPECIFIED
                             ? ascending
                             : order.null_ordering() == E::SortOrder::SORT_NULLS_FIRST;
      return child.Sort(ascending, nulls_first);
    }
    case E::kUpdateFields: {  // withField / dropFields: one level at a time along the path
      const auto& update = expression.update_fields();
      ARROW_ASSIGN_OR_RAISE(auto base, Expression(update.struct_expression()));
      std::optional<Column> value;
      if (update.has_value_expression()) {
        ARROW_ASSIGN_OR_RAISE(value, Expression(update.value_expression()));
      }
      return UpdateFields(base, plan::ColumnFromString(update.field_name())->name_parts, value);
    }
    case E::kUnresolvedExtractValue: {
      const auto& extract = expression.unresolved_extract_value();
      ARROW_ASSIGN_OR_RAISE(auto child, Expression(extract.child()));
      ARROW_ASSIGN_OR_RAISE(auto key, Expression(extract.extraction()));
      return child.GetItem(key);
    }
    case E::kLambdaFunction: {
      const auto& lambda = expression.lambda_function();
      ARROW_ASSIGN_OR_RAISE(auto body, Expression(lambda.function()));
      std::vector<std::string> names;
      for (const auto& variable : lambda.arguments()) {
        if (variable.name_parts_size() != 1) return Unsupported("a lambda variable of several names");
        names.push_back(variable.name_parts(0));
      }
      return Column(plan::Lambda(body.expr(), std::move(names)));
    }
    case E::kUnresolvedNamedLambdaVariable:
      return Column(plan::Column({expression.unresolved_named_lambda_variable().name_parts().begin(),
                                  expression.unresolved_named_lambda_variable().name_parts().end()}));
    case E::kCommonInlineUserDefinedFunction: {
      const auto& call = expression.common_inline_user_defined_function();
      ARROW_ASSIGN_OR_RAISE(auto args, Arguments(call.arguments()));
      ARROW_ASSIGN_OR_RAISE(auto function, PythonFunction(call));
      return Call(std::move(function), args.first, args.second);
    }
    case E::kWindow:
      return Window(expression.window());
    case E::EXPR_TYPE_NOT_SET: return Unsupported("expression of no type");
    default: {
      const auto* field = E::descriptor()->FindFieldByNumber(expression.expr_type_case());
      return Unsupported("expression `" + (field ? field->name() : std::string("?")) + "`");
    }
  }
}

// Column.over(Window.partitionBy(...).orderBy(...).rowsBetween(...)).
Result<Column> Translator::Window(const pb::Expression::Window& window) const {
  using Frame = pb::Expression::Window::WindowFrame;
  ARROW_ASSIGN_OR_RAISE(auto function, Expression(window.window_function()));
  std::vector<plan::ExprPtr> partitions, orders;
  for (const auto& key : window.partition_spec()) {
    ARROW_ASSIGN_OR_RAISE(auto column, Expression(key));
    partitions.push_back(column.expr());
  }
  for (const auto& order : window.order_spec()) {
    pb::Expression wrapped;
    *wrapped.mutable_sort_order() = order;
    ARROW_ASSIGN_OR_RAISE(auto column, Expression(wrapped));
    orders.push_back(column.expr());
  }
  auto spec = std::make_shared<plan::WindowSpec>();
  if (window.has_frame_spec() &&
      window.frame_spec().frame_type() != Frame::FRAME_TYPE_UNDEFINED) {
    const Frame& frame = window.frame_spec();
    spec->frame_specified = true;
    spec->frame.rows = frame.frame_type() == Frame::FRAME_TYPE_ROW;
    auto bound = [&](const Frame::FrameBoundary& b, int64_t unbounded) -> Result<int64_t> {
      if (b.has_value()) {
        const auto& value = b.value();
        if (value.has_literal() && value.literal().has_integer()) return value.literal().integer();
        if (value.has_literal() && value.literal().has_long_()) return value.literal().long_();
        return Unsupported("a window frame bound other than an integer");
      }
      return b.unbounded() ? unbounded : 0;
    };
    ARROW_ASSIGN_OR_RAISE(spec->frame.lower,
                          bound(frame.lower(), plan::WindowFrame::kUnboundedPreceding));
    ARROW_ASSIGN_OR_RAISE(spec->frame.upper,
                          bound(frame.upper(), plan::WindowFrame::kUnboundedFollowing));
  }
  // A time window's default name (an alias) does not apply inside OVER.
  plan::ExprPtr call = function.expr();
  if (call->kind == plan::ExprKind::kAlias) call = call->args[0];
  return Column(plan::WindowExpr(call, std::move(partitions), std::move(orders), std::move(spec)));
}

Result<std::pair<std::vector<Column>, std::vector<std::string>>> Translator::Arguments(
    const google::protobuf::RepeatedPtrField<pb::Expression>& arguments) const {
  std::pair<std::vector<Column>, std::vector<std::string>> out;
  for (const auto& arg : arguments) {
    // f(v, w=col): the client sends `w => col`.
    const bool named = arg.has_named_argument_expression();
    out.second.push_back(named ? arg.named_argument_expression().key() : "");
    ARROW_ASSIGN_OR_RAISE(auto column,
                          Expression(named ? arg.named_argument_expression().value() : arg));
    out.first.push_back(std::move(column));
  }
  return out;
}

// Spark's runner conf for the Python functions, with its defaults, as the plan is translated.
std::map<std::string, std::string> Translator::RunnerConf() const {
  std::map<std::string, std::string> conf;
  for (const auto& [key, fallback] :
       {std::pair<std::string, std::string>{"spark.sql.execution.pandas.convertToArrowArraySafely", "false"},
        {"spark.sql.legacy.execution.pandas.groupedMap.assignColumnsByName", "true"},
        {"spark.sql.session.timeZone", "UTC"},
        {"spark.sql.execution.arrow.maxRecordsPerBatch", "10000"}}) {
    conf[key] = session_->GetConf(key, fallback);
  }
  return conf;
}

// Spark's PythonEvalType values that run here: a function of rows, pickled (SQL_BATCHED_UDF) or
// Arrow-optimized (SQL_ARROW_BATCHED_UDF), a scalar pandas_udf of Series
// (SQL_SCALAR_PANDAS_UDF) or of an iterator of them (SQL_SCALAR_PANDAS_ITER_UDF), and a
// grouped-aggregate pandas_udf (SQL_GROUPED_AGG_PANDAS_UDF).
constexpr int32_t kBatchedUdf = 100;
constexpr int32_t kArrowBatchedUdf = 101;
constexpr int32_t kScalarPandasUdf = 200;
constexpr int32_t kGroupedAggPandasUdf = 202;
constexpr int32_t kScalarPandasIterUdf = 204;

Result<std::shared_ptr<const UserFunction>> Translator::PythonFunction(
    const pb::CommonInlineUserDefinedFunction& call) const {
  if (!call.has_python_udf()) return Unsupported("a user-defined function that is not Python's");
  const pb::PythonUDF& udf = call.python_udf();
  const int32_t eval_type = udf.eval_type();
  if (eval_type != kBatchedUdf && eval_type != kArrowBatchedUdf && eval_type != kScalarPandasUdf &&
      eval_type != kScalarPandasIterUdf && eval_type != kGroupedAggPandasUdf) {
    return Unsupported("a Python UDF of eval type " + std::to_string(eval_type));
  }
  if (!python_) return Unsupported("Python UDFs on a server outside a Python process");
  ARROW_ASSIGN_OR_RAISE(auto return_type, FromProto(udf.output_type()));
  std::string key = call.function_name() + '\0' + std::to_string(eval_type) + '\0' +
                    (call.deterministic() ? "d" : "n") + udf.command();
  auto& function = functions_[key];
  if (!function) {
    auto made = std::make_shared<UserFunction>();
    made->name = call.function_name();
    made->return_type = return_type;
    made->deterministic = call.deterministic();
    if (eval_type == kGroupedAggPandasUdf) {
      made->aggregate = [python = python_, command = udf.command(), eval_type, return_type,
                         conf = RunnerConf()](const GroupedRows& groups,
                                              const std::vector<std::string>& keywords) {
        return python->AggregateGroups(command, eval_type, return_type, keywords, conf, groups);
      };
    } else {
      made->call = [python = python_, command = udf.command(), eval_type, return_type,
                    conf = RunnerConf()](const std::vector<std::shared_ptr<arrow::Array>>& args,
                                         int64_t length, const std::vector<std::string>& keywords) {
        return python->CallFunction(command, eval_type, return_type, keywords, conf, args, length);
      };
    }
    function = std::move(made);
  }
  return function;
}

// mapInPandas (SQL_MAP_PANDAS_ITER_UDF) and mapInArrow (SQL_MAP_ARROW_ITER_UDF).
constexpr int32_t kMapPandasIterUdf = 205;
constexpr int32_t kMapArrowIterUdf = 207;

Result<std::shared_ptr<const UserBatchFunction>> Translator::PythonBatchFunction(
    const pb::CommonInlineUserDefinedFunction& call) const {
  if (!call.has_python_udf()) return Unsupported("a user-defined function that is not Python's");
  const pb::PythonUDF& udf = call.python_udf();
  const int32_t eval_type = udf.eval_type();
  if (eval_type != kMapPandasIterUdf && eval_type != kMapArrowIterUdf) {
    return Unsupported("a Python function of eval type " + std::to_string(eval_type) +
                       " over partitions");
  }
  if (!python_) return Unsupported("Python functions on a server outside a Python process");
  ARROW_ASSIGN_OR_RAISE(auto type, FromProto(udf.output_type()));
  auto function = std::make_shared<UserBatchFunction>();
  function->name = call.function_name();
  function->output_schema = arrow::schema(type->fields());
  function->call = [python = python_, command = udf.command(), eval_type,
                    schema = function->output_schema, conf = RunnerConf()](
                       const std::shared_ptr<arrow::RecordBatch>& batch) {
    return python->MapBatch(command, eval_type, schema, conf, batch);
  };
  return function;
}

// applyInPandas (SQL_GROUPED_MAP_PANDAS_UDF), applyInArrow (SQL_GROUPED_MAP_ARROW_UDF),
// applyInPandasWithState (SQL_GROUPED_MAP_PANDAS_UDF_WITH_STATE) and cogroup's
// (SQL_COGROUPED_MAP_PANDAS_UDF, SQL_COGROUPED_MAP_ARROW_UDF).
constexpr int32_t kGroupedMapPandasUdf = 201;
constexpr int32_t kCoGroupedMapPandasUdf = 206;
constexpr int32_t kGroupedMapPandasUdfWithState = 208;
constexpr int32_t kGroupedMapArrowUdf = 209;
constexpr int32_t kCoGroupedMapArrowUdf = 210;

Result<std::shared_ptr<const UserGroupFunction>> Translator::PythonGroupFunction(
    const pb::CommonInlineUserDefinedFunction& call,
    const std::shared_ptr<const GroupStateSpec>& state, bool cogroup) const {
  if (!call.has_python_udf()) return Unsupported("a user-defined function that is not Python's");
  const pb::PythonUDF& udf = call.python_udf();
  const int32_t eval_type = udf.eval_type();
  const bool fits = state     ? eval_type == kGroupedMapPandasUdfWithState
                    : cogroup ? eval_type == kCoGroupedMapPandasUdf || eval_type == kCoGroupedMapArrowUdf
                              : eval_type == kGroupedMapPandasUdf || eval_type == kGroupedMapArrowUdf;
  if (!fits) {
    return Unsupported("a Python function of eval type " + std::to_string(eval_type) +
                       " over groups");
  }
  if (!python_) return Unsupported("Python functions on a server outside a Python process");
  ARROW_ASSIGN_OR_RAISE(auto type, FromProto(udf.output_type()));
  auto function = std::make_shared<UserGroupFunction>();
  function->name = call.function_name();
  function->output_schema = arrow::schema(type->fields());
  function->call = [python = python_, command = udf.command(), eval_type,
                    schema = function->output_schema, state, conf = RunnerConf()](
                       const GroupedRows& groups) {
    return python->ApplyToGroups(command, eval_type, schema, state.get(), conf, groups);
  };
  return function;
}

// A Python UDTF, pickled (SQL_TABLE_UDF) or Arrow-optimized (SQL_ARROW_TABLE_UDF).
constexpr int32_t kTableUdf = 300;
constexpr int32_t kArrowTableUdf = 301;

Result<std::shared_ptr<const UserTableFunction>> Translator::PythonTableFunction(
    const pb::CommonInlineUserDefinedTableFunction& call) const {
  if (!call.has_python_udtf()) return Unsupported("a table function that is not Python's");
  const pb::PythonUDTF& udtf = call.python_udtf();
  const int32_t eval_type = udtf.eval_type();
  if (eval_type != kTableUdf && eval_type != kArrowTableUdf) {
    return Unsupported("a Python table function of eval type " + std::to_string(eval_type));
  }
  if (!python_) return Unsupported("Python UDTFs on a server outside a Python process");
  // The function once its columns are known; `analyzed`: its analyze()'s pickled result.
  auto bind = [python = python_, command = udtf.command(), eval_type, name = call.function_name(),
               deterministic = call.deterministic(),
               conf = RunnerConf()](std::shared_ptr<arrow::Schema> schema, std::string analyzed) {
    auto function = std::make_shared<UserTableFunction>();
    function->name = name;
    function->deterministic = deterministic;
    function->output_schema = schema;
    function->call = [python, command, eval_type, schema, analyzed,
                      conf](const std::shared_ptr<arrow::RecordBatch>& args) {
      return python->CallTableFunction(command, eval_type, schema, analyzed, conf, args);
    };
    return function;
  };
  if (udtf.has_return_type()) {
    ARROW_ASSIGN_OR_RAISE(auto type, FromProto(udtf.return_type()));
    if (type->id() != arrow::Type::STRUCT) {
      return UserError(ErrorKind::kInvalidPlanInput, "",
                       "Invalid Python user-defined table function return type. Expect a "
                       "struct type, but got " + plan::SparkTypeName(*type, false) + ".");
    }
    return bind(arrow::schema(type->fields()), "");
  }
  // No return type: the class's static analyze() names the columns, given the arguments.
  auto function = std::make_shared<UserTableFunction>();
  function->name = call.function_name();
  function->deterministic = call.deterministic();
  function->analyze = [python = python_, command = udtf.command(), bind](
                          const std::vector<TableFunctionArgument>& args)
      -> Result<std::shared_ptr<const UserTableFunction>> {
    ARROW_ASSIGN_OR_RAISE(auto analyzed, python->AnalyzeTableFunction(command, args));
    pb::DataType proto;
    if (!proto.ParseFromString(analyzed.schema)) {
      return arrow::Status::Invalid("analyze() of a table function gave an unreadable schema");
    }
    ARROW_ASSIGN_OR_RAISE(auto type, FromProto(proto));
    auto function = bind(arrow::schema(type->fields()), std::move(analyzed.pickled));
    // Its requests of a table argument's rows, SQL expressions over the table's columns.
    TableArgumentRequest& request = function->table_request;
    request.single_partition = analyzed.single_partition;
    for (const auto& text : analyzed.partition_by) {
      ARROW_ASSIGN_OR_RAISE(auto key, sql::ParseExpression(text));
      request.partition_by.push_back(std::move(key));
    }
    for (const auto& order : analyzed.order_by) {
      ARROW_ASSIGN_OR_RAISE(auto key, sql::ParseExpression(order.expression));
      const bool nulls_first = order.nulls == 0 ? order.ascending : order.nulls == 1;
      request.order_by.push_back(plan::SortOrder(std::move(key), order.ascending, nulls_first));
    }
    for (const auto& [text, alias] : analyzed.select) {
      ARROW_ASSIGN_OR_RAISE(auto column, sql::ParseExpression(text));
      request.select.push_back(alias.empty() ? column : plan::Alias(std::move(column), alias));
    }
    return std::shared_ptr<const UserTableFunction>(std::move(function));
  };
  return function;
}

arrow::Status Translator::RegisterTableFunction(
    const pb::CommonInlineUserDefinedTableFunction& call) const {
  ARROW_ASSIGN_OR_RAISE(auto function, PythonTableFunction(call));
  session_->RegisterTableFunction(call.function_name(), std::move(function));
  return arrow::Status::OK();
}

arrow::Status Translator::RegisterDataSource(
    const pb::CommonInlineUserDefinedDataSource& source) const {
  if (!source.has_python_data_source()) return Unsupported("a data source that is not Python's");
  if (!python_) return Unsupported("Python data sources on a server outside a Python process");
  auto made = std::make_shared<UserDataSource>();
  made->name = source.name();
  const std::string& command = source.python_data_source().command();
  made->schema = [python = python_, command](const std::map<std::string, std::string>& options)
      -> Result<std::shared_ptr<arrow::Schema>> {
    ARROW_ASSIGN_OR_RAISE(auto text, python->DataSourceSchema(command, options));
    ARROW_ASSIGN_OR_RAISE(auto type, plan::ParseSchemaString(text));
    return arrow::schema(type->fields());
  };
  made->read = [python = python_, command](const std::shared_ptr<arrow::Schema>& schema,
                                           const std::map<std::string, std::string>& options) {
    return python->ReadDataSource(command, schema, options);
  };
  made->open_stream = [python = python_, command](const std::shared_ptr<arrow::Schema>& schema,
                                                  const std::map<std::string, std::string>& options) {
    return python->OpenStreamReader(command, schema, options);
  };
  made->write = [python = python_, command](const std::shared_ptr<arrow::Table>& rows,
                                            const std::map<std::string, std::string>& options,
                                            bool overwrite, int64_t batch_id) {
    return python->WriteDataSource(command, options, overwrite, batch_id, rows);
  };
  session_->RegisterDataSource(std::move(made));
  return arrow::Status::OK();
}

arrow::Status Translator::RegisterFunction(const pb::CommonInlineUserDefinedFunction& call) const {
  ARROW_ASSIGN_OR_RAISE(auto function, PythonFunction(call));
  session_->RegisterFunction(call.function_name(), std::move(function));
  return arrow::Status::OK();
}

}  // namespace ember::connect
