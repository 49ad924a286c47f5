#include "ember/connect/analyze.h"

#include <arrow/type.h>

#include "ember/connect/data_types.h"
#include "ember/connect/errors.h"
#include "ember/connect/sessions.h"
#include "ember/connect/translator.h"
#include "ember/plan/type_names.h"
#include "ember/session.h"
#include "spark/connect/relations.pb.h"

namespace ember::connect {

namespace pb = spark::connect;

namespace {

arrow::Result<DataFrame> RootOf(const Translator& t, const pb::Plan& plan) {
  if (!plan.has_root()) return Unsupported("analysis of a command");
  return t.Relation(plan.root());
}

// StructType.treeString: "root\n |-- a: long (nullable = true)\n", nested fields indented.
void TreeLines(const arrow::FieldVector& fields, const std::string& prefix, int level,
               int max_level, std::string* out) {
  for (const auto& f : fields) {
    const auto& type = f->type();
    std::string shown = type->id() == arrow::Type::STRUCT ? "struct"
                        : type->id() == arrow::Type::LIST ? "array"
                        : type->id() == arrow::Type::MAP  ? "map"
                                                          : plan::SparkTypeName(*type);
    *out += prefix + "|-- " + f->name() + ": " + shown + " (nullable = " +
            (f->nullable() ? "true" : "false") + ")\n";
    if (type->id() == arrow::Type::STRUCT && (max_level <= 0 || level < max_level)) {
      TreeLines(type->fields(), prefix + "|    ", level + 1, max_level, out);
    }
  }
}

}  // namespace

arrow::Status Analyze(const ConnectSession& connect, const pb::AnalyzePlanRequest& request,
                      pb::AnalyzePlanResponse* response) {
  Translator t(connect);
  using R = pb::AnalyzePlanRequest;
  switch (request.analyze_case()) {
    case R::kSchema: {
      ARROW_ASSIGN_OR_RAISE(auto df, RootOf(t, request.schema().plan()));
      return ToProto(*df.schema(), response->mutable_schema()->mutable_schema());
    }
    case R::kExplain: {
      ARROW_ASSIGN_OR_RAISE(auto df, RootOf(t, request.explain().plan()));
      response->mutable_explain()->set_explain_string(df.Explain());
      return arrow::Status::OK();
    }
    case R::kTreeString: {
      ARROW_ASSIGN_OR_RAISE(auto df, RootOf(t, request.tree_string().plan()));
      std::string text = "root\n";
      int level = request.tree_string().has_level() ? request.tree_string().level() : 0;
      TreeLines(df.schema()->fields(), " ", 1, level, &text);
      response->mutable_tree_string()->set_tree_string(text);
      return arrow::Status::OK();
    }
    case R::kIsLocal:
      response->mutable_is_local()->set_is_local(false);
      return arrow::Status::OK();
    case R::kIsStreaming: {
      ARROW_ASSIGN_OR_RAISE(auto df, RootOf(t, request.is_streaming().plan()));
      response->mutable_is_streaming()->set_is_streaming(df.is_streaming());
      return arrow::Status::OK();
    }
    case R::kInputFiles:
      response->mutable_input_files();
      return arrow::Status::OK();
    case R::kSparkVersion:
      response->mutable_spark_version()->set_version(kSparkVersion);
      return arrow::Status::OK();
    case R::kDdlParse: {
      ARROW_ASSIGN_OR_RAISE(auto type, plan::ParseSchemaString(request.ddl_parse().ddl_string()));
      return ToProto(*type, response->mutable_ddl_parse()->mutable_parsed());
    }
    case R::kPersist:
      response->mutable_persist();  // Ember keeps no cache: every action runs its plan
      return arrow::Status::OK();
    case R::kUnpersist:
      response->mutable_unpersist();
      return arrow::Status::OK();
    default: {
      const auto* field = R::descriptor()->FindFieldByNumber(request.analyze_case());
      return Unsupported("AnalyzePlan `" + (field ? field->name() : std::string("?")) + "`");
    }
  }
}

}  // namespace ember::connect
