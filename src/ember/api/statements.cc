// SQL statements other than queries: namespaces and tables in Iceberg catalogs, INSERT, SET;
// MERGE, UPDATE and DELETE are in row_level.cc.
#include <arrow/builder.h>
#include <arrow/table.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>

#include "ember/api/session_catalog.h"
#include "ember/error.h"
#include "ember/iceberg/catalog.h"
#include "ember/iceberg/table.h"
#include "ember/plan/analyzer.h"
#include "ember/plan/functions.h"
#include "ember/plan/type_names.h"
#include "ember/session.h"
#include "ember/sql/parser.h"

namespace ember {

using arrow::Result;
using arrow::Status;

namespace {

std::string Joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ".") + p;
  return out;
}

// A table of string columns, as SHOW and DESCRIBE return.
Result<std::shared_ptr<arrow::Table>> StringTable(const std::vector<std::string>& names,
                                                  const std::vector<std::vector<std::string>>& rows) {
  arrow::FieldVector fields;
  arrow::ArrayVector columns;
  for (size_t c = 0; c < names.size(); ++c) {
    arrow::StringBuilder builder;
    for (const auto& row : rows) ARROW_RETURN_NOT_OK(builder.Append(row[c]));
    std::shared_ptr<arrow::Array> column;
    ARROW_RETURN_NOT_OK(builder.Finish(&column));
    fields.push_back(arrow::field(names[c], arrow::utf8(), false));
    columns.push_back(column);
  }
  return arrow::Table::Make(arrow::schema(fields), columns,
                            static_cast<int64_t>(rows.size()));
}

// Spark's pattern of SHOW ... LIKE: alternatives separated by `|`, each matched against the
// whole name without regard to case, `*` standing for any characters and `.` for one.
bool MatchesShowPattern(const std::string& name, const std::string& pattern) {
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  // Matches name[i..] against alternative[j..]; `*` retries from every later position.
  std::function<bool(const std::string&, size_t, size_t)> match =
      [&](const std::string& alt, size_t i, size_t j) -> bool {
    if (j == alt.size()) return i == name.size();
    if (alt[j] == '*') {
      for (size_t k = i; k <= name.size(); ++k) {
        if (match(alt, k, j + 1)) return true;
      }
      return false;
    }
    if (i == name.size()) return false;
    return (alt[j] == '.' || lower(alt[j]) == lower(name[i])) && match(alt, i + 1, j + 1);
  };
  size_t start = 0;
  while (start <= pattern.size()) {
    size_t bar = pattern.find('|', start);
    if (bar == std::string::npos) bar = pattern.size();
    std::string alt = pattern.substr(start, bar - start);
    alt.erase(0, alt.find_first_not_of(' '));
    alt.erase(alt.find_last_not_of(' ') + 1);
    if (match(alt, 0, 0)) return true;
    start = bar + 1;
  }
  return false;
}

Result<DataFrame> Empty(Session& session) {
  return session.FromArrow(arrow::Table::Make(arrow::schema({}), arrow::ArrayVector{}, 0));
}

Status Unsupported(const std::string& what) {
  return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                   "The feature is not supported: " + what + " in Ember yet.", "0A000");
}

// Spark's Iceberg tables have no tinyint or smallint: they are stored as int.
std::shared_ptr<arrow::Schema> IcebergColumns(const arrow::Schema& schema) {
  arrow::FieldVector fields;
  for (const auto& f : schema.fields()) {
    auto id = f->type()->id();
    bool small = id == arrow::Type::INT8 || id == arrow::Type::INT16;
    fields.push_back(arrow::field(f->name(), small ? arrow::int32() : f->type(), f->nullable()));
  }
  return arrow::schema(fields);
}

// The rows of VALUES (...), (...) as a DataFrame, one literal row at a time.
Result<DataFrame> ValuesFrame(Session& session, const std::vector<std::vector<plan::ExprPtr>>& rows) {
  auto analyzer = session.analyzer();
  ARROW_ASSIGN_OR_RAISE(auto one_row, session.Sql("SELECT 1"));
  std::shared_ptr<const plan::LogicalPlan> all;
  for (const auto& row : rows) {
    std::vector<plan::ExprPtr> named;
    for (size_t i = 0; i < row.size(); ++i) named.push_back(plan::Alias(row[i], "col" + std::to_string(i + 1)));
    ARROW_ASSIGN_OR_RAISE(auto projected, analyzer.Project(one_row.plan(), named));
    if (all) {
      ARROW_ASSIGN_OR_RAISE(all, analyzer.Union(all, projected, false, false));
    } else {
      all = projected;
    }
  }
  return DataFrame(session.shared_from_this(), all);
}

std::string Quoted(const std::vector<std::string>& parts) {
  std::string shown;
  for (const auto& p : parts) shown += (shown.empty() ? "`" : ".`") + p + "`";
  return shown;
}

// DROP TABLE or DROP VIEW of a name in no Iceberg catalog: Spark drops a temporary view by
// either statement, a session-catalog table by DROP TABLE (a managed table's data with it), and
// IF EXISTS makes a missing name a no-op.
Result<DataFrame> DropInSessionCatalog(Session& session, const sql::Statement& st) {
  if (st.name.size() == 1 && session.DropTempView(st.name[0])) return Empty(session);
  ARROW_ASSIGN_OR_RAISE(auto ident, session.SessionTableName(st.name));
  if (st.kind == sql::StatementKind::kDropTable) {
    ARROW_ASSIGN_OR_RAISE(auto catalog, session.session_catalog(false));
    if (catalog) {
      ARROW_ASSIGN_OR_RAISE(bool dropped, catalog->DropTable(ident.first, ident.second));
      if (dropped) return Empty(session);
    }
  }
  if (st.if_exists) return Empty(session);
  return TableOrViewNotFound({"spark_catalog", ident.first, ident.second});
}

// CREATE TABLE ... USING parquet|json|csv|text [PARTITIONED BY] [LOCATION] [AS query] in the
// session catalog: managed under the warehouse, or external at LOCATION.
Result<DataFrame> CreateSessionTable(Session& session, const sql::Statement& st) {
  if (st.kind == sql::StatementKind::kReplaceTable) {
    return Unsupported("REPLACE TABLE in the session catalog");
  }
  ARROW_ASSIGN_OR_RAISE(auto ident, session.SessionTableName(st.name));
  std::string provider = st.provider.empty()
                             ? session.GetConf("spark.sql.sources.default", "parquet")
                             : st.provider;
  std::transform(provider.begin(), provider.end(), provider.begin(), ::tolower);
  ARROW_RETURN_NOT_OK(CheckSessionTableFormat(provider));
  std::vector<std::string> partition_columns;
  for (const auto& term : st.partitioning) {
    if (term.transform != "identity") {
      return Unsupported("partition transform " + term.transform + " on a " + provider + " table");
    }
    partition_columns.push_back(term.column);
  }
  std::optional<DataFrame> source;
  std::shared_ptr<arrow::Schema> columns = st.schema;
  if (st.query) {
    ARROW_ASSIGN_OR_RAISE(auto plan, session.analyzer().Resolve(st.query));
    source = DataFrame(session.shared_from_this(), plan);
    if (!columns) columns = source->schema();
  }
  ARROW_ASSIGN_OR_RAISE(auto catalog, session.session_catalog(true));
  ARROW_ASSIGN_OR_RAISE(auto existing, catalog->GetTable(ident.first, ident.second));
  if (existing && st.if_not_exists) return Empty(session);
  SessionTable table;
  table.database = ident.first;
  table.name = ident.second;
  table.provider = provider;
  table.managed = !st.location;
  if (st.location) {
    table.location = std::filesystem::absolute(*st.location).lexically_normal().string();
  } else {
    ARROW_ASSIGN_OR_RAISE(table.location, catalog->DefaultLocation(ident.first, ident.second));
  }
  table.partition_columns = partition_columns;
  ARROW_ASSIGN_OR_RAISE(table.schema, SessionTableColumns(*columns, partition_columns));
  ARROW_RETURN_NOT_OK(catalog->CreateTable(table));
  if (source) {
    // The query's columns by name, in the table's order (partition columns last).
    std::vector<Column> ordered;
    for (const auto& f : table.schema->fields()) {
      ARROW_ASSIGN_OR_RAISE(auto column, (*source)[f->name()]);
      ordered.push_back(column);
    }
    ARROW_ASSIGN_OR_RAISE(auto rows, source->Select(ordered));
    ARROW_RETURN_NOT_OK(session.WriteSessionTable(table, rows, false));
  }
  return Empty(session);
}

}  // namespace

// Row-level statements on Iceberg tables, in row_level.cc.
Result<DataFrame> ExecuteMerge(Session& session, const sql::Statement& statement);
Result<DataFrame> ExecuteUpdateOrDelete(Session& session, const sql::Statement& statement);
// CALL of Iceberg's maintenance procedures, in procedures.cc.
Result<DataFrame> ExecuteCall(Session& session, const sql::Statement& statement);

Result<DataFrame> ExecuteStatement(Session& session, const sql::Statement& st) {
  using sql::StatementKind;
  switch (st.kind) {
    case StatementKind::kQuery: {
      ARROW_ASSIGN_OR_RAISE(auto plan, session.analyzer().Resolve(st.query));
      return DataFrame(session.shared_from_this(), plan);
    }
    case StatementKind::kCreateNamespace:
    case StatementKind::kDropNamespace: {
      ARROW_ASSIGN_OR_RAISE(bool in_iceberg, session.InIcebergCatalog(st.name));
      if (!in_iceberg && st.kind == StatementKind::kCreateNamespace) {
        std::vector<std::string> name = st.name;
        if (name.size() == 2 && name[0] == "spark_catalog") name.erase(name.begin());
        if (name.size() != 1) return Unsupported("nested databases in the session catalog");
        std::string database = name[0];
        std::transform(database.begin(), database.end(), database.begin(), ::tolower);
        ARROW_ASSIGN_OR_RAISE(auto catalog, session.session_catalog(true));
        ARROW_RETURN_NOT_OK(catalog->CreateDatabase(database, st.if_not_exists));
        return Empty(session);
      }
      ARROW_ASSIGN_OR_RAISE(auto resolved, session.ResolveTableName(st.name));
      auto [catalog, ns] = resolved;
      if (st.kind == StatementKind::kCreateNamespace) {
        ARROW_RETURN_NOT_OK(catalog->CreateNamespace(ns, st.if_not_exists));
      } else {
        if (st.cascade) {
          ARROW_ASSIGN_OR_RAISE(auto tables, catalog->ListTables(ns));
          for (const auto& table : tables) {
            auto ident = ns;
            ident.push_back(table);
            ARROW_RETURN_NOT_OK(catalog->DropTable(ident, true).status());
          }
        }
        ARROW_RETURN_NOT_OK(catalog->DropNamespace(ns, st.if_exists));
      }
      return Empty(session);
    }
    case StatementKind::kCreateTable:
    case StatementKind::kReplaceTable: {
      ARROW_ASSIGN_OR_RAISE(bool in_iceberg, session.InIcebergCatalog(st.name));
      if (!in_iceberg) return CreateSessionTable(session, st);
      std::string provider = st.provider;
      std::transform(provider.begin(), provider.end(), provider.begin(), ::tolower);
      if (!provider.empty() && provider != "iceberg") {
        return Unsupported("tables USING " + st.provider + " (Ember's tables are Iceberg tables)");
      }
      ARROW_ASSIGN_OR_RAISE(auto resolved, session.ResolveTableName(st.name));
      auto [catalog, ident] = resolved;
      std::optional<DataFrame> source;
      std::shared_ptr<arrow::Schema> schema = st.schema;
      if (st.query) {
        ARROW_ASSIGN_OR_RAISE(auto plan, session.analyzer().Resolve(st.query));
        source = DataFrame(session.shared_from_this(), plan);
        if (!schema) schema = source->schema();
      }
      ARROW_ASSIGN_OR_RAISE(bool exists, catalog->TableExists(ident));
      if (st.kind == StatementKind::kReplaceTable) {
        if (!st.or_create && !exists) return TableOrViewNotFound(st.name);
        ARROW_RETURN_NOT_OK(catalog->DropTable(ident, false).status());
      } else if (st.if_not_exists && exists) {
        return Empty(session);
      }
      ARROW_RETURN_NOT_OK(catalog->CreateTable(ident, *IcebergColumns(*schema), st.properties,
                                               st.if_not_exists, st.partitioning));
      if (source) ARROW_RETURN_NOT_OK(session.WriteTable(Joined(st.name), *source, "append"));
      return Empty(session);
    }
    case StatementKind::kDropView:
      return DropInSessionCatalog(session, st);
    case StatementKind::kCreateTempView: {
      if (st.name.size() != 1) {
        return UserError(ErrorKind::kAnalysis, "TEMP_VIEW_NAME_TOO_MANY_NAME_PARTS",
                         "CREATE TEMPORARY VIEW or the corresponding Dataset APIs only accept "
                         "single-part view names, but got: " + Joined(st.name) + ".",
                         "428EK");
      }
      ARROW_ASSIGN_OR_RAISE(auto plan, session.analyzer().Resolve(st.query));
      ARROW_RETURN_NOT_OK(session.CreateTempView(
          st.name[0], DataFrame(session.shared_from_this(), plan), st.or_create));
      return Empty(session);
    }
    case StatementKind::kDropTable: {
      // A temporary view shadows a table of the same name, as in Spark.
      if (st.name.size() == 1 && session.DropTempView(st.name[0])) return Empty(session);
      ARROW_ASSIGN_OR_RAISE(bool in_iceberg, session.InIcebergCatalog(st.name));
      if (!in_iceberg) return DropInSessionCatalog(session, st);
      ARROW_ASSIGN_OR_RAISE(auto resolved, session.ResolveTableName(st.name));
      ARROW_ASSIGN_OR_RAISE(bool dropped, resolved.first->DropTable(resolved.second, st.purge));
      if (!dropped && !st.if_exists) {
        return TableOrViewNotFound(st.name);
      }
      return Empty(session);
    }
    case StatementKind::kShowNamespaces: {
      std::vector<std::string> target = st.name;
      if (target.empty()) {
        auto current = session.GetConf("spark.sql.defaultCatalog");
        if (current) target = {*current};
      }
      // `IN catalog[.ns]`, or a namespace of the current catalog.
      std::pair<iceberg::Catalog*, std::vector<std::string>> resolved{nullptr, {}};
      if (!target.empty()) {
        ARROW_ASSIGN_OR_RAISE(resolved.first, session.IcebergCatalog(target[0]));
        if (resolved.first) resolved.second.assign(target.begin() + 1, target.end());
      }
      if (!resolved.first) {
        ARROW_ASSIGN_OR_RAISE(resolved, session.ResolveTableName(target.empty() ? std::vector<std::string>{"?"} : target));
      }
      std::vector<std::vector<std::string>> rows;
      ARROW_ASSIGN_OR_RAISE(auto namespaces, resolved.first->ListNamespaces(resolved.second));
      for (const auto& ns : namespaces) {
        if (!st.pattern || MatchesShowPattern(ns, *st.pattern)) rows.push_back({ns});
      }
      ARROW_ASSIGN_OR_RAISE(auto table, StringTable({"namespace"}, rows));
      return session.FromArrow(table);
    }
    case StatementKind::kShowTables: {
      std::vector<std::vector<std::string>> rows;
      // The session catalog's tables: of the current database, or of `IN db`.
      std::optional<std::string> database;
      if (st.name.empty() && !session.GetConf("spark.sql.defaultCatalog")) {
        database = session.current_database();
      } else if (!st.name.empty()) {
        auto in = st.name;
        in.push_back("?");
        ARROW_ASSIGN_OR_RAISE(bool in_iceberg, session.InIcebergCatalog(in));
        if (!in_iceberg) {
          ARROW_ASSIGN_OR_RAISE(auto ident, session.SessionTableName(in));
          database = ident.first;
        }
      }
      if (database) {
        ARROW_ASSIGN_OR_RAISE(auto catalog, session.session_catalog(false));
        if (catalog) {
          ARROW_ASSIGN_OR_RAISE(auto tables, catalog->ListTables(*database));
          for (const auto& t : tables) rows.push_back({*database, t, "false"});
        }
      } else if (!st.name.empty()) {
        ARROW_ASSIGN_OR_RAISE(auto resolved, session.ResolveTableName(st.name));
        ARROW_ASSIGN_OR_RAISE(auto tables, resolved.first->ListTables(resolved.second));
        for (const auto& t : tables) {
          rows.push_back({Joined(resolved.second), t, "false"});
        }
      }
      for (const auto& view : session.TempViewNames()) rows.push_back({"", view, "true"});
      if (st.pattern) {
        std::erase_if(rows, [&](const auto& row) { return !MatchesShowPattern(row[1], *st.pattern); });
      }
      ARROW_ASSIGN_OR_RAISE(auto table, StringTable({"namespace", "tableName", "isTemporary"}, rows));
      // isTemporary is a boolean in Spark.
      ARROW_ASSIGN_OR_RAISE(auto df, session.FromArrow(table));
      return df.Select({Col("namespace"), Col("tableName"),
                        Col("isTemporary").Cast(arrow::boolean()).Alias("isTemporary")});
    }
    case StatementKind::kShowFunctions: {
      // Spark's list: the built-in functions (operators too), then the session's own, sorted.
      std::vector<std::string> names;
      if (st.function_scope != "USER") names = plan::FunctionNames();
      if (st.function_scope != "SYSTEM") {
        for (auto& name : session.UserFunctionNames()) names.push_back(std::move(name));
      }
      std::sort(names.begin(), names.end());
      names.erase(std::unique(names.begin(), names.end()), names.end());
      std::vector<std::vector<std::string>> rows;
      for (const auto& name : names) {
        if (!st.pattern || MatchesShowPattern(name, *st.pattern)) rows.push_back({name});
      }
      ARROW_ASSIGN_OR_RAISE(auto table, StringTable({"function"}, rows));
      return session.FromArrow(table);
    }
    case StatementKind::kDescribeTable: {
      ARROW_ASSIGN_OR_RAISE(auto df, session.Table(Joined(st.name)));
      std::vector<std::vector<std::string>> rows;
      auto schema = df.schema();
      for (const auto& f : schema->fields()) {
        rows.push_back({f->name(), plan::SparkTypeName(*f->type()), ""});
      }
      ARROW_ASSIGN_OR_RAISE(auto table, StringTable({"col_name", "data_type", "comment"}, rows));
      return session.FromArrow(table);
    }
    case StatementKind::kInsert: {
      // The table's name as Spark's errors show it.
      ARROW_ASSIGN_OR_RAISE(bool in_iceberg, session.InIcebergCatalog(st.name));
      std::string shown = "`" + Joined(st.name) + "`";
      auto ident = session.SessionTableName(st.name);
      if (!in_iceberg && ident.ok()) shown = Quoted({"spark_catalog", ident->first, ident->second});
      ARROW_ASSIGN_OR_RAISE(auto target, session.Table(Joined(st.name)));
      DataFrame source = target;
      if (st.query) {
        ARROW_ASSIGN_OR_RAISE(auto plan, session.analyzer().Resolve(st.query));
        source = DataFrame(session.shared_from_this(), plan);
      } else {
        ARROW_ASSIGN_OR_RAISE(source, ValuesFrame(session, st.rows));
      }
      // Columns by position (or by the listed names), as Spark's INSERT INTO.
      std::vector<std::string> columns = st.insert_columns;
      auto target_schema = target.schema();
      if (columns.empty() && !st.by_name) {
        for (const auto& f : target_schema->fields()) columns.push_back(f->name());
      }
      auto source_schema = source.schema();
      if (!st.by_name) {
        if (columns.size() != static_cast<size_t>(source_schema->num_fields())) {
          return UserError(ErrorKind::kAnalysis, "INSERT_COLUMN_ARITY_MISMATCH.NOT_ENOUGH_DATA_COLUMNS",
                           "Cannot write to " + shown + ", the reason is not enough data "
                           "columns:\nTable columns: " + std::to_string(columns.size()) +
                               ".\nData columns: " + std::to_string(source_schema->num_fields()) + ".",
                           "21S01");
        }
        std::vector<Column> renamed;
        for (int i = 0; i < source_schema->num_fields(); ++i) {
          ARROW_ASSIGN_OR_RAISE(auto column, source[source_schema->field(i)->name()]);
          renamed.push_back(column.Alias(columns[static_cast<size_t>(i)]));
        }
        ARROW_ASSIGN_OR_RAISE(source, source.Select(renamed));
      }
      ARROW_RETURN_NOT_OK(session.InsertInto(Joined(st.name), source, st.overwrite));
      return Empty(session);
    }
    case StatementKind::kSet: {
      if (st.value) {
        session.SetConf(st.key, *st.value);
        ARROW_ASSIGN_OR_RAISE(auto table, StringTable({"key", "value"}, {{st.key, *st.value}}));
        return session.FromArrow(table);
      }
      std::vector<std::vector<std::string>> rows;
      for (const auto& [k, v] : session.AllConf()) {
        if (st.key.empty() || k == st.key) rows.push_back({k, v});
      }
      if (!st.key.empty() && rows.empty()) rows.push_back({st.key, "<undefined>"});
      ARROW_ASSIGN_OR_RAISE(auto table, StringTable({"key", "value"}, rows));
      return session.FromArrow(table);
    }
    case StatementKind::kUse:
      if (st.name.size() == 1) {
        ARROW_ASSIGN_OR_RAISE(auto catalog, session.IcebergCatalog(st.name[0]));
        if (catalog) {
          session.SetConf("spark.sql.defaultCatalog", st.name[0]);
          return Empty(session);
        }
      }
      {
        auto name = st.name;
        name.push_back("?");  // a table's name, to take its database
        ARROW_ASSIGN_OR_RAISE(auto ident, session.SessionTableName(name));
        ARROW_ASSIGN_OR_RAISE(auto catalog, session.session_catalog(false));
        bool exists = ident.first == "default";
        if (!exists && catalog) {
          ARROW_ASSIGN_OR_RAISE(exists, catalog->DatabaseExists(ident.first));
        }
        if (!exists) {
          return SessionSchemaNotFound(ident.first);
        }
        session.set_current_database(ident.first);
        return Empty(session);
      }
    case StatementKind::kMerge:
      return ExecuteMerge(session, st);
    case StatementKind::kUpdate:
    case StatementKind::kDelete:
      return ExecuteUpdateOrDelete(session, st);
    case StatementKind::kCall:
      return ExecuteCall(session, st);
  }
  return Unsupported("this statement");
}

}  // namespace ember
