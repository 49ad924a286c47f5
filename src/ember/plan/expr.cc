#include "ember/plan/expr.h"

#include <algorithm>
#include <atomic>

#include <arrow/scalar.h>
#include <arrow/type.h>

#include "ember/common/java_number.h"
#include "ember/plan/functions.h"
#include "ember/plan/type_names.h"
#include "ember/user_function.h"

namespace ember::plan {

int64_t NewAttributeId() {
  static std::atomic<int64_t> next{1};
  return next++;
}

namespace {
std::shared_ptr<Expr> New(ExprKind kind) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  return e;
}
}  // namespace

ExprPtr Column(std::vector<std::string> name_parts, int64_t plan_id) {
  auto e = New(ExprKind::kColumn);
  e->name_parts = std::move(name_parts);
  e->plan_id = plan_id;
  return e;
}

ExprPtr ColumnFromString(const std::string& text, int64_t plan_id) {
  std::vector<std::string> parts(1);
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '`') {
      if (quoted && i + 1 < text.size() && text[i + 1] == '`') {
        parts.back() += '`';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == '.' && !quoted) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return Column(std::move(parts), plan_id);
}

ExprPtr Star(std::vector<std::string> qualifier) {
  auto e = New(ExprKind::kStar);
  e->name_parts = std::move(qualifier);
  return e;
}

ExprPtr AttributeRef(const Attribute& attribute) {
  auto e = New(ExprKind::kAttribute);
  e->name = attribute.name;
  e->id = attribute.id;
  e->type = attribute.type;
  e->nullable = attribute.nullable;
  return e;
}

int AttributeIndex(const std::vector<Attribute>& attributes, int64_t id) {
  for (size_t i = 0; i < attributes.size(); ++i) {
    if (attributes[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

ExprPtr Literal(std::shared_ptr<arrow::Scalar> value) {
  auto e = New(ExprKind::kLiteral);
  e->type = value->type;
  e->nullable = !value->is_valid;
  e->value = std::move(value);
  return e;
}

ExprPtr Call(std::string function, std::vector<ExprPtr> args, bool distinct) {
  auto e = New(ExprKind::kCall);
  e->name = std::move(function);
  e->args = std::move(args);
  e->distinct = distinct;
  return e;
}

namespace {
std::shared_ptr<Expr> UserCall(std::string name, std::vector<ExprPtr> args,
                               std::vector<std::string> keywords) {
  auto e = New(ExprKind::kCall);
  e->name = std::move(name);
  e->args = std::move(args);
  if (std::any_of(keywords.begin(), keywords.end(), [](const auto& k) { return !k.empty(); })) {
    e->keywords = std::move(keywords);
  }
  return e;
}
}  // namespace

ExprPtr Call(std::shared_ptr<const UserFunction> function, std::vector<ExprPtr> args,
             std::vector<std::string> keywords) {
  auto e = UserCall(function->name, std::move(args), std::move(keywords));
  e->function = std::move(function);
  return e;
}

ExprPtr Call(std::shared_ptr<const UserTableFunction> function, std::vector<ExprPtr> args,
             std::vector<std::string> keywords) {
  auto e = UserCall(function->name, std::move(args), std::move(keywords));
  e->table_function = std::move(function);
  return e;
}

ExprPtr Cast(ExprPtr child, std::shared_ptr<arrow::DataType> type, bool try_cast) {
  auto e = New(ExprKind::kCast);
  e->args = {std::move(child)};
  e->type = std::move(type);
  e->try_cast = try_cast;
  return e;
}

ExprPtr Lambda(ExprPtr body, std::vector<std::string> names) {
  auto e = New(ExprKind::kLambda);
  e->args = {std::move(body)};
  e->name_parts = std::move(names);
  return e;
}

ExprPtr MultiAlias(ExprPtr child, std::vector<std::string> names) {
  auto e = New(ExprKind::kAlias);
  e->type = child->type;
  e->nullable = child->nullable;
  e->args = {std::move(child)};
  e->name = names.empty() ? "" : names[0];
  e->name_parts = std::move(names);
  return e;
}

ExprPtr Alias(ExprPtr child, std::string name) {
  auto e = New(ExprKind::kAlias);
  e->type = child->type;
  e->nullable = child->nullable;
  e->args = {std::move(child)};
  e->name = std::move(name);
  return e;
}

ExprPtr WindowExpr(ExprPtr function, std::vector<ExprPtr> partitions, std::vector<ExprPtr> orders,
                   std::shared_ptr<const WindowSpec> spec) {
  auto e = New(ExprKind::kWindow);
  auto window = std::make_shared<WindowSpec>(*spec);
  window->partitions = partitions.size();
  e->window = std::move(window);
  e->args.push_back(std::move(function));
  e->args.insert(e->args.end(), partitions.begin(), partitions.end());
  e->args.insert(e->args.end(), orders.begin(), orders.end());
  return e;
}

std::string FrameText(const WindowFrame& frame) {
  auto bound = [](int64_t b) -> std::string {
    if (b == WindowFrame::kUnboundedPreceding) return "UNBOUNDED PRECEDING";
    if (b == WindowFrame::kUnboundedFollowing) return "UNBOUNDED FOLLOWING";
    if (b == 0) return "CURRENT ROW";
    return b < 0 ? std::to_string(-b) + " PRECEDING" : std::to_string(b) + " FOLLOWING";
  };
  return std::string(frame.rows ? "ROWS" : "RANGE") + " BETWEEN " + bound(frame.lower) + " AND " +
         bound(frame.upper);
}

ExprPtr SortOrder(ExprPtr child, bool ascending, bool nulls_first) {
  auto e = New(ExprKind::kSortOrder);
  e->type = child->type;
  e->args = {std::move(child)};
  e->ascending = ascending;
  e->nulls_first = nulls_first;
  return e;
}

const ExprPtr& StripAlias(const ExprPtr& expr) {
  if (expr->kind == ExprKind::kAlias || expr->kind == ExprKind::kSortOrder) {
    return StripAlias(expr->args[0]);
  }
  return expr;
}

namespace {

bool IsInfix(const std::string& f) {
  static const char* kInfix[] = {"+", "-", "*", "/", "%", "=", "<=>", "<", "<=", ">", ">=",
                                 "and", "or", "||", "&", "|", "^", "div"};
  for (const char* op : kInfix) {
    if (f == op) return true;
  }
  return false;
}

std::string LiteralName(const arrow::Scalar& value) {
  if (!value.is_valid) return "NULL";
  if (value.type->id() == arrow::Type::BOOL) {
    return static_cast<const arrow::BooleanScalar&>(value).value ? "true" : "false";
  }
  if (value.type->id() == arrow::Type::INT64) return value.ToString() + "L";
  if (value.type->id() == arrow::Type::DOUBLE) {
    return JavaNumberText(static_cast<const arrow::DoubleScalar&>(value).value);
  }
  if (value.type->id() == arrow::Type::FLOAT) {
    return JavaNumberText(static_cast<const arrow::FloatScalar&>(value).value);
  }
  if (value.type->id() == arrow::Type::TIMESTAMP || value.type->id() == arrow::Type::DATE32) {
    return SparkTypeName(*value.type) + " '" + value.ToString() + "'";
  }
  return value.ToString();
}

}  // namespace

namespace {

// The expression with references to the variables `names` shown as Spark shows them.
ExprPtr AnonymousVariables(const ExprPtr& e, const std::vector<std::string>& names) {
  const bool variable =
      (e->kind == ExprKind::kColumn && e->name_parts.size() == 1 &&
       std::find(names.begin(), names.end(), e->name_parts[0]) != names.end()) ||
      (e->kind == ExprKind::kAttribute &&
       std::find(names.begin(), names.end(), e->name) != names.end());
  if (variable) return Column({"namedlambdavariable()"});
  auto out = std::make_shared<Expr>(*e);
  for (auto& arg : out->args) arg = AnonymousVariables(arg, names);
  return out;
}

}  // namespace

std::string DisplayName(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kColumn: {
      std::string out;
      for (const auto& p : e.name_parts) out += (out.empty() ? "" : ".") + p;
      return out;
    }
    case ExprKind::kStar:
      return e.name_parts.empty() ? "*" : e.name_parts.back() + ".*";
    case ExprKind::kAttribute:
    case ExprKind::kAlias:
      return e.name;
    case ExprKind::kLiteral:
      return LiteralName(*e.value);
    case ExprKind::kCast:
      return std::string(e.try_cast ? "TRY_CAST(" : "CAST(") + DisplayName(*e.args[0]) + " AS " +
             SparkTypeName(*e.type, /*upper=*/true) + ")";
    case ExprKind::kSortOrder:
      return DisplayName(*e.args[0]) + (e.ascending ? " ASC" : " DESC") +
             (e.nulls_first ? " NULLS FIRST" : " NULLS LAST");
    case ExprKind::kLambda: {
      // Spark's LambdaFunction shows every variable as namedlambdavariable().
      std::string out = "lambdafunction(" + DisplayName(*AnonymousVariables(e.args[0], e.name_parts));
      for (size_t k = 0; k < e.name_parts.size(); ++k) out += ", namedlambdavariable()";
      return out + ")";
    }
    case ExprKind::kWindow: {
      // Spark's WindowExpression: `f(v) OVER (PARTITION BY k ORDER BY v ASC NULLS FIRST frame)`.
      std::string out = DisplayName(*e.args[0]) + " OVER (";
      const size_t first_order = 1 + e.window->partitions;
      for (size_t i = 1; i < e.args.size(); ++i) {
        if (i == 1 && i < first_order) out += "PARTITION BY ";
        if (i == first_order) out += std::string(i > 1 ? " " : "") + "ORDER BY ";
        out += (i == 1 || i == first_order ? "" : ", ") + DisplayName(*e.args[i]);
      }
      if (e.args.size() > 1) out += " ";
      const WindowFrame& frame = e.window->frame;
      const std::string& f = e.args[0]->name;
      if ((f == "lag" || f == "lead") && frame.rows && frame.lower == frame.upper) {
        // Spark folds lag's offset into a literal bound: `-1 FOLLOWING`.
        const std::string bound = std::to_string(frame.lower) + " FOLLOWING";
        return out + "ROWS BETWEEN " + bound + " AND " + bound + ")";
      }
      return out + FrameText(frame) + ")";
    }
    case ExprKind::kCall:
      break;
  }
  // Spark names a call by its function's name, not as the call spelled it (startsWith).
  const FunctionDef* def = e.function || e.table_function ? nullptr : FindFunction(e.name);
  const std::string& f = def ? def->name : e.name;
  auto arg = [&](size_t i) {
    // A user's function may take arguments by keyword: Spark shows `f(v, w => w)`.
    if (i < e.keywords.size() && !e.keywords[i].empty()) {
      return e.keywords[i] + " => " + DisplayName(*e.args[i]);
    }
    return DisplayName(*e.args[i]);
  };
  if (IsInfix(f) && e.args.size() == 2) {
    std::string op = f;
    if (f == "and" || f == "or") {
      op = f == "and" ? "AND" : "OR";
    }
    return "(" + arg(0) + " " + op + " " + arg(1) + ")";
  }
  if (f == "not") return "(NOT " + arg(0) + ")";
  if (f == "negative") return "(- " + arg(0) + ")";
  if (f == "~") return "~" + arg(0);
  if ((f == "floor" || f == "ceil") && e.args.size() == 1) {  // Spark's Floor, Ceil: FLOOR(x)
    return (f == "floor" ? "FLOOR(" : "CEIL(") + arg(0) + ")";
  }
  if (f == "power") {  // Spark's Pow is named POWER; `pow` keeps the name it was called by
    return "POWER(" + arg(0) + ", " + arg(1) + ")";
  }
  if (f == "isnull") return "(" + arg(0) + " IS NULL)";
  if (f == "isnotnull") return "(" + arg(0) + " IS NOT NULL)";
  if (f == "in") {
    std::string out = "(" + arg(0) + " IN (";
    for (size_t i = 1; i < e.args.size(); ++i) out += (i > 1 ? ", " : "") + arg(i);
    return out + "))";
  }
  if (f == "like") return arg(0) + " LIKE " + arg(1);
  if (f == "extract_value") {  // Spark's GetStructField (and of an array's structs): a.f, else a[k]
    const auto& base = e.args[0]->type;
    const bool field = base ? base->id() == arrow::Type::STRUCT ||
                                  (base->id() == arrow::Type::LIST &&
                                   base->field(0)->type()->id() == arrow::Type::STRUCT &&
                                   e.args[1]->type && e.args[1]->type->id() == arrow::Type::STRING)
                            : e.args[1]->kind == ExprKind::kLiteral && e.args[1]->value &&
                                  e.args[1]->value->type->id() == arrow::Type::STRING;
    if (field) return arg(0) + "." + e.args[1]->value->ToString();
    return arg(0) + "[" + arg(1) + "]";
  }
  if ((f == "aggregate" || f == "reduce") && e.args.size() == 3) {
    // Spark shows the identity finish it supplies.
    return f + "(" + arg(0) + ", " + arg(1) + ", " + arg(2) +
           ", lambdafunction(namedlambdavariable(), namedlambdavariable()))";
  }
  if (f == "when") {
    std::string out = "CASE";
    size_t i = 0;
    for (; i + 1 < e.args.size(); i += 2) out += " WHEN " + arg(i) + " THEN " + arg(i + 1);
    if (i < e.args.size()) out += " ELSE " + arg(i);
    return out + " END";
  }
  // approx_count_distinct's name leaves out its rsd.
  if (f == "approx_count_distinct" && e.args.size() == 2) {
    return f + "(" + (e.distinct ? "DISTINCT " : "") + arg(0) + ")";
  }
  // split's name shows its default limit.
  if (f == "split" && e.args.size() == 2) return "split(" + arg(0) + ", " + arg(1) + ", -1)";
  if (f == "sort_array" && e.args.size() == 1) return "sort_array(" + arg(0) + ", true)";
  // count(*) counts rows; Spark names it count(1).
  if (f == "count" && e.args.size() == 1 && e.args[0]->kind == ExprKind::kStar) return "count(1)";
  std::string out = f + "(" + (e.distinct ? "DISTINCT " : "");
  for (size_t i = 0; i < e.args.size(); ++i) out += (i ? ", " : "") + arg(i);
  return out + ")";
}

}  // namespace ember::plan
