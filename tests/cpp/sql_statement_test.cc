// Tests of the statements the SQL parser reads besides queries: namespaces and tables (CREATE,
// REPLACE, DROP, SHOW, DESCRIBE), INSERT, MERGE, UPDATE, DELETE, SET and USE. Each statement is
// checked field by field in its valid forms, and by Spark's message and position when malformed.
// The expected errors are those of Spark 4.0's parser for the same text, except where a comment
// says otherwise.
#include <arrow/scalar.h>
#include <arrow/type.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "ember/error.h"
#include "ember/plan/type_names.h"
#include "ember/sql/parser.h"

namespace ember::sql {
namespace {

using plan::PlanKind;

Statement Parse(const std::string& sql) {
  auto result = ParseStatement(sql);
  EXPECT_TRUE(result.ok()) << sql << ": " << result.status().ToString();
  return result.ok() ? *result : Statement{};
}

// The message of the error for `sql`, or "parsed" when it parses.
std::string Error(const std::string& sql) {
  auto result = ParseStatement(sql);
  return result.ok() ? "parsed" : result.status().message();
}

// The error condition for `sql`; every statement error is a ParseException.
std::string Condition(const std::string& sql) {
  auto result = ParseStatement(sql);
  if (result.ok()) return "parsed";
  const ErrorDetail* detail = GetErrorDetail(result.status());
  if (detail == nullptr) return "internal: " + result.status().ToString();
  EXPECT_EQ(detail->kind(), ErrorKind::kParse) << sql;
  return detail->condition();
}

std::string SyntaxError(const std::string& near, int pos, const std::string& hint = "") {
  return "[PARSE_SYNTAX_ERROR] Syntax error at or near " + near + hint +
         ". SQLSTATE: 42601 (line 1, pos " + std::to_string(pos) + ")";
}

std::string Unsupported(const std::string& what, int pos) {
  return "[UNSUPPORTED_FEATURE] The feature is not supported: " + what +
         " in Ember's SQL. SQLSTATE: 0A000 (line 1, pos " + std::to_string(pos) + ")";
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : "|") + part;
  return out;
}

std::string Show(const plan::ExprPtr& e) { return e ? plan::DisplayName(*e) : "null"; }

std::string ShowRow(const std::vector<plan::ExprPtr>& row) {
  std::string out;
  for (const auto& e : row) out += (out.empty() ? "" : ", ") + Show(e);
  return "(" + out + ")";
}

// A plan on one line: Relation a.b, Alias s(...), Select [items](child).
std::string Show(const plan::PlanPtr& p) {
  if (!p) return "null";
  std::string children;
  for (const auto& child : p->children) children += (children.empty() ? "" : ", ") + Show(child);
  switch (p->kind) {
    case PlanKind::kUnresolvedRelation:
      return "Relation " + Join(p->name_parts);
    case PlanKind::kSubqueryAlias:
      return "Alias " + p->alias + "(" + children + ")";
    case PlanKind::kSelect:
      return "Select " + ShowRow(p->select->select_list) + "(" + children + ")";
    default:
      return "Other(" + children + ")";
  }
}

std::string ShowAssignments(const std::vector<Assignment>& assignments) {
  std::string out;
  for (const auto& a : assignments) {
    out += (out.empty() ? "" : ", ") + Join(a.column) + " = " + Show(a.value);
  }
  return out;
}

std::string ShowPartitioning(const std::vector<PartitionTerm>& terms) {
  std::string out;
  for (const auto& term : terms) {
    out += (out.empty() ? "" : ", ") + term.transform + "(" +
           (term.argument != 0 ? std::to_string(term.argument) + ", " : "") + term.column + ")";
  }
  return out;
}

std::string ShowMap(const std::map<std::string, std::string>& map) {
  std::string out;
  for (const auto& [key, value] : map) out += (out.empty() ? "" : ", ") + key + "=" + value;
  return out;
}

// ---- Queries ----

TEST(SqlStatementTest, QueriesAreStatementsToo) {
  Statement s = Parse("SELECT a FROM t;;");
  EXPECT_EQ(s.kind, StatementKind::kQuery);
  EXPECT_EQ(Show(s.query), "Select (a)(Relation t)");
  EXPECT_EQ(Parse("WITH c AS (SELECT 1) SELECT * FROM c").kind, StatementKind::kQuery);
  // ParseQuery still reads queries only.
  auto insert = ParseQuery("INSERT INTO t VALUES (1)");
  ASSERT_FALSE(insert.ok());
  EXPECT_EQ(insert.status().message(), SyntaxError("'INSERT'", 0));
  EXPECT_TRUE(ParseQuery("SELECT 1;").ok());
}

TEST(SqlStatementTest, UnsupportedStatementsSayWhat) {
  EXPECT_EQ(Error("ALTER TABLE t ADD COLUMN c INT"), Unsupported("ALTER statements", 0));
  EXPECT_EQ(Error("CREATE VIEW v AS SELECT 1"), Unsupported("CREATE VIEW", 7));
  EXPECT_EQ(Error("CREATE OR REPLACE VIEW v AS SELECT 1"),
            Unsupported("CREATE OR REPLACE VIEW", 18));
  EXPECT_EQ(Error("SHOW VIEWS"), Unsupported("SHOW VIEWS", 5));
  EXPECT_EQ(Error("SHOW TABLE EXTENDED LIKE 'x'"), Unsupported("SHOW TABLE EXTENDED", 5));
  EXPECT_EQ(Error("CREATE"), SyntaxError("end of input", 6));
  EXPECT_EQ(Error("DROP 1"), SyntaxError("'1'", 5));
}

TEST(SqlStatementTest, CreateTemporaryView) {
  Statement s = Parse("CREATE TEMPORARY VIEW v AS SELECT a FROM t");
  EXPECT_EQ(s.kind, StatementKind::kCreateTempView);
  EXPECT_EQ(s.name, std::vector<std::string>{"v"});
  EXPECT_FALSE(s.or_create);
  EXPECT_EQ(Show(s.query), "Select (a)(Relation t)");
  s = Parse("create or replace temp view w as select 1");
  EXPECT_EQ(s.kind, StatementKind::kCreateTempView);
  EXPECT_TRUE(s.or_create);
  EXPECT_EQ(Error("CREATE TEMP VIEW v (x) AS SELECT 1"), Unsupported("column lists of a view", 19));
}

// The relation of a one-table query, wherever the parser put it.
const plan::LogicalPlan* Relation(const plan::LogicalPlan& p) {
  if (p.kind == PlanKind::kUnresolvedRelation) return &p;
  for (const auto& child : p.children) {
    if (const auto* found = Relation(*child)) return found;
  }
  return nullptr;
}

TEST(SqlStatementTest, TimeTravelClausesStayOnTheRelation) {
  auto version = ParseQuery("SELECT * FROM local.db.t VERSION AS OF 123 AS x");
  ASSERT_TRUE(version.ok()) << version.status().ToString();
  const auto* relation = Relation(**version);
  ASSERT_NE(relation, nullptr);
  ASSERT_NE(relation->as_of_version, nullptr);
  EXPECT_EQ(relation->as_of_version->value->ToString(), "123");
  EXPECT_EQ(relation->as_of_timestamp, nullptr);
  auto timestamp = ParseQuery("SELECT * FROM t FOR SYSTEM_TIME AS OF '2024-01-01 10:00:00'");
  ASSERT_TRUE(timestamp.ok()) << timestamp.status().ToString();
  relation = Relation(**timestamp);
  ASSERT_NE(relation, nullptr);
  ASSERT_NE(relation->as_of_timestamp, nullptr);
  EXPECT_EQ(relation->as_of_timestamp->value->ToString(), "2024-01-01 10:00:00");
  EXPECT_EQ(Error("SELECT * FROM t VERSION AS 1"), SyntaxError("'1'", 27));
}

// ---- Namespaces ----

TEST(SqlStatementTest, CreateNamespace) {
  Statement s = Parse(
      "CREATE NAMESPACE IF NOT EXISTS local.`my db` COMMENT 'c' LOCATION '/x' "
      "WITH DBPROPERTIES ('a'='b', x.y = 1, e true, f = 1.5, 'g' = FALSE)");
  EXPECT_EQ(s.kind, StatementKind::kCreateNamespace);
  EXPECT_EQ(Join(s.name), "local|my db");
  EXPECT_TRUE(s.if_not_exists);
  EXPECT_EQ(s.comment, "c");
  EXPECT_EQ(s.location, "/x");
  EXPECT_EQ(ShowMap(s.properties), "a=b, e=true, f=1.5, g=false, x.y=1");

  s = Parse("create database db");
  EXPECT_EQ(s.kind, StatementKind::kCreateNamespace);
  EXPECT_EQ(Join(s.name), "db");
  EXPECT_FALSE(s.if_not_exists);
  EXPECT_FALSE(s.comment.has_value());
  EXPECT_FALSE(s.location.has_value());
  EXPECT_TRUE(s.properties.empty());

  // Clauses come in any order; WITH PROPERTIES is a synonym.
  s = Parse("CREATE SCHEMA db WITH PROPERTIES ('k' = 'v') LOCATION 'l' COMMENT ''");
  EXPECT_EQ(ShowMap(s.properties), "k=v");
  EXPECT_EQ(s.location, "l");
  EXPECT_EQ(s.comment, "");
}

TEST(SqlStatementTest, CreateNamespaceErrors) {
  EXPECT_EQ(Error("CREATE NAMESPACE"), SyntaxError("end of input", 16));
  EXPECT_EQ(Error("CREATE NAMESPACE IF NOT db"), SyntaxError("'db'", 24, ": missing 'EXISTS'"));
  EXPECT_EQ(Error("CREATE NAMESPACE db COMMENT 1"), SyntaxError("'1'", 28));
  EXPECT_EQ(Error("CREATE DATABASE db COMMENT 'a' COMMENT 'b'"),
            "[DUPLICATE_CLAUSES] Found duplicate clauses: COMMENT. Please, remove one of them. "
            "SQLSTATE: 42614 (line 1, pos 0)");
  EXPECT_EQ(Condition("CREATE NAMESPACE db LOCATION 'x' LOCATION 'y'"), "DUPLICATE_CLAUSES");
  // A syntax error anywhere comes before the checks of a well-formed statement.
  EXPECT_EQ(Error("CREATE DATABASE db COMMENT 'a' COMMENT 'b' x"),
            SyntaxError("'x'", 43, ": extra input 'x'"));
  EXPECT_EQ(Error("CREATE SCHEMA db WITH DBPROPERTIES ('a'='b') WITH PROPERTIES ('c'='d')"),
            "[UNSUPPORTED_FEATURE.SET_PROPERTIES_AND_DBPROPERTIES] The feature is not supported: "
            "set PROPERTIES and DBPROPERTIES at the same time. SQLSTATE: 0A000 (line 1, pos 0)");
  EXPECT_EQ(Error("CREATE NAMESPACE db WITH DBPROPERTIES ('a'='b', 'a'='c')"),
            "[DUPLICATE_KEY] Found duplicate keys `a`. SQLSTATE: 23505 (line 1, pos 38)");
  EXPECT_EQ(Error("CREATE NAMESPACE db WITH DBPROPERTIES (a.b = 1, 'c' 'd', g, h)"),
            "Operation not allowed: Values must be specified for key(s): [g,h]. "
            "(line 1, pos 0)");
  EXPECT_EQ(Condition("CREATE NAMESPACE db WITH DBPROPERTIES (g)"), "_LEGACY_ERROR_TEMP_0035");
  EXPECT_EQ(Error("CREATE NAMESPACE db WITH DBPROPERTIES ('a' = -1)"), SyntaxError("'-'", 45));
  EXPECT_EQ(Error("CREATE NAMESPACE db WITH DBPROPERTIES ('a' = 1L)"), SyntaxError("'1L'", 45));
  EXPECT_EQ(Error("CREATE NAMESPACE db WITH DBPROPERTIES ()"), SyntaxError("')'", 39));
  // Ember reserves the clause words of queries, which Spark takes as names here.
  EXPECT_EQ(Error("CREATE NAMESPACE select"), SyntaxError("'select'", 17));
}

TEST(SqlStatementTest, DropNamespace) {
  Statement s = Parse("DROP NAMESPACE IF EXISTS a.b CASCADE");
  EXPECT_EQ(s.kind, StatementKind::kDropNamespace);
  EXPECT_EQ(Join(s.name), "a|b");
  EXPECT_TRUE(s.if_exists);
  EXPECT_TRUE(s.cascade);
  s = Parse("DROP DATABASE a RESTRICT");
  EXPECT_EQ(Join(s.name), "a");
  EXPECT_FALSE(s.if_exists);
  EXPECT_FALSE(s.cascade);
  s = Parse("drop schema `if`");
  EXPECT_EQ(Join(s.name), "if");
  EXPECT_EQ(Error("DROP NAMESPACE"), SyntaxError("end of input", 14));
  EXPECT_EQ(Error("DROP NAMESPACE a PURGE"), SyntaxError("'PURGE'", 17, ": extra input 'PURGE'"));
}

// ---- Tables ----

TEST(SqlStatementTest, CreateTable) {
  Statement s = Parse(
      "CREATE TABLE IF NOT EXISTS local.db.events (id BIGINT NOT NULL COMMENT 'key', "
      "`event ts` TIMESTAMP, amount DECIMAL(10,2), tags ARRAY<STRING>, "
      "info STRUCT<a: INT, b: STRING>, attrs MAP<STRING, INT> COMMENT 'm' NOT NULL) "
      "USING iceberg PARTITIONED BY (days(`event ts`), bucket(16, id)) LOCATION '/wh/e' "
      "COMMENT 'events' TBLPROPERTIES ('format-version' = '2', write.x = 1) "
      "OPTIONS ('o' = 'p')");
  EXPECT_EQ(s.kind, StatementKind::kCreateTable);
  EXPECT_EQ(Join(s.name), "local|db|events");
  EXPECT_TRUE(s.if_not_exists);
  ASSERT_NE(s.schema, nullptr);
  EXPECT_EQ(s.schema->ToString(),
            "id: int64 not null\n"
            "event ts: timestamp[us, tz=UTC]\n"
            "amount: decimal128(10, 2)\n"
            "tags: list<element: string>\n"
            "info: struct<a: int32, b: string>\n"
            "attrs: map<string, int32> not null");
  ASSERT_EQ(s.column_comments.size(), 6u);
  EXPECT_EQ(s.column_comments[0], "key");
  EXPECT_FALSE(s.column_comments[1].has_value());
  EXPECT_EQ(s.column_comments[5], "m");
  EXPECT_EQ(s.provider, "iceberg");
  EXPECT_EQ(ShowPartitioning(s.partitioning), "days(event ts), bucket(16, id)");
  EXPECT_EQ(s.location, "/wh/e");
  EXPECT_EQ(s.comment, "events");
  EXPECT_EQ(ShowMap(s.properties), "format-version=2, write.x=1");
  EXPECT_EQ(ShowMap(s.options), "o=p");
  EXPECT_EQ(s.query, nullptr);
  EXPECT_FALSE(s.or_create);

  s = Parse("create table t (a int)");
  EXPECT_EQ(s.schema->ToString(), "a: int32");
  EXPECT_FALSE(s.if_not_exists);
  EXPECT_EQ(s.provider, "");
  EXPECT_TRUE(s.partitioning.empty());
  EXPECT_FALSE(s.location.has_value());
  EXPECT_FALSE(s.comment.has_value());

  // Reserved words name columns where nothing else can stand.
  s = Parse("CREATE TABLE t (order INT, from STRING) USING org.apache.iceberg");
  EXPECT_EQ(s.schema->ToString(), "order: int32\nfrom: string");
  EXPECT_EQ(s.provider, "org.apache.iceberg");
}

TEST(SqlStatementTest, CreateTableAsSelectAndReplace) {
  Statement s = Parse("CREATE TABLE t USING iceberg PARTITIONED BY (a) AS SELECT 1 AS a");
  EXPECT_EQ(s.kind, StatementKind::kCreateTable);
  EXPECT_EQ(s.schema, nullptr);
  EXPECT_TRUE(s.column_comments.empty());
  EXPECT_EQ(ShowPartitioning(s.partitioning), "identity(a)");
  EXPECT_EQ(Show(s.query), "Select (a)()");
  // AS is optional before the query.
  EXPECT_EQ(Show(Parse("CREATE TABLE t SELECT * FROM u").query), "Select (*)(Relation u)");
  EXPECT_EQ(Show(Parse("CREATE TABLE t AS (SELECT 1) UNION ALL SELECT 2").query),
            "Other(Select (1)(), Select (2)())");

  s = Parse("CREATE OR REPLACE TABLE db.t (a INT) USING iceberg");
  EXPECT_EQ(s.kind, StatementKind::kReplaceTable);
  EXPECT_TRUE(s.or_create);
  EXPECT_EQ(Join(s.name), "db|t");
  EXPECT_EQ(s.schema->ToString(), "a: int32");

  s = Parse("REPLACE TABLE t USING iceberg AS SELECT 1 AS a");
  EXPECT_EQ(s.kind, StatementKind::kReplaceTable);
  EXPECT_FALSE(s.or_create);
  EXPECT_EQ(s.schema, nullptr);
  EXPECT_NE(s.query, nullptr);
}

TEST(SqlStatementTest, CreateTableErrors) {
  EXPECT_EQ(Error("CREATE TABLE t ()"), SyntaxError("')'", 16));
  EXPECT_EQ(Error("CREATE TABLE t (a int,)"), SyntaxError("')'", 22));
  EXPECT_EQ(Error("CREATE TABLE t (a)"), SyntaxError("')'", 17));
  EXPECT_EQ(Error("CREATE TABLE t (a int"), SyntaxError("end of input", 21, ": missing ')'"));
  EXPECT_EQ(Error("CREATE TABLE t (a foo)"),
            "[UNSUPPORTED_DATATYPE] Unsupported data type \"FOO\". SQLSTATE: 0A000 "
            "(line 1, pos 18)");
  EXPECT_EQ(Error("CREATE TABLE t (a INT) USING iceberg AS SELECT 1"),
            "Operation not allowed: Schema may not be specified in a Create Table As Select "
            "(CTAS) statement. (line 1, pos 0)");
  EXPECT_EQ(Error("CREATE TABLE t (a INT) USING iceberg AS"), SyntaxError("end of input", 39));
  EXPECT_EQ(Error("CREATE OR REPLACE TABLE IF NOT EXISTS t (a int)"), SyntaxError("'NOT'", 27));
  EXPECT_EQ(Error("CREATE TABLE t (a int, b int NOT NULL NOT NULL)"),
            "[CREATE_TABLE_COLUMN_DESCRIPTOR_DUPLICATE] CREATE TABLE column b specifies "
            "descriptor \"NOT NULL\" more than once, which is invalid. SQLSTATE: 42710 "
            "(line 1, pos 23)");
  EXPECT_EQ(Error("CREATE TABLE t (a int, b int COMMENT 'x' COMMENT 'y')"),
            "[CREATE_TABLE_COLUMN_DESCRIPTOR_DUPLICATE] CREATE TABLE column b specifies "
            "descriptor \"COMMENT\" more than once, which is invalid. SQLSTATE: 42710 "
            "(line 1, pos 23)");
  EXPECT_EQ(Error("CREATE TABLE t (a int NOT)"), SyntaxError("')'", 25, ": missing 'NULL'"));
  EXPECT_EQ(Error("CREATE TABLE t (a int) PARTITIONED BY (a) PARTITIONED BY (a)"),
            "[DUPLICATE_CLAUSES] Found duplicate clauses: PARTITIONED BY. Please, remove one of "
            "them. SQLSTATE: 42614 (line 1, pos 0)");
  EXPECT_EQ(Condition("CREATE TABLE t (a int) COMMENT 'x' PARTITIONED BY (a) COMMENT 'y'"),
            "DUPLICATE_CLAUSES");
  EXPECT_EQ(Condition("CREATE TABLE t (a int) TBLPROPERTIES ('a'='b') TBLPROPERTIES ('a'='b')"),
            "DUPLICATE_CLAUSES");
  EXPECT_EQ(Condition("CREATE TABLE t (a int) OPTIONS ('a'='b') OPTIONS ('a'='b')"),
            "DUPLICATE_CLAUSES");
  EXPECT_EQ(Condition("CREATE TABLE t (a int) LOCATION 'a' LOCATION 'b'"), "DUPLICATE_CLAUSES");
  EXPECT_EQ(Error("CREATE TABLE t (a int)   TBLPROPERTIES ('k'='v', 'k'='w')"),
            "[DUPLICATE_KEY] Found duplicate keys `k`. SQLSTATE: 23505 (line 1, pos 39)");
  EXPECT_EQ(Error("CREATE TABLE t (a int) TBLPROPERTIES ('k')"),
            "Operation not allowed: Values must be specified for key(s): [k]. (line 1, pos 0)");
  EXPECT_EQ(Error("CREATE TABLE t (a int) OPTIONS ('k')"),
            "Operation not allowed: A value must be specified for the key: k.. (line 1, pos 0)");
  // Ember says "extra input" of any token after a whole statement; Spark only when the end
  // follows it.
  EXPECT_EQ(Error("CREATE TABLE t (a int) OPTIONS ('x'='y') USING iceberg"),
            SyntaxError("'USING'", 41, ": extra input 'USING'"));
  EXPECT_EQ(Error("CREATE TABLE t (a int) WITH (x = 1)"), SyntaxError("'('", 28));
  EXPECT_EQ(Error("CREATE TABLE t (a int DEFAULT 1)"), Unsupported("DEFAULT column values", 22));
  EXPECT_EQ(Error("CREATE TABLE t (a int GENERATED ALWAYS AS (1))"),
            Unsupported("GENERATED column values", 22));
  EXPECT_EQ(Error("CREATE TABLE t (a int) STORED AS PARQUET"), Unsupported("STORED AS", 23));
  EXPECT_EQ(Error("CREATE TABLE t (a int) CLUSTER BY (a)"),
            Unsupported("CLUSTER BY in CREATE TABLE", 23));
  EXPECT_EQ(Error("CREATE EXTERNAL TABLE t (a int)"), Unsupported("CREATE EXTERNAL", 7));
  EXPECT_EQ(Error("CREATE TABLE"), SyntaxError("end of input", 12));
}

TEST(SqlStatementTest, PartitionTransforms) {
  Statement s = Parse(
      "CREATE TABLE t (a INT) PARTITIONED BY (a, info.ts, years(ts), months(ts), days(ts), "
      "hours(ts), year(ts), month(ts), day(ts), date(ts), hour(ts), date_hour(ts), "
      "identity(a), bucket(4, a), BUCKET(8L, x.y), truncate(10, s), truncate(s, 3))");
  EXPECT_EQ(ShowPartitioning(s.partitioning),
            "identity(a), identity(info.ts), years(ts), months(ts), days(ts), hours(ts), "
            "years(ts), months(ts), days(ts), days(ts), hours(ts), hours(ts), identity(a), "
            "bucket(4, a), bucket(8, x.y), truncate(10, s), truncate(3, s)");
  EXPECT_EQ(s.partitioning[0].argument, 0);
  EXPECT_EQ(s.partitioning[13].argument, 4);
}

TEST(SqlStatementTest, PartitionTransformErrors) {
  const std::string create = "CREATE TABLE t (a int) PARTITIONED BY (a, ";  // terms at pos 42
  EXPECT_EQ(Error(create + "years(a, b))"),
            "[INVALID_SQL_SYNTAX.TRANSFORM_WRONG_NUM_ARGS] Invalid SQL syntax: The "
            "transform`years` requires 1 parameters but the actual number is 2. SQLSTATE: 42000 "
            "(line 1, pos 42)");
  EXPECT_EQ(Error(create + "years(1))"),
            "[INVALID_SQL_SYNTAX.INVALID_COLUMN_REFERENCE] Invalid SQL syntax: Expected a column "
            "reference for transform `years`: 1. SQLSTATE: 42000 (line 1, pos 42)");
  EXPECT_EQ(Error(create + "bucket(4, 'x'))"),
            "[INVALID_SQL_SYNTAX.INVALID_COLUMN_REFERENCE] Invalid SQL syntax: Expected a column "
            "reference for transform `bucket`: 'x'. SQLSTATE: 42000 (line 1, pos 42)");
  EXPECT_EQ(Error(create + "bucket(a, 4))"), "Invalid number of buckets: a. (line 1, pos 42)");
  EXPECT_EQ(Error(create + "bucket('4', a))"), "Invalid number of buckets: '4'. (line 1, pos 42)");
  EXPECT_EQ(Condition(create + "bucket(a, 4))"), "_LEGACY_ERROR_TEMP_0031");
  EXPECT_EQ(Error(create + "bucket())"), SyntaxError("')'", 49));
  EXPECT_EQ(Error(create + "years())"), SyntaxError("')'", 48));
  EXPECT_EQ(Error(create + "b int)"),
            Unsupported("partition columns with a type in PARTITIONED BY", 42));
  // Spark leaves these to the catalog; Iceberg's would reject them.
  EXPECT_EQ(Condition(create + "bucket(4, a, b))"), "INVALID_SQL_SYNTAX.TRANSFORM_WRONG_NUM_ARGS");
  EXPECT_EQ(Condition(create + "bucket(4))"), "INVALID_SQL_SYNTAX.TRANSFORM_WRONG_NUM_ARGS");
  EXPECT_EQ(Condition(create + "truncate(a))"), "INVALID_SQL_SYNTAX.TRANSFORM_WRONG_NUM_ARGS");
  EXPECT_EQ(Condition(create + "truncate(3, 'x'))"), "INVALID_SQL_SYNTAX.INVALID_COLUMN_REFERENCE");
  EXPECT_EQ(Error(create + "bucket(0, a))"), Unsupported("partition transform bucket(0, a)", 42));
  EXPECT_EQ(Error(create + "bucket(-1, a))"), Unsupported("partition transform bucket(-1, a)", 42));
  EXPECT_EQ(Error(create + "truncate(a, b))"),
            Unsupported("partition transform truncate(a, b)", 42));
  EXPECT_EQ(Error(create + "foo(a))"), Unsupported("partition transform foo(a)", 42));
}

TEST(SqlStatementTest, DropTable) {
  Statement s = Parse("DROP TABLE IF EXISTS local.db.t PURGE");
  EXPECT_EQ(s.kind, StatementKind::kDropTable);
  EXPECT_EQ(Join(s.name), "local|db|t");
  EXPECT_TRUE(s.if_exists);
  EXPECT_TRUE(s.purge);
  s = Parse("DROP TABLE t;");
  EXPECT_EQ(Join(s.name), "t");
  EXPECT_FALSE(s.if_exists);
  EXPECT_FALSE(s.purge);
  EXPECT_EQ(Error("DROP TABLE"), SyntaxError("end of input", 10));
  EXPECT_EQ(Error("DROP TABLE t CASCADE"), SyntaxError("'CASCADE'", 13, ": extra input 'CASCADE'"));
  EXPECT_EQ(Condition("DROP TABLE my-table"), "INVALID_IDENTIFIER");
}

TEST(SqlStatementTest, DropView) {
  Statement s = Parse("DROP VIEW IF EXISTS db.v");
  EXPECT_EQ(s.kind, StatementKind::kDropView);
  EXPECT_EQ(Join(s.name), "db|v");
  EXPECT_TRUE(s.if_exists);
  s = Parse("DROP VIEW v");
  EXPECT_EQ(s.kind, StatementKind::kDropView);
  EXPECT_EQ(Join(s.name), "v");
  EXPECT_FALSE(s.if_exists);
}

TEST(SqlStatementTest, ShowNamespacesAndTables) {
  Statement s = Parse("SHOW NAMESPACES");
  EXPECT_EQ(s.kind, StatementKind::kShowNamespaces);
  EXPECT_TRUE(s.name.empty());
  EXPECT_FALSE(s.pattern.has_value());
  s = Parse("SHOW DATABASES IN local LIKE 'a*'");
  EXPECT_EQ(s.kind, StatementKind::kShowNamespaces);
  EXPECT_EQ(Join(s.name), "local");
  EXPECT_EQ(s.pattern, "a*");
  EXPECT_EQ(Parse("SHOW SCHEMAS 'b*'").pattern, "b*");
  EXPECT_EQ(Join(Parse("SHOW DATABASES FROM a.b").name), "a|b");

  s = Parse("SHOW TABLES FROM local.db LIKE 'x'");
  EXPECT_EQ(s.kind, StatementKind::kShowTables);
  EXPECT_EQ(Join(s.name), "local|db");
  EXPECT_EQ(s.pattern, "x");
  s = Parse("show tables");
  EXPECT_EQ(s.kind, StatementKind::kShowTables);
  EXPECT_TRUE(s.name.empty());

  EXPECT_EQ(Error("SHOW TABLES IN"), SyntaxError("end of input", 14));
  EXPECT_EQ(Error("SHOW TABLES LIKE x"), SyntaxError("'x'", 17));
  EXPECT_EQ(Error("SHOW TABLES IN a LIKE 'x' 'y'"),
            SyntaxError("''y''", 26, ": extra input ''y''"));
  EXPECT_EQ(Error("SHOW"), SyntaxError("end of input", 4));
}

TEST(SqlStatementTest, Describe) {
  Statement s = Parse("DESC t");
  EXPECT_EQ(s.kind, StatementKind::kDescribeTable);
  EXPECT_EQ(Join(s.name), "t");
  EXPECT_FALSE(s.extended);
  s = Parse("DESCRIBE TABLE EXTENDED local.db.t");
  EXPECT_EQ(Join(s.name), "local|db|t");
  EXPECT_TRUE(s.extended);
  EXPECT_TRUE(Parse("describe formatted t").extended);
  // A keyword with no name after it is the name, as in Spark.
  s = Parse("DESCRIBE EXTENDED");
  EXPECT_EQ(Join(s.name), "EXTENDED");
  EXPECT_FALSE(s.extended);
  EXPECT_EQ(Join(Parse("DESCRIBE TABLE").name), "TABLE");

  EXPECT_EQ(Error("DESCRIBE"), SyntaxError("end of input", 8));
  EXPECT_EQ(Error("DESCRIBE t a"), Unsupported("DESCRIBE of a column", 11));
  EXPECT_EQ(Error("DESCRIBE t PARTITION (a = 1)"), Unsupported("DESCRIBE of a partition", 11));
  EXPECT_EQ(Error("DESCRIBE NAMESPACE db"), Unsupported("DESCRIBE NAMESPACE", 9));
  EXPECT_EQ(Error("DESCRIBE SELECT 1"), Unsupported("DESCRIBE QUERY", 9));
  EXPECT_EQ(Error("DESCRIBE QUERY SELECT 1"), Unsupported("DESCRIBE QUERY", 9));
}

// ---- Writes ----

TEST(SqlStatementTest, InsertValues) {
  Statement s = Parse("INSERT INTO local.db.t VALUES (1, 'a'), (2 + 3, NULL), (-1, upper('x'))");
  EXPECT_EQ(s.kind, StatementKind::kInsert);
  EXPECT_EQ(Join(s.name), "local|db|t");
  EXPECT_FALSE(s.overwrite);
  EXPECT_FALSE(s.by_name);
  EXPECT_TRUE(s.insert_columns.empty());
  EXPECT_EQ(s.query, nullptr);
  ASSERT_EQ(s.rows.size(), 3u);
  EXPECT_EQ(ShowRow(s.rows[0]), "(1, a)");
  EXPECT_EQ(ShowRow(s.rows[1]), "((2 + 3), NULL)");
  EXPECT_EQ(ShowRow(s.rows[2]), "(-1, upper(x))");
  ASSERT_EQ(s.rows[0][1]->kind, plan::ExprKind::kLiteral);
  EXPECT_TRUE(s.rows[0][1]->value->type->Equals(*arrow::utf8()));

  s = Parse("INSERT INTO TABLE t (a, `b c`) VALUES (1, 2)");
  EXPECT_EQ(Join(s.name), "t");
  EXPECT_EQ(Join(s.insert_columns), "a|b c");
  EXPECT_EQ(s.rows.size(), 1u);

  // Rows of one column need no parentheses.
  s = Parse("INSERT OVERWRITE TABLE t VALUES 1, 2");
  EXPECT_TRUE(s.overwrite);
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_EQ(ShowRow(s.rows[1]), "(2)");
}

TEST(SqlStatementTest, InsertQuery) {
  Statement s = Parse("INSERT INTO t SELECT * FROM s");
  EXPECT_EQ(s.kind, StatementKind::kInsert);
  EXPECT_EQ(Show(s.query), "Select (*)(Relation s)");
  EXPECT_TRUE(s.rows.empty());
  s = Parse("INSERT INTO t (SELECT 1)");
  EXPECT_TRUE(s.insert_columns.empty());
  EXPECT_EQ(Show(s.query), "Select (1)()");
  s = Parse("INSERT INTO t (a) (SELECT 1)");
  EXPECT_EQ(Join(s.insert_columns), "a");
  s = Parse("INSERT OVERWRITE t WITH c AS (SELECT 1) SELECT * FROM c");
  EXPECT_TRUE(s.overwrite);
  EXPECT_EQ(Show(s.query), "Select (*)(Alias c(Select (1)()))");
  s = Parse("INSERT INTO t BY NAME SELECT 1 AS a");
  EXPECT_TRUE(s.by_name);
  EXPECT_TRUE(s.insert_columns.empty());
}

TEST(SqlStatementTest, InsertErrors) {
  EXPECT_EQ(Error("INSERT INTO t VALUES"), SyntaxError("end of input", 20));
  EXPECT_EQ(Error("INSERT t VALUES (1)"), SyntaxError("'t'", 7));
  EXPECT_EQ(Error("INSERT INTO t (a, b)"), SyntaxError("end of input", 20));
  EXPECT_EQ(Error("INSERT INTO t (a.b) VALUES (1)"), SyntaxError("'.'", 16));
  EXPECT_EQ(Error("INSERT INTO t AS x VALUES (1)"), SyntaxError("'AS'", 14));
  EXPECT_EQ(Error("INSERT OVERWRITE TABLE t IF NOT EXISTS SELECT 1"), SyntaxError("'IF'", 25));
  EXPECT_EQ(Error("INSERT INTO t VALUES (1), (2, 3), (4)"),
            "[INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH] Invalid inline table. Inline table "
            "expected 1 columns but found 2 columns in row 1. SQLSTATE: 42000 (line 1, pos 14)");
  EXPECT_EQ(Error("INSERT INTO t VALUES (1, 2), (3)"),
            "[INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH] Invalid inline table. Inline table "
            "expected 2 columns but found 1 columns in row 1. SQLSTATE: 42000 (line 1, pos 14)");
  EXPECT_EQ(Error("INSERT INTO t PARTITION (a = 1) VALUES (1)"),
            Unsupported("INSERT into a PARTITION", 14));
  EXPECT_EQ(Error("INSERT INTO t REPLACE WHERE a = 1 SELECT 1"),
            Unsupported("INSERT INTO ... REPLACE", 14));
  EXPECT_EQ(Error("INSERT OVERWRITE DIRECTORY '/x' SELECT 1"),
            Unsupported("INSERT OVERWRITE DIRECTORY", 17));
}

TEST(SqlStatementTest, Merge) {
  Statement s = Parse(
      "MERGE INTO local.db.t AS t USING (SELECT * FROM u) s ON t.id = s.id "
      "WHEN MATCHED AND s.op = 'd' THEN DELETE "
      "WHEN MATCHED THEN UPDATE SET t.v = s.v, w = 1 "
      "WHEN NOT MATCHED AND s.x THEN INSERT (id, t.v) VALUES (s.id, s.v) "
      "WHEN NOT MATCHED BY TARGET THEN INSERT * "
      "WHEN NOT MATCHED BY SOURCE AND t.v > 1 THEN DELETE "
      "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = 0");
  EXPECT_EQ(s.kind, StatementKind::kMerge);
  EXPECT_EQ(Join(s.name), "local|db|t");
  EXPECT_EQ(s.alias, "t");
  EXPECT_EQ(Show(s.source), "Alias s(Select (*)(Relation u))");
  EXPECT_EQ(Show(s.condition), "(t.id = s.id)");
  ASSERT_EQ(s.clauses.size(), 6u);

  const MergeClause& c0 = s.clauses[0];
  EXPECT_EQ(c0.match, MergeMatch::kMatched);
  EXPECT_EQ(Show(c0.condition), "(s.op = d)");
  EXPECT_EQ(c0.action, MergeAction::kDelete);
  EXPECT_TRUE(c0.assignments.empty());

  const MergeClause& c1 = s.clauses[1];
  EXPECT_EQ(c1.match, MergeMatch::kMatched);
  EXPECT_EQ(c1.condition, nullptr);
  EXPECT_EQ(c1.action, MergeAction::kUpdate);
  EXPECT_EQ(ShowAssignments(c1.assignments), "t|v = s.v, w = 1");

  const MergeClause& c2 = s.clauses[2];
  EXPECT_EQ(c2.match, MergeMatch::kNotMatched);
  EXPECT_EQ(Show(c2.condition), "s.x");
  EXPECT_EQ(c2.action, MergeAction::kInsert);
  ASSERT_EQ(c2.insert_columns.size(), 2u);
  EXPECT_EQ(Join(c2.insert_columns[0]), "id");
  EXPECT_EQ(Join(c2.insert_columns[1]), "t|v");
  EXPECT_EQ(ShowRow(c2.insert_values), "(s.id, s.v)");

  const MergeClause& c3 = s.clauses[3];
  EXPECT_EQ(c3.match, MergeMatch::kNotMatched);
  EXPECT_EQ(c3.condition, nullptr);
  EXPECT_EQ(c3.action, MergeAction::kInsertStar);
  EXPECT_TRUE(c3.insert_columns.empty());

  const MergeClause& c4 = s.clauses[4];
  EXPECT_EQ(c4.match, MergeMatch::kNotMatchedBySource);
  EXPECT_EQ(Show(c4.condition), "(t.v > 1)");
  EXPECT_EQ(c4.action, MergeAction::kDelete);

  const MergeClause& c5 = s.clauses[5];
  EXPECT_EQ(c5.match, MergeMatch::kNotMatchedBySource);
  EXPECT_EQ(c5.action, MergeAction::kUpdate);
  EXPECT_EQ(ShowAssignments(c5.assignments), "v = 0");
}

TEST(SqlStatementTest, MergeSourcesAndStarActions) {
  // The SCD merge of a foreachBatch function: a temporary view as the source.
  Statement s = Parse(
      "MERGE INTO local.db.dim t USING updates s ON t.k = s.k "
      "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *;");
  EXPECT_EQ(s.alias, "t");
  EXPECT_EQ(Show(s.source), "Alias s(Relation updates)");
  ASSERT_EQ(s.clauses.size(), 2u);
  EXPECT_EQ(s.clauses[0].action, MergeAction::kUpdateStar);
  EXPECT_EQ(s.clauses[1].action, MergeAction::kInsertStar);

  s = Parse("MERGE INTO t USING (SELECT 1 AS a) ON t.a = 1 WHEN MATCHED THEN DELETE");
  EXPECT_EQ(s.alias, "");
  EXPECT_EQ(Show(s.source), "Select (a)()");
  s = Parse("MERGE INTO t USING a.s ON t.a = s.a WHEN MATCHED THEN UPDATE SET a.b.c = 1");
  EXPECT_EQ(Show(s.source), "Relation a|s");
  EXPECT_EQ(ShowAssignments(s.clauses[0].assignments), "a|b|c = 1");
}

TEST(SqlStatementTest, MergeErrors) {
  const std::string merge = "MERGE INTO t USING s ON t.a = s.a ";  // 34 characters
  EXPECT_EQ(Error("MERGE INTO t USING s ON t.a = s.a"),
            "[MERGE_WITHOUT_WHEN] There must be at least one WHEN clause in a MERGE statement. "
            "SQLSTATE: 42601 (line 1, pos 0)");
  EXPECT_EQ(Error(merge + "WHEN MATCHED THEN DELETE WHEN MATCHED AND a THEN DELETE"),
            "[NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION] When there are more than one MATCHED "
            "clauses in a MERGE statement, only the last MATCHED clause can omit the condition. "
            "SQLSTATE: 42613 (line 1, pos 0)");
  EXPECT_EQ(Error("  " + merge +
                  "WHEN NOT MATCHED THEN INSERT * WHEN NOT MATCHED AND a THEN "
                  "INSERT *"),
            "[NON_LAST_NOT_MATCHED_BY_TARGET_CLAUSE_OMIT_CONDITION] When there are more than one "
            "NOT MATCHED [BY TARGET] clauses in a MERGE statement, only the last NOT MATCHED [BY "
            "TARGET] clause can omit the condition. SQLSTATE: 42613 (line 1, pos 2)");
  EXPECT_EQ(Error(merge + "WHEN NOT MATCHED BY SOURCE THEN DELETE WHEN NOT MATCHED BY SOURCE AND "
                          "a THEN DELETE"),
            "[NON_LAST_NOT_MATCHED_BY_SOURCE_CLAUSE_OMIT_CONDITION] When there are more than one "
            "NOT MATCHED BY SOURCE clauses in a MERGE statement, only the last NOT MATCHED BY "
            "SOURCE clause can omit the condition. SQLSTATE: 42613 (line 1, pos 0)");
  // An unconditional clause last of its kind is fine before clauses of other kinds.
  EXPECT_EQ(Error(merge + "WHEN MATCHED AND a THEN DELETE WHEN MATCHED THEN DELETE "
                          "WHEN NOT MATCHED THEN INSERT *"),
            "parsed");
  EXPECT_EQ(Error(merge + "WHEN NOT MATCHED THEN INSERT (a, b) VALUES (1)"),
            "The number of inserted values cannot match the fields. (line 1, pos 0)");
  EXPECT_EQ(Condition(merge + "WHEN NOT MATCHED THEN INSERT (a) VALUES (1, 2)"),
            "_LEGACY_ERROR_TEMP_0006");
  // Spark's grammar takes the kinds of clauses in a fixed order.
  EXPECT_EQ(Error(merge + "WHEN NOT MATCHED THEN INSERT * WHEN MATCHED THEN DELETE"),
            SyntaxError("'MATCHED'", 70));
  EXPECT_EQ(Error(merge + "WHEN NOT MATCHED BY SOURCE THEN DELETE WHEN NOT MATCHED THEN INSERT *"),
            SyntaxError("'THEN'", 90));
  EXPECT_EQ(Error(merge + "WHEN NOT MATCHED BY SOURCE THEN DELETE WHEN NOT MATCHED BY TARGET "
                          "THEN INSERT *"),
            SyntaxError("'TARGET'", 93));
  // Spark adds ": missing {'!', 'NOT'}" here.
  EXPECT_EQ(Error(merge + "WHEN NOT MATCHED BY SOURCE THEN DELETE WHEN MATCHED THEN DELETE"),
            SyntaxError("'MATCHED'", 78));
  // Actions each kind of clause does not allow.
  EXPECT_EQ(Error(merge + "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET *"), SyntaxError("'*'", 77));
  EXPECT_EQ(Error(merge + "WHEN NOT MATCHED BY SOURCE THEN INSERT *"), SyntaxError("'INSERT'", 66));
  EXPECT_EQ(Error(merge + "WHEN MATCHED THEN INSERT *"), SyntaxError("'INSERT'", 52));
  EXPECT_EQ(Error(merge + "WHEN NOT MATCHED THEN DELETE"), SyntaxError("'DELETE'", 56));
  EXPECT_EQ(Error(merge + "WHEN NOT MATCHED THEN INSERT VALUES (1)"), SyntaxError("'VALUES'", 63));
  EXPECT_EQ(Error(merge + "WHEN MATCHED THEN UPDATE a = 1"), SyntaxError("'a'", 59));
  EXPECT_EQ(Error(merge + "WHEN MATCHED THEN UPDATE SET a = 1,"), SyntaxError("end of input", 69));
  // Ember names a missing ')' at the end of the input, as it does in queries; Spark does not
  // here.
  EXPECT_EQ(Error(merge + "WHEN NOT MATCHED THEN INSERT (a) VALUES (1"),
            SyntaxError("end of input", 76, ": missing ')'"));
  // Ember reserves WHEN, which Spark takes for an alias or a column in these two.
  EXPECT_EQ(Error("MERGE INTO t USING s WHEN MATCHED THEN DELETE"), SyntaxError("'WHEN'", 21));
  EXPECT_EQ(Error("MERGE INTO t USING s ON WHEN MATCHED THEN DELETE"), SyntaxError("'WHEN'", 24));
  EXPECT_EQ(Error("MERGE t USING s ON a WHEN MATCHED THEN DELETE"), SyntaxError("'t'", 6));
  EXPECT_EQ(Error("MERGE WITH SCHEMA EVOLUTION INTO t USING s ON a WHEN MATCHED THEN DELETE"),
            Unsupported("MERGE WITH SCHEMA EVOLUTION", 6));
}

TEST(SqlStatementTest, Update) {
  Statement s = Parse("UPDATE local.db.t AS x SET x.a = 1, b = b + 1 WHERE x.c > 2");
  EXPECT_EQ(s.kind, StatementKind::kUpdate);
  EXPECT_EQ(Join(s.name), "local|db|t");
  EXPECT_EQ(s.alias, "x");
  EXPECT_EQ(ShowAssignments(s.assignments), "x|a = 1, b = (b + 1)");
  EXPECT_EQ(Show(s.condition), "(x.c > 2)");

  s = Parse("UPDATE t SET a = 1");
  EXPECT_EQ(s.alias, "");
  EXPECT_EQ(s.condition, nullptr);
  EXPECT_EQ(Parse("UPDATE t x SET a = 1").alias, "x");
  // SET names the alias only when a second SET follows.
  s = Parse("UPDATE t set SET a = 1");
  EXPECT_EQ(s.alias, "set");
  EXPECT_EQ(ShowAssignments(s.assignments), "a = 1");
  s = Parse("UPDATE t SET set = 1");
  EXPECT_EQ(s.alias, "");
  EXPECT_EQ(ShowAssignments(s.assignments), "set = 1");

  EXPECT_EQ(Error("UPDATE t SET"), SyntaxError("end of input", 12));
  EXPECT_EQ(Error("UPDATE t SET a"), SyntaxError("end of input", 14));
  EXPECT_EQ(Error("UPDATE t(a) SET a = 1"), SyntaxError("'('", 8));
  EXPECT_EQ(Error("UPDATE t SET a = 1 WHERE"), SyntaxError("end of input", 24));
  // Spark does not add "extra input" here, see CreateTableErrors.
  EXPECT_EQ(Error("UPDATE t SET a = 1 b = 2"), SyntaxError("'b'", 19, ": extra input 'b'"));
}

TEST(SqlStatementTest, Delete) {
  Statement s = Parse("DELETE FROM local.db.t AS x WHERE x.a > 1");
  EXPECT_EQ(s.kind, StatementKind::kDelete);
  EXPECT_EQ(Join(s.name), "local|db|t");
  EXPECT_EQ(s.alias, "x");
  EXPECT_EQ(Show(s.condition), "(x.a > 1)");
  s = Parse("DELETE FROM t");
  EXPECT_EQ(s.alias, "");
  EXPECT_EQ(s.condition, nullptr);
  EXPECT_EQ(Parse("DELETE FROM t x").alias, "x");

  EXPECT_EQ(Error("DELETE t WHERE a = 1"), SyntaxError("'t'", 7, ": missing 'FROM'"));
  // Ember reserves WHERE, which Spark takes for an alias here.
  EXPECT_EQ(Error("DELETE FROM t WHERE"), SyntaxError("end of input", 19));
}

// ---- Session ----

TEST(SqlStatementTest, Set) {
  struct Case {
    const char* sql;
    const char* key;
    const char* value;  // null: no value
  };
  const Case kCases[] = {
      {"SET", "", nullptr},
      {"SET;", "", nullptr},
      {"SET -v", "-v", nullptr},
      {"SET a.b", "a.b", nullptr},
      {"SET a.b ;", "a.b", nullptr},
      {"SET spark.sql.shuffle.partitions = 4", "spark.sql.shuffle.partitions", "4"},
      {"SET spark.sql.session.timeZone=America/Los_Angeles ;", "spark.sql.session.timeZone",
       "America/Los_Angeles"},
      {"SET a:b\\c = 1", "a:b\\c", "1"},
      {"SET a =   b c  ", "a", "b c"},
      {"SET a = 'x'", "a", "'x'"},
      {"SET a = b -- kept, as in Spark", "a", "b -- kept, as in Spark"},
      {"SET a=", "a", ""},
      {"SET `a b` = `c;d`", "a b", "c;d"},
      {"SET a = `x`", "a", "x"},
      {"SET `a`", "a", nullptr},
      {"SET `a`;", "a", nullptr},
      {"SET `a` = 1", "a", "1"},
      {"SET `a` = x ;", "a", "x "},
      {"SET `a` = `b` c", "a", "`b` c"},
      {"SET TIME ZONE 'America/New_York'", "spark.sql.session.timeZone", "America/New_York"},
      {"set time zone 'UTC';", "spark.sql.session.timeZone", "UTC"},
  };
  for (const Case& c : kCases) {
    Statement s = Parse(c.sql);
    EXPECT_EQ(s.kind, StatementKind::kSet) << c.sql;
    EXPECT_EQ(s.key, c.key) << c.sql;
    if (c.value == nullptr) {
      EXPECT_FALSE(s.value.has_value()) << c.sql;
    } else {
      EXPECT_EQ(s.value, c.value) << c.sql;
    }
  }
}

TEST(SqlStatementTest, SetErrors) {
  const std::string invalid =
      "[INVALID_SET_SYNTAX] Expected format is 'SET', 'SET key', or 'SET key=value'. If you "
      "want to include special characters in key, or include semicolon in value, please use "
      "backquotes, e.g., SET `key`=`value`. SQLSTATE: 42000 (line 1, pos 0)";
  EXPECT_EQ(Error("SET a b = c"), invalid);
  EXPECT_EQ(Error("SET a = b;c"), invalid);
  EXPECT_EQ(Error("SET  x y"), invalid);
  EXPECT_EQ(Error("SET `a` `b`"), invalid);
  EXPECT_EQ(Error("SET `a` = x;y"),
            "[INVALID_PROPERTY_VALUE] \"x;y\" is an invalid property value, please use quotes, "
            "e.g. SET \"a\"=\"x;y\" SQLSTATE: 42602 (line 1, pos 0)");
  EXPECT_EQ(Error("SET a b = `c`"),
            "[INVALID_PROPERTY_KEY] \"a b\" is an invalid property key, please use quotes, e.g. "
            "SET \"a b\"=\"c\". SQLSTATE: 42602 (line 1, pos 0)");
  EXPECT_EQ(Error("SET TIME ZONE"), "Invalid time zone displacement value. (line 1, pos 0)");
  EXPECT_EQ(Error("SET TIME ZONE 'UTC' x"),
            "Invalid time zone displacement value. (line 1, pos 0)");
  EXPECT_EQ(Error("SET TIME ZONE LOCAL"), Unsupported("SET TIME ZONE LOCAL", 14));
  // Ember reads comments before it knows the statement; Spark takes this text as the value.
  EXPECT_EQ(Error("SET a = /* open"),
            "[UNCLOSED_BRACKETED_COMMENT] Found an unclosed bracketed comment. Please, append */ "
            "at the end of the comment. SQLSTATE: 42601 (line 1, pos 8)");
}

TEST(SqlStatementTest, Use) {
  Statement s = Parse("USE local.db");
  EXPECT_EQ(s.kind, StatementKind::kUse);
  EXPECT_EQ(Join(s.name), "local|db");
  EXPECT_EQ(Join(Parse("use namespace `my db`").name), "my db");
  EXPECT_EQ(Join(Parse("USE namespace").name), "namespace");
  EXPECT_EQ(Error("USE"), SyntaxError("end of input", 3));
  EXPECT_EQ(Error("USE a b"), SyntaxError("'b'", 6, ": extra input 'b'"));
}

// Every prefix of valid statements parses or fails with a ParseException: the parser never
// crashes, loops or reports an internal error on truncated input.
TEST(SqlStatementTest, EveryPrefixParsesOrFailsCleanly) {
  const char* kStatements[] = {
      "CREATE NAMESPACE IF NOT EXISTS local.db COMMENT 'c' LOCATION '/x' "
      "WITH DBPROPERTIES ('a'='b', c.d = 1);",
      "CREATE OR REPLACE TABLE local.db.t (id BIGINT NOT NULL COMMENT 'k', s STRUCT<a: INT>, "
      "m MAP<STRING, ARRAY<INT>>) USING iceberg PARTITIONED BY (days(ts), bucket(4, id), "
      "truncate(s, 2)) TBLPROPERTIES ('format-version'='2') AS SELECT 1",
      "INSERT OVERWRITE TABLE t (a, b) VALUES (1, 'x'), (2, NULL)",
      "MERGE INTO t AS t USING (SELECT * FROM u) s ON t.id = s.id WHEN MATCHED AND s.d "
      "THEN DELETE WHEN MATCHED THEN UPDATE SET t.v = s.v WHEN NOT MATCHED THEN INSERT (id, v) "
      "VALUES (s.id, s.v) WHEN NOT MATCHED BY SOURCE THEN DELETE",
      "UPDATE t x SET a = 1 WHERE b; DELETE FROM t WHERE a",
      "SET `a` = `b`",
      "SET TIME ZONE 'UTC'",
      "DESCRIBE TABLE EXTENDED a.b",
      "SHOW TABLES FROM a LIKE 'x'",
      "DROP NAMESPACE IF EXISTS a CASCADE",
  };
  for (const char* statement : kStatements) {
    std::string text(statement);
    for (size_t n = 0; n <= text.size(); ++n) {
      auto result = ParseStatement(text.substr(0, n));
      if (!result.ok()) {
        const ErrorDetail* detail = GetErrorDetail(result.status());
        ASSERT_NE(detail, nullptr) << text.substr(0, n) << ": " << result.status().ToString();
        EXPECT_EQ(detail->kind(), ErrorKind::kParse) << text.substr(0, n);
      }
    }
  }
}

}  // namespace
}  // namespace ember::sql
