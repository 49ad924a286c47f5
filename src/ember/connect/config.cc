#include "ember/connect/config.h"

#include <map>
#include <optional>
#include <string>

#include "ember/error.h"
#include "ember/session.h"
#include "spark/connect/base.pb.h"

namespace ember::connect {

namespace pb = spark::connect;

namespace {

// Spark's defaults of the keys a client reads without setting them; the Python client reads
// most of these before createDataFrame, toPandas or an error's report.
const std::map<std::string, std::string>& Defaults() {
  static const std::map<std::string, std::string> defaults = {
      {"spark.sql.session.timeZone", "UTC"},
      {"spark.sql.timestampType", "TIMESTAMP_LTZ"},
      {"spark.sql.shuffle.partitions", "200"},
      {"spark.sql.ansi.enabled", "true"},
      {"spark.sql.caseSensitive", "false"},
      {"spark.sql.session.localRelationCacheThreshold", "67108864"},
      {"spark.sql.execution.pandas.convertToArrowArraySafely", "false"},
      {"spark.sql.execution.pandas.inferPandasDictAsMap", "false"},
      {"spark.sql.pyspark.inferNestedDictAsStruct.enabled", "false"},
      {"spark.sql.pyspark.legacy.inferArrayTypeFromFirstElement.enabled", "false"},
      {"spark.sql.pyspark.legacy.inferMapTypeFromFirstPair.enabled", "false"},
      {"spark.sql.execution.arrow.useLargeVarTypes", "false"},
      {"spark.sql.repl.eagerEval.enabled", "false"},
      {"spark.sql.repl.eagerEval.maxNumRows", "20"},
      {"spark.sql.repl.eagerEval.truncate", "20"},
      {"spark.sql.execution.pandas.structHandlingMode", "legacy"},
      {"spark.sql.execution.arrow.pyspark.enabled", "false"},
      {"spark.sql.execution.arrow.pyspark.selfDestruct.enabled", "false"},
      {"spark.sql.execution.pythonUDF.arrow.enabled", "false"},
      {"spark.sql.execution.pythonUDTF.arrow.enabled", "false"},
      {"spark.sql.connect.serverStacktrace.enabled", "false"},
      {"spark.sql.pyspark.jvmStacktrace.enabled", "false"},
      {"spark.sql.streaming.numRecentProgressUpdates", "100"},
  };
  return defaults;
}

std::optional<std::string> Lookup(const Session& session, const std::string& key) {
  if (auto value = session.GetConf(key)) return value;
  auto it = Defaults().find(key);
  if (it != Defaults().end()) return it->second;
  return std::nullopt;
}

arrow::Status NotFound(const std::string& key) {
  return UserError(ErrorKind::kNoSuchElement, "SQL_CONF_NOT_FOUND",
                   "The SQL config \"" + key +
                       "\" cannot be found. Please verify that the config exists.",
                   "42K0I");
}

void Add(pb::ConfigResponse* response, const std::string& key,
         const std::optional<std::string>& value) {
  auto* pair = response->add_pairs();
  pair->set_key(key);
  if (value) pair->set_value(*value);
}

}  // namespace

arrow::Status RunConfig(Session& session, const pb::ConfigRequest& request,
                        pb::ConfigResponse* response) {
  const auto& op = request.operation();
  switch (op.op_type_case()) {
    case pb::ConfigRequest::Operation::kSet:
      // Static and unknown keys are accepted as they are: the client sends its builder's
      // options (spark.app.name, spark.master, ...) silently, as it does to Spark.
      for (const auto& pair : op.set().pairs()) {
        if (pair.has_value()) {
          session.SetConf(pair.key(), pair.value());
        } else {
          session.UnsetConf(pair.key());
        }
      }
      return arrow::Status::OK();
    case pb::ConfigRequest::Operation::kGet:
      for (const auto& key : op.get().keys()) {
        auto value = Lookup(session, key);
        if (!value) return NotFound(key);
        Add(response, key, value);
      }
      return arrow::Status::OK();
    case pb::ConfigRequest::Operation::kGetWithDefault:
      for (const auto& pair : op.get_with_default().pairs()) {
        auto value = session.GetConf(pair.key());
        Add(response, pair.key(), value ? value
                                        : pair.has_value() ? std::optional<std::string>(pair.value())
                                                           : std::nullopt);
      }
      return arrow::Status::OK();
    case pb::ConfigRequest::Operation::kGetOption:
      for (const auto& key : op.get_option().keys()) Add(response, key, Lookup(session, key));
      return arrow::Status::OK();
    case pb::ConfigRequest::Operation::kGetAll: {
      const std::string& prefix = op.get_all().prefix();
      for (const auto& [key, value] : session.AllConf()) {
        if (key.compare(0, prefix.size(), prefix) == 0) Add(response, key, value);
      }
      return arrow::Status::OK();
    }
    case pb::ConfigRequest::Operation::kUnset:
      for (const auto& key : op.unset().keys()) session.UnsetConf(key);
      return arrow::Status::OK();
    case pb::ConfigRequest::Operation::kIsModifiable:
      for (const auto& key : op.is_modifiable().keys()) {
        Add(response, key, key.rfind("spark.sql.", 0) == 0 ? "true" : "false");
      }
      return arrow::Status::OK();
    default:
      return UserError(ErrorKind::kIllegalArgument, "", "Config request without an operation");
  }
}

}  // namespace ember::connect
