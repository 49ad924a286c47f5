// Arrow IPC streams, the form Spark Connect carries rows in: a client's local relation in, and
// each ArrowBatch of a result out.
#pragma once

#include <memory>
#include <string>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

namespace ember::connect {

/// The table an IPC stream (schema message, then record batches) holds.
arrow::Result<std::shared_ptr<arrow::Table>> ReadIpcStream(const std::string& data);

/// One record batch as a whole IPC stream, as Spark writes each ArrowBatch.data.
arrow::Result<std::string> WriteIpcStream(const arrow::RecordBatch& batch);

}  // namespace ember::connect
