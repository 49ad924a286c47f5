// The Config RPC: spark.conf on a session, with Spark's defaults for the keys the client reads.
#pragma once

#include <arrow/status.h>

namespace spark::connect {
class ConfigRequest;
class ConfigResponse;
}

namespace ember {
class Session;
}

namespace ember::connect {

arrow::Status RunConfig(Session& session, const spark::connect::ConfigRequest& request,
                        spark::connect::ConfigResponse* response);

}  // namespace ember::connect
