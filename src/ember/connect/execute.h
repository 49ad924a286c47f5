// ExecutePlan: a root relation runs and its rows go back as Arrow IPC batches after its schema;
// a command runs and returns its typed result. Either way the responses end with
// result_complete, and each carries the session's ids, the operation id and its own response id.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <arrow/result.h>

#include "spark/connect/base.pb.h"

namespace ember::connect {

class ConnectSession;

arrow::Result<std::vector<spark::connect::ExecutePlanResponse>> Execute(
    const ConnectSession& session, const spark::connect::ExecutePlanRequest& request,
    const std::string& operation_id);

/// The client's listener bus (add_listener_bus_listener): its answers go out as the session's
/// query events come, not after the command, until the client removes it.
bool IsEventStream(const spark::connect::ExecutePlanRequest& request);
arrow::Status StreamEvents(
    const ConnectSession& session, const std::string& operation_id,
    const std::function<bool(const spark::connect::ExecutePlanResponse&)>& write);

}  // namespace ember::connect
