// AnalyzePlan: what the client asks of a plan without running it (schema, explain, streaming or
// not, the server's Spark version, DDL parsing).
#pragma once

#include <arrow/status.h>

#include "spark/connect/base.pb.h"

namespace ember {
class Session;
}

namespace ember::connect {

class ConnectSession;

/// The Spark version Ember answers as, the version of the PySpark client it is tested with.
inline constexpr const char* kSparkVersion = "4.0.1";

arrow::Status Analyze(const ConnectSession& session,
                      const spark::connect::AnalyzePlanRequest& request,
                      spark::connect::AnalyzePlanResponse* response);

}  // namespace ember::connect
