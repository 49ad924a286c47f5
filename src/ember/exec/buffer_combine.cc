#include "ember/exec/buffer_combine.h"

#include <cmath>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/util/bit_util.h>
#include <arrow/util/bitmap_ops.h>

#include "ember/exec/hyperloglog.h"

namespace ember::exec {

using arrow::Result;
namespace bit_util = arrow::bit_util;

namespace {

bool IsArithmetic(arrow::Type::type id) {
  return arrow::is_integer(id) || id == arrow::Type::FLOAT || id == arrow::Type::DOUBLE;
}

// Types whose order is their integer representation's.
bool IsTemporal(arrow::Type::type id) {
  switch (id) {
    case arrow::Type::DATE32:
    case arrow::Type::DATE64:
    case arrow::Type::TIMESTAMP:
    case arrow::Type::TIME32:
    case arrow::Type::TIME64:
    case arrow::Type::DURATION:
      return true;
    default:
      return false;
  }
}

bool IsBinaryLike(arrow::Type::type id) {
  return id == arrow::Type::STRING || id == arrow::Type::BINARY;
}

std::string_view ViewAt(const arrow::Array& array, int64_t i) {
  return static_cast<const arrow::BinaryArray&>(array).GetView(i);
}

template <typename T>
T Combined(CombineRule rule, T stored, T added) {
  if (rule == CombineRule::kAdd) {
    if constexpr (std::is_integral_v<T>) {
      // Wraps around on overflow, as Spark's non-ANSI sum of longs does.
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(stored) + static_cast<U>(added)));
    } else {
      return stored + added;
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    return rule == CombineRule::kMin ? std::fmin(stored, added) : std::fmax(stored, added);
  } else {
    return rule == CombineRule::kMin ? std::min(stored, added) : std::max(stored, added);
  }
}

// Sum, min and max of fixed-width numbers: the stored values copied once, the batch's combined
// into them in place.
template <typename T>
Result<std::shared_ptr<arrow::Array>> CombineNumbers(CombineRule rule, const arrow::Array& state,
                                                     const arrow::Array& fresh,
                                                     std::span<const int64_t> targets,
                                                     int64_t length) {
  const int64_t stored = state.length();
  ARROW_ASSIGN_OR_RAISE(auto values, arrow::AllocateBuffer(length * static_cast<int64_t>(sizeof(T))));
  ARROW_ASSIGN_OR_RAISE(auto validity, arrow::AllocateEmptyBitmap(length));
  T* out = values->mutable_data_as<T>();
  uint8_t* valid = validity->mutable_data();
  if (stored > 0) {
    std::memcpy(out, state.data()->GetValues<T>(1), static_cast<size_t>(stored) * sizeof(T));
    if (state.null_count() == 0) {
      bit_util::SetBitsTo(valid, 0, stored, true);
    } else {
      arrow::internal::CopyBitmap(state.null_bitmap_data(), state.offset(), stored, valid, 0);
    }
  }
  const T* added = fresh.data()->GetValues<T>(1);
  for (size_t i = 0; i < targets.size(); ++i) {
    const int64_t row = targets[i];
    const int64_t from = static_cast<int64_t>(i);
    if (fresh.IsNull(from)) {
      if (row >= stored) out[row] = T{};
      continue;
    }
    if (row >= stored || !bit_util::GetBit(valid, row)) {
      out[row] = added[from];
      bit_util::SetBit(valid, row);
    } else {
      out[row] = Combined(rule, out[row], added[from]);
    }
  }
  const int64_t nulls = length - arrow::internal::CountSetBits(valid, 0, length);
  return arrow::MakeArray(arrow::ArrayData::Make(state.type(), length,
                                                 {std::move(validity), std::move(values)}, nulls));
}

Result<std::shared_ptr<arrow::Array>> CombineNumbers(CombineRule rule, const arrow::Array& state,
                                                     const arrow::Array& fresh,
                                                     std::span<const int64_t> targets,
                                                     int64_t length) {
  switch (state.type_id()) {
    case arrow::Type::INT8:
      return CombineNumbers<int8_t>(rule, state, fresh, targets, length);
    case arrow::Type::INT16:
      return CombineNumbers<int16_t>(rule, state, fresh, targets, length);
    case arrow::Type::INT32:
    case arrow::Type::DATE32:
    case arrow::Type::TIME32:
      return CombineNumbers<int32_t>(rule, state, fresh, targets, length);
    case arrow::Type::INT64:
    case arrow::Type::DATE64:
    case arrow::Type::TIMESTAMP:
    case arrow::Type::TIME64:
    case arrow::Type::DURATION:
      return CombineNumbers<int64_t>(rule, state, fresh, targets, length);
    case arrow::Type::UINT8:
      return CombineNumbers<uint8_t>(rule, state, fresh, targets, length);
    case arrow::Type::UINT16:
      return CombineNumbers<uint16_t>(rule, state, fresh, targets, length);
    case arrow::Type::UINT32:
      return CombineNumbers<uint32_t>(rule, state, fresh, targets, length);
    case arrow::Type::UINT64:
      return CombineNumbers<uint64_t>(rule, state, fresh, targets, length);
    case arrow::Type::FLOAT:
      return CombineNumbers<float>(rule, state, fresh, targets, length);
    case arrow::Type::DOUBLE:
      return CombineNumbers<double>(rule, state, fresh, targets, length);
    default:
      return arrow::Status::NotImplemented("combining buffers of type ", state.type()->ToString());
  }
}

// Whether a stored group takes the batch's value instead of keeping its own.
bool TakesFresh(CombineRule rule, const arrow::Array& state, int64_t row, const arrow::Array& fresh,
                int64_t from) {
  switch (rule) {
    case CombineRule::kKeepFirst:
      return false;
    case CombineRule::kFirstValid:
      return state.IsNull(row);
    case CombineRule::kTakeLast:
      return true;
    case CombineRule::kLastValid:
      return fresh.IsValid(from);
    case CombineRule::kMin:
    case CombineRule::kMax: {
      if (fresh.IsNull(from)) return false;
      if (state.IsNull(row)) return true;
      // Byte order, as Spark compares strings and binaries.
      int order = ViewAt(fresh, from).compare(ViewAt(state, row));
      return rule == CombineRule::kMin ? order < 0 : order > 0;
    }
    default:
      return false;
  }
}

// Rules that pick one of the two values, for any type: a take from the stored and batch values.
Result<std::shared_ptr<arrow::Array>> CombineByChoice(CombineRule rule, const arrow::Array& state,
                                                      const arrow::Array& fresh,
                                                      std::span<const int64_t> targets,
                                                      int64_t length) {
  const int64_t stored = state.length();
  ARROW_ASSIGN_OR_RAISE(auto indices, arrow::AllocateBuffer(length * static_cast<int64_t>(sizeof(int64_t))));
  auto* pick = indices->mutable_data_as<int64_t>();
  for (int64_t row = 0; row < stored; ++row) pick[row] = row;
  for (size_t i = 0; i < targets.size(); ++i) {
    const int64_t row = targets[i];
    const int64_t from = static_cast<int64_t>(i);
    if (row >= stored || TakesFresh(rule, state, row, fresh, from)) pick[row] = stored + from;
  }
  auto both = std::make_shared<arrow::ChunkedArray>(
      arrow::ArrayVector{arrow::MakeArray(state.data()), arrow::MakeArray(fresh.data())}, state.type());
  auto index_array = std::make_shared<arrow::Int64Array>(length, std::move(indices));
  ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(arrow::Datum(both), arrow::Datum(index_array)));
  if (taken.is_array()) return taken.make_array();
  return arrow::Concatenate(taken.chunked_array()->chunks());
}

// HyperLogLog++ sketches: a stored sketch merged with the batch's, register by register.
Result<std::shared_ptr<arrow::Array>> CombineSketches(const arrow::Array& state,
                                                      const arrow::Array& fresh,
                                                      std::span<const int64_t> targets,
                                                      int64_t length) {
  const int64_t stored = state.length();
  std::vector<int64_t> from_batch(static_cast<size_t>(length), -1);
  for (size_t i = 0; i < targets.size(); ++i) {
    from_batch[static_cast<size_t>(targets[i])] = static_cast<int64_t>(i);
  }
  const auto& stored_sketches = static_cast<const arrow::BinaryArray&>(state);
  const auto& fresh_sketches = static_cast<const arrow::BinaryArray&>(fresh);
  arrow::BinaryBuilder out(state.type(), arrow::default_memory_pool());
  ARROW_RETURN_NOT_OK(out.Reserve(length));
  ARROW_RETURN_NOT_OK(out.ReserveData(stored_sketches.total_values_length() +
                                      fresh_sketches.total_values_length()));
  std::vector<uint64_t> merged, added;
  for (int64_t row = 0; row < length; ++row) {
    const int64_t from = from_batch[static_cast<size_t>(row)];
    const bool has_stored = row < stored && state.IsValid(row);
    const bool has_fresh = from >= 0 && fresh.IsValid(from);
    if (!has_stored && !has_fresh) {
      ARROW_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    if (!has_fresh || !has_stored) {
      ARROW_RETURN_NOT_OK(out.Append(has_stored ? stored_sketches.GetView(row)
                                                : fresh_sketches.GetView(from)));
      continue;
    }
    std::string_view left = stored_sketches.GetView(row), right = fresh_sketches.GetView(from);
    if (left.size() != right.size() || left.size() % sizeof(uint64_t) != 0) {
      return arrow::Status::Invalid("approx_count_distinct sketches of different sizes");
    }
    ARROW_ASSIGN_OR_RAISE(int precision, HyperLogLog::PrecisionOfSketch(static_cast<int64_t>(left.size())));
    // Copies: binary values carry no alignment.
    merged.resize(left.size() / sizeof(uint64_t));
    added.resize(merged.size());
    std::memcpy(merged.data(), left.data(), left.size());
    std::memcpy(added.data(), right.data(), right.size());
    HyperLogLog(precision).Merge(merged, added);
    ARROW_RETURN_NOT_OK(out.Append(reinterpret_cast<const uint8_t*>(merged.data()),
                                   static_cast<int32_t>(left.size())));
  }
  return out.Finish();
}

}  // namespace

bool CanCombine(CombineRule rule, const arrow::DataType& type) {
  const auto id = type.id();
  switch (rule) {
    case CombineRule::kAdd:
      return IsArithmetic(id);
    case CombineRule::kMin:
    case CombineRule::kMax:
      return IsArithmetic(id) || IsTemporal(id) || IsBinaryLike(id);
    case CombineRule::kMergeSketch:
      return id == arrow::Type::BINARY;
    default:
      return true;  // a choice between two values works for every type
  }
}

Result<std::shared_ptr<arrow::Array>> CombineBuffers(CombineRule rule, const arrow::Array& state,
                                                     const arrow::Array& fresh,
                                                     std::span<const int64_t> targets,
                                                     int64_t length) {
  if (!CanCombine(rule, *state.type()) || !state.type()->Equals(*fresh.type())) {
    return arrow::Status::NotImplemented("combining buffers of type ", state.type()->ToString(),
                                         " and ", fresh.type()->ToString());
  }
  if (static_cast<int64_t>(targets.size()) != fresh.length()) {
    return arrow::Status::Invalid("one target row per batch row expected");
  }
  for (int64_t row : targets) {
    if (row < 0 || row >= length) return arrow::Status::Invalid("target row out of range");
  }
  const auto id = state.type_id();
  switch (rule) {
    case CombineRule::kMergeSketch:
      return CombineSketches(state, fresh, targets, length);
    case CombineRule::kAdd:
      return CombineNumbers(rule, state, fresh, targets, length);
    case CombineRule::kMin:
    case CombineRule::kMax:
      if (!IsBinaryLike(id)) return CombineNumbers(rule, state, fresh, targets, length);
      return CombineByChoice(rule, state, fresh, targets, length);
    default:
      return CombineByChoice(rule, state, fresh, targets, length);
  }
}

}  // namespace ember::exec
