#include "ember/error.h"

#include <cstring>

#include <arrow/util/io_util.h>

namespace ember {

const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kAnalysis: return "AnalysisException";
    case ErrorKind::kParse: return "ParseException";
    case ErrorKind::kIllegalArgument: return "IllegalArgumentException";
    case ErrorKind::kArithmetic: return "ArithmeticException";
    case ErrorKind::kNumberFormat: return "NumberFormatException";
    case ErrorKind::kDateTime: return "DateTimeException";
    case ErrorKind::kRuntime: return "SparkRuntimeException";
    case ErrorKind::kStreamingQuery: return "StreamingQueryException";
    case ErrorKind::kUnsupportedOperation: return "UnsupportedOperationException";
    case ErrorKind::kIllegalState: return "IllegalStateException";
    case ErrorKind::kValue: return "PySparkValueError";
    case ErrorKind::kType: return "PySparkTypeError";
    case ErrorKind::kClassNotFound: return "SparkClassNotFoundException";
    case ErrorKind::kNoSuchElement: return "SparkNoSuchElementException";
    case ErrorKind::kPython: return "PythonException";
    case ErrorKind::kInvalidPlanInput: return "InvalidPlanInput";
  }
  return "SparkRuntimeException";
}

arrow::Status UserError(ErrorKind kind, const std::string& condition, const std::string& message,
                        const std::string& sql_state) {
  std::string text;
  if (!condition.empty() && condition.rfind("_LEGACY_ERROR", 0) != 0) text = "[" + condition + "] ";
  text += message;
  if (!sql_state.empty()) text += " SQLSTATE: " + sql_state;
  return arrow::Status(arrow::StatusCode::Invalid, std::move(text),
                       std::make_shared<ErrorDetail>(kind, condition, sql_state));
}

arrow::Status TableOrViewNotFound(const std::vector<std::string>& name_parts) {
  std::string shown;
  for (const auto& p : name_parts) shown += (shown.empty() ? "`" : ".`") + p + "`";
  return UserError(ErrorKind::kAnalysis, "TABLE_OR_VIEW_NOT_FOUND",
                   "The table or view " + shown +
                       " cannot be found. Verify the spelling and correctness of the schema and "
                       "catalog.\nIf you did not qualify the name with a schema, verify the "
                       "current_schema() output, or qualify the name with the correct schema and "
                       "catalog.\nTo tolerate the error on drop use DROP VIEW IF EXISTS or DROP "
                       "TABLE IF EXISTS.",
                   "42P01");
}

namespace {

// "No space left on device (errno 28)" when the status carries an errno, else its message.
std::string WriteReason(const arrow::Status& cause) {
  int errnum = arrow::internal::ErrnoFromStatus(cause);
  if (errnum > 0) return std::string(std::strerror(errnum)) + " (errno " + std::to_string(errnum) + ")";
  return cause.message();
}

}  // namespace

arrow::Status DataFileWriteFailed(const std::string& path, const arrow::Status& cause) {
  if (cause.ok() || GetErrorDetail(cause)) return cause;
  return UserError(ErrorKind::kRuntime, "TASK_WRITE_FAILED",
                   "Task failed while writing rows to " + path + ". " + WriteReason(cause) + ".",
                   "58030");
}

arrow::Status FileWriteFailed(const std::string& path, const arrow::Status& cause) {
  if (cause.ok() || GetErrorDetail(cause)) return cause;
  return UserError(ErrorKind::kRuntime, "", "Cannot write " + path + ": " + WriteReason(cause));
}

arrow::Status FileWriteFailed(const std::string& path, int errnum) {
  return FileWriteFailed(path, arrow::internal::IOErrorFromErrno(errnum, "write failed"));
}

const ErrorDetail* GetErrorDetail(const arrow::Status& status) {
  const auto& detail = status.detail();
  if (detail && std::string(detail->type_id()) == "ember::ErrorDetail") {
    return static_cast<const ErrorDetail*>(detail.get());
  }
  return nullptr;
}

}  // namespace ember
