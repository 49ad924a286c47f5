// The sources by format name: each is a file of this folder, and a line in kFormats.
#include <arrow/table.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "ember/api/session_catalog.h"
#include "ember/error.h"
#include "ember/plan/expr.h"
#include "ember/session.h"
#include "ember/stream/source/file_source.h"
#include "ember/stream/source/source.h"
#include "ember/streaming.h"
#include "ember/user_function.h"

namespace ember::stream {

using arrow::Result;

// Defined by each source's file.
Result<std::shared_ptr<arrow::Schema>> RateSchema(Session& session, plan::StreamSourceSpec& spec);
Result<std::unique_ptr<Source>> OpenRate(const SourceContext& context);
Result<std::shared_ptr<arrow::Schema>> RateMicroBatchSchema(Session& session,
                                                            plan::StreamSourceSpec& spec);
Result<std::unique_ptr<Source>> OpenRateMicroBatch(const SourceContext& context);
Result<std::shared_ptr<arrow::Schema>> SocketSchema(Session& session, plan::StreamSourceSpec& spec);
Result<std::unique_ptr<Source>> OpenSocket(const SourceContext& context);
Result<std::shared_ptr<arrow::Schema>> IcebergSchema(Session& session,
                                                     plan::StreamSourceSpec& spec);
Result<std::unique_ptr<Source>> OpenIceberg(const SourceContext& context);
Result<std::unique_ptr<Source>> OpenUserSource(const SourceContext& context);

namespace {

struct SourceFormat {
  const char* name;
  Result<std::shared_ptr<arrow::Schema>> (*schema)(Session&, plan::StreamSourceSpec&);
  Result<std::unique_ptr<Source>> (*open)(const SourceContext&);
};

const SourceFormat kFormats[] = {
    {"json", FileStreamSource::Schema, FileStreamSource::Open},
    {"csv", FileStreamSource::Schema, FileStreamSource::Open},
    {"parquet", FileStreamSource::Schema, FileStreamSource::Open},
    {"text", FileStreamSource::Schema, FileStreamSource::Open},
    {"rate", RateSchema, OpenRate},
    {"rate-micro-batch", RateMicroBatchSchema, OpenRateMicroBatch},
    {"socket", SocketSchema, OpenSocket},
    {"iceberg", IcebergSchema, OpenIceberg},
};

Result<const SourceFormat*> Find(const std::string& format) {
  for (const auto& f : kFormats) {
    if (format == f.name) return &f;
  }
  // Formats Spark has that Ember reads only in batch queries.
  if (format == "orc" || format == "avro" || format == "jdbc" || format == "noop" ||
      format == "memory" || format == "console") {
    return UserError(ErrorKind::kUnsupportedOperation, "_LEGACY_ERROR_TEMP_1136",
                     "Data source " + format + " does not support streamed reading", "");
  }
  return UserError(ErrorKind::kClassNotFound, "DATA_SOURCE_NOT_FOUND",
                   "Failed to find the data source: " + format +
                       ". Make sure the provider name is correct and the package is properly "
                       "registered and compatible with your Spark version.",
                   "42K02");
}

}  // namespace

bool SameOffset(const Offset& a, const Offset& b) {
  if (!a || !b) return !a && !b;
  if (*a == *b) return true;
  return nlohmann::json::parse(*a, nullptr, false) == nlohmann::json::parse(*b, nullptr, false);
}

Result<std::shared_ptr<arrow::Table>> Source::ReadPartitions(
    const std::vector<InputPartition>& /*parts*/, const plan::EvalContext& /*ctx*/) const {
  return arrow::Status::NotImplemented(Description(), " has no input partitions");
}

Result<int64_t> IntegerOption(const plan::StreamSourceSpec& spec, const std::string& key,
                              int64_t fallback, int64_t low, int64_t high) {
  auto it = spec.options.find(key);
  if (it == spec.options.end()) return fallback;
  const std::string& text = it->second;
  size_t digits = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  bool ok =
      text.size() > digits && text.find_first_not_of("0123456789", digits) == std::string::npos;
  if (ok) {
    try {
      int64_t value = std::stoll(text);
      if (value >= low && value <= high) return value;
    } catch (...) {
    }
  }
  return UserError(ErrorKind::kNumberFormat, "",
                   "For input string: \"" + text + "\" (option " + key + ")", "");
}

Result<std::shared_ptr<arrow::Schema>> SourceSchema(Session& session,
                                                    plan::StreamSourceSpec& spec) {
  if ((spec.user_source = session.FindDataSource(spec.format))) {
    if (spec.schema) return spec.schema;
    return spec.user_source->schema(spec.options);
  }
  ARROW_ASSIGN_OR_RAISE(const SourceFormat* format, Find(spec.format));
  return format->schema(session, spec);
}

Result<std::unique_ptr<Source>> OpenSource(const SourceContext& context) {
  if (context.spec->user_source) return OpenUserSource(context);
  ARROW_ASSIGN_OR_RAISE(const SourceFormat* format, Find(context.spec->format));
  return format->open(context);
}

}  // namespace ember::stream

namespace ember {

arrow::Result<DataFrame> ReadStream(const std::shared_ptr<Session>& session,
                                    const std::string& format, const std::string& path,
                                    std::shared_ptr<arrow::Schema> schema,
                                    const std::map<std::string, std::string>& options) {
  auto lower = [](std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), ::tolower);
    return text;
  };
  auto spec = std::make_shared<plan::StreamSourceSpec>();
  spec->format = lower(format);
  if (!path.empty()) spec->paths = {path};
  for (const auto& [key, value] : options) spec->options[lower(key)] = value;
  spec->schema = std::move(schema);
  ARROW_ASSIGN_OR_RAISE(spec->schema, stream::SourceSchema(*session, *spec));
  auto node = std::make_shared<plan::LogicalPlan>();
  node->kind = plan::PlanKind::kStreamSource;
  node->is_streaming = true;
  for (const auto& f : spec->schema->fields()) {
    node->output.push_back(
        plan::Attribute{f->name(), plan::NewAttributeId(), f->type(), f->nullable(), ""});
  }
  node->stream_source = std::move(spec);
  return DataFrame(session, node);
}

arrow::Result<DataFrame> ReadStreamTable(const std::shared_ptr<Session>& session,
                                         const std::string& name,
                                         const std::map<std::string, std::string>& options) {
  auto parts = plan::ColumnFromString(name)->name_parts;
  ARROW_ASSIGN_OR_RAISE(bool in_iceberg, session->InIcebergCatalog(parts));
  if (in_iceberg) return ReadStream(session, "iceberg", name, nullptr, options);
  ARROW_ASSIGN_OR_RAISE(auto ident, session->SessionTableName(parts));
  ARROW_ASSIGN_OR_RAISE(auto catalog, session->session_catalog(false));
  std::optional<SessionTable> table;
  if (catalog) {
    ARROW_ASSIGN_OR_RAISE(table, catalog->GetTable(ident.first, ident.second));
  }
  if (!table) return TableOrViewNotFound(parts);
  return ReadStream(session, table->provider, table->location, table->schema, options);
}

}  // namespace ember
