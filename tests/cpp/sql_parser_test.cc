// Tests of the Spark SQL parser: the trees it builds for expressions and queries, and Spark's error
// messages with positions for malformed text.
#include "ember/sql/parser.h"

#include <string>
#include <vector>

#include <arrow/scalar.h>
#include <arrow/type.h>
#include <gtest/gtest.h>

#include "ember/error.h"
#include "ember/plan/type_names.h"

namespace ember::sql {
namespace {

using plan::ExprKind;
using plan::PlanKind;

// An unambiguous rendering of an expression: calls as name(args), literals with their type.
std::string Show(const plan::Expr& e) {
  switch (e.kind) {
    case ExprKind::kColumn: {
      std::string out;
      for (const auto& part : e.name_parts) out += (out.empty() ? "" : "|") + part;
      return out;
    }
    case ExprKind::kStar:
      return plan::DisplayName(e);
    case ExprKind::kLiteral: {
      std::string type = plan::SparkTypeName(*e.value->type);
      if (!e.value->is_valid) return "NULL:" + type;
      if (e.value->type->id() == arrow::Type::STRING) return "'" + e.value->ToString() + "'";
      return e.value->ToString() + ":" + type;
    }
    case ExprKind::kCall: {
      std::string out = e.name + "(" + (e.distinct ? "DISTINCT " : "");
      for (size_t i = 0; i < e.args.size(); ++i) {
        out += i ? ", " : "";
        if (i < e.keywords.size() && !e.keywords[i].empty()) out += e.keywords[i] + " => ";
        out += Show(*e.args[i]);
      }
      return out + ")";
    }
    case ExprKind::kCast:
      return std::string(e.try_cast ? "try_cast(" : "cast(") + Show(*e.args[0]) + " AS " +
             plan::SparkTypeName(*e.type) + ")";
    case ExprKind::kAlias:
      return Show(*e.args[0]) + " AS " + e.name;
    case ExprKind::kSortOrder:
      return Show(*e.args[0]) + (e.ascending ? " ASC" : " DESC") +
             (e.nulls_first ? " NULLS FIRST" : " NULLS LAST");
    case ExprKind::kAttribute:
      return "#" + e.name;
    case ExprKind::kWindow:
      return plan::DisplayName(e);
    case ExprKind::kLambda: {
      std::string out = "(";
      for (size_t i = 0; i < e.name_parts.size(); ++i) out += (i ? ", " : "") + e.name_parts[i];
      return out + ") -> " + Show(*e.args[0]);
    }
  }
  return "?";
}

std::string ShowList(const std::vector<plan::ExprPtr>& list) {
  std::string out;
  for (const auto& e : list) out += (out.empty() ? "" : ", ") + Show(*e);
  return out;
}

// An indented rendering of a parsed plan, two spaces per level.
std::string Dump(const plan::LogicalPlan& p, int depth = 0) {
  std::string out(depth * 2, ' ');
  switch (p.kind) {
    case PlanKind::kSelect: {
      const auto& s = *p.select;
      out += std::string("Select") + (s.distinct ? " DISTINCT" : "") + " [" +
             ShowList(s.select_list) + "]";
      if (s.where) out += " where=" + Show(*s.where);
      if (!s.group_by.empty()) out += " group=[" + ShowList(s.group_by) + "]";
      if (s.having) out += " having=" + Show(*s.having);
      if (!s.order_by.empty()) out += " order=[" + ShowList(s.order_by) + "]";
      if (s.limit >= 0) out += " limit=" + std::to_string(s.limit);
      break;
    }
    case PlanKind::kUnresolvedRelation: {
      out += "Relation ";
      for (size_t i = 0; i < p.name_parts.size(); ++i) out += (i ? "." : "") + p.name_parts[i];
      break;
    }
    case PlanKind::kSubqueryAlias:
      out += "SubqueryAlias " + p.alias;
      for (size_t i = 0; i < p.name_parts.size(); ++i) {
        out += (i ? ", " : "(") + p.name_parts[i] + (i + 1 == p.name_parts.size() ? ")" : "");
      }
      break;
    case PlanKind::kGenerate:
      out += "Generate " + Show(*p.exprs[0]);
      if (!p.alias.empty()) out += " alias=" + p.alias;
      if (p.partitioned) {
        out += " partition=[" + ShowList(p.groupings) + "] order=[" +
               ShowList(std::vector<plan::ExprPtr>(p.exprs.begin() + 1, p.exprs.end())) + "]";
      }
      if (p.generated_only) out += " generated-only";
      break;
    case PlanKind::kLocalTable:
      out += "Values";
      for (const auto& row : p.projections) out += " (" + ShowList(row) + ")";
      break;
    case PlanKind::kJoin: {
      static const char* kNames[] = {"Inner",    "LeftOuter", "RightOuter", "FullOuter",
                                     "LeftSemi", "LeftAnti",  "Cross"};
      out += std::string("Join ") + kNames[static_cast<int>(p.join_type)];
      if (!p.exprs.empty()) out += " on=" + Show(*p.exprs[0]);
      if (!p.using_columns.empty()) {
        out += " using=[";
        for (size_t i = 0; i < p.using_columns.size(); ++i) {
          out += (i ? ", " : "") + p.using_columns[i];
        }
        out += "]";
      }
      break;
    }
    case PlanKind::kUnion:
      out += "Union";
      break;
    case PlanKind::kDeduplicate:
      out += "Deduplicate";
      break;
    default:
      out += "Other";
  }
  out += "\n";
  for (const auto& child : p.children) out += Dump(*child, depth + 1);
  return out;
}

std::string Expr(const std::string& text) {
  auto result = ParseExpression(text);
  if (!result.ok()) return "error: " + result.status().message();
  return Show(**result);
}

std::string Query(const std::string& sql) {
  auto result = ParseQuery(sql);
  if (!result.ok()) return "error: " + result.status().message();
  return Dump(**result);
}

std::string QueryError(const std::string& sql) {
  auto result = ParseQuery(sql);
  if (result.ok()) return "parsed: " + Dump(**result);
  return result.status().message();
}

std::string ExprError(const std::string& text) {
  auto result = ParseExpression(text);
  if (result.ok()) return "parsed: " + Show(**result);
  return result.status().message();
}

// ---- Expressions ----

TEST(SqlParserTest, ColumnsAndStars) {
  EXPECT_EQ(Expr("a"), "a");
  EXPECT_EQ(Expr("T.aB"), "T|aB");
  EXPECT_EQ(Expr("a.b.c"), "a|b|c");
  EXPECT_EQ(Expr("`a b`.`c``d`"), "a b|c`d");
  EXPECT_EQ(Expr("*"), "*");
  EXPECT_EQ(Expr("t.*"), "t.*");
  auto star = ParseExpression("db.t.*");
  ASSERT_TRUE(star.ok());
  EXPECT_EQ((*star)->kind, ExprKind::kStar);
  EXPECT_EQ((*star)->name_parts, (std::vector<std::string>{"db", "t"}));
  // Keywords that are not clause words remain usable as column names.
  EXPECT_EQ(Expr("date"), "date");
  EXPECT_EQ(Expr("window.start"), "window|start");
  EXPECT_EQ(Expr("count"), "count");
}

TEST(SqlParserTest, IntegerLiterals) {
  EXPECT_EQ(Expr("1"), "1:int");
  EXPECT_EQ(Expr("2147483647"), "2147483647:int");
  EXPECT_EQ(Expr("2147483648"), "2147483648:bigint");
  EXPECT_EQ(Expr("-2147483648"), "-2147483648:int");
  EXPECT_EQ(Expr("- 5"), "-5:int");
  EXPECT_EQ(Expr("10L"), "10:bigint");
  EXPECT_EQ(Expr("-9223372036854775808L"), "-9223372036854775808:bigint");
  EXPECT_EQ(Expr("7S"), "7:smallint");
  EXPECT_EQ(Expr("-128Y"), "-128:tinyint");
  EXPECT_EQ(Expr("99999999999999999999"), "99999999999999999999:decimal(20,0)");
  EXPECT_EQ(Expr("1a"), "1a");  // the longest token wins: an identifier, as in Spark
}

TEST(SqlParserTest, DecimalAndFloatingLiterals) {
  EXPECT_EQ(Expr("1.5"), "1.5:decimal(2,1)");
  EXPECT_EQ(Expr("0.05"), "0.05:decimal(2,2)");
  EXPECT_EQ(Expr("123.450"), "123.450:decimal(6,3)");
  EXPECT_EQ(Expr(".5"), "0.5:decimal(1,1)");
  EXPECT_EQ(Expr("5."), "5:decimal(1,0)");
  EXPECT_EQ(Expr("-1.25"), "-1.25:decimal(3,2)");
  EXPECT_EQ(Expr("1.5BD"), "1.5:decimal(2,1)");
  EXPECT_EQ(Expr("12BD"), "12:decimal(2,0)");
  EXPECT_EQ(Expr("1e3"), "1000:double");
  EXPECT_EQ(Expr("1.5E-1"), "0.15:double");
  EXPECT_EQ(Expr("2D"), "2:double");
  EXPECT_EQ(Expr("2.5f"), "2.5:float");
}

TEST(SqlParserTest, StringAndOtherLiterals) {
  EXPECT_EQ(Expr("'abc'"), "'abc'");
  EXPECT_EQ(Expr("\"abc\""), "'abc'");
  EXPECT_EQ(Expr("'a' 'b' \"c\""), "'abc'");
  auto escaped = ParseExpression(R"('it\'s\n\t\\ \"q\" \u0041 \%')");
  ASSERT_TRUE(escaped.ok()) << escaped.status().ToString();
  EXPECT_EQ(static_cast<const arrow::StringScalar&>(*(*escaped)->value).ToString(),
            "it's\n\t\\ \"q\" A \\%");
  EXPECT_EQ(Expr(R"(r'\n')"), R"('\n')");
  EXPECT_EQ(Expr("true"), "true:boolean");
  EXPECT_EQ(Expr("FALSE"), "false:boolean");
  EXPECT_EQ(Expr("NULL"), "NULL:void");
  EXPECT_EQ(Expr("DATE '2024-01-01'"), "cast('2024-01-01' AS date)");
  EXPECT_EQ(Expr("TIMESTAMP '2024-01-01 10:00:00'"), "cast('2024-01-01 10:00:00' AS timestamp)");
  EXPECT_EQ(Expr("timestamp_ntz '2024-01-01'"), "cast('2024-01-01' AS timestamp_ntz)");
  auto ts = ParseExpression("TIMESTAMP '2024-01-01'");
  ASSERT_TRUE(ts.ok());
  EXPECT_TRUE((*ts)->type->Equals(plan::TimestampType()));
  auto ntz = ParseExpression("TIMESTAMP_NTZ '2024-01-01'");
  ASSERT_TRUE(ntz.ok());
  EXPECT_TRUE((*ntz)->type->Equals(arrow::timestamp(arrow::TimeUnit::MICRO)));
  auto binary = ParseExpression("X'4A4b'");
  ASSERT_TRUE(binary.ok());
  EXPECT_EQ(static_cast<const arrow::BinaryScalar&>(*(*binary)->value).value->ToString(), "JK");
}

TEST(SqlParserTest, Intervals) {
  EXPECT_EQ(Expr("INTERVAL '10' MINUTE"), "interval('10 minutes')");
  EXPECT_EQ(Expr("INTERVAL 10 MINUTES"), "interval('10 minutes')");
  EXPECT_EQ(Expr("interval 1 day 2 hours"), "interval('1 days 2 hours')");
  EXPECT_EQ(Expr("INTERVAL -5 SECONDS"), "interval('-5 seconds')");
  EXPECT_EQ(Expr("INTERVAL '1.5' SECOND"), "interval('1.5 seconds')");
  EXPECT_EQ(Expr("INTERVAL '1 day 3 hours'"), "interval('1 day 3 hours')");
  EXPECT_EQ(Expr("INTERVAL '1-2' YEAR TO MONTH"), "interval('1 years 2 months')");
  EXPECT_EQ(Expr("INTERVAL '-1 10:30:05.5' DAY TO SECOND"),
            "interval('-1 days -10 hours -30 minutes -5.5 seconds')");
  EXPECT_EQ(Expr("ts + INTERVAL 1 HOUR - 2"), "-(+(ts, interval('1 hours')), 2:int)");
  EXPECT_EQ(Expr("ts - INTERVAL '5' MINUTES AS t"), "-(ts, interval('5 minutes')) AS t");
}

TEST(SqlParserTest, ArithmeticPrecedence) {
  EXPECT_EQ(Expr("a + b * c"), "+(a, *(b, c))");
  EXPECT_EQ(Expr("(a + b) * c"), "*(+(a, b), c)");
  EXPECT_EQ(Expr("a - b - c"), "-(-(a, b), c)");
  EXPECT_EQ(Expr("a / b % c DIV d"), "div(%(/(a, b), c), d)");
  EXPECT_EQ(Expr("-a * b"), "*(negative(a), b)");
  EXPECT_EQ(Expr("- -1"), "negative(-1:int)");
  EXPECT_EQ(Expr("2 -1"), "-(2:int, 1:int)");
  EXPECT_EQ(Expr("+a"), "a");
  EXPECT_EQ(Expr("~a & b | c ^ d"), "|(&(~(a), b), ^(c, d))");
  EXPECT_EQ(Expr("a || b || 'c'"), "concat(concat(a, b), 'c')");
  EXPECT_EQ(Expr("a + 1 = b * 2"), "=(+(a, 1:int), *(b, 2:int))");
  EXPECT_EQ(Expr("a | b = c"), "=(|(a, b), c)");
}

TEST(SqlParserTest, ComparisonsAndLogic) {
  EXPECT_EQ(Expr("a == 1"), "=(a, 1:int)");
  EXPECT_EQ(Expr("a <=> b"), "<=>(a, b)");
  EXPECT_EQ(Expr("a != b"), "not(=(a, b))");
  EXPECT_EQ(Expr("a <> b"), "not(=(a, b))");
  EXPECT_EQ(Expr("a < 1 AND b >= 2 OR c <= 3 AND d > 4"),
            "or(and(<(a, 1:int), >=(b, 2:int)), and(<=(c, 3:int), >(d, 4:int)))");
  EXPECT_EQ(Expr("NOT a = b AND c"), "and(not(=(a, b)), c)");
  EXPECT_EQ(Expr("!a OR NOT NOT b"), "or(not(a), not(not(b)))");
  EXPECT_EQ(Expr("a AND (b OR c)"), "and(a, or(b, c))");
}

TEST(SqlParserTest, Predicates) {
  EXPECT_EQ(Expr("a IS NULL"), "isnull(a)");
  EXPECT_EQ(Expr("a IS NOT NULL"), "isnotnull(a)");
  EXPECT_EQ(Expr("a + 1 IS NULL"), "isnull(+(a, 1:int))");
  EXPECT_EQ(Expr("a IS TRUE"), "<=>(a, true:boolean)");
  EXPECT_EQ(Expr("a IS NOT DISTINCT FROM b"), "<=>(a, b)");
  EXPECT_EQ(Expr("a IS DISTINCT FROM b"), "not(<=>(a, b))");
  EXPECT_EQ(Expr("a IN (1, 2, b)"), "in(a, 1:int, 2:int, b)");
  EXPECT_EQ(Expr("a NOT IN ('x')"), "not(in(a, 'x'))");
  EXPECT_EQ(Expr("a BETWEEN 1 AND 2 AND b"), "and(and(>=(a, 1:int), <=(a, 2:int)), b)");
  EXPECT_EQ(Expr("a NOT BETWEEN x AND y + 1"), "not(and(>=(a, x), <=(a, +(y, 1:int))))");
  EXPECT_EQ(Expr("s LIKE 'a%'"), "like(s, 'a%')");
  EXPECT_EQ(Expr("s NOT LIKE 'a%'"), "not(like(s, 'a%'))");
  EXPECT_EQ(Expr("s LIKE 'a!%' ESCAPE '!'"), "like(s, 'a!%', '!')");
  EXPECT_EQ(Expr("s ILIKE 'A%'"), "ilike(s, 'A%')");
  EXPECT_EQ(Expr("s RLIKE '^a'"), "rlike(s, '^a')");
  EXPECT_EQ(Expr("s NOT REGEXP '^a'"), "not(rlike(s, '^a'))");
}

TEST(SqlParserTest, CaseCastAndSpecialForms) {
  EXPECT_EQ(Expr("CASE WHEN a > 1 THEN 'x' WHEN a > 0 THEN 'y' ELSE 'z' END"),
            "when(>(a, 1:int), 'x', >(a, 0:int), 'y', 'z')");
  EXPECT_EQ(Expr("CASE WHEN a THEN 1 END"), "when(a, 1:int)");
  EXPECT_EQ(Expr("CASE a WHEN 1 THEN 'one' ELSE 'other' END"), "when(=(a, 1:int), 'one', 'other')");
  EXPECT_EQ(Expr("CAST(a AS INT)"), "cast(a AS int)");
  EXPECT_EQ(Expr("cast(a as decimal(10, 2))"), "cast(a AS decimal(10,2))");
  EXPECT_EQ(Expr("CAST(a AS ARRAY<STRUCT<x: INT, y: STRING>>)"),
            "cast(a AS array<struct<x:int,y:string>>)");
  EXPECT_EQ(Expr("TRY_CAST(s AS BIGINT)"), "try_cast(s AS bigint)");
  EXPECT_EQ(Expr("a::string"), "cast(a AS string)");
  EXPECT_EQ(Expr("-1::decimal(5, 1) + 1"), "+(cast(-1:int AS decimal(5,1)), 1:int)");
  EXPECT_EQ(Expr("a::map<string, int>"), "cast(a AS map<string,int>)");
  EXPECT_EQ(Expr("IF(a > 1, 'x', 'y')"), "if(>(a, 1:int), 'x', 'y')");
  EXPECT_EQ(Expr("EXTRACT(YEAR FROM ts)"), "year(ts)");
  EXPECT_EQ(Expr("extract(day FROM ts)"), "dayofmonth(ts)");
  EXPECT_EQ(Expr("EXTRACT(second FROM ts)"), "second(ts)");
  EXPECT_EQ(Expr("SUBSTRING(s FROM 2 FOR 3)"), "substring(s, 2:int, 3:int)");
  EXPECT_EQ(Expr("substr(s, 2)"), "substr(s, 2:int)");
  EXPECT_EQ(Expr("POSITION('a' IN s)"), "position('a', s)");
  EXPECT_EQ(Expr("(a, b)"), "struct(a, b)");
  EXPECT_EQ(Expr("struct(a, b AS c)"), "struct(a, b AS c)");
}

TEST(SqlParserTest, FunctionCalls) {
  EXPECT_EQ(Expr("UPPER(s)"), "upper(s)");
  EXPECT_EQ(Expr("count(*)"), "count(1:int)");
  EXPECT_EQ(Expr("COUNT(DISTINCT a, b)"), "count(DISTINCT a, b)");
  EXPECT_EQ(Expr("sum(ALL x)"), "sum(x)");
  EXPECT_EQ(Expr("current_date()"), "current_date()");
  EXPECT_EQ(Expr("window(ts, '10 minutes')"), "window(ts, '10 minutes')");
  EXPECT_EQ(Expr("left(s, 2)"), "left(s, 2:int)");
  EXPECT_EQ(Expr("first(x IGNORE NULLS)"), "first(x, true:boolean)");
  EXPECT_EQ(Expr("last(x) ignore nulls"), "last(x, true:boolean)");
  EXPECT_EQ(Expr("named_struct('a', 1).a"), "extract_value(named_struct('a', 1:int), 'a')");
  EXPECT_EQ(Expr("(s).x.y"), "extract_value(extract_value(s, 'x'), 'y')");
  EXPECT_EQ(Expr("a[0].x"), "extract_value(extract_value(a, 0:int), 'x')");
  EXPECT_EQ(Expr("m['k'][i + 1]"), "extract_value(extract_value(m, 'k'), +(i, 1:int))");
  EXPECT_EQ(Expr("transform(a, x -> x + 1)"), "transform(a, (x) -> +(x, 1:int))");
  EXPECT_EQ(Expr("filter(a, (x, i) -> i > 0)"), "filter(a, (x, i) -> >(i, 0:int))");
  EXPECT_EQ(Expr("db.fn(1)"), "db.fn(1:int)");
  auto count = ParseExpression("count(DISTINCT a)");
  ASSERT_TRUE(count.ok());
  EXPECT_TRUE((*count)->distinct);
  EXPECT_EQ(plan::DisplayName(**count), "count(DISTINCT a)");
}

TEST(SqlParserTest, Aliases) {
  EXPECT_EQ(Expr("a + 1 AS b"), "+(a, 1:int) AS b");
  EXPECT_EQ(Expr("a + 1 b"), "+(a, 1:int) AS b");
  EXPECT_EQ(Expr("count(*) AS `the count`"), "count(1:int) AS the count");
  EXPECT_EQ(Expr("x AS Mixed_Case"), "x AS Mixed_Case");
  EXPECT_EQ(Expr("x AS from"), "x AS from");  // any word after AS
  auto alias = ParseExpression("upper(s) AS u");
  ASSERT_TRUE(alias.ok());
  EXPECT_EQ((*alias)->kind, ExprKind::kAlias);
  EXPECT_EQ((*alias)->name, "u");
  EXPECT_EQ(plan::DisplayName(*(*alias)->args[0]), "upper(s)");
}

TEST(SqlParserTest, CommentsAndWhitespace) {
  EXPECT_EQ(Expr("a -- trailing comment"), "a");
  EXPECT_EQ(Expr("a /* one /* nested */ comment */ + 1"), "+(a, 1:int)");
  EXPECT_EQ(Expr("\n\ta\n+\n1\n"), "+(a, 1:int)");
  EXPECT_EQ(Expr("1--1"), "1:int");  // `--` starts a comment, as in Spark
}

// ---- Queries ----

TEST(SqlParserTest, SimpleSelect) {
  EXPECT_EQ(Query("SELECT 1"), "Select [1:int]\n");
  EXPECT_EQ(Query("select a, b AS c FROM db.t;"),
            "Select [a, b AS c]\n"
            "  Relation db.t\n");
  EXPECT_EQ(Query("SELECT DISTINCT a FROM t WHERE a > 1 AND b IS NOT NULL"),
            "Select DISTINCT [a] where=and(>(a, 1:int), isnotnull(b))\n"
            "  Relation t\n");
  EXPECT_EQ(Query("SELECT k, count(*) cnt FROM t GROUP BY k HAVING count(*) > 1 "
                  "ORDER BY cnt DESC, k LIMIT 10"),
            "Select [k, count(1:int) AS cnt] group=[k] having=>(count(1:int), 1:int) "
            "order=[cnt DESC NULLS LAST, k ASC NULLS FIRST] limit=10\n"
            "  Relation t\n");
  EXPECT_EQ(Query("SELECT a FROM t ORDER BY a ASC NULLS LAST, b DESC NULLS FIRST"),
            "Select [a] order=[a ASC NULLS LAST, b DESC NULLS FIRST]\n"
            "  Relation t\n");
  EXPECT_EQ(Query("SELECT * FROM `my db`.`t``1` LIMIT ALL"),
            "Select [*]\n"
            "  Relation my db.t`1\n");
  EXPECT_EQ(Query("SELECT window.start, count(*) FROM events GROUP BY window(ts, '10 minutes')"),
            "Select [window|start, count(1:int)] group=[window(ts, '10 minutes')]\n"
            "  Relation events\n");
}

TEST(SqlParserTest, SelectBlockFields) {
  auto result = ParseQuery("SELECT a FROM t WHERE b LIMIT 5");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const auto& node = **result;
  EXPECT_EQ(node.kind, PlanKind::kSelect);
  EXPECT_TRUE(node.output.empty());
  ASSERT_EQ(node.children.size(), 1u);
  EXPECT_EQ(node.children[0]->kind, PlanKind::kUnresolvedRelation);
  EXPECT_EQ(node.children[0]->name_parts, std::vector<std::string>{"t"});
  EXPECT_EQ(node.select->limit, 5);
  EXPECT_FALSE(node.select->distinct);
  EXPECT_EQ(node.select->having, nullptr);
  auto statement = ParseStatement("SELECT 1;;");
  ASSERT_TRUE(statement.ok());
  EXPECT_EQ(statement->kind, StatementKind::kQuery);
  EXPECT_TRUE(statement->query->children.empty());
}

TEST(SqlParserTest, RelationAliases) {
  EXPECT_EQ(Query("SELECT x.a FROM t AS x"),
            "Select [x|a]\n"
            "  SubqueryAlias x\n"
            "    Relation t\n");
  EXPECT_EQ(Query("SELECT x.a FROM t x WHERE x.a = 1"),
            "Select [x|a] where==(x|a, 1:int)\n"
            "  SubqueryAlias x\n"
            "    Relation t\n");
  EXPECT_EQ(Query("SELECT s.a FROM (SELECT a FROM t) AS s"),
            "Select [s|a]\n"
            "  SubqueryAlias s\n"
            "    Select [a]\n"
            "      Relation t\n");
  EXPECT_EQ(Query("SELECT * FROM (SELECT 1 AS a)"),
            "Select [*]\n"
            "  Select [1:int AS a]\n");
}

TEST(SqlParserTest, Joins) {
  EXPECT_EQ(Query("SELECT * FROM a JOIN b ON a.id = b.id"),
            "Select [*]\n"
            "  Join Inner on==(a|id, b|id)\n"
            "    Relation a\n"
            "    Relation b\n");
  EXPECT_EQ(Query("SELECT * FROM a LEFT OUTER JOIN b USING (id, k) RIGHT JOIN c ON true"),
            "Select [*]\n"
            "  Join RightOuter on=true:boolean\n"
            "    Join LeftOuter using=[id, k]\n"
            "      Relation a\n"
            "      Relation b\n"
            "    Relation c\n");
  EXPECT_EQ(Query("SELECT * FROM a x FULL JOIN b y ON x.k = y.k"),
            "Select [*]\n"
            "  Join FullOuter on==(x|k, y|k)\n"
            "    SubqueryAlias x\n"
            "      Relation a\n"
            "    SubqueryAlias y\n"
            "      Relation b\n");
  EXPECT_EQ(Query("SELECT * FROM a LEFT SEMI JOIN b ON p SEMI JOIN c ON q"),
            "Select [*]\n"
            "  Join LeftSemi on=q\n"
            "    Join LeftSemi on=p\n"
            "      Relation a\n"
            "      Relation b\n"
            "    Relation c\n");
  EXPECT_EQ(Query("SELECT * FROM a LEFT ANTI JOIN b ON p ANTI JOIN c ON q CROSS JOIN d"),
            "Select [*]\n"
            "  Join Cross\n"
            "    Join LeftAnti on=q\n"
            "      Join LeftAnti on=p\n"
            "        Relation a\n"
            "        Relation b\n"
            "      Relation c\n"
            "    Relation d\n");
  EXPECT_EQ(Query("SELECT * FROM a, b, c INNER JOIN d ON p"),
            "Select [*]\n"
            "  Join Cross\n"
            "    Join Cross\n"
            "      Relation a\n"
            "      Relation b\n"
            "    Join Inner on=p\n"
            "      Relation c\n"
            "      Relation d\n");
  EXPECT_EQ(Query("SELECT * FROM (a JOIN b ON p) j"),
            "Select [*]\n"
            "  SubqueryAlias j\n"
            "    Join Inner on=p\n"
            "      Relation a\n"
            "      Relation b\n");
  EXPECT_EQ(Query("SELECT * FROM ((SELECT 1 AS k) x JOIN b ON p)"),
            "Select [*]\n"
            "  Join Inner on=p\n"
            "    SubqueryAlias x\n"
            "      Select [1:int AS k]\n"
            "    Relation b\n");
  // A parenthesised group at the start decides: a query if it continues like one.
  EXPECT_EQ(Query("SELECT * FROM (((SELECT 1 AS k) x JOIN b ON p))"),
            "Select [*]\n"
            "  Join Inner on=p\n"
            "    SubqueryAlias x\n"
            "      Select [1:int AS k]\n"
            "    Relation b\n");
  EXPECT_EQ(Query("SELECT * FROM ((SELECT 1) UNION ALL (SELECT 2)) u"),
            "Select [*]\n"
            "  SubqueryAlias u\n"
            "    Union\n"
            "      Select [1:int]\n"
            "      Select [2:int]\n");
  EXPECT_EQ(Query("SELECT * FROM (((SELECT 1)) LIMIT 1)"),
            "Select [*]\n"
            "  Select [*] limit=1\n"
            "    Select [1:int]\n");
}

TEST(SqlParserTest, Unions) {
  EXPECT_EQ(Query("SELECT a FROM t UNION ALL SELECT b FROM u"),
            "Union\n"
            "  Select [a]\n"
            "    Relation t\n"
            "  Select [b]\n"
            "    Relation u\n");
  EXPECT_EQ(Query("SELECT 1 UNION SELECT 2 UNION DISTINCT SELECT 3"),
            "Deduplicate\n"
            "  Union\n"
            "    Deduplicate\n"
            "      Union\n"
            "        Select [1:int]\n"
            "        Select [2:int]\n"
            "    Select [3:int]\n");
  EXPECT_EQ(Query("SELECT a FROM t UNION ALL SELECT a FROM u ORDER BY a LIMIT 3"),
            "Select [*] order=[a ASC NULLS FIRST] limit=3\n"
            "  Union\n"
            "    Select [a]\n"
            "      Relation t\n"
            "    Select [a]\n"
            "      Relation u\n");
  EXPECT_EQ(Query("(SELECT a FROM t LIMIT 1) UNION ALL (SELECT a FROM u)"),
            "Union\n"
            "  Select [a] limit=1\n"
            "    Relation t\n"
            "  Select [a]\n"
            "    Relation u\n");
  EXPECT_EQ(Query("(SELECT a FROM t) ORDER BY a"),
            "Select [*] order=[a ASC NULLS FIRST]\n"
            "  Select [a]\n"
            "    Relation t\n");
}

TEST(SqlParserTest, CommonTableExpressions) {
  EXPECT_EQ(Query("WITH c AS (SELECT a FROM t), d AS (SELECT a FROM c) "
                  "SELECT * FROM d JOIN c x ON d.a = x.a JOIN other ON true"),
            "Select [*]\n"
            "  Join Inner on=true:boolean\n"
            "    Join Inner on==(d|a, x|a)\n"
            "      SubqueryAlias d\n"
            "        Select [a]\n"
            "          SubqueryAlias c\n"
            "            Select [a]\n"
            "              Relation t\n"
            "      SubqueryAlias x\n"
            "        SubqueryAlias c\n"
            "          Select [a]\n"
            "            Relation t\n"
            "    Relation other\n");
  // A CTE is visible only in its query; names match case-insensitively; db.c is a table.
  EXPECT_EQ(Query("SELECT * FROM (WITH c AS (SELECT 1) SELECT * FROM C) s, c, db.c"),
            "Select [*]\n"
            "  Join Cross\n"
            "    Join Cross\n"
            "      SubqueryAlias s\n"
            "        Select [*]\n"
            "          SubqueryAlias c\n"
            "            Select [1:int]\n"
            "      Relation c\n"
            "    Relation db.c\n");
  // An inner definition hides an outer one.
  EXPECT_EQ(Query("WITH c AS (SELECT 1) SELECT * FROM (WITH c AS (SELECT 2) SELECT * FROM c)"),
            "Select [*]\n"
            "  Select [*]\n"
            "    SubqueryAlias c\n"
            "      Select [2:int]\n");
}

TEST(SqlParserTest, KeywordsAreCaseInsensitive) {
  EXPECT_EQ(Query("sElEcT A FrOm T wHeRe A iS nOt NuLl"),
            "Select [A] where=isnotnull(A)\n"
            "  Relation T\n");
}

// ---- Errors ----

void ExpectParseError(const arrow::Status& status, const std::string& condition) {
  const ErrorDetail* detail = GetErrorDetail(status);
  ASSERT_NE(detail, nullptr) << status.ToString();
  EXPECT_EQ(detail->kind(), ErrorKind::kParse);
  EXPECT_EQ(detail->condition(), condition);
}

TEST(SqlParserTest, SyntaxErrorsNameTheTokenAndPosition) {
  EXPECT_EQ(QueryError("SELECT FROM t"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near 'FROM'. SQLSTATE: 42601 (line 1, pos 7)");
  EXPECT_EQ(QueryError("SELECT * FROM"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input. SQLSTATE: 42601 "
            "(line 1, pos 13)");
  EXPECT_EQ(QueryError("SELECT (1 + 2"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input: missing ')'. "
            "SQLSTATE: 42601 (line 1, pos 13)");
  EXPECT_EQ(QueryError("SELECT a FROM t x y"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near 'y': extra input 'y'. "
            "SQLSTATE: 42601 (line 1, pos 18)");
  EXPECT_EQ(QueryError("SELECT a\nFROM t\nWHERE a = = 1"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near '='. SQLSTATE: 42601 (line 3, pos 10)");
  EXPECT_EQ(QueryError("SELECT 'abc FROM t"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near '''. SQLSTATE: 42601 (line 1, pos 7)");
  EXPECT_EQ(QueryError("SELECT a FROM t WHERE a > 1 AND"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input. SQLSTATE: 42601 "
            "(line 1, pos 31)");
  EXPECT_EQ(
      QueryError("SELECT a, FROM t"),
      "[PARSE_SYNTAX_ERROR] Syntax error at or near 'FROM'. SQLSTATE: 42601 (line 1, pos 10)");
  EXPECT_EQ(QueryError("SELECT a FROM t ORDER a"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near 'a'. SQLSTATE: 42601 (line 1, pos 22)");
  EXPECT_EQ(
      QueryError("SELECT CASE WHEN a THEN 1 FROM t"),
      "[PARSE_SYNTAX_ERROR] Syntax error at or near 'FROM'. SQLSTATE: 42601 (line 1, pos 26)");
  EXPECT_EQ(QueryError("SELECT a @ b"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near '@': extra input '@'. SQLSTATE: 42601 "
            "(line 1, pos 9)");
  // Positions count characters, not bytes.
  EXPECT_EQ(QueryError("SELECT 'é' ,, 1"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near ','. SQLSTATE: 42601 (line 1, pos 12)");
  EXPECT_EQ(ExprError("a +"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input. SQLSTATE: 42601 "
            "(line 1, pos 3)");
  EXPECT_EQ(ExprError("a b c"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near 'c': extra input 'c'. SQLSTATE: 42601 "
            "(line 1, pos 4)");
  auto result = ParseQuery("SELECT FROM t");
  ExpectParseError(result.status(), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(GetErrorDetail(result.status())->sql_state(), "42601");
}

TEST(SqlParserTest, SparkErrorConditions) {
  EXPECT_EQ(QueryError("SELECT 1 /* unclosed"),
            "[UNCLOSED_BRACKETED_COMMENT] Found an unclosed bracketed comment. Please, append */ "
            "at the end of the comment. SQLSTATE: 42601 (line 1, pos 9)");
  EXPECT_EQ(QueryError("SELECT CAST(a AS foo) FROM t"),
            "[UNSUPPORTED_DATATYPE] Unsupported data type \"FOO\". SQLSTATE: 0A000 "
            "(line 1, pos 17)");
  EXPECT_EQ(QueryError("SELECT 128Y"),
            "[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal 128 is outside the valid range for "
            "tinyint with minimum value of -128 and maximum value of 127. Please adjust the value "
            "accordingly. SQLSTATE: 22003 (line 1, pos 7)");
  EXPECT_EQ(QueryError("SELECT -99999999999999999999L"),
            "[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal -99999999999999999999 is outside the "
            "valid range for bigint with minimum value of -9223372036854775808 and maximum value "
            "of 9223372036854775807. Please adjust the value accordingly. SQLSTATE: 22003 "
            "(line 1, pos 7)");
  EXPECT_EQ(QueryError("SELECT 1E400"),
            "[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal 1E400 is outside the valid range for "
            "double with minimum value of -1.7976931348623157E+308 and maximum value of "
            "1.7976931348623157E+308. Please adjust the value accordingly. SQLSTATE: 22003 "
            "(line 1, pos 7)");
  EXPECT_EQ(QueryError("SELECT * FROM my-table"),
            "[INVALID_IDENTIFIER] The unquoted identifier my-table is invalid and must be back "
            "quoted as: `my-table`. Unquoted identifiers can only contain ASCII letters ('a' - "
            "'z', 'A' - 'Z'), digits ('0' - '9'), and underbar ('_'). Unquoted identifiers must "
            "also not start with a digit. Different data sources and meta stores may impose "
            "additional restrictions on unquoted identifiers. SQLSTATE: 42602 (line 1, pos 14)");
  EXPECT_EQ(QueryError("WITH a AS (SELECT 1), A AS (SELECT 2) SELECT * FROM a"),
            "[DUPLICATED_CTE_NAMES] CTE definition can't have duplicate names: `A`. "
            "SQLSTATE: 42602 (line 1, pos 22)");
  EXPECT_EQ(QueryError("SELECT EXTRACT(FOO FROM ts)"),
            "[INVALID_EXTRACT_FIELD] Cannot extract `FOO` from \"ts\". SQLSTATE: 42601 "
            "(line 1, pos 15)");
  ExpectParseError(ParseQuery("SELECT 1 /* x").status(), "UNCLOSED_BRACKETED_COMMENT");
  ExpectParseError(ParseExpression("CAST(a AS foo)").status(), "UNSUPPORTED_DATATYPE");
}

TEST(SqlParserTest, InvalidLimitIsAnAnalysisError) {
  auto negative = ParseQuery("SELECT a FROM t LIMIT -1");
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().message(),
            "[INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE] The limit like expression \"-1\" is "
            "invalid. The limit expression must be equal to or greater than 0, but got -1. "
            "SQLSTATE: 42K0E");
  EXPECT_EQ(GetErrorDetail(negative.status())->kind(), ErrorKind::kAnalysis);
  EXPECT_EQ(QueryError("SELECT a FROM t LIMIT 1.5"),
            "[INVALID_LIMIT_LIKE_EXPRESSION.DATA_TYPE] The limit like expression \"1.5\" is "
            "invalid. The limit expression must be integer type, but got \"DECIMAL(2,1)\". "
            "SQLSTATE: 42K0E");
}

TEST(SqlParserTest, WindowFunctions) {
  // A window without a frame takes Spark's default one: with ORDER BY, up to the current row's
  // last peer.
  EXPECT_EQ(Query("SELECT a, row_number() OVER (ORDER BY a) FROM t"),
            "Select [a, row_number() OVER (ORDER BY a ASC NULLS FIRST RANGE BETWEEN UNBOUNDED "
            "PRECEDING AND CURRENT ROW)]\n  Relation t\n");
}

TEST(SqlParserTest, UnsupportedFeaturesSayWhat) {
  EXPECT_EQ(QueryError("SELECT a FROM t INTERSECT SELECT a FROM u"),
            "[UNSUPPORTED_FEATURE] The feature is not supported: INTERSECT in Ember's SQL. "
            "SQLSTATE: 0A000 (line 1, pos 16)");
  EXPECT_EQ(QueryError("SELECT (SELECT max(a) FROM t)"),
            "[UNSUPPORTED_FEATURE] The feature is not supported: scalar subqueries in Ember's "
            "SQL. SQLSTATE: 0A000 (line 1, pos 7)");
  EXPECT_EQ(QueryError("SELECT * FROM t WHERE a IN (SELECT a FROM u)"),
            "[UNSUPPORTED_FEATURE] The feature is not supported: IN subqueries in Ember's SQL. "
            "SQLSTATE: 0A000 (line 1, pos 28)");
  EXPECT_EQ(QueryError("SELECT * FROM t, LATERAL (SELECT t.a)"),
            "[UNSUPPORTED_FEATURE] The feature is not supported: LATERAL subqueries in "
            "Ember's SQL. SQLSTATE: 0A000 (line 1, pos 17)");
  EXPECT_EQ(QueryError("SELECT a FROM t LIMIT 1 OFFSET 2"),
            "[UNSUPPORTED_FEATURE] The feature is not supported: OFFSET in Ember's SQL. "
            "SQLSTATE: 0A000 (line 1, pos 24)");
  ExpectParseError(ParseExpression("sum(x) FILTER (WHERE x > 0)").status(), "UNSUPPORTED_FEATURE");
  ExpectParseError(ParseQuery("SELECT * FROM t SORT BY a").status(), "UNSUPPORTED_FEATURE");
}

TEST(SqlParserTest, TableValuedFunctionsAndValues) {
  EXPECT_EQ(Query("SELECT * FROM f(1, k => 'x') AS g"),
            "Select [*]\n  Generate f(1:int, k => 'x') alias=g\n");
  EXPECT_EQ(Query("SELECT * FROM t, LATERAL f(t.a) u"),
            "Select [*]\n  Generate f(t|a) alias=u\n    Relation t\n");
  EXPECT_EQ(Query("SELECT * FROM t JOIN LATERAL f(a)"),
            "Select [*]\n  Generate f(a)\n    Relation t\n");
  EXPECT_EQ(Query("SELECT * FROM f(x => TABLE(t) PARTITION BY (a + 1, b) ORDER BY (c DESC, 2))"),
            "Select [*]\n  Generate f(x => *) partition=[+(a, 1:int), b] order=[c DESC NULLS "
            "LAST, 2:int ASC NULLS FIRST] generated-only\n    Relation t\n");
  EXPECT_EQ(Query("SELECT * FROM f(TABLE t WITH SINGLE PARTITION ORDER BY (a, b))"),
            "Select [*]\n  Generate f(*) partition=[] order=[a ASC NULLS FIRST, b ASC NULLS "
            "FIRST] generated-only\n    Relation t\n");
  // Without parentheses, one key and one order: a comma ends the argument.
  EXPECT_EQ(Query("SELECT * FROM f(TABLE(t) PARTITION BY (a) + 1 ORDER BY b, k => 1)"),
            "Select [*]\n  Generate f(*, k => 1:int) partition=[+(a, 1:int)] order=[b ASC NULLS "
            "FIRST] generated-only\n    Relation t\n");
  EXPECT_EQ(Query("SELECT * FROM f(TABLE(SELECT a FROM t), 3)"),
            "Select [*]\n  Generate f(*, 3:int) generated-only\n    Select [a]\n      "
            "Relation t\n");
  EXPECT_EQ(Query("SELECT * FROM VALUES (1, 'x'), (2, NULL) AS v(a, b)"),
            "Select [*]\n  SubqueryAlias v(a, b)\n    Values (1:int, 'x') (2:int, NULL:void)\n");
  EXPECT_EQ(Query("VALUES 1, 2"), "Values (1:int) (2:int)\n");
  // LATERAL over a table argument: a cross join with the rows before.
  EXPECT_EQ(Query("SELECT * FROM u, LATERAL f(TABLE(t)) g"),
            "Select [*]\n  Join Cross\n    Relation u\n    Generate f(*) alias=g generated-only\n"
            "      Relation t\n");
  EXPECT_EQ(QueryError("SELECT * FROM f(TABLE(t), TABLE(u))"),
            "[UNSUPPORTED_FEATURE] The feature is not supported: table-valued functions with "
            "more than one table in Ember's SQL. SQLSTATE: 0A000 (line 1, pos 26)");
  EXPECT_EQ(QueryError("SELECT * FROM f(TABLE(t) ORDER BY a)"),
            "[UNSUPPORTED_FEATURE] The feature is not supported: ORDER BY of a table argument "
            "without PARTITION BY in Ember's SQL. SQLSTATE: 0A000 (line 1, pos 25)");
}

TEST(SqlParserTest, DeepNestingFailsCleanly) {
  std::string deep = std::string(5000, '(') + "1" + std::string(5000, ')');
  ExpectParseError(ParseExpression(deep).status(), "UNSUPPORTED_FEATURE");
  std::string minuses;
  for (int i = 0; i < 5000; ++i) minuses += "- ";  // `--` would start a comment
  ExpectParseError(ParseExpression(minuses + "a").status(), "UNSUPPORTED_FEATURE");
  ExpectParseError(ParseExpression(std::string(20000, '~') + "1").status(), "UNSUPPORTED_FEATURE");
  std::string nots;
  for (int i = 0; i < 5000; ++i) nots += "NOT ";
  ExpectParseError(ParseExpression(nots + "a").status(), "UNSUPPORTED_FEATURE");
  std::string queries = "SELECT 1";
  for (int i = 0; i < 1000; ++i) queries = "SELECT * FROM (" + queries + ")";
  ExpectParseError(ParseQuery(queries).status(), "UNSUPPORTED_FEATURE");
  ExpectParseError(ParseQuery("SELECT * FROM " + std::string(100000, '(') + "SELECT 1").status(),
                   "UNSUPPORTED_FEATURE");
  // Nesting as deep as real SQL gets is fine.
  EXPECT_TRUE(ParseExpression(std::string(100, '(') + "1" + std::string(100, ')')).ok());
  queries = "SELECT 1";
  for (int i = 0; i < 40; ++i) queries = "SELECT * FROM (" + queries + ") WHERE (a IN ((1)))";
  EXPECT_TRUE(ParseQuery(queries).ok());
  // Failing nested FROM subqueries take linear time: the parser never tries one reading and
  // then another.
  queries = "SELECT 1 x y";
  for (int i = 0; i < 40; ++i) queries = "SELECT * FROM ((" + queries + "))";
  EXPECT_EQ(QueryError(queries).substr(0, 49), "[PARSE_SYNTAX_ERROR] Syntax error at or near 'y'.");
}

// Every prefix of valid text either parses or fails with a ParseException: the parser never
// crashes, loops or reports an internal error on truncated input.
TEST(SqlParserTest, EveryPrefixParsesOrFailsCleanly) {
  const char* kQueries[] = {
      "WITH c AS (SELECT a, b FROM db.t WHERE a > 1) SELECT DISTINCT x.a AS k, count(*) n "
      "FROM c x LEFT JOIN u USING (a) JOIN v ON x.b = v.b AND v.c IS NOT NULL, w "
      "WHERE x.a NOT IN (1, 2) GROUP BY x.a HAVING sum(v.c) BETWEEN 1 AND 10 "
      "UNION ALL (SELECT 1, 2) ORDER BY k DESC NULLS FIRST LIMIT 5;",
      "SELECT CASE x WHEN 1 THEN 'a' ELSE \"b\" END, CAST(y AS DECIMAL(10, 2)), z::int, "
      "INTERVAL '1-2' YEAR TO MONTH, INTERVAL 3 DAYS 4 HOURS, DATE '2024-01-01', "
      "EXTRACT(YEAR FROM ts), -1.5e3, 12L, `q``x`.f, (s).g, substring(s FROM 1 FOR 2), "
      "first(a IGNORE NULLS), a || b, ~c & d | e ^ f /* c */ -- c\n FROM t",
  };
  for (const char* query : kQueries) {
    std::string text(query);
    for (size_t n = 0; n <= text.size(); ++n) {
      auto result = ParseQuery(text.substr(0, n));
      if (!result.ok()) {
        const ErrorDetail* detail = GetErrorDetail(result.status());
        ASSERT_NE(detail, nullptr) << text.substr(0, n) << ": " << result.status().ToString();
      }
      auto expr = ParseExpression(text.substr(n));
      if (!expr.ok()) {
        ASSERT_NE(GetErrorDetail(expr.status()), nullptr)
            << text.substr(n) << ": " << expr.status().ToString();
      }
    }
  }
}

}  // namespace
}  // namespace ember::sql
