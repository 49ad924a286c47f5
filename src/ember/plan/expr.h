// Expressions of the logical plan. One tree type serves both the unresolved form built by the
// DataFrame API and the SQL parser (column names, function names) and the resolved form produced by
// the analyzer (attribute ids, types); `type` is set exactly when a node is resolved.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

namespace ember {
struct UserBatchFunction;
struct UserGroupFunction;
struct GroupStateSpec;
struct UserDataSource;
struct UserFunction;
struct UserTableFunction;
}

namespace ember::plan {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

enum class ExprKind {
  kColumn,     // unresolved column reference: name parts such as {"t", "a", "b"}
  kStar,       // `*` or `t.*`: name_parts holds the qualifier, if any
  kAttribute,  // a resolved column: an attribute id of a child plan's output
  kLiteral,    // a constant; an untyped NULL has arrow's null type
  kCall,       // a function or operator by its Spark name ("+", "=", "upper", "count", ...),
               // or a user's function (`function`, `table_function`)
  kCast,       // CAST(child AS type) or TRY_CAST
  kAlias,      // child AS name
  kSortOrder,  // child ASC|DESC NULLS FIRST|LAST; appears only in sort lists
  kLambda,     // `(x, i) -> body`, an argument of a higher-order function: args[0] is the body,
               // name_parts the variables' names; resolved, args[1..] are the variables
  kWindow,     // f(...) OVER (PARTITION BY ... ORDER BY ... frame): args[0] the function call,
               // then `window->partitions` partition keys, then the sort orders
};

/// A window's frame, Spark's WindowFrame: ROWS counts rows from the current one, RANGE compares
/// the order key's value (peers, rows of an equal key, are in the same place). A bound is an
/// offset from the current row (negative: preceding), or unbounded.
struct WindowFrame {
  static constexpr int64_t kUnboundedPreceding = INT64_MIN;
  static constexpr int64_t kUnboundedFollowing = INT64_MAX;
  bool rows = false;  // ROWS; else RANGE
  int64_t lower = kUnboundedPreceding;
  int64_t upper = 0;
};

/// A kWindow's specification besides its expressions.
struct WindowSpec {
  size_t partitions = 0;          // how many of the args after the function are partition keys
  bool frame_specified = false;   // an explicit ROWS|RANGE BETWEEN; else Spark's default frame
  WindowFrame frame;              // resolved: the frame used (the default filled in)
};

/// A column of a plan's output. The id is unique in the process and never reused, so two columns
/// with one name (after a self-join, say) stay distinct.
struct Attribute {
  std::string name;
  int64_t id = -1;
  std::shared_ptr<arrow::DataType> type;
  bool nullable = true;
  std::string qualifier;  // a table name or alias that `qualifier.name` may use
};

int64_t NewAttributeId();

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  std::vector<std::string> name_parts;      // kColumn, kStar; kAlias of several names (a generator's)
  std::string name;                         // kCall function, kAlias name, kAttribute name
  int64_t id = -1;                          // kAttribute
  int64_t plan_id = -1;                     // kColumn taken from a DataFrame: df["x"]
  std::shared_ptr<arrow::DataType> type;    // resolved type; for kCast the target type
  bool nullable = true;
  std::shared_ptr<arrow::Scalar> value;     // kLiteral
  std::vector<ExprPtr> args;                // children
  bool distinct = false;                    // kCall aggregate with DISTINCT
  bool try_cast = false;                    // kCast: null instead of an error
  bool typed_literal = false;               // kCast: DATE'...', TIMESTAMP'...' (never NULL)
  bool ascending = true;                    // kSortOrder
  bool nulls_first = true;                  // kSortOrder
  std::shared_ptr<const UserFunction> function;  // kCall of a user's function, not the catalog's
  // kCall of a user's table function: a generator, its type the struct of its columns.
  std::shared_ptr<const UserTableFunction> table_function;
  // kCall: per argument, the keyword it is passed by (`f(v, w => x)`), or empty; only a user's
  // function takes arguments by keyword.
  std::vector<std::string> keywords;
  std::shared_ptr<const WindowSpec> window;  // kWindow

  bool resolved() const { return type != nullptr; }
};

ExprPtr Column(std::vector<std::string> name_parts, int64_t plan_id = -1);
/// `(x, i) -> body`: a lambda of variables `names` (columns of those names in `body`).
ExprPtr Lambda(ExprPtr body, std::vector<std::string> names);
/// `explode(m) AS (k, v)`: names for each column of a generator.
ExprPtr MultiAlias(ExprPtr child, std::vector<std::string> names);
/// Splits "a.b" on dots outside backquotes; "`a.b`" is one name.
ExprPtr ColumnFromString(const std::string& text, int64_t plan_id = -1);
ExprPtr Star(std::vector<std::string> qualifier = {});
ExprPtr AttributeRef(const Attribute& attribute);
/// The position of attribute `id` in `attributes`, or -1.
int AttributeIndex(const std::vector<Attribute>& attributes, int64_t id);
ExprPtr Literal(std::shared_ptr<arrow::Scalar> value);
ExprPtr Call(std::string function, std::vector<ExprPtr> args, bool distinct = false);
ExprPtr Call(std::shared_ptr<const UserFunction> function, std::vector<ExprPtr> args,
             std::vector<std::string> keywords = {});
ExprPtr Call(std::shared_ptr<const UserTableFunction> function, std::vector<ExprPtr> args,
             std::vector<std::string> keywords = {});
ExprPtr Cast(ExprPtr child, std::shared_ptr<arrow::DataType> type, bool try_cast = false);
ExprPtr Alias(ExprPtr child, std::string name);
ExprPtr SortOrder(ExprPtr child, bool ascending, bool nulls_first);
/// `function OVER (PARTITION BY partitions ORDER BY orders frame)`; unresolved.
ExprPtr WindowExpr(ExprPtr function, std::vector<ExprPtr> partitions, std::vector<ExprPtr> orders,
                   std::shared_ptr<const WindowSpec> spec);
/// Spark's text of a window's frame, "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW".
std::string FrameText(const WindowFrame& frame);

/// Spark's name for a column computed by an expression without an alias, e.g. "(a + 1)",
/// "count(1)", "upper(s)", "CAST(x AS STRING)".
std::string DisplayName(const Expr& expr);

/// The child of an alias or sort order, else the expression itself.
const ExprPtr& StripAlias(const ExprPtr& expr);

}  // namespace ember::plan
