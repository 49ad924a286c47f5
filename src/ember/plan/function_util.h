// The building blocks of the function catalog, shared by the files that define its families
// (functions.cc, functions_math.cc, functions_string.cc, ...): type rules, error conditions and
// lowering helpers. Internal to the plan layer.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <arrow/compute/api.h>

#include "ember/plan/functions.h"

namespace ember::plan::fn {

namespace cp = arrow::compute;

using Catalog = std::map<std::string, FunctionDef>;

// --- errors -----------------------------------------------------------------------------------

/// `"expr"`: an expression as Spark quotes it in messages.
std::string Quoted(const Expr& e);
/// `"TYPE"`: a type as Spark quotes it in messages.
std::string TypeQuoted(const arrow::DataType& t);
/// DATATYPE_MISMATCH.<sub> about `call`.
arrow::Status Mismatch(const Expr& call, const std::string& sub, const std::string& detail);
/// DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE for argument `index` of `call`.
arrow::Status UnexpectedType(const Expr& call, size_t index, const Expr& arg,
                             const std::string& required);

// --- type rules -------------------------------------------------------------------------------

bool IsNullType(const arrow::DataType& t);
bool AnyNullable(const std::vector<ExprPtr>& args);
/// A call of `type`, nullable when an argument is.
TypedCall Typed(std::vector<ExprPtr> args, std::shared_ptr<arrow::DataType> type);
/// Casts every argument from `first` on to their common type.
arrow::Result<TypedCall> CommonType(const Expr& call, std::vector<ExprPtr> args, size_t first = 0);
/// Spark's arithmetic operators + - * / div % (the call's name): operand coercion, result type.
arrow::Result<TypedCall> ArithmeticRule(const Expr& call, std::vector<ExprPtr> args);
/// Numeric arguments (text and NULL read as DOUBLE), each cast to DOUBLE; a DOUBLE result.
arrow::Result<TypedCall> PowerRule(const Expr& call, std::vector<ExprPtr> args);
/// Every argument as text (when it casts to text); a result of `result`.
arrow::Result<TypedCall> StringArgsRule(const Expr& call, std::vector<ExprPtr> args,
                                        std::shared_ptr<arrow::DataType> result);
/// One numeric argument (text and NULL read as DOUBLE); the argument's type.
arrow::Result<TypedCall> NumericUnaryRule(const Expr& call, std::vector<ExprPtr> args);
/// Arguments that must be constants (formats, units, lengths).
arrow::Result<std::string> LiteralString(const Expr& call, const ExprPtr& arg);
arrow::Result<int64_t> LiteralInt(const Expr& call, const ExprPtr& arg);
/// A timestamp argument: text, dates and NULL are cast to one.
arrow::Result<ExprPtr> AsTimestamp(const Expr& call, ExprPtr arg, size_t index);

// --- lowering helpers -------------------------------------------------------------------------

cp::Expression Lit(std::shared_ptr<arrow::Scalar> s);
cp::Expression I64(int64_t v);
cp::Expression Fn(std::string name, std::vector<cp::Expression> args,
                  std::shared_ptr<cp::FunctionOptions> options = nullptr);
cp::Expression CastTo(cp::Expression e, std::shared_ptr<arrow::DataType> type, bool safe = true);
/// A timestamp relabelled to the session zone (the instant unchanged).
cp::Expression InZone(cp::Expression ts, const EvalContext& ctx);
/// Calendar fields arrow can read as Spark's: instants in the session zone, the rest as they are.
cp::Expression WallClock(cp::Expression value, const arrow::DataType& type, const EvalContext& ctx);
/// The local wall-clock time of an instant, as a zone-less timestamp.
cp::Expression LocalTime(cp::Expression ts, const EvalContext& ctx);
/// The instant the query (or micro-batch) started, the same for every row: current_timestamp().
cp::Expression Now(const EvalContext& ctx);
/// The instant of a zone-less wall-clock time in the session zone (Spark's rule in a DST gap or
/// overlap).
cp::Expression LocalToUtc(cp::Expression local, const EvalContext& ctx);
/// Text read as an instant: Spark's lenient forms without a format (zone-less text is wall-clock
/// time in the session zone), else the Spark pattern `format`; unreadable text is NULL when
/// `error_is_null`, else Spark's error.
cp::Expression ParseTimestamp(cp::Expression text, const std::string& format, bool error_is_null,
                              const EvalContext& ctx);
/// An instant as text in the session zone, by a Spark datetime pattern.
cp::Expression FormatTimestamp(cp::Expression ts, const std::string& format,
                               const EvalContext& ctx);

// --- definitions ------------------------------------------------------------------------------

void Add(Catalog& catalog, FunctionDef def);
FunctionDef Scalar(std::string name, int min_args, int max_args, TypeRule rule,
                   ScalarLowering lower);
/// A scalar function that maps onto one arrow function of the same arity.
FunctionDef Direct(std::string name, int args, TypeRule rule, std::string arrow_name,
                   std::shared_ptr<cp::FunctionOptions> options = nullptr);
FunctionDef Aggregate(std::string name, TypeRule rule, std::string hash_fn, std::string scalar_fn,
                      std::shared_ptr<cp::FunctionOptions> options = nullptr);

/// Another name of a function the catalog has: its rules see the call under the original name.
void Alias(Catalog& c, const std::string& name, const std::string& of);

// The families defined outside functions.cc.
void AddMathFunctions(Catalog& c);
void AddStringFunctions(Catalog& c);
void AddMiscFunctions(Catalog& c);
void AddAggregateFunctions(Catalog& c);
void AddDatetimeFunctions(Catalog& c);
void AddCollectionFunctions(Catalog& c);
void AddRegexFunctions(Catalog& c);
void AddJsonFunctions(Catalog& c);

}  // namespace ember::plan::fn
