// Names that become directory names: a table's and its namespace's levels under a catalog's
// warehouse, a query's name under spark.sql.streaming.checkpointLocation. Ember joins a root and
// such a name only through these functions, so that the path stays under its root: a name that
// is empty, `.` or `..`, or holds a '/', a NUL or another control character is refused
// (docs/iceberg.md, "Names that cannot be directories"). Paths the user gives are used as given.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <arrow/result.h>

namespace ember {

/// Why `name` cannot be one directory level under a root ("it is `..`", "it holds '/'"), or
/// nothing when it can.
std::optional<std::string> PathSegmentFault(const std::string& name);

/// `root`/`names[0]`/`names[1]`/..., each name one directory level. A name that cannot be one is
/// Spark's INVALID_SCHEMA_OR_RELATION_NAME, naming it and the whole identifier: `names` are the
/// levels of a table's or namespace's identifier.
arrow::Result<std::string> PathUnder(const std::string& root, const std::vector<std::string>& names);

/// The checkpoint of query `query_name` under spark.sql.streaming.checkpointLocation `root`
/// (Spark's new Path(root, queryName)); an IllegalArgumentException naming the query when its
/// name cannot be one directory level.
arrow::Result<std::string> QueryCheckpointLocation(const std::string& root,
                                                   const std::string& query_name);

}  // namespace ember
