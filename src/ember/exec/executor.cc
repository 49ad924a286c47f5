#include "ember/exec/executor.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <set>

#include <arrow/acero/exec_plan.h>
#include <arrow/acero/map_node.h>
#include <arrow/acero/options.h>
#include <arrow/acero/util.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/array/util.h>
#include <arrow/compute/api.h>
#include <arrow/table.h>

#include "ember/error.h"
#include "ember/exec/generate_node.h"
#include "ember/exec/group_map.h"
#include "ember/exec/incremental_aggregate.h"
#include "ember/exec/kernels.h"
#include "ember/exec/window_node.h"
#include "ember/io/file_reader.h"
#include "ember/plan/type_names.h"

namespace ember::exec {

namespace ac = arrow::acero;
namespace cp = arrow::compute;
using arrow::Result;
using arrow::Status;
using plan::Expr;
using plan::ExprKind;
using plan::LogicalPlan;
using plan::PlanKind;

std::string ColumnName(int64_t attribute_id) { return "#" + std::to_string(attribute_id); }

int64_t BatchSizeFromEnvironment() {
  const char* value = std::getenv("EMBER_BATCH_SIZE");
  return value ? std::atoll(value) : 0;
}

Result<cp::Expression> LowerExpr(const Expr& e, const plan::EvalContext& ctx);

namespace {

// The attributes an expression reads, less the lambda variables it defines (a nested lambda's).
void OuterAttributes(const Expr& e, std::vector<int64_t>* read, std::set<int64_t>* defined) {
  if (e.kind == ExprKind::kAttribute) {
    if (std::find(read->begin(), read->end(), e.id) == read->end()) read->push_back(e.id);
    return;
  }
  if (e.kind == ExprKind::kLambda) {
    for (size_t k = 1; k < e.args.size(); ++k) defined->insert(e.args[k]->id);
  }
  for (const auto& a : e.args) OuterAttributes(*a, read, defined);
}

// A higher-order function: its lambdas' bodies lowered over their variables' columns, and the
// outer columns they read passed as arguments (ember_higher_order evaluates the bodies).
Result<cp::Expression> LowerHigherOrder(const Expr& e, const plan::FunctionDef& def,
                                        const plan::EvalContext& ctx) {
  HigherOrderCall call;
  call.function = def.name == "reduce" ? "aggregate" : def.name;
  call.result_type = e.type;
  std::vector<cp::Expression> args;
  std::vector<int64_t> read;
  std::set<int64_t> defined;
  for (const auto& a : e.args) {
    if (a->kind != ExprKind::kLambda) {
      ARROW_ASSIGN_OR_RAISE(auto lowered, LowerExpr(*a, ctx));
      args.push_back(std::move(lowered));
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto body, LowerExpr(*a->args[0], ctx));
    call.bodies.push_back(std::move(body));
    std::vector<std::string> variables;
    for (size_t k = 1; k < a->args.size(); ++k) variables.push_back(ColumnName(a->args[k]->id));
    call.variables.push_back(std::move(variables));
    OuterAttributes(*a, &read, &defined);
  }
  for (int64_t id : read) {
    if (defined.count(id)) continue;
    call.outer_columns.push_back(ColumnName(id));
    args.push_back(cp::field_ref(ColumnName(id)));
  }
  return CallHigherOrder(std::move(call), std::move(args));
}

}  // namespace

Result<cp::Expression> LowerExpr(const Expr& e, const plan::EvalContext& ctx) {
  switch (e.kind) {
    case ExprKind::kAttribute:
      return cp::field_ref(ColumnName(e.id));
    case ExprKind::kLiteral:
      return cp::literal(arrow::Datum(e.value));
    case ExprKind::kAlias:
    case ExprKind::kSortOrder:
      return LowerExpr(*e.args[0], ctx);
    case ExprKind::kCast: {
      ARROW_ASSIGN_OR_RAISE(auto arg, LowerExpr(*e.args[0], ctx));
      return plan::LowerCast(arg, e.args[0]->type, e.type, e.try_cast, ctx);
    }
    case ExprKind::kCall: {
      if (const plan::FunctionDef* def = plan::FindFunction(e.name);
          def && def->lambda_variables && !e.function) {
        return LowerHigherOrder(e, *def, ctx);
      }
      std::vector<cp::Expression> args;
      for (const auto& a : e.args) {
        ARROW_ASSIGN_OR_RAISE(auto lowered, LowerExpr(*a, ctx));
        args.push_back(std::move(lowered));
      }
      if (e.function) return CallUserFunction(e.function, std::move(args), e.keywords);
      const plan::FunctionDef* def = plan::FindFunction(e.name);
      if (!def || !def->lower) return Status::Invalid("cannot evaluate ", plan::DisplayName(e));
      ARROW_ASSIGN_OR_RAISE(auto lowered, def->lower(e, std::move(args), ctx));
      // Arrow sizes decimals and names list elements its own way; the analyzer's (Spark's) type is
      // the contract.
      if (e.type->id() == arrow::Type::DECIMAL128 || e.type->id() == arrow::Type::LIST) {
        return cp::call("cast", {std::move(lowered)}, cp::CastOptions::Safe(e.type));
      }
      return lowered;
    }
    default:
      return Status::Invalid("unresolved expression ", plan::DisplayName(e));
  }
}

namespace {

// A withWatermark node as Acero sees it: each batch passes unchanged after its event-time column
// went to the observer, so the engine's statistics need no second run of the node's input.
struct WatermarkTapOptions : ac::ExecNodeOptions {
  int64_t event_time_id = -1;
  std::function<void(int64_t, const arrow::Array&)> observer;
};

class WatermarkTapNode : public ac::MapNode {
 public:
  WatermarkTapNode(ac::ExecPlan* plan, std::vector<ac::ExecNode*> inputs, const WatermarkTapOptions& options)
      : MapNode(plan, inputs, inputs[0]->output_schema()),
        column_(inputs[0]->output_schema()->GetFieldIndex(ColumnName(options.event_time_id))),
        options_(options) {}

  static Result<ac::ExecNode*> Make(ac::ExecPlan* plan, std::vector<ac::ExecNode*> inputs,
                                    const ac::ExecNodeOptions& options) {
    ARROW_RETURN_NOT_OK(ac::ValidateExecNodeInputs(plan, inputs, 1, "WatermarkTapNode"));
    const auto& tap = static_cast<const WatermarkTapOptions&>(options);
    return plan->EmplaceNode<WatermarkTapNode>(plan, std::move(inputs), tap);
  }

  const char* kind_name() const override { return "WatermarkTapNode"; }

 protected:
  Result<cp::ExecBatch> ProcessBatch(cp::ExecBatch batch) override {
    if (column_ < 0) return Status::Invalid("the event-time column of a watermark is missing");
    const arrow::Datum& times = batch.values[static_cast<size_t>(column_)];
    if (times.is_array()) {
      options_.observer(options_.event_time_id, *times.make_array());
    } else {
      ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*times.scalar(), batch.length));
      options_.observer(options_.event_time_id, *array);
    }
    return batch;
  }

 private:
  int column_;
  WatermarkTapOptions options_;
};

constexpr const char* kWatermarkTap = "ember_watermark_tap";

Status RegisterWatermarkTap() {
  static Status registered = ac::default_exec_factory_registry()->AddFactory(kWatermarkTap, WatermarkTapNode::Make);
  return registered;
}

// Builds Acero declarations for a plan; every declaration's columns are named by attribute id,
// in the plan's output order.
class PlanBuilder {
 public:
  PlanBuilder(const ExecOptions& options, std::set<int64_t> referenced)
      : options_(options), referenced_(std::move(referenced)) {}

  // A filter's input; a table scan right below (through aliases) gets the filter's conjuncts.
  Result<ac::Declaration> FilterInput(const LogicalPlan& filter) {
    const LogicalPlan* child = filter.children[0].get();
    while (child->kind == PlanKind::kSubqueryAlias) child = child->children[0].get();
    if (child->kind != PlanKind::kTableScan) return Build(*filter.children[0]);
    std::vector<plan::ExprPtr> conjuncts;
    std::vector<plan::ExprPtr> pending = {filter.exprs[0]};
    while (!pending.empty()) {
      auto e = pending.back();
      pending.pop_back();
      if (e->kind == plan::ExprKind::kCall && e->name == "and") {
        pending.insert(pending.end(), e->args.begin(), e->args.end());
      } else {
        conjuncts.push_back(e);
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto table, child->scan->Read(conjuncts, child->output));
    return Source(table, *child);
  }

  Result<ac::Declaration> Build(const LogicalPlan& p) {
    switch (p.kind) {
      case PlanKind::kLocalTable:
        return Source(p.table, p);
      case PlanKind::kFileScan: {
        ARROW_ASSIGN_OR_RAISE(auto table, io::ReadFileSource(*p.file, options_.eval,
                                                             plan::ReferencedColumns(p, referenced_)));
        return Source(table, p);
      }
      case PlanKind::kSubqueryAlias:
        return Build(*p.children[0]);
      case PlanKind::kWatermark: {
        // The streaming engine applies watermarks; a batch query passes rows through.
        ARROW_ASSIGN_OR_RAISE(auto input, Build(*p.children[0]));
        if (!options_.watermark_observer) return input;
        ARROW_RETURN_NOT_OK(RegisterWatermarkTap());
        WatermarkTapOptions tap;
        tap.event_time_id = p.exprs[0]->id;
        tap.observer = options_.watermark_observer;
        return ac::Declaration(kWatermarkTap, {std::move(input)}, std::move(tap));
      }
      case PlanKind::kCollectMetrics: {
        if (!options_.metrics_observer) return Build(*p.children[0]);
        // The rows pass whole, so that the metrics are known before any row goes on.
        ARROW_ASSIGN_OR_RAISE(auto rows, Materialize(*p.children[0]));
        ARROW_ASSIGN_OR_RAISE(auto metrics, ObservedMetrics(p, rows));
        options_.metrics_observer(p, std::move(metrics));
        return Source(std::move(rows), p, /*rename=*/false);
      }
      case PlanKind::kProject: {
        ARROW_ASSIGN_OR_RAISE(auto input, Build(*p.children[0]));
        std::vector<cp::Expression> exprs;
        for (const auto& e : p.exprs) {
          ARROW_ASSIGN_OR_RAISE(auto lowered, LowerExpr(*e, options_.eval));
          exprs.push_back(std::move(lowered));
        }
        return Project(std::move(input), std::move(exprs), Names(p));
      }
      case PlanKind::kTableScan: {
        ARROW_ASSIGN_OR_RAISE(auto table, p.scan->Read({}, p.output));
        return Source(table, p);
      }
      case PlanKind::kFilter: {
        ARROW_ASSIGN_OR_RAISE(auto input, FilterInput(p));
        ARROW_ASSIGN_OR_RAISE(auto condition, LowerExpr(*p.exprs[0], options_.eval));
        return ac::Declaration("filter", {std::move(input)},
                               ac::FilterNodeOptions(std::move(condition)));
      }
      case PlanKind::kAggregate:
        return Aggregate(p);
      case PlanKind::kDeduplicate:
        return Deduplicate(p);
      case PlanKind::kJoin:
        return Join(p);
      case PlanKind::kUnion: {
        std::vector<ac::Declaration::Input> inputs;
        for (const auto& child : p.children) {
          ARROW_ASSIGN_OR_RAISE(auto input, Build(*child));
          // Name each side's columns as the union's output.
          std::vector<cp::Expression> refs;
          for (const auto& a : child->output) refs.push_back(cp::field_ref(ColumnName(a.id)));
          inputs.push_back(Project(std::move(input), std::move(refs), Names(p)));
        }
        return ac::Declaration("union", std::move(inputs), ac::ExecNodeOptions{});
      }
      case PlanKind::kExpand: {
        // The input once, then each projection of it.
        ARROW_ASSIGN_OR_RAISE(auto table, Materialize(*p.children[0]));
        std::vector<ac::Declaration::Input> inputs;
        for (const auto& projection : p.projections) {
          std::vector<cp::Expression> exprs;
          for (const auto& e : projection) {
            ARROW_ASSIGN_OR_RAISE(auto lowered, LowerExpr(*e, options_.eval));
            exprs.push_back(std::move(lowered));
          }
          ARROW_ASSIGN_OR_RAISE(auto source, Source(table, *p.children[0], /*rename=*/false));
          inputs.push_back(Project(std::move(source), std::move(exprs), Names(p)));
        }
        return ac::Declaration("union", std::move(inputs), ac::ExecNodeOptions{});
      }
      case PlanKind::kGenerate: {
        const Expr& call = *p.exprs[0];
        GenerateSpec spec;
        for (const auto& arg : call.args) {
          ARROW_ASSIGN_OR_RAISE(auto lowered, LowerExpr(*arg, options_.eval));
          spec.args.push_back(std::move(lowered));
        }
        const auto names = Names(p);
        for (size_t i = p.children[0]->output.size(); i < p.output.size(); ++i) {
          spec.fields.push_back(arrow::field(names[i], p.output[i].type));
        }
        if (call.table_function) {
          spec.generator = TableFunctionGenerator(call.table_function, call.keywords);
        } else {
          const plan::FunctionDef& def = *plan::FindFunction(call.name);
          spec.generator = ExplodeGenerator(def.generator_outer, def.generator_position,
                                            plan::GeneratesFields(call));
        }
        if (p.partitioned) {
          // The child's rows are sorted by the partitions' keys: one call per partition.
          ARROW_ASSIGN_OR_RAISE(auto table, Materialize(*p.children[0]));
          std::vector<int> keys;
          for (const auto& key : p.groupings) {
            keys.push_back(plan::AttributeIndex(p.children[0]->output, key->id));
          }
          ARROW_ASSIGN_OR_RAISE(auto out, GeneratePartitions(table, std::move(spec), keys));
          return Source(std::move(out), p);
        }
        ARROW_ASSIGN_OR_RAISE(auto input, Build(*p.children[0]));
        return GenerateDeclaration(std::move(input), std::move(spec));
      }
      case PlanKind::kMapBatches: {
        ARROW_ASSIGN_OR_RAISE(auto input, Build(*p.children[0]));
        std::vector<std::string> input_names;
        for (const auto& a : p.children[0]->output) input_names.push_back(a.name);
        return MapBatchesDeclaration(std::move(input), p.batch_function, std::move(input_names),
                                     Names(p));
      }
      case PlanKind::kGroupMap: {
        if (p.group_state) {
          return Status::Invalid("applyInPandasWithState runs only as a stream's stateful operator");
        }
        // Each child's part of the groupings and of the columns, in turn.
        std::vector<GroupedInput> inputs;
        const size_t keys_per_child = p.groupings.size() / p.children.size();
        size_t next_column = 0;
        for (size_t c = 0; c < p.children.size(); ++c) {
          const auto& input = p.children[c]->output;
          GroupedInput grouped;
          ARROW_ASSIGN_OR_RAISE(grouped.table, Materialize(*p.children[c]));
          for (size_t k = 0; k < keys_per_child; ++k) {
            grouped.key_columns.push_back(plan::AttributeIndex(input, p.groupings[c * keys_per_child + k]->id));
          }
          // A child's columns are a prefix of its output (computed keys come after them).
          for (size_t i = 0; i < input.size() && next_column < p.exprs.size() &&
                             p.exprs[next_column]->id == input[i].id;
               ++i, ++next_column) {
            grouped.data_columns.push_back(static_cast<int>(i));
            grouped.data_names.push_back(p.exprs[next_column]->name);
          }
          inputs.push_back(std::move(grouped));
        }
        ARROW_ASSIGN_OR_RAISE(auto out, ApplyToGroups(*p.group_function, inputs));
        return Source(std::move(out), p);
      }
      case PlanKind::kWindow: {
        ARROW_ASSIGN_OR_RAISE(auto rows, Materialize(*p.children[0]));
        ARROW_ASSIGN_OR_RAISE(auto table, ComputeWindow(p, std::move(rows), options_));
        return Source(std::move(table), p);
      }
      case PlanKind::kSort: {
        ARROW_ASSIGN_OR_RAISE(auto table, SortedTable(p));
        return Source(table, p, /*rename=*/false);
      }
      case PlanKind::kLimit: {
        ARROW_ASSIGN_OR_RAISE(auto table, Materialize(*p.children[0]));
        return Source(table->Slice(0, p.limit), p, /*rename=*/false);
      }
      default:
        return Status::Invalid("cannot execute an unresolved plan");
    }
  }

  Result<std::shared_ptr<arrow::Table>> Materialize(const LogicalPlan& p) {
    ARROW_ASSIGN_OR_RAISE(auto declaration, Build(p));
    return ac::DeclarationToTable(std::move(declaration), /*use_threads=*/false);
  }

 private:
  static std::vector<std::string> Names(const LogicalPlan& p) {
    std::vector<std::string> names;
    for (const auto& a : p.output) names.push_back(ColumnName(a.id));
    return names;
  }

  static ac::Declaration Project(ac::Declaration input, std::vector<cp::Expression> exprs,
                                 std::vector<std::string> names) {
    return ac::Declaration("project", {std::move(input)},
                           ac::ProjectNodeOptions(std::move(exprs), std::move(names)));
  }

  Result<ac::Declaration> Source(std::shared_ptr<arrow::Table> table, const LogicalPlan& p,
                                 bool rename = true) {
    if (rename) {
      ARROW_ASSIGN_OR_RAISE(table, table->RenameColumns(Names(p)));
    }
    int64_t batch = options_.max_batch_rows > 0 ? options_.max_batch_rows
                                                : ac::TableSourceNodeOptions::kDefaultMaxBatchSize;
    return ac::Declaration("table_source", ac::TableSourceNodeOptions(std::move(table), batch));
  }

  // An observe() node's metrics over `rows`, its child's: the node's metrics plan (a global
  // aggregation, see LogicalPlan::metrics_plan) with the rows in its stand-in leaf.
  Result<std::shared_ptr<arrow::RecordBatch>> ObservedMetrics(const LogicalPlan& p,
                                                              const std::shared_ptr<arrow::Table>& rows) {
    std::function<plan::PlanPtr(const plan::PlanPtr&)> bind = [&](const plan::PlanPtr& node) {
      auto copy = std::make_shared<LogicalPlan>(*node);
      if (node->kind == PlanKind::kLocalTable && !node->table) copy->table = rows;
      for (auto& child : copy->children) child = bind(child);
      return plan::PlanPtr(copy);
    };
    ExecOptions options = options_;
    options.metrics_observer = nullptr;
    ARROW_ASSIGN_OR_RAISE(auto table, Execute(bind(p.metrics_plan), options));
    return table->CombineChunksToBatch();
  }

  Result<ac::Declaration> Aggregate(const LogicalPlan& p) {
    for (const auto& key : p.groupings) {
      if (key->kind == ExprKind::kCall && key->name == "session_window") return SessionAggregate(p);
    }
    // The analyzer lets an aggregation hold users' aggregate functions only, or none.
    if (!p.exprs.empty() && p.exprs[0]->function) return UserAggregate(p);
    ARROW_ASSIGN_OR_RAISE(auto input, Build(*p.children[0]));
    // Compute keys and aggregate arguments first, then aggregate by name.
    std::vector<cp::Expression> exprs;
    std::vector<std::string> names;
    std::vector<arrow::FieldRef> keys;
    // Acero cannot group by a struct (a window): group by its fields and rebuild it after.
    std::vector<cp::Expression> key_outputs;
    for (size_t i = 0; i < p.groupings.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(auto key, LowerExpr(*p.groupings[i], options_.eval));
      const auto& type = p.groupings[i]->type;
      std::string name = "k" + std::to_string(i);
      if (type->id() != arrow::Type::STRUCT) {
        exprs.push_back(std::move(key));
        names.push_back(name);
        keys.emplace_back(name);
        key_outputs.push_back(cp::field_ref(name));
        continue;
      }
      std::vector<cp::Expression> fields;
      std::vector<std::string> field_names;
      for (int f = 0; f < type->num_fields(); ++f) {
        std::string field_name = name + "_" + std::to_string(f);
        exprs.push_back(cp::call("struct_field", {key}, cp::StructFieldOptions({f})));
        names.push_back(field_name);
        keys.emplace_back(field_name);
        fields.push_back(cp::field_ref(field_name));
        field_names.push_back(type->field(f)->name());
      }
      key_outputs.push_back(cp::call("make_struct", fields, cp::MakeStructOptions(field_names)));
    }
    std::vector<cp::Aggregate> aggregates;
    // Per aggregate, the scalar function from its kernel's result to its value, if any.
    std::vector<std::string> finalizers(p.exprs.size());
    for (size_t i = 0; i < p.exprs.size(); ++i) {
      const Expr& call = *p.exprs[i];
      const plan::FunctionDef* def = plan::FindFunction(call.name);
      ARROW_ASSIGN_OR_RAISE(auto arg, LowerExpr(*call.args[0], options_.eval));
      if (call.args.size() > 1 && def->name == "count") {
        // count(DISTINCT a, b): one text key per row, NULL when any part is NULL.
        std::vector<cp::Expression> parts;
        for (const auto& a : call.args) {
          ARROW_ASSIGN_OR_RAISE(auto part, LowerExpr(*a, options_.eval));
          ARROW_ASSIGN_OR_RAISE(part, plan::LowerCast(part, a->type, arrow::utf8(), false,
                                                      options_.eval));
          parts.push_back(std::move(part));
        }
        parts.push_back(cp::literal("\x1f"));
        arg = cp::call("binary_join_element_wise", std::move(parts),
                       cp::JoinOptions(cp::JoinOptions::EMIT_NULL));
      }
      exprs.push_back(std::move(arg));
      names.push_back("a" + std::to_string(i));
      std::string function = keys.empty() ? def->scalar_aggregate : def->hash_aggregate;
      ARROW_ASSIGN_OR_RAISE(auto options, plan::AggregateOptions(*def, call));
      if (!def->finalize.empty()) finalizers[i] = def->finalize;
      if (call.distinct && def->name == "count") {
        function = keys.empty() ? "count_distinct" : "hash_count_distinct";
        options = std::make_shared<cp::CountOptions>(cp::CountOptions::ONLY_VALID);
      }
      aggregates.emplace_back(function, options, arrow::FieldRef(names.back()),
                              "r" + std::to_string(i));
    }
    auto pre = Project(std::move(input), std::move(exprs), std::move(names));
    ac::Declaration aggregate("aggregate", {std::move(pre)},
                              ac::AggregateNodeOptions(std::move(aggregates), std::move(keys)));
    // Name the results as the plan's output, with Spark's result types.
    std::vector<cp::Expression> out;
    size_t num_keys = p.groupings.size();
    for (size_t i = 0; i < p.output.size(); ++i) {
      auto value = i < num_keys ? key_outputs[i] : cp::field_ref("r" + std::to_string(i - num_keys));
      if (i >= num_keys && !finalizers[i - num_keys].empty()) {
        value = cp::call(finalizers[i - num_keys], {value});
      }
      out.push_back(cp::call("cast", {value}, cp::CastOptions::Safe(p.output[i].type)));
    }
    return Project(std::move(aggregate), std::move(out), Names(p));
  }

  // Grouped-aggregate pandas UDFs (Spark's AggregateInPandasExec): the keys and every call's
  // arguments computed, the rows grouped once, then each function called once on all groups.
  Result<ac::Declaration> UserAggregate(const LogicalPlan& p) {
    ARROW_ASSIGN_OR_RAISE(auto input, Build(*p.children[0]));
    std::vector<cp::Expression> exprs;
    std::vector<std::string> names;
    GroupedInput grouped;
    for (const auto& key : p.groupings) {
      ARROW_ASSIGN_OR_RAISE(auto lowered, LowerExpr(*key, options_.eval));
      grouped.key_columns.push_back(static_cast<int>(exprs.size()));
      exprs.push_back(std::move(lowered));
      names.push_back("k" + std::to_string(names.size()));
    }
    std::vector<std::vector<int>> call_columns;  // each call's arguments among the data columns
    for (const auto& call : p.exprs) {
      call_columns.emplace_back();
      for (const auto& arg : call->args) {
        ARROW_ASSIGN_OR_RAISE(auto lowered, LowerExpr(*arg, options_.eval));
        call_columns.back().push_back(static_cast<int>(grouped.data_columns.size()));
        grouped.data_columns.push_back(static_cast<int>(exprs.size()));
        grouped.data_names.push_back("_" + std::to_string(grouped.data_names.size()));
        exprs.push_back(std::move(lowered));
        names.push_back("a" + std::to_string(names.size()));
      }
    }
    ARROW_ASSIGN_OR_RAISE(grouped.table,
                          ac::DeclarationToTable(Project(std::move(input), std::move(exprs), names),
                                                 /*use_threads=*/false));
    ARROW_ASSIGN_OR_RAISE(auto groups, GroupRows(grouped));
    const int num_keys = static_cast<int>(p.groupings.size());
    arrow::ArrayVector columns;
    for (int k = 0; k < num_keys; ++k) columns.push_back(groups.groups->column(k));
    for (size_t i = 0; i < p.exprs.size(); ++i) {
      GroupedRows call = groups;
      ARROW_ASSIGN_OR_RAISE(call.rows, groups.rows->SelectColumns(call_columns[i]));
      ARROW_ASSIGN_OR_RAISE(auto values, p.exprs[i]->function->aggregate(call, p.exprs[i]->keywords));
      if (values->length() != groups.groups->num_rows()) {
        return Status::Invalid("the aggregate function ", p.exprs[i]->function->name, " gave ",
                               values->length(), " values for ", groups.groups->num_rows(),
                               " groups");
      }
      columns.push_back(std::move(values));
    }
    arrow::FieldVector fields;
    for (size_t i = 0; i < p.output.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(columns[i], cp::Cast(*columns[i], p.output[i].type));
      fields.push_back(arrow::field(ColumnName(p.output[i].id), p.output[i].type));
    }
    auto table = arrow::Table::Make(arrow::schema(fields), columns, groups.groups->num_rows());
    return Source(std::move(table), p, /*rename=*/false);
  }

  // Sessions merge across rows, as a stream's state merges them across batches: the same steps.
  Result<ac::Declaration> SessionAggregate(const LogicalPlan& p) {
    ARROW_ASSIGN_OR_RAISE(auto input, Materialize(*p.children[0]));
    ARROW_ASSIGN_OR_RAISE(auto aggregate, IncrementalAggregate::Make(p));
    ARROW_ASSIGN_OR_RAISE(auto buffers, aggregate.Partial(input, options_.eval));
    ARROW_ASSIGN_OR_RAISE(buffers, aggregate.Merge(buffers));
    ARROW_ASSIGN_OR_RAISE(auto result, aggregate.Finalize(buffers));
    return Source(result, p);
  }

  // One row per key, the first one seen: group the row numbers by key, keep each group's
  // smallest, and take those rows in input order. Works for columns of any type.
  Result<ac::Declaration> Deduplicate(const LogicalPlan& p) {
    if (p.within_watermark) {
      return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_3102",
                       "dropDuplicatesWithinWatermark is not supported with batch "
                       "DataFrames/DataSets",
                       "");
    }
    ARROW_ASSIGN_OR_RAISE(auto table, Materialize(*p.children[0]));
    ARROW_ASSIGN_OR_RAISE(table, table->CombineChunks());
    arrow::Int64Builder numbers;
    ARROW_RETURN_NOT_OK(numbers.Reserve(table->num_rows()));
    for (int64_t i = 0; i < table->num_rows(); ++i) numbers.UnsafeAppend(i);
    std::shared_ptr<arrow::Array> row_numbers;
    ARROW_RETURN_NOT_OK(numbers.Finish(&row_numbers));
    ARROW_ASSIGN_OR_RAISE(auto numbered,
                          table->AddColumn(table->num_columns(), arrow::field("row", arrow::int64()),
                                           std::make_shared<arrow::ChunkedArray>(row_numbers)));
    std::vector<cp::Expression> exprs{cp::field_ref("row")};
    std::vector<std::string> names{"row"};
    std::vector<arrow::FieldRef> keys;
    for (size_t i = 0; i < p.groupings.size(); ++i) {
      auto key = cp::field_ref(ColumnName(p.groupings[i]->id));
      const auto& type = p.groupings[i]->type;
      if (type->id() != arrow::Type::STRUCT) {
        exprs.push_back(key);
        names.push_back("k" + std::to_string(i));
        keys.emplace_back(names.back());
        continue;
      }
      for (int f = 0; f < type->num_fields(); ++f) {
        exprs.push_back(cp::call("struct_field", {key}, cp::StructFieldOptions({f})));
        names.push_back("k" + std::to_string(i) + "_" + std::to_string(f));
        keys.emplace_back(names.back());
      }
    }
    auto source = ac::Declaration("table_source", ac::TableSourceNodeOptions(numbered));
    auto keyed = Project(std::move(source), std::move(exprs), std::move(names));
    std::vector<cp::Aggregate> aggregates{
        cp::Aggregate(keys.empty() ? "min" : "hash_min", arrow::FieldRef("row"), "first_row")};
    ac::Declaration aggregate("aggregate", {std::move(keyed)},
                              ac::AggregateNodeOptions(std::move(aggregates), std::move(keys)));
    ARROW_ASSIGN_OR_RAISE(auto firsts, ac::DeclarationToTable(std::move(aggregate), false));
    auto first_row = firsts->GetColumnByName("first_row");
    ARROW_ASSIGN_OR_RAISE(auto order, cp::SortIndices(*first_row));
    ARROW_ASSIGN_OR_RAISE(auto first_rows, cp::Take(arrow::Datum(first_row), arrow::Datum(order)));
    ARROW_ASSIGN_OR_RAISE(auto kept, cp::Take(arrow::Datum(table), first_rows));
    return Source(kept.table(), p, /*rename=*/false);
  }

  Result<ac::Declaration> Join(const LogicalPlan& p) {
    const LogicalPlan& left = *p.children[0];
    const LogicalPlan& right = *p.children[1];
    std::set<int64_t> left_ids, right_ids;
    for (const auto& a : left.output) left_ids.insert(a.id);
    for (const auto& a : right.output) right_ids.insert(a.id);
    auto only_from = [](const Expr& e, const std::set<int64_t>& ids) {
      std::function<bool(const Expr&)> check = [&](const Expr& x) {
        if (x.kind == ExprKind::kAttribute && !ids.count(x.id)) return false;
        for (const auto& a : x.args) {
          if (!check(*a)) return false;
        }
        return true;
      };
      return check(e);
    };
    // Split the condition into equi-join keys and a residual filter.
    std::vector<plan::ExprPtr> conjuncts;
    std::function<void(const plan::ExprPtr&)> split = [&](const plan::ExprPtr& e) {
      if (e->kind == ExprKind::kCall && e->name == "and") {
        split(e->args[0]);
        split(e->args[1]);
      } else {
        conjuncts.push_back(e);
      }
    };
    if (!p.exprs.empty()) split(p.exprs[0]);
    std::vector<plan::ExprPtr> left_keys, right_keys, residual;
    for (const auto& c : conjuncts) {
      if (c->kind == ExprKind::kCall && c->name == "=") {
        const auto& a = c->args[0];
        const auto& b = c->args[1];
        if (only_from(*a, left_ids) && only_from(*b, right_ids)) {
          left_keys.push_back(a);
          right_keys.push_back(b);
          continue;
        }
        if (only_from(*a, right_ids) && only_from(*b, left_ids)) {
          left_keys.push_back(b);
          right_keys.push_back(a);
          continue;
        }
      }
      residual.push_back(c);
    }
    // Acero's hash join cannot carry struct columns (a window): each passes as its fields and a
    // validity flag, and is rebuilt after the join. A condition beyond the equalities then runs
    // after the join, which only an inner join allows.
    bool has_structs = false;
    for (const auto* child : {&left, &right}) {
      for (const auto& a : child->output) has_structs = has_structs || a.type->id() == arrow::Type::STRUCT;
    }
    bool filter_after = has_structs && !residual.empty();
    if (filter_after && p.join_type != plan::JoinType::kInner && p.join_type != plan::JoinType::kCross) {
      return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                       "The feature is not supported: an outer join with a non-equality condition "
                       "over struct columns is not supported by Ember yet.",
                       "0A000");
    }
    auto part = [](int64_t id, const std::string& suffix) { return ColumnName(id) + "#" + suffix; };
    // Without an equality, join every row with every row through a constant key.
    bool constant_key = left_keys.empty();
    auto side = [&](const LogicalPlan& child, const std::vector<plan::ExprPtr>& key_exprs,
                    const std::string& prefix,
                    std::vector<arrow::FieldRef>* keys) -> Result<ac::Declaration> {
      ARROW_ASSIGN_OR_RAISE(auto input, Build(child));
      std::vector<cp::Expression> exprs;
      std::vector<std::string> names;
      for (const auto& a : child.output) {
        auto column = cp::field_ref(ColumnName(a.id));
        if (a.type->id() != arrow::Type::STRUCT) {
          // A column no node reads (pruned at the scan, say) does not go through the hash table:
          // a build side of 1.84 million bids held 134 MB for three such string columns.
          if (!referenced_.count(a.id)) continue;
          exprs.push_back(column);
          names.push_back(ColumnName(a.id));
          continue;
        }
        exprs.push_back(cp::call("is_valid", {column}));
        names.push_back(part(a.id, "valid"));
        for (int f = 0; f < a.type->num_fields(); ++f) {
          exprs.push_back(cp::call("struct_field", {column}, cp::StructFieldOptions({f})));
          names.push_back(part(a.id, std::to_string(f)));
        }
      }
      for (size_t i = 0; i < key_exprs.size(); ++i) {
        ARROW_ASSIGN_OR_RAISE(auto key, LowerExpr(*key_exprs[i], options_.eval));
        const auto& type = key_exprs[i]->type;
        if (type->id() != arrow::Type::STRUCT) {
          exprs.push_back(std::move(key));
          names.push_back(prefix + std::to_string(i));
          keys->emplace_back(names.back());
          continue;
        }
        // A struct key (a window) joins on its fields, a NULL struct on nothing.
        for (int f = 0; f < type->num_fields(); ++f) {
          auto field = cp::call("struct_field", {key}, cp::StructFieldOptions({f}));
          exprs.push_back(cp::call("if_else", {cp::call("is_valid", {key}), field,
                                               cp::literal(arrow::MakeNullScalar(type->field(f)->type()))}));
          names.push_back(prefix + std::to_string(i) + "." + std::to_string(f));
          keys->emplace_back(names.back());
        }
      }
      if (constant_key) {
        exprs.push_back(cp::literal(int32_t{1}));
        names.push_back(prefix + "c");
        keys->emplace_back(names.back());
      }
      return Project(std::move(input), std::move(exprs), std::move(names));
    };
    std::vector<arrow::FieldRef> lkeys, rkeys;
    ARROW_ASSIGN_OR_RAISE(auto left_decl, side(left, left_keys, "lk", &lkeys));
    ARROW_ASSIGN_OR_RAISE(auto right_decl, side(right, right_keys, "rk", &rkeys));
    cp::Expression filter = cp::literal(true);
    for (const auto& r : residual) {
      ARROW_ASSIGN_OR_RAISE(auto lowered, LowerExpr(*r, options_.eval));
      filter = cp::call("and_kleene", {filter, lowered});
    }
    cp::Expression in_join = filter_after ? cp::literal(true) : filter;
    ac::JoinType type = ac::JoinType::INNER;
    switch (p.join_type) {
      case plan::JoinType::kInner:
      case plan::JoinType::kCross: type = ac::JoinType::INNER; break;
      case plan::JoinType::kLeftOuter: type = ac::JoinType::LEFT_OUTER; break;
      case plan::JoinType::kRightOuter: type = ac::JoinType::RIGHT_OUTER; break;
      case plan::JoinType::kFullOuter: type = ac::JoinType::FULL_OUTER; break;
      case plan::JoinType::kLeftSemi: type = ac::JoinType::LEFT_SEMI; break;
      case plan::JoinType::kLeftAnti: type = ac::JoinType::LEFT_ANTI; break;
    }
    ac::HashJoinNodeOptions join_options(type, lkeys, rkeys, in_join, "", "");
    ac::Declaration join("hashjoin", {std::move(left_decl), std::move(right_decl)},
                         std::move(join_options));
    // The columns left out of the join above, as NULLs: nothing reads them.
    auto column = [&](const plan::Attribute& a) {
      return referenced_.count(a.id) ? cp::field_ref(ColumnName(a.id))
                                     : cp::literal(arrow::MakeNullScalar(a.type));
    };
    if (!has_structs) {
      std::vector<cp::Expression> out;
      for (const auto& a : p.output) out.push_back(column(a));
      return Project(std::move(join), std::move(out), Names(p));
    }
    // Rebuild the structs under their own names, keeping the flattened parts for nothing else.
    std::vector<cp::Expression> rebuilt;
    std::vector<std::string> rebuilt_names;
    for (const auto* child : {&left, &right}) {
      if (p.join_type == plan::JoinType::kLeftSemi || p.join_type == plan::JoinType::kLeftAnti) {
        if (child == &right) break;
      }
      for (const auto& a : child->output) {
        if (a.type->id() != arrow::Type::STRUCT) {
          rebuilt.push_back(column(a));
        } else {
          std::vector<cp::Expression> fields;
          std::vector<std::string> field_names;
          for (int f = 0; f < a.type->num_fields(); ++f) {
            fields.push_back(cp::field_ref(part(a.id, std::to_string(f))));
            field_names.push_back(a.type->field(f)->name());
          }
          auto value = cp::call("make_struct", fields, cp::MakeStructOptions(field_names));
          rebuilt.push_back(cp::call("if_else", {cp::field_ref(part(a.id, "valid")), value,
                                                 cp::literal(arrow::MakeNullScalar(a.type))}));
        }
        rebuilt_names.push_back(ColumnName(a.id));
      }
    }
    ac::Declaration result = Project(std::move(join), std::move(rebuilt), std::move(rebuilt_names));
    if (filter_after) {
      result = ac::Declaration("filter", {std::move(result)}, ac::FilterNodeOptions(std::move(filter)));
    }
    std::vector<cp::Expression> out;
    for (const auto& a : p.output) out.push_back(cp::field_ref(ColumnName(a.id)));
    return Project(std::move(result), std::move(out), Names(p));
  }

  // Arrow places nulls once for all keys, Spark per key: sort on (is_null, value) pairs.
  Result<std::shared_ptr<arrow::Table>> SortedTable(const LogicalPlan& p) {
    ARROW_ASSIGN_OR_RAISE(auto input, Build(*p.children[0]));
    std::vector<cp::Expression> exprs;
    std::vector<std::string> names = Names(p);
    for (const auto& name : names) exprs.push_back(cp::field_ref(name));
    std::vector<cp::SortKey> keys;
    for (size_t i = 0; i < p.exprs.size(); ++i) {
      const Expr& order = *p.exprs[i];
      ARROW_ASSIGN_OR_RAISE(auto value, LowerExpr(*order.args[0], options_.eval));
      std::string null_name = "n" + std::to_string(i), value_name = "v" + std::to_string(i);
      exprs.push_back(cp::call("is_null", {value}));
      names.push_back(null_name);
      exprs.push_back(std::move(value));
      names.push_back(value_name);
      keys.emplace_back(null_name, order.nulls_first ? cp::SortOrder::Descending
                                                     : cp::SortOrder::Ascending);
      keys.emplace_back(value_name, order.ascending ? cp::SortOrder::Ascending
                                                    : cp::SortOrder::Descending);
    }
    size_t num_columns = p.output.size();
    ARROW_ASSIGN_OR_RAISE(auto keyed,
                          ac::DeclarationToTable(Project(std::move(input), std::move(exprs), names),
                                                 /*use_threads=*/false));
    ARROW_ASSIGN_OR_RAISE(auto indices,
                          cp::SortIndices(arrow::Datum(keyed), cp::SortOptions(keys)));
    std::vector<int> kept(num_columns);
    for (size_t i = 0; i < num_columns; ++i) kept[i] = static_cast<int>(i);
    ARROW_ASSIGN_OR_RAISE(auto columns, keyed->SelectColumns(kept));
    ARROW_ASSIGN_OR_RAISE(auto sorted, cp::Take(arrow::Datum(columns), arrow::Datum(indices)));
    return sorted.table();
  }

  const ExecOptions& options_;
  std::set<int64_t> referenced_;  // attributes the plan refers to: file scans read only these
};

// Arrow's messages for ANSI-mode failures, as Spark's error conditions.
Status ToSparkError(const Status& status) {
  if (status.ok() || GetErrorDetail(status)) return status;
  const std::string& m = status.message();
  if (m.find("divide by zero") != std::string::npos) {
    return UserError(ErrorKind::kArithmetic, "DIVIDE_BY_ZERO",
                     "Division by zero. Use `try_divide` to tolerate divisor being 0 and return "
                     "NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to "
                     "bypass this error.",
                     "22012");
  }
  if (m.find("Cannot locate timezone") != std::string::npos) {
    return UserError(ErrorKind::kIllegalArgument, "INVALID_TIMEZONE", m + ".", "22009");
  }
  if (m.find("overflow") != std::string::npos) {
    return UserError(ErrorKind::kArithmetic, "ARITHMETIC_OVERFLOW",
                     m + ". If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass "
                         "this error.",
                     "22003");
  }
  if (m.find("does not fit in precision") != std::string::npos) {
    return UserError(ErrorKind::kArithmetic, "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION",
                     m + ". If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass "
                         "this error, and use `try_cast` to tolerate overflow and return NULL "
                         "instead.",
                     "22003");
  }
  if (m.find("Failed to parse string") != std::string::npos ||
      m.find("Failed to parse value") != std::string::npos ||
      m.find("is not a valid decimal") != std::string::npos ||
      m.find("Empty string cannot be converted") != std::string::npos ||
      m.find("Invalid cast") != std::string::npos) {
    return UserError(ErrorKind::kNumberFormat, "CAST_INVALID_INPUT",
                     m + ". Correct the value as per the syntax, or change its target type. Use "
                         "`try_cast` to tolerate malformed input and return NULL instead.",
                     "22018");
  }
  return status;
}

}  // namespace

Result<std::shared_ptr<arrow::Table>> Execute(const plan::PlanPtr& plan,
                                              const ExecOptions& options) {
  ARROW_RETURN_NOT_OK(RegisterKernels());
  PlanBuilder builder(options, plan::ReferencedAttributes(*plan));
  auto result = builder.Materialize(*plan);
  if (!result.ok()) return ToSparkError(result.status());
  std::vector<std::string> names;
  for (const auto& a : plan->output) names.push_back(a.name);
  ARROW_ASSIGN_OR_RAISE(auto table, (*result)->RenameColumns(names));
  // Declared types win over arrow's (e.g. a null literal column typed by the analyzer).
  arrow::FieldVector fields;
  for (size_t i = 0; i < plan->output.size(); ++i) {
    fields.push_back(arrow::field(plan->output[i].name, table->column(static_cast<int>(i))->type(),
                                  plan->output[i].nullable));
  }
  return arrow::Table::Make(arrow::schema(fields), table->columns(), table->num_rows());
}

}  // namespace ember::exec
