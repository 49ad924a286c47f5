// MERGE INTO, UPDATE and DELETE on Iceberg tables, copy-on-write (ICEBERG.md 5.3), with Spark's
// semantics (RewriteMergeIntoTable, MergeRowsExec). The analyzer and the executor compute which
// target rows change and what they become, as one plan over the target rows joined with the
// source; then the data files holding changed rows are rewritten and all other files are kept.
#include <algorithm>

#include <arrow/array/util.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>
#include <arrow/table.h>

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
using plan::Attribute;
using plan::ExprPtr;
using plan::PlanPtr;
namespace cp = arrow::compute;

namespace {

// Hidden columns (their names start with "__ember_"): the data file a target row comes from (an
// index into Target::paths), the row's position in the scan, whether a joined row has a source
// row, and what happens to a row.
constexpr char kFileColumn[] = "__ember_file";
constexpr char kRowColumn[] = "__ember_row";
constexpr char kSourceColumn[] = "__ember_source";
constexpr char kActionColumn[] = "__ember_action";

// The values of kActionColumn; rows without one are left as they are.
enum RowAction : int32_t {
  kUpdate = 1,  // the target row is replaced by the row computed for it
  kDelete = 2,  // the target row goes
  kInsert = 3,  // a new row
};

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), ::tolower);
  return s;
}

std::string Joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ".") + p;
  return out;
}

ExprPtr Int32(int32_t v) { return plan::Literal(std::make_shared<arrow::Int32Scalar>(v)); }

// The target table as the statement reads it: its rows with the hidden file and row columns.
struct Target {
  iceberg::Catalog* catalog = nullptr;
  std::vector<std::string> ident;
  std::string name;
  std::optional<int64_t> snapshot_id;
  bool serializable = true;
  std::vector<std::string> paths;
  std::shared_ptr<arrow::Table> rows;
  int num_columns = 0;  // the table's columns come first in `rows` and in `plan`
  PlanPtr plan;         // `rows` under the target's alias
};

// `isolation_property` is the table property choosing serializable (default) or snapshot
// isolation for this kind of statement, as Iceberg's Spark writer reads it.
Result<Target> LoadTarget(Session& session, const sql::Statement& st,
                          const std::string& isolation_property) {
  Target t;
  ARROW_ASSIGN_OR_RAISE(auto resolved, session.ResolveTableName(st.name));
  t.catalog = resolved.first;
  t.ident = resolved.second;
  t.name = t.catalog->QualifiedName(t.ident);
  ARROW_ASSIGN_OR_RAISE(auto table, t.catalog->LoadTable(t.ident));
  t.snapshot_id = table.metadata.current_snapshot_id;
  auto isolation = table.metadata.properties.find(isolation_property);
  t.serializable =
      isolation == table.metadata.properties.end() || Lower(isolation->second) != "snapshot";
  ARROW_ASSIGN_OR_RAISE(auto files, iceberg::ScanFiles(table));
  auto columns = iceberg::PlainSchema(*table.metadata.schema);
  t.num_columns = columns->num_fields();
  ARROW_ASSIGN_OR_RAISE(
      auto schema,
      columns->AddField(t.num_columns, arrow::field(kFileColumn, arrow::int32(), false)));
  ARROW_ASSIGN_OR_RAISE(
      schema, schema->AddField(t.num_columns + 1, arrow::field(kRowColumn, arrow::int64(), false)));
  std::vector<std::shared_ptr<arrow::Table>> parts;
  int64_t first_row = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    const auto& rows = files[i].rows;
    int64_t n = rows->num_rows();
    ARROW_ASSIGN_OR_RAISE(
        auto file, arrow::MakeArrayFromScalar(arrow::Int32Scalar(static_cast<int32_t>(i)), n));
    arrow::Int64Builder numbers;
    ARROW_RETURN_NOT_OK(numbers.Reserve(n));
    for (int64_t r = 0; r < n; ++r) numbers.UnsafeAppend(first_row + r);
    first_row += n;
    ARROW_ASSIGN_OR_RAISE(auto row, numbers.Finish());
    auto all = rows->columns();
    all.push_back(std::make_shared<arrow::ChunkedArray>(file));
    all.push_back(std::make_shared<arrow::ChunkedArray>(row));
    parts.push_back(arrow::Table::Make(schema, all, n));
    t.paths.push_back(files[i].path);
  }
  if (parts.empty()) {
    ARROW_ASSIGN_OR_RAISE(t.rows, arrow::Table::MakeEmpty(schema));
  } else {
    ARROW_ASSIGN_OR_RAISE(t.rows, arrow::ConcatenateTables(parts));
  }
  ARROW_ASSIGN_OR_RAISE(auto df, session.FromArrow(t.rows));
  ARROW_ASSIGN_OR_RAISE(t.plan, session.analyzer().SubqueryAlias(
                                    df.plan(), st.alias.empty() ? st.name.back() : st.alias));
  return t;
}

// Resolves a user's expression against some columns only (MERGE resolves each clause against
// the side(s) of the join it may see), never against the hidden ones.
Result<ExprPtr> ResolveIn(const plan::Analyzer& analyzer, const ExprPtr& expr,
                          const std::vector<Attribute>& scope) {
  auto columns = std::make_shared<plan::LogicalPlan>();
  for (const auto& a : scope) {
    if (a.name.rfind("__ember_", 0) != 0) columns->output.push_back(a);
  }
  return analyzer.ResolveExpr(expr, columns);
}

// Spark's checks of MERGE's conditions (RewriteMergeIntoTable.checkMergeIntoCondition).
Status CheckCondition(const char* name, const ExprPtr& resolved) {
  if (plan::ContainsAggregate(*resolved)) {
    return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_MERGE_CONDITION.AGGREGATE",
                     std::string("MERGE operation contains unsupported ") + name +
                         " condition. Aggregates are not allowed: \"" +
                         plan::DisplayName(*resolved) + "\".",
                     "42K0E");
  }
  return Status::OK();
}

bool IsDateTime(const arrow::DataType& type) {
  return type.id() == arrow::Type::DATE32 || type.id() == arrow::Type::TIMESTAMP;
}

// Spark's ANSI store assignment (Cast.canANSIStoreAssign), the default policy for table writes:
// numbers into numbers, anything atomic into strings, dates and timestamps into each other.
bool CanStoreAssign(const arrow::DataType& from, const arrow::DataType& to) {
  if (from.Equals(to) || from.id() == arrow::Type::NA) return true;
  if (plan::IsNumeric(from) && plan::IsNumeric(to)) return true;
  if (plan::IsString(to)) return from.num_fields() == 0;
  return IsDateTime(from) && IsDateTime(to);
}

// A value for a table column, cast to the column's type as Spark's store assignment does.
Result<ExprPtr> Assigned(const ExprPtr& resolved, const Attribute& column, const Target& target) {
  ExprPtr value = plan::StripAlias(resolved);
  if (!CanStoreAssign(*value->type, *column.type)) {
    return UserError(ErrorKind::kAnalysis, "INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_SAFELY_CAST",
                     "Cannot write incompatible data for the table `" + target.name +
                         "`: Cannot safely cast `" + column.name + "` \"" +
                         plan::SparkTypeName(*value->type, true) + "\" to \"" +
                         plan::SparkTypeName(*column.type, true) + "\".",
                     "KD000");
  }
  return plan::CastIfNeeded(value, column.type);
}

// The new value of every table column for SET assignments; unassigned columns keep theirs from
// `values`.
Result<std::vector<ExprPtr>> Assignments(const plan::Analyzer& analyzer, const Target& target,
                                         const std::vector<sql::Assignment>& assignments,
                                         const std::vector<Attribute>& value_scope,
                                         std::vector<ExprPtr> values) {
  std::vector<Attribute> columns(target.plan->output.begin(),
                                 target.plan->output.begin() + target.num_columns);
  // Spark refuses two assignments to one column, naming all of them.
  std::vector<std::vector<std::string>> shown(columns.size());
  std::vector<size_t> targets;
  for (const auto& a : assignments) {
    ARROW_ASSIGN_OR_RAISE(auto key, ResolveIn(analyzer, plan::Column(a.column), columns));
    if (key->kind != plan::ExprKind::kAttribute) {
      return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                       "The feature is not supported: assigning to nested field " +
                           Joined(a.column) + " in Ember yet.",
                       "0A000");
    }
    size_t i = 0;
    while (columns[i].id != key->id) ++i;
    shown[i].push_back(plan::DisplayName(*a.value));
    targets.push_back(i);
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    if (shown[i].size() < 2) continue;
    std::string pairs, values_shown;
    for (const auto& v : shown[i]) {
      pairs += (pairs.empty() ? "\"" : ", \"") + columns[i].name + " = " + v + "\"";
      values_shown += (values_shown.empty() ? "" : ", ") + v;
    }
    return UserError(ErrorKind::kAnalysis,
                     "DATATYPE_MISMATCH.INVALID_ROW_LEVEL_OPERATION_ASSIGNMENTS",
                     "Cannot resolve " + pairs + " due to data type mismatch: \n- Multiple " +
                         "assignments for '" + columns[i].name + "': " + values_shown,
                     "42K09");
  }
  for (size_t k = 0; k < assignments.size(); ++k) {
    size_t i = targets[k];
    ARROW_ASSIGN_OR_RAISE(auto value, ResolveIn(analyzer, assignments[k].value, value_scope));
    ARROW_ASSIGN_OR_RAISE(values[i], Assigned(value, columns[i], target));
  }
  return values;
}

// A table column's value taken from the source column of the same name (UPDATE SET *, INSERT *).
Result<std::vector<ExprPtr>> FromSourceByName(const plan::Analyzer& analyzer, const Target& target,
                                              const std::vector<Attribute>& source_scope) {
  std::vector<ExprPtr> values;
  for (int i = 0; i < target.num_columns; ++i) {
    const Attribute& column = target.plan->output[static_cast<size_t>(i)];
    ARROW_ASSIGN_OR_RAISE(auto value,
                          ResolveIn(analyzer, plan::Column({column.name}), source_scope));
    ARROW_ASSIGN_OR_RAISE(value, Assigned(value, column, target));
    values.push_back(value);
  }
  return values;
}

// Runs a resolved plan.
Result<std::shared_ptr<arrow::Table>> Run(Session& session, const PlanPtr& plan) {
  return DataFrame(session.shared_from_this(), plan).ToTable();
}

Result<std::shared_ptr<arrow::Table>> Where(const std::shared_ptr<arrow::Table>& table,
                                            const arrow::Datum& mask) {
  ARROW_ASSIGN_OR_RAISE(auto kept, cp::Filter(table, mask));
  return kept.table();
}

// The table columns of some rows, under the target's own schema so that parts concatenate.
Result<std::shared_ptr<arrow::Table>> TableColumns(const Target& target,
                                                   const std::shared_ptr<arrow::Table>& rows) {
  arrow::FieldVector fields(target.rows->schema()->fields().begin(),
                            target.rows->schema()->fields().begin() + target.num_columns);
  arrow::ChunkedArrayVector columns(rows->columns().begin(),
                                    rows->columns().begin() + target.num_columns);
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!columns[i]->type()->Equals(*fields[i]->type())) {
      ARROW_ASSIGN_OR_RAISE(auto cast, cp::Cast(columns[i], fields[i]->type()));
      columns[i] = cast.chunked_array();
    }
  }
  return arrow::Table::Make(arrow::schema(fields), columns, rows->num_rows());
}

// Commits the computed changes: the table columns, kFileColumn, kRowColumn and kActionColumn of
// every row with an action. A data file is rewritten when one of its rows is updated or
// deleted: its other rows, the updated rows and the inserted rows make one new data file.
Status Commit(const Target& target, const std::shared_ptr<arrow::Table>& changes,
              bool delete_statement) {
  auto action = changes->GetColumnByName(kActionColumn);
  ARROW_ASSIGN_OR_RAISE(auto is_insert,
                        cp::CallFunction("equal", {action, arrow::Datum(int32_t{kInsert})}));
  ARROW_ASSIGN_OR_RAISE(auto is_update,
                        cp::CallFunction("equal", {action, arrow::Datum(int32_t{kUpdate})}));
  ARROW_ASSIGN_OR_RAISE(auto is_change,
                        cp::CallFunction("not_equal", {action, arrow::Datum(int32_t{kInsert})}));
  ARROW_ASSIGN_OR_RAISE(auto changed, Where(changes, is_change));
  ARROW_ASSIGN_OR_RAISE(auto files, cp::Unique(changed->GetColumnByName(kFileColumn)));
  // Rows of the rewritten files that the statement leaves as they are.
  ARROW_ASSIGN_OR_RAISE(auto in_file, cp::IsIn(target.rows->GetColumnByName(kFileColumn),
                                               cp::SetLookupOptions(files)));
  ARROW_ASSIGN_OR_RAISE(auto is_changed,
                        cp::IsIn(target.rows->GetColumnByName(kRowColumn),
                                 cp::SetLookupOptions(changed->GetColumnByName(kRowColumn))));
  ARROW_ASSIGN_OR_RAISE(auto unchanged, cp::CallFunction("invert", {is_changed}));
  ARROW_ASSIGN_OR_RAISE(auto kept_mask, cp::CallFunction("and", {in_file, unchanged}));
  ARROW_ASSIGN_OR_RAISE(auto kept, Where(target.rows, kept_mask));
  ARROW_ASSIGN_OR_RAISE(auto updated, Where(changes, is_update));
  ARROW_ASSIGN_OR_RAISE(auto inserted, Where(changes, is_insert));
  std::vector<std::shared_ptr<arrow::Table>> parts;
  for (const auto& part : {kept, updated, inserted}) {
    ARROW_ASSIGN_OR_RAISE(auto columns, TableColumns(target, part));
    parts.push_back(columns);
  }
  iceberg::OverwriteRequest request;
  ARROW_ASSIGN_OR_RAISE(request.added, arrow::ConcatenateTables(parts));
  const auto& file_indexes = static_cast<const arrow::Int32Array&>(*files);
  for (int64_t i = 0; i < file_indexes.length(); ++i) {
    request.removed.push_back(target.paths[static_cast<size_t>(file_indexes.Value(i))]);
  }
  request.scan_snapshot_id = target.snapshot_id;
  request.serializable = target.serializable;
  request.delete_statement = delete_statement;
  return iceberg::OverwriteFiles(target.catalog, target.ident, request);
}

Result<DataFrame> Done(Session& session) {
  return session.FromArrow(arrow::Table::Make(arrow::schema({}), arrow::ArrayVector{}, 0));
}

// The rows a statement changes, as Commit takes them: `values` for the table columns (any
// value for deleted rows), and the row's file, position and action.
Result<PlanPtr> ChangesPlan(const plan::Analyzer& analyzer, const PlanPtr& input,
                            const Target& target, const std::vector<ExprPtr>& values,
                            const ExprPtr& action) {
  std::vector<ExprPtr> exprs;
  for (size_t i = 0; i < values.size(); ++i) {
    exprs.push_back(plan::Alias(values[i], target.plan->output[i].name));
  }
  auto hidden = [&](const char* name, std::shared_ptr<arrow::Scalar> none) {
    for (const auto& a : input->output) {
      if (a.name == name) return plan::AttributeRef(a);
    }
    return plan::Alias(plan::Literal(std::move(none)), name);  // a MERGE that only inserts
  };
  exprs.push_back(hidden(kFileColumn, arrow::MakeNullScalar(arrow::int32())));
  exprs.push_back(hidden(kRowColumn, arrow::MakeNullScalar(arrow::int64())));
  exprs.push_back(plan::Alias(action, kActionColumn));
  ARROW_ASSIGN_OR_RAISE(auto projected, analyzer.Project(input, exprs));
  return analyzer.Filter(projected, plan::Call("isnotnull", {plan::Column({kActionColumn})}));
}

Status CardinalityViolation() {
  return UserError(ErrorKind::kRuntime, "MERGE_CARDINALITY_VIOLATION",
                   "The ON search condition of the MERGE statement matched a single row from the "
                   "target table with multiple rows of the source table.\nThis could result in "
                   "the target row being operated on more than once with an update or delete "
                   "operation and is not allowed.",
                   "23K01");
}

}  // namespace

Result<DataFrame> ExecuteMerge(Session& session, const sql::Statement& st) {
  using sql::MergeAction;
  using sql::MergeMatch;
  auto analyzer = session.analyzer();
  ARROW_ASSIGN_OR_RAISE(auto target, LoadTarget(session, st, "write.merge.isolation-level"));
  ARROW_ASSIGN_OR_RAISE(auto source, analyzer.Resolve(st.source));
  ARROW_ASSIGN_OR_RAISE(
      source, analyzer.Project(
                  source, {plan::Star(),
                           plan::Alias(plan::Literal(std::make_shared<arrow::BooleanScalar>(true)),
                                       kSourceColumn)}));

  bool has_matched = false, has_not_matched = false, has_by_source = false;
  for (const auto& c : st.clauses) {
    has_matched |= c.match == MergeMatch::kMatched;
    has_not_matched |= c.match == MergeMatch::kNotMatched;
    has_by_source |= c.match == MergeMatch::kNotMatchedBySource;
  }
  // As Spark: a MERGE that only inserts is an append of the source rows matching no target row;
  // otherwise every target row takes part (copy-on-write rewrites whole files), with the source
  // rows too when some may be inserted.
  bool insert_only = !has_matched && !has_by_source;
  PlanPtr joined;
  std::vector<Attribute> target_scope, source_scope;
  {
    std::vector<Attribute> both = target.plan->output;
    both.insert(both.end(), source->output.begin(), source->output.end());
    ARROW_ASSIGN_OR_RAISE(auto on, ResolveIn(analyzer, st.condition, both));
    ARROW_RETURN_NOT_OK(CheckCondition("SEARCH", on));
  }
  if (insert_only) {
    ARROW_ASSIGN_OR_RAISE(
        joined, analyzer.Join(source, target.plan, plan::JoinType::kLeftAnti, st.condition, {}));
    source_scope = joined->output;
  } else {
    auto type = has_not_matched ? plan::JoinType::kFullOuter : plan::JoinType::kLeftOuter;
    ARROW_ASSIGN_OR_RAISE(joined, analyzer.Join(target.plan, source, type, st.condition, {}));
    target_scope.assign(joined->output.begin(),
                        joined->output.begin() + static_cast<long>(target.plan->output.size()));
    source_scope.assign(joined->output.begin() + static_cast<long>(target.plan->output.size()),
                        joined->output.end());
  }
  // Whether a joined row has a target row, and a source row; only the target's hidden row column
  // and the source's marker are never NULL in their own rows.
  auto present = [&](const std::vector<Attribute>& scope, const char* name) -> ExprPtr {
    for (const auto& a : scope) {
      if (a.name == name) return plan::Call("isnotnull", {plan::AttributeRef(a)});
    }
    return plan::Literal(std::make_shared<arrow::BooleanScalar>(false));  // no target side
  };
  ExprPtr target_present = present(target_scope, kRowColumn);
  ExprPtr source_present = present(source_scope, kSourceColumn);

  // Each clause becomes a branch of CASE WHEN: the first clause whose condition holds decides.
  std::vector<ExprPtr> action_branches;
  std::vector<std::vector<ExprPtr>> value_branches(static_cast<size_t>(target.num_columns));
  std::vector<ExprPtr> unchanged;
  for (int i = 0; i < target.num_columns; ++i) {
    unchanged.push_back(insert_only
                            ? plan::Literal(arrow::MakeNullScalar(target.plan->output[i].type))
                            : plan::AttributeRef(target_scope[static_cast<size_t>(i)]));
  }
  std::vector<Attribute> all = target_scope;
  all.insert(all.end(), source_scope.begin(), source_scope.end());
  for (const auto& clause : st.clauses) {
    ExprPtr when;
    const std::vector<Attribute>* scope = &all;
    const char* name = clause.action == MergeAction::kDelete     ? "DELETE"
                       : clause.match == MergeMatch::kNotMatched ? "INSERT"
                                                                 : "UPDATE";
    switch (clause.match) {
      case MergeMatch::kMatched:
        when = plan::Call("and", {target_present, source_present});
        break;
      case MergeMatch::kNotMatched:
        when = plan::Call("not", {target_present});
        scope = &source_scope;
        break;
      case MergeMatch::kNotMatchedBySource:
        when = plan::Call("not", {source_present});
        scope = &target_scope;
        break;
    }
    if (clause.condition) {
      ARROW_ASSIGN_OR_RAISE(auto condition, ResolveIn(analyzer, clause.condition, *scope));
      ARROW_RETURN_NOT_OK(CheckCondition(name, condition));
      when = plan::Call("and", {when, plan::StripAlias(condition)});
    }
    std::vector<ExprPtr> values;
    RowAction action = kUpdate;
    switch (clause.action) {
      case MergeAction::kDelete:
        action = kDelete;
        break;
      case MergeAction::kUpdate: {
        ARROW_ASSIGN_OR_RAISE(values,
                              Assignments(analyzer, target, clause.assignments, *scope, unchanged));
        break;
      }
      case MergeAction::kUpdateStar: {
        ARROW_ASSIGN_OR_RAISE(values, FromSourceByName(analyzer, target, source_scope));
        break;
      }
      case MergeAction::kInsertStar: {
        action = kInsert;
        ARROW_ASSIGN_OR_RAISE(values, FromSourceByName(analyzer, target, source_scope));
        break;
      }
      case MergeAction::kInsert: {
        action = kInsert;
        // Columns left out of the list are NULL.
        std::vector<ExprPtr> nulls;
        for (int i = 0; i < target.num_columns; ++i) {
          nulls.push_back(plan::Literal(arrow::MakeNullScalar(target.plan->output[i].type)));
        }
        std::vector<sql::Assignment> listed;
        for (size_t i = 0; i < clause.insert_columns.size(); ++i) {
          listed.push_back(sql::Assignment{clause.insert_columns[i], clause.insert_values[i]});
        }
        ARROW_ASSIGN_OR_RAISE(values, Assignments(analyzer, target, listed, source_scope, nulls));
        break;
      }
    }
    action_branches.push_back(when);
    action_branches.push_back(Int32(action));
    for (size_t i = 0; i < values.size(); ++i) {
      value_branches[i].push_back(when);
      value_branches[i].push_back(values[i]);
    }
  }
  std::vector<ExprPtr> values;
  for (int i = 0; i < target.num_columns; ++i) {
    auto& branches = value_branches[static_cast<size_t>(i)];
    values.push_back(branches.empty() ? unchanged[static_cast<size_t>(i)]
                                      : plan::Call("when", branches));
  }
  ARROW_ASSIGN_OR_RAISE(auto changes_plan, ChangesPlan(analyzer, joined, target, values,
                                                       plan::Call("when", action_branches)));

  // Spark's cardinality rule: unless the only MATCHED clause is an unconditional DELETE, no
  // target row may match two source rows, whatever the clauses' conditions.
  bool only_delete = st.clauses.front().match == MergeMatch::kMatched &&
                     st.clauses.front().action == MergeAction::kDelete &&
                     !st.clauses.front().condition &&
                     (st.clauses.size() == 1 || st.clauses[1].match != MergeMatch::kMatched);
  if (has_matched && !only_delete) {
    ARROW_ASSIGN_OR_RAISE(
        auto matched, analyzer.Filter(joined, plan::Call("and", {target_present, source_present})));
    ARROW_ASSIGN_OR_RAISE(
        auto counted,
        analyzer.Aggregate(matched, {plan::Column({kRowColumn})},
                           {plan::Alias(plan::Call("count", {Int32(1)}), "n")}, false));
    ARROW_ASSIGN_OR_RAISE(
        auto repeated, analyzer.Filter(counted, plan::Call(">", {plan::Column({"n"}), Int32(1)})));
    ARROW_ASSIGN_OR_RAISE(repeated, analyzer.Limit(repeated, 1));
    ARROW_ASSIGN_OR_RAISE(auto found, Run(session, repeated));
    if (found->num_rows() > 0) return CardinalityViolation();
  }

  ARROW_ASSIGN_OR_RAISE(auto changes, Run(session, changes_plan));
  if (insert_only) {
    ARROW_ASSIGN_OR_RAISE(auto rows, TableColumns(target, changes));
    ARROW_RETURN_NOT_OK(iceberg::AppendRows(target.catalog, target.ident, rows, {}).status());
  } else {
    ARROW_RETURN_NOT_OK(Commit(target, changes, false));
  }
  return Done(session);
}

Result<DataFrame> ExecuteUpdateOrDelete(Session& session, const sql::Statement& st) {
  bool is_delete = st.kind == sql::StatementKind::kDelete;
  auto analyzer = session.analyzer();
  ARROW_ASSIGN_OR_RAISE(auto target, LoadTarget(session, st,
                                                is_delete ? "write.delete.isolation-level"
                                                          : "write.update.isolation-level"));
  PlanPtr rows = target.plan;
  if (st.condition) {
    ARROW_ASSIGN_OR_RAISE(auto condition, ResolveIn(analyzer, st.condition, target.plan->output));
    ARROW_ASSIGN_OR_RAISE(rows, analyzer.Filter(rows, condition));
  }
  std::vector<ExprPtr> values;
  for (int i = 0; i < target.num_columns; ++i) {
    values.push_back(plan::AttributeRef(target.plan->output[static_cast<size_t>(i)]));
  }
  if (!is_delete) {
    ARROW_ASSIGN_OR_RAISE(
        values, Assignments(analyzer, target, st.assignments, target.plan->output, values));
  }
  ARROW_ASSIGN_OR_RAISE(auto changes_plan, ChangesPlan(analyzer, rows, target, values,
                                                       Int32(is_delete ? kDelete : kUpdate)));
  ARROW_ASSIGN_OR_RAISE(auto changes, Run(session, changes_plan));
  ARROW_RETURN_NOT_OK(Commit(target, changes, is_delete));
  return Done(session);
}

}  // namespace ember
