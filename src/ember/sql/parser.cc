// A recursive-descent parser over the tokens of lexer.h, one method per rule of Spark's grammar
// (SqlBaseParser.g4) that Ember supports. Clauses that Spark accepts and Ember does not yet run
// (window functions, subquery expressions, INTERSECT, ...) fail with UNSUPPORTED_FEATURE at their
// position rather than with a misleading syntax error.
#include "ember/sql/parser.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <arrow/scalar.h>
#include <arrow/type.h>

#include "ember/error.h"
#include "ember/plan/functions.h"
#include "ember/plan/type_names.h"
#include "ember/sql/lexer.h"

namespace ember::sql {

namespace {

using plan::ExprPtr;
using plan::LogicalPlan;
using plan::PlanKind;
using plan::PlanPtr;

// Keywords that never start a column reference, a table name or a bare alias: the clause and
// operator words of a query. Spark treats most of them as non-reserved, but accepting them as
// names would make `SELECT FROM t` a valid query; write `order` to use such a name.
const std::unordered_set<std::string>& ReservedWords() {
  static const std::unordered_set<std::string> kWords = {
      "AND",        "ANTI",    "AS",      "BETWEEN", "CASE",   "CLUSTER", "CROSS",       "DISTINCT",
      "DISTRIBUTE", "DIV",     "ELSE",    "END",     "ESCAPE", "EXCEPT",  "FALSE",       "FROM",
      "FULL",       "GROUP",   "HAVING",  "ILIKE",   "IN",     "INNER",   "INTERSECT",   "IS",
      "JOIN",       "LATERAL", "LEFT",    "LIKE",    "LIMIT",  "MINUS",   "NATURAL",     "NOT",
      "NULL",       "OFFSET",  "ON",      "OR",      "ORDER",  "OUTER",   "OVER",        "PIVOT",
      "REGEXP",     "RIGHT",   "RLIKE",   "SELECT",  "SEMI",   "SORT",    "TABLESAMPLE", "THEN",
      "TRUE",       "UNION",   "UNPIVOT", "USING",   "WHEN",   "WHERE",   "WITH"};
  return kWords;
}

// Reserved words that still name functions when a parenthesis follows: left(s, 2), like(a, b).
const std::unordered_set<std::string>& FunctionKeywords() {
  static const std::unordered_set<std::string> kWords = {"LEFT",  "RIGHT",  "LIKE", "ILIKE",
                                                         "RLIKE", "REGEXP", "DIV", "BETWEEN"};
  return kWords;
}

// Words that end a select item or a relation rather than alias it.
const std::unordered_set<std::string>& NonAliasWords() {
  static const std::unordered_set<std::string> kWords = {
      "ALL",     "WINDOW",      "QUALIFY",        "FILTER",   "FOR",
      "VERSION", "SYSTEM_TIME", "SYSTEM_VERSION", "TIMESTAMP"};
  return kWords;
}

// Spark's strict non-reserved keywords: never a table alias, even after AS.
const std::unordered_set<std::string>& StrictNonReserved() {
  static const std::unordered_set<std::string> kWords = {
      "ANTI", "CROSS", "EXCEPT",  "FULL", "INNER", "INTERSECT", "JOIN",  "LATERAL",
      "LEFT", "MINUS", "NATURAL", "ON",   "RIGHT", "SEMI",      "UNION", "USING"};
  return kWords;
}

bool IsReserved(const Token& token) {
  return token.kind == TokenKind::kWord && ReservedWords().count(ToUpper(token.text)) > 0;
}

std::shared_ptr<LogicalPlan> NewPlan(PlanKind kind) {
  auto node = std::make_shared<LogicalPlan>();
  node->kind = kind;
  return node;
}

ExprPtr StringLiteral(std::string value) {
  return plan::Literal(std::make_shared<arrow::StringScalar>(std::move(value)));
}

ExprPtr Not(ExprPtr e) { return plan::Call("not", {std::move(e)}); }

// The singular unit names of a Spark interval, with the plural forms they are written in.
const char* IntervalUnit(const std::string& word) {
  static const char* kUnits[] = {"YEAR",   "MONTH",  "WEEK",        "DAY",        "HOUR",
                                 "MINUTE", "SECOND", "MILLISECOND", "MICROSECOND"};
  std::string upper = ToUpper(word);
  if (upper.size() > 1 && upper.back() == 'S') upper.pop_back();
  for (const char* unit : kUnits) {
    if (upper == unit) return unit;
  }
  return nullptr;
}

// Whether text is an optionally signed number with an optional fraction.
bool IsIntervalNumber(const std::string& text) {
  size_t i = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
  size_t digits = 0, dots = 0;
  for (; i < text.size(); ++i) {
    if (text[i] >= '0' && text[i] <= '9') {
      ++digits;
    } else if (text[i] == '.' && dots == 0) {
      ++dots;
    } else {
      return false;
    }
  }
  return digits > 0;
}

// "<value> <unit>s" with a sign applied: `negate` flips the sign of value.
std::string IntervalPart(std::string value, bool negate, const char* unit) {
  if (!value.empty() && value[0] == '+') value.erase(0, 1);
  bool minus = !value.empty() && value[0] == '-';
  size_t digits = minus ? 1 : 0;
  // Leading zeros say nothing ('05' seconds is 5 seconds).
  while (value.size() > digits + 1 && value[digits] == '0' && value[digits + 1] != '.') {
    value.erase(digits, 1);
  }
  if (negate) value = value[0] == '-' ? value.substr(1) : "-" + value;
  return value + " " + ToLower(unit) + "s";
}

class Parser {
 public:
  Parser(const std::string& text, std::vector<Token> tokens)
      : text_(text), tokens_(std::move(tokens)) {}

  arrow::Result<Statement> SingleStatement() {
    Statement statement;
    // SET takes the raw text that follows it, semicolons included, as Spark does.
    if (IsWord(Peek(), "SET")) {
      ARROW_RETURN_NOT_OK(SetStatement(&statement));
      return statement;
    }
    ARROW_RETURN_NOT_OK(StatementBody(&statement));
    ARROW_RETURN_NOT_OK(ExpectStatementEnd());
    // Checks of a well-formed statement come after the syntax, as in Spark.
    ARROW_RETURN_NOT_OK(deferred_);
    return statement;
  }

  arrow::Result<PlanPtr> SingleQuery() {
    ARROW_ASSIGN_OR_RAISE(auto query, Query());
    ARROW_RETURN_NOT_OK(ExpectStatementEnd());
    return query;
  }

  arrow::Result<ExprPtr> SingleExpression() {
    ARROW_ASSIGN_OR_RAISE(auto e, NamedExpression());
    ARROW_RETURN_NOT_OK(ExpectEnd());
    return e;
  }

 private:
  struct CteDefinition {
    std::string name;
    PlanPtr plan;
  };

  // Restores the CTE scopes on leaving a query, whichever way it is left.
  class CteScope {
   public:
    explicit CteScope(Parser* parser) : parser_(parser), depth_(parser->ctes_.size()) {}
    ~CteScope() { parser_->ctes_.resize(depth_); }
    CteScope(const CteScope&) = delete;
    CteScope& operator=(const CteScope&) = delete;

   private:
    Parser* parser_;
    size_t depth_;
  };

  // A query term and, when it is a bare SELECT block, that block (ORDER BY and LIMIT that follow
  // it belong to it).
  struct Term {
    PlanPtr plan;
    std::shared_ptr<LogicalPlan> bare_select;
  };

  // ---- Tokens ----

  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& Next() {
    const Token& token = Peek();
    if (pos_ < tokens_.size() - 1) ++pos_;
    return token;
  }
  static bool IsWord(const Token& token, const char* keyword) {
    return token.kind == TokenKind::kWord && EqualsKeyword(token.text, keyword);
  }
  static bool IsSymbol(const Token& token, const char* symbol) {
    return token.kind == TokenKind::kSymbol && token.text == symbol;
  }
  static bool IsName(const Token& token) {
    return token.kind == TokenKind::kWord || token.kind == TokenKind::kQuotedIdent;
  }
  bool AcceptWord(const char* keyword) {
    if (!IsWord(Peek(), keyword)) return false;
    Next();
    return true;
  }
  bool AcceptSymbol(const char* symbol) {
    if (!IsSymbol(Peek(), symbol)) return false;
    Next();
    return true;
  }
  arrow::Status ExpectWord(const char* keyword) {
    if (AcceptWord(keyword)) return arrow::Status::OK();
    return SyntaxError(Peek());
  }
  // A keyword that alone can stand here; when the token at hand could follow it, Spark's parser
  // names the keyword as missing.
  arrow::Status ExpectWord(const char* keyword, bool next_fits) {
    if (AcceptWord(keyword)) return arrow::Status::OK();
    if (next_fits) return SyntaxError(Peek(), std::string(": missing '") + keyword + "'");
    return SyntaxError(Peek());
  }
  arrow::Status ExpectSymbol(const char* symbol) {
    if (AcceptSymbol(symbol)) return arrow::Status::OK();
    // At the end of the input a missing token is all that is wrong; Spark names it.
    if (Peek().kind == TokenKind::kEnd) {
      return SyntaxError(Peek(), std::string(": missing '") + symbol + "'");
    }
    return SyntaxError(Peek());
  }
  // The end of a statement: optional semicolons, then the end of the input.
  arrow::Status ExpectStatementEnd() {
    while (AcceptSymbol(";")) {
    }
    return ExpectEnd();
  }
  arrow::Status ExpectEnd() {
    const Token& token = Peek();
    if (token.kind == TokenKind::kEnd) return arrow::Status::OK();
    ARROW_RETURN_NOT_OK(CheckUnsupportedClause());
    return SyntaxError(token, ": extra input '" + token.text + "'");
  }

  // ---- Errors ----

  arrow::Status Fail(const Token& at, const arrow::Status& status) {
    return WithPosition(status, text_, at.offset);
  }
  arrow::Status SyntaxError(const Token& at, const std::string& hint = "") {
    std::string near = at.kind == TokenKind::kEnd ? "end of input" : "'" + at.text + "'";
    return Fail(at, UserError(ErrorKind::kParse, "PARSE_SYNTAX_ERROR",
                              "Syntax error at or near " + near + hint + ".", "42601"));
  }
  arrow::Status Unsupported(const Token& at, const std::string& what) {
    return Fail(at,
                UserError(ErrorKind::kParse, "UNSUPPORTED_FEATURE",
                          "The feature is not supported: " + what + " in Ember's SQL.", "0A000"));
  }
  // Clauses Spark accepts after a query block, which Ember does not run yet.
  arrow::Status CheckUnsupportedClause() {
    const Token& token = Peek();
    if ((IsWord(token, "SORT") || IsWord(token, "CLUSTER") || IsWord(token, "DISTRIBUTE")) &&
        IsWord(Peek(1), "BY")) {
      return Unsupported(token, ToUpper(token.text) + " BY");
    }
    if (IsWord(token, "QUALIFY")) return Unsupported(token, "QUALIFY");
    if (IsWord(token, "OFFSET")) return Unsupported(token, "OFFSET");
    if (IsWord(token, "LATERAL")) return Unsupported(token, "LATERAL VIEW");
    if (IsWord(token, "PIVOT") || IsWord(token, "UNPIVOT")) {
      return Unsupported(token, ToUpper(token.text));
    }
    if (IsWord(token, "INTERSECT") || IsWord(token, "EXCEPT") || IsWord(token, "MINUS")) {
      return Unsupported(token, ToUpper(token.text));
    }
    return arrow::Status::OK();
  }

  // Whether the tokens from `i` on open a query: `(`s followed by SELECT, WITH, VALUES, TABLE
  // or FROM.
  bool StartsQuery(size_t i) const {
    while (i < tokens_.size() && IsSymbol(tokens_[i], "(")) ++i;
    if (i >= tokens_.size()) return false;
    const Token& token = tokens_[i];
    return IsWord(token, "SELECT") || IsWord(token, "WITH") || IsWord(token, "VALUES") ||
           IsWord(token, "TABLE") || IsWord(token, "FROM");
  }

  // Index of the `)` that closes the `(` at token `open`, or of the end token.
  size_t MatchingParen(size_t open) const {
    int depth = 0;
    for (size_t i = open; i < tokens_.size(); ++i) {
      if (IsSymbol(tokens_[i], "(")) ++depth;
      if (IsSymbol(tokens_[i], ")") && --depth == 0) return i;
    }
    return tokens_.size() - 1;
  }

  // Whether the `(` at token `open` in FROM encloses a query rather than a relation such as
  // `((SELECT 1) a JOIN b)`. When the content opens with a parenthesised group, it is a query
  // only if that group is one and what follows it can continue a query. Deciding ahead keeps the
  // parser linear where trying one reading and then the other would be exponential in nesting.
  bool EnclosesQuery(size_t open) const {
    static const char* kQueryContinuations[] = {"UNION",   "INTERSECT",  "EXCEPT", "MINUS",
                                                "ORDER",   "LIMIT",      "OFFSET", "SORT",
                                                "CLUSTER", "DISTRIBUTE", "WINDOW"};
    // The groups that open at open+1, open+2, ... each must be a query followed by a
    // continuation; past the nesting limit, the query reading fails with TooDeep anyway.
    size_t last = open;
    while (IsSymbol(tokens_[last + 1], "(")) {
      if (last - open > static_cast<size_t>(kMaxDepth)) return true;
      ++last;
    }
    if (!StartsQuery(last + 1)) return false;
    for (size_t group = open + 1; group <= last; ++group) {
      const Token& after = tokens_[std::min(MatchingParen(group) + 1, tokens_.size() - 1)];
      bool continues = after.kind == TokenKind::kEnd || IsSymbol(after, ")");
      for (const char* word : kQueryContinuations) continues = continues || IsWord(after, word);
      if (!continues) return false;
    }
    return true;
  }

  // Counts the recursion through nested parentheses, subqueries and prefix operators, so that
  // hostile text fails cleanly instead of exhausting the stack. A level of parentheses costs 3
  // (up to 2.5 KB of stack in an unoptimised build), a nested query 6 (up to 5 KB): the limit
  // allows 200 levels of parentheses or 100 nested queries in half a megabyte.
  class Nesting {
   public:
    Nesting(Parser* parser, int cost) : parser_(parser), cost_(cost) { parser_->depth_ += cost; }
    ~Nesting() { parser_->depth_ -= cost_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
    bool too_deep() const { return parser_->depth_ > kMaxDepth; }

   private:
    Parser* parser_;
    int cost_;
  };
  static constexpr int kMaxDepth = 600;
  static constexpr int kQueryCost = 6;

  arrow::Status TooDeep() { return Unsupported(Peek(), "text nested this deeply"); }

  // ---- Statements ----

  // The error of a statement that is well formed but invalid, reported only once the whole
  // statement has parsed: Spark checks these after its grammar, so a syntax error comes first.
  void Defer(const Token& at, const arrow::Status& status) {
    if (deferred_.ok()) deferred_ = Fail(at, status);
  }
  // Spark's legacy "Operation not allowed" parse error.
  void DeferNotAllowed(const Token& at, const std::string& message) {
    Defer(at, UserError(ErrorKind::kParse, "_LEGACY_ERROR_TEMP_0035",
                        "Operation not allowed: " + message + "."));
  }
  void DeferDuplicateClause(const std::string& clause) {
    Defer(
        tokens_.front(),
        UserError(ErrorKind::kParse, "DUPLICATE_CLAUSES",
                  "Found duplicate clauses: " + clause + ". Please, remove one of them.", "42614"));
  }

  // Words that start statements Spark has and Ember does not run.
  static bool IsUnsupportedStatement(const Token& token) {
    static const char* kWords[] = {"ALTER",   "ANALYZE", "CACHE",    "CLEAR",
                                   "COMMENT", "EXPLAIN", "LOAD",     "MSCK",   "REFRESH",
                                   "RESET",   "REPAIR",  "TRUNCATE", "UNCACHE"};
    for (const char* word : kWords) {
      if (IsWord(token, word)) return true;
    }
    return false;
  }
  static bool IsNamespaceWord(const Token& token) {
    return IsWord(token, "NAMESPACE") || IsWord(token, "DATABASE") || IsWord(token, "SCHEMA");
  }

  arrow::Status StatementBody(Statement* statement) {
    const Token& first = Peek();
    if (IsWord(first, "CREATE")) return Create(statement);
    if (IsWord(first, "REPLACE") && IsWord(Peek(1), "TABLE")) {
      Next();
      Next();
      statement->kind = StatementKind::kReplaceTable;
      return TableDefinition(statement);
    }
    if (IsWord(first, "DROP")) return Drop(statement);
    if (IsWord(first, "SHOW")) return Show(statement);
    if (IsWord(first, "DESC") || IsWord(first, "DESCRIBE")) return Describe(statement);
    if (IsWord(first, "INSERT")) return Insert(statement);
    if (IsWord(first, "MERGE")) return Merge(statement);
    if (IsWord(first, "UPDATE")) return Update(statement);
    if (IsWord(first, "DELETE")) return Delete(statement);
    if (IsWord(first, "USE")) return Use(statement);
    if (IsWord(first, "CALL")) return CallStatement(statement);
    if (IsUnsupportedStatement(first)) {
      return Unsupported(first, ToUpper(first.text) + " statements");
    }
    statement->kind = StatementKind::kQuery;
    ARROW_ASSIGN_OR_RAISE(statement->query, Query());
    return arrow::Status::OK();
  }

  // name(.name)*: a table or namespace name such as local.db.events.
  arrow::Result<std::vector<std::string>> MultipartName() {
    if (IsReserved(Peek())) return SyntaxError(Peek());
    std::vector<std::string> parts;
    while (true) {
      ARROW_ASSIGN_OR_RAISE(auto part, TableNamePart());
      parts.push_back(std::move(part));
      if (!IsSymbol(Peek(), ".") || !IsName(Peek(1))) break;
      Next();
    }
    return parts;
  }

  // A column named in UPDATE SET or MERGE: name(.name)*, not starting with a reserved word.
  arrow::Result<std::vector<std::string>> ColumnName() {
    const Token& first = Peek();
    if (!IsName(first) || IsReserved(first)) return SyntaxError(first);
    std::vector<std::string> parts = {Next().value};
    while (IsSymbol(Peek(), ".") && IsName(Peek(1))) {
      Next();
      parts.push_back(Next().value);
    }
    return parts;
  }

  arrow::Result<std::string> StringValue() {
    const Token& token = Peek();
    if (token.kind != TokenKind::kString) return SyntaxError(token);
    return Next().value;
  }

  // IF EXISTS and IF NOT EXISTS; IF followed by anything else is a name.
  bool AcceptIfExists() {
    if (!IsWord(Peek(), "IF") || !IsWord(Peek(1), "EXISTS")) return false;
    Next();
    Next();
    return true;
  }
  arrow::Result<bool> AcceptIfNotExists() {
    if (!IsWord(Peek(), "IF") || !IsWord(Peek(1), "NOT")) return false;
    Next();
    Next();
    ARROW_RETURN_NOT_OK(ExpectWord("EXISTS", IsName(Peek())));
    return true;
  }

  // ('key' = 'value', key.part value, ...): a string or dotted name as key, then a string,
  // integer, decimal or boolean as value, the `=` optional. A missing value is reported as Spark
  // does: for OPTIONS the first such key, for properties all of them.
  arrow::Status PropertyList(std::map<std::string, std::string>* out, bool options) {
    const Token& open = Peek();
    ARROW_RETURN_NOT_OK(ExpectSymbol("("));
    std::vector<std::string> keys_without_value;
    do {
      const Token& key_token = Peek();
      std::string key;
      if (key_token.kind == TokenKind::kString) {
        key = Next().value;
      } else if (IsName(key_token)) {
        key = Next().value;
        while (IsSymbol(Peek(), ".") && IsName(Peek(1))) {
          Next();
          key += "." + Next().value;
        }
      } else {
        return SyntaxError(key_token);
      }
      AcceptSymbol("=");
      const Token& value_token = Peek();
      std::optional<std::string> value;
      if (value_token.kind == TokenKind::kString) {
        value = Next().value;
      } else if (value_token.kind == TokenKind::kNumber && IsPlainNumber(value_token.text)) {
        value = Next().text;
      } else if (IsWord(value_token, "TRUE") || IsWord(value_token, "FALSE")) {
        value = ToLower(Next().text);
      } else if (!IsSymbol(value_token, ",") && !IsSymbol(value_token, ")")) {
        return SyntaxError(value_token);
      }
      if (!value) {
        keys_without_value.push_back(key);
      } else if (!out->emplace(key, *value).second) {
        Defer(open, UserError(ErrorKind::kParse, "DUPLICATE_KEY",
                              "Found duplicate keys `" + key + "`.", "23505"));
      }
    } while (AcceptSymbol(","));
    ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
    if (!keys_without_value.empty()) {
      if (options) {
        DeferNotAllowed(tokens_.front(),
                        "A value must be specified for the key: " + keys_without_value[0] + ".");
      } else {
        std::string keys;
        for (const auto& key : keys_without_value) keys += (keys.empty() ? "" : ",") + key;
        DeferNotAllowed(tokens_.front(), "Values must be specified for key(s): [" + keys + "]");
      }
    }
    return arrow::Status::OK();
  }

  // Digits with at most one decimal point: Spark's INTEGER_VALUE and DECIMAL_VALUE.
  static bool IsPlainNumber(const std::string& text) {
    size_t digits = 0, dots = 0;
    for (char c : text) {
      if (c >= '0' && c <= '9') {
        ++digits;
      } else if (c == '.') {
        ++dots;
      } else {
        return false;
      }
    }
    return digits > 0 && dots <= 1;
  }

  arrow::Status Create(Statement* statement) {
    Next();  // CREATE
    const Token& what = Peek();
    if (IsNamespaceWord(what)) {
      Next();
      return CreateNamespace(statement);
    }
    if (IsWord(what, "TABLE")) {
      Next();
      statement->kind = StatementKind::kCreateTable;
      return TableDefinition(statement);
    }
    if (IsTempView(0)) return TempView(statement);
    if (IsWord(what, "OR") && IsWord(Peek(1), "REPLACE")) {
      Next();
      Next();
      const Token& object = Peek();
      if (IsTempView(0)) {
        statement->or_create = true;
        return TempView(statement);
      }
      if (!IsWord(object, "TABLE")) {
        if (object.kind == TokenKind::kWord) {
          return Unsupported(object, "CREATE OR REPLACE " + ToUpper(object.text));
        }
        return SyntaxError(object);
      }
      Next();
      statement->kind = StatementKind::kReplaceTable;
      statement->or_create = true;
      return TableDefinition(statement);
    }
    if (what.kind == TokenKind::kWord) return Unsupported(what, "CREATE " + ToUpper(what.text));
    return SyntaxError(what);
  }

  bool IsTempView(size_t at) const {
    return (IsWord(Peek(at), "TEMP") || IsWord(Peek(at), "TEMPORARY")) && IsWord(Peek(at + 1), "VIEW");
  }

  // TEMP[ORARY] VIEW name AS query, after CREATE [OR REPLACE].
  arrow::Status TempView(Statement* statement) {
    Next();
    Next();
    statement->kind = StatementKind::kCreateTempView;
    ARROW_ASSIGN_OR_RAISE(statement->name, MultipartName());
    if (IsSymbol(Peek(), "(")) return Unsupported(Peek(), "column lists of a view");
    ARROW_RETURN_NOT_OK(ExpectWord("AS"));
    ARROW_ASSIGN_OR_RAISE(statement->query, Query());
    return arrow::Status::OK();
  }

  // CREATE NAMESPACE [IF NOT EXISTS] name [COMMENT '...'] [LOCATION '...']
  // [WITH DBPROPERTIES|PROPERTIES (...)], the clauses in any order.
  arrow::Status CreateNamespace(Statement* statement) {
    statement->kind = StatementKind::kCreateNamespace;
    ARROW_ASSIGN_OR_RAISE(statement->if_not_exists, AcceptIfNotExists());
    ARROW_ASSIGN_OR_RAISE(statement->name, MultipartName());
    bool properties = false, dbproperties = false;
    while (true) {
      if (AcceptWord("COMMENT")) {
        if (statement->comment) DeferDuplicateClause("COMMENT");
        ARROW_ASSIGN_OR_RAISE(statement->comment, StringValue());
      } else if (AcceptWord("LOCATION")) {
        if (statement->location) DeferDuplicateClause("LOCATION");
        ARROW_ASSIGN_OR_RAISE(statement->location, StringValue());
      } else if (IsWord(Peek(), "WITH") &&
                 (IsWord(Peek(1), "DBPROPERTIES") || IsWord(Peek(1), "PROPERTIES"))) {
        Next();
        bool db = IsWord(Next(), "DBPROPERTIES");
        bool& seen = db ? dbproperties : properties;
        if (seen) DeferDuplicateClause(db ? "WITH DBPROPERTIES" : "WITH PROPERTIES");
        seen = true;
        ARROW_RETURN_NOT_OK(PropertyList(&statement->properties, /*options=*/false));
      } else {
        break;
      }
    }
    if (properties && dbproperties) {
      Defer(tokens_.front(),
            UserError(ErrorKind::kParse, "UNSUPPORTED_FEATURE.SET_PROPERTIES_AND_DBPROPERTIES",
                      "The feature is not supported: set PROPERTIES and DBPROPERTIES at the same "
                      "time.",
                      "0A000"));
    }
    return arrow::Status::OK();
  }

  // [IF NOT EXISTS] name [(columns)] [USING provider] clauses [[AS] query], after CREATE TABLE,
  // REPLACE TABLE or CREATE OR REPLACE TABLE.
  arrow::Status TableDefinition(Statement* statement) {
    if (statement->kind == StatementKind::kCreateTable) {
      ARROW_ASSIGN_OR_RAISE(statement->if_not_exists, AcceptIfNotExists());
    } else if (IsWord(Peek(), "IF") && IsWord(Peek(1), "NOT")) {
      return SyntaxError(Peek(1));  // REPLACE TABLE has no IF NOT EXISTS
    }
    ARROW_ASSIGN_OR_RAISE(statement->name, MultipartName());
    if (IsSymbol(Peek(), "(") && !StartsQuery(pos_)) {
      ARROW_RETURN_NOT_OK(ColumnDefinitions(statement));
    }
    if (AcceptWord("USING")) {
      ARROW_ASSIGN_OR_RAISE(auto provider, MultipartName());
      for (const auto& part : provider) {
        statement->provider += (statement->provider.empty() ? "" : ".") + part;
      }
    }
    bool options = false, partitioned = false, properties = false;
    while (true) {
      const Token& clause = Peek();
      if (AcceptWord("OPTIONS")) {
        if (options) DeferDuplicateClause("OPTIONS");
        options = true;
        ARROW_RETURN_NOT_OK(PropertyList(&statement->options, /*options=*/true));
      } else if (IsWord(clause, "PARTITIONED") && IsWord(Peek(1), "BY")) {
        Next();
        Next();
        if (partitioned) DeferDuplicateClause("PARTITIONED BY");
        partitioned = true;
        ARROW_RETURN_NOT_OK(Partitioning(statement));
      } else if (AcceptWord("LOCATION")) {
        if (statement->location) DeferDuplicateClause("LOCATION");
        ARROW_ASSIGN_OR_RAISE(statement->location, StringValue());
      } else if (AcceptWord("COMMENT")) {
        if (statement->comment) DeferDuplicateClause("COMMENT");
        ARROW_ASSIGN_OR_RAISE(statement->comment, StringValue());
      } else if (AcceptWord("TBLPROPERTIES")) {
        if (properties) DeferDuplicateClause("TBLPROPERTIES");
        properties = true;
        ARROW_RETURN_NOT_OK(PropertyList(&statement->properties, /*options=*/false));
      } else if ((IsWord(clause, "CLUSTERED") || IsWord(clause, "CLUSTER") ||
                  IsWord(clause, "SKEWED")) &&
                 IsWord(Peek(1), "BY")) {
        return Unsupported(clause, ToUpper(clause.text) + " BY in CREATE TABLE");
      } else if ((IsWord(clause, "ROW") && IsWord(Peek(1), "FORMAT")) ||
                 (IsWord(clause, "STORED") && (IsWord(Peek(1), "AS") || IsWord(Peek(1), "BY")))) {
        return Unsupported(clause, ToUpper(clause.text) + " " + ToUpper(Peek(1).text));
      } else {
        break;
      }
    }
    if (AcceptWord("AS") || StartsQuery(pos_)) {
      ARROW_ASSIGN_OR_RAISE(statement->query, Query());
      if (statement->schema) {
        DeferNotAllowed(tokens_.front(),
                        "Schema may not be specified in a Create Table As Select (CTAS) "
                        "statement");
      }
    }
    return arrow::Status::OK();
  }

  // (name type [NOT NULL] [COMMENT '...'], ...)
  arrow::Status ColumnDefinitions(Statement* statement) {
    Next();  // (
    arrow::FieldVector fields;
    do {
      const Token& name_token = Peek();
      if (!IsName(name_token)) return SyntaxError(name_token);
      std::string name = Next().value;
      const Token& type_start = Peek();
      if (type_start.kind != TokenKind::kWord) return SyntaxError(type_start);
      size_t end = TypeEnd();
      ARROW_ASSIGN_OR_RAISE(auto type, TypeFromText(type_start, end));
      bool not_null = false;
      std::optional<std::string> comment;
      auto duplicate = [&](const char* descriptor) {
        Defer(name_token, UserError(ErrorKind::kParse, "CREATE_TABLE_COLUMN_DESCRIPTOR_DUPLICATE",
                                    "CREATE TABLE column " + name + " specifies descriptor \"" +
                                        descriptor + "\" more than once, which is invalid.",
                                    "42710"));
      };
      while (true) {
        const Token& option = Peek();
        if (AcceptWord("NOT")) {
          const Token& next = Peek();
          ARROW_RETURN_NOT_OK(ExpectWord("NULL", IsSymbol(next, ",") || IsSymbol(next, ")") ||
                                                     IsWord(next, "NOT") ||
                                                     IsWord(next, "COMMENT")));
          if (not_null) duplicate("NOT NULL");
          not_null = true;
        } else if (AcceptWord("COMMENT")) {
          if (comment) duplicate("COMMENT");
          ARROW_ASSIGN_OR_RAISE(comment, StringValue());
        } else if (IsWord(option, "DEFAULT") || IsWord(option, "GENERATED")) {
          return Unsupported(option, ToUpper(option.text) + " column values");
        } else {
          break;
        }
      }
      fields.push_back(arrow::field(std::move(name), std::move(type), !not_null));
      statement->column_comments.push_back(std::move(comment));
    } while (AcceptSymbol(","));
    ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
    statement->schema = arrow::schema(std::move(fields));
    return arrow::Status::OK();
  }

  // One argument of a partition transform: a column or a literal.
  struct TransformArgument {
    std::string column;                    // parts joined with dots; empty for a literal
    std::string text;                      // as Spark describes it in messages
    std::shared_ptr<arrow::Scalar> value;  // a numeric literal's value
  };

  // PARTITIONED BY (term, ...): columns, and transforms as Iceberg's Spark catalog accepts them.
  arrow::Status Partitioning(Statement* statement) {
    ARROW_RETURN_NOT_OK(ExpectSymbol("("));
    do {
      const Token& start = Peek();
      if (!IsName(start)) return SyntaxError(start);
      if (IsSymbol(Peek(1), "(")) {
        ARROW_ASSIGN_OR_RAISE(auto term, PartitionTransform());
        statement->partitioning.push_back(std::move(term));
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(auto parts, ColumnName());
      if (!IsSymbol(Peek(), ",") && !IsSymbol(Peek(), ")") && Peek().kind == TokenKind::kWord) {
        return Unsupported(start, "partition columns with a type in PARTITIONED BY");
      }
      statement->partitioning.push_back(PartitionTerm{"identity", JoinParts(parts), 0});
    } while (AcceptSymbol(","));
    return ExpectSymbol(")");
  }

  static std::string JoinParts(const std::vector<std::string>& parts) {
    std::string joined;
    for (const auto& part : parts) joined += (joined.empty() ? "" : ".") + part;
    return joined;
  }

  // A name part as Spark quotes it in messages: backquoted unless a plain identifier.
  static std::string QuotedPart(const std::string& part) {
    bool plain = !part.empty() && !std::isdigit(static_cast<unsigned char>(part[0]));
    for (char c : part) plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (plain) return part;
    std::string quoted = "`";
    for (char c : part) quoted += c == '`' ? std::string("``") : std::string(1, c);
    return quoted + "`";
  }

  // name(argument, ...). Spark's own checks come first (the argument counts of years, months,
  // days and hours, a literal bucket count, column references); then what Iceberg accepts.
  arrow::Result<PartitionTerm> PartitionTransform() {
    const Token& start = Peek();
    std::string name = ToLower(Next().value);
    Next();  // (
    std::vector<TransformArgument> args;
    do {
      const Token& token = Peek();
      TransformArgument arg;
      if (IsName(token) && !IsWord(token, "NULL") && !IsWord(token, "TRUE") &&
          !IsWord(token, "FALSE")) {
        ARROW_ASSIGN_OR_RAISE(auto parts, ColumnName());
        std::string text;
        for (const auto& part : parts) text += (text.empty() ? "" : ".") + QuotedPart(part);
        arg = TransformArgument{JoinParts(parts), text, nullptr};
      } else if (token.kind == TokenKind::kString) {
        arg.text = "'" + Next().value + "'";
      } else if (token.kind == TokenKind::kNumber ||
                 (IsSymbol(token, "-") && Peek(1).kind == TokenKind::kNumber)) {
        bool negative = IsSymbol(token, "-");
        if (negative) Next();
        const Token& number = Next();
        auto value = NumberValue(number.text, negative);
        if (!value.ok()) return Fail(token, value.status());
        arg.value = *value;
        arg.text = (negative ? "-" : "") + number.text;
      } else {
        return SyntaxError(token);
      }
      args.push_back(std::move(arg));
    } while (AcceptSymbol(","));
    ARROW_RETURN_NOT_OK(ExpectSymbol(")"));

    std::string shown = name + "(";
    for (size_t i = 0; i < args.size(); ++i) shown += (i ? ", " : "") + args[i].text;
    shown += ")";
    auto invalid = [&](const std::string& kind, const std::string& message) {
      Defer(start, UserError(ErrorKind::kParse, "INVALID_SQL_SYNTAX." + kind,
                             "Invalid SQL syntax: " + message + ".", "42000"));
      return PartitionTerm{};
    };
    auto wrong_count = [&](size_t expected) {
      return invalid("TRANSFORM_WRONG_NUM_ARGS",
                     "The transform`" + name + "` requires " + std::to_string(expected) +
                         " parameters but the actual number is " + std::to_string(args.size()));
    };
    auto not_column = [&](const TransformArgument& arg) {
      return invalid("INVALID_COLUMN_REFERENCE",
                     "Expected a column reference for transform `" + name + "`: " + arg.text);
    };
    // A positive int literal, the form Iceberg takes bucket counts and widths in.
    auto positive_int = [](const TransformArgument& arg) -> int64_t {
      if (!arg.value || !arg.value->is_valid) return 0;
      int64_t n = 0;
      switch (arg.value->type->id()) {
        case arrow::Type::INT8:
          n = static_cast<const arrow::Int8Scalar&>(*arg.value).value;
          break;
        case arrow::Type::INT16:
          n = static_cast<const arrow::Int16Scalar&>(*arg.value).value;
          break;
        case arrow::Type::INT32:
          n = static_cast<const arrow::Int32Scalar&>(*arg.value).value;
          break;
        case arrow::Type::INT64:
          n = static_cast<const arrow::Int64Scalar&>(*arg.value).value;
          break;
        default:
          return 0;
      }
      return n > 0 && n <= std::numeric_limits<int32_t>::max() ? n : 0;
    };

    static const std::map<std::string, const char*> kSingleColumn = {
        {"identity", "identity"}, {"year", "years"},  {"years", "years"},    {"month", "months"},
        {"months", "months"},     {"day", "days"},    {"days", "days"},      {"date", "days"},
        {"hour", "hours"},        {"hours", "hours"}, {"date_hour", "hours"}};
    auto single = kSingleColumn.find(name);
    if (single != kSingleColumn.end()) {
      if (args.size() != 1) return wrong_count(1);
      if (args[0].column.empty()) return not_column(args[0]);
      return PartitionTerm{single->second, args[0].column, 0};
    }
    if (name == "bucket") {
      // Spark takes a smallint, int or bigint literal as the count.
      arrow::Type::type count_type = args[0].value ? args[0].value->type->id() : arrow::Type::NA;
      if (count_type != arrow::Type::INT16 && count_type != arrow::Type::INT32 &&
          count_type != arrow::Type::INT64) {
        Defer(start, UserError(ErrorKind::kParse, "_LEGACY_ERROR_TEMP_0031",
                               "Invalid number of buckets: " + args[0].text + "."));
        return PartitionTerm{};
      }
      for (size_t i = 1; i < args.size(); ++i) {
        if (args[i].column.empty()) return not_column(args[i]);
      }
      if (args.size() != 2) return wrong_count(2);
      int64_t buckets = positive_int(args[0]);
      if (buckets == 0) return Unsupported(start, "partition transform " + shown);
      return PartitionTerm{"bucket", args[1].column, buckets};
    }
    if (name == "truncate") {
      if (args.size() != 2) return wrong_count(2);
      // Iceberg takes the width before or after the column.
      bool width_first = args[1].value == nullptr;
      const TransformArgument& column = width_first ? args[1] : args[0];
      const TransformArgument& width = width_first ? args[0] : args[1];
      if (column.column.empty()) return not_column(column);
      int64_t n = positive_int(width);
      if (n == 0) return Unsupported(start, "partition transform " + shown);
      return PartitionTerm{"truncate", column.column, n};
    }
    return Unsupported(start, "partition transform " + shown);
  }

  arrow::Status Drop(Statement* statement) {
    Next();  // DROP
    const Token& what = Peek();
    if (IsNamespaceWord(what)) {
      Next();
      statement->kind = StatementKind::kDropNamespace;
      statement->if_exists = AcceptIfExists();
      ARROW_ASSIGN_OR_RAISE(statement->name, MultipartName());
      if (!AcceptWord("RESTRICT")) statement->cascade = AcceptWord("CASCADE");
      return arrow::Status::OK();
    }
    if (IsWord(what, "TABLE")) {
      Next();
      statement->kind = StatementKind::kDropTable;
      statement->if_exists = AcceptIfExists();
      ARROW_ASSIGN_OR_RAISE(statement->name, MultipartName());
      statement->purge = AcceptWord("PURGE");
      return arrow::Status::OK();
    }
    if (IsWord(what, "VIEW")) {
      Next();
      statement->kind = StatementKind::kDropView;
      statement->if_exists = AcceptIfExists();
      ARROW_ASSIGN_OR_RAISE(statement->name, MultipartName());
      return arrow::Status::OK();
    }
    if (what.kind == TokenKind::kWord) return Unsupported(what, "DROP " + ToUpper(what.text));
    return SyntaxError(what);
  }

  // SHOW NAMESPACES|DATABASES|SCHEMAS, TABLES or [USER|SYSTEM|ALL] FUNCTIONS,
  // [FROM|IN name] [[LIKE] 'pattern'].
  arrow::Status Show(Statement* statement) {
    Next();  // SHOW
    const Token& what = Peek();
    if (IsWord(what, "NAMESPACES") || IsWord(what, "DATABASES") || IsWord(what, "SCHEMAS")) {
      statement->kind = StatementKind::kShowNamespaces;
    } else if (IsWord(what, "TABLES")) {
      statement->kind = StatementKind::kShowTables;
    } else if (IsWord(what, "FUNCTIONS") ||
               ((IsWord(what, "USER") || IsWord(what, "SYSTEM") || IsWord(what, "ALL")) &&
                IsWord(Peek(1), "FUNCTIONS"))) {
      statement->kind = StatementKind::kShowFunctions;
      if (!IsWord(what, "FUNCTIONS")) statement->function_scope = ToUpper(Next().text);
    } else if (what.kind == TokenKind::kWord) {
      std::string shown = ToUpper(what.text);
      if (IsWord(Peek(1), "EXTENDED")) shown += " EXTENDED";
      return Unsupported(what, "SHOW " + shown);
    } else {
      return SyntaxError(what);
    }
    Next();
    if (AcceptWord("FROM") || AcceptWord("IN")) {
      ARROW_ASSIGN_OR_RAISE(statement->name, MultipartName());
    }
    bool like = AcceptWord("LIKE");
    if (like || Peek().kind == TokenKind::kString) {
      ARROW_ASSIGN_OR_RAISE(statement->pattern, StringValue());
    }
    return arrow::Status::OK();
  }

  // DESC|DESCRIBE [TABLE] [EXTENDED|FORMATTED] name. A keyword followed by no name is the name,
  // as in Spark: `DESCRIBE extended` describes the table `extended`.
  arrow::Status Describe(Statement* statement) {
    Next();  // DESC or DESCRIBE
    statement->kind = StatementKind::kDescribeTable;
    const Token& what = Peek();
    if ((IsNamespaceWord(what) || IsWord(what, "FUNCTION") || IsWord(what, "CATALOG") ||
         IsWord(what, "PROCEDURE")) &&
        IsName(Peek(1))) {
      return Unsupported(what, "DESCRIBE " + ToUpper(what.text));
    }
    if (IsWord(what, "TABLE") && IsName(Peek(1))) Next();
    if (IsWord(Peek(), "QUERY") || (!IsWord(what, "TABLE") && StartsQuery(pos_))) {
      return Unsupported(Peek(), "DESCRIBE QUERY");
    }
    if ((IsWord(Peek(), "EXTENDED") || IsWord(Peek(), "FORMATTED")) && IsName(Peek(1))) {
      Next();
      statement->extended = true;
    }
    ARROW_ASSIGN_OR_RAISE(statement->name, MultipartName());
    if (IsWord(Peek(), "PARTITION") && IsSymbol(Peek(1), "(")) {
      return Unsupported(Peek(), "DESCRIBE of a partition");
    }
    if (IsName(Peek())) return Unsupported(Peek(), "DESCRIBE of a column");
    return arrow::Status::OK();
  }

  // INSERT INTO|OVERWRITE [TABLE] name [(columns) | BY NAME] VALUES rows | query
  arrow::Status Insert(Statement* statement) {
    Next();  // INSERT
    statement->kind = StatementKind::kInsert;
    if (AcceptWord("OVERWRITE")) {
      statement->overwrite = true;
      if (IsWord(Peek(), "LOCAL") || IsWord(Peek(), "DIRECTORY")) {
        return Unsupported(Peek(), "INSERT OVERWRITE DIRECTORY");
      }
    } else {
      ARROW_RETURN_NOT_OK(ExpectWord("INTO"));
    }
    if (IsWord(Peek(), "TABLE") && IsName(Peek(1))) Next();
    ARROW_ASSIGN_OR_RAISE(statement->name, MultipartName());
    const Token& next = Peek();
    if (IsWord(next, "PARTITION") && IsSymbol(Peek(1), "(")) {
      return Unsupported(next, "INSERT into a PARTITION");
    }
    if (IsWord(next, "REPLACE")) return Unsupported(next, "INSERT INTO ... REPLACE");
    if (IsWord(next, "BY") && IsWord(Peek(1), "NAME")) {
      Next();
      Next();
      statement->by_name = true;
    } else if (IsSymbol(next, "(") && !StartsQuery(pos_)) {
      Next();
      do {
        if (!IsName(Peek())) return SyntaxError(Peek());
        statement->insert_columns.push_back(Next().value);
      } while (AcceptSymbol(","));
      ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
    }
    if (IsWord(Peek(), "VALUES")) return ValuesRows(&statement->rows);
    ARROW_ASSIGN_OR_RAISE(statement->query, Query());
    return arrow::Status::OK();
  }

  // VALUES (a, b), (c, d) or VALUES a, b (rows of one column). Spark checks that every row has
  // the width of the first.
  arrow::Status ValuesRows(std::vector<std::vector<ExprPtr>>* rows) {
    const Token& values = Next();  // VALUES
    do {
      std::vector<ExprPtr> row;
      if (AcceptSymbol("(")) {
        do {
          ARROW_ASSIGN_OR_RAISE(auto e, Expression());
          row.push_back(std::move(e));
        } while (AcceptSymbol(","));
        ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
      } else {
        ARROW_ASSIGN_OR_RAISE(auto e, Expression());
        row.push_back(std::move(e));
      }
      rows->push_back(std::move(row));
    } while (AcceptSymbol(","));
    for (size_t i = 1; i < rows->size(); ++i) {
      size_t width = (*rows)[i].size(), expected = rows->front().size();
      if (width != expected) {
        Defer(values,
              UserError(ErrorKind::kParse, "INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH",
                        "Invalid inline table. Inline table expected " + std::to_string(expected) +
                            " columns but found " + std::to_string(width) + " columns in row " +
                            std::to_string(i) + ".",
                        "42000"));
        break;
      }
    }
    return arrow::Status::OK();
  }

  // A target table with its alias, for MERGE, UPDATE and DELETE.
  arrow::Status TargetTable(Statement* statement) {
    ARROW_ASSIGN_OR_RAISE(statement->name, MultipartName());
    // UPDATE t SET ...: SET starts the assignments unless another SET follows it.
    if (statement->kind == StatementKind::kUpdate && IsWord(Peek(), "SET") &&
        !(IsWord(Peek(1), "SET") && IsName(Peek(2)))) {
      return arrow::Status::OK();
    }
    ARROW_ASSIGN_OR_RAISE(auto alias, TableAlias());
    if (alias) statement->alias = std::move(*alias);
    if (alias && IsSymbol(Peek(), "(")) return Unsupported(Peek(), "column aliases of a table");
    return arrow::Status::OK();
  }

  // column = value, ...
  arrow::Result<std::vector<Assignment>> Assignments() {
    std::vector<Assignment> assignments;
    do {
      ARROW_ASSIGN_OR_RAISE(auto column, ColumnName());
      if (!AcceptSymbol("=") && !AcceptSymbol("==")) return SyntaxError(Peek());
      ARROW_ASSIGN_OR_RAISE(auto value, Expression());
      assignments.push_back(Assignment{std::move(column), std::move(value)});
    } while (AcceptSymbol(","));
    return assignments;
  }

  // MERGE INTO target [[AS] alias] USING source [[AS] alias] ON condition WHEN ...
  arrow::Status Merge(Statement* statement) {
    Next();  // MERGE
    statement->kind = StatementKind::kMerge;
    if (IsWord(Peek(), "WITH")) return Unsupported(Peek(), "MERGE WITH SCHEMA EVOLUTION");
    ARROW_RETURN_NOT_OK(ExpectWord("INTO"));
    ARROW_RETURN_NOT_OK(TargetTable(statement));
    ARROW_RETURN_NOT_OK(ExpectWord("USING"));
    if (AcceptSymbol("(")) {
      ARROW_ASSIGN_OR_RAISE(auto query, Query());
      ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
      ARROW_ASSIGN_OR_RAISE(statement->source, AliasRelation(query));
    } else {
      if (!IsName(Peek()) || IsReserved(Peek())) return SyntaxError(Peek());
      ARROW_ASSIGN_OR_RAISE(statement->source, TableReference());
    }
    ARROW_RETURN_NOT_OK(ExpectWord("ON"));
    ARROW_ASSIGN_OR_RAISE(statement->condition, Expression());
    while (AcceptWord("WHEN")) {
      ARROW_ASSIGN_OR_RAISE(auto clause, MergeWhenClause(statement->clauses));
      statement->clauses.push_back(std::move(clause));
    }
    CheckMergeClauses(statement->clauses);
    return arrow::Status::OK();
  }

  // One WHEN clause after WHEN. Spark's grammar takes MATCHED clauses first, then NOT MATCHED
  // [BY TARGET], then NOT MATCHED BY SOURCE; a clause out of that order is a syntax error.
  arrow::Result<MergeClause> MergeWhenClause(const std::vector<MergeClause>& before) {
    MergeMatch last = before.empty() ? MergeMatch::kMatched : before.back().match;
    MergeClause clause;
    if (IsWord(Peek(), "MATCHED")) {
      if (last != MergeMatch::kMatched) return SyntaxError(Peek());
      Next();
      clause.match = MergeMatch::kMatched;
    } else {
      ARROW_RETURN_NOT_OK(ExpectWord("NOT"));
      ARROW_RETURN_NOT_OK(ExpectWord("MATCHED"));
      clause.match = MergeMatch::kNotMatched;
      if (last == MergeMatch::kNotMatchedBySource) {
        ARROW_RETURN_NOT_OK(ExpectWord("BY"));
        ARROW_RETURN_NOT_OK(ExpectWord("SOURCE"));
        clause.match = MergeMatch::kNotMatchedBySource;
      } else if (AcceptWord("BY")) {
        if (AcceptWord("SOURCE")) {
          clause.match = MergeMatch::kNotMatchedBySource;
        } else {
          ARROW_RETURN_NOT_OK(ExpectWord("TARGET"));
        }
      }
    }
    if (AcceptWord("AND")) {
      ARROW_ASSIGN_OR_RAISE(clause.condition, Expression());
    }
    ARROW_RETURN_NOT_OK(ExpectWord("THEN"));
    const Token& action = Peek();
    if (clause.match == MergeMatch::kNotMatched) {
      ARROW_RETURN_NOT_OK(ExpectWord("INSERT"));
      if (AcceptSymbol("*")) {
        clause.action = MergeAction::kInsertStar;
        return clause;
      }
      clause.action = MergeAction::kInsert;
      ARROW_RETURN_NOT_OK(ExpectSymbol("("));
      do {
        ARROW_ASSIGN_OR_RAISE(auto column, ColumnName());
        clause.insert_columns.push_back(std::move(column));
      } while (AcceptSymbol(","));
      ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
      ARROW_RETURN_NOT_OK(ExpectWord("VALUES"));
      ARROW_RETURN_NOT_OK(ExpectSymbol("("));
      do {
        ARROW_ASSIGN_OR_RAISE(auto value, Expression());
        clause.insert_values.push_back(std::move(value));
      } while (AcceptSymbol(","));
      ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
      if (clause.insert_columns.size() != clause.insert_values.size()) {
        Defer(tokens_.front(), UserError(ErrorKind::kParse, "_LEGACY_ERROR_TEMP_0006",
                                         "The number of inserted values cannot match the "
                                         "fields."));
      }
      return clause;
    }
    if (AcceptWord("DELETE")) {
      clause.action = MergeAction::kDelete;
      return clause;
    }
    if (!AcceptWord("UPDATE")) return SyntaxError(action);
    ARROW_RETURN_NOT_OK(ExpectWord("SET"));
    if (clause.match == MergeMatch::kMatched && AcceptSymbol("*")) {
      clause.action = MergeAction::kUpdateStar;
      return clause;
    }
    clause.action = MergeAction::kUpdate;
    ARROW_ASSIGN_OR_RAISE(clause.assignments, Assignments());
    return clause;
  }

  // Spark's checks of MERGE's clauses: at least one, and only the last of each kind without a
  // condition.
  void CheckMergeClauses(const std::vector<MergeClause>& clauses) {
    const Token& start = tokens_.front();
    if (clauses.empty()) {
      Defer(start,
            UserError(ErrorKind::kParse, "MERGE_WITHOUT_WHEN",
                      "There must be at least one WHEN clause in a MERGE statement.", "42601"));
      return;
    }
    struct Kind {
      MergeMatch match;
      const char* condition;
      const char* words;
    };
    static const Kind kKinds[] = {
        {MergeMatch::kMatched, "NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION", "MATCHED"},
        {MergeMatch::kNotMatched, "NON_LAST_NOT_MATCHED_BY_TARGET_CLAUSE_OMIT_CONDITION",
         "NOT MATCHED [BY TARGET]"},
        {MergeMatch::kNotMatchedBySource, "NON_LAST_NOT_MATCHED_BY_SOURCE_CLAUSE_OMIT_CONDITION",
         "NOT MATCHED BY SOURCE"}};
    for (const Kind& kind : kKinds) {
      // Clauses of a kind are adjacent, so an unconditional one is last only if the next clause
      // is of another kind.
      for (size_t i = 0; i + 1 < clauses.size(); ++i) {
        if (clauses[i].match == kind.match && clauses[i + 1].match == kind.match &&
            !clauses[i].condition) {
          Defer(start, UserError(ErrorKind::kParse, kind.condition,
                                 std::string("When there are more than one ") + kind.words +
                                     " clauses in a MERGE statement, only the last " + kind.words +
                                     " clause can omit the condition.",
                                 "42613"));
          return;
        }
      }
    }
  }

  // UPDATE name [[AS] alias] SET column = value, ... [WHERE condition]
  arrow::Status Update(Statement* statement) {
    Next();  // UPDATE
    statement->kind = StatementKind::kUpdate;
    ARROW_RETURN_NOT_OK(TargetTable(statement));
    ARROW_RETURN_NOT_OK(ExpectWord("SET"));
    ARROW_ASSIGN_OR_RAISE(statement->assignments, Assignments());
    if (AcceptWord("WHERE")) {
      ARROW_ASSIGN_OR_RAISE(statement->condition, Expression());
    }
    return arrow::Status::OK();
  }

  // DELETE FROM name [[AS] alias] [WHERE condition]
  arrow::Status Delete(Statement* statement) {
    Next();  // DELETE
    statement->kind = StatementKind::kDelete;
    ARROW_RETURN_NOT_OK(ExpectWord("FROM", IsName(Peek())));
    ARROW_RETURN_NOT_OK(TargetTable(statement));
    if (AcceptWord("WHERE")) {
      ARROW_ASSIGN_OR_RAISE(statement->condition, Expression());
    }
    return arrow::Status::OK();
  }

  // USE [NAMESPACE] name
  arrow::Status Use(Statement* statement) {
    Next();  // USE
    statement->kind = StatementKind::kUse;
    if (IsWord(Peek(), "NAMESPACE") && IsName(Peek(1))) Next();
    ARROW_ASSIGN_OR_RAISE(statement->name, MultipartName());
    return arrow::Status::OK();
  }

  // CALL name(arg, ...) with arguments all positional or all `name => value`, as Spark's
  // grammar reads them (names of arguments are identifiers).
  arrow::Status CallStatement(Statement* statement) {
    Next();  // CALL
    statement->kind = StatementKind::kCall;
    ARROW_ASSIGN_OR_RAISE(statement->name, MultipartName());
    ARROW_RETURN_NOT_OK(ExpectSymbol("("));
    if (!AcceptSymbol(")")) {
      do {
        CallArgument argument;
        if (IsName(Peek()) && IsSymbol(Peek(1), "=>")) {
          argument.name = Next().value;
          Next();  // =>
        }
        ARROW_ASSIGN_OR_RAISE(argument.value, Expression());
        statement->call_arguments.push_back(std::move(argument));
      } while (AcceptSymbol(","));
      ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
    }
    return arrow::Status::OK();
  }

  // SET, as Spark's SparkSqlAstBuilder reads it: from the raw text after SET.
  arrow::Status SetStatement(Statement* statement) {
    statement->kind = StatementKind::kSet;
    const Token& set = Next();
    const Token& start = tokens_.front();
    if (IsWord(Peek(), "TIME") && IsWord(Peek(1), "ZONE")) {
      Next();
      Next();
      const Token& zone = Peek();
      if (IsWord(zone, "LOCAL") || IsWord(zone, "INTERVAL")) {
        return Unsupported(zone, "SET TIME ZONE " + ToUpper(zone.text));
      }
      if (zone.kind == TokenKind::kString) {
        Next();
        while (AcceptSymbol(";")) {
        }
        if (Peek().kind == TokenKind::kEnd) {
          statement->key = "spark.sql.session.timeZone";
          statement->value = zone.value;
          return arrow::Status::OK();
        }
      }
      return Fail(start, UserError(ErrorKind::kParse, "_LEGACY_ERROR_TEMP_0045",
                                   "Invalid time zone displacement value."));
    }
    // The tokens after SET, up to trailing semicolons.
    size_t first = pos_, last = tokens_.size() - 1;  // [first, last)
    while (last > first && IsSymbol(tokens_[last - 1], ";")) --last;
    auto raw_after = [&](const Token& token) {
      return text_.substr(token.offset + token.text.size());
    };
    // SET `key` [= `value` | = value]
    if (tokens_[first].kind == TokenKind::kQuotedIdent) {
      statement->key = tokens_[first].value;
      if (last == first + 1) return arrow::Status::OK();
      if (IsSymbol(tokens_[first + 1], "=")) {
        if (last == first + 3 && tokens_[first + 2].kind == TokenKind::kQuotedIdent) {
          statement->value = tokens_[first + 2].value;
          return arrow::Status::OK();
        }
        std::string value = Trim(raw_after(tokens_[first + 1]));
        while (!value.empty() && value.back() == ';') value.pop_back();
        if (value.find(';') != std::string::npos) {
          std::string shown = Trim(raw_after(tokens_[first + 1]));
          return Fail(start, UserError(ErrorKind::kParse, "INVALID_PROPERTY_VALUE",
                                       "\"" + shown +
                                           "\" is an invalid property value, please use quotes, "
                                           "e.g. SET \"" +
                                           statement->key + "\"=\"" + shown + "\"",
                                       "42602"));
        }
        statement->value = value;
        return arrow::Status::OK();
      }
    }
    // SET key = `value`
    if (last >= first + 2 && tokens_[last - 1].kind == TokenKind::kQuotedIdent &&
        IsSymbol(tokens_[last - 2], "=")) {
      const Token& equals = tokens_[last - 2];
      size_t key_begin = set.offset + set.text.size();
      std::string key = Trim(text_.substr(key_begin, equals.offset - key_begin));
      std::string value = tokens_[last - 1].value;
      if (!IsConfigKey(key)) {
        return Fail(start, UserError(ErrorKind::kParse, "INVALID_PROPERTY_KEY",
                                     "\"" + key +
                                         "\" is an invalid property key, please use quotes, e.g. "
                                         "SET \"" +
                                         key + "\"=\"" + value + "\".",
                                     "42602"));
      }
      statement->key = std::move(key);
      statement->value = std::move(value);
      return arrow::Status::OK();
    }
    // SET, SET -v, SET key, SET key = value: the raw text, trailing semicolons dropped.
    std::string rest = Trim(raw_after(set));
    while (!rest.empty() && rest.back() == ';') rest.pop_back();
    rest = Trim(rest);
    if (rest.empty()) return arrow::Status::OK();
    if (rest == "-v" || IsConfigKey(rest)) {
      statement->key = rest;
      return arrow::Status::OK();
    }
    size_t equals = rest.find('=');
    if (equals != std::string::npos) {
      std::string key = Trim(rest.substr(0, equals));
      std::string value = Trim(rest.substr(equals + 1));
      if (IsConfigKey(key) && value.find(';') == std::string::npos) {
        statement->key = std::move(key);
        statement->value = std::move(value);
        return arrow::Status::OK();
      }
    }
    return Fail(start, UserError(ErrorKind::kParse, "INVALID_SET_SYNTAX",
                                 "Expected format is 'SET', 'SET key', or 'SET key=value'. If you "
                                 "want to include special characters in key, or include "
                                 "semicolon in value, please use backquotes, e.g., SET "
                                 "`key`=`value`.",
                                 "42000"));
  }

  // Spark's unquoted configuration keys: letters, digits, `_`, `.`, `:` and backslashes.
  static bool IsConfigKey(const std::string& key) {
    if (key.empty()) return false;
    for (char c : key) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != ':' &&
          c != '\\') {
        return false;
      }
    }
    return true;
  }

  static std::string Trim(const std::string& text) {
    size_t begin = 0, end = text.size();
    while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
    while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
    return text.substr(begin, end - begin);
  }

  // ---- Queries ----

  arrow::Result<PlanPtr> Query() {
    Nesting nesting(this, kQueryCost);
    if (nesting.too_deep()) return TooDeep();
    CteScope scope(this);
    if (IsWord(Peek(), "WITH")) ARROW_RETURN_NOT_OK(Ctes());
    ARROW_ASSIGN_OR_RAISE(Term term, QueryTerm());

    std::vector<ExprPtr> order_by;
    if (IsWord(Peek(), "ORDER")) {
      Next();
      ARROW_RETURN_NOT_OK(ExpectWord("BY"));
      ARROW_ASSIGN_OR_RAISE(order_by, SortItems());
    }
    ARROW_RETURN_NOT_OK(CheckUnsupportedClause());
    int64_t limit = -1;
    if (AcceptWord("LIMIT")) {
      ARROW_ASSIGN_OR_RAISE(limit, LimitValue());
    }
    ARROW_RETURN_NOT_OK(CheckUnsupportedClause());
    if (order_by.empty() && limit < 0) return term.plan;

    std::shared_ptr<LogicalPlan> target = term.bare_select;
    if (!target) {
      target = NewPlan(PlanKind::kSelect);
      target->select = std::make_shared<plan::SelectBlock>();
      target->select->select_list = {plan::Star()};
      target->children = {term.plan};
    }
    target->select->order_by = std::move(order_by);
    target->select->limit = limit;
    return target;
  }

  arrow::Status Ctes() {
    Next();  // WITH
    if (IsWord(Peek(), "RECURSIVE")) return Unsupported(Peek(), "WITH RECURSIVE");
    ctes_.emplace_back();
    do {
      const Token& name_token = Peek();
      if (!IsName(name_token) || IsReserved(name_token)) return SyntaxError(name_token);
      std::string name = Next().value;
      if (IsSymbol(Peek(), "(")) return Unsupported(Peek(), "column aliases of a CTE");
      AcceptWord("AS");
      ARROW_RETURN_NOT_OK(ExpectSymbol("("));
      ARROW_ASSIGN_OR_RAISE(auto body, Query());
      ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
      auto& scope = ctes_.back();
      std::string key = ToLower(name);
      if (scope.count(key) > 0) {
        return Fail(
            name_token,
            UserError(ErrorKind::kParse, "DUPLICATED_CTE_NAMES",
                      "CTE definition can't have duplicate names: `" + name + "`.", "42602"));
      }
      scope[key] = CteDefinition{name, body};
    } while (AcceptSymbol(","));
    return arrow::Status::OK();
  }

  // Set operations, left to right.
  arrow::Result<Term> QueryTerm() {
    ARROW_ASSIGN_OR_RAISE(Term left, QueryPrimary());
    while (true) {
      const Token& op = Peek();
      if (IsWord(op, "INTERSECT") || IsWord(op, "EXCEPT") || IsWord(op, "MINUS")) {
        return Unsupported(op, ToUpper(op.text));
      }
      if (!IsWord(op, "UNION")) break;
      Next();
      bool all = AcceptWord("ALL");
      if (!all) AcceptWord("DISTINCT");
      ARROW_ASSIGN_OR_RAISE(Term right, QueryPrimary());
      auto node = NewPlan(PlanKind::kUnion);
      node->children = {left.plan, right.plan};
      PlanPtr result = node;
      if (!all) {
        auto dedup = NewPlan(PlanKind::kDeduplicate);
        dedup->children = {node};
        result = dedup;
      }
      left = Term{result, nullptr};
    }
    return left;
  }

  arrow::Result<Term> QueryPrimary() {
    const Token& token = Peek();
    if (IsWord(token, "SELECT")) {
      ARROW_ASSIGN_OR_RAISE(auto block, SelectBlock());
      return Term{block, block};
    }
    if (IsSymbol(token, "(")) {
      Next();
      ARROW_ASSIGN_OR_RAISE(auto query, Query());
      ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
      return Term{query, nullptr};
    }
    if (IsWord(token, "TABLE") && IsName(Peek(1))) {
      Next();
      ARROW_ASSIGN_OR_RAISE(auto relation, TableReference());
      auto node = NewPlan(PlanKind::kSelect);
      node->select = std::make_shared<plan::SelectBlock>();
      node->select->select_list = {plan::Star()};
      node->children = {relation};
      return Term{node, node};
    }
    if (IsWord(token, "VALUES")) {
      ARROW_ASSIGN_OR_RAISE(auto values, Values());
      return Term{values, nullptr};
    }
    if (IsWord(token, "FROM")) return Unsupported(token, "queries that start with FROM");
    return SyntaxError(token);
  }

  arrow::Result<std::shared_ptr<LogicalPlan>> SelectBlock() {
    Next();  // SELECT
    auto block = std::make_shared<plan::SelectBlock>();
    if (AcceptWord("DISTINCT")) {
      block->distinct = true;
    } else {
      AcceptWord("ALL");
    }
    do {
      ARROW_ASSIGN_OR_RAISE(auto item, NamedExpression());
      block->select_list.push_back(std::move(item));
    } while (AcceptSymbol(","));

    auto node = NewPlan(PlanKind::kSelect);
    if (AcceptWord("FROM")) {
      ARROW_ASSIGN_OR_RAISE(auto from, FromRelations());
      node->children = {from};
    }
    ARROW_RETURN_NOT_OK(CheckUnsupportedClause());
    if (AcceptWord("WHERE")) {
      ARROW_ASSIGN_OR_RAISE(block->where, Expression());
    }
    if (IsWord(Peek(), "GROUP")) {
      Next();
      ARROW_RETURN_NOT_OK(ExpectWord("BY"));
      if (IsWord(Peek(), "GROUPING") && IsWord(Peek(1), "SETS")) {
        return Unsupported(Peek(), "GROUPING SETS");
      }
      do {
        ARROW_ASSIGN_OR_RAISE(auto e, Expression());
        block->group_by.push_back(std::move(e));
      } while (AcceptSymbol(","));
      if (IsWord(Peek(), "WITH") || IsWord(Peek(), "GROUPING")) {
        return Unsupported(Peek(),
                           "GROUP BY ... " + ToUpper(Peek().text) + " " + ToUpper(Peek(1).text));
      }
    }
    if (AcceptWord("HAVING")) {
      ARROW_ASSIGN_OR_RAISE(block->having, Expression());
    }
    ARROW_RETURN_NOT_OK(WindowClause(block.get()));
    ARROW_RETURN_NOT_OK(CheckUnsupportedClause());
    node->select = std::move(block);
    return node;
  }

  // Whether the `(` here closes right before the end of a table argument (`,` or `)`): a
  // parenthesized list rather than an expression that starts with one (`(a + 1) * 2`).
  bool MatchingParenFollowedByListEnd() const {
    const Token& after = tokens_[std::min(MatchingParen(pos_) + 1, tokens_.size() - 1)];
    return IsSymbol(after, ",") || IsSymbol(after, ")") || IsWord(after, "ORDER");
  }

  arrow::Result<std::vector<ExprPtr>> SortItems() {
    std::vector<ExprPtr> items;
    do {
      ARROW_ASSIGN_OR_RAISE(auto item, SortItem());
      items.push_back(std::move(item));
    } while (AcceptSymbol(","));
    return items;
  }

  // expression [ASC | DESC] [NULLS FIRST | LAST]
  arrow::Result<ExprPtr> SortItem() {
    ARROW_ASSIGN_OR_RAISE(auto e, Expression());
    bool ascending = true;
    if (AcceptWord("DESC")) {
      ascending = false;
    } else {
      AcceptWord("ASC");
    }
    bool nulls_first = ascending;  // Spark: ASC NULLS FIRST, DESC NULLS LAST
    if (AcceptWord("NULLS")) {
      if (AcceptWord("FIRST")) {
        nulls_first = true;
      } else if (AcceptWord("LAST")) {
        nulls_first = false;
      } else {
        return SyntaxError(Peek());
      }
    }
    return plan::SortOrder(std::move(e), ascending, nulls_first);
  }

  arrow::Result<int64_t> LimitValue() {
    if (AcceptWord("ALL")) return -1;
    ARROW_ASSIGN_OR_RAISE(auto e, Expression());
    std::string shown = "The limit like expression \"" + plan::DisplayName(*e) + "\" is invalid. ";
    auto invalid = [&](const std::string& kind, const std::string& why) {
      return UserError(ErrorKind::kAnalysis, "INVALID_LIMIT_LIKE_EXPRESSION." + kind, shown + why,
                       "42K0E");
    };
    if (e->kind != plan::ExprKind::kLiteral) {
      return invalid("IS_UNFOLDABLE", "The limit expression must evaluate to a constant value.");
    }
    const auto& value = *e->value;
    int64_t limit = 0;
    if (value.is_valid && value.type->id() == arrow::Type::INT32) {
      limit = static_cast<const arrow::Int32Scalar&>(value).value;
    } else if (value.is_valid && value.type->id() == arrow::Type::INT64) {
      limit = static_cast<const arrow::Int64Scalar&>(value).value;
    } else {
      return invalid("DATA_TYPE", "The limit expression must be integer type, but got \"" +
                                      plan::SparkTypeName(*value.type, /*upper=*/true) + "\".");
    }
    if (limit < 0) {
      return invalid("IS_NEGATIVE",
                     "The limit expression must be equal to or greater than 0, but got " +
                         std::to_string(limit) + ".");
    }
    return limit;
  }

  // ---- Relations ----

  // FROM r1, r2, ...: cross joins, left to right; then LATERAL VIEWs.
  arrow::Result<PlanPtr> FromRelations() {
    ARROW_ASSIGN_OR_RAISE(auto left, Relation());
    while (AcceptSymbol(",")) {
      if (IsWord(Peek(), "LATERAL")) {
        ARROW_ASSIGN_OR_RAISE(left, LateralFunction(left));
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(auto right, Relation());
      auto join = NewPlan(PlanKind::kJoin);
      join->join_type = plan::JoinType::kCross;
      join->children = {left, right};
      left = join;
    }
    while (IsWord(Peek(), "LATERAL") && IsWord(Peek(1), "VIEW")) {
      ARROW_ASSIGN_OR_RAISE(left, LateralView(left));
    }
    return left;
  }

  // LATERAL VIEW [OUTER] generator(args) table [AS] column [, column]: a Generate the analyzer
  // resolves over `child`; OUTER is the generator's _outer form.
  arrow::Result<PlanPtr> LateralView(PlanPtr child) {
    Next();
    Next();
    bool outer = AcceptWord("OUTER");
    ARROW_ASSIGN_OR_RAISE(auto call, Expression());
    if (call->kind != plan::ExprKind::kCall) return SyntaxError(Peek());
    auto generator = std::make_shared<plan::Expr>(*call);
    if (outer) generator->name += "_outer";
    auto node = NewPlan(PlanKind::kGenerate);
    node->children = {std::move(child)};
    node->exprs = {generator};
    if (!IsName(Peek()) || IsReserved(Peek())) return SyntaxError(Peek());
    node->alias = Next().value;
    const Token& next = Peek();
    bool bare = IsName(next) && !IsReserved(next) && !NonAliasWords().count(ToUpper(next.text));
    if (AcceptWord("AS") || bare) {
      do {
        if (!IsName(Peek())) return SyntaxError(Peek());
        node->name_parts.push_back(Next().value);
      } while (AcceptSymbol(","));
    }
    return node;
  }

  // A relation and the joins that follow it.
  arrow::Result<PlanPtr> Relation() {
    if (IsWord(Peek(), "LATERAL")) return Unsupported(Peek(), "LATERAL subqueries");
    ARROW_ASSIGN_OR_RAISE(auto left, RelationPrimary());
    while (true) {
      const Token& start = Peek();
      if (IsWord(start, "NATURAL")) return Unsupported(start, "NATURAL JOIN");
      plan::JoinType type = plan::JoinType::kInner;
      if (!JoinTypeWords(&type)) break;
      ARROW_RETURN_NOT_OK(ExpectWord("JOIN"));
      if (IsWord(Peek(), "LATERAL")) {
        if (type != plan::JoinType::kInner && type != plan::JoinType::kCross) {
          return Unsupported(start, "LATERAL joins other than inner ones");
        }
        ARROW_ASSIGN_OR_RAISE(left, LateralFunction(left));
        if (AcceptWord("ON")) {
          auto filter = NewPlan(PlanKind::kSelect);
          ARROW_ASSIGN_OR_RAISE(auto condition, Expression());
          filter->select = std::make_shared<plan::SelectBlock>();
          filter->select->select_list = {plan::Star()};
          filter->select->where = std::move(condition);
          filter->children = {left};
          left = filter;
        }
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(auto right, RelationPrimary());
      auto join = NewPlan(PlanKind::kJoin);
      join->join_type = type;
      join->children = {left, right};
      if (AcceptWord("ON")) {
        ARROW_ASSIGN_OR_RAISE(auto condition, Expression());
        join->exprs = {condition};
      } else if (AcceptWord("USING")) {
        ARROW_RETURN_NOT_OK(ExpectSymbol("("));
        do {
          if (!IsName(Peek())) return SyntaxError(Peek());
          join->using_columns.push_back(Next().value);
        } while (AcceptSymbol(","));
        ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
      }
      left = join;
    }
    return left;
  }

  // Reads the words of a join type up to JOIN (INNER, CROSS, LEFT [OUTER|SEMI|ANTI], RIGHT
  // [OUTER], FULL [OUTER], SEMI, ANTI, or none); false when no join follows.
  bool JoinTypeWords(plan::JoinType* type) {
    using plan::JoinType;
    if (IsWord(Peek(), "JOIN") || AcceptWord("INNER")) {
      *type = JoinType::kInner;
    } else if (AcceptWord("CROSS")) {
      *type = JoinType::kCross;
    } else if (AcceptWord("LEFT")) {
      if (AcceptWord("SEMI")) {
        *type = JoinType::kLeftSemi;
      } else if (AcceptWord("ANTI")) {
        *type = JoinType::kLeftAnti;
      } else {
        AcceptWord("OUTER");
        *type = JoinType::kLeftOuter;
      }
    } else if (AcceptWord("RIGHT")) {
      AcceptWord("OUTER");
      *type = JoinType::kRightOuter;
    } else if (AcceptWord("FULL")) {
      AcceptWord("OUTER");
      *type = JoinType::kFullOuter;
    } else if (AcceptWord("SEMI")) {
      *type = JoinType::kLeftSemi;
    } else if (AcceptWord("ANTI")) {
      *type = JoinType::kLeftAnti;
    } else {
      return false;
    }
    return true;
  }

  arrow::Result<PlanPtr> RelationPrimary() {
    const Token& token = Peek();
    if (IsSymbol(token, "(")) {
      if (EnclosesQuery(pos_)) {
        Next();
        ARROW_ASSIGN_OR_RAISE(auto query, Query());
        ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
        return AliasRelation(query);
      }
      return ParenthesizedRelation();
    }
    if (IsWord(token, "VALUES")) {
      ARROW_ASSIGN_OR_RAISE(auto values, Values());
      return AliasRelation(values);
    }
    if (!IsName(token) || IsReserved(token)) return SyntaxError(token);
    return TableReference();
  }

  arrow::Result<PlanPtr> ParenthesizedRelation() {
    Next();  // (
    ARROW_ASSIGN_OR_RAISE(auto relation, Relation());
    ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
    return AliasRelation(relation);
  }

  // A table name, a CTE reference, with its alias.
  arrow::Result<PlanPtr> TableReference() {
    std::vector<std::string> parts;
    while (true) {
      ARROW_ASSIGN_OR_RAISE(auto part, TableNamePart());
      parts.push_back(std::move(part));
      if (!IsSymbol(Peek(), ".") || !IsName(Peek(1))) break;
      Next();
    }
    if (IsSymbol(Peek(), "(")) {
      std::string name;
      for (const auto& part : parts) name += (name.empty() ? "" : ".") + ToLower(part);
      return TableFunction(name, nullptr);
    }
    PlanPtr relation;
    if (parts.size() == 1) relation = FindCte(parts[0]);
    if (!relation) {
      auto node = NewPlan(PlanKind::kUnresolvedRelation);
      node->name_parts = std::move(parts);
      relation = node;
    }
    // Time travel: [FOR] {VERSION | SYSTEM_VERSION | TIMESTAMP | SYSTEM_TIME} AS OF <expr>.
    bool for_keyword = IsWord(Peek(), "FOR");
    const Token& kind = Peek(for_keyword ? 1 : 0);
    bool version = IsWord(kind, "VERSION") || IsWord(kind, "SYSTEM_VERSION");
    bool timestamp = IsWord(kind, "TIMESTAMP") || IsWord(kind, "SYSTEM_TIME");
    if ((version || timestamp) && IsWord(Peek(for_keyword ? 2 : 1), "AS")) {
      if (relation->kind != PlanKind::kUnresolvedRelation) return Unsupported(kind, "time travel on a CTE");
      if (for_keyword) Next();
      Next();
      Next();
      ARROW_RETURN_NOT_OK(ExpectWord("OF"));
      ARROW_ASSIGN_OR_RAISE(auto point, Expression());
      auto travelled = std::make_shared<LogicalPlan>(*relation);
      (version ? travelled->as_of_version : travelled->as_of_timestamp) = std::move(point);
      relation = travelled;
    }
    if (IsWord(Peek(), "TABLESAMPLE")) return Unsupported(Peek(), "TABLESAMPLE");
    return AliasRelation(relation);
  }

  // name(args) [[AS] alias] in FROM: a table-valued function (a Generate the analyzer resolves),
  // over one row, or with `child`, over each of its rows (LATERAL).
  // An argument may be a table, `TABLE name`, `TABLE(name)` or `TABLE(query)`: the function
  // then runs over its rows (it becomes the node's child) and sees them, at that argument, as
  // `*` (each row as a struct); its output is then the function's columns only.
  arrow::Result<PlanPtr> TableFunction(const std::string& name, PlanPtr child) {
    Next();  // (
    std::vector<ExprPtr> args;
    std::vector<std::string> keywords;
    PlanPtr table;
    auto node = NewPlan(PlanKind::kGenerate);
    node->exprs = {nullptr};  // the call, below
    while (!IsSymbol(Peek(), ")")) {
      if (!args.empty()) ARROW_RETURN_NOT_OK(ExpectSymbol(","));
      std::string keyword;
      if (IsName(Peek()) && IsSymbol(Peek(1), "=>")) {
        keyword = Next().value;
        Next();
      }
      if (IsWord(Peek(), "TABLE") && (IsSymbol(Peek(1), "(") || IsName(Peek(1)))) {
        const Token& word = Next();
        if (table) return Unsupported(word, "table-valued functions with more than one table");
        ARROW_ASSIGN_OR_RAISE(table, TableArgument());
        ARROW_RETURN_NOT_OK(TablePartitioning(node.get()));
        args.push_back(plan::Star());
      } else {
        ARROW_ASSIGN_OR_RAISE(auto arg, Expression());
        args.push_back(std::move(arg));
      }
      keywords.push_back(std::move(keyword));
    }
    Next();  // )
    auto call = std::make_shared<plan::Expr>(*plan::Call(name, std::move(args)));
    if (std::any_of(keywords.begin(), keywords.end(), [](const auto& k) { return !k.empty(); })) {
      call->keywords = std::move(keywords);
    }
    node->exprs[0] = std::move(call);
    ARROW_ASSIGN_OR_RAISE(auto alias, TableAlias());
    if (alias) node->alias = std::move(*alias);
    if (!table) {
      if (child) node->children = {std::move(child)};
      return node;
    }
    node->children = {std::move(table)};
    node->generated_only = true;
    if (!child) return node;
    // LATERAL f(TABLE(t)): its rows do not depend on the rows before it, a cross join.
    auto join = NewPlan(PlanKind::kJoin);
    join->join_type = plan::JoinType::kCross;
    join->children = {std::move(child), std::move(node)};
    return join;
  }

  // After TABLE: `name`, `(name)` or `(query)`.
  arrow::Result<PlanPtr> TableArgument() {
    if (IsSymbol(Peek(), "(") && EnclosesQuery(pos_)) {
      Next();
      ARROW_ASSIGN_OR_RAISE(auto query, Query());
      ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
      return query;
    }
    const bool parenthesized = AcceptSymbol("(");
    ARROW_ASSIGN_OR_RAISE(auto parts, MultipartName());
    if (parenthesized) ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
    if (parts.size() == 1) {
      if (auto cte = FindCte(parts[0])) return cte;
    }
    auto relation = NewPlan(PlanKind::kUnresolvedRelation);
    relation->name_parts = std::move(parts);
    return PlanPtr(relation);
  }

  // After a table argument: [PARTITION BY e | WITH SINGLE PARTITION] [ORDER BY o], into a
  // table function's node; several keys or orders go in parentheses, `(e1, e2)`, as in Spark
  // (a comma otherwise ends the argument).
  arrow::Status TablePartitioning(LogicalPlan* node) {
    if (IsWord(Peek(), "WITH") && IsWord(Peek(1), "SINGLE")) {
      Next();
      Next();
      ARROW_RETURN_NOT_OK(ExpectWord("PARTITION"));
      node->partitioned = true;
    } else if (IsWord(Peek(), "PARTITION") && IsWord(Peek(1), "BY")) {
      Next();
      Next();
      node->partitioned = true;
      if (IsSymbol(Peek(), "(") && !EnclosesQuery(pos_) && MatchingParenFollowedByListEnd()) {
        Next();
        do {
          ARROW_ASSIGN_OR_RAISE(auto key, Expression());
          node->groupings.push_back(std::move(key));
        } while (AcceptSymbol(","));
        ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
      } else {
        ARROW_ASSIGN_OR_RAISE(auto key, Expression());
        node->groupings.push_back(std::move(key));
      }
    }
    if (IsWord(Peek(), "ORDER") && IsWord(Peek(1), "BY")) {
      const Token& order = Next();
      Next();
      if (!node->partitioned) {
        return Unsupported(order, "ORDER BY of a table argument without PARTITION BY");
      }
      if (IsSymbol(Peek(), "(") && MatchingParenFollowedByListEnd()) {
        Next();
        ARROW_ASSIGN_OR_RAISE(auto items, SortItems());
        ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
        node->exprs.insert(node->exprs.end(), items.begin(), items.end());
      } else {
        ARROW_ASSIGN_OR_RAISE(auto item, SortItem());
        node->exprs.push_back(std::move(item));
      }
    }
    return arrow::Status::OK();
  }

  // LATERAL name(args) [[AS] alias] after `left`: the function over each of its rows.
  arrow::Result<PlanPtr> LateralFunction(PlanPtr left) {
    const Token& lateral = Next();
    if (!IsName(Peek()) || !IsSymbol(Peek(1), "(")) {
      return Unsupported(lateral, "LATERAL subqueries");
    }
    std::string name = ToLower(Next().value);
    return TableFunction(name, std::move(left));
  }

  // One part of a table name. Spark reports `my-table` as an invalid identifier.
  arrow::Result<std::string> TableNamePart() {
    const Token& token = Peek();
    if (!IsName(token)) return SyntaxError(token);
    std::string name = Next().value;
    if (token.kind == TokenKind::kWord) {
      std::string joined = token.text;
      size_t end = token.offset + token.text.size();
      while (IsSymbol(Peek(), "-") && Peek().offset == end && Peek(1).kind == TokenKind::kWord &&
             Peek(1).offset == end + 1) {
        joined += "-" + Peek(1).text;
        end = Peek(1).offset + Peek(1).text.size();
        Next();
        Next();
      }
      if (joined != token.text) {
        return Fail(token, UserError(ErrorKind::kParse, "INVALID_IDENTIFIER",
                                     "The unquoted identifier " + joined +
                                         " is invalid and must be back quoted as: `" + joined +
                                         "`. Unquoted identifiers can only contain ASCII letters "
                                         "('a' - 'z', 'A' - 'Z'), digits ('0' - '9'), and "
                                         "underbar ('_'). Unquoted identifiers must also not "
                                         "start with a digit. Different data sources and meta "
                                         "stores may impose additional restrictions on unquoted "
                                         "identifiers.",
                                     "42602"));
      }
    }
    return name;
  }

  PlanPtr FindCte(const std::string& name) const {
    std::string key = ToLower(name);
    for (auto scope = ctes_.rbegin(); scope != ctes_.rend(); ++scope) {
      auto found = scope->find(key);
      if (found != scope->end()) {
        auto alias = NewPlan(PlanKind::kSubqueryAlias);
        alias->alias = found->second.name;
        alias->children = {found->second.plan};
        return alias;
      }
    }
    return nullptr;
  }

  // `[AS] alias` after a relation, if one follows.
  arrow::Result<std::optional<std::string>> TableAlias() {
    const Token& token = Peek();
    std::string alias;
    if (AcceptWord("AS")) {
      const Token& name = Peek();
      if (!IsName(name) ||
          (name.kind == TokenKind::kWord && StrictNonReserved().count(ToUpper(name.text)) > 0)) {
        return SyntaxError(name);
      }
      ARROW_ASSIGN_OR_RAISE(alias, TableNamePart());
    } else if (token.kind == TokenKind::kQuotedIdent ||
               (token.kind == TokenKind::kWord && !IsReserved(token) &&
                NonAliasWords().count(ToUpper(token.text)) == 0)) {
      ARROW_ASSIGN_OR_RAISE(alias, TableNamePart());
    } else {
      return std::nullopt;
    }
    return alias;
  }

  // `relation [AS] alias`, or the relation itself when no alias follows.
  // With column aliases, `relation [AS] alias(a, b)`, its columns are renamed in order.
  arrow::Result<PlanPtr> AliasRelation(PlanPtr relation) {
    ARROW_ASSIGN_OR_RAISE(auto alias, TableAlias());
    if (!alias) return relation;
    auto node = NewPlan(PlanKind::kSubqueryAlias);
    node->alias = std::move(*alias);
    node->children = {std::move(relation)};
    if (AcceptSymbol("(")) {
      do {
        if (!IsName(Peek())) return SyntaxError(Peek());
        node->name_parts.push_back(Next().value);
      } while (AcceptSymbol(","));
      ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
    }
    return node;
  }

  // VALUES row, ...: each row `(e, ...)` or a single `e`; the analyzer makes them a table.
  arrow::Result<PlanPtr> Values() {
    auto node = NewPlan(PlanKind::kLocalTable);
    ARROW_RETURN_NOT_OK(ValuesRows(&node->projections));
    return node;
  }

  // ---- Expressions, loosest binding first ----

  // expression [AS] alias
  arrow::Result<ExprPtr> NamedExpression() {
    ARROW_ASSIGN_OR_RAISE(auto e, Expression());
    const Token& token = Peek();
    if (AcceptWord("AS")) {
      if (AcceptSymbol("(")) {  // explode(m) AS (k, v): a name per generated column
        std::vector<std::string> names;
        do {
          if (!IsName(Peek())) return SyntaxError(Peek());
          names.push_back(Next().value);
        } while (AcceptSymbol(","));
        if (!AcceptSymbol(")")) return SyntaxError(Peek());
        return plan::MultiAlias(e, std::move(names));
      }
      if (!IsName(Peek())) return SyntaxError(Peek());
      return plan::Alias(e, Next().value);
    }
    if (token.kind == TokenKind::kQuotedIdent ||
        (token.kind == TokenKind::kWord && !IsReserved(token) &&
         NonAliasWords().count(ToUpper(token.text)) == 0)) {
      return plan::Alias(e, Next().value);
    }
    return e;
  }

  arrow::Result<ExprPtr> Expression() {
    Nesting nesting(this, 1);
    if (nesting.too_deep()) return TooDeep();
    ARROW_ASSIGN_OR_RAISE(auto left, AndExpression());
    while (AcceptWord("OR")) {
      ARROW_ASSIGN_OR_RAISE(auto right, AndExpression());
      left = plan::Call("or", {left, right});
    }
    return left;
  }

  arrow::Result<ExprPtr> AndExpression() {
    ARROW_ASSIGN_OR_RAISE(auto left, NotExpression());
    while (AcceptWord("AND")) {
      ARROW_ASSIGN_OR_RAISE(auto right, NotExpression());
      left = plan::Call("and", {left, right});
    }
    return left;
  }

  arrow::Result<ExprPtr> NotExpression() {
    Nesting nesting(this, 1);
    if (nesting.too_deep()) return TooDeep();
    if (AcceptWord("NOT") || AcceptSymbol("!")) {
      ARROW_ASSIGN_OR_RAISE(auto operand, NotExpression());
      return Not(operand);
    }
    if (IsWord(Peek(), "EXISTS") && IsSymbol(Peek(1), "(") && StartsQuery(pos_ + 1)) {
      return Unsupported(Peek(), "EXISTS subqueries");
    }
    ARROW_ASSIGN_OR_RAISE(auto value, ValueExpression());
    return Predicate(value);
  }

  // At most one predicate after a value: IS, [NOT] BETWEEN / IN / LIKE / ILIKE / RLIKE.
  arrow::Result<ExprPtr> Predicate(ExprPtr value) {
    if (AcceptWord("IS")) {
      bool negated = AcceptWord("NOT") || AcceptSymbol("!");
      const Token& kind = Peek();
      ExprPtr e;
      if (AcceptWord("NULL")) {
        return plan::Call(negated ? "isnotnull" : "isnull", {value});
      } else if (AcceptWord("UNKNOWN")) {
        return plan::Call(negated ? "isnotnull" : "isnull", {value});
      } else if (IsWord(kind, "TRUE") || IsWord(kind, "FALSE")) {
        Next();
        auto truth = plan::Literal(std::make_shared<arrow::BooleanScalar>(IsWord(kind, "TRUE")));
        e = plan::Call("<=>", {value, truth});
      } else if (AcceptWord("DISTINCT")) {
        ARROW_RETURN_NOT_OK(ExpectWord("FROM"));
        ARROW_ASSIGN_OR_RAISE(auto right, ValueExpression());
        // IS DISTINCT FROM is the negation of null-safe equality.
        e = plan::Call("<=>", {value, right});
        negated = !negated;
      } else {
        return SyntaxError(kind);
      }
      return negated ? Not(e) : e;
    }
    bool negated = false;
    if (IsWord(Peek(), "NOT") || IsSymbol(Peek(), "!")) {
      const Token& op = Peek(1);
      if (!IsWord(op, "BETWEEN") && !IsWord(op, "IN") && !IsWord(op, "LIKE") &&
          !IsWord(op, "ILIKE") && !IsWord(op, "RLIKE") && !IsWord(op, "REGEXP")) {
        return value;
      }
      negated = true;
      Next();
    }
    ExprPtr e;
    if (AcceptWord("BETWEEN")) {
      ARROW_ASSIGN_OR_RAISE(auto low, ValueExpression());
      ARROW_RETURN_NOT_OK(ExpectWord("AND"));
      ARROW_ASSIGN_OR_RAISE(auto high, ValueExpression());
      e = plan::Call("and", {plan::Call(">=", {value, low}), plan::Call("<=", {value, high})});
    } else if (AcceptWord("IN")) {
      ARROW_RETURN_NOT_OK(ExpectSymbol("("));
      if (StartsQuery(pos_)) return Unsupported(Peek(), "IN subqueries");
      std::vector<ExprPtr> args = {value};
      do {
        ARROW_ASSIGN_OR_RAISE(auto item, Expression());
        args.push_back(std::move(item));
      } while (AcceptSymbol(","));
      ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
      e = plan::Call("in", std::move(args));
    } else if (IsWord(Peek(), "LIKE") || IsWord(Peek(), "ILIKE")) {
      std::string name = ToLower(Next().text);
      if (IsWord(Peek(), "ANY") || IsWord(Peek(), "SOME") || IsWord(Peek(), "ALL")) {
        return Unsupported(Peek(), ToUpper(name) + " " + ToUpper(Peek().text));
      }
      ARROW_ASSIGN_OR_RAISE(auto pattern, ValueExpression());
      std::vector<ExprPtr> args = {value, pattern};
      if (AcceptWord("ESCAPE")) {
        const Token& escape = Peek();
        if (escape.kind != TokenKind::kString) return SyntaxError(escape);
        args.push_back(StringLiteral(Next().value));
      }
      e = plan::Call(name, std::move(args));
    } else if (AcceptWord("RLIKE") || AcceptWord("REGEXP")) {
      ARROW_ASSIGN_OR_RAISE(auto pattern, ValueExpression());
      e = plan::Call("rlike", {value, pattern});
    } else {
      return value;
    }
    return negated ? Not(e) : e;
  }

  // The binding level of a binary operator token (0: none) and its Call name.
  static int BinaryLevel(const Token& token, std::string* name) {
    static const std::pair<const char*, int> kSymbols[] = {
        {"=", 1},  {"==", 1}, {"<=>", 1}, {"<>", 1}, {"!=", 1}, {"<", 1},
        {"<=", 1}, {">", 1},  {">=", 1},  {"|", 2},  {"^", 3},  {"&", 4},
        {"+", 5},  {"-", 5},  {"||", 5},  {"*", 6},  {"/", 6},  {"%", 6}};
    if (token.kind == TokenKind::kSymbol) {
      for (const auto& [symbol, level] : kSymbols) {
        if (token.text == symbol) {
          *name = symbol;
          return level;
        }
      }
    } else if (IsWord(token, "DIV")) {
      *name = "div";
      return 6;
    }
    return 0;
  }

  static ExprPtr MakeBinary(const std::string& op, ExprPtr left, ExprPtr right) {
    if (op == "==") return plan::Call("=", {left, right});
    if (op == "<>" || op == "!=") return Not(plan::Call("=", {left, right}));
    if (op == "||") return plan::Call("concat", {left, right});
    return plan::Call(op, {left, right});
  }

  // Arithmetic, bitwise and comparison operators by precedence climbing: comparison (1) < | (2)
  // < ^ (3) < & (4) < + - || (5) < * / % div (6), all left-associative.
  arrow::Result<ExprPtr> ValueExpression(int min_level = 1) {
    ARROW_ASSIGN_OR_RAISE(auto left, UnaryExpression());
    while (true) {
      std::string op;
      int level = BinaryLevel(Peek(), &op);
      if (level == 0 || level < min_level) break;
      Next();
      ARROW_ASSIGN_OR_RAISE(auto right, ValueExpression(level + 1));
      left = MakeBinary(op, std::move(left), std::move(right));
    }
    return left;
  }

  arrow::Result<ExprPtr> UnaryExpression() {
    Nesting nesting(this, 1);
    if (nesting.too_deep()) return TooDeep();
    const Token& token = Peek();
    if (IsSymbol(token, "-") && Peek(1).kind != TokenKind::kNumber) {
      Next();
      ARROW_ASSIGN_OR_RAISE(auto operand, UnaryExpression());
      return plan::Call("negative", {operand});
    }
    if (AcceptSymbol("+")) return UnaryExpression();
    if (AcceptSymbol("~")) {
      ARROW_ASSIGN_OR_RAISE(auto operand, UnaryExpression());
      return plan::Call("~", {operand});
    }
    ARROW_ASSIGN_OR_RAISE(auto primary, PrimaryExpression());
    return Postfix(std::move(primary));
  }

  // `.field`, `::type` and `[index]` after a primary expression.
  arrow::Result<ExprPtr> Postfix(ExprPtr e) {
    while (true) {
      const Token& token = Peek();
      if (IsSymbol(token, ".") && IsName(Peek(1))) {
        Next();
        std::string field = Next().value;
        e = plan::Call("extract_value", {e, StringLiteral(field)});
      } else if (IsSymbol(token, "::")) {
        Next();
        const Token& type_start = Peek();
        if (type_start.kind != TokenKind::kWord) return SyntaxError(type_start);
        size_t end = TypeEnd();
        ARROW_ASSIGN_OR_RAISE(auto type, TypeFromText(type_start, end));
        e = plan::Cast(e, type);
      } else if (IsSymbol(token, "[")) {
        Next();
        ARROW_ASSIGN_OR_RAISE(auto key, Expression());
        if (!AcceptSymbol("]")) return SyntaxError(Peek());
        e = plan::Call("extract_value", {e, key});
      } else if (IsSymbol(token, "->")) {
        return Unsupported(token, "lambda functions");
      } else {
        return e;
      }
    }
  }

  // Consumes a type name after `::` (a word, then a balanced (...) or <...>); returns the byte
  // offset where it ends.
  size_t TypeEnd() {
    const Token& word = Next();
    size_t end = word.offset + word.text.size();
    if (IsSymbol(Peek(), "(")) {
      int depth = 0;
      do {
        const Token& t = Next();
        if (IsSymbol(t, "(")) ++depth;
        if (IsSymbol(t, ")")) --depth;
        end = t.offset + t.text.size();
      } while (depth > 0 && Peek().kind != TokenKind::kEnd);
    } else if (IsSymbol(Peek(), "<>")) {
      end = Next().offset + 2;
    } else if (IsSymbol(Peek(), "<")) {
      int depth = 0;
      do {
        const Token& t = Next();
        if (IsSymbol(t, "<")) ++depth;
        if (IsSymbol(t, ">")) --depth;
        end = t.offset + t.text.size();
      } while (depth > 0 && Peek().kind != TokenKind::kEnd);
    }
    return end;
  }

  arrow::Result<std::shared_ptr<arrow::DataType>> TypeFromText(const Token& start, size_t end) {
    auto type = plan::ParseTypeName(text_.substr(start.offset, end - start.offset));
    if (!type.ok()) return Fail(start, type.status());
    return type;
  }

  arrow::Result<ExprPtr> PrimaryExpression() {
    const Token& token = Peek();
    switch (token.kind) {
      case TokenKind::kNumber: {
        Next();
        return Number(token, false, token);
      }
      case TokenKind::kString: {
        std::string value;
        while (Peek().kind == TokenKind::kString) value += Next().value;
        return StringLiteral(std::move(value));
      }
      case TokenKind::kQuotedIdent:
        return NamePath();
      case TokenKind::kWord:
        return WordExpression();
      case TokenKind::kSymbol:
        break;
      case TokenKind::kEnd:
        return SyntaxError(token);
    }
    if (IsSymbol(token, "-") && Peek(1).kind == TokenKind::kNumber) {
      // Spark folds a minus sign into the numeric literal that follows: -1 is a literal.
      Next();
      const Token& number = Next();
      return Number(number, true, token);
    }
    if (AcceptSymbol("*")) return plan::Star();
    if (IsSymbol(token, "(")) {
      if (StartsQuery(pos_ + 1)) return Unsupported(token, "scalar subqueries");
      Next();
      ARROW_ASSIGN_OR_RAISE(auto e, Expression());
      if (AcceptSymbol(",")) {
        // A row constructor (a, b) is a struct, as in Spark.
        std::vector<ExprPtr> fields = {e};
        do {
          ARROW_ASSIGN_OR_RAISE(auto field, Expression());
          fields.push_back(std::move(field));
        } while (AcceptSymbol(","));
        e = plan::Call("struct", std::move(fields));
      }
      ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
      return e;
    }
    return SyntaxError(token);
  }

  // A numeric literal; `start` is its first token, the minus sign when `negative`.
  arrow::Result<ExprPtr> Number(const Token& token, bool negative, const Token& start) {
    auto value = NumberValue(token.text, negative);
    if (!value.ok()) return Fail(start, value.status());
    return plan::Literal(*value);
  }

  // A primary expression that starts with a word: a literal keyword, a special form, a function
  // call or a column.
  arrow::Result<ExprPtr> WordExpression() {
    const Token& token = Peek();
    const Token& next = Peek(1);
    bool call = IsSymbol(next, "(");
    if (AcceptWord("NULL")) return plan::Literal(arrow::MakeNullScalar(arrow::null()));
    if (IsWord(token, "TRUE") || IsWord(token, "FALSE")) {
      Next();
      return plan::Literal(std::make_shared<arrow::BooleanScalar>(IsWord(token, "TRUE")));
    }
    if (IsWord(token, "CASE")) return CaseExpression();
    if ((IsWord(token, "CAST") || IsWord(token, "TRY_CAST")) && call) return CastExpression();
    if (IsWord(token, "EXTRACT") && call) return ExtractExpression();
    if (IsWord(token, "POSITION") && call) return PositionExpression();
    if (IsWord(token, "EXISTS") && call && StartsQuery(pos_ + 1)) {
      return Unsupported(token, "EXISTS subqueries");
    }
    if (next.kind == TokenKind::kString) {
      if (IsWord(token, "DATE") || IsWord(token, "TIMESTAMP") || IsWord(token, "TIMESTAMP_LTZ") ||
          IsWord(token, "TIMESTAMP_NTZ") || IsWord(token, "X")) {
        return TypedLiteral();
      }
    }
    if (IsWord(token, "INTERVAL") &&
        (next.kind == TokenKind::kString || next.kind == TokenKind::kNumber ||
         IsSymbol(next, "-") || IsSymbol(next, "+"))) {
      return IntervalLiteral();
    }
    if (IsReserved(token) && !(call && FunctionKeywords().count(ToUpper(token.text)) > 0)) {
      return SyntaxError(token);
    }
    return NamePath();
  }

  // name(.name)* as a column, `name.*`, or a function call when `(` follows.
  arrow::Result<ExprPtr> NamePath() {
    std::vector<std::string> parts = {Next().value};
    while (IsSymbol(Peek(), ".") && IsName(Peek(1))) {
      Next();
      parts.push_back(Next().value);
    }
    if (IsSymbol(Peek(), ".") && IsSymbol(Peek(1), "*")) {
      Next();
      Next();
      return plan::Star(std::move(parts));
    }
    if (IsSymbol(Peek(), "(")) {
      std::string name;
      for (const auto& part : parts) name += (name.empty() ? "" : ".") + ToLower(part);
      return FunctionCall(name);
    }
    return plan::Column(std::move(parts));
  }

  // The number of variables of a lambda that starts here (`x ->`, `(x, y) ->`), or 0.
  size_t LambdaVariablesAhead() {
    if (IsName(Peek()) && IsSymbol(Peek(1), "->")) return 1;
    if (!IsSymbol(Peek(), "(")) return 0;
    size_t names = 0, at = 1;
    while (IsName(Peek(at))) {
      ++names;
      ++at;
      if (IsSymbol(Peek(at), ")")) return IsSymbol(Peek(at + 1), "->") ? names : 0;
      if (!IsSymbol(Peek(at), ",")) return 0;
      ++at;
    }
    return 0;
  }

  arrow::Result<ExprPtr> FunctionCall(const std::string& name) {
    Next();  // (
    std::vector<ExprPtr> args;
    std::vector<std::string> keywords;  // per argument: its keyword (f(v => x)), or empty
    bool distinct = false;
    // first/last/any_value take IGNORE NULLS as a second argument `true`, as Spark does.
    bool takes_ignore_nulls = name == "first" || name == "last" || name == "any_value";
    bool ignore_nulls = false;
    if (!IsSymbol(Peek(), ")")) {
      if (AcceptWord("DISTINCT")) {
        distinct = true;
      } else if (IsWord(Peek(), "ALL") && !IsSymbol(Peek(1), ")") && !IsSymbol(Peek(1), ",")) {
        Next();
      }
      if (name == "count" && IsSymbol(Peek(), "*") && IsSymbol(Peek(1), ")")) {
        Next();
        args.push_back(plan::Literal(std::make_shared<arrow::Int32Scalar>(1)));
      } else {
        bool substring = name == "substring" || name == "substr";
        do {
          // struct(a, b AS c) names its fields; other functions take plain expressions, or a
          // lambda `x -> ...`, `(x, i) -> ...` (a higher-order function's).
          ExprPtr arg;
          if (size_t names = LambdaVariablesAhead()) {
            std::vector<std::string> variables;
            const bool parenthesized = AcceptSymbol("(");
            for (size_t k = 0; k < names; ++k) {
              if (k > 0) Next();  // ,
              variables.push_back(Next().value);
            }
            if (parenthesized) Next();  // )
            Next();                     // ->
            ARROW_ASSIGN_OR_RAISE(auto body, Expression());
            arg = plan::Lambda(std::move(body), std::move(variables));
          } else {
            ARROW_ASSIGN_OR_RAISE(arg, name == "struct" ? NamedExpression() : Expression());
          }
          // f(v, w => x): an argument by keyword.
          std::string keyword;
          if (IsSymbol(Peek(), "=>")) {
            if (arg->kind != plan::ExprKind::kColumn || arg->name_parts.size() != 1) {
              return SyntaxError(Peek());
            }
            keyword = arg->name_parts[0];
            Next();
            ARROW_ASSIGN_OR_RAISE(arg, Expression());
          }
          keywords.push_back(std::move(keyword));
          args.push_back(std::move(arg));
          // SUBSTRING(s FROM p FOR n) is substring(s, p, n).
        } while (AcceptSymbol(",") || (substring && args.size() == 1 && AcceptWord("FROM")) ||
                 (substring && args.size() == 2 && AcceptWord("FOR")));
      }
      if (takes_ignore_nulls && IsWord(Peek(), "IGNORE") && IsWord(Peek(1), "NULLS")) {
        Next();
        Next();
        ignore_nulls = true;
      } else if (IsWord(Peek(), "RESPECT") && IsWord(Peek(1), "NULLS")) {
        Next();
        Next();
      }
    }
    ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
    if (IsWord(Peek(), "WITHIN") && IsWord(Peek(1), "GROUP")) {
      return Unsupported(Peek(), "WITHIN GROUP");
    }
    if (IsWord(Peek(), "FILTER") && IsSymbol(Peek(1), "(")) {
      return Unsupported(Peek(), "aggregate FILTER (WHERE ...)");
    }
    if ((IsWord(Peek(), "IGNORE") || IsWord(Peek(), "RESPECT")) && IsWord(Peek(1), "NULLS")) {
      if (!takes_ignore_nulls && !IsWord(Peek(2), "OVER")) return SyntaxError(Peek());
      ignore_nulls = ignore_nulls || IsWord(Peek(), "IGNORE");
      Next();
      Next();
    }
    if (ignore_nulls && (name == "lag" || name == "lead")) {
      // lag(v) IGNORE NULLS: the offset and default before the flag.
      if (args.size() < 2) args.push_back(plan::Literal(std::make_shared<arrow::Int32Scalar>(1)));
      if (args.size() < 3) args.push_back(plan::Literal(std::make_shared<arrow::NullScalar>()));
    }
    if (ignore_nulls) args.push_back(plan::Literal(std::make_shared<arrow::BooleanScalar>(true)));
    if (IsWord(Peek(), "OVER") &&
        std::all_of(keywords.begin(), keywords.end(), [](const auto& k) { return k.empty(); })) {
      Next();
      auto call = plan::Call(name, std::move(args), distinct);
      if (IsName(Peek()) && !IsSymbol(Peek(), "(")) {
        // OVER w: a window the query's WINDOW clause defines.
        auto named = std::make_shared<plan::Expr>(*plan::WindowExpr(
            call, {}, {}, std::make_shared<plan::WindowSpec>()));
        named->name = Next().value;
        named->window = nullptr;
        return ExprPtr(std::move(named));
      }
      ARROW_RETURN_NOT_OK(ExpectSymbol("("));
      ARROW_ASSIGN_OR_RAISE(auto window, WindowSpecification(call));
      ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
      return window;
    }
    if (IsWord(Peek(), "OVER")) return Unsupported(Peek(), "named arguments over a window");
    if (std::none_of(keywords.begin(), keywords.end(), [](const auto& k) { return !k.empty(); })) {
      return plan::Call(name, std::move(args), distinct);
    }
    auto call = std::make_shared<plan::Expr>(*plan::Call(name, std::move(args), distinct));
    call->keywords = std::move(keywords);
    return ExprPtr(std::move(call));
  }

  // Inside OVER ( ... ): [PARTITION BY e, ...] [ORDER BY sort items] [ROWS|RANGE frame].
  arrow::Result<ExprPtr> WindowSpecification(const ExprPtr& function) {
    std::vector<ExprPtr> partitions, orders;
    auto spec = std::make_shared<plan::WindowSpec>();
    if (IsWord(Peek(), "PARTITION") && IsWord(Peek(1), "BY")) {
      Next();
      Next();
      do {
        ARROW_ASSIGN_OR_RAISE(auto e, Expression());
        partitions.push_back(std::move(e));
      } while (AcceptSymbol(","));
    }
    if (IsWord(Peek(), "ORDER") && IsWord(Peek(1), "BY")) {
      Next();
      Next();
      ARROW_ASSIGN_OR_RAISE(orders, SortItems());
    }
    if (IsWord(Peek(), "ROWS") || IsWord(Peek(), "RANGE")) {
      spec->frame_specified = true;
      spec->frame.rows = IsWord(Next(), "ROWS");
      if (AcceptWord("BETWEEN")) {
        ARROW_ASSIGN_OR_RAISE(spec->frame.lower, FrameBound());
        ARROW_RETURN_NOT_OK(ExpectWord("AND"));
        ARROW_ASSIGN_OR_RAISE(spec->frame.upper, FrameBound());
      } else {
        ARROW_ASSIGN_OR_RAISE(spec->frame.lower, FrameBound());
        spec->frame.upper = 0;
      }
    }
    if (!IsSymbol(Peek(), ")")) return Unsupported(Peek(), "this window specification");
    return plan::WindowExpr(function, std::move(partitions), std::move(orders), std::move(spec));
  }

  // UNBOUNDED PRECEDING|FOLLOWING, CURRENT ROW, n PRECEDING|FOLLOWING: an offset in rows.
  arrow::Result<int64_t> FrameBound() {
    if (AcceptWord("UNBOUNDED")) {
      if (AcceptWord("PRECEDING")) return plan::WindowFrame::kUnboundedPreceding;
      ARROW_RETURN_NOT_OK(ExpectWord("FOLLOWING"));
      return plan::WindowFrame::kUnboundedFollowing;
    }
    if (AcceptWord("CURRENT")) {
      ARROW_RETURN_NOT_OK(ExpectWord("ROW"));
      return 0;
    }
    if (Peek().kind != TokenKind::kNumber || !IsPlainNumber(Peek().text)) {
      return Unsupported(Peek(), "a window frame bound other than an integer");
    }
    const int64_t n = std::stoll(Next().text);
    if (AcceptWord("PRECEDING")) return -n;
    ARROW_RETURN_NOT_OK(ExpectWord("FOLLOWING"));
    return n;
  }

  // WINDOW w AS (spec), ...: each `OVER w` of the select list gets its specification.
  arrow::Status WindowClause(plan::SelectBlock* block) {
    std::map<std::string, ExprPtr> windows;
    const bool clause = IsWord(Peek(), "WINDOW") && IsName(Peek(1));
    if (clause) Next();
    while (clause) {
      const std::string name = ToLower(Next().value);
      ARROW_RETURN_NOT_OK(ExpectWord("AS"));
      ARROW_RETURN_NOT_OK(ExpectSymbol("("));
      ARROW_ASSIGN_OR_RAISE(windows[name], WindowSpecification(nullptr));
      ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
      if (!AcceptSymbol(",")) break;
    }
    std::function<arrow::Result<ExprPtr>(const ExprPtr&)> bind =
        [&](const ExprPtr& e) -> arrow::Result<ExprPtr> {
      if (e->kind == plan::ExprKind::kWindow && !e->window) {
        auto it = windows.find(ToLower(e->name));
        if (it == windows.end()) {
          return UserError(ErrorKind::kParse, "MISSING_WINDOW_SPECIFICATION",
                           "Window specification " + e->name +
                               " is not defined in the WINDOW clause for " + e->name +
                               ". For more information about WINDOW clauses, please refer to "
                               "'https://spark.apache.org/docs/latest/sql-ref-syntax-qry-select-window.html'.",
                           "42P20");
        }
        auto out = std::make_shared<plan::Expr>(*it->second);
        out->args[0] = e->args[0];
        return ExprPtr(std::move(out));
      }
      if (e->args.empty()) return e;
      auto out = std::make_shared<plan::Expr>(*e);
      for (auto& arg : out->args) {
        ARROW_ASSIGN_OR_RAISE(arg, bind(arg));
      }
      return ExprPtr(std::move(out));
    };
    for (auto& item : block->select_list) {
      ARROW_ASSIGN_OR_RAISE(item, bind(item));
    }
    return arrow::Status::OK();
  }

  // CASE [operand] WHEN c THEN v ... [ELSE e] END
  arrow::Result<ExprPtr> CaseExpression() {
    Next();  // CASE
    ExprPtr operand;
    if (!IsWord(Peek(), "WHEN")) {
      ARROW_ASSIGN_OR_RAISE(operand, Expression());
    }
    if (!IsWord(Peek(), "WHEN")) return SyntaxError(Peek());
    std::vector<ExprPtr> args;
    while (AcceptWord("WHEN")) {
      ARROW_ASSIGN_OR_RAISE(auto condition, Expression());
      ARROW_RETURN_NOT_OK(ExpectWord("THEN"));
      ARROW_ASSIGN_OR_RAISE(auto value, Expression());
      args.push_back(operand ? plan::Call("=", {operand, condition}) : condition);
      args.push_back(std::move(value));
    }
    if (AcceptWord("ELSE")) {
      ARROW_ASSIGN_OR_RAISE(auto otherwise, Expression());
      args.push_back(std::move(otherwise));
    }
    ARROW_RETURN_NOT_OK(ExpectWord("END"));
    return plan::Call("when", std::move(args));
  }

  // CAST(x AS type) and TRY_CAST(x AS type); the type text runs to the matching `)`.
  arrow::Result<ExprPtr> CastExpression() {
    bool try_cast = IsWord(Next(), "TRY_CAST");
    Next();  // (
    ARROW_ASSIGN_OR_RAISE(auto value, Expression());
    ARROW_RETURN_NOT_OK(ExpectWord("AS"));
    const Token& type_start = Peek();
    if (type_start.kind != TokenKind::kWord) return SyntaxError(type_start);
    int depth = 0;
    while (Peek().kind != TokenKind::kEnd && !(depth == 0 && IsSymbol(Peek(), ")"))) {
      if (IsSymbol(Peek(), "(")) ++depth;
      if (IsSymbol(Peek(), ")")) --depth;
      Next();
    }
    size_t end = Peek().offset;
    while (end > type_start.offset && std::isspace(static_cast<unsigned char>(text_[end - 1]))) {
      --end;
    }
    ARROW_ASSIGN_OR_RAISE(auto type, TypeFromText(type_start, end));
    ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
    return plan::Cast(value, type, try_cast);
  }

  // EXTRACT(field FROM source) is the function of that field.
  arrow::Result<ExprPtr> ExtractExpression() {
    Next();  // EXTRACT
    Next();  // (
    const Token& field = Peek();
    if (!IsName(field)) return SyntaxError(field);
    Next();
    ARROW_RETURN_NOT_OK(ExpectWord("FROM"));
    ARROW_ASSIGN_OR_RAISE(auto source, ValueExpression());
    ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
    const char* function = plan::ExtractFunction(field.value);
    if (!function) {
      return Fail(field, UserError(ErrorKind::kParse, "INVALID_EXTRACT_FIELD",
                                   "Cannot extract `" + field.value + "` from \"" +
                                       plan::DisplayName(*source) + "\".",
                                   "42601"));
    }
    return plan::Call(function, {source});
  }

  // POSITION(substr IN str) is position(substr, str); the comma form is a plain call.
  arrow::Result<ExprPtr> PositionExpression() {
    size_t start = pos_;
    Next();  // POSITION
    Next();  // (
    ARROW_ASSIGN_OR_RAISE(auto needle, ValueExpression());
    if (!AcceptWord("IN")) {
      pos_ = start;
      Next();
      return FunctionCall("position");
    }
    ARROW_ASSIGN_OR_RAISE(auto haystack, ValueExpression());
    ARROW_RETURN_NOT_OK(ExpectSymbol(")"));
    return plan::Call("position", {needle, haystack});
  }

  // DATE '...', TIMESTAMP '...', TIMESTAMP_NTZ '...', X'hex'.
  arrow::Result<ExprPtr> TypedLiteral() {
    const Token& type = Next();
    const Token& literal = Next();
    if (IsWord(type, "X")) {
      const std::string& hex = literal.value;
      std::string bytes;
      bool valid = true;
      // An odd count of digits gets a leading zero, as in Spark.
      std::string digits = hex.size() % 2 == 1 ? "0" + hex : hex;
      for (size_t i = 0; valid && i < digits.size(); i += 2) {
        int high = HexDigit(digits[i]), low = HexDigit(digits[i + 1]);
        valid = high >= 0 && low >= 0;
        bytes += static_cast<char>(high * 16 + low);
      }
      if (!valid) {
        return Fail(
            type,
            UserError(ErrorKind::kParse, "INVALID_TYPED_LITERAL",
                      "The value of the typed literal \"X\" is invalid: '" + hex + "'.", "42604"));
      }
      return plan::Literal(std::make_shared<arrow::BinaryScalar>(std::move(bytes)));
    }
    std::shared_ptr<arrow::DataType> target;
    if (IsWord(type, "DATE")) {
      target = arrow::date32();
    } else if (IsWord(type, "TIMESTAMP_NTZ")) {
      target = arrow::timestamp(arrow::TimeUnit::MICRO);
    } else {
      target = plan::TimestampType();
    }
    // The text is read in the session's zone, by the analyzer: a cast marked as a literal.
    auto cast = std::make_shared<plan::Expr>(*plan::Cast(StringLiteral(literal.value), target));
    cast->typed_literal = true;
    return cast;
  }

  static int HexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // INTERVAL '1 day' | INTERVAL [-]v unit [[-]v unit ...] | INTERVAL 'v' unit TO unit, as
  // interval('<v> <unit>s ...'), the form Spark's interval strings take.
  arrow::Result<ExprPtr> IntervalLiteral() {
    Next();  // INTERVAL
    std::string result;
    bool first = true;
    while (true) {
      size_t start = pos_;
      bool negate = false;
      if (IsSymbol(Peek(), "-") || IsSymbol(Peek(), "+")) negate = IsSymbol(Next(), "-");
      const Token& value = Peek();
      bool is_value = value.kind == TokenKind::kString ||
                      (value.kind == TokenKind::kNumber && IsIntervalNumber(value.text));
      const char* unit = is_value ? IntervalUnit(Peek(1).text) : nullptr;
      if (Peek(1).kind != TokenKind::kWord) unit = nullptr;
      if (!first && unit == nullptr) {
        pos_ = start;  // not another part: the interval ended before it
        break;
      }
      if (!is_value) return SyntaxError(value);
      Next();
      if (first && unit == nullptr && value.kind == TokenKind::kString) {
        // A whole interval string such as '1 day 2 hours'.
        auto interval = plan::Call("interval", {StringLiteral(value.value)});
        return negate ? plan::Call("negative", {interval}) : interval;
      }
      if (unit == nullptr) return SyntaxError(Peek());
      const Token& unit_token = Next();
      if (IsWord(Peek(), "TO")) {
        if (!first) return SyntaxError(Peek());
        Next();
        const Token& to_token = Peek();
        if (to_token.kind != TokenKind::kWord) return SyntaxError(to_token);
        Next();
        ARROW_ASSIGN_OR_RAISE(result, UnitToUnit(value, negate, unit_token, to_token));
        break;
      }
      std::string text = value.kind == TokenKind::kString ? value.value : value.text;
      while (!text.empty() && text.front() == ' ') text.erase(0, 1);
      while (!text.empty() && text.back() == ' ') text.pop_back();
      if (!IsIntervalNumber(text)) return SyntaxError(value, ": invalid interval value");
      result += (first ? "" : " ") + IntervalPart(text, negate, unit);
      first = false;
    }
    return plan::Call("interval", {StringLiteral(result)});
  }

  // 'y-m' YEAR TO MONTH, 'd h:m:s' DAY TO SECOND and the like, one part per unit.
  arrow::Result<std::string> UnitToUnit(const Token& value, bool negate, const Token& from_token,
                                        const Token& to_token) {
    static const char* kLadder[] = {"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"};
    auto index = [&](const Token& t) {
      std::string upper = ToUpper(t.text);
      for (int i = 0; i < 6; ++i) {
        if (upper == kLadder[i]) return i;
      }
      return -1;
    };
    int from = index(from_token), to = index(to_token);
    bool year_month = from >= 0 && from < 2;
    if (from < 0 || to <= from || (year_month != (to < 2))) return SyntaxError(to_token);
    if (value.kind != TokenKind::kString) return SyntaxError(value);
    std::string text = value.value;
    while (!text.empty() && text.front() == ' ') text.erase(0, 1);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
      negate = negate != (text[0] == '-');
      text.erase(0, 1);
    }
    std::vector<std::string> fields(1);
    for (char c : text) {
      bool separator = year_month ? c == '-' : (c == ' ' || c == ':');
      if (separator) {
        fields.emplace_back();
      } else {
        fields.back() += c;
      }
    }
    if (static_cast<int>(fields.size()) != to - from + 1) {
      return SyntaxError(value, ": invalid interval value");
    }
    std::string result;
    for (int i = from; i <= to; ++i) {
      const std::string& field = fields[i - from];
      bool fraction_allowed = i == 5;
      if (!IsIntervalNumber(field) || field[0] == '-' || field[0] == '+' ||
          (!fraction_allowed && field.find('.') != std::string::npos)) {
        return SyntaxError(value, ": invalid interval value");
      }
      result += (result.empty() ? "" : " ") + IntervalPart(field, negate, kLadder[i]);
    }
    return result;
  }

  const std::string& text_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;  // the nesting cost of the rules being parsed, see Nesting
  std::vector<std::map<std::string, CteDefinition>> ctes_;  // by lower-case name, innermost last
  arrow::Status deferred_;  // the first error of a well-formed statement, see Defer
};

}  // namespace

arrow::Result<Statement> ParseStatement(const std::string& sql) {
  ARROW_ASSIGN_OR_RAISE(auto tokens, Tokenize(sql));
  return Parser(sql, std::move(tokens)).SingleStatement();
}

arrow::Result<plan::PlanPtr> ParseQuery(const std::string& sql) {
  ARROW_ASSIGN_OR_RAISE(auto tokens, Tokenize(sql));
  return Parser(sql, std::move(tokens)).SingleQuery();
}

arrow::Result<plan::ExprPtr> ParseExpression(const std::string& text) {
  ARROW_ASSIGN_OR_RAISE(auto tokens, Tokenize(text));
  return Parser(text, std::move(tokens)).SingleExpression();
}

}  // namespace ember::sql
