// The SQL parser (ember/sql/parser.h), as spark.sql reaches it, and the expression entry point of
// selectExpr, filter and F.expr. Every input is text a user can type; a failure must be a
// ParseException-like Status, never a crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "ember/sql/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)ember::sql::ParseStatement(text);
  (void)ember::sql::ParseExpression(text);
  return 0;
}
