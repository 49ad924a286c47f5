// The catalog of Spark functions Ember knows: for each, how the analyzer types a call (with Spark's
// implicit casts) and how a resolved call becomes an arrow compute expression (scalar functions) or
// an arrow hash aggregate (aggregate functions). Operators are functions named by their symbol.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <arrow/compute/expression.h>
#include <arrow/result.h>

#include "ember/plan/expr.h"

namespace ember::plan {

/// What lowering needs to know about the session.
struct EvalContext {
  std::string time_zone = "UTC";   // spark.sql.session.timeZone
  int64_t current_timestamp_us = 0;  // current_timestamp(): fixed per query or micro-batch
  std::string current_database = "default";  // USE's, current_database()
};

/// The function EXTRACT(field FROM x) and date_part('field', x) call for a field name (YEAR, Y,
/// DOW, ...; any case), or null for a field Spark does not extract.
const char* ExtractFunction(const std::string& field);

struct FunctionDef;

/// A function call after type checking: the arguments with implicit casts inserted, the result
/// type and nullability.
// `args` comes last: a rule returns TypedCall{type, nullable, std::move(args)}, and a braced
// initialiser runs in order, so reading args for the type or nullability precedes the move.
struct TypedCall {
  std::shared_ptr<arrow::DataType> type;
  bool nullable = true;
  std::vector<ExprPtr> args;
};

using TypeRule = std::function<arrow::Result<TypedCall>(const Expr& call, std::vector<ExprPtr> args)>;
using ScalarLowering = std::function<arrow::Result<arrow::compute::Expression>(
    const Expr& call, std::vector<arrow::compute::Expression> args, const EvalContext& ctx)>;

/// A lambda variable's type and nullability.
struct LambdaVariable {
  std::shared_ptr<arrow::DataType> type;
  bool nullable = true;
};

/// A higher-order function's rule for the variables of its lambda argument `index` with `arity`
/// variables, given its other arguments resolved (`args[index]` is null).
using LambdaRule = std::function<arrow::Result<std::vector<LambdaVariable>>(
    const Expr& call, const std::vector<ExprPtr>& args, size_t index, size_t arity)>;

struct FunctionDef {
  std::string name;
  // Ember's name of an expression Spark writes without a function (a.b, INTERVAL '1' DAY,
  // count(DISTINCT a)): callable, but not listed by SHOW FUNCTIONS.
  bool internal = false;
  bool aggregate = false;
  // A generator (explode): rows per input row; the analyzer puts it in a Generate node, and the
  // type rule gives its element's type. `_outer` keeps a row for a NULL or empty array; `pos...`
  // adds the element's position column.
  bool generator = false;
  bool generator_outer = false;
  bool generator_position = false;
  // inline: the element is a struct whose fields are the generated columns.
  bool generator_inline = false;
  // A higher-order function (transform, filter, ...): its lambdas' variables.
  LambdaRule lambda_variables;
  // The type rule sees its arguments with their aliases (struct(a AS x) names a field x).
  bool takes_aliases = false;
  int min_args = 0;
  int max_args = 0;  // -1: any number
  TypeRule type_rule;
  ScalarLowering lower;            // scalar functions
  std::string hash_aggregate;      // aggregates: arrow's grouped kernel, e.g. "hash_sum"
  std::string scalar_aggregate;    // aggregates: arrow's ungrouped kernel, e.g. "sum"
  std::shared_ptr<arrow::compute::FunctionOptions> options;
  // Aggregates whose kernel options depend on the call (approx_count_distinct's rsd): the options
  // of a resolved call, in place of `options`.
  std::function<arrow::Result<std::shared_ptr<arrow::compute::FunctionOptions>>(const Expr& call)>
      call_options;
  // Aggregates whose kernel yields an intermediate value (a sketch): the arrow scalar function
  // that turns it into the aggregate's result; empty when the kernel's result is the value.
  std::string finalize;
};

/// The kernel options of a resolved aggregate call.
arrow::Result<std::shared_ptr<arrow::compute::FunctionOptions>> AggregateOptions(
    const FunctionDef& def, const Expr& call);

/// The definition of a function by case-insensitive name, or null.
const FunctionDef* FindFunction(const std::string& name);

/// Spark's foldable: an expression of constants, the same on every row and every run (so not
/// rand, randn, random, uuid or shuffle).
bool IsFoldable(const Expr& e);

/// The functions that exist only over a window (row_number, rank, lag, ...): not in the catalog,
/// typed and computed by the window machinery (plan/window.h), listed by SHOW FUNCTIONS.
const std::vector<std::string>& WindowOnlyFunctionNames();

/// The names of the catalog's functions (operators by their symbol) and of the window-only ones,
/// sorted; internal ones not.
std::vector<std::string> FunctionNames();

/// Whether a generator call's element is a struct whose fields are its generated columns (a
/// map's key and value, inline's struct fields) rather than one column.
bool GeneratesFields(const Expr& call);

/// Whether the expression is a call of an aggregate function: the catalog's, or a user's
/// grouped-aggregate function (pandas_udf GROUPED_AGG).
bool IsAggregateCall(const Expr& expr);

/// Whether the expression contains an aggregate function call.
bool ContainsAggregate(const Expr& expr);

/// The common type two operands are widened to (Spark's findWiderTypeForTwo), or null.
std::shared_ptr<arrow::DataType> WiderType(const std::shared_ptr<arrow::DataType>& a,
                                           const std::shared_ptr<arrow::DataType>& b);

/// Wraps a resolved expression in a cast to `type` unless it already has that type.
ExprPtr CastIfNeeded(const ExprPtr& expr, const std::shared_ptr<arrow::DataType>& type);

/// Whether a cast may give NULL for a value that is not (Spark's Cast.forceNullable): text that
/// does not parse, a double that is NaN, ...
bool CastForcesNullable(const arrow::DataType& from, const arrow::DataType& to);

/// Whether Spark allows CAST(from AS to).
bool CanCast(const arrow::DataType& from, const arrow::DataType& to);

/// Lowers a cast with Spark's semantics (session time zone, ANSI errors or TRY_CAST nulls).
arrow::Result<arrow::compute::Expression> LowerCast(arrow::compute::Expression arg,
                                                    const std::shared_ptr<arrow::DataType>& from,
                                                    const std::shared_ptr<arrow::DataType>& to,
                                                    bool try_cast, const EvalContext& ctx);

/// An instant as text in the session zone by a Spark datetime pattern (date_format's rule).
arrow::compute::Expression LowerFormatTimestamp(arrow::compute::Expression ts,
                                                const std::string& pattern,
                                                const EvalContext& ctx);

bool IsNumeric(const arrow::DataType& type);
bool IsIntegral(const arrow::DataType& type);
bool IsString(const arrow::DataType& type);
bool IsTimestamp(const arrow::DataType& type);

}  // namespace ember::plan
