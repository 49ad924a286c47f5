#include "ember/common/path_segment.h"

#include <cstdio>

#include "ember/error.h"

namespace ember {

namespace {

// `name` with each control character written as \uXXXX, so that a message shows it.
std::string Visible(const std::string& name) {
  std::string out;
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04X", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string Backquoted(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "`" : ".`") + Visible(p) + "`";
  return out;
}

std::string Joined(const std::string& root, const std::string& name) {
  if (!root.empty() && root.back() == '/') return root + name;
  return root + "/" + name;
}

}  // namespace

std::optional<std::string> PathSegmentFault(const std::string& name) {
  if (name.empty()) return std::string("it is empty");
  if (name == "." || name == "..") return "it is `" + name + "`";
  for (unsigned char c : name) {
    if (c == '/') return std::string("it holds '/'");
    if (c < 0x20 || c == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof(code), "U+%04X", c);
      return std::string(c == 0 ? "it holds a NUL (" : "it holds the control character ") +
             code + (c == 0 ? ")" : "");
    }
  }
  return std::nullopt;
}

arrow::Result<std::string> PathUnder(const std::string& root,
                                     const std::vector<std::string>& names) {
  std::string path = root;
  for (const auto& name : names) {
    if (auto fault = PathSegmentFault(name)) {
      return UserError(ErrorKind::kAnalysis, "INVALID_SCHEMA_OR_RELATION_NAME",
                       Backquoted({name}) + " is not a valid name for tables/schemas (in " +
                           Backquoted(names) + "): " + *fault +
                           ". Ember makes each level of a table's name a directory under the "
                           "catalog's warehouse, so a level cannot be empty, `.` or `..`, nor "
                           "hold '/', a NUL or a control character.",
                       "42602");
    }
    path = Joined(path, name);
  }
  return path;
}

arrow::Result<std::string> QueryCheckpointLocation(const std::string& root,
                                                   const std::string& query_name) {
  if (auto fault = PathSegmentFault(query_name)) {
    return UserError(ErrorKind::kIllegalArgument, "",
                     "The query name '" + Visible(query_name) +
                         "' cannot name a checkpoint directory under "
                         "spark.sql.streaming.checkpointLocation (" +
                         root + "): " + *fault +
                         ". Give the query a name that is one directory level, or set its "
                         "checkpointLocation option.",
                     "");
  }
  return Joined(root, query_name);
}

}  // namespace ember
