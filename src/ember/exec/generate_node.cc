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
#include <arrow/table.h>

#include "ember/exec/group_map.h"
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

// The input's columns at each generated row's input row, then the generated columns, for a
// spec whose arguments are bound to the batch's schema.
Result<cp::ExecBatch> Generated(const GenerateSpec& spec, const cp::ExecBatch& batch) {
  std::vector<std::shared_ptr<arrow::Array>> args;
  for (const auto& arg : spec.args) {
    ARROW_ASSIGN_OR_RAISE(auto datum, cp::ExecuteScalarExpression(arg, batch));
    if (datum.is_array()) {
      args.push_back(datum.make_array());
    } else {
      ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*datum.scalar(), batch.length));
      args.push_back(std::move(array));
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto generated, spec.generator(args, batch.length));
  std::vector<arrow::Datum> out;
  const bool unowned_rows = generated.input_rows->null_count() > 0;
  for (const auto& value : batch.values) {
    if (value.is_scalar() && !unowned_rows) {
      out.push_back(value);
      continue;
    }
    arrow::Datum column = value;
    if (value.is_scalar()) {
      ARROW_ASSIGN_OR_RAISE(column, arrow::MakeArrayFromScalar(*value.scalar(), batch.length));
    }
    ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(column, generated.input_rows));
    out.push_back(std::move(taken));
  }
  for (size_t i = 0; i < generated.columns.size(); ++i) {
    auto column = generated.columns[i];
    if (!column->type()->Equals(*spec.fields[i]->type())) {
      ARROW_ASSIGN_OR_RAISE(column, cp::Cast(*column, spec.fields[i]->type()));
    }
    out.emplace_back(std::move(column));
  }
  return cp::ExecBatch(std::move(out), generated.input_rows->length());
}

Status BindArguments(GenerateSpec* spec, const arrow::Schema& input) {
  for (auto& arg : spec->args) {
    ARROW_ASSIGN_OR_RAISE(arg, arg.Bind(input));
  }
  return Status::OK();
}

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
    ARROW_RETURN_NOT_OK(BindArguments(&spec, in));
    auto fields = in.fields();
    fields.insert(fields.end(), spec.fields.begin(), spec.fields.end());
    return plan->EmplaceNode<GenerateNode>(plan, std::move(inputs), arrow::schema(fields),
                                           std::move(spec));
  }

  const char* kind_name() const override { return "GenerateNode"; }

 protected:
  Result<cp::ExecBatch> ProcessBatch(cp::ExecBatch batch) override {
    return Generated(spec_, batch);
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

Generator ExplodeGenerator(bool outer, bool position, bool fields) {
  return [outer, position, fields](const std::vector<std::shared_ptr<arrow::Array>>& args,
                           int64_t) -> Result<GeneratedRows> {
    const auto& lists = static_cast<const arrow::ListArray&>(*args[0]);
    // Per output row: its input row, its element (NULL for an outer row), its position.
    arrow::Int64Builder rows, elements;
    arrow::Int32Builder positions;
    for (int64_t i = 0; i < lists.length(); ++i) {
      int32_t n = lists.IsNull(i) ? 0 : lists.value_length(i);
      if (n == 0 && outer) {
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
    GeneratedRows out;
    ARROW_ASSIGN_OR_RAISE(out.input_rows, rows.Finish());
    if (position) {
      ARROW_ASSIGN_OR_RAISE(auto pos, positions.Finish());
      out.columns.push_back(std::move(pos));
    }
    ARROW_ASSIGN_OR_RAISE(auto element_indices, elements.Finish());
    ARROW_ASSIGN_OR_RAISE(auto element, cp::Take(*lists.values(), *element_indices));
    if (!fields) {
      out.columns.push_back(std::move(element));
      return out;
    }
    const auto& structs = static_cast<const arrow::StructArray&>(*element);
    for (int k = 0; k < structs.num_fields(); ++k) {
      ARROW_ASSIGN_OR_RAISE(auto field, structs.GetFlattenedField(k));
      out.columns.push_back(std::move(field));
    }
    return out;
  };
}

Generator TableFunctionGenerator(std::shared_ptr<const UserTableFunction> function,
                                 std::vector<std::string> keywords) {
  return [function, keywords](const std::vector<std::shared_ptr<arrow::Array>>& args,
                              int64_t length) -> Result<GeneratedRows> {
    arrow::FieldVector fields;
    for (size_t i = 0; i < args.size(); ++i) {
      fields.push_back(arrow::field(i < keywords.size() ? keywords[i] : "", args[i]->type()));
    }
    ARROW_ASSIGN_OR_RAISE(auto rows,
                          function->call(arrow::RecordBatch::Make(arrow::schema(fields), length, args)));
    const auto& expected = *function->output_schema;
    const int width = expected.num_fields();
    if (rows->num_columns() != width + 1 || rows->column(width)->type_id() != arrow::Type::INT64) {
      return Status::Invalid("the table function ", function->name, " returned columns ",
                             rows->schema()->ToString(), " for ", expected.ToString());
    }
    GeneratedRows out;
    out.input_rows = rows->column(width);
    for (int i = 0; i < width; ++i) out.columns.push_back(rows->column(i));
    return out;
  };
}

Result<std::shared_ptr<arrow::Table>> GeneratePartitions(const std::shared_ptr<arrow::Table>& input,
                                                         GenerateSpec spec,
                                                         const std::vector<int>& keys) {
  ARROW_RETURN_NOT_OK(BindArguments(&spec, *input->schema()));
  auto fields = input->schema()->fields();
  fields.insert(fields.end(), spec.fields.begin(), spec.fields.end());
  auto schema = arrow::schema(fields);
  // The partitions as GroupRows finds groups: a group's rows keep their order.
  GroupedInput partitions{input, keys, {}, {}};
  for (int i = 0; i < input->num_columns(); ++i) {
    partitions.data_columns.push_back(i);
    partitions.data_names.push_back(input->schema()->field(i)->name());
  }
  ARROW_ASSIGN_OR_RAISE(auto grouped, GroupRows(partitions));
  const cp::ExecBatch whole(*grouped.rows);
  const auto& offsets =
      static_cast<const arrow::Int64Array&>(*grouped.groups->GetColumnByName("offset"));
  const auto& lengths =
      static_cast<const arrow::Int64Array&>(*grouped.groups->GetColumnByName("length"));
  arrow::RecordBatchVector out;
  for (int64_t g = 0; g < grouped.groups->num_rows(); ++g) {
    ARROW_ASSIGN_OR_RAISE(auto generated,
                          Generated(spec, whole.Slice(offsets.Value(g), lengths.Value(g))));
    ARROW_ASSIGN_OR_RAISE(auto batch, generated.ToRecordBatch(schema));
    out.push_back(std::move(batch));
  }
  return arrow::Table::FromRecordBatches(schema, out);
}

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
