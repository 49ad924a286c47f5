// ExecutePlan: a root relation runs and its rows go back as Arrow IPC batches after its schema;
// a command runs and returns its typed result. Either way the responses end with
// result_complete, and each carries the session's ids, the operation id and its own response id.
#pragma once

#include <string>
#include <vector>

#include <arrow/result.h>

#include "spark/connect/base.pb.h"

namespace ember::connect {

class ConnectSession;

arrow::Result<std::vector<spark::connect::ExecutePlanResponse>> Execute(
    const ConnectSession& session, const spark::connect::ExecutePlanRequest& request,
    const std::string& operation_id);

}  // namespace ember::connect
