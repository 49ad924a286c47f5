#include "ember/exec/generate_node.h"

#include <arrow/acero/map_node.h>
#include <arrow/acero/options.h>
#include <arrow/acero/util.h>
#include <arrow/array/array_nested.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/array/util.h>
#include <arrow/compute/api.h>
#include <arrow/compute/exec.h>
#include <arrow/record_batch.h>

#include "ember/user_function.h"

namespace ember::exec {

namespace ac = arrow::acero;
namespace cp = arrow::compute;
using arrow::Result;
using arrow::Status;

namespace {

struct GenerateOptions : ac::ExecNodeOptions {
  GenerateSpec spec;
};

class GenerateNode : public ac::MapNode {
 public:
  GenerateNode(ac::ExecPlan* plan, std::vector<ac::ExecNode*> inputs,
               std::shared_ptr<arrow::Schema> schema, GenerateSpec spec)
      : MapNode(plan, std::move(inputs), std::move(schema)), spec_(std::move(spec)) {}

  static Result<ac::ExecNode*> Make(ac::ExecPlan* plan, std::vector<ac::ExecNode*> inputs,
                                    const ac::ExecNodeOptions& options) {
    ARROW_RETURN_NOT_OK(ac::ValidateExecNodeInputs(plan, inputs, 1, "GenerateNode"));
    GenerateSpec spec = static_cast<const GenerateOptions&>(options).spec;
    const auto& in = *inputs[0]->output_schema();
    ARROW_ASSIGN_OR_RAISE(spec.list, spec.list.Bind(in));
    auto fields = in.fields();
    if (spec.position) fields.push_back(arrow::field(spec.names.front(), arrow::int32()));
    fields.push_back(arrow::field(spec.names.back(), spec.element_type));
    return plan->EmplaceNode<GenerateNode>(plan, std::move(inputs), arrow::schema(fields),
                                           std::move(spec));
  }

  const char* kind_name() const override { return "GenerateNode"; }

 protected:
  Result<cp::ExecBatch> ProcessBatch(cp::ExecBatch batch) override {
    ARROW_ASSIGN_OR_RAISE(auto datum, cp::ExecuteScalarExpression(spec_.list, batch));
    std::shared_ptr<arrow::Array> array;
    if (datum.is_array()) {
      array = datum.make_array();
    } else {
      ARROW_ASSIGN_OR_RAISE(array, arrow::MakeArrayFromScalar(*datum.scalar(), batch.length));
    }
    const auto& lists = static_cast<const arrow::ListArray&>(*array);
    // Per output row: its input row, its element (NULL for an outer row), its position.
    arrow::Int64Builder rows, elements;
    arrow::Int32Builder positions;
    for (int64_t i = 0; i < lists.length(); ++i) {
      int32_t n = lists.IsNull(i) ? 0 : lists.value_length(i);
      if (n == 0 && spec_.outer) {
        ARROW_RETURN_NOT_OK(rows.Append(i));
        ARROW_RETURN_NOT_OK(elements.AppendNull());
        ARROW_RETURN_NOT_OK(positions.AppendNull());
      }
      for (int32_t j = 0; j < n; ++j) {
        ARROW_RETURN_NOT_OK(rows.Append(i));
        ARROW_RETURN_NOT_OK(elements.Append(lists.value_offset(i) + j));
        ARROW_RETURN_NOT_OK(positions.Append(j));
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto row_indices, rows.Finish());
    ARROW_ASSIGN_OR_RAISE(auto element_indices, elements.Finish());
    std::vector<arrow::Datum> out;
    for (const auto& value : batch.values) {
      if (value.is_scalar()) {
        out.push_back(value);
      } else {
        ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(value, row_indices));
        out.push_back(std::move(taken));
      }
    }
    if (spec_.position) {
      ARROW_ASSIGN_OR_RAISE(auto pos, positions.Finish());
      out.emplace_back(pos);
    }
    ARROW_ASSIGN_OR_RAISE(auto element, cp::Take(lists.values(), element_indices));
    if (!element.type()->Equals(*spec_.element_type)) {
      ARROW_ASSIGN_OR_RAISE(element, cp::Cast(element, spec_.element_type));
    }
    out.push_back(std::move(element));
    return cp::ExecBatch(std::move(out), row_indices->length());
  }

 private:
  GenerateSpec spec_;
};

constexpr const char* kGenerate = "ember_generate";

struct MapBatchesOptions : ac::ExecNodeOptions {
  std::shared_ptr<const UserBatchFunction> function;
  std::vector<std::string> input_names, output_names;
};

class MapBatchesNode : public ac::MapNode {
 public:
  MapBatchesNode(ac::ExecPlan* plan, std::vector<ac::ExecNode*> inputs,
                 std::shared_ptr<arrow::Schema> schema, MapBatchesOptions options)
      : MapNode(plan, std::move(inputs), std::move(schema)), options_(std::move(options)) {}

  static Result<ac::ExecNode*> Make(ac::ExecPlan* plan, std::vector<ac::ExecNode*> inputs,
                                    const ac::ExecNodeOptions& node_options) {
    ARROW_RETURN_NOT_OK(ac::ValidateExecNodeInputs(plan, inputs, 1, "MapBatchesNode"));
    const auto& options = static_cast<const MapBatchesOptions&>(node_options);
    arrow::FieldVector fields;
    const auto& out = *options.function->output_schema;
    for (int i = 0; i < out.num_fields(); ++i) {
      fields.push_back(out.field(i)->WithName(options.output_names[i]));
    }
    return plan->EmplaceNode<MapBatchesNode>(plan, std::move(inputs), arrow::schema(fields),
                                             options);
  }

  const char* kind_name() const override { return "MapBatchesNode"; }

 protected:
  Result<cp::ExecBatch> ProcessBatch(cp::ExecBatch batch) override {
    const auto& in = *inputs_[0]->output_schema();
    arrow::FieldVector fields;
    for (int i = 0; i < in.num_fields(); ++i) {
      fields.push_back(in.field(i)->WithName(options_.input_names[i]));
    }
    ARROW_ASSIGN_OR_RAISE(auto rows, batch.ToRecordBatch(arrow::schema(fields)));
    ARROW_ASSIGN_OR_RAISE(auto result, options_.function->call(rows));
    if (!result->schema()->Equals(*options_.function->output_schema, false)) {
      return Status::Invalid("the function ", options_.function->name, " returned columns ",
                             result->schema()->ToString(), " for ",
                             options_.function->output_schema->ToString());
    }
    return cp::ExecBatch(*result);
  }

 private:
  MapBatchesOptions options_;
};

constexpr const char* kMapBatches = "ember_map_batches";

}  // namespace

Result<ac::Declaration> GenerateDeclaration(ac::Declaration input, GenerateSpec spec) {
  static Status registered =
      ac::default_exec_factory_registry()->AddFactory(kGenerate, GenerateNode::Make);
  ARROW_RETURN_NOT_OK(registered);
  GenerateOptions options;
  options.spec = std::move(spec);
  return ac::Declaration(kGenerate, {std::move(input)}, std::move(options));
}

ac::Declaration MapBatchesDeclaration(ac::Declaration input,
                                      std::shared_ptr<const UserBatchFunction> function,
                                      std::vector<std::string> input_names,
                                      std::vector<std::string> output_names) {
  static Status registered =
      ac::default_exec_factory_registry()->AddFactory(kMapBatches, MapBatchesNode::Make);
  (void)registered;  // a second registration of the same name is the only possible failure
  MapBatchesOptions options;
  options.function = std::move(function);
  options.input_names = std::move(input_names);
  options.output_names = std::move(output_names);
  return ac::Declaration(kMapBatches, {std::move(input)}, std::move(options));
}

}  // namespace ember::exec
