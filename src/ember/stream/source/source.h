// The source interface, shaped like Spark's MicroBatchStream (with SupportsAdmissionControl and
// SupportsTriggerAvailableNow). The micro-batch loop asks each source for the offset its next
// batch ends at, writes that offset into offsets/N as Spark's JSON text, then reads the rows
// between the last committed offset and it. A source keeps whatever else it needs (a file list,
// a start time) in its own directory of the checkpoint, sources/<i>.
//
// Adding a source: one file with a class implementing Source, and a line in registry.cc naming
// its format, its schema (from the options, with the session when it resolves a table) and how
// it opens.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>
#include <arrow/type_fwd.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/plan/logical_plan.h"

namespace ember {
class Session;
}  // namespace ember

namespace ember::plan {
struct EvalContext;
}  // namespace ember::plan

namespace ember::stream {

/// A source's offset as offsets/N holds it: Spark's JSON text for the source ({"logOffset":3}
/// for files, 42 for rate). nullopt where Spark writes "-": the source had no data yet.
using Offset = std::optional<std::string>;

/// Whether two offsets are the same position (their JSON values equal, whatever the spacing
/// or the order of an object's keys).
bool SameOffset(const Offset& a, const Offset& b);

/// A part of a batch's input that a task can read alone (Spark's InputPartition).
struct InputPartition {
  std::string location;  // what the source reads for it: a file
  int64_t bytes = 0;     // its size, for packing tasks
};

/// What a source is opened with.
struct SourceContext {
  std::shared_ptr<const plan::StreamSourceSpec> spec;
  std::string directory;  // <checkpoint>/sources/<i>: the source's own metadata
  /// The session's configuration.
  std::function<std::optional<std::string>(const std::string&)> conf;
  /// The columns the query references (of the spec's schema, in order); empty: all.
  std::vector<bool> referenced_columns;
};

class Source {
 public:
  virtual ~Source() = default;

  /// On every start: reads what the source keeps in its directory; fails naming a damaged file.
  virtual arrow::Status Restore() { return arrow::Status::OK(); }
  /// On restart: the offsets log names `end` as a batch's end; fails (naming what is missing)
  /// when the source cannot read that batch again exactly.
  virtual arrow::Status CheckReplayable(const std::string& /*end*/) const {
    return arrow::Status::OK();
  }
  /// Trigger.AvailableNow: later triggers read only what is available now.
  virtual arrow::Status PrepareForAvailableNow() { return arrow::Status::OK(); }
  /// Trigger.Once: one batch of everything available, whatever the read limits say.
  virtual void ReadAllAvailable() {}

  /// The offset the next batch ends at, within the source's read limits (Spark's
  /// latestOffset(start, readLimit)); `start` when nothing is new.
  virtual arrow::Result<Offset> LatestOffset(const Offset& start) = 0;

  /// The rows after `start` up to and including `end`, columns as the spec's schema.
  virtual arrow::Result<std::shared_ptr<arrow::Table>> ReadBatch(const Offset& start,
                                                                 const std::string& end,
                                                                 const plan::EvalContext& ctx) = 0;
  /// A source whose batches split into parts that tasks read in parallel returns the parts, in
  /// the order their rows make the batch; empty (the default): read whole with ReadBatch.
  virtual arrow::Result<std::vector<InputPartition>> PlanInputPartitions(
      const Offset& /*start*/, const std::string& /*end*/) {
    return std::vector<InputPartition>{};
  }
  /// The rows of parts that PlanInputPartitions returned.
  virtual arrow::Result<std::shared_ptr<arrow::Table>> ReadPartitions(
      const std::vector<InputPartition>& parts, const plan::EvalContext& ctx) const;

  /// The batch ending at `end` is committed: the source may let go of its input (cleanSource).
  virtual arrow::Status Commit(const std::string& /*end*/) { return arrow::Status::OK(); }
  /// The query stops: release connections.
  virtual void Stop() {}

  /// progress sources[].description, as Spark's source's toString.
  virtual std::string Description() const = 0;
  /// progress sources[].metrics (Spark's ReportsSourceMetrics); none by default.
  virtual std::map<std::string, std::string> Metrics(const Offset& /*latest*/) const { return {}; }
};

/// The columns a stream of this spec has (Spark's sourceSchema), checking the options that
/// decide them; a source may also attach to the spec what it resolved with the session (a
/// catalog's table). An unknown format is Spark's DATA_SOURCE_NOT_FOUND.
arrow::Result<std::shared_ptr<arrow::Schema>> SourceSchema(Session& session, plan::StreamSourceSpec& spec);

/// An integer option as Java's Integer.parseInt / Long.parseLong reads it, within [low, high];
/// `fallback` when it is not set. Anything else is Java's NumberFormatException, naming the option.
arrow::Result<int64_t> IntegerOption(const plan::StreamSourceSpec& spec, const std::string& key,
                                     int64_t fallback, int64_t low = INT64_MIN,
                                     int64_t high = INT64_MAX);

/// Opens the source of the spec's format.
arrow::Result<std::unique_ptr<Source>> OpenSource(const SourceContext& context);

}  // namespace ember::stream
