// Ember's errors as Spark Connect reports them, so the client raises the same exception class
// with the same condition and SQLSTATE as against Spark (Spark's ErrorUtils): gRPC status
// INTERNAL with the message, and in the trailer a google.rpc.Status whose ErrorInfo names the
// Java class hierarchy (the client maps the first class it knows to its Python class), the error
// condition, the SQLSTATE and the message parameters.
#pragma once

#include <string>

#include <arrow/status.h>

#include "ember/connect/transport.h"

namespace ember::connect {

/// A failed Status for the client; an error without Ember's ErrorDetail is an internal error
/// (SparkException, INTERNAL_ERROR).
CallStatus ToCallStatus(const arrow::Status& status);

/// A request Ember cannot serve: UNSUPPORTED_FEATURE naming what, e.g. "relation `sample`".
arrow::Status Unsupported(const std::string& what);

}  // namespace ember::connect
