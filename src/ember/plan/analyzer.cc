#include "ember/plan/analyzer.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include <arrow/builder.h>
#include <arrow/scalar.h>
#include <arrow/table.h>
#include <arrow/type.h>

#include "ember/common/interval.h"
#include "ember/error.h"
#include "ember/plan/functions.h"
#include "ember/plan/observed_metrics.h"
#include "ember/plan/type_names.h"
#include "ember/plan/window.h"
#include "ember/user_function.h"

namespace ember::plan {

using arrow::Result;
using arrow::Status;

struct Analyzer::Scope {
  explicit Scope(std::vector<Attribute> in, bool observed_metrics = false)
      : attributes(std::move(in)), metrics(observed_metrics) {}
  std::vector<Attribute> attributes;
  // Resolving observe()'s metrics: nested and DISTINCT aggregates resolve, so that
  // CheckObservedMetric refuses them with Spark's errors for metrics.
  bool metrics = false;
};

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), ::tolower);
  return s;
}

std::string Backquote(const std::string& name) { return "`" + name + "`"; }

std::string JoinNames(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ".") + Backquote(p);
  return out;
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::shared_ptr<LogicalPlan> NewNode(PlanKind kind, std::vector<PlanPtr> children) {
  auto node = std::make_shared<LogicalPlan>();
  node->kind = kind;
  for (const auto& child : children) node->is_streaming |= child->is_streaming;
  node->children = std::move(children);
  return node;
}

}  // namespace

Result<std::shared_ptr<arrow::Table>> RangeTable(int64_t start, int64_t end, int64_t step,
                                                 int64_t partitions) {
  if (step == 0) {
    return UserError(ErrorKind::kIllegalArgument, "INVALID_PARAMETER_VALUE",
                     "The value of parameter(s) `step` in `range` is invalid: step must not be 0.",
                     "22023");
  }
  arrow::Int64Builder ids;
  for (int64_t v = start; step > 0 ? v < end : v > end; v += step) {
    ARROW_RETURN_NOT_OK(ids.Append(v));
  }
  ARROW_ASSIGN_OR_RAISE(auto column, ids.Finish());
  const int64_t parts = std::max<int64_t>(partitions, 1);
  arrow::ArrayVector chunks;
  for (int64_t i = 0; i < parts; ++i) {
    const int64_t from = column->length() * i / parts, to = column->length() * (i + 1) / parts;
    chunks.push_back(column->Slice(from, to - from));
  }
  return arrow::Table::Make(arrow::schema({arrow::field("id", arrow::int64(), false)}),
                            {std::make_shared<arrow::ChunkedArray>(chunks, arrow::int64())});
}

PlanPtr OneRowRelation() {
  auto one_row = NewNode(PlanKind::kLocalTable, {});
  one_row->table = arrow::Table::Make(arrow::schema({}), arrow::ArrayVector{}, 1);
  return one_row;
}

namespace {

// A key that is equal for two resolved expressions computing the same value.
std::string Fingerprint(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kAttribute: return "#" + std::to_string(e.id);
    case ExprKind::kLiteral: return "lit:" + e.type->ToString() + ":" + e.value->ToString();
    case ExprKind::kAlias:
    case ExprKind::kSortOrder: return Fingerprint(*e.args[0]);
    case ExprKind::kCast: {
      return "cast:" + e.type->ToString() + "(" + Fingerprint(*e.args[0]) + ")";
    }
    default: break;
  }
  // A user's function is known by its object: another one may share its name.
  const void* user = e.function ? static_cast<const void*>(e.function.get())
                                : static_cast<const void*>(e.table_function.get());
  std::string out = user ? "udf@" + std::to_string(reinterpret_cast<uintptr_t>(user)) + "("
                         : Lower(e.name) + (e.distinct ? "!d(" : "(");
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (i < e.keywords.size() && !e.keywords[i].empty()) out += e.keywords[i] + "=>";
    out += Fingerprint(*e.args[i]) + ",";
  }
  return out + ")";
}

// Rebuilds an expression tree bottom-up, letting `fn` replace any subtree first.
Result<ExprPtr> Transform(const ExprPtr& e,
                          const std::function<Result<ExprPtr>(const ExprPtr&)>& fn) {
  ARROW_ASSIGN_OR_RAISE(auto replaced, fn(e));
  if (replaced) return replaced;
  if (e->args.empty()) return e;
  auto copy = std::make_shared<Expr>(*e);
  for (auto& arg : copy->args) {
    ARROW_ASSIGN_OR_RAISE(arg, Transform(arg, fn));
  }
  return copy;
}

bool IsGeneratorCall(const Expr& e) {
  if (e.kind != ExprKind::kCall || e.function) return false;
  if (e.table_function) return true;
  const FunctionDef* def = FindFunction(e.name);
  return def && def->generator;
}

bool ContainsGenerator(const Expr& e) {
  if (IsGeneratorCall(e)) return true;
  return std::any_of(e.args.begin(), e.args.end(),
                     [](const ExprPtr& a) { return ContainsGenerator(*a); });
}

// Spark's rules for arguments by keyword: each keyword once, none positional after one.
Status CheckKeywords(const Expr& call) {
  std::set<std::string> seen;
  std::string last;
  for (const auto& keyword : call.keywords) {
    if (keyword.empty() && !last.empty()) {
      return UserError(ErrorKind::kAnalysis, "UNEXPECTED_POSITIONAL_ARGUMENT",
                       "Cannot invoke routine " + Backquote(call.name) +
                           " because it contains positional argument(s) following the named "
                           "argument assigned to " + Backquote(last) +
                           "; please rearrange them so the positional arguments come first and "
                           "then retry the query again.",
                       "4274K");
    }
    if (!keyword.empty() && !seen.insert(keyword).second) {
      return UserError(ErrorKind::kAnalysis,
                       "DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.DOUBLE_NAMED_ARGUMENT_REFERENCE",
                       "Call to routine " + Backquote(call.name) +
                           " is invalid because it includes multiple argument assignments to the "
                           "same parameter name " + Backquote(keyword) +
                           ". More than one named argument referred to the same parameter. "
                           "Please assign a value only once.",
                       "4274K");
    }
    if (!keyword.empty()) last = keyword;
  }
  return Status::OK();
}

Status NestedAggregate() {
  return UserError(ErrorKind::kAnalysis, "NESTED_AGGREGATE_FUNCTION",
                   "It is not allowed to use an aggregate function in the argument of another "
                   "aggregate function. Please use the inner aggregate function in a sub-query.",
                   "42607");
}

// Spark's rule for grouped-aggregate pandas UDFs: an aggregation runs either only them
// (AggregateInPandasExec) or only the engine's own aggregate functions.
Status CheckUserAggregates(const std::vector<ExprPtr>& calls) {
  std::string users;
  bool builtin = false;
  for (const auto& call : calls) {
    if (call->function) {
      users += (users.empty() ? "" : ", ") + Backquote(call->function->name);
    } else {
      builtin = true;
    }
  }
  if (users.empty() || !builtin) return Status::OK();
  return UserError(ErrorKind::kAnalysis, "INVALID_PANDAS_UDF_PLACEMENT",
                   "The group aggregate pandas UDF " + users +
                       " cannot be invoked together with as other, non-pandas aggregate "
                       "functions.",
                   "0A000");
}

// Names a projected expression the way Spark does when the user gave no alias.
ExprPtr Named(const ExprPtr& resolved, const ExprPtr& original) {
  if (resolved->kind == ExprKind::kAttribute || resolved->kind == ExprKind::kAlias) {
    return resolved;
  }
  const Expr& r = *resolved;
  if (r.kind == ExprKind::kCall && r.name == "extract_value" && original->kind == ExprKind::kColumn) {
    return Alias(resolved, original->name_parts.back());
  }
  if (r.kind == ExprKind::kCall && r.name == "extract_value" && original->kind == ExprKind::kCall &&
      original->args.size() == 2) {
    // Named as written, but as what its base turned out to be: s.f for a struct, m[k] for a map.
    auto typed = std::make_shared<Expr>(*original);
    auto base = std::make_shared<Expr>(*original->args[0]);
    base->type = r.args[0]->type;
    typed->args[0] = base;
    return Alias(resolved, DisplayName(*typed));
  }
  // Spark's ResolveAliases: a cast of a column is named after the column.
  if (r.kind == ExprKind::kCast && r.args[0]->kind == ExprKind::kAttribute) {
    return Alias(resolved, r.args[0]->name);
  }
  return Alias(resolved, DisplayName(*original));
}

std::shared_ptr<LogicalPlan> MakeProject(const PlanPtr& child, std::vector<ExprPtr> exprs) {
  auto node = NewNode(PlanKind::kProject, {child});
  for (const auto& e : exprs) {
    Attribute attr = OutputAttribute(e);
    if (e->kind == ExprKind::kAttribute) {
      for (const auto& a : child->output) {
        if (a.id == e->id) attr = a;
      }
    }
    node->output.push_back(attr);
  }
  node->exprs = std::move(exprs);
  return node;
}

Status CheckBoolean(const ExprPtr& condition, const char* what) {
  if (condition->type->id() == arrow::Type::BOOL || condition->type->id() == arrow::Type::NA) {
    return Status::OK();
  }
  return UserError(ErrorKind::kAnalysis, "DATATYPE_MISMATCH.FILTER_NOT_BOOLEAN",
                   "Cannot resolve \"" + DisplayName(*condition) +
                       "\" due to data type mismatch: " + what + " expression \"" +
                       DisplayName(*condition) + "\" of type \"" +
                       SparkTypeName(*condition->type, true) + "\" is not a boolean.",
                   "42K09");
}

}  // namespace

Attribute OutputAttribute(const ExprPtr& e) {
  Attribute attr;
  attr.name = e->kind == ExprKind::kAttribute || e->kind == ExprKind::kAlias ? e->name
                                                                               : DisplayName(*e);
  attr.id = e->kind == ExprKind::kAttribute ? e->id : NewAttributeId();
  attr.type = e->type;
  attr.nullable = e->nullable;
  return attr;
}

bool Analyzer::NameEquals(const std::string& a, const std::string& b) const {
  return options_.case_sensitive ? a == b : Lower(a) == Lower(b);
}

// --- expressions ------------------------------------------------------------------------------

Result<ExprPtr> Analyzer::ResolveColumn(const Expr& column, const Scope& scope) const {
  const auto& parts = column.name_parts;
  std::vector<const Attribute*> matches;
  size_t used = 0;
  if (parts.size() >= 2) {
    for (const auto& a : scope.attributes) {
      if (!a.qualifier.empty() && NameEquals(a.qualifier, parts[0]) && NameEquals(a.name, parts[1])) {
        matches.push_back(&a);
      }
    }
    used = 2;
  }
  if (matches.empty()) {
    for (const auto& a : scope.attributes) {
      if (NameEquals(a.name, parts[0])) matches.push_back(&a);
    }
    used = 1;
  }
  if (matches.size() > 1) {
    std::string candidates;
    for (const auto* a : matches) {
      candidates += (candidates.empty() ? "" : ", ") +
                    (a->qualifier.empty() ? "" : Backquote(a->qualifier) + ".") + Backquote(a->name);
    }
    return UserError(ErrorKind::kAnalysis, "AMBIGUOUS_REFERENCE",
                     "Reference " + JoinNames(parts) + " is ambiguous, could be: [" + candidates +
                         "].",
                     "42704");
  }
  if (matches.empty()) {
    std::vector<std::pair<size_t, std::string>> ranked;
    std::string wanted = Lower(parts.back());
    for (const auto& a : scope.attributes) {
      std::string shown = (a.qualifier.empty() ? "" : Backquote(a.qualifier) + ".") +
                          Backquote(a.name);
      ranked.emplace_back(EditDistance(Lower(a.name), wanted), shown);
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    std::string suggestions;
    for (size_t i = 0; i < ranked.size() && i < 5; ++i) {
      suggestions += (i ? ", " : "") + ranked[i].second;
    }
    if (ranked.empty()) {
      return UserError(ErrorKind::kAnalysis, "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
                       "A column, variable, or function parameter with name " + JoinNames(parts) +
                           " cannot be resolved.",
                       "42703");
    }
    return UserError(ErrorKind::kAnalysis, "UNRESOLVED_COLUMN.WITH_SUGGESTION",
                     "A column, variable, or function parameter with name " + JoinNames(parts) +
                         " cannot be resolved. Did you mean one of the following? [" +
                         suggestions + "].",
                     "42703");
  }
  ExprPtr out = AttributeRef(*matches[0]);
  for (size_t i = used; i < parts.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(out, Resolve(Call("extract_value", {out, Literal(std::make_shared<arrow::StringScalar>(parts[i]))}), scope));
  }
  return out;
}

// Spark's ResolveLambdaVariables: the lambda's variables become attributes of their own, typed by
// the function, that its body sees before (and instead of) the columns of the same names.
Result<ExprPtr> Analyzer::ResolveLambda(const Expr& call, const FunctionDef& def,
                                        const std::vector<ExprPtr>& args, size_t index,
                                        const Scope& scope) const {
  const Expr& lambda = *call.args[index];
  if (!def.lambda_variables) {
    return UserError(ErrorKind::kAnalysis, "INVALID_LAMBDA_FUNCTION_CALL.NON_HIGHER_ORDER_FUNCTION",
                     "Invalid lambda function call. A lambda function should only be used in a "
                     "higher order function. However, its class is " + Backquote(Lower(call.name)) +
                         ", which is not a higher order function.",
                     "42K0D");
  }
  const size_t arity = lambda.name_parts.size();
  ARROW_ASSIGN_OR_RAISE(auto variables, def.lambda_variables(call, args, index, arity));
  if (variables.size() != arity) {
    return UserError(ErrorKind::kAnalysis, "INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH",
                     "Invalid lambda function call. A higher order function expects " +
                         std::to_string(arity) + " arguments, but got " +
                         std::to_string(variables.size()) + ".",
                     "42K0D");
  }
  std::vector<Attribute> inner;
  for (size_t k = 0; k < arity; ++k) {
    inner.push_back(Attribute{lambda.name_parts[k], NewAttributeId(), variables[k].type,
                              variables[k].nullable, ""});
  }
  for (const auto& a : scope.attributes) {
    bool shadowed = std::any_of(inner.begin(), inner.end(), [&](const Attribute& v) {
      return a.qualifier.empty() && Lower(v.name) == Lower(a.name);
    });
    if (!shadowed) inner.push_back(a);
  }
  ARROW_ASSIGN_OR_RAISE(auto body, Resolve(lambda.args[0], Scope{inner, scope.metrics}));
  auto out = std::make_shared<Expr>(lambda);
  out->args = {body};
  for (size_t k = 0; k < arity; ++k) out->args.push_back(AttributeRef(inner[k]));
  out->type = body->type;
  out->nullable = body->nullable;
  return ExprPtr(out);
}

// A call of a user's table function: its arguments resolved, and a function that names its
// columns itself (Spark's `analyze`) asked for them, given the arguments' types and constant
// values. Its type is the struct of its columns.
Result<ExprPtr> Analyzer::ResolveTableFunctionCall(const Expr& call, const Scope& scope) const {
  ARROW_RETURN_NOT_OK(CheckKeywords(call));
  auto out = std::make_shared<Expr>(call);
  std::vector<TableFunctionArgument> arguments;
  for (size_t i = 0; i < out->args.size(); ++i) {
    auto& arg = out->args[i];
    // A table argument (TABLE(t), from the parser) is `*`: each row of the input as a struct.
    const bool is_table = arg->kind == ExprKind::kStar && arg->name_parts.empty();
    if (is_table) {
      std::vector<ExprPtr> columns;
      for (const auto& a : scope.attributes) columns.push_back(AttributeRef(a));
      arg = Call("struct", std::move(columns));
    }
    if (!arg->resolved()) {  // a call resolved before (its analyze() done) keeps its arguments
      ARROW_ASSIGN_OR_RAISE(arg, Resolve(arg, scope));
    }
    TableFunctionArgument argument{arg->type, nullptr,
                                   i < call.keywords.size() ? call.keywords[i] : std::string(),
                                   is_table};
    if (!out->table_function->output_schema && !is_table && IsFoldable(*arg) && options_.evaluate) {
      ARROW_ASSIGN_OR_RAISE(argument.value, options_.evaluate(arg, arg->type));
    }
    arguments.push_back(std::move(argument));
  }
  if (!out->table_function->output_schema) {
    ARROW_ASSIGN_OR_RAISE(out->table_function, out->table_function->analyze(arguments));
    // analyze() may choose the table argument's columns the function sees.
    const auto& select = out->table_function->table_request.select;
    for (size_t i = 0; i < arguments.size() && !select.empty(); ++i) {
      if (!arguments[i].is_table) continue;
      ARROW_ASSIGN_OR_RAISE(out->args[i], Resolve(Call("struct", select), scope));
    }
  }
  out->type = arrow::struct_(out->table_function->output_schema->fields());
  out->nullable = false;
  return out;
}

Result<ExprPtr> Analyzer::Resolve(const ExprPtr& expr, const Scope& scope) const {
  const Expr& e = *expr;
  switch (e.kind) {
    case ExprKind::kLiteral:
      return expr;
    case ExprKind::kColumn:
      return ResolveColumn(e, scope);
    case ExprKind::kAttribute: {
      for (const auto& a : scope.attributes) {
        if (a.id == e.id) return AttributeRef(a);
      }
      // A column taken from another DataFrame: fall back to its name, as Spark Connect does.
      return ResolveColumn(*Column({e.name}), scope);
    }
    case ExprKind::kStar:
      return UserError(ErrorKind::kAnalysis, "INVALID_USAGE_OF_STAR_OR_REGEX",
                       "Invalid usage of '*' in expression.", "42000");
    case ExprKind::kLambda:
      return UserError(ErrorKind::kAnalysis, "INVALID_LAMBDA_FUNCTION_CALL.NON_HIGHER_ORDER_FUNCTION",
                       "Invalid lambda function call. A lambda function should only be used in "
                       "a higher order function.",
                       "42K0D");
    case ExprKind::kAlias: {
      ARROW_ASSIGN_OR_RAISE(auto child, Resolve(e.args[0], scope));
      return Alias(child, e.name);
    }
    case ExprKind::kSortOrder: {
      ARROW_ASSIGN_OR_RAISE(auto child, Resolve(e.args[0], scope));
      return SortOrder(child, e.ascending, e.nulls_first);
    }
    case ExprKind::kCast: {
      ARROW_ASSIGN_OR_RAISE(auto child, Resolve(e.args[0], scope));
      if (!CanCast(*child->type, *e.type)) {
        return UserError(ErrorKind::kAnalysis, "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION",
                         "Cannot resolve \"" + DisplayName(e) +
                             "\" due to data type mismatch: cannot cast \"" +
                             SparkTypeName(*child->type, true) + "\" to \"" +
                             SparkTypeName(*e.type, true) + "\".",
                         "42K09");
      }
      auto out = std::make_shared<Expr>(e);
      out->args = {child};
      out->nullable = !e.typed_literal &&
                      (child->nullable || e.try_cast || CastForcesNullable(*child->type, *e.type));
      return out;
    }
    case ExprKind::kWindow: {
      // The function (a window-only one typed apart from the catalog's), keys and orders.
      std::vector<ExprPtr> args;
      const Expr& f = *e.args[0];
      if (f.kind == ExprKind::kCall && !f.function &&
          ((IsWindowFunctionName(f.name) && !FindFunction(f.name)) ||
           (IsFirstOrLast(Lower(f.name)) && !f.distinct))) {
        std::vector<ExprPtr> f_args;
        for (const auto& arg : f.args) {
          ARROW_ASSIGN_OR_RAISE(auto r, Resolve(arg, scope));
          f_args.push_back(StripAlias(r));
        }
        ARROW_ASSIGN_OR_RAISE(auto typed, TypeWindowFunction(f, std::move(f_args)));
        args.push_back(std::move(typed));
      } else {
        ARROW_ASSIGN_OR_RAISE(auto r, Resolve(e.args[0], scope));
        args.push_back(std::move(r));
      }
      for (size_t i = 1; i < e.args.size(); ++i) {
        ARROW_ASSIGN_OR_RAISE(auto r, Resolve(e.args[i], scope));
        if (ContainsWindow(*r)) {
          return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                           "The feature is not supported: a window function in a window's "
                           "specification in Ember.",
                           "0A000");
        }
        args.push_back(r->kind == ExprKind::kAlias ? r->args[0] : r);
      }
      return TypeWindow(e, std::move(args));
    }
    case ExprKind::kCall:
      break;
  }
  const bool user = e.function || e.table_function;
  const FunctionDef* def = user ? nullptr : FindFunction(e.name);
  if (!user && !def && options_.lookup_function) {
    if (auto function = options_.lookup_function(e.name)) {
      ARROW_RETURN_NOT_OK(CheckKeywords(e));
      return Resolve(Call(std::move(function), e.args, e.keywords), scope);
    }
  }
  if (!user && !def && options_.lookup_table_function) {
    if (auto function = options_.lookup_table_function(e.name)) {
      ARROW_RETURN_NOT_OK(CheckKeywords(e));
      return Resolve(Call(std::move(function), e.args, e.keywords), scope);
    }
  }
  if (e.table_function) return ResolveTableFunctionCall(e, scope);
  if (!user && !e.keywords.empty()) {
    return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                     "The feature is not supported: named arguments of " + Backquote(e.name) +
                         " in Ember.",
                     "0A000");
  }
  if (e.function) {
    auto out = std::make_shared<Expr>(e);
    for (auto& arg : out->args) {
      ARROW_ASSIGN_OR_RAISE(arg, Resolve(arg, scope));
      if (e.function->aggregate && ContainsAggregate(*arg)) return NestedAggregate();
    }
    out->type = e.function->return_type;
    out->nullable = true;
    return out;
  }
  if (!def && IsWindowFunctionName(e.name)) return WindowFunctionWithoutOver(e);
  if (!def) {
    return UserError(ErrorKind::kAnalysis, "UNRESOLVED_ROUTINE",
                     "Cannot resolve routine " + Backquote(e.name) +
                         " on search path [`system`.`builtin`, `system`.`session`, "
                         "`spark_catalog`.`default`].",
                     "42883");
  }
  std::vector<ExprPtr> unresolved_args = e.args;
  // count(*) counts rows: Spark rewrites it to count(1).
  if (Lower(e.name) == "count" && unresolved_args.size() == 1 &&
      unresolved_args[0]->kind == ExprKind::kStar) {
    unresolved_args[0] = Literal(std::make_shared<arrow::Int32Scalar>(1));
  }
  int n = static_cast<int>(unresolved_args.size());
  if (n < def->min_args || (def->max_args >= 0 && n > def->max_args)) {
    std::string expected = def->min_args == def->max_args
                               ? std::to_string(def->min_args)
                               : def->max_args < 0 ? "at least " + std::to_string(def->min_args)
                                                   : "[" + std::to_string(def->min_args) + ", " +
                                                         std::to_string(def->max_args) + "]";
    return UserError(ErrorKind::kAnalysis, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                     "The " + Backquote(Lower(e.name)) + " requires " + expected +
                         " parameters but the actual number is " + std::to_string(n) +
                         ". Please, refer to "
                         "'https://spark.apache.org/docs/latest/sql-ref-functions.html' for a fix.",
                     "42605");
  }
  // approx_count_distinct(DISTINCT x) is approx_count_distinct(x): a sketch ignores repeats.
  if (e.distinct && !scope.metrics &&
      !(Lower(e.name) == "count" || Lower(e.name) == "approx_count_distinct")) {
    return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE.DISTINCT_AGGREGATE",
                     "DISTINCT is supported only in count() by Ember; " + DisplayName(e) +
                         " is not.",
                     "0A000");
  }
  std::vector<ExprPtr> args(unresolved_args.size());
  for (size_t i = 0; i < unresolved_args.size(); ++i) {
    if (unresolved_args[i]->kind == ExprKind::kLambda) continue;
    ARROW_ASSIGN_OR_RAISE(auto r, Resolve(unresolved_args[i], scope));
    if (def->aggregate && ContainsAggregate(*r) && !scope.metrics) return NestedAggregate();
    args[i] = def->takes_aliases ? r : StripAlias(r);
  }
  auto call = std::make_shared<Expr>(e);
  call->args = unresolved_args;  // for messages, which show the user's expression
  // A lambda's variables are typed from the other arguments (a transform's from its array).
  for (size_t i = 0; i < unresolved_args.size(); ++i) {
    if (unresolved_args[i]->kind != ExprKind::kLambda) continue;
    ARROW_ASSIGN_OR_RAISE(args[i], ResolveLambda(*call, *def, args, i, scope));
  }
  ARROW_ASSIGN_OR_RAISE(auto typed, def->type_rule(*call, std::move(args)));
  // A rule that lost its type or an argument is Ember's bug: an error here, not a crash later.
  if (!typed.type || std::any_of(typed.args.begin(), typed.args.end(),
                                 [](const ExprPtr& a) { return a == nullptr; })) {
    return Status::Invalid("the type rule of ", e.name, " gave no type or lost an argument");
  }
  call->args = std::move(typed.args);
  call->type = typed.type;
  call->nullable = typed.nullable;
  return call;
}

Result<std::vector<ExprPtr>> Analyzer::ExpandStars(const std::vector<ExprPtr>& exprs,
                                                   const Scope& scope) const {
  std::vector<ExprPtr> out;
  for (const auto& e : exprs) {
    if (e->kind != ExprKind::kStar) {
      out.push_back(e);
      continue;
    }
    bool any = false;
    for (const auto& a : scope.attributes) {
      if (e->name_parts.empty() || NameEquals(a.qualifier, e->name_parts.back())) {
        out.push_back(AttributeRef(a));
        any = true;
      }
    }
    if (!any && !e->name_parts.empty()) {
      // `s.*` on a struct column expands its fields.
      ARROW_ASSIGN_OR_RAISE(auto base, ResolveColumn(*Column(e->name_parts), scope));
      if (base->type->id() != arrow::Type::STRUCT) {
        return UserError(ErrorKind::kAnalysis, "CANNOT_RESOLVE_STAR_EXPAND",
                         "Cannot resolve " + JoinNames(e->name_parts) + ".* given input columns.",
                         "42704");
      }
      for (const auto& f : base->type->fields()) {
        out.push_back(Alias(Call("extract_value", {base, Literal(std::make_shared<arrow::StringScalar>(f->name()))}), f->name()));
      }
    }
  }
  return out;
}

Result<ExprPtr> Analyzer::ResolveExpr(const ExprPtr& expr, const PlanPtr& input) const {
  return Resolve(expr, Scope{input->output});
}

// --- plans ------------------------------------------------------------------------------------

Result<PlanPtr> Analyzer::Project(const PlanPtr& child, const std::vector<ExprPtr>& exprs) const {
  Scope scope{child->output};
  ARROW_ASSIGN_OR_RAISE(auto expanded, ExpandStars(exprs, scope));
  for (const auto& e : expanded) {
    if (CallsAggregate(*e)) return Aggregate(child, {}, expanded, false);
  }
  if (std::any_of(expanded.begin(), expanded.end(), [](const ExprPtr& e) { return ContainsWindow(*e); })) {
    // Spark's ExtractWindowExpressions: Window nodes below the projection.
    std::vector<ExprPtr> named;
    for (const auto& e : expanded) {
      ARROW_ASSIGN_OR_RAISE(auto r, Resolve(e, scope));
      if (e->kind == ExprKind::kWindow) {
        // Named as the user wrote it, with the frame it runs over (and lag's defaults).
        auto shown = std::make_shared<Expr>(*e);
        shown->window = r->window;
        if (IsWindowFunctionName(r->args[0]->name)) shown->args[0] = r->args[0];
        named.push_back(Alias(r, DisplayName(*shown)));
      } else {
        named.push_back(Named(r, e));
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto extracted, ExtractWindows(child, std::move(named)));
    return MakeProject(extracted.input, std::move(extracted.exprs));
  }
  ARROW_ASSIGN_OR_RAISE(PlanPtr input, WithGenerator(child, &expanded));
  scope = Scope{input->output};
  std::vector<ExprPtr> named;
  for (const auto& e : expanded) {
    ARROW_ASSIGN_OR_RAISE(auto r, Resolve(e, scope));
    ARROW_ASSIGN_OR_RAISE(input, WithEventTime(input, &r, scope));
    named.push_back(Named(r, e));
  }
  return MakeProject(input, std::move(named));
}

// Spark's ExtractGenerator: a generator in a select list (`explode(a) AS w`) becomes a Generate
// node below the projection, whose list then reads the generator's columns (pos, col). Several
// generators stack, one Generate each: every combination of their elements, as in Spark.
Result<PlanPtr> Analyzer::WithGenerator(const PlanPtr& child, std::vector<ExprPtr>* exprs) const {
  PlanPtr out = child;
  for (size_t i = 0; i < exprs->size(); ++i) {
    const ExprPtr original = (*exprs)[i];
    const ExprPtr& e = StripAlias(original);
    if (!IsGeneratorCall(*e)) {
      if (original->kind == ExprKind::kAlias && !original->name_parts.empty()) {
        std::string names;
        for (const auto& n : original->name_parts) names += (names.empty() ? "" : ", ") + n;
        return UserError(ErrorKind::kAnalysis, "MULTI_ALIAS_WITHOUT_GENERATOR",
                         "Multi part aliasing (" + names + ") is not supported with " +
                             DisplayName(*e) + " as it is not a generator function.",
                         "42K0E");
      }
      if (ContainsGenerator(*e)) {
        return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_GENERATOR.NESTED_IN_EXPRESSIONS",
                         "The generator is not supported: nested in expressions \"" +
                             DisplayName(*e) + "\".",
                         "42K0E");
      }
      continue;
    }
    std::vector<std::string> names;
    if (original->kind == ExprKind::kAlias) {
      names = original->name_parts.empty() ? std::vector<std::string>{original->name}
                                           : original->name_parts;
    }
    ARROW_ASSIGN_OR_RAISE(out, Generate(out, child->output, e, names, ""));
    const size_t generated = out->output.size() - out->children[0]->output.size();
    std::vector<ExprPtr> columns;
    for (size_t k = out->output.size() - generated; k < out->output.size(); ++k) {
      columns.push_back(AttributeRef(out->output[k]));
    }
    exprs->erase(exprs->begin() + static_cast<std::ptrdiff_t>(i));
    exprs->insert(exprs->begin() + static_cast<std::ptrdiff_t>(i), columns.begin(), columns.end());
    i += columns.size() - 1;
  }
  return out;
}

// A Generate node over `child` for a generator call over `scope`: the child's columns, then
// [pos,] col, named by `names` (the last ones, if given) and qualified by `qualifier`.
Result<PlanPtr> Analyzer::MapBatches(const PlanPtr& child,
                                     std::shared_ptr<const UserBatchFunction> function) const {
  auto node = NewNode(PlanKind::kMapBatches, {child});
  for (const auto& field : function->output_schema->fields()) {
    node->output.push_back(
        Attribute{field->name(), NewAttributeId(), field->type(), field->nullable(), ""});
  }
  node->batch_function = std::move(function);
  return node;
}

// Spark's FlatMapGroupsInPandas(WithState) and FlatMapCoGroupsInPandas: a grouping that is not
// a column is computed into a new one below, which the function sees as part of its key only;
// the function's rows are each side's columns.
Result<PlanPtr> Analyzer::GroupMap(const std::vector<GroupedSide>& sides,
                                   std::shared_ptr<const UserGroupFunction> function,
                                   std::shared_ptr<const GroupStateSpec> state) const {
  if (state && !sides[0].child->is_streaming) {
    return UserError(ErrorKind::kUnsupportedOperation, "_LEGACY_ERROR_TEMP_3176",
                     "applyInPandasWithState is unsupported in batch query. Use applyInPandas "
                     "instead.",
                     "");
  }
  if (sides.size() > 1) {
    for (const auto& side : sides) {
      if (side.child->is_streaming) {
        return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_3102",
                         "CoGrouping with a streaming DataFrame/Dataset is not supported;", "");
      }
    }
    if (sides[0].groupings.size() != sides[1].groupings.size()) {
      return UserError(ErrorKind::kIllegalArgument, "",
                       "requirement failed: Cogroup keys must have same size: " +
                           std::to_string(sides[0].groupings.size()) + " != " +
                           std::to_string(sides[1].groupings.size()));
    }
  }
  auto node = NewNode(PlanKind::kGroupMap, {});
  for (const auto& side : sides) {
    const PlanPtr& child = side.child;
    Scope scope{child->output};
    std::vector<ExprPtr> keys, computed;
    std::vector<size_t> computed_keys;  // where each computed one is among the keys
    for (const auto& g : side.groupings) {
      ARROW_ASSIGN_OR_RAISE(auto r, Resolve(g, scope));
      if (ContainsAggregate(*r)) {
        return UserError(ErrorKind::kAnalysis, "GROUP_BY_AGGREGATE",
                         "Aggregate functions are not allowed in GROUP BY, but found " +
                             DisplayName(*g) + ".",
                         "42903");
      }
      if (StripAlias(r)->kind == ExprKind::kAttribute) {
        keys.push_back(StripAlias(r));
        continue;
      }
      computed_keys.push_back(keys.size());
      computed.push_back(Named(r, g));
      keys.push_back(nullptr);
    }
    PlanPtr input = child;
    if (!computed.empty()) {
      std::vector<ExprPtr> columns;
      for (const auto& a : child->output) columns.push_back(AttributeRef(a));
      columns.insert(columns.end(), computed.begin(), computed.end());
      input = MakeProject(child, std::move(columns));
      for (size_t i = 0; i < computed.size(); ++i) {
        keys[computed_keys[i]] = AttributeRef(input->output[child->output.size() + i]);
      }
    }
    node->children.push_back(input);
    node->is_streaming = node->is_streaming || input->is_streaming;
    node->groupings.insert(node->groupings.end(), keys.begin(), keys.end());
    for (const auto& a : child->output) node->exprs.push_back(AttributeRef(a));
  }
  for (const auto& field : function->output_schema->fields()) {
    node->output.push_back(
        Attribute{field->name(), NewAttributeId(), field->type(), field->nullable(), ""});
  }
  node->group_function = std::move(function);
  node->group_state = std::move(state);
  return node;
}

namespace {
Status AliasNumberMismatch(size_t columns, size_t aliases) {
  return UserError(ErrorKind::kAnalysis, "UDTF_ALIAS_NUMBER_MISMATCH",
                   "The number of aliases supplied in the AS clause does not match the number "
                   "of columns output by the UDTF. Expected " + std::to_string(columns) +
                       " aliases but got " + std::to_string(aliases) + ".",
                   "42802");
}
}  // namespace

Result<PlanPtr> Analyzer::Generate(const PlanPtr& child, const std::vector<Attribute>& scope,
                                   const ExprPtr& generator, const std::vector<std::string>& names,
                                   const std::string& qualifier) const {
  ARROW_ASSIGN_OR_RAISE(auto call, Resolve(generator, Scope{scope}));
  if (!IsGeneratorCall(*call)) {
    return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_GENERATOR.NOT_GENERATOR",
                     "The generator is not supported: " + DisplayName(*call) +
                         " is expected to be a generator. However, its class is not a "
                         "generator.",
                     "42K0E");
  }
  // The generated columns: a table function's own, else [pos,] col.
  std::vector<Attribute> generated;
  if (call->table_function) {
    for (const auto& field : call->table_function->output_schema->fields()) {
      generated.push_back(Attribute{field->name(), NewAttributeId(), field->type(),
                                    field->nullable(), qualifier});
    }
  } else {
    const FunctionDef& def = *FindFunction(call->name);
    const bool outer = def.generator_outer;
    if (def.generator_position) {
      generated.push_back(Attribute{"pos", NewAttributeId(), arrow::int32(), outer, qualifier});
    }
    if (GeneratesFields(*call)) {
      for (const auto& field : call->type->fields()) {
        generated.push_back(Attribute{field->name(), NewAttributeId(), field->type(),
                                      outer || call->nullable || field->nullable(), qualifier});
      }
    } else {
      generated.push_back(Attribute{"col", NewAttributeId(), call->type, outer || call->nullable,
                                    qualifier});
    }
  }
  if (!names.empty()) {
    if (names.size() != generated.size()) {
      return AliasNumberMismatch(generated.size(), names.size());
    }
    for (size_t k = 0; k < generated.size(); ++k) generated[k].name = names[k];
  }
  auto node = NewNode(PlanKind::kGenerate, {child});
  node->exprs = {call};
  node->output = child->output;
  node->output.insert(node->output.end(), generated.begin(), generated.end());
  return node;
}

// Spark's TimeWindowing, below any projection or aggregation that computes window(): a row
// without an event time belongs to no window and is filtered out. A sliding window becomes an
// attribute of an Expand that gives each row once per window containing it (window/slide rows,
// rounded up, keeping those whose window holds the time).
Result<PlanPtr> Analyzer::WithEventTime(const PlanPtr& child, ExprPtr* resolved,
                                        const Scope& scope) const {
  PlanPtr out = child;
  std::function<Result<ExprPtr>(const ExprPtr&)> visit = [&](const ExprPtr& e) -> Result<ExprPtr> {
    bool is_window = e->kind == ExprKind::kCall && e->name == "window" && e->args.size() <= 4;
    if (is_window || (e->kind == ExprKind::kCall && e->name == "session_window")) {
      ARROW_ASSIGN_OR_RAISE(auto has_time, Resolve(Call("isnotnull", {e->args[0]}), scope));
      auto filter = NewNode(PlanKind::kFilter, {out});
      filter->exprs = {has_time};
      filter->output = out->output;
      out = filter;
    }
    if (is_window) {
      auto micros = [&](size_t i) -> Result<int64_t> {
        return ParseIntervalMicros(e->args[i]->value ? e->args[i]->value->ToString() : "");
      };
      ARROW_ASSIGN_OR_RAISE(int64_t size, micros(1));
      ARROW_ASSIGN_OR_RAISE(int64_t slide, micros(2));
      if (slide == size || slide <= 0 || size <= 0) return e;  // tumbling, or invalid
      Attribute window{"window", NewAttributeId(), e->type, false, ""};
      auto expand = NewNode(PlanKind::kExpand, {out});
      expand->output = out->output;
      expand->output.push_back(window);
      for (int64_t i = 0; i * slide < size; ++i) {
        std::vector<ExprPtr> projection;
        for (const auto& a : out->output) projection.push_back(AttributeRef(a));
        auto nth = std::make_shared<Expr>(*e);
        if (nth->args.size() == 3) nth->args.push_back(Literal(std::make_shared<arrow::StringScalar>("0 seconds")));
        nth->args.push_back(Literal(std::make_shared<arrow::Int64Scalar>(i)));
        projection.push_back(nth);
        expand->projections.push_back(std::move(projection));
      }
      auto field = [&](const char* name) {
        return Call("extract_value", {AttributeRef(window), Literal(std::make_shared<arrow::StringScalar>(name))});
      };
      ARROW_ASSIGN_OR_RAISE(
          auto inside, Resolve(Call("and", {Call("<=", {field("start"), e->args[0]}),
                                            Call("<", {e->args[0], field("end")})}),
                               Scope{expand->output}));
      auto kept = NewNode(PlanKind::kFilter, {expand});
      kept->exprs = {inside};
      kept->output = expand->output;
      out = kept;
      return AttributeRef(window);
    }
    bool changed = false;
    std::vector<ExprPtr> args;
    for (const auto& arg : e->args) {
      ARROW_ASSIGN_OR_RAISE(auto rewritten, visit(arg));
      changed = changed || rewritten != arg;
      args.push_back(std::move(rewritten));
    }
    if (!changed) return e;
    auto copy = std::make_shared<Expr>(*e);
    copy->args = std::move(args);
    return copy;
  };
  ARROW_ASSIGN_OR_RAISE(*resolved, visit(*resolved));
  return out;
}

Result<PlanPtr> Analyzer::Filter(const PlanPtr& child, const ExprPtr& condition) const {
  if (ContainsWindow(*condition)) {
    return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1034",
                     "It is not allowed to use window functions inside WHERE clause.", "");
  }
  auto resolved_or = Resolve(condition, Scope{child->output});
  if (!resolved_or.ok() && child->kind == PlanKind::kProject) {
    // Spark's ResolveMissingReferences: `select("id").where("v > 0")` filters on a column the
    // projection dropped, below the projection.
    auto below = Filter(child->children[0], condition);
    if (below.ok()) {
      auto project = std::make_shared<LogicalPlan>(*child);
      project->children[0] = *below;
      return project;
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto resolved, std::move(resolved_or));
  if (ContainsAggregate(*resolved)) {
    return UserError(ErrorKind::kAnalysis, "INVALID_WHERE_CONDITION",
                     "The WHERE condition \"" + DisplayName(*condition) +
                         "\" contains invalid expressions: " + DisplayName(*condition) +
                         ". Rewrite the query to avoid window functions, aggregate functions, "
                         "and generator functions in the WHERE clause.",
                     "42903");
  }
  ARROW_RETURN_NOT_OK(CheckBoolean(resolved, "Filter"));
  auto node = NewNode(PlanKind::kFilter, {child});
  node->exprs = {CastIfNeeded(StripAlias(resolved), arrow::boolean())};
  node->output = child->output;
  return node;
}

bool Analyzer::CallsAggregate(const Expr& expr) const {
  if (expr.kind == ExprKind::kWindow) {
    // The window's own function aggregates over its frame, not the query's groups.
    return std::any_of(expr.args.begin(), expr.args.end(), [&](const ExprPtr& arg) {
      return arg == expr.args[0]
                 ? std::any_of(arg->args.begin(), arg->args.end(),
                               [&](const ExprPtr& a) { return CallsAggregate(*a); })
                 : CallsAggregate(*arg);
    });
  }
  if (IsAggregateCall(expr)) return true;
  if (expr.kind == ExprKind::kCall && !expr.function && !FindFunction(expr.name) &&
      options_.lookup_function) {
    auto function = options_.lookup_function(expr.name);
    if (function && function->aggregate) return true;
  }
  return std::any_of(expr.args.begin(), expr.args.end(),
                     [&](const ExprPtr& arg) { return CallsAggregate(*arg); });
}

Result<PlanPtr> Analyzer::Aggregate(const PlanPtr& child, const std::vector<ExprPtr>& groupings,
                                    const std::vector<ExprPtr>& outputs, bool include_groupings,
                                    const ExprPtr& having,
                                    const std::vector<ExprPtr>& order_by) const {
  Scope scope{child->output};
  auto node = NewNode(PlanKind::kAggregate, {child});
  if (std::any_of(outputs.begin(), outputs.end(), [](const ExprPtr& e) { return ContainsWindow(*e); }) ||
      (having && ContainsWindow(*having)) ||
      std::any_of(order_by.begin(), order_by.end(), [](const ExprPtr& e) { return ContainsWindow(*e); })) {
    return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                     "The feature is not supported: window functions in an aggregation (GROUP BY "
                     "or aggregates in the same SELECT) in Ember.",
                     "0A000");
  }

  // Grouping keys: a plain column keeps its attribute; an expression gets a new one.
  std::vector<std::string> key_prints;
  std::vector<ExprPtr> key_refs;
  for (const auto& g : groupings) {
    ARROW_ASSIGN_OR_RAISE(auto r, Resolve(g, scope));
    ExprPtr key = StripAlias(r);
    if (ContainsAggregate(*key)) {
      return UserError(ErrorKind::kAnalysis, "GROUP_BY_AGGREGATE",
                       "Aggregate functions are not allowed in GROUP BY, but found " +
                           DisplayName(*g) + ".",
                       "42903");
    }
    std::string print = Fingerprint(*key);
    ARROW_ASSIGN_OR_RAISE(node->children[0], WithEventTime(node->children[0], &key, scope));
    Attribute attr;
    if (key->kind == ExprKind::kAttribute) {
      for (const auto& a : node->children[0]->output) {
        if (a.id == key->id) attr = a;
      }
    } else {
      attr = OutputAttribute(Named(r, g));
    }
    if (r->kind == ExprKind::kAlias) attr.name = r->name;  // groupBy(expr.alias("w"))
    node->groupings.push_back(key);
    node->output.push_back(attr);
    key_prints.push_back(print);
    key_refs.push_back(AttributeRef(attr));
  }

  // Aggregate calls, each computed once however often it appears.
  std::map<std::string, ExprPtr> agg_refs;
  std::vector<Attribute> agg_attrs;
  std::function<Result<ExprPtr>(const ExprPtr&)> rewrite;
  rewrite = [&](const ExprPtr& e) -> Result<ExprPtr> {
    if (e->kind == ExprKind::kAlias) return nullptr;  // keep the user's name, rewrite inside
    std::string print = Fingerprint(*e);
    for (size_t i = 0; i < key_prints.size(); ++i) {
      if (key_prints[i] == print) return key_refs[i];
    }
    if (IsAggregateCall(*e)) {
      auto it = agg_refs.find(print);
      if (it != agg_refs.end()) return it->second;
      Attribute attr{DisplayName(*e), NewAttributeId(), e->type, e->nullable, ""};
      node->exprs.push_back(e);
      agg_attrs.push_back(attr);
      return agg_refs[print] = AttributeRef(attr);
    }
    if (e->kind == ExprKind::kAttribute) {
      return UserError(ErrorKind::kAnalysis, "MISSING_AGGREGATION",
                       "The non-aggregating expression \"" + e->name +
                           "\" is based on columns which are not participating in the GROUP BY "
                           "clause.\nAdd the columns or the expression to the GROUP BY, aggregate "
                           "the expression, or use \"any_value(" + e->name +
                           ")\" if you do not care which of the values within a group is "
                           "returned.",
                       "42803");
    }
    return nullptr;
  };

  std::vector<ExprPtr> all_outputs;
  if (include_groupings) {
    for (size_t i = 0; i < groupings.size(); ++i) all_outputs.push_back(key_refs[i]);
  }
  std::vector<ExprPtr> project;
  for (const auto& ref : all_outputs) project.push_back(ref);
  for (const auto& o : outputs) {
    if (o->kind == ExprKind::kStar) {
      return UserError(ErrorKind::kAnalysis, "INVALID_USAGE_OF_STAR_OR_REGEX",
                       "Invalid usage of '*' in an aggregation.", "42000");
    }
    ARROW_ASSIGN_OR_RAISE(auto r, Resolve(o, scope));
    ARROW_ASSIGN_OR_RAISE(auto rewritten, Transform(r, rewrite));
    if (rewritten->kind == ExprKind::kAttribute && StripAlias(r)->kind != ExprKind::kAttribute &&
        r->kind != ExprKind::kAlias) {
      project.push_back(Alias(rewritten, DisplayName(*o)));
    } else {
      project.push_back(Named(rewritten, o));
    }
  }
  node->output.insert(node->output.end(), agg_attrs.begin(), agg_attrs.end());

  // Output aliases may be used in HAVING and ORDER BY (SQL).
  auto substitute_aliases = [&](const ExprPtr& e) {
    return Transform(e, [&](const ExprPtr& x) -> Result<ExprPtr> {
      if (x->kind == ExprKind::kColumn && x->name_parts.size() == 1) {
        for (const auto& o : outputs) {
          if (o->kind == ExprKind::kAlias && NameEquals(o->name, x->name_parts[0])) {
            bool is_input = false;
            for (const auto& a : child->output) is_input |= NameEquals(a.name, o->name);
            if (!is_input) return o->args[0];
          }
        }
      }
      return nullptr;
    });
  };

  std::vector<ExprPtr> having_rewritten;
  if (having) {
    ARROW_ASSIGN_OR_RAISE(auto h, substitute_aliases(having));
    ARROW_ASSIGN_OR_RAISE(auto r, Resolve(h, scope));
    ARROW_ASSIGN_OR_RAISE(auto rewritten, Transform(r, rewrite));
    ARROW_RETURN_NOT_OK(CheckBoolean(rewritten, "Filter"));
    having_rewritten.push_back(rewritten);
  }
  std::vector<ExprPtr> orders_rewritten;
  for (const auto& o : order_by) {
    ARROW_ASSIGN_OR_RAISE(auto x, substitute_aliases(o));
    ARROW_ASSIGN_OR_RAISE(auto r, Resolve(x, scope));
    ARROW_ASSIGN_OR_RAISE(auto rewritten, Transform(r, rewrite));
    orders_rewritten.push_back(rewritten);
  }
  // Aggregates found in HAVING or ORDER BY extend the aggregate's output.
  node->output.resize(node->groupings.size());
  node->output.insert(node->output.end(), agg_attrs.begin(), agg_attrs.end());
  ARROW_RETURN_NOT_OK(CheckUserAggregates(node->exprs));

  PlanPtr plan = node;
  for (const auto& h : having_rewritten) {
    auto filter = NewNode(PlanKind::kFilter, {plan});
    filter->exprs = {CastIfNeeded(h, arrow::boolean())};
    filter->output = plan->output;
    plan = filter;
  }
  if (!orders_rewritten.empty()) {
    ARROW_ASSIGN_OR_RAISE(plan, Sort(plan, orders_rewritten));
  }
  return MakeProject(plan, std::move(project));
}

Result<PlanPtr> Analyzer::Join(const PlanPtr& left, const PlanPtr& right_in, JoinType type,
                               const ExprPtr& condition,
                               const std::vector<std::string>& using_columns) const {
  PlanPtr right = right_in;
  // Both sides from one lineage (a self-join): give the right side fresh attribute ids.
  std::set<int64_t> left_ids;
  for (const auto& a : left->output) left_ids.insert(a.id);
  bool overlap = std::any_of(right->output.begin(), right->output.end(),
                             [&](const Attribute& a) { return left_ids.count(a.id) > 0; });
  if (overlap) {
    auto fresh = NewNode(PlanKind::kProject, {right});
    for (const auto& a : right->output) {
      Attribute copy = a;
      copy.id = NewAttributeId();
      fresh->exprs.push_back(Alias(AttributeRef(a), a.name));
      fresh->output.push_back(copy);
    }
    right = fresh;
  }
  auto node = NewNode(PlanKind::kJoin, {left, right});
  ARROW_RETURN_NOT_OK(CheckObservationNames(*node));
  node->join_type = type;
  Scope scope{left->output};
  scope.attributes.insert(scope.attributes.end(), right->output.begin(), right->output.end());

  ExprPtr resolved_condition;
  std::vector<std::pair<Attribute, Attribute>> using_pairs;
  for (const auto& name : using_columns) {
    auto find = [&](const PlanPtr& side, const char* which) -> Result<Attribute> {
      for (const auto& a : side->output) {
        if (NameEquals(a.name, name)) return a;
      }
      std::string columns;
      for (const auto& a : side->output) columns += (columns.empty() ? "" : ", ") + Backquote(a.name);
      return UserError(ErrorKind::kAnalysis, "UNRESOLVED_USING_COLUMN_FOR_JOIN",
                       "USING column " + Backquote(name) + " cannot be resolved on the " + which +
                           " side of the join. The " + which + "-side columns: [" + columns + "].",
                       "42703");
    };
    ARROW_ASSIGN_OR_RAISE(auto l, find(left, "left"));
    ARROW_ASSIGN_OR_RAISE(auto r, find(right, "right"));
    using_pairs.emplace_back(l, r);
    ARROW_ASSIGN_OR_RAISE(auto eq, Resolve(Call("=", {AttributeRef(l), AttributeRef(r)}), scope));
    resolved_condition = resolved_condition ? Call("and", {resolved_condition, eq}) : eq;
    if (resolved_condition->kind == ExprKind::kCall && !resolved_condition->type) {
      ARROW_ASSIGN_OR_RAISE(resolved_condition, Resolve(resolved_condition, scope));
    }
  }
  if (condition) {
    ARROW_ASSIGN_OR_RAISE(auto c, Resolve(condition, scope));
    ARROW_RETURN_NOT_OK(CheckBoolean(c, "Join condition"));
    resolved_condition = StripAlias(c);
  }
  if (resolved_condition) node->exprs = {resolved_condition};
  if (type == JoinType::kInner && !resolved_condition) node->join_type = JoinType::kCross;

  bool left_nullable = type == JoinType::kRightOuter || type == JoinType::kFullOuter;
  bool right_nullable = type == JoinType::kLeftOuter || type == JoinType::kFullOuter;
  for (auto a : left->output) {
    a.nullable |= left_nullable;
    node->output.push_back(a);
  }
  if (type != JoinType::kLeftSemi && type != JoinType::kLeftAnti) {
    for (auto a : right->output) {
      a.nullable |= right_nullable;
      node->output.push_back(a);
    }
  }
  if (using_pairs.empty()) return node;

  // USING: the join columns once, first, then the other columns of each side.
  std::vector<ExprPtr> project;
  std::set<int64_t> used;
  auto out_attr = [&](int64_t id) {
    for (const auto& a : node->output) {
      if (a.id == id) return a;
    }
    return Attribute{};
  };
  for (const auto& [l, r] : using_pairs) {
    used.insert(l.id);
    used.insert(r.id);
    if (type == JoinType::kRightOuter) {
      project.push_back(AttributeRef(out_attr(r.id)));
    } else if (type == JoinType::kFullOuter) {
      ARROW_ASSIGN_OR_RAISE(auto c, Resolve(Call("coalesce", {AttributeRef(out_attr(l.id)),
                                                             AttributeRef(out_attr(r.id))}),
                                            Scope{node->output}));
      project.push_back(Alias(c, l.name));
    } else {
      project.push_back(AttributeRef(out_attr(l.id)));
    }
  }
  for (const auto& a : node->output) {
    if (!used.count(a.id)) project.push_back(AttributeRef(a));
  }
  return MakeProject(node, std::move(project));
}

// Spark's rule for a sort right after an aggregation (ResolveAggregateFunctions): an order over
// the aggregation's input columns that is one of its grouping expressions sorts by that key
// (`groupBy(df.id + 1).agg(...).sort(df.id + 1)`). Null when `order` is not such an order.
Result<ExprPtr> Analyzer::ResolveByGroupingKey(const PlanPtr& child, const ExprPtr& order) const {
  const LogicalPlan* aggregate = child.get();
  if (aggregate->kind == PlanKind::kProject) aggregate = aggregate->children[0].get();
  if (aggregate->kind != PlanKind::kAggregate) return nullptr;
  auto over_input = Resolve(order, Scope{aggregate->children[0]->output});
  if (!over_input.ok()) return nullptr;
  bool outside = false;
  ARROW_ASSIGN_OR_RAISE(auto rewritten, Transform(*over_input, [&](const ExprPtr& e) -> Result<ExprPtr> {
    if (e->kind == ExprKind::kSortOrder || e->kind == ExprKind::kAlias) return nullptr;
    const std::string print = Fingerprint(*e);
    for (size_t k = 0; k < aggregate->groupings.size(); ++k) {
      if (Fingerprint(*aggregate->groupings[k]) == print) return AttributeRef(aggregate->output[k]);
    }
    if (e->kind == ExprKind::kAttribute) outside = true;  // an input column that is no key
    return nullptr;
  }));
  if (outside) return nullptr;
  // The keys must still be columns of the child (a projection may have dropped them).
  bool visible = true;
  std::function<void(const Expr&)> check = [&](const Expr& e) {
    if (e.kind == ExprKind::kAttribute) visible = visible && AttributeIndex(child->output, e.id) >= 0;
    for (const auto& arg : e.args) check(*arg);
  };
  check(*rewritten);
  return visible ? rewritten : nullptr;
}

Result<PlanPtr> Analyzer::Sort(const PlanPtr& child, const std::vector<ExprPtr>& orders) const {
  if (std::any_of(orders.begin(), orders.end(), [](const ExprPtr& o) { return ContainsWindow(*o); })) {
    return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                     "The feature is not supported: a window function in ORDER BY in Ember; "
                     "select it and order by its column.",
                     "0A000");
  }
  Scope scope{child->output};
  auto node = NewNode(PlanKind::kSort, {child});
  for (const auto& o : orders) {
    auto resolved = Resolve(o, scope);
    if (!resolved.ok()) {
      ARROW_ASSIGN_OR_RAISE(auto by_key, ResolveByGroupingKey(child, o));
      if (by_key) resolved = by_key;
    }
    ARROW_ASSIGN_OR_RAISE(auto r, std::move(resolved));
    if (r->kind != ExprKind::kSortOrder) r = SortOrder(StripAlias(r), true, true);
    node->exprs.push_back(SortOrder(StripAlias(r->args[0]), r->ascending, r->nulls_first));
  }
  node->output = child->output;
  return node;
}

Result<PlanPtr> Analyzer::Limit(const PlanPtr& child, int64_t limit) const {
  if (limit < 0) {
    return UserError(ErrorKind::kAnalysis, "INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE",
                     "The limit like expression \"" + std::to_string(limit) +
                         "\" is invalid. The limit expression must be equal to or greater than 0, "
                         "but got " + std::to_string(limit) + ".",
                     "42K0E");
  }
  auto node = NewNode(PlanKind::kLimit, {child});
  node->limit = limit;
  node->output = child->output;
  return node;
}

Result<PlanPtr> Analyzer::Union(const PlanPtr& left, const PlanPtr& right_in, bool by_name,
                                bool allow_missing_columns) const {
  PlanPtr right = right_in;
  PlanPtr left_plan = left;
  if (by_name) {
    std::vector<ExprPtr> reordered;
    for (const auto& l : left->output) {
      const Attribute* match = nullptr;
      for (const auto& r : right->output) {
        if (NameEquals(r.name, l.name)) match = &r;
      }
      if (match) {
        reordered.push_back(AttributeRef(*match));
      } else if (allow_missing_columns) {
        reordered.push_back(Alias(Literal(arrow::MakeNullScalar(l.type)), l.name));
      } else {
        std::string columns;
        for (const auto& a : right->output) columns += (columns.empty() ? "" : ", ") + Backquote(a.name);
        return UserError(ErrorKind::kAnalysis, "UNRESOLVED_COLUMN.WITH_SUGGESTION",
                         "A column, variable, or function parameter with name " +
                             Backquote(l.name) + " cannot be resolved. Did you mean one of the "
                             "following? [" + columns + "].",
                         "42703");
      }
    }
    if (allow_missing_columns) {
      std::vector<ExprPtr> left_extended;
      for (const auto& l : left->output) left_extended.push_back(AttributeRef(l));
      for (const auto& r : right->output) {
        bool present = std::any_of(left->output.begin(), left->output.end(),
                                   [&](const Attribute& l) { return NameEquals(l.name, r.name); });
        if (!present) {
          left_extended.push_back(Alias(Literal(arrow::MakeNullScalar(r.type)), r.name));
          reordered.push_back(AttributeRef(r));
        }
      }
      ARROW_ASSIGN_OR_RAISE(left_plan, Project(left, left_extended));
    }
    ARROW_ASSIGN_OR_RAISE(right, Project(right, reordered));
  }
  if (left_plan->output.size() != right->output.size()) {
    return UserError(ErrorKind::kAnalysis, "NUM_COLUMNS_MISMATCH",
                     "UNION can only be performed on inputs with the same number of columns, but "
                     "the first input has " + std::to_string(left_plan->output.size()) +
                         " columns and the second input has " +
                         std::to_string(right->output.size()) + " columns.",
                     "42826");
  }
  // Widen column types so both sides agree.
  std::vector<std::shared_ptr<arrow::DataType>> types;
  bool cast_left = false, cast_right = false;
  for (size_t i = 0; i < left_plan->output.size(); ++i) {
    const auto& l = left_plan->output[i];
    const auto& r = right->output[i];
    auto wider = WiderType(l.type, r.type);
    if (!wider && (IsString(*l.type) || IsString(*r.type))) wider = arrow::utf8();
    if (!wider) {
      return UserError(ErrorKind::kAnalysis, "INCOMPATIBLE_COLUMN_TYPE",
                       "UNION can only be performed on inputs with compatible column types. The " +
                           std::to_string(i + 1) + "th column of the second table is \"" +
                           SparkTypeName(*r.type, true) + "\" type which is not compatible with \"" +
                           SparkTypeName(*l.type, true) + "\" at the same column of the first table.",
                       "42825");
    }
    cast_left |= !wider->Equals(*l.type);
    cast_right |= !wider->Equals(*r.type);
    types.push_back(wider);
  }
  auto cast_side = [&](const PlanPtr& side) {
    std::vector<ExprPtr> exprs;
    for (size_t i = 0; i < side->output.size(); ++i) {
      exprs.push_back(Alias(CastIfNeeded(AttributeRef(side->output[i]), types[i]),
                            side->output[i].name));
    }
    return MakeProject(side, exprs);
  };
  if (cast_left) left_plan = cast_side(left_plan);
  if (cast_right) right = cast_side(right);
  auto node = NewNode(PlanKind::kUnion, {left_plan, right});
  ARROW_RETURN_NOT_OK(CheckObservationNames(*node));
  for (size_t i = 0; i < left_plan->output.size(); ++i) {
    Attribute a = left_plan->output[i];
    a.nullable = a.nullable || right->output[i].nullable;
    node->output.push_back(a);
  }
  return node;
}

Result<PlanPtr> Analyzer::Deduplicate(const PlanPtr& child, const std::vector<std::string>& columns,
                                      bool within_watermark) const {
  auto node = NewNode(PlanKind::kDeduplicate, {child});
  node->within_watermark = within_watermark;
  if (columns.empty()) {
    for (const auto& a : child->output) node->groupings.push_back(AttributeRef(a));
  }
  for (const auto& name : columns) {
    ARROW_ASSIGN_OR_RAISE(auto r, ResolveColumn(*Column({name}), Scope{child->output}));
    node->groupings.push_back(r);
  }
  node->output = child->output;
  return node;
}

Result<PlanPtr> Analyzer::SubqueryAlias(const PlanPtr& child, const std::string& alias) const {
  auto node = NewNode(PlanKind::kSubqueryAlias, {child});
  node->alias = alias;
  node->output = child->output;
  for (auto& a : node->output) a.qualifier = alias;
  return node;
}

Result<PlanPtr> Analyzer::CollectMetrics(const PlanPtr& child, const std::string& name,
                                         const std::vector<ExprPtr>& metrics,
                                         int64_t observation_id) const {
  // Names are resolved first: an unknown column is reported before a metric's shape, as Spark's
  // analysis resolves before it checks.
  Scope scope(child->output, /*observed_metrics=*/true);
  ARROW_ASSIGN_OR_RAISE(auto expanded, ExpandStars(metrics, scope));
  std::vector<ExprPtr> named;
  for (const auto& m : expanded) {
    ARROW_ASSIGN_OR_RAISE(auto r, Resolve(m, scope));
    named.push_back(Named(r, m));
  }
  auto node = NewNode(PlanKind::kCollectMetrics, {child});
  node->alias = name;
  node->exprs = named;
  node->output = child->output;
  node->observation_id = observation_id;
  if (name.empty()) {
    return UserError(ErrorKind::kAnalysis, "INVALID_OBSERVED_METRICS.MISSING_NAME",
                     "Invalid observed metrics. The observed metrics should be named: " +
                         PlanToString(*node) + ".",
                     "42K0E");
  }
  for (size_t i = 0; i < named.size(); ++i) {
    ARROW_RETURN_NOT_OK(CheckObservedMetric(*named[i], *expanded[i]));
  }
  // The metrics' row: a global aggregation over a stand-in for the rows passing the node.
  auto rows = NewNode(PlanKind::kLocalTable, {});
  rows->output = child->output;
  ARROW_ASSIGN_OR_RAISE(node->metrics_plan, Aggregate(rows, {}, expanded, false));
  ARROW_RETURN_NOT_OK(CheckObservationNames(*node));
  return node;
}

Result<PlanPtr> Analyzer::Watermark(const PlanPtr& child, const std::string& column,
                                    const std::string& delay) const {
  ARROW_ASSIGN_OR_RAISE(auto attr, ResolveColumn(*ColumnFromString(column), Scope{child->output}));
  if (attr->kind != ExprKind::kAttribute || attr->type->id() != arrow::Type::TIMESTAMP) {
    return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1207",
                     "Event time must be defined on a window or a timestamp, but " + column +
                         " is of type " + SparkTypeName(*attr->type) + ".",
                     "");
  }
  ARROW_ASSIGN_OR_RAISE(int64_t micros, ParseIntervalMicros(delay));
  if (micros < 0) {
    return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1208",
                     "delay threshold (" + delay + ") should not be negative.", "");
  }
  auto node = NewNode(PlanKind::kWatermark, {child});
  node->exprs = {attr};
  node->limit = micros / 1000;
  node->output = child->output;
  return node;
}

Result<PlanPtr> Analyzer::WithColumnsRenamed(
    const PlanPtr& child, const std::vector<std::pair<std::string, std::string>>& renames) const {
  std::vector<ExprPtr> exprs;
  for (const auto& a : child->output) {
    ExprPtr e = AttributeRef(a);
    for (const auto& [from, to] : renames) {
      if (NameEquals(a.name, from)) e = Alias(AttributeRef(a), to);
    }
    exprs.push_back(e);
  }
  return MakeProject(child, exprs);
}

Result<PlanPtr> Analyzer::Drop(const PlanPtr& child, const std::vector<ExprPtr>& columns) const {
  std::set<int64_t> dropped;
  for (const auto& c : columns) {
    if (c->kind == ExprKind::kColumn && c->name_parts.size() == 1) {
      for (const auto& a : child->output) {
        if (NameEquals(a.name, c->name_parts[0])) dropped.insert(a.id);
      }
    } else if (c->kind == ExprKind::kAttribute) {
      dropped.insert(c->id);
    }
  }
  std::vector<ExprPtr> kept;
  for (const auto& a : child->output) {
    if (!dropped.count(a.id)) kept.push_back(AttributeRef(a));
  }
  return MakeProject(child, kept);
}

// --- SQL --------------------------------------------------------------------------------------

bool Analyzer::IsOrderByAll(const Expr& e, const std::vector<Attribute>& input) const {
  return e.kind == ExprKind::kColumn && e.name_parts.size() == 1 &&
         Lower(e.name_parts[0]) == "all" &&
         std::none_of(input.begin(), input.end(),
                      [&](const Attribute& a) { return NameEquals(a.name, "all"); });
}

Result<PlanPtr> Analyzer::ResolveSelect(const LogicalPlan& select) const {
  const SelectBlock& block = *select.select;
  PlanPtr from;
  if (select.children.empty()) {
    from = OneRowRelation();
  } else {
    ARROW_ASSIGN_OR_RAISE(from, Resolve(select.children[0]));
  }
  if (block.where) {
    ARROW_ASSIGN_OR_RAISE(from, Filter(from, block.where));
  }
  // Ordinals in GROUP BY and ORDER BY refer to the select list, its stars expanded.
  std::vector<ExprPtr> select_items = block.select_list;
  if (auto expanded = ExpandStars(select_items, Scope{from->output}); expanded.ok()) {
    select_items = *expanded;
  }
  auto ordinal = [&](const ExprPtr& e) -> ExprPtr {
    const Expr& x = *StripAlias(e);
    if (x.kind == ExprKind::kLiteral && x.type->id() == arrow::Type::INT32) {
      int64_t k = static_cast<const arrow::Int32Scalar&>(*x.value).value;
      if (k >= 1 && k <= static_cast<int64_t>(select_items.size())) {
        const ExprPtr& item = select_items[k - 1];
        return item->kind == ExprKind::kAlias ? item->args[0] : item;
      }
    }
    return nullptr;
  };
  auto group_alias = [&](const ExprPtr& e) -> ExprPtr {
    if (auto o = ordinal(e)) return o;
    if (e->kind == ExprKind::kColumn && e->name_parts.size() == 1) {
      bool is_input = std::any_of(from->output.begin(), from->output.end(),
                                  [&](const Attribute& a) { return NameEquals(a.name, e->name_parts[0]); });
      for (const auto& item : block.select_list) {
        if (!is_input && item->kind == ExprKind::kAlias && NameEquals(item->name, e->name_parts[0])) {
          return item->args[0];
        }
      }
    }
    return e;
  };
  std::vector<ExprPtr> order_by;
  for (const auto& o : block.order_by) {
    ExprPtr child = o->args[0];
    if (auto item = ordinal(child)) child = item;
    order_by.push_back(SortOrder(child, o->ascending, o->nulls_first));
  }
  // ORDER BY ALL (unless a column is named `all`): every select item, in order.
  if (order_by.size() == 1 && IsOrderByAll(*order_by[0]->args[0], from->output)) {
    const bool ascending = order_by[0]->ascending, nulls_first = order_by[0]->nulls_first;
    order_by.clear();
    for (const auto& item : select_items) {
      order_by.push_back(SortOrder(item->kind == ExprKind::kAlias ? item->args[0] : item,
                                   ascending, nulls_first));
    }
  }

  bool aggregate = !block.group_by.empty() || block.having;
  for (const auto& item : block.select_list) aggregate |= CallsAggregate(*item);
  PlanPtr plan;
  if (aggregate) {
    std::vector<ExprPtr> groupings;
    for (const auto& g : block.group_by) groupings.push_back(group_alias(g));
    std::vector<ExprPtr> items;
    Scope scope{from->output};
    ARROW_ASSIGN_OR_RAISE(items, ExpandStars(block.select_list, scope));
    ARROW_ASSIGN_OR_RAISE(plan, Aggregate(from, groupings, items, false, block.having,
                                          block.distinct ? std::vector<ExprPtr>{} : order_by));
    if (block.distinct) {
      ARROW_ASSIGN_OR_RAISE(plan, Deduplicate(plan, {}));
      if (!order_by.empty()) {
        ARROW_ASSIGN_OR_RAISE(plan, Sort(plan, order_by));
      }
    }
  } else {
    ARROW_ASSIGN_OR_RAISE(plan, Project(from, block.select_list));
    // ORDER BY the ordinal of a window column sorts by that column, not by a window of its own.
    for (size_t i = 0; i < block.order_by.size() && i < order_by.size(); ++i) {
      const Expr& x = *StripAlias(block.order_by[i]->args[0]);
      if (x.kind != ExprKind::kLiteral || x.type->id() != arrow::Type::INT32) continue;
      const int64_t k = static_cast<const arrow::Int32Scalar&>(*x.value).value;
      if (k >= 1 && k <= static_cast<int64_t>(plan->output.size()) &&
          k <= static_cast<int64_t>(select_items.size()) && ContainsWindow(*select_items[k - 1])) {
        order_by[i] = SortOrder(AttributeRef(plan->output[k - 1]), order_by[i]->ascending,
                                order_by[i]->nulls_first);
      }
    }
    if (block.distinct) {
      ARROW_ASSIGN_OR_RAISE(plan, Deduplicate(plan, {}));
    }
    if (!order_by.empty()) {
      auto sorted = Sort(plan, order_by);
      if (sorted.ok() || block.distinct) {
        ARROW_ASSIGN_OR_RAISE(plan, std::move(sorted));
      } else {
        // ORDER BY a column that is not selected: sort below the projection.
        std::vector<ExprPtr> substituted;
        for (const auto& o : order_by) substituted.push_back(SortOrder(group_alias(o->args[0]), o->ascending, o->nulls_first));
        ARROW_ASSIGN_OR_RAISE(auto below, Sort(from, substituted));
        const auto* project = static_cast<const LogicalPlan*>(plan.get());
        auto again = std::make_shared<LogicalPlan>(*project);
        again->children = {below};
        plan = again;
      }
    }
  }
  if (block.limit >= 0) {
    ARROW_ASSIGN_OR_RAISE(plan, Limit(plan, block.limit));
  }
  return plan;
}

// A table function over a table argument's partitions (from the parser: PARTITION BY in
// `groupings`, none for WITH SINGLE PARTITION, ORDER BY after the call in `exprs`): the rows
// sorted by the keys (computed ones as extra columns: the partitions in key order) and then
// the order, one call per partition; the function sees the table's own columns.
Result<PlanPtr> Analyzer::PartitionedGenerate(const PlanPtr& child, const LogicalPlan& p) const {
  const Scope scope{child->output};
  std::vector<ExprPtr> columns, keys;
  for (const auto& a : child->output) columns.push_back(AttributeRef(a));
  for (const auto& g : p.groupings) {
    ARROW_ASSIGN_OR_RAISE(auto key, Resolve(g, scope));
    if (key->kind != ExprKind::kAttribute) {
      columns.push_back(Alias(key, "__partition" + std::to_string(columns.size())));
    }
    keys.push_back(key);
  }
  PlanPtr input = child;
  if (columns.size() > child->output.size()) input = MakeProject(child, columns);
  std::vector<ExprPtr> orders;
  for (size_t k = 0, computed = child->output.size(); k < keys.size(); ++k) {
    if (keys[k]->kind != ExprKind::kAttribute) keys[k] = AttributeRef(input->output[computed++]);
    orders.push_back(SortOrder(keys[k], true, true));
  }
  orders.insert(orders.end(), p.exprs.begin() + 1, p.exprs.end());
  PlanPtr sorted = input;
  if (!orders.empty()) {
    ARROW_ASSIGN_OR_RAISE(sorted, Sort(input, orders));
  }
  ARROW_ASSIGN_OR_RAISE(auto generate,
                        Generate(sorted, child->output, p.exprs[0], p.name_parts, p.alias));
  auto node = std::make_shared<LogicalPlan>(*generate);
  node->groupings = std::move(keys);
  node->partitioned = true;
  return node;
}

// `range(...)` in FROM: Spark's built-in table-valued function, unless the session has a table
// function of that name.
bool Analyzer::IsRangeCall(const Expr& call) const {
  return call.kind == ExprKind::kCall && !call.table_function && Lower(call.name) == "range" &&
         !(options_.lookup_table_function && options_.lookup_table_function(call.name));
}

// range(end), range(start, end[, step[, numPartitions]]): the column `id` (bigint), from start
// (0) up to end, by step (1).
Result<PlanPtr> Analyzer::RangeRelation(const Expr& call) const {
  const size_t n = call.args.size();
  if (n < 1 || n > 4 || !call.keywords.empty()) {
    return UserError(ErrorKind::kAnalysis, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                     "The `range` requires [1, 2, 3, 4] parameters but the actual number is " +
                         std::to_string(n) + ".",
                     "42605");
  }
  std::vector<int64_t> values;
  for (const auto& arg : call.args) {
    ARROW_ASSIGN_OR_RAISE(auto resolved, Resolve(arg, Scope{{}}));
    if (!IsFoldable(*resolved) || !options_.evaluate) {
      return UserError(ErrorKind::kAnalysis, "NON_FOLDABLE_ARGUMENT",
                       "The function `range` requires the parameter to be a foldable expression "
                       "of the type \"BIGINT\", but the actual argument is a non-foldable.",
                       "42K08");
    }
    ARROW_ASSIGN_OR_RAISE(auto value, options_.evaluate(resolved, arrow::int64()));
    values.push_back(value->is_valid ? static_cast<const arrow::Int64Scalar&>(*value).value : 0);
  }
  auto node = NewNode(PlanKind::kLocalTable, {});
  ARROW_ASSIGN_OR_RAISE(node->table, RangeTable(n == 1 ? 0 : values[0], n == 1 ? values[0] : values[1],
                                                n >= 3 ? values[2] : 1, n == 4 ? values[3] : 1));
  node->output = {Attribute{"id", NewAttributeId(), arrow::int64(), false, ""}};
  return node;
}

// VALUES: Spark's inline table, its rows constant and evaluated here, each column of the
// type its values widen to, named col1, col2, ...
Result<PlanPtr> Analyzer::InlineTable(const std::vector<std::vector<ExprPtr>>& rows) const {
  auto invalid = [](const std::string& condition, const std::string& message) {
    return UserError(ErrorKind::kAnalysis, "INVALID_INLINE_TABLE." + condition,
                     "Invalid inline table. " + message, "42000");
  };
  const size_t width = rows[0].size();
  std::vector<std::vector<ExprPtr>> resolved;
  std::vector<std::shared_ptr<arrow::DataType>> types(width);
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].size() != width) {
      return invalid("NUM_COLUMNS_MISMATCH",
                     "Inline table expected " + std::to_string(width) + " columns but found " +
                         std::to_string(rows[r].size()) + " columns in row " +
                         std::to_string(r) + ".");
    }
    auto& row = resolved.emplace_back();
    for (size_t c = 0; c < width; ++c) {
      ARROW_ASSIGN_OR_RAISE(auto e, Resolve(rows[r][c], Scope{{}}));
      if (!IsFoldable(*e) || !options_.evaluate) {
        return invalid("CANNOT_EVALUATE_EXPRESSION_IN_INLINE_TABLE",
                       "Cannot evaluate the expression \"" + DisplayName(*e) +
                           "\" in inline table definition.");
      }
      types[c] = r == 0 ? e->type : WiderType(types[c], e->type);
      if (!types[c]) {
        return invalid("INCOMPATIBLE_TYPES_IN_INLINE_TABLE",
                       "Found incompatible types in the column `col" + std::to_string(c + 1) +
                           "` for inline table.");
      }
      row.push_back(std::move(e));
    }
  }
  auto node = NewNode(PlanKind::kLocalTable, {});
  arrow::FieldVector fields;
  arrow::ArrayVector columns;
  for (size_t c = 0; c < width; ++c) {
    // A column at once: the array of its cells, each cast to the column's type.
    std::vector<ExprPtr> cells;
    for (const auto& row : resolved) cells.push_back(Cast(row[c], types[c]));
    ARROW_ASSIGN_OR_RAISE(auto list, options_.evaluate(Call("array", std::move(cells)),
                                                       arrow::list(types[c])));
    auto column = static_cast<const arrow::BaseListScalar&>(*list).value;
    const bool nullable = column->null_count() > 0;
    const std::string name = "col" + std::to_string(c + 1);
    fields.push_back(arrow::field(name, types[c], nullable));
    columns.push_back(std::move(column));
    node->output.push_back(Attribute{name, NewAttributeId(), types[c], nullable, ""});
  }
  node->table = arrow::Table::Make(arrow::schema(fields), columns);
  return node;
}

// A Generate from the parser: LATERAL VIEW [OUTER] generator(...) alias [AS] names, a
// table-valued function in FROM (without a child: over one row), or one that follows other
// relations (LATERAL f(...)), maybe over a table argument's partitions.
Result<PlanPtr> Analyzer::ResolveGenerate(const LogicalPlan& p) const {
  PlanPtr child = OneRowRelation();
  if (!p.children.empty()) {
    ARROW_ASSIGN_OR_RAISE(child, Resolve(p.children[0]));
  } else if (IsRangeCall(*p.exprs[0])) {
    ARROW_ASSIGN_OR_RAISE(auto range, RangeRelation(*p.exprs[0]));
    return p.alias.empty() ? range : SubqueryAlias(range, p.alias);
  }
  PlanPtr generated;
  auto partitioned = std::make_shared<LogicalPlan>(p);
  ExprPtr call = p.exprs[0];
  if (p.generated_only && !p.partitioned) {
    // Without PARTITION BY, the function's analyze() may ask for partitions (resolved once
    // here: analyze() runs the user's code).
    ARROW_ASSIGN_OR_RAISE(call, Resolve(p.exprs[0], Scope{child->output}));
    if (call->table_function && call->table_function->table_request.partitioned()) {
      const auto& request = call->table_function->table_request;
      partitioned->partitioned = true;
      partitioned->groupings = request.partition_by;
      partitioned->exprs = {call};
      partitioned->exprs.insert(partitioned->exprs.end(), request.order_by.begin(),
                                request.order_by.end());
    }
  }
  if (partitioned->partitioned) {
    ARROW_ASSIGN_OR_RAISE(generated, PartitionedGenerate(child, *partitioned));
  } else {
    ARROW_ASSIGN_OR_RAISE(generated,
                          Generate(child, child->output, call, p.name_parts, p.alias));
  }
  if (!p.generated_only) return generated;
  std::vector<ExprPtr> columns;
  for (size_t i = generated->children[0]->output.size(); i < generated->output.size(); ++i) {
    columns.push_back(AttributeRef(generated->output[i]));
  }
  return MakeProject(generated, std::move(columns));
}

Result<PlanPtr> Analyzer::Resolve(const PlanPtr& plan) const {
  const LogicalPlan& p = *plan;
  switch (p.kind) {
    case PlanKind::kLocalTable:
      if (!p.table && !p.projections.empty()) return InlineTable(p.projections);
      return plan;
    case PlanKind::kGenerate:
      if (!p.output.empty()) return plan;
      return ResolveGenerate(p);
    case PlanKind::kUnresolvedRelation: {
      if (!options_.lookup_relation) {
        return Status::Invalid("no catalog to look up ", p.name_parts.back());
      }
      ARROW_ASSIGN_OR_RAISE(auto relation, options_.lookup_relation(p));
      return SubqueryAlias(relation, p.name_parts.back());
    }
    case PlanKind::kSubqueryAlias: {
      ARROW_ASSIGN_OR_RAISE(auto child, Resolve(p.children[0]));
      if (!p.name_parts.empty()) {
        // `alias(a, b)`: the columns renamed in order.
        if (p.name_parts.size() != child->output.size()) {
          return UserError(ErrorKind::kAnalysis, "ASSIGNMENT_ARITY_MISMATCH",
                           "The number of columns or variables assigned or aliased: " +
                               std::to_string(p.name_parts.size()) +
                               " does not match the number of source tables or expressions: " +
                               std::to_string(child->output.size()) + ".",
                           "42802");
        }
        std::vector<ExprPtr> renamed;
        for (size_t i = 0; i < child->output.size(); ++i) {
          renamed.push_back(Alias(AttributeRef(child->output[i]), p.name_parts[i]));
        }
        ARROW_ASSIGN_OR_RAISE(child, Project(child, renamed));
      }
      return SubqueryAlias(child, p.alias);
    }
    case PlanKind::kJoin: {
      ARROW_ASSIGN_OR_RAISE(auto left, Resolve(p.children[0]));
      ARROW_ASSIGN_OR_RAISE(auto right, Resolve(p.children[1]));
      return Join(left, right, p.join_type, p.exprs.empty() ? nullptr : p.exprs[0],
                  p.using_columns);
    }
    case PlanKind::kUnion: {
      ARROW_ASSIGN_OR_RAISE(auto left, Resolve(p.children[0]));
      ARROW_ASSIGN_OR_RAISE(auto right, Resolve(p.children[1]));
      return Union(left, right, false, false);
    }
    case PlanKind::kDeduplicate: {
      ARROW_ASSIGN_OR_RAISE(auto child, Resolve(p.children[0]));
      return Deduplicate(child, {});
    }
    case PlanKind::kSelect:
      return ResolveSelect(p);
    default:
      // Already resolved (a view's plan).
      if (!p.output.empty() || p.kind == PlanKind::kLocalTable) return plan;
      return Status::Invalid("cannot resolve plan node");
  }
}

}  // namespace ember::plan
