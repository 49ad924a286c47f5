// The Spark SQL parser: SQL text to the unresolved logical plan that the analyzer resolves.
//
// The parser builds only unresolved trees (no types, no attribute ids, empty `output`), with these
// conventions, which the analyzer relies on:
// - A column `t.a` is Column({"t", "a"}); `a.b.c` stays one column of three parts, whether it
//   names a qualified column or a struct field. `*` is Star(), `t.*` is Star({"t"}).
// - `x.field` after a parenthesised expression or a function call is get_field(x, 'field').
// - Operators are Calls named as in expr.h's DisplayName: + - * / % div = <=> < <= > >= and or
//   not, negative (unary minus), ~, & | ^, concat (`||`), isnull, isnotnull, in (value first),
//   like, ilike, rlike (a third argument is the ESCAPE character), when (condition, value pairs
//   and an optional ELSE value). `a != b` is not(a = b); BETWEEN becomes >= and <=.
// - Function names are lower case; count(*) is count(1); DISTINCT sets Expr::distinct.
// - Literals are typed as Spark types them (see lexer.h NumberValue); DATE '...' and
//   TIMESTAMP '...' are casts of string literals; INTERVAL ... is interval('<n> <unit>s ...').
// - A SELECT block is a kSelect node whose SelectBlock holds the clauses and whose only child is
//   the FROM relation (none for `SELECT 1`). Tables are kUnresolvedRelation, aliases and CTE
//   references kSubqueryAlias, joins kJoin (several FROM relations: cross joins), UNION ALL
//   kUnion, UNION [DISTINCT] kDeduplicate (empty groupings: all columns) over kUnion. ORDER BY or
//   LIMIT after a set operation or a parenthesised query wraps it in kSelect(SELECT *).
// Every error is a ParseException (ErrorKind::kParse) whose message ends, like Spark's, with
// " (line L, pos P)", except INVALID_LIMIT_LIKE_EXPRESSION, an AnalysisException as in Spark.
#pragma once

#include <string>

#include <arrow/result.h>

#include "ember/plan/expr.h"
#include "ember/plan/logical_plan.h"

namespace ember::sql {

/// What a SQL statement does. Statements other than queries (DDL, SET, ...) are added here.
enum class StatementKind {
  kQuery,  // SELECT, WITH, set operations, TABLE t: `query` holds the plan
};

struct Statement {
  StatementKind kind = StatementKind::kQuery;
  plan::PlanPtr query;  // kQuery
};

/// Parses one statement; a trailing semicolon is allowed.
arrow::Result<Statement> ParseStatement(const std::string& sql);

/// Parses a query (SELECT ..., WITH ..., q1 UNION q2); fails for any other statement.
arrow::Result<plan::PlanPtr> ParseQuery(const std::string& sql);

/// Parses one expression as selectExpr, filter and F.expr take it: an expression optionally
/// followed by `AS alias` or a bare alias, which makes an Alias node.
arrow::Result<plan::ExprPtr> ParseExpression(const std::string& text);

}  // namespace ember::sql
