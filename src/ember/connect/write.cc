#include "ember/connect/write.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ember/connect/errors.h"
#include "ember/connect/translator.h"
#include "ember/error.h"
#include "ember/partitioning.h"
#include "ember/session.h"
#include "ember/user_function.h"
#include "spark/connect/commands.pb.h"

namespace ember::connect {

namespace pb = spark::connect;

namespace {

std::string SaveModeName(pb::WriteOperation::SaveMode mode) {
  switch (mode) {
    case pb::WriteOperation::SAVE_MODE_APPEND: return "append";
    case pb::WriteOperation::SAVE_MODE_OVERWRITE: return "overwrite";
    case pb::WriteOperation::SAVE_MODE_IGNORE: return "ignore";
    default: return "errorifexists";  // DataFrameWriter's default
  }
}

// A partitionedBy term: a column, or years/months/days/hours of one, or bucket(n, column), as
// pyspark.sql.functions.partitioning sends them.
arrow::Result<PartitionTerm> ToPartitionTerm(const pb::Expression& e) {
  if (e.has_unresolved_attribute()) {
    return PartitionTerm{"identity", e.unresolved_attribute().unparsed_identifier(), 0};
  }
  if (e.has_unresolved_function()) {
    const auto& f = e.unresolved_function();
    const auto& name = f.function_name();
    const auto& args = f.arguments();
    bool single = name == "years" || name == "months" || name == "days" || name == "hours";
    if (single && args.size() == 1 && args[0].has_unresolved_attribute()) {
      return PartitionTerm{name, args[0].unresolved_attribute().unparsed_identifier(), 0};
    }
    if (name == "bucket" && args.size() == 2 && args[0].has_literal() &&
        args[0].literal().has_integer() && args[1].has_unresolved_attribute()) {
      return PartitionTerm{"bucket", args[1].unresolved_attribute().unparsed_identifier(),
                           args[0].literal().integer()};
    }
  }
  return Unsupported("a partitionedBy term other than a column, years, months, days, hours or "
                     "bucket of a column");
}

}  // namespace

arrow::Status Write(const Translator& t, const pb::WriteOperation& write) {
  if (write.sort_column_names_size() > 0 || write.has_bucket_by()) {
    return Unsupported("bucketed writes (bucketBy, sortBy)");
  }
  if (write.clustering_columns_size() > 0) return Unsupported("clusterBy");
  ARROW_ASSIGN_OR_RAISE(auto df, t.Relation(write.input()));
  std::string mode = SaveModeName(write.mode());
  std::vector<std::string> partition_by(write.partitioning_columns().begin(),
                                        write.partitioning_columns().end());
  const auto& session = t.session();
  if (write.has_table()) {
    const auto& table = write.table();
    if (table.save_method() == pb::WriteOperation::SaveTable::TABLE_SAVE_METHOD_INSERT_INTO) {
      if (!partition_by.empty()) {
        return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1309",
                         "insertInto() can't be used together with partitionBy(). Partition "
                         "columns have already been defined for the table. It is not necessary "
                         "to use partitionBy().",
                         "");
      }
      return session->InsertInto(table.table_name(), df, mode == "overwrite");
    }
    return session->SaveAsTable(table.table_name(), df, write.source(), mode, partition_by);
  }
  std::optional<std::string> path;
  if (write.has_path()) path = write.path();
  std::map<std::string, std::string> options(write.options().begin(), write.options().end());
  if (auto source = session->FindDataSource(write.source())) {  // a Python data source
    if (mode != "append" && mode != "overwrite") {
      return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_DATA_SOURCE_SAVE_MODE",
                       "The data source \"" + source->name + "\" cannot be written in the \"" +
                           (mode == "ignore" ? "Ignore" : "ErrorIfExists") +
                           "\" mode. Please use either the \"Append\" or \"Overwrite\" mode "
                           "instead.",
                       "0A000");
    }
    if (path) options["path"] = *path;  // save(path) reaches it as the option, as in Spark
    ARROW_ASSIGN_OR_RAISE(auto rows, df.ToTable());
    return source->write(rows, options, mode == "overwrite", /*batch_id=*/-1);
  }
  return df.Save(write.source(), path, options, mode, partition_by);
}

arrow::Status WriteV2(const Translator& t, const pb::WriteOperationV2& write) {
  std::string mode;
  switch (write.mode()) {
    case pb::WriteOperationV2::MODE_CREATE: mode = "create"; break;
    case pb::WriteOperationV2::MODE_REPLACE: mode = "replace"; break;
    case pb::WriteOperationV2::MODE_CREATE_OR_REPLACE: mode = "create_or_replace"; break;
    case pb::WriteOperationV2::MODE_APPEND: mode = "append"; break;
    case pb::WriteOperationV2::MODE_OVERWRITE: {
      // overwrite(condition) deletes the rows the condition holds for; only lit(True) is all.
      const auto& condition = write.overwrite_condition();
      if (!condition.has_literal() || !condition.literal().has_boolean() ||
          !condition.literal().boolean()) {
        return Unsupported("writeTo(...).overwrite(condition) with a condition other than lit(True)");
      }
      mode = "overwrite";
      break;
    }
    case pb::WriteOperationV2::MODE_OVERWRITE_PARTITIONS:
      return Unsupported("writeTo(...).overwritePartitions()");
    default: return Unsupported("write_operation_v2 without a mode");
  }
  if (write.clustering_columns_size() > 0) return Unsupported("clusterBy");
  ARROW_ASSIGN_OR_RAISE(auto df, t.Relation(write.input()));
  std::vector<PartitionTerm> partitioning;
  for (const auto& column : write.partitioning_columns()) {
    ARROW_ASSIGN_OR_RAISE(auto term, ToPartitionTerm(column));
    partitioning.push_back(std::move(term));
  }
  std::map<std::string, std::string> properties(write.table_properties().begin(),
                                                write.table_properties().end());
  return t.session()->WriteTable(write.table_name(), df, mode, partitioning, properties,
                                 write.provider());
}

}  // namespace ember::connect
