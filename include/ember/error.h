// Errors as Spark reports them. Inside the engine every failure is an arrow::Status; a user's
// mistake carries an ErrorDetail naming the exception class PySpark raises, Spark's error
// condition and SQLSTATE. A Status without an ErrorDetail is Ember's own bug (an internal error).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <arrow/status.h>

namespace ember {

/// The exception class a PySpark user sees.
enum class ErrorKind {
  kAnalysis,             // AnalysisException: names, types, unsupported plans
  kParse,                // ParseException: SQL text that does not parse
  kIllegalArgument,      // IllegalArgumentException: a bad option or argument
  kArithmetic,           // ArithmeticException: overflow, division by zero (ANSI mode)
  kNumberFormat,         // NumberFormatException: a cast of malformed text (ANSI mode)
  kDateTime,             // DateTimeException
  kRuntime,              // SparkRuntimeException: a failure while running a query
  kStreamingQuery,       // StreamingQueryException: a streaming query failed
  kUnsupportedOperation, // UnsupportedOperationException
  kIllegalState,         // IllegalStateException: a checkpoint or log in an unexpected state
  kValue,                // PySparkValueError: an invalid argument value in the Python API
  kType,                 // PySparkTypeError: an argument of the wrong type in the Python API
  kClassNotFound,        // SparkClassNotFoundException: PySpark has no class for it, so
                         // UnknownException, as Spark Connect's client raises it
  kNoSuchElement,        // SparkNoSuchElementException: a configuration key that is not set
  kPython,               // PythonException: a user's Python function raised
  kInvalidPlanInput,     // Spark Connect's InvalidPlanInput: a plan the server cannot take
};

/// Name of the PySpark exception class for a kind, e.g. "AnalysisException".
const char* ErrorKindName(ErrorKind kind);

class ErrorDetail : public arrow::StatusDetail {
 public:
  ErrorDetail(ErrorKind kind, std::string condition, std::string sql_state)
      : kind_(kind), condition_(std::move(condition)), sql_state_(std::move(sql_state)) {}
  const char* type_id() const override { return "ember::ErrorDetail"; }
  std::string ToString() const override { return condition_; }
  ErrorKind kind() const { return kind_; }
  const std::string& condition() const { return condition_; }
  const std::string& sql_state() const { return sql_state_; }

 private:
  ErrorKind kind_;
  std::string condition_;
  std::string sql_state_;
};

/// A user error. With a condition the message reads like Spark's:
/// "[CONDITION] message SQLSTATE: xxxxx".
arrow::Status UserError(ErrorKind kind, const std::string& condition, const std::string& message,
                        const std::string& sql_state = "");

/// Spark's TABLE_OR_VIEW_NOT_FOUND for a name given in parts ({"local", "db", "t"}).
arrow::Status TableOrViewNotFound(const std::vector<std::string>& name_parts);

/// A data file that could not be written (a full disk, a missing permission): Spark's
/// TASK_WRITE_FAILED naming the file, with the system's reason from `cause`.
arrow::Status DataFileWriteFailed(const std::string& path, const arrow::Status& cause);
/// Any other file that could not be written (checkpoint logs, state, table metadata): the file
/// and the system's reason, e.g. "Cannot write /cp/offsets/3: No space left on device (errno 28)".
arrow::Status FileWriteFailed(const std::string& path, const arrow::Status& cause);
/// The same for a failed system call whose errno is `errnum`.
arrow::Status FileWriteFailed(const std::string& path, int errnum);

/// The ErrorDetail of a status, or null for an internal error.
const ErrorDetail* GetErrorDetail(const arrow::Status& status);

}  // namespace ember
