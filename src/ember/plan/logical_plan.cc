#include "ember/plan/logical_plan.h"

#include <algorithm>
#include <map>

#include <arrow/type.h>

#include "ember/plan/type_names.h"
#include "ember/user_function.h"

namespace ember::plan {

const char* JoinTypeName(JoinType type) {
  switch (type) {
    case JoinType::kInner: return "Inner";
    case JoinType::kLeftOuter: return "LeftOuter";
    case JoinType::kRightOuter: return "RightOuter";
    case JoinType::kFullOuter: return "FullOuter";
    case JoinType::kLeftSemi: return "LeftSemi";
    case JoinType::kLeftAnti: return "LeftAnti";
    case JoinType::kCross: return "Cross";
  }
  return "Inner";
}

namespace {

std::string List(const std::vector<ExprPtr>& exprs) {
  std::string out;
  for (const auto& e : exprs) out += (out.empty() ? "" : ", ") + DisplayName(*e);
  return out;
}

std::string Attributes(const std::vector<Attribute>& attrs) {
  std::string out;
  for (const auto& a : attrs) out += (out.empty() ? "" : ", ") + a.name + "#" + std::to_string(a.id);
  return out;
}

void Print(const LogicalPlan& p, int depth, std::string* out) {
  std::string line(static_cast<size_t>(depth) * 3, ' ');
  if (depth > 0) line += "+- ";
  switch (p.kind) {
    case PlanKind::kLocalTable: line += "LocalRelation [" + Attributes(p.output) + "]"; break;
    case PlanKind::kFileScan:
      line += "Relation [" + Attributes(p.output) + "] " + p.file->format;
      break;
    case PlanKind::kTableScan:
      line += "RelationV2 [" + Attributes(p.output) + "] " + p.scan->Describe();
      break;
    case PlanKind::kStreamSource:
      line += "StreamingRelation [" + Attributes(p.output) + "] " + p.stream_source->format;
      break;
    case PlanKind::kProject: line += "Project [" + List(p.exprs) + "]"; break;
    case PlanKind::kFilter: line += "Filter " + List(p.exprs); break;
    case PlanKind::kAggregate:
      line += "Aggregate [" + List(p.groupings) + "], [" + List(p.exprs) + "]";
      break;
    case PlanKind::kJoin: line += std::string("Join ") + JoinTypeName(p.join_type) + (p.exprs.empty() ? "" : ", " + List(p.exprs)); break;
    case PlanKind::kSort: line += "Sort [" + List(p.exprs) + "]"; break;
    case PlanKind::kLimit: line += "GlobalLimit " + std::to_string(p.limit); break;
    case PlanKind::kUnion: line += "Union"; break;
    case PlanKind::kDeduplicate: line += "Deduplicate [" + List(p.groupings) + "]"; break;
    case PlanKind::kSubqueryAlias: line += "SubqueryAlias " + p.alias; break;
    case PlanKind::kWatermark:
      line += "EventTimeWatermark " + List(p.exprs) + ", " + std::to_string(p.limit) + " ms";
      break;
    case PlanKind::kExpand:
      line += "Expand [" + std::to_string(p.projections.size()) + " projections] [" +
              Attributes(p.output) + "]";
      break;
    case PlanKind::kGenerate: line += "Generate " + List(p.exprs); break;
    case PlanKind::kMapBatches:
      line += "MapInBatches " + p.batch_function->name + " [" + Attributes(p.output) + "]";
      break;
    case PlanKind::kGroupMap:
      line += std::string(p.group_state ? "FlatMapGroupsInPandasWithState " : "FlatMapGroupsInPandas ") +
              p.group_function->name + " [" + List(p.groupings) + "] [" + Attributes(p.output) + "]";
      break;
    case PlanKind::kCollectMetrics:
      line += "CollectMetrics " + p.alias + ", [" + List(p.exprs) + "], " +
              std::to_string(p.observation_id);
      break;
    case PlanKind::kWindow: line += "Window [" + List(p.exprs) + "]"; break;
    case PlanKind::kUnresolvedRelation: line += "UnresolvedRelation"; break;
    case PlanKind::kSelect: line += "Select"; break;
  }
  *out += line + "\n";
  for (const auto& c : p.children) Print(*c, depth + 1, out);
}

}  // namespace

std::string PlanToString(const LogicalPlan& plan) {
  std::string out;
  Print(plan, 0, &out);
  return out;
}

namespace {

void AddReferences(const ExprPtr& e, std::set<int64_t>* out) {
  if (!e) return;
  if (e->kind == ExprKind::kAttribute) out->insert(e->id);
  for (const auto& arg : e->args) AddReferences(arg, out);
}

// The nodes under `p`, each once (a DataFrame used twice is one node), each after its children.
void ChildrenFirst(const LogicalPlan& p, std::set<const LogicalPlan*>* seen,
                   std::vector<const LogicalPlan*>* order) {
  if (!seen->insert(&p).second) return;
  for (const auto& child : p.children) ChildrenFirst(*child, seen, order);
  order->push_back(&p);
}

// The attributes of its children that `p` needs to compute `needed` of its output.
std::set<int64_t> NeededBelow(const LogicalPlan& p, const std::set<int64_t>& needed) {
  std::set<int64_t> below;
  const size_t width = p.output.size();
  if (p.kind == PlanKind::kProject && p.exprs.size() == width) {
    for (size_t i = 0; i < width; ++i) {
      if (needed.count(p.output[i].id)) AddReferences(p.exprs[i], &below);
    }
    return below;
  }
  bool aligned = std::all_of(p.projections.begin(), p.projections.end(),
                             [&](const auto& projection) { return projection.size() == width; });
  if (p.kind == PlanKind::kExpand && aligned) {
    for (const auto& projection : p.projections) {
      for (size_t i = 0; i < width; ++i) {
        if (needed.count(p.output[i].id)) AddReferences(projection[i], &below);
      }
    }
    return below;
  }
  below = needed;
  for (const auto& e : p.exprs) AddReferences(e, &below);
  for (const auto& e : p.groupings) AddReferences(e, &below);
  for (const auto& projection : p.projections) {
    for (const auto& e : projection) AddReferences(e, &below);
  }
  // Positional outputs need every column below them.
  if (p.kind == PlanKind::kUnion || p.kind == PlanKind::kMapBatches ||
      (p.kind == PlanKind::kDeduplicate && p.groupings.empty())) {
    for (const auto& child : p.children) {
      for (const auto& a : child->output) below.insert(a.id);
    }
  }
  return below;
}

}  // namespace

// Spark's ColumnPruning, as far as reading goes: from the result down, each node asks its children
// for what its needed outputs are computed from, so a column that only passes through a projection
// or a window's Expand that drops it is not needed.
std::set<int64_t> ReferencedAttributes(const LogicalPlan& plan) {
  std::set<const LogicalPlan*> seen;
  std::vector<const LogicalPlan*> order;
  ChildrenFirst(plan, &seen, &order);
  std::map<const LogicalPlan*, std::set<int64_t>> needed;
  for (const auto& a : plan.output) needed[&plan].insert(a.id);
  std::set<int64_t> out = needed[&plan];
  // Parents before children: a node's needs are complete before it passes them down.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const LogicalPlan& p = **it;
    std::set<int64_t> below = NeededBelow(p, needed[&p]);
    for (const auto& child : p.children) needed[child.get()].insert(below.begin(), below.end());
    out.insert(below.begin(), below.end());
  }
  return out;
}

std::vector<bool> ReferencedColumns(const LogicalPlan& source, const std::set<int64_t>& referenced) {
  std::vector<bool> columns;
  for (const auto& a : source.output) columns.push_back(referenced.count(a.id) > 0);
  return columns;
}

}  // namespace ember::plan
