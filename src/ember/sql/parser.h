// The Spark SQL parser: SQL text to the unresolved logical plan that the analyzer resolves.
//
// The parser builds only unresolved trees (no types, no attribute ids, empty `output`), with these
// conventions, which the analyzer relies on:
// - A column `t.a` is Column({"t", "a"}); `a.b.c` stays one column of three parts, whether it
//   names a qualified column or a struct field. `*` is Star(), `t.*` is Star({"t"}).
// - `x.field` after a parenthesised expression or a function call is extract_value(x, 'field').
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
// Statements other than queries (DDL, writes, SET, USE) become a Statement, see below. Their
// expressions and queries follow the conventions above; VALUES rows stay lists of unevaluated
// expressions for the analyzer. Table time travel (VERSION AS OF, TIMESTAMP AS OF) is not
// supported yet: the plan has no place for it.
// Every error is a ParseException (ErrorKind::kParse) whose message ends, like Spark's, with
// " (line L, pos P)", except INVALID_LIMIT_LIKE_EXPRESSION, an AnalysisException as in Spark.
// Errors Spark raises for a statement that is well formed (duplicate clauses, a MERGE without
// WHEN, ...) come only when the whole text parses, as in Spark, at the position Spark gives.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include "ember/partitioning.h"
#include "ember/plan/expr.h"
#include "ember/plan/logical_plan.h"

namespace ember::sql {

/// `column = value` of UPDATE SET and of MERGE's UPDATE SET.
struct Assignment {
  std::vector<std::string> column;  // name parts as written: `t.a` is {"t", "a"}
  plan::ExprPtr value;
};

/// Which rows a WHEN clause of MERGE applies to.
enum class MergeMatch {
  kMatched,             // WHEN MATCHED: a target row with a matching source row
  kNotMatched,          // WHEN NOT MATCHED [BY TARGET]: a source row without a target row
  kNotMatchedBySource,  // WHEN NOT MATCHED BY SOURCE: a target row without a source row
};

/// What a WHEN clause of MERGE does with its rows.
enum class MergeAction {
  kUpdate,      // UPDATE SET assignments
  kUpdateStar,  // UPDATE SET *: every target column from the source column of its name
  kDelete,      // DELETE
  kInsert,      // INSERT (insert_columns) VALUES (insert_values)
  kInsertStar,  // INSERT *: every target column from the source column of its name
};

/// One WHEN clause of MERGE. Spark's grammar allows UPDATE SET * and DELETE when matched,
/// INSERT when not matched, UPDATE SET and DELETE when not matched by source.
struct MergeClause {
  MergeMatch match = MergeMatch::kMatched;
  plan::ExprPtr condition;  // WHEN ... AND condition; null when absent
  MergeAction action = MergeAction::kDelete;
  std::vector<Assignment> assignments;                   // kUpdate
  std::vector<std::vector<std::string>> insert_columns;  // kInsert: name parts per column
  std::vector<plan::ExprPtr> insert_values;              // kInsert: one per column
};

/// What a SQL statement does, and which fields of Statement it sets (others keep defaults).
enum class StatementKind {
  kQuery,            // SELECT, WITH, set operations, TABLE t: query
  kCreateNamespace,  // CREATE NAMESPACE|DATABASE|SCHEMA: name, if_not_exists, comment,
                     // location, properties (WITH DBPROPERTIES or WITH PROPERTIES)
  kDropNamespace,    // DROP NAMESPACE|DATABASE|SCHEMA: name, if_exists, cascade
  kCreateTable,      // CREATE TABLE: name, if_not_exists, the table fields, query (AS query)
  kReplaceTable,     // REPLACE TABLE, CREATE OR REPLACE TABLE (or_create): as kCreateTable
  kDropTable,        // DROP TABLE: name, if_exists, purge
  kDropView,         // DROP VIEW: name, if_exists
  kCreateTempView,   // CREATE [OR REPLACE] TEMP[ORARY] VIEW: name, or_create (OR REPLACE), query
  kShowNamespaces,   // SHOW NAMESPACES|DATABASES|SCHEMAS: name (IN name; empty: the current
                     // catalog), pattern
  kShowTables,       // SHOW TABLES: name (IN|FROM name; empty: the current namespace), pattern
  kShowFunctions,    // SHOW [USER|SYSTEM|ALL] FUNCTIONS: function_scope, pattern
  kDescribeTable,    // DESCRIBE|DESC [TABLE]: name, extended
  kInsert,           // INSERT INTO|OVERWRITE: name, overwrite, by_name, insert_columns, and
                     // rows (VALUES) or query
  kMerge,            // MERGE INTO: name, alias, source, condition (ON), clauses
  kUpdate,           // UPDATE: name, alias, assignments, condition (WHERE; null: all rows)
  kDelete,           // DELETE FROM: name, alias, condition (WHERE; null: all rows)
  kSet,              // SET: key and value, see below
  kUse,              // USE [NAMESPACE]: name
  kCall,             // CALL procedure(arguments): name (the procedure's), call_arguments
};

/// One argument of CALL: `name => value`, or a positional `value` (name empty).
struct CallArgument {
  std::string name;
  plan::ExprPtr value;
};

/// A parsed statement. Names are kept as written (backquotes removed), in parts: `local.db.t`
/// is {"local", "db", "t"}; the analyzer resolves them against catalogs.
struct Statement {
  StatementKind kind = StatementKind::kQuery;
  plan::PlanPtr query;  // kQuery; the AS query of k*Table; the query of kInsert (null: VALUES)

  std::vector<std::string> name;  // the namespace or table the statement is about
  std::string alias;              // kMerge, kUpdate, kDelete: the target table's alias, if any
  bool if_exists = false;         // DROP ... IF EXISTS
  bool if_not_exists = false;     // CREATE ... IF NOT EXISTS
  bool cascade = false;           // DROP NAMESPACE ... CASCADE (RESTRICT is the default)
  bool purge = false;             // DROP TABLE ... PURGE
  bool extended = false;          // DESCRIBE EXTENDED or FORMATTED
  bool or_create = false;         // kReplaceTable: CREATE OR REPLACE creates a missing table

  std::optional<std::string> comment;             // COMMENT '...'
  std::optional<std::string> location;            // LOCATION '...'
  std::map<std::string, std::string> properties;  // DBPROPERTIES or TBLPROPERTIES as written,
                                                  // TRUE and FALSE lower-cased
  std::optional<std::string> pattern;             // SHOW ... [LIKE] 'pattern'
  std::string function_scope = "ALL";             // SHOW USER|SYSTEM|ALL FUNCTIONS

  // CREATE TABLE, REPLACE TABLE.
  std::shared_ptr<arrow::Schema> schema;  // the column list (NOT NULL: not nullable); null when
                                          // the statement has none, as for CREATE ... AS query
  std::vector<std::optional<std::string>> column_comments;  // one per schema field
  std::string provider;                                     // USING provider; empty if absent
  std::vector<PartitionTerm> partitioning;                  // PARTITIONED BY, in order
  std::map<std::string, std::string> options;               // OPTIONS (...)

  // INSERT.
  bool overwrite = false;                        // INSERT OVERWRITE
  bool by_name = false;                          // INSERT INTO t BY NAME query
  std::vector<std::string> insert_columns;       // INSERT INTO t (a, b); empty: all columns
  std::vector<std::vector<plan::ExprPtr>> rows;  // VALUES rows, all of one width

  // MERGE, UPDATE, DELETE.
  // kMerge: the source, a table (kUnresolvedRelation) or a query, under a kSubqueryAlias when
  // it has an alias.
  plan::PlanPtr source;
  plan::ExprPtr condition;              // MERGE ... ON, UPDATE or DELETE ... WHERE
  std::vector<MergeClause> clauses;     // kMerge: the WHEN clauses in order
  std::vector<Assignment> assignments;  // kUpdate

  // CALL.
  std::vector<CallArgument> call_arguments;

  // SET: `SET` alone lists the configuration (key empty); `SET key` shows one value (no value);
  // `SET key = value` sets one. The value is the raw text up to the end, as in Spark; SET TIME
  // ZONE 'zone' sets spark.sql.session.timeZone.
  std::string key;
  std::optional<std::string> value;
};

/// Parses one statement; trailing semicolons are allowed.
arrow::Result<Statement> ParseStatement(const std::string& sql);

/// Parses a query (SELECT ..., WITH ..., q1 UNION q2); fails for any other statement.
arrow::Result<plan::PlanPtr> ParseQuery(const std::string& sql);

/// Parses one expression as selectExpr, filter and F.expr take it: an expression optionally
/// followed by `AS alias` or a bare alias, which makes an Alias node.
arrow::Result<plan::ExprPtr> ParseExpression(const std::string& text);

}  // namespace ember::sql
