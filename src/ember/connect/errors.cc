#include "ember/connect/errors.h"

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ember/error.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

namespace ember::connect {

namespace {

// The classes of the exception Spark throws for an error kind, most specific first, as
// ErrorUtils lists a throwable's class and its superclasses.
std::vector<std::string> JavaClasses(ErrorKind kind) {
  const std::vector<std::string> runtime = {"java.lang.RuntimeException", "java.lang.Exception",
                                            "java.lang.Throwable"};
  auto with = [&](std::vector<std::string> classes, bool is_runtime = true) {
    if (is_runtime) {
      classes.insert(classes.end(), runtime.begin(), runtime.end());
    } else {
      classes.insert(classes.end(), {"java.lang.Exception", "java.lang.Throwable"});
    }
    return classes;
  };
  switch (kind) {
    case ErrorKind::kAnalysis:
      return with({"org.apache.spark.sql.AnalysisException"}, false);
    case ErrorKind::kParse:
      return with({"org.apache.spark.sql.catalyst.parser.ParseException",
                   "org.apache.spark.sql.AnalysisException"}, false);
    case ErrorKind::kIllegalArgument:
    case ErrorKind::kValue:
    case ErrorKind::kType:
      return with({"org.apache.spark.SparkIllegalArgumentException",
                   "java.lang.IllegalArgumentException"});
    case ErrorKind::kArithmetic:
      return with({"org.apache.spark.SparkArithmeticException", "java.lang.ArithmeticException"});
    case ErrorKind::kNumberFormat:
      return with({"org.apache.spark.SparkNumberFormatException",
                   "java.lang.NumberFormatException", "java.lang.IllegalArgumentException"});
    case ErrorKind::kDateTime:
      return with({"org.apache.spark.SparkDateTimeException", "java.time.DateTimeException"});
    case ErrorKind::kRuntime:
      return with({"org.apache.spark.SparkRuntimeException"});
    case ErrorKind::kStreamingQuery:
      return with({"org.apache.spark.sql.streaming.StreamingQueryException"}, false);
    case ErrorKind::kUnsupportedOperation:
      return with({"org.apache.spark.SparkUnsupportedOperationException",
                   "java.lang.UnsupportedOperationException"});
    case ErrorKind::kIllegalState:
      return with({"org.apache.spark.SparkIllegalStateException",
                   "java.lang.IllegalStateException"});
    case ErrorKind::kClassNotFound:
      return with({"org.apache.spark.SparkClassNotFoundException",
                   "java.lang.ClassNotFoundException"}, false);
    case ErrorKind::kNoSuchElement:
      return with({"org.apache.spark.SparkNoSuchElementException",
                   "java.util.NoSuchElementException"});
    case ErrorKind::kPython:
      return with({"org.apache.spark.api.python.PythonException"});
    case ErrorKind::kInvalidPlanInput:
      return with({"org.apache.spark.sql.connect.common.InvalidPlanInput"});
  }
  return with({"org.apache.spark.SparkException"}, false);
}

// Spark abbreviates the status message to 2048 characters (StringUtils.abbreviate: the head and
// "..."): the message travels in gRPC's trailing metadata, which the client caps at 16 KiB.
// Characters are counted as code points and never cut inside one.
std::string Abbreviate(const std::string& text, size_t max_chars = 2048) {
  size_t chars = 0, cut = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;  // a continuation byte
    if (chars == max_chars - 3) cut = i;
    if (++chars > max_chars) return text.substr(0, cut) + "...";
  }
  return text;
}

}  // namespace

CallStatus ToCallStatus(const arrow::Status& status) {
  if (status.ok()) return {};
  const ErrorDetail* detail = GetErrorDetail(status);
  std::string message;
  std::vector<std::string> classes;
  std::string condition;
  std::string sql_state;
  if (detail) {
    message = status.message();
    classes = JavaClasses(detail->kind());
    condition = detail->condition();
    sql_state = detail->sql_state();
  } else {
    condition = "INTERNAL_ERROR";
    sql_state = "XX000";
    message = "[INTERNAL_ERROR] " + status.ToString() + " SQLSTATE: XX000";
    classes = {"org.apache.spark.SparkException", "java.lang.Exception", "java.lang.Throwable"};
  }
  google::rpc::ErrorInfo info;
  info.set_reason(classes.front());
  info.set_domain("org.apache.spark");
  auto& metadata = *info.mutable_metadata();
  metadata["classes"] = nlohmann::json(classes).dump();
  if (!condition.empty()) metadata["errorClass"] = condition;
  if (!sql_state.empty()) metadata["sqlState"] = sql_state;
  metadata["messageParameters"] = "{}";

  // The client checks that the trailer's status has the call's code and message.
  message = Abbreviate(message);
  google::rpc::Status rpc_status;
  constexpr int kInternal = 13;  // grpc::StatusCode::INTERNAL
  rpc_status.set_code(kInternal);
  rpc_status.set_message(message);
  rpc_status.add_details()->PackFrom(info);
  return {kInternal, message, rpc_status.SerializeAsString()};
}

arrow::Status Unsupported(const std::string& what) {
  return UserError(ErrorKind::kUnsupportedOperation, "UNSUPPORTED_FEATURE",
                   "The feature is not supported: Spark Connect " + what + " on Ember.", "0A000");
}

}  // namespace ember::connect
