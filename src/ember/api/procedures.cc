// CALL catalog.system.<procedure>(...): Iceberg's Spark procedures for table maintenance,
// expire_snapshots and remove_orphan_files, with Iceberg 1.10's parameters and output columns.
// Arguments bind as Spark binds a routine's: positional ones first, then `name => value`.
#include <arrow/builder.h>
#include <arrow/scalar.h>
#include <arrow/table.h>

#include "ember/error.h"
#include "ember/iceberg/catalog.h"
#include "ember/iceberg/maintenance.h"
#include "ember/plan/expr.h"
#include "ember/plan/type_names.h"
#include "ember/session.h"
#include "ember/sql/parser.h"

namespace ember {

using arrow::Result;
using arrow::Status;

namespace {

struct Parameter {
  const char* name;
  std::shared_ptr<arrow::DataType> type;
  bool required = false;
};

// A constant argument as `type`; an array(...) of constants for an array parameter.
Result<std::shared_ptr<arrow::Scalar>> Evaluate(Session& session, const plan::ExprPtr& value,
                                                const std::shared_ptr<arrow::DataType>& type) {
  if (type->id() != arrow::Type::LIST || value->kind != plan::ExprKind::kCall || value->name != "array") {
    return session.Evaluate(value, type);
  }
  auto element = static_cast<const arrow::ListType&>(*type).value_type();
  ARROW_ASSIGN_OR_RAISE(auto builder, arrow::MakeBuilder(element));
  for (const auto& item : value->args) {
    ARROW_ASSIGN_OR_RAISE(auto scalar, session.Evaluate(item, element));
    ARROW_RETURN_NOT_OK(builder->AppendScalar(*scalar));
  }
  ARROW_ASSIGN_OR_RAISE(auto items, builder->Finish());
  return std::make_shared<arrow::ListScalar>(items, type);
}

// The arguments of a call by parameter, evaluated to the parameter's type (null: not given).
class Arguments {
 public:
  static Result<Arguments> Bind(Session& session, const std::string& procedure,
                                const std::vector<Parameter>& parameters,
                                const std::vector<sql::CallArgument>& given) {
    Arguments args;
    args.values_.resize(parameters.size());
    std::vector<bool> assigned(parameters.size(), false);
    std::string first_named;
    for (size_t i = 0; i < given.size(); ++i) {
      size_t index = i;
      if (given[i].name.empty()) {
        if (!first_named.empty()) {
          return UserError(ErrorKind::kAnalysis, "UNEXPECTED_POSITIONAL_ARGUMENT",
                           "Cannot invoke routine `" + procedure +
                               "` because it contains positional argument(s) following the "
                               "named argument assigned to `" + first_named +
                               "`; please rearrange them so the positional arguments come first "
                               "and then retry the query again.",
                           "4274K");
        }
        if (i >= parameters.size()) {
          return UserError(ErrorKind::kAnalysis, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                           "The `" + procedure + "` requires at most " +
                               std::to_string(parameters.size()) + " parameters but the actual "
                               "number is " + std::to_string(given.size()) + ".",
                           "42605");
        }
      } else {
        if (first_named.empty()) first_named = given[i].name;
        index = parameters.size();
        for (size_t p = 0; p < parameters.size(); ++p) {
          if (given[i].name == parameters[p].name) index = p;
        }
        if (index == parameters.size()) {
          std::string names;
          for (const auto& p : parameters) names += (names.empty() ? "`" : ", `") + std::string(p.name) + "`";
          return UserError(ErrorKind::kAnalysis, "UNRECOGNIZED_PARAMETER_NAME",
                           "Cannot invoke routine `" + procedure +
                               "` because the routine call included a named argument reference "
                               "for the argument named `" + given[i].name +
                               "`, but this routine does not include any signature containing an "
                               "argument with this name. Did you mean one of the following? [" +
                               names + "].",
                           "4274K");
        }
        if (assigned[index]) {
          return UserError(ErrorKind::kAnalysis, "DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.DOUBLE_NAMED_ARGUMENT_REFERENCE",
                           "Call to routine `" + procedure + "` is invalid because it includes "
                               "multiple argument assignments to the same parameter name `" +
                               given[i].name + "`.",
                           "4274K");
        }
      }
      assigned[index] = true;
      ARROW_ASSIGN_OR_RAISE(args.values_[index], Evaluate(session, given[i].value, parameters[index].type));
    }
    for (size_t p = 0; p < parameters.size(); ++p) {
      if (parameters[p].required && !assigned[p]) {
        return UserError(ErrorKind::kAnalysis, "REQUIRED_PARAMETER_NOT_FOUND",
                         "Cannot invoke routine `" + procedure + "` because the parameter named `" +
                             parameters[p].name + "` is required, but the routine call did not "
                             "supply a value. Please update the routine call to supply an argument "
                             "value (either positionally at index " + std::to_string(p) +
                             " or by name) and retry the query again.",
                         "4274K");
      }
    }
    return args;
  }

  const arrow::Scalar* operator[](size_t i) const {
    return values_[i] && values_[i]->is_valid ? values_[i].get() : nullptr;
  }
  std::optional<std::string> String(size_t i) const {
    if (auto* v = (*this)[i]) return std::string(static_cast<const arrow::StringScalar&>(*v).view());
    return std::nullopt;
  }
  std::optional<int64_t> TimestampMs(size_t i) const {
    if (auto* v = (*this)[i]) return static_cast<const arrow::TimestampScalar&>(*v).value / 1000;
    return std::nullopt;
  }
  std::optional<int64_t> Int(size_t i) const {
    if (auto* v = (*this)[i]) return static_cast<const arrow::Int32Scalar&>(*v).value;
    return std::nullopt;
  }
  bool Bool(size_t i) const {
    auto* v = (*this)[i];
    return v && static_cast<const arrow::BooleanScalar&>(*v).value;
  }

 private:
  std::vector<std::shared_ptr<arrow::Scalar>> values_;
};

// The table a procedure's `table` argument names, within the procedure's catalog.
Result<std::vector<std::string>> TableArgument(const iceberg::Catalog& catalog, const std::string& text) {
  auto parts = plan::ColumnFromString(text)->name_parts;
  if (parts.size() > 1 && parts[0] == catalog.name()) parts.erase(parts.begin());
  if (parts.empty() || text.empty()) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "Cannot handle an empty identifier for argument table", "");
  }
  return parts;
}

Status PositiveConcurrency(const Arguments& args, size_t index) {
  auto n = args.Int(index);
  if (n && *n <= 0) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "max_concurrent_deletes should have value > 0, value: " + std::to_string(*n), "");
  }
  return Status::OK();
}

Result<std::shared_ptr<arrow::Table>> ExpireSnapshots(Session& session, iceberg::Catalog* catalog,
                                                      const std::vector<sql::CallArgument>& given) {
  static const std::vector<Parameter> kParameters = {
      {"table", arrow::utf8(), true},
      {"older_than", plan::TimestampType()},
      {"retain_last", arrow::int32()},
      {"max_concurrent_deletes", arrow::int32()},
      {"stream_results", arrow::boolean()},
      {"snapshot_ids", arrow::list(arrow::int64())},
      {"clean_expired_metadata", arrow::boolean()}};
  ARROW_ASSIGN_OR_RAISE(auto args, Arguments::Bind(session, "expire_snapshots", kParameters, given));
  ARROW_ASSIGN_OR_RAISE(auto ident, TableArgument(*catalog, *args.String(0)));
  ARROW_RETURN_NOT_OK(PositiveConcurrency(args, 3));
  iceberg::ExpireOptions options;
  options.older_than_ms = args.TimestampMs(1);
  options.retain_last = args.Int(2);
  if (auto* ids = args[5]) {
    const auto& list = static_cast<const arrow::ListScalar&>(*ids).value;
    const auto& values = static_cast<const arrow::Int64Array&>(*list);
    for (int64_t i = 0; i < values.length(); ++i) {
      if (values.IsValid(i)) options.snapshot_ids.push_back(values.Value(i));
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto result, iceberg::ExpireSnapshots(catalog, ident, options));
  arrow::FieldVector fields;
  arrow::ArrayVector columns;
  auto add = [&](const char* name, int64_t value) -> Status {
    arrow::Int64Builder builder;
    ARROW_RETURN_NOT_OK(builder.Append(value));
    ARROW_ASSIGN_OR_RAISE(auto column, builder.Finish());
    fields.push_back(arrow::field(name, arrow::int64()));
    columns.push_back(column);
    return Status::OK();
  };
  ARROW_RETURN_NOT_OK(add("deleted_data_files_count", result.deleted_data_files));
  ARROW_RETURN_NOT_OK(add("deleted_position_delete_files_count", 0));
  ARROW_RETURN_NOT_OK(add("deleted_equality_delete_files_count", 0));
  ARROW_RETURN_NOT_OK(add("deleted_manifest_files_count", result.deleted_manifests));
  ARROW_RETURN_NOT_OK(add("deleted_manifest_lists_count", result.deleted_manifest_lists));
  ARROW_RETURN_NOT_OK(add("deleted_statistics_files_count", 0));
  return arrow::Table::Make(arrow::schema(fields), columns, 1);
}

Result<std::shared_ptr<arrow::Table>> RemoveOrphanFiles(Session& session, iceberg::Catalog* catalog,
                                                        const std::vector<sql::CallArgument>& given) {
  auto string_map = arrow::map(arrow::utf8(), arrow::utf8());
  static const std::vector<Parameter> kParameters = {
      {"table", arrow::utf8(), true},
      {"older_than", plan::TimestampType()},
      {"location", arrow::utf8()},
      {"dry_run", arrow::boolean()},
      {"max_concurrent_deletes", arrow::int32()},
      {"file_list_view", arrow::utf8()},
      {"equal_schemes", string_map},
      {"equal_authorities", string_map},
      {"prefix_mismatch_mode", arrow::utf8()},
      {"prefix_listing", arrow::boolean()}};
  ARROW_ASSIGN_OR_RAISE(auto args, Arguments::Bind(session, "remove_orphan_files", kParameters, given));
  ARROW_ASSIGN_OR_RAISE(auto ident, TableArgument(*catalog, *args.String(0)));
  ARROW_RETURN_NOT_OK(PositiveConcurrency(args, 4));
  if (args[5]) {
    return UserError(ErrorKind::kUnsupportedOperation, "UNSUPPORTED_FEATURE",
                     "The feature is not supported: remove_orphan_files with file_list_view in Ember yet.",
                     "0A000");
  }
  iceberg::OrphanOptions options;
  options.older_than_ms = args.TimestampMs(1);
  options.location = args.String(2);
  options.dry_run = args.Bool(3);
  // Iceberg refuses an interval under a day outside Spark's tests (spark.testing).
  bool testing = session.GetConf("spark.testing", "false") == "true";
  if (options.older_than_ms && !testing &&
      iceberg::CurrentTimeMs() - *options.older_than_ms < 24LL * 60 * 60 * 1000) {
    return UserError(
        ErrorKind::kIllegalArgument, "",
        "Cannot remove orphan files with an interval less than 24 hours. Executing this procedure "
        "with a short interval may corrupt the table if other operations are happening at the "
        "same time. If you are absolutely confident that no concurrent operations will be "
        "affected by removing orphan files with such a short interval, you can use the Action "
        "API to remove orphan files with an arbitrary interval.",
        "");
  }
  ARROW_ASSIGN_OR_RAISE(auto orphans, iceberg::RemoveOrphanFiles(catalog, ident, options));
  arrow::StringBuilder builder;
  ARROW_RETURN_NOT_OK(builder.AppendValues(orphans));
  ARROW_ASSIGN_OR_RAISE(auto column, builder.Finish());
  return arrow::Table::Make(arrow::schema({arrow::field("orphan_file_location", arrow::utf8(), false)}),
                            {column}, static_cast<int64_t>(orphans.size()));
}

}  // namespace

Result<DataFrame> ExecuteCall(Session& session, const sql::Statement& statement) {
  // [catalog.]system.procedure; the catalog defaults to spark.sql.defaultCatalog.
  const auto& name = statement.name;
  iceberg::Catalog* catalog = nullptr;
  if (name.size() == 3) {
    ARROW_ASSIGN_OR_RAISE(catalog, session.IcebergCatalog(name[0]));
  } else if (name.size() == 2) {
    ARROW_ASSIGN_OR_RAISE(catalog, session.IcebergCatalog(session.GetConf("spark.sql.defaultCatalog", "spark_catalog")));
  }
  std::string qualified;
  for (const auto& part : name) qualified += (qualified.empty() ? "" : ".") + part;
  std::string procedure = name.empty() ? "" : name.back();
  bool system = name.size() >= 2 && name[name.size() - 2] == "system";
  if (!catalog || !system || (procedure != "expire_snapshots" && procedure != "remove_orphan_files")) {
    return UserError(ErrorKind::kAnalysis, "FAILED_TO_LOAD_ROUTINE",
                     "Failed to load routine `" + qualified + "`.", "38000");
  }
  std::shared_ptr<arrow::Table> rows;
  if (procedure == "expire_snapshots") {
    ARROW_ASSIGN_OR_RAISE(rows, ExpireSnapshots(session, catalog, statement.call_arguments));
  } else {
    ARROW_ASSIGN_OR_RAISE(rows, RemoveOrphanFiles(session, catalog, statement.call_arguments));
  }
  return session.FromArrow(rows);
}

}  // namespace ember
