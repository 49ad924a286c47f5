// explain() of a streaming DataFrame or query: the plan as Spark's IncrementalExecution plans it,
// as far as Ember's operators go: the stateful nodes under Spark's physical names
// (StreamingGlobalLimit, StateStoreSave/StateStoreRestore, StreamingDeduplicate,
// StreamingSymmetricHashJoin), the sources as StreamingRelation (or, for a query that ran, the
// FileScan of its batch), every other node as the logical plan prints it.
#include <algorithm>
#include <string>

#include "ember/plan/expr.h"
#include "ember/plan/logical_plan.h"
#include "ember/stream/incremental.h"
#include "ember/streaming.h"

namespace ember {

namespace {

using plan::LogicalPlan;
using plan::PlanKind;

std::string List(const std::vector<plan::ExprPtr>& exprs) {
  std::string out;
  for (const auto& e : exprs) out += (out.empty() ? "" : ", ") + plan::DisplayName(*e);
  return out;
}

std::string Attributes(const std::vector<plan::Attribute>& attrs) {
  std::string out;
  for (const auto& a : attrs) out += (out.empty() ? "" : ", ") + a.name + "#" + std::to_string(a.id);
  return out;
}

bool IsFileFormat(const std::string& format) {
  return format == "json" || format == "csv" || format == "parquet" || format == "text";
}

struct Printer {
  std::string mode;  // Append, Complete, Update
  bool ran;          // a query that ran a batch: sources print as their batch's scan
  std::string out;

  void Line(int depth, const std::string& text) {
    // Spark's tree string: a child's "+- " under its parent's first character.
    std::string line(static_cast<size_t>(std::max(depth - 1, 0)) * 3, ' ');
    if (depth > 0) line += "+- ";
    out += line + text + "\n";
  }

  void Print(const LogicalPlan& p, int depth) {
    std::string lower = mode;
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    switch (p.kind) {
      case PlanKind::kStreamSource: {
        const auto& spec = *p.stream_source;
        const std::string path = spec.paths.empty() ? "" : spec.paths[0];
        if (ran && IsFileFormat(spec.format)) {
          Line(depth, "FileScan " + spec.format + " [" + Attributes(p.output) + "] Location: " + path);
        } else {
          Line(depth, "StreamingRelation " +
                          (IsFileFormat(spec.format) ? "FileSource[" + path + "]" : spec.format) +
                          ", [" + Attributes(p.output) + "]");
        }
        return;
      }
      case PlanKind::kLimit: {
        bool stateful = stream::KeepsState(p, lower);
        Line(depth, (stateful ? "StreamingGlobalLimit " : "GlobalLimit ") + std::to_string(p.limit) +
                        (stateful ? ", " + mode : ""));
        Line(depth + 1, "LocalLimit " + std::to_string(p.limit));
        Print(*p.children[0], depth + 2);
        return;
      }
      case PlanKind::kAggregate:
        if (stream::KeepsState(p, lower)) {
          const std::string keys = "[" + List(p.groupings) + "]";
          Line(depth, "HashAggregate(keys=" + keys + ", functions=[" + List(p.exprs) + "])");
          Line(depth + 1, "StateStoreSave " + keys + ", " + mode);
          Line(depth + 2, "StateStoreRestore " + keys);
          Line(depth + 3, "HashAggregate(keys=" + keys + ", functions=[partial])");
          Print(*p.children[0], depth + 4);
          return;
        }
        break;
      case PlanKind::kDeduplicate:
        if (stream::KeepsState(p, lower)) {
          Line(depth, std::string(p.within_watermark ? "StreamingDeduplicateWithinWatermark ["
                                                     : "StreamingDeduplicate [") +
                          List(p.groupings) + "]");
          Print(*p.children[0], depth + 1);
          return;
        }
        break;
      case PlanKind::kJoin:
        if (stream::KeepsState(p, lower)) {
          Line(depth, std::string("StreamingSymmetricHashJoin ") + plan::JoinTypeName(p.join_type) +
                          (p.exprs.empty() ? "" : ", " + List(p.exprs)));
          for (const auto& child : p.children) Print(*child, depth + 1);
          return;
        }
        break;
      default:
        break;
    }
    // Any other node as the logical plan prints it: its own line of PlanToString.
    std::string text = plan::PlanToString(p);
    Line(depth, text.substr(0, text.find('\n')));
    for (const auto& child : p.children) Print(*child, depth + 1);
  }
};

}  // namespace

std::string ExplainStream(const DataFrame& df, const std::string& output_mode, bool ran) {
  std::string mode = output_mode.empty() ? "append" : output_mode;
  std::transform(mode.begin(), mode.end(), mode.begin(), ::tolower);
  mode[0] = static_cast<char>(::toupper(mode[0]));
  Printer printer{mode, ran, ""};
  printer.Print(*df.plan(), 0);
  return printer.out;
}

}  // namespace ember
