#include "ember/session.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>

#include <arrow/array/builder_primitive.h>
#include <arrow/table.h>
#include <arrow/type.h>

#include "ember/api/session_catalog.h"
#include "ember/error.h"
#include "ember/exec/executor.h"
#include "ember/iceberg/catalog.h"
#include "ember/iceberg/inspect.h"
#include "ember/iceberg/schema.h"
#include "ember/iceberg/table.h"
#include "ember/exec/kernels.h"
#include "ember/io/file_reader.h"
#include "ember/plan/analyzer.h"
#include "ember/plan/functions.h"
#include "ember/plan/type_names.h"
#include "ember/sql/parser.h"
#include "ember/user_function.h"

namespace ember {

using arrow::Result;

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), ::tolower);
  return s;
}

std::string Quoted(const std::vector<std::string>& parts) {
  std::string shown;
  for (const auto& p : parts) shown += (shown.empty() ? "`" : ".`") + p + "`";
  return shown;
}

// The session-catalog table a name means, if any; deeper names are no table of its.
Result<std::optional<SessionTable>> FindSessionTable(Session& session,
                                                     const std::vector<std::string>& parts) {
  auto name = session.SessionTableName(parts);
  if (!name.ok()) return std::nullopt;
  ARROW_ASSIGN_OR_RAISE(auto catalog, session.session_catalog(false));
  if (!catalog) return std::nullopt;
  return catalog->GetTable(name->first, name->second);
}

std::shared_ptr<plan::LogicalPlan> LocalTable(std::shared_ptr<arrow::Table> table) {
  auto node = std::make_shared<plan::LogicalPlan>();
  node->kind = plan::PlanKind::kLocalTable;
  for (const auto& f : table->schema()->fields()) {
    node->output.push_back(plan::Attribute{f->name(), plan::NewAttributeId(), f->type(),
                                           f->nullable(), ""});
  }
  node->table = std::move(table);
  return node;
}

// An Iceberg table read when its plan runs: the snapshot is fixed at analysis, and the
// conjuncts of a filter above become predicates that skip data files.
class IcebergTableScan : public plan::TableScan {
 public:
  IcebergTableScan(std::weak_ptr<Session> session, std::string name, iceberg::LoadedTable table,
                   std::optional<int64_t> snapshot)
      : session_(std::move(session)), name_(std::move(name)), table_(std::move(table)),
        snapshot_(snapshot) {}

  Result<std::shared_ptr<arrow::Table>> Read(const std::vector<plan::ExprPtr>& conjuncts,
                                             const std::vector<plan::Attribute>& output) const override {
    std::vector<iceberg::ColumnPredicate> predicates;
    for (const auto& c : conjuncts) {
      if (auto p = Predicate(*c, output)) predicates.push_back(std::move(*p));
    }
    return iceberg::ScanTable(table_, snapshot_, predicates);
  }

  std::string Describe() const override { return "iceberg " + name_; }

 private:
  // `column op constant` (either side), IS [NOT] NULL or IN over a column of the table.
  std::optional<iceberg::ColumnPredicate> Predicate(const plan::Expr& e,
                                                    const std::vector<plan::Attribute>& output) const {
    using Op = iceberg::ColumnPredicate::Op;
    static const std::map<std::string, std::pair<Op, Op>> kOps = {
        {"=", {Op::kEq, Op::kEq}},     {"<", {Op::kLt, Op::kGt}},   {"<=", {Op::kLtEq, Op::kGtEq}},
        {">", {Op::kGt, Op::kLt}},     {">=", {Op::kGtEq, Op::kLtEq}}, {"isnull", {Op::kIsNull, Op::kIsNull}},
        {"isnotnull", {Op::kNotNull, Op::kNotNull}}, {"in", {Op::kIn, Op::kIn}}};
    auto op = kOps.find(e.name);
    if (e.kind != plan::ExprKind::kCall || op == kOps.end() || e.args.empty()) return std::nullopt;
    bool flipped = e.args.size() == 2 && e.args[1]->kind == plan::ExprKind::kAttribute &&
                   e.name != "in";
    const plan::Expr& column = *e.args[flipped ? 1 : 0];
    if (column.kind != plan::ExprKind::kAttribute) return std::nullopt;
    int index = -1;
    for (size_t i = 0; i < output.size(); ++i) {
      if (output[i].id == column.id) index = static_cast<int>(i);
    }
    if (index < 0) return std::nullopt;
    iceberg::ColumnPredicate p;
    p.field_id = iceberg::FieldId(*table_.metadata.schema->field(index));
    p.op = flipped ? op->second.second : op->second.first;
    auto session = session_.lock();
    for (size_t i = 0; i < e.args.size(); ++i) {
      if (i == static_cast<size_t>(flipped ? 1 : 0)) continue;
      // Only a constant of the column's own type: comparing in another type (the analyzer's
      // coercion) would prune by different rules.
      if (!session || !IsConstant(*e.args[i]) || !e.args[i]->type ||
          !e.args[i]->type->Equals(*column.type)) {
        return std::nullopt;
      }
      // The constant as Ember evaluates it (casts in the session time zone).
      auto value = session->Evaluate(e.args[i], column.type);
      if (!value.ok() || !(*value)->is_valid) return std::nullopt;
      p.values.push_back(*value);
    }
    return p;
  }

  static bool IsConstant(const plan::Expr& e) {
    if (e.kind == plan::ExprKind::kLiteral) return true;
    return e.kind == plan::ExprKind::kCast && IsConstant(*e.args[0]);
  }

  std::weak_ptr<Session> session_;
  std::string name_;
  iceberg::LoadedTable table_;
  std::optional<int64_t> snapshot_;
};

}  // namespace

std::shared_ptr<Session> Session::Make(std::map<std::string, std::string> conf) {
  // Ember's compute kernels must be registered before any reader or query uses them.
  auto registered = exec::RegisterKernels();
  (void)registered;  // a failure resurfaces, with its message, from the first query
  auto session = std::shared_ptr<Session>(new Session());
  session->conf_ = std::move(conf);
  return session;
}

std::optional<std::string> Session::GetConf(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = conf_.find(key);
  if (it == conf_.end()) return std::nullopt;
  return it->second;
}

std::string Session::GetConf(const std::string& key, const std::string& fallback) const {
  return GetConf(key).value_or(fallback);
}

void Session::SetConf(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto old = conf_.find(key);
  bool changed = old == conf_.end() || old->second != value;
  conf_[key] = value;
  // A catalog is built from its keys on first use; new keys mean a new catalog. The old ones
  // stay alive: a running query's sink may still hold one.
  if (changed && key.rfind("spark.sql.catalog.", 0) == 0) {
    for (auto& entry : catalogs_) retired_catalogs_.push_back(std::move(entry.second));
    catalogs_.clear();
  }
}

void Session::UnsetConf(const std::string& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (conf_.erase(key) && key.rfind("spark.sql.catalog.", 0) == 0) {
    for (auto& entry : catalogs_) retired_catalogs_.push_back(std::move(entry.second));
    catalogs_.clear();
  }
}

std::map<std::string, std::string> Session::AllConf() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return conf_;
}

plan::Analyzer Session::analyzer() {
  plan::AnalyzerOptions options;
  options.case_sensitive = Lower(GetConf("spark.sql.caseSensitive", "false")) == "true";
  std::weak_ptr<Session> weak = weak_from_this();
  options.lookup_function = [weak](const std::string& name) -> std::shared_ptr<const UserFunction> {
    auto self = weak.lock();
    if (!self) return nullptr;
    std::lock_guard<std::mutex> lock(self->mutex_);
    auto it = self->functions_.find(Lower(name));
    return it == self->functions_.end() ? nullptr : it->second;
  };
  options.evaluate = [weak](const plan::ExprPtr& expr, const std::shared_ptr<arrow::DataType>& type)
      -> Result<std::shared_ptr<arrow::Scalar>> {
    auto self = weak.lock();
    if (!self) return arrow::Status::Invalid("the session is gone");
    return self->Evaluate(expr, type);
  };
  options.lookup_table_function =
      [weak](const std::string& name) -> std::shared_ptr<const UserTableFunction> {
    auto self = weak.lock();
    if (!self) return nullptr;
    std::lock_guard<std::mutex> lock(self->mutex_);
    auto it = self->table_functions_.find(Lower(name));
    return it == self->table_functions_.end() ? nullptr : it->second;
  };
  options.lookup_relation = [weak](const plan::LogicalPlan& relation) -> Result<plan::PlanPtr> {
    const std::vector<std::string>& parts = relation.name_parts;
    auto self = weak.lock();
    std::string name;
    for (const auto& p : parts) name += (name.empty() ? "" : ".") + p;
    if (self && parts.size() == 1) {
      std::lock_guard<std::mutex> lock(self->mutex_);
      auto it = self->views_.find(Lower(parts[0]));
      if (it != self->views_.end()) return it->second;
    }
    if (self && parts.size() >= 2) {
      ARROW_ASSIGN_OR_RAISE(auto catalog, self->IcebergCatalog(parts[0]));
      if (catalog) {
        std::vector<std::string> ident(parts.begin() + 1, parts.end());
        // `t.snapshots`, `t.history`: the metadata tables of table t.
        if (ident.size() > 1 && iceberg::IsMetadataTable(Lower(ident.back())) &&
            !catalog->TableExists(ident).ValueOr(false)) {
          std::vector<std::string> base(ident.begin(), ident.end() - 1);
          ARROW_ASSIGN_OR_RAISE(auto table, catalog->LoadTable(base));
          ARROW_ASSIGN_OR_RAISE(auto rows, iceberg::MetadataTable(table.metadata, Lower(ident.back())));
          return LocalTable(rows);
        }
        // A table is read at analysis: the DataFrame sees the snapshot current then, or the one
        // a time-travel clause names.
        ARROW_ASSIGN_OR_RAISE(auto table, catalog->LoadTable(ident));
        std::optional<int64_t> snapshot;
        auto point = [&](const plan::ExprPtr& expr,
                         const std::shared_ptr<arrow::DataType>& type) -> Result<std::shared_ptr<arrow::Scalar>> {
          ARROW_ASSIGN_OR_RAISE(auto value, self->Evaluate(expr, type));
          if (!value->is_valid) {
            return UserError(ErrorKind::kAnalysis, "INVALID_TIME_TRAVEL_TIMESTAMP_EXPR.INPUT",
                             "The time travel point " + plan::DisplayName(*expr) + " is NULL.",
                             "42K0E");
          }
          return value;
        };
        if (relation.as_of_version) {
          ARROW_ASSIGN_OR_RAISE(auto id, point(relation.as_of_version, arrow::int64()));
          ARROW_ASSIGN_OR_RAISE(snapshot, iceberg::SnapshotWithId(
                                              table.metadata, static_cast<const arrow::Int64Scalar&>(*id).value));
        } else if (relation.as_of_timestamp) {
          ARROW_ASSIGN_OR_RAISE(auto at, point(relation.as_of_timestamp, plan::TimestampType()));
          int64_t micros = static_cast<const arrow::TimestampScalar&>(*at).value;
          ARROW_ASSIGN_OR_RAISE(snapshot, iceberg::SnapshotAsOf(table.metadata, micros / 1000));
        }
        auto node = std::make_shared<plan::LogicalPlan>();
        node->kind = plan::PlanKind::kTableScan;
        auto schema = iceberg::PlainSchema(*table.metadata.schema);
        for (const auto& f : schema->fields()) {
          node->output.push_back(plan::Attribute{f->name(), plan::NewAttributeId(), f->type(),
                                                 f->nullable(), ""});
        }
        node->scan = std::make_shared<IcebergTableScan>(weak, catalog->QualifiedName(ident),
                                                        std::move(table), snapshot);
        return node;
      }
    }
    if (self) {
      // A table of the session catalog: its files, read as Spark reads a file-format table.
      ARROW_ASSIGN_OR_RAISE(auto table, FindSessionTable(*self, parts));
      if (table) {
        ARROW_ASSIGN_OR_RAISE(auto df, self->ReadFiles(table->provider, {table->location},
                                                       table->schema, {}));
        return df.plan();
      }
    }
    return TableOrViewNotFound(parts);
  };
  return plan::Analyzer(std::move(options));
}

Result<std::shared_ptr<arrow::Scalar>> Session::Evaluate(const plan::ExprPtr& expr,
                                                         const std::shared_ptr<arrow::DataType>& type) {
  auto row = LocalTable(arrow::Table::Make(arrow::schema({}), arrow::ChunkedArrayVector{}, 1));
  ARROW_ASSIGN_OR_RAISE(auto projected,
                        analyzer().Project(row, {plan::Alias(plan::Cast(expr, type), "value")}));
  exec::ExecOptions options;
  options.eval = eval_context();
  ARROW_ASSIGN_OR_RAISE(auto table, exec::Execute(projected, options));
  return table->column(0)->GetScalar(0);
}

std::optional<ObservedMetrics> Session::LastObservedMetrics(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = observed_metrics_.find(name);
  if (it == observed_metrics_.end()) return std::nullopt;
  return it->second;
}

void Session::RecordObservedMetrics(const std::map<std::string, ObservedMetrics>& metrics) {
  // The names of the latest observations only: a long session observes under ever new names
  // (an Observation's default name is a UUID).
  constexpr size_t kKept = 1024;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [name, observed] : metrics) {
    if (!observed_metrics_.count(name)) observed_order_.push_back(name);
    observed_metrics_[name] = observed;
  }
  while (observed_order_.size() > kKept) {
    observed_metrics_.erase(observed_order_.front());
    observed_order_.pop_front();
  }
}

plan::EvalContext Session::eval_context() const {
  plan::EvalContext ctx;
  ctx.time_zone = GetConf("spark.sql.session.timeZone", "UTC");
  ctx.current_timestamp_us = std::chrono::duration_cast<std::chrono::microseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
  ctx.current_database = current_database();
  return ctx;
}

Result<DataFrame> ExecuteStatement(Session& session, const sql::Statement& statement);

Result<DataFrame> Session::Sql(const std::string& text) {
  ARROW_ASSIGN_OR_RAISE(auto statement, sql::ParseStatement(text));
  return ExecuteStatement(*this, statement);
}

Result<DataFrame> Session::Range(int64_t start, int64_t end, int64_t step) {
  ARROW_ASSIGN_OR_RAISE(auto table, plan::RangeTable(start, end, step, 1));
  return FromArrow(table);
}

Result<DataFrame> Session::FromArrow(std::shared_ptr<arrow::Table> table) {
  for (const auto& f : table->schema()->fields()) {
    if (!plan::IsSupportedType(*f->type())) {
      return UserError(ErrorKind::kType, "UNSUPPORTED_DATA_TYPE",
                       "Unsupported DataType `" + f->type()->ToString() + "` of column `" +
                           f->name() + "`.",
                       "");
    }
  }
  return DataFrame(shared_from_this(), LocalTable(std::move(table)));
}

Result<DataFrame> Session::ReadFiles(const std::string& format_in,
                                     const std::vector<std::string>& paths,
                                     std::shared_ptr<arrow::Schema> schema,
                                     const std::map<std::string, std::string>& options_in) {
  if (auto user_source = FindDataSource(format_in)) {
    // Its schema now, its rows when the plan runs: a batch function over one row. load(path)
    // reaches it as the option `path`, as in Spark.
    auto options = options_in;
    if (paths.size() == 1) options["path"] = paths[0];
    if (!schema) {
      ARROW_ASSIGN_OR_RAISE(schema, user_source->schema(options));
    }
    auto read = std::make_shared<UserBatchFunction>();
    read->name = user_source->name;
    read->output_schema = schema;
    read->call = [user_source, schema, options](const std::shared_ptr<arrow::RecordBatch>&) {
      return user_source->read(schema, options);
    };
    ARROW_ASSIGN_OR_RAISE(auto one_row, Range(0, 1, 1));
    return one_row.MapBatches(std::move(read));
  }
  const auto& options = options_in;
  auto source = std::make_shared<plan::FileSource>();
  source->format = Lower(format_in);
  source->paths = paths;
  for (const auto& [k, v] : options) source->options[Lower(k)] = v;
  if (!schema) {
    std::vector<std::string> files;
    for (const auto& path : paths) {
      ARROW_ASSIGN_OR_RAISE(auto entries, io::ListDataFiles(path, false));
      for (const auto& e : entries) files.push_back(e.path);
    }
    ARROW_ASSIGN_OR_RAISE(schema, io::InferSchema(*source, files));
  } else {
    for (const auto& path : paths) ARROW_RETURN_NOT_OK(io::ListDataFiles(path, false).status());
  }
  source->schema = schema = plan::AsNullable(*schema);  // as Spark's file sources make it
  auto node = std::make_shared<plan::LogicalPlan>();
  node->kind = plan::PlanKind::kFileScan;
  node->file = source;
  for (const auto& f : schema->fields()) {
    node->output.push_back(plan::Attribute{f->name(), plan::NewAttributeId(), f->type(), true, ""});
  }
  return DataFrame(shared_from_this(), node);
}

Result<std::pair<std::shared_ptr<const plan::StreamTable>, std::shared_ptr<arrow::Schema>>>
Session::StreamedTable(const std::string& name) {
  auto parts = plan::ColumnFromString(name)->name_parts;
  ARROW_ASSIGN_OR_RAISE(auto resolved, ResolveTableName(parts));
  ARROW_ASSIGN_OR_RAISE(auto table, resolved.first->LoadTable(resolved.second));
  std::shared_ptr<iceberg::Catalog> catalog;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    catalog = catalogs_.at(resolved.first->name());
  }
  return std::make_pair(std::make_shared<iceberg::StreamedTable>(catalog, resolved.second),
                        iceberg::PlainSchema(*table.metadata.schema));
}

Result<DataFrame> Session::Table(const std::string& name) {
  auto parts = plan::ColumnFromString(name)->name_parts;
  ARROW_ASSIGN_OR_RAISE(auto plan, analyzer().Resolve([&] {
    auto node = std::make_shared<plan::LogicalPlan>();
    node->kind = plan::PlanKind::kUnresolvedRelation;
    node->name_parts = parts;
    return node;
  }()));
  return DataFrame(shared_from_this(), plan);
}

Result<iceberg::Catalog*> Session::IcebergCatalog(const std::string& name) {
  std::string prefix = "spark.sql.catalog." + name;
  auto type = GetConf(prefix + ".type");
  auto impl = GetConf(prefix);
  if (!type && !impl) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = catalogs_.find(name);
  if (it != catalogs_.end()) return it->second.get();
  // The catalog's options: spark.sql.catalog.<name>.<key>, and the class under "".
  std::map<std::string, std::string> options;
  for (auto c = conf_.lower_bound(prefix); c != conf_.end() && c->first.rfind(prefix, 0) == 0; ++c) {
    if (c->first == prefix) {
      options[""] = c->second;
    } else if (c->first[prefix.size()] == '.') {
      options[c->first.substr(prefix.size() + 1)] = c->second;
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto catalog, iceberg::MakeCatalog(name, options));
  catalogs_[name] = catalog;
  return catalog.get();
}

Result<std::pair<iceberg::Catalog*, std::vector<std::string>>> Session::ResolveTableName(
    const std::vector<std::string>& parts) {
  if (parts.size() >= 2) {
    ARROW_ASSIGN_OR_RAISE(auto catalog, IcebergCatalog(parts[0]));
    if (catalog) {
      return std::make_pair(catalog, std::vector<std::string>(parts.begin() + 1, parts.end()));
    }
  }
  auto default_catalog = GetConf("spark.sql.defaultCatalog");
  if (default_catalog) {
    ARROW_ASSIGN_OR_RAISE(auto catalog, IcebergCatalog(*default_catalog));
    if (catalog) return std::make_pair(catalog, parts);
  }
  return TableOrViewNotFound(parts);
}

arrow::Status Session::InsertInto(const std::string& name, const DataFrame& df, bool overwrite) {
  auto parts = plan::ColumnFromString(name)->name_parts;
  ARROW_ASSIGN_OR_RAISE(bool in_iceberg, InIcebergCatalog(parts));
  if (in_iceberg) return WriteTable(name, df, overwrite ? "overwrite" : "append");
  ARROW_ASSIGN_OR_RAISE(auto table, FindSessionTable(*this, parts));
  if (!table) return TableOrViewNotFound(parts);
  return WriteSessionTable(*table, df, overwrite);
}

arrow::Status Session::WriteTable(const std::string& name, const DataFrame& df,
                                  const std::string& mode_in,
                                  const std::vector<PartitionTerm>& partitioning,
                                  const std::map<std::string, std::string>& properties,
                                  const std::string& provider) {
  auto parts = plan::ColumnFromString(name)->name_parts;
  std::string mode = Lower(mode_in);
  if (mode != "append" && mode != "overwrite" && mode != "create" && mode != "replace" &&
      mode != "create_or_replace") {
    return arrow::Status::Invalid("write mode ", mode);
  }
  ARROW_ASSIGN_OR_RAISE(bool in_iceberg, InIcebergCatalog(parts));
  if (!in_iceberg) {
    if (mode == "replace" || mode == "create_or_replace") {
      ARROW_ASSIGN_OR_RAISE(auto ident, SessionTableName(parts));
      return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE.TABLE_OPERATION",
                       "The feature is not supported: Table " +
                           Quoted({"spark_catalog", ident.first, ident.second}) +
                           " does not support REPLACE TABLE AS SELECT. Please check the current "
                           "catalog and namespace to make sure the qualified table name is "
                           "expected, and also check the catalog implementation which is "
                           "configured by \"spark.sql.catalog\".",
                       "0A000");
    }
    ARROW_ASSIGN_OR_RAISE(auto table, FindSessionTable(*this, parts));
    if (!table && mode != "create") return TableOrViewNotFound(parts);
    if (mode == "append" || mode == "overwrite") {
      // Spark's session catalog keeps file-source tables as V1 tables, which V2 writes refuse.
      return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1012",
                       "Cannot write into v1 table: " +
                           Quoted({"spark_catalog", table->database, table->name}) + ".",
                       "");
    }
    // create: a new session-catalog table is saveAsTable's, its columns and format the DataFrame's.
    std::vector<std::string> columns;
    for (const auto& term : partitioning) {
      if (term.transform != "identity") {
        return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                         "The feature is not supported: partition transform " + term.transform +
                             " of a session-catalog table.",
                         "0A000");
      }
      columns.push_back(term.column);
    }
    return SaveAsTable(name, df, provider, "errorifexists", columns);
  }
  ARROW_ASSIGN_OR_RAISE(auto resolved, ResolveTableName(parts));
  auto [catalog, ident] = resolved;
  ARROW_ASSIGN_OR_RAISE(bool exists, catalog->TableExists(ident));
  bool creates = mode == "create" || mode == "replace" || mode == "create_or_replace";
  // append and overwrite write into the table, replace replaces it: all need it to exist.
  if (!exists && mode != "create" && mode != "create_or_replace") return TableOrViewNotFound(parts);
  ARROW_ASSIGN_OR_RAISE(auto rows, df.ToTable());
  if (creates) {
    if (exists && mode != "create") ARROW_RETURN_NOT_OK(catalog->DropTable(ident, false).status());
    ARROW_RETURN_NOT_OK(catalog->CreateTable(ident, *df.schema(), properties,
                                             /*if_not_exists=*/false, partitioning));
  }
  iceberg::AppendOptions options;
  options.overwrite = mode == "overwrite";
  return iceberg::AppendRows(catalog, ident, rows, options).status();
}

Result<SessionCatalog*> Session::session_catalog(bool create) {
  std::string warehouse = GetConf("spark.sql.warehouse.dir", "spark-warehouse");
  if (warehouse.rfind("file:", 0) == 0) warehouse = warehouse.substr(5);
  std::lock_guard<std::mutex> lock(mutex_);
  if (session_catalog_) return session_catalog_.get();
  std::error_code ec;
  if (!create && !std::filesystem::exists(warehouse + "/.ember-session-catalog.db", ec)) return nullptr;
  ARROW_ASSIGN_OR_RAISE(auto catalog, SessionCatalog::Open(warehouse));
  session_catalog_ = std::move(catalog);
  return session_catalog_.get();
}

Result<bool> Session::InIcebergCatalog(const std::vector<std::string>& parts) {
  auto resolved = ResolveTableName(parts);
  if (resolved.ok()) return true;
  const ErrorDetail* detail = GetErrorDetail(resolved.status());
  if (detail && detail->condition() == "TABLE_OR_VIEW_NOT_FOUND") return false;
  return resolved.status();
}

Result<std::pair<std::string, std::string>> Session::SessionTableName(
    const std::vector<std::string>& parts_in) const {
  std::vector<std::string> parts;
  for (const auto& p : parts_in) parts.push_back(Lower(p));
  if (parts.size() >= 2 && parts[0] == "spark_catalog") parts.erase(parts.begin());
  if (parts.size() == 1) return std::make_pair(current_database(), parts[0]);
  if (parts.size() == 2) return std::make_pair(parts[0], parts[1]);
  return UserError(ErrorKind::kAnalysis, "REQUIRES_SINGLE_PART_NAMESPACE",
                   "spark_catalog requires a single-part namespace, but got " +
                       Quoted(std::vector<std::string>(parts.begin(), parts.end() - 1)) + ".",
                   "42K05");
}

std::string Session::current_database() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return current_database_;
}

void Session::set_current_database(const std::string& database) {
  std::lock_guard<std::mutex> lock(mutex_);
  current_database_ = database;
}

arrow::Status Session::SaveAsTable(const std::string& name, const DataFrame& df,
                                   const std::string& format_in, const std::string& mode_in,
                                   const std::vector<std::string>& partition_by) {
  auto parts = plan::ColumnFromString(name)->name_parts;
  std::string mode = Lower(mode_in);
  if (mode == "default" || mode == "error") mode = "errorifexists";
  if (mode != "errorifexists" && mode != "overwrite" && mode != "append" && mode != "ignore") {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Unknown save mode: " + mode_in +
                         ". Accepted save modes are 'overwrite', 'append', 'ignore', 'error', "
                         "'errorifexists', 'default'.",
                     "");
  }
  ARROW_ASSIGN_OR_RAISE(bool in_iceberg, InIcebergCatalog(parts));
  if (in_iceberg) {
    ARROW_ASSIGN_OR_RAISE(auto resolved, ResolveTableName(parts));
    ARROW_ASSIGN_OR_RAISE(bool exists, resolved.first->TableExists(resolved.second));
    if (exists && mode == "errorifexists") return iceberg::TableAlreadyExists(parts);
    if (exists && mode == "ignore") return arrow::Status::OK();
    std::vector<PartitionTerm> terms;
    for (const auto& column : partition_by) terms.push_back({"identity", column, 0});
    return WriteTable(name, df, !exists ? "create" : mode == "overwrite" ? "overwrite" : "append", terms);
  }
  ARROW_ASSIGN_OR_RAISE(auto ident, SessionTableName(parts));
  ARROW_ASSIGN_OR_RAISE(auto catalog, session_catalog(true));
  ARROW_ASSIGN_OR_RAISE(auto table, catalog->GetTable(ident.first, ident.second));
  if (table && mode == "errorifexists") return iceberg::TableAlreadyExists({"spark_catalog", ident.first, ident.second});
  if (table && mode == "ignore") return arrow::Status::OK();
  if (table && mode == "overwrite") {
    // Spark replaces the table: its data, columns and format are the new DataFrame's.
    ARROW_RETURN_NOT_OK(catalog->DropTable(ident.first, ident.second).status());
    table.reset();
  }
  std::string format = Lower(format_in.empty() ? GetConf("spark.sql.sources.default", "parquet") : format_in);
  if (!table) {
    SessionTable created;
    created.database = ident.first;
    created.name = ident.second;
    created.provider = format;
    ARROW_ASSIGN_OR_RAISE(created.location, catalog->DefaultLocation(ident.first, ident.second));
    created.partition_columns = partition_by;
    ARROW_ASSIGN_OR_RAISE(created.schema, SessionTableColumns(*df.schema(), partition_by));
    ARROW_RETURN_NOT_OK(CheckSessionTableFormat(format));
    ARROW_RETURN_NOT_OK(catalog->CreateTable(created));
    table = created;
  } else if (format != table->provider) {
    // Spark compares the format given, or else spark.sql.sources.default, with the table's.
    auto source_name = [](const std::string& provider) {
      if (provider == "csv") return std::string("CSVDataSourceV2");
      return std::string(1, static_cast<char>(std::toupper(provider[0]))) + provider.substr(1) + "DataSourceV2";
    };
    return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1159",
                     "The format of the existing table spark_catalog." + ident.first + "." + ident.second +
                         " is `" + source_name(table->provider) + "`. It doesn't match the specified format `" +
                         source_name(format) + "`.",
                     "");
  }
  // saveAsTable matches the DataFrame's columns to the table's by name.
  std::vector<Column> columns;
  for (const auto& f : table->schema->fields()) {
    ARROW_ASSIGN_OR_RAISE(auto column, df[f->name()]);
    columns.push_back(column);
  }
  ARROW_ASSIGN_OR_RAISE(auto ordered, df.Select(columns));
  return WriteSessionTable(*table, ordered, false);
}

arrow::Status Session::WriteSessionTable(const SessionTable& table, const DataFrame& df, bool overwrite) {
  auto source = df.schema();
  int want = table.schema->num_fields();
  if (source->num_fields() != want) {
    bool fewer = source->num_fields() < want;
    return UserError(ErrorKind::kAnalysis,
                     std::string("INSERT_COLUMN_ARITY_MISMATCH.") +
                         (fewer ? "NOT_ENOUGH_DATA_COLUMNS" : "TOO_MANY_DATA_COLUMNS"),
                     "Cannot write to " + Quoted({"spark_catalog", table.database, table.name}) +
                         ", the reason is " + (fewer ? "not enough" : "too many") +
                         " data columns:\nTable columns: " + std::to_string(want) +
                         ".\nData columns: " + std::to_string(source->num_fields()) + ".",
                     "21S01");
  }
  std::vector<Column> columns;
  for (int i = 0; i < want; ++i) {
    ARROW_ASSIGN_OR_RAISE(auto column, df[source->field(i)->name()]);
    const auto& target = table.schema->field(i);
    columns.push_back(column.Cast(target->type()).Alias(target->name()));
  }
  ARROW_ASSIGN_OR_RAISE(auto rows, df.Select(columns));
  return rows.WriteFiles(table.provider, table.location, overwrite ? "overwrite" : "append",
                         table.partition_columns);
}

arrow::Status Session::CreateTempView(const std::string& name, const DataFrame& df, bool replace) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto key = Lower(name);
  if (!replace && views_.count(key)) {
    return UserError(ErrorKind::kAnalysis, "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS",
                     "Cannot create the temporary view `" + name +
                         "` because it already exists.\nChoose a different name, drop or replace "
                         "the existing view, or add the IF NOT EXISTS clause to tolerate "
                         "pre-existing views.",
                     "42P07");
  }
  views_[key] = df.plan();
  return arrow::Status::OK();
}

void Session::RegisterFunction(const std::string& name,
                               std::shared_ptr<const UserFunction> function) {
  std::lock_guard<std::mutex> lock(mutex_);
  functions_[Lower(name)] = std::move(function);
}

void Session::RegisterDataSource(std::shared_ptr<const UserDataSource> source) {
  std::lock_guard<std::mutex> lock(mutex_);
  data_sources_[Lower(source->name)] = std::move(source);
}

void Session::RegisterTableFunction(const std::string& name,
                                    std::shared_ptr<const UserTableFunction> function) {
  std::lock_guard<std::mutex> lock(mutex_);
  table_functions_[Lower(name)] = std::move(function);
}

Result<DataFrame> Session::TableFunction(std::shared_ptr<const UserTableFunction> function,
                                         const std::vector<Column>& args,
                                         std::vector<std::string> keywords) {
  std::vector<plan::ExprPtr> exprs;
  for (const auto& arg : args) exprs.push_back(arg.expr());
  ARROW_ASSIGN_OR_RAISE(auto plan, analyzer().Generate(plan::OneRowRelation(), {},
                                                       plan::Call(std::move(function), exprs,
                                                                  std::move(keywords)),
                                                       {}, ""));
  return DataFrame(shared_from_this(), std::move(plan));
}

std::shared_ptr<const UserDataSource> Session::FindDataSource(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = data_sources_.find(Lower(name));
  return it == data_sources_.end() ? nullptr : it->second;
}

bool Session::DropTempView(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  return views_.erase(Lower(name)) > 0;
}

std::vector<std::string> Session::UserFunctionNames() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  for (const auto& [k, v] : functions_) names.push_back(k);
  return names;
}

std::vector<std::string> Session::TempViewNames() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> names;
  for (const auto& [k, v] : views_) names.push_back(k);
  return names;
}

}  // namespace ember
