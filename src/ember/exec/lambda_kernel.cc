// Spark's higher-order functions (transform, filter, exists, forall, aggregate, map_filter,
// transform_keys, transform_values) as one arrow compute function, ember_higher_order. A call
// carries its lambda's bodies, already lowered to arrow expressions over the lambda's variables
// and the outer columns the body reads. Each batch evaluates a body once over all elements of all
// rows: the elements become a batch of their own, each beside its row's outer values, so a lambda
// costs one vectorized evaluation (aggregate: one per position, as its accumulator is sequential).
#include <arrow/array/array_nested.h>
#include <arrow/array/array_primitive.h>
#include <arrow/array/concatenate.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/array/util.h>
#include <arrow/compute/api.h>
#include <arrow/compute/exec.h>
#include <arrow/compute/registry.h>
#include <arrow/record_batch.h>
#include <arrow/util/bit_util.h>
#include <arrow/util/bitmap_builders.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "ember/exec/kernel_util.h"
#include "ember/exec/kernels.h"

namespace ember::exec {

namespace cp = arrow::compute;
using arrow::Result;
using arrow::Status;

namespace {

class HigherOrderOptions : public cp::FunctionOptions {
 public:
  explicit HigherOrderOptions(HigherOrderCall call);
  HigherOrderCall call;
};

class HigherOrderOptionsType : public cp::FunctionOptionsType {
 public:
  const char* type_name() const override { return "EmberHigherOrderOptions"; }
  std::string Stringify(const cp::FunctionOptions& options) const override {
    const auto& call = Of(options).call;
    std::string out = call.function + "(";
    for (const auto& body : call.bodies) out += body.ToString() + ", ";
    return out + ")";
  }
  bool Compare(const cp::FunctionOptions& a, const cp::FunctionOptions& b) const override {
    const auto& x = Of(a).call;
    const auto& y = Of(b).call;
    return x.function == y.function && x.bodies == y.bodies && x.variables == y.variables &&
           x.outer_columns == y.outer_columns && x.result_type->Equals(*y.result_type);
  }
  std::unique_ptr<cp::FunctionOptions> Copy(const cp::FunctionOptions& options) const override {
    return std::make_unique<HigherOrderOptions>(Of(options).call);
  }

 private:
  static const HigherOrderOptions& Of(const cp::FunctionOptions& options) {
    return static_cast<const HigherOrderOptions&>(options);
  }
};

const cp::FunctionOptionsType* OptionsType() {
  static const HigherOrderOptionsType type;
  return &type;
}

HigherOrderOptions::HigherOrderOptions(HigherOrderCall c)
    : cp::FunctionOptions(OptionsType()), call(std::move(c)) {}

struct HigherOrderState : cp::KernelState {
  HigherOrderCall call;
};

Result<std::unique_ptr<cp::KernelState>> Init(cp::KernelContext*, const cp::KernelInitArgs& args) {
  if (args.options == nullptr) return Status::Invalid("ember_higher_order needs its lambda");
  auto state = std::make_unique<HigherOrderState>();
  state->call = static_cast<const HigherOrderOptions&>(*args.options).call;
  return state;
}

const HigherOrderCall& CallOf(cp::KernelContext* ctx) {
  return static_cast<const HigherOrderState*>(ctx->state())->call;
}

Result<arrow::TypeHolder> ResultType(cp::KernelContext* ctx, const std::vector<arrow::TypeHolder>&) {
  return arrow::TypeHolder(CallOf(ctx).result_type);
}

// The elements of a batch's collections, row by row, with what a lambda may read beside them.
struct Elements {
  int64_t rows = 0;
  int64_t first = 0;                      // the first element's position in the collection
  std::vector<int32_t> offsets;           // row i's elements: offsets[i] .. offsets[i+1]
  std::vector<bool> valid;                // whether row i's collection is not NULL
  std::vector<int64_t> owner;             // per element, its row
  std::shared_ptr<arrow::Array> index;    // per element, its position in its row (int32)
};

Result<arrow::ArrayVector> TakeEach(const arrow::ArrayVector& columns,
                                    const std::vector<int64_t>& positions) {
  arrow::ArrayVector out;
  for (const auto& column : columns) {
    ARROW_ASSIGN_OR_RAISE(auto taken, TakeAt(column, positions));
    out.push_back(std::move(taken));
  }
  return out;
}

Result<Elements> ElementsOf(const arrow::ListArray& lists) {
  Elements e;
  e.rows = lists.length();
  e.first = e.rows ? lists.value_offset(0) : 0;
  arrow::Int32Builder index;
  for (int64_t i = 0; i < e.rows; ++i) {
    e.offsets.push_back(lists.value_offset(i) - static_cast<int32_t>(e.first));
    e.valid.push_back(lists.IsValid(i));
    for (int32_t j = 0; j < lists.value_length(i); ++j) {
      e.owner.push_back(i);
      ARROW_RETURN_NOT_OK(index.Append(j));
    }
  }
  e.offsets.push_back(e.rows ? lists.value_offset(e.rows) - static_cast<int32_t>(e.first) : 0);
  ARROW_ASSIGN_OR_RAISE(e.index, index.Finish());
  return e;
}

// A lambda's body over `length` rows of its `variables` (in the lambda's order) and `outer`
// (the outer columns it reads).
Result<std::shared_ptr<arrow::Array>> Evaluate(const HigherOrderCall& call, size_t lambda,
                                               const arrow::ArrayVector& variables,
                                               const arrow::ArrayVector& outer, int64_t length) {
  arrow::FieldVector fields;
  std::vector<arrow::Datum> columns;
  const auto& names = call.variables[lambda];
  for (size_t k = 0; k < names.size(); ++k) {
    fields.push_back(arrow::field(names[k], variables[k]->type()));
    columns.emplace_back(variables[k]);
  }
  for (size_t k = 0; k < call.outer_columns.size(); ++k) {
    fields.push_back(arrow::field(call.outer_columns[k], outer[k]->type()));
    columns.emplace_back(outer[k]);
  }
  auto schema = arrow::schema(fields);
  ARROW_ASSIGN_OR_RAISE(auto bound, call.bodies[lambda].Bind(*schema));
  ARROW_ASSIGN_OR_RAISE(auto result,
                        cp::ExecuteScalarExpression(bound, cp::ExecBatch(columns, length)));
  if (result.is_scalar()) return arrow::MakeArrayFromScalar(*result.scalar(), length);
  return result.make_array();
}

Result<std::shared_ptr<arrow::Buffer>> Bitmap(const std::vector<bool>& valid, int64_t* nulls) {
  *nulls = 0;
  for (bool v : valid) *nulls += !v;
  if (*nulls == 0) return nullptr;
  ARROW_ASSIGN_OR_RAISE(auto bits, arrow::AllocateEmptyBitmap(static_cast<int64_t>(valid.size())));
  for (size_t i = 0; i < valid.size(); ++i) {
    if (valid[i]) arrow::bit_util::SetBit(bits->mutable_data(), static_cast<int64_t>(i));
  }
  return std::shared_ptr<arrow::Buffer>(std::move(bits));
}

Result<std::shared_ptr<arrow::Array>> CastTo(std::shared_ptr<arrow::Array> values,
                                             const std::shared_ptr<arrow::DataType>& type) {
  if (values->type()->Equals(*type)) return values;
  ARROW_ASSIGN_OR_RAISE(auto cast, cp::Cast(values, type));
  return cast.make_array();
}

// filter, map_filter: the elements whose predicate is true (NULL counts as false).
void Kept(const arrow::BooleanArray& keep, const Elements& e, std::vector<int32_t>* offsets,
          std::vector<int64_t>* positions) {
  offsets->assign(1, 0);
  for (int64_t i = 0; i < e.rows; ++i) {
    for (int32_t j = e.offsets[i]; j < e.offsets[i + 1]; ++j) {
      if (e.valid[i] && keep.IsValid(j) && keep.Value(j)) positions->push_back(j);
    }
    offsets->push_back(static_cast<int32_t>(positions->size()));
  }
}

// exists (any true, else NULL if any NULL, else false) and forall (any false, else NULL if any
// NULL, else true): SQL's three-valued OR and AND over the row's predicates.
Result<std::shared_ptr<arrow::Array>> Quantified(const arrow::BooleanArray& predicate,
                                                 const Elements& e, bool exists) {
  arrow::BooleanBuilder out;
  ARROW_RETURN_NOT_OK(out.Reserve(e.rows));
  for (int64_t i = 0; i < e.rows; ++i) {
    bool decided = false, saw_null = false;
    for (int32_t j = e.offsets[i]; j < e.offsets[i + 1] && !decided; ++j) {
      if (predicate.IsNull(j)) {
        saw_null = true;
      } else if (predicate.Value(j) == exists) {
        decided = true;
      }
    }
    if (!e.valid[i] || (!decided && saw_null)) {
      out.UnsafeAppendNull();
    } else {
      out.UnsafeAppend(decided ? exists : !exists);
    }
  }
  return out.Finish();
}

// aggregate(a, zero, (acc, x) -> merge[, acc -> finish]): merge evaluated once per position j,
// over the rows with a j-th element, each from its row's accumulator so far; NULL for a NULL
// array.
Result<std::shared_ptr<arrow::Array>> Aggregate(const HigherOrderCall& call,
                                                const arrow::ListArray& lists,
                                                std::shared_ptr<arrow::Array> acc,
                                                const arrow::ArrayVector& row_outer,
                                                const Elements& e) {
  int32_t longest = 0;
  for (int64_t i = 0; i < e.rows; ++i) longest = std::max(longest, e.offsets[i + 1] - e.offsets[i]);
  auto elements = lists.values()->Slice(e.first, e.offsets.back());
  for (int32_t j = 0; j < longest; ++j) {
    std::vector<int64_t> rows, at;
    for (int64_t i = 0; i < e.rows; ++i) {
      if (e.offsets[i] + j < e.offsets[i + 1]) {
        rows.push_back(i);
        at.push_back(e.offsets[i] + j);
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto acc_rows, TakeAt(acc, rows));
    ARROW_ASSIGN_OR_RAISE(auto element_rows, TakeAt(elements, at));
    ARROW_ASSIGN_OR_RAISE(auto outer_rows, TakeEach(row_outer, rows));
    ARROW_ASSIGN_OR_RAISE(auto merged, Evaluate(call, 0, {acc_rows, element_rows}, outer_rows,
                                                static_cast<int64_t>(rows.size())));
    ARROW_ASSIGN_OR_RAISE(merged, CastTo(merged, acc->type()));
    // The new accumulators: merged where a row had a j-th element, else as they were.
    std::vector<int64_t> pick(static_cast<size_t>(e.rows));
    for (int64_t i = 0; i < e.rows; ++i) pick[i] = i;
    for (size_t r = 0; r < rows.size(); ++r) pick[rows[r]] = e.rows + static_cast<int64_t>(r);
    ARROW_ASSIGN_OR_RAISE(auto both, arrow::Concatenate({acc, merged}));
    ARROW_ASSIGN_OR_RAISE(acc, TakeAt(both, pick));
  }
  if (call.bodies.size() > 1) {
    ARROW_ASSIGN_OR_RAISE(acc, Evaluate(call, 1, {acc}, row_outer, e.rows));
  }
  ARROW_ASSIGN_OR_RAISE(acc, CastTo(acc, call.result_type));
  arrow::Int64Builder take;
  for (int64_t i = 0; i < e.rows; ++i) {
    ARROW_RETURN_NOT_OK(e.valid[i] ? take.Append(i) : take.AppendNull());
  }
  ARROW_ASSIGN_OR_RAISE(auto indices, take.Finish());
  ARROW_ASSIGN_OR_RAISE(auto out, cp::Take(acc, indices));
  return out.make_array();
}

Status Exec(cp::KernelContext* ctx, const cp::ExecSpan& batch, cp::ExecResult* out) {
  const HigherOrderCall& call = CallOf(ctx);
  if (IsCollectionHigherOrder(call.function)) return CollectionHigherOrder(call, batch, out);
  ARROW_ASSIGN_OR_RAISE(auto collection, ArgArray(batch, 0));
  const auto& lists = static_cast<const arrow::ListArray&>(*collection);
  const bool is_map = collection->type_id() == arrow::Type::MAP;
  ARROW_ASSIGN_OR_RAISE(auto e, ElementsOf(lists));
  const int64_t count = e.offsets.back();
  // After the collection: aggregate's zero, then the outer columns the lambdas read, per row
  // and (for the functions of each element) beside each element.
  const int first_outer = call.function == "aggregate" ? 2 : 1;
  arrow::ArrayVector row_outer;
  for (int k = first_outer; k < batch.num_values(); ++k) {
    ARROW_ASSIGN_OR_RAISE(auto column, ArgArray(batch, k));
    row_outer.push_back(std::move(column));
  }
  std::shared_ptr<arrow::Array> result;
  int64_t nulls = 0;
  ARROW_ASSIGN_OR_RAISE(auto bitmap, Bitmap(e.valid, &nulls));
  const auto offsets = arrow::Buffer::FromVector(e.offsets);
  if (is_map) {
    const auto& maps = static_cast<const arrow::MapArray&>(*collection);
    auto keys = maps.keys()->Slice(e.first, count);
    auto values = maps.items()->Slice(e.first, count);
    ARROW_ASSIGN_OR_RAISE(auto outer, TakeEach(row_outer, e.owner));
    ARROW_ASSIGN_OR_RAISE(auto lambda, Evaluate(call, 0, {keys, values}, outer, count));
    const auto& type = static_cast<const arrow::MapType&>(*call.result_type);
    if (call.function == "map_filter") {
      std::vector<int32_t> kept_offsets;
      std::vector<int64_t> positions;
      Kept(static_cast<const arrow::BooleanArray&>(*lambda), e, &kept_offsets, &positions);
      ARROW_ASSIGN_OR_RAISE(keys, TakeAt(keys, positions));
      ARROW_ASSIGN_OR_RAISE(values, TakeAt(values, positions));
      result = std::make_shared<arrow::MapArray>(call.result_type, e.rows,
                                                 arrow::Buffer::FromVector(kept_offsets), keys,
                                                 values, bitmap, nulls);
    } else if (call.function == "transform_values") {
      ARROW_ASSIGN_OR_RAISE(values, CastTo(lambda, type.item_type()));
      result = std::make_shared<arrow::MapArray>(call.result_type, e.rows, offsets, keys, values,
                                                 bitmap, nulls);
    } else {  // transform_keys: the new keys checked as a new map's
      ARROW_ASSIGN_OR_RAISE(keys, CastTo(lambda, type.key_type()));
      std::vector<int32_t> valid_offsets{0};
      for (int64_t i = 0; i < e.rows; ++i) {
        valid_offsets.push_back(valid_offsets.back() +
                                (e.valid[i] ? e.offsets[i + 1] - e.offsets[i] : 0));
      }
      std::vector<int64_t> positions;
      for (int64_t i = 0; i < e.rows; ++i) {
        for (int32_t j = e.offsets[i]; e.valid[i] && j < e.offsets[i + 1]; ++j) positions.push_back(j);
      }
      ARROW_ASSIGN_OR_RAISE(keys, TakeAt(keys, positions));
      ARROW_ASSIGN_OR_RAISE(values, TakeAt(values, positions));
      ARROW_RETURN_NOT_OK(CheckMapKeys(*keys, valid_offsets));
      result = std::make_shared<arrow::MapArray>(call.result_type, e.rows,
                                                 arrow::Buffer::FromVector(valid_offsets), keys,
                                                 values, bitmap, nulls);
    }
    out->value = result->data();
    return Status::OK();
  }
  auto elements = lists.values()->Slice(e.first, count);
  if (call.function == "aggregate") {
    ARROW_ASSIGN_OR_RAISE(auto zero, ArgArray(batch, 1));
    ARROW_ASSIGN_OR_RAISE(result, Aggregate(call, lists, zero, row_outer, e));
    out->value = result->data();
    return Status::OK();
  }
  ARROW_ASSIGN_OR_RAISE(auto outer, TakeEach(row_outer, e.owner));
  ARROW_ASSIGN_OR_RAISE(auto lambda, Evaluate(call, 0, {elements, e.index}, outer, count));
  if (call.function == "transform") {
    const auto& type = static_cast<const arrow::ListType&>(*call.result_type);
    ARROW_ASSIGN_OR_RAISE(lambda, CastTo(lambda, type.value_type()));
    result = std::make_shared<arrow::ListArray>(call.result_type, e.rows, offsets, lambda, bitmap,
                                                nulls);
  } else if (call.function == "filter") {
    std::vector<int32_t> kept_offsets;
    std::vector<int64_t> positions;
    Kept(static_cast<const arrow::BooleanArray&>(*lambda), e, &kept_offsets, &positions);
    ARROW_ASSIGN_OR_RAISE(auto kept, TakeAt(elements, positions));
    result = std::make_shared<arrow::ListArray>(call.result_type, e.rows,
                                                arrow::Buffer::FromVector(kept_offsets), kept,
                                                bitmap, nulls);
  } else {
    ARROW_ASSIGN_OR_RAISE(result, Quantified(static_cast<const arrow::BooleanArray&>(*lambda), e,
                                             call.function == "exists"));
  }
  out->value = result->data();
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<arrow::Array>> EvaluateLambda(const HigherOrderCall& call, size_t lambda,
                                                     const arrow::ArrayVector& variables,
                                                     const arrow::ArrayVector& outer,
                                                     int64_t length) {
  return Evaluate(call, lambda, variables, outer, length);
}

cp::Expression CallHigherOrder(HigherOrderCall call, std::vector<cp::Expression> args) {
  return cp::call("ember_higher_order", std::move(args),
                  std::make_shared<HigherOrderOptions>(std::move(call)));
}

Status RegisterHigherOrderKernel(cp::FunctionRegistry* registry) {
  auto fn = std::make_shared<cp::ScalarFunction>(
      "ember_higher_order", cp::Arity::VarArgs(1),
      cp::FunctionDoc("Spark's higher-order functions", "", {"args"}));
  cp::ScalarKernel kernel(cp::KernelSignature::Make({cp::InputType::Any()},
                                                    cp::OutputType(ResultType),
                                                    /*is_varargs=*/true),
                          Exec, Init);
  kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
  kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
  ARROW_RETURN_NOT_OK(fn->AddKernel(std::move(kernel)));
  return registry->AddFunction(std::move(fn));
}

}  // namespace ember::exec
