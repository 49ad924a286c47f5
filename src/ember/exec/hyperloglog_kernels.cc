// The approx_count_distinct kernels: Spark's HyperLogLog++ (common/hyperloglog.h) as Arrow aggregate
// functions, so that Acero's aggregate node runs it like any other aggregate, grouped or not.
//
//   [hash_]ember_hll_sketch(value)   the sketch of the non-null values (HyperLogLogOptions)
//   [hash_]ember_hll_merge(sketch)   the register-wise maximum of sketches (HyperLogLogOptions)
//   ember_hll_estimate(sketch)       the estimate of a sketch (a scalar function)
//
// A sketch is a binary value: the sketch's 64-bit words in little-endian order.
#include <arrow/array.h>
#include <arrow/array/util.h>
#include <arrow/buffer.h>
#include <arrow/compute/api.h>
#include <arrow/compute/kernel.h>
#include <arrow/compute/registry.h>
#include <arrow/scalar.h>

#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "ember/common/hyperloglog.h"
#include "ember/common/spark_hash.h"
#include "ember/exec/kernels.h"

namespace ember::exec {

namespace cp = arrow::compute;
using arrow::Result;
using arrow::Status;

namespace {

int PrecisionOf(const cp::KernelInitArgs& args) {
  const auto* options = static_cast<const HyperLogLogOptions*>(args.options);
  return options ? options->precision : HyperLogLogOptions().precision;
}

// Sketches of groups 0..n-1, one after the other in `words`.
struct Sketches : cp::KernelState {
  explicit Sketches(int precision) : hll(precision), width(static_cast<size_t>(hll.num_words())) {}
  HyperLogLog hll;
  size_t width;
  std::vector<uint64_t> words;

  int64_t size() const { return static_cast<int64_t>(words.size() / width); }
  std::span<uint64_t> of(int64_t group) {
    return {words.data() + static_cast<size_t>(group) * width, width};
  }
  std::span<const uint64_t> of(int64_t group) const {
    return {words.data() + static_cast<size_t>(group) * width, width};
  }
  void Resize(int64_t groups) { words.resize(static_cast<size_t>(groups) * width, 0); }

  // The sketches as binary values.
  Result<std::shared_ptr<arrow::Array>> ToBinary(arrow::MemoryPool* pool) const {
    const int64_t n = size();
    const auto bytes = static_cast<int32_t>(width * sizeof(uint64_t));
    ARROW_ASSIGN_OR_RAISE(auto offsets, arrow::AllocateBuffer((n + 1) * sizeof(int32_t), pool));
    auto* offset = reinterpret_cast<int32_t*>(offsets->mutable_data());
    for (int64_t i = 0; i <= n; ++i) offset[i] = static_cast<int32_t>(i) * bytes;
    ARROW_ASSIGN_OR_RAISE(auto data, arrow::AllocateBuffer(n * bytes, pool));
    if (n > 0) std::memcpy(data->mutable_data(), words.data(), static_cast<size_t>(n * bytes));
    return std::make_shared<arrow::BinaryArray>(n, std::move(offsets), std::move(data));
  }
};

Result<std::unique_ptr<cp::KernelState>> InitSketches(cp::KernelContext*,
                                                      const cp::KernelInitArgs& args) {
  return std::make_unique<Sketches>(PrecisionOf(args));
}

Result<std::unique_ptr<cp::KernelState>> InitOneSketch(cp::KernelContext*,
                                                       const cp::KernelInitArgs& args) {
  auto state = std::make_unique<Sketches>(PrecisionOf(args));
  state->Resize(1);
  return state;
}

Sketches& StateOf(cp::KernelContext* ctx) { return *static_cast<Sketches*>(ctx->state()); }

const uint32_t* GroupIds(const cp::ExecSpan& batch) {
  return batch[1].array.GetValues<uint32_t>(1);
}

// Adds row i's value to the sketch `group_of(i)`, for every non-null row.
template <typename GroupOf>
Status AddValues(Sketches& state, const cp::ExecSpan& batch, GroupOf group_of) {
  ARROW_ASSIGN_OR_RAISE(auto values, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto hashes, SparkXxHash64(*values));
  for (int64_t i = 0; i < values->length(); ++i) {
    if (values->IsValid(i)) state.hll.Add(state.of(group_of(i)), hashes[static_cast<size_t>(i)]);
  }
  return Status::OK();
}

// Merges row i's sketch into the sketch `group_of(i)`, for every non-null row.
template <typename GroupOf>
Status MergeSketches(Sketches& state, const cp::ExecSpan& batch, GroupOf group_of) {
  ARROW_ASSIGN_OR_RAISE(auto values, ArgArray(batch, 0));
  const auto& sketches = static_cast<const arrow::BinaryArray&>(*values);
  std::vector<uint64_t> words(state.width);
  const size_t bytes = state.width * sizeof(uint64_t);
  for (int64_t i = 0; i < sketches.length(); ++i) {
    if (sketches.IsNull(i)) continue;
    std::string_view sketch = sketches.GetView(i);
    if (sketch.size() != bytes) {
      return Status::Invalid("approx_count_distinct: a sketch of ", sketch.size(),
                             " bytes where precision ", state.hll.precision(), " has ", bytes);
    }
    std::memcpy(words.data(), sketch.data(), bytes);  // the value may be unaligned
    state.hll.Merge(state.of(group_of(i)), words);
  }
  return Status::OK();
}

Status GroupedResize(cp::KernelContext* ctx, int64_t groups) {
  StateOf(ctx).Resize(groups);
  return Status::OK();
}

Status GroupedAdd(cp::KernelContext* ctx, const cp::ExecSpan& batch) {
  const uint32_t* groups = GroupIds(batch);
  return AddValues(StateOf(ctx), batch, [groups](int64_t i) { return groups[i]; });
}

Status GroupedMergeInput(cp::KernelContext* ctx, const cp::ExecSpan& batch) {
  const uint32_t* groups = GroupIds(batch);
  return MergeSketches(StateOf(ctx), batch, [groups](int64_t i) { return groups[i]; });
}

// Combines another thread's sketches into this state's, group by mapped group.
Status GroupedMergeStates(cp::KernelContext* ctx, cp::KernelState&& other_state,
                          const arrow::ArrayData& group_id_mapping) {
  auto& state = StateOf(ctx);
  const auto& other = static_cast<const Sketches&>(other_state);
  const uint32_t* mapping = group_id_mapping.GetValues<uint32_t>(1);
  for (int64_t g = 0; g < other.size(); ++g) state.hll.Merge(state.of(mapping[g]), other.of(g));
  return Status::OK();
}

Status GroupedFinalize(cp::KernelContext* ctx, arrow::Datum* out) {
  ARROW_ASSIGN_OR_RAISE(auto sketches, StateOf(ctx).ToBinary(ctx->memory_pool()));
  *out = sketches;
  return Status::OK();
}

Status OneAdd(cp::KernelContext* ctx, const cp::ExecSpan& batch) {
  return AddValues(StateOf(ctx), batch, [](int64_t) { return int64_t{0}; });
}

Status OneMergeInput(cp::KernelContext* ctx, const cp::ExecSpan& batch) {
  return MergeSketches(StateOf(ctx), batch, [](int64_t) { return int64_t{0}; });
}

Status OneMergeStates(cp::KernelContext*, cp::KernelState&& src, cp::KernelState* dst) {
  auto& into = *static_cast<Sketches*>(dst);
  into.hll.Merge(into.of(0), static_cast<const Sketches&>(src).of(0));
  return Status::OK();
}

Status OneFinalize(cp::KernelContext* ctx, arrow::Datum* out) {
  ARROW_ASSIGN_OR_RAISE(auto sketches, StateOf(ctx).ToBinary(ctx->memory_pool()));
  ARROW_ASSIGN_OR_RAISE(auto sketch, sketches->GetScalar(0));
  *out = sketch;
  return Status::OK();
}

Status EstimateExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  if (!batch[0].is_array()) return Status::NotImplemented("ember_hll_estimate of a scalar");
  const arrow::BinaryArray sketches(batch[0].array.ToArrayData());
  int64_t* estimates = out->array_span_mutable()->GetValues<int64_t>(1);
  std::vector<uint64_t> words;
  for (int64_t i = 0; i < sketches.length(); ++i) {
    if (sketches.IsNull(i)) {
      estimates[i] = 0;
      continue;
    }
    std::string_view sketch = sketches.GetView(i);
    ARROW_ASSIGN_OR_RAISE(int precision,
                          HyperLogLog::PrecisionOfSketch(static_cast<int64_t>(sketch.size())));
    words.resize(sketch.size() / sizeof(uint64_t));
    std::memcpy(words.data(), sketch.data(), sketch.size());
    estimates[i] = HyperLogLog(precision).Estimate(words);
  }
  return Status::OK();
}

const HyperLogLogOptions kDefaultOptions;

// A hash aggregate's kernels also take the group ids: one argument more.
template <typename Function, typename Kernel>
Status AddAggregate(cp::FunctionRegistry* registry, const std::string& name, cp::Arity arity,
                    Kernel kernel) {
  auto fn = std::make_shared<Function>(name, arity, cp::FunctionDoc::Empty(), &kDefaultOptions);
  ARROW_RETURN_NOT_OK(fn->AddKernel(std::move(kernel)));
  return registry->AddFunction(std::move(fn));
}

Status AddGrouped(cp::FunctionRegistry* registry, const std::string& name, cp::InputType input,
                  cp::HashAggregateConsume consume) {
  cp::HashAggregateKernel kernel({input, cp::InputType(arrow::Type::UINT32)},
                                 cp::OutputType(arrow::binary()), InitSketches, consume,
                                 GroupedResize, GroupedMergeStates, GroupedFinalize,
                                 /*ordered=*/false);
  return AddAggregate<cp::HashAggregateFunction>(registry, name, cp::Arity::Binary(),
                                                 std::move(kernel));
}

Status AddUngrouped(cp::FunctionRegistry* registry, const std::string& name, cp::InputType input,
                    cp::ScalarAggregateConsume consume) {
  cp::ScalarAggregateKernel kernel({input}, cp::OutputType(arrow::binary()), InitOneSketch, consume,
                                   OneMergeStates, OneFinalize, /*ordered=*/false);
  return AddAggregate<cp::ScalarAggregateFunction>(registry, name, cp::Arity::Unary(),
                                                   std::move(kernel));
}

}  // namespace

Status RegisterHyperLogLogKernels(cp::FunctionRegistry* registry) {
  const cp::InputType sketch(arrow::Type::BINARY);
  ARROW_RETURN_NOT_OK(
      AddGrouped(registry, "hash_ember_hll_sketch", cp::InputType::Any(), GroupedAdd));
  ARROW_RETURN_NOT_OK(AddUngrouped(registry, "ember_hll_sketch", cp::InputType::Any(), OneAdd));
  ARROW_RETURN_NOT_OK(AddGrouped(registry, "hash_ember_hll_merge", sketch, GroupedMergeInput));
  ARROW_RETURN_NOT_OK(AddUngrouped(registry, "ember_hll_merge", sketch, OneMergeInput));
  auto estimate = std::make_shared<cp::ScalarFunction>("ember_hll_estimate", cp::Arity::Unary(),
                                                       cp::FunctionDoc::Empty());
  cp::ScalarKernel kernel({sketch}, cp::OutputType(arrow::int64()), EstimateExec);
  ARROW_RETURN_NOT_OK(estimate->AddKernel(std::move(kernel)));
  return registry->AddFunction(std::move(estimate));
}

}  // namespace ember::exec
