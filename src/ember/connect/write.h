// The client's batch writes: df.write (WriteOperation: save to a path, saveAsTable, insertInto)
// and df.writeTo (WriteOperationV2: create, replace, append, overwrite a catalog table), run on
// the session's writers as SparkConnectPlanner runs them on DataFrameWriter(V2).
#pragma once

#include <arrow/status.h>

namespace spark::connect {
class WriteOperation;
class WriteOperationV2;
}

namespace ember::connect {

class Translator;

arrow::Status Write(const Translator& t, const spark::connect::WriteOperation& write);
arrow::Status WriteV2(const Translator& t, const spark::connect::WriteOperationV2& write);

}  // namespace ember::connect
