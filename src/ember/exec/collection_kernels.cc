// The kernels of Spark's array functions beyond those of array_kernels.cc: array_insert (and
// array_append, array_prepend), array_position, array_remove, array_repeat, arrays_overlap,
// array_union, array_except, array_intersect, flatten, arrays_zip, sequence, array_sort, shuffle,
// and the higher-order zip_with, map_zip_with and array_sort with a comparator.
//
// Elements are compared through a key: bytes equal exactly when Spark calls the elements equal.
// Spark compares two ways. Its hash sets (the set functions and arrays_overlap over atomic
// types) see NaN equal to NaN and -0.0 apart from 0.0; its ordering (array_position,
// array_remove, and every comparison inside nested values) sees NaN equal to NaN and -0.0 equal
// to 0.0.
#include <arrow/array/array_binary.h>
#include <arrow/array/array_decimal.h>
#include <arrow/array/array_nested.h>
#include <arrow/array/array_primitive.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/array/concatenate.h>
#include <arrow/array/util.h>
#include <arrow/compute/api.h>
#include <arrow/compute/registry.h>
#include <arrow/record_batch.h>
#include <arrow/util/bit_util.h>
#include <arrow/util/bitmap_builders.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ember/error.h"
#include "ember/exec/kernel_util.h"
#include "ember/exec/kernels.h"
#include "ember/plan/type_names.h"

namespace ember::exec {

namespace cp = arrow::compute;
using arrow::Result;
using arrow::Status;

namespace {

// Spark's ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH: the most elements an array may have.
constexpr int64_t kMaxArrayLength = 2147483632;

// --- element keys -------------------------------------------------------------------------------

enum class Zero { kSigned, kUnsigned };  // whether -0.0 and 0.0 are apart (hash sets) or equal

template <class T>
void AppendFloat(T v, Zero zero, std::string* key) {
  if (std::isnan(v)) v = std::numeric_limits<T>::quiet_NaN();
  if (zero == Zero::kUnsigned && v == 0) v = 0;
  key->append(reinterpret_cast<const char*>(&v), sizeof(v));
}

void AppendLength(int64_t n, std::string* key) {
  key->append(reinterpret_cast<const char*>(&n), sizeof(n));
}

// Appends the key of element i of `values` to `key`.
void AppendKey(const arrow::Array& values, int64_t i, Zero zero, std::string* key) {
  if (values.IsNull(i)) {
    key->push_back('\0');
    return;
  }
  key->push_back('\1');
  switch (values.type_id()) {
    case arrow::Type::NA:
      return;
    case arrow::Type::BOOL:
      key->push_back(static_cast<const arrow::BooleanArray&>(values).Value(i) ? '\1' : '\0');
      return;
    case arrow::Type::FLOAT:
      return AppendFloat(static_cast<const arrow::FloatArray&>(values).Value(i), zero, key);
    case arrow::Type::DOUBLE:
      return AppendFloat(static_cast<const arrow::DoubleArray&>(values).Value(i), zero, key);
    case arrow::Type::STRING:
    case arrow::Type::BINARY: {
      auto view = static_cast<const arrow::BinaryArray&>(values).GetView(i);
      AppendLength(static_cast<int64_t>(view.size()), key);
      key->append(view.data(), view.size());
      return;
    }
    case arrow::Type::LIST:
    case arrow::Type::MAP: {
      // A map's entries are a list of (key, value) structs.
      const auto& lists = static_cast<const arrow::ListArray&>(values);
      AppendLength(lists.value_length(i), key);
      for (int64_t j = lists.value_offset(i); j < lists.value_offset(i + 1); ++j) {
        AppendKey(*lists.values(), j, Zero::kUnsigned, key);
      }
      return;
    }
    case arrow::Type::STRUCT: {
      const auto& structs = static_cast<const arrow::StructArray&>(values);
      for (int f = 0; f < structs.num_fields(); ++f) {
        AppendKey(*structs.field(f), i, Zero::kUnsigned, key);
      }
      return;
    }
    default: {
      // Fixed-width values (integers, dates, timestamps, decimals): their bytes.
      const auto& data = *values.data();
      const int width = values.type()->byte_width();
      const auto* bytes = data.GetValues<char>(1, 0) + (data.offset + i) * width;
      key->append(bytes, static_cast<size_t>(width));
      return;
    }
  }
}

std::string KeyOf(const arrow::Array& values, int64_t i, Zero zero) {
  std::string key;
  AppendKey(values, i, zero, &key);
  return key;
}

// --- building lists -----------------------------------------------------------------------------

// The values of `source` at `take`, a take of -1 giving a NULL.
Result<std::shared_ptr<arrow::Array>> TakeOrNull(const std::shared_ptr<arrow::Array>& source,
                                                 const std::vector<int64_t>& take) {
  arrow::Int64Builder indices;
  ARROW_RETURN_NOT_OK(indices.Reserve(static_cast<int64_t>(take.size())));
  for (int64_t t : take) {
    if (t < 0) {
      indices.UnsafeAppendNull();
    } else {
      indices.UnsafeAppend(t);
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto index_array, indices.Finish());
  ARROW_ASSIGN_OR_RAISE(auto values, cp::Take(source, index_array));
  return values.make_array();
}

// Lists of `source`'s values: row i holds source[take[offsets[i] .. offsets[i+1])], a take of
// -1 a NULL element; a NULL row where !valid[i]. Its elements may be NULL (the analyzer's
// type, which the executor casts to, says whether they are).
struct ListsBuilder {
  std::vector<int64_t> take;
  std::vector<int32_t> offsets{0};
  std::vector<bool> valid;

  void EndRow(bool is_valid) {
    valid.push_back(is_valid);
    offsets.push_back(static_cast<int32_t>(take.size()));
  }

  Result<std::shared_ptr<arrow::Array>> Finish(const std::shared_ptr<arrow::Array>& source) {
    ARROW_ASSIGN_OR_RAISE(auto values, TakeOrNull(source, take));
    const int64_t n = static_cast<int64_t>(valid.size());
    int64_t nulls = 0;
    for (bool v : valid) nulls += !v;
    std::shared_ptr<arrow::Buffer> bitmap;
    if (nulls > 0) {
      ARROW_ASSIGN_OR_RAISE(bitmap, arrow::AllocateEmptyBitmap(n));
      for (int64_t i = 0; i < n; ++i) {
        if (valid[i]) arrow::bit_util::SetBit(bitmap->mutable_data(), i);
      }
    }
    return std::make_shared<arrow::ListArray>(plan::ArrayOf(source->type()), n,
                                              arrow::Buffer::FromVector(offsets), values, bitmap,
                                              nulls);
  }
};

Result<std::shared_ptr<arrow::ListArray>> ListArg(const cp::ExecSpan& batch, int i) {
  ARROW_ASSIGN_OR_RAISE(auto array, ArgArray(batch, i));
  return std::static_pointer_cast<arrow::ListArray>(array);
}

// A list of the input's element type whose elements may be NULL.
Result<arrow::TypeHolder> NullableListOfFirst(cp::KernelContext*,
                                              const std::vector<arrow::TypeHolder>& args) {
  return arrow::TypeHolder(
      plan::ArrayOf(static_cast<const arrow::ListType&>(*args[0].type).value_type()));
}

Status TooManyElements(int64_t n, const std::string& function, bool parameter) {
  std::string message = "Can't create array with " + std::to_string(n) +
                        " elements which exceeding the array size limit " +
                        std::to_string(kMaxArrayLength) + ", ";
  if (parameter) {
    return UserError(ErrorKind::kRuntime, "COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER",
                     message + "the value of parameter(s) `count` in the function `" + function +
                         "` is invalid.",
                     "54000");
  }
  return UserError(ErrorKind::kRuntime, "COLLECTION_SIZE_LIMIT_EXCEEDED.FUNCTION",
                   message + "unsuccessful try to create arrays in the function `" + function +
                       "`.",
                   "54000");
}

// --- array_insert, array_append, array_prepend --------------------------------------------------

// array_insert(a, pos, v): 1-based; pos past the end pads with NULLs. A negative pos counts from
// the end, -1 placing v after the last element; one before the first pads with NULLs between
// v and the array (Spark 4's rule).
Status ArrayInsertExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto lists, ListArg(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto positions, ArgArray(batch, 1));
  ARROW_ASSIGN_OR_RAISE(auto items, ArgArray(batch, 2));
  const auto& pos = static_cast<const arrow::Int32Array&>(*positions);
  // The source: the lists' values, then the items (row i's at values_length + i).
  const int64_t item_base = lists->values()->length();
  ListsBuilder b;
  for (int64_t i = 0; i < lists->length(); ++i) {
    if (lists->IsNull(i) || pos.IsNull(i)) {
      b.EndRow(false);
      continue;
    }
    const int64_t n = lists->value_length(i), first = lists->value_offset(i);
    const int64_t p = pos.Value(i);
    if (p == 0) {
      return UserError(ErrorKind::kRuntime, "INVALID_INDEX_OF_ZERO",
                       "The index 0 is invalid. An index shall be either < 0 or > 0 (the first "
                       "element has index 1).",
                       "22003");
    }
    // Where v goes in the new array, and how many NULLs pad it.
    int64_t at, pad_after = 0, pad_before = 0;
    if (p > 0) {
      at = p - 1;
      if (at > n) pad_after = at - n;
    } else {
      at = n + 1 + p;
      if (at < 0) {
        pad_before = -at;
        at = 0;
      }
    }
    const int64_t length = n + 1 + pad_after + pad_before;
    if (length > kMaxArrayLength) return TooManyElements(length, "array_insert", false);
    for (int64_t j = 0; j < std::min(at, n); ++j) b.take.push_back(first + j);
    for (int64_t j = 0; j < pad_after; ++j) b.take.push_back(-1);
    b.take.push_back(item_base + i);
    for (int64_t j = 0; j < pad_before; ++j) b.take.push_back(-1);
    for (int64_t j = at; j < n; ++j) b.take.push_back(first + j);
    b.EndRow(true);
  }
  ARROW_ASSIGN_OR_RAISE(auto source, arrow::Concatenate({lists->values(), items}));
  ARROW_ASSIGN_OR_RAISE(auto result, b.Finish(source));
  out->value = result->data();
  return Status::OK();
}

// --- array_position, array_remove ---------------------------------------------------------------

// array_position(a, v): the 1-based position of v's first occurrence, 0 if none.
Status ArrayPositionExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto lists, ListArg(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto items, ArgArray(batch, 1));
  const auto& values = *lists->values();
  arrow::Int64Builder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(lists->length()));
  for (int64_t i = 0; i < lists->length(); ++i) {
    if (lists->IsNull(i) || items->IsNull(i)) {
      builder.UnsafeAppendNull();
      continue;
    }
    const std::string wanted = KeyOf(*items, i, Zero::kUnsigned);
    int64_t found = 0;
    for (int64_t j = 0; j < lists->value_length(i) && found == 0; ++j) {
      if (KeyOf(values, lists->value_offset(i) + j, Zero::kUnsigned) == wanted) found = j + 1;
    }
    builder.UnsafeAppend(found);
  }
  ARROW_ASSIGN_OR_RAISE(auto result, builder.Finish());
  out->value = result->data();
  return Status::OK();
}

// array_remove(a, v): without the elements equal to v (NULL elements stay).
Status ArrayRemoveExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto lists, ListArg(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto items, ArgArray(batch, 1));
  const auto& values = *lists->values();
  ListsBuilder b;
  for (int64_t i = 0; i < lists->length(); ++i) {
    if (lists->IsNull(i) || items->IsNull(i)) {
      b.EndRow(false);
      continue;
    }
    const std::string unwanted = KeyOf(*items, i, Zero::kUnsigned);
    for (int64_t j = lists->value_offset(i); j < lists->value_offset(i + 1); ++j) {
      if (values.IsNull(j) || KeyOf(values, j, Zero::kUnsigned) != unwanted) b.take.push_back(j);
    }
    b.EndRow(true);
  }
  ARROW_ASSIGN_OR_RAISE(auto result, b.Finish(lists->values()));
  out->value = result->data();
  return Status::OK();
}

// --- array_repeat -------------------------------------------------------------------------------

// array_repeat(v, count): v count times; none for a count below 1.
Status ArrayRepeatExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto items, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto counts, ArgArray(batch, 1));
  const auto& count = static_cast<const arrow::Int32Array&>(*counts);
  ListsBuilder b;
  for (int64_t i = 0; i < items->length(); ++i) {
    if (count.IsNull(i)) {
      b.EndRow(false);
      continue;
    }
    const int64_t n = count.Value(i);
    if (n > kMaxArrayLength) return TooManyElements(n, "array_repeat", true);
    for (int64_t j = 0; j < n; ++j) b.take.push_back(i);
    b.EndRow(true);
  }
  ARROW_ASSIGN_OR_RAISE(auto result, b.Finish(items));
  out->value = result->data();
  return Status::OK();
}

Result<arrow::TypeHolder> NullableListOfArg(cp::KernelContext*,
                                            const std::vector<arrow::TypeHolder>& args) {
  return arrow::TypeHolder(plan::ArrayOf(args[0].GetSharedPtr()));
}

// --- arrays_overlap and the set functions -------------------------------------------------------

// arrays_overlap(a, b): true when they share a non-NULL element; else NULL when both are
// non-empty and either holds a NULL; else false.
Status ArraysOverlapExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto left, ListArg(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto right, ListArg(batch, 1));
  arrow::BooleanBuilder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(left->length()));
  std::unordered_set<std::string> seen;
  for (int64_t i = 0; i < left->length(); ++i) {
    if (left->IsNull(i) || right->IsNull(i)) {
      builder.UnsafeAppendNull();
      continue;
    }
    seen.clear();
    bool saw_null = false, found = false;
    for (int64_t j = left->value_offset(i); j < left->value_offset(i + 1); ++j) {
      if (left->values()->IsNull(j)) {
        saw_null = true;
      } else {
        seen.insert(KeyOf(*left->values(), j, Zero::kSigned));
      }
    }
    for (int64_t j = right->value_offset(i); j < right->value_offset(i + 1) && !found; ++j) {
      if (right->values()->IsNull(j)) {
        saw_null = true;
      } else {
        found = seen.count(KeyOf(*right->values(), j, Zero::kSigned)) > 0;
      }
    }
    const bool both_non_empty = left->value_length(i) > 0 && right->value_length(i) > 0;
    if (!found && saw_null && both_non_empty) {
      builder.UnsafeAppendNull();
    } else {
      builder.UnsafeAppend(found);
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto result, builder.Finish());
  out->value = result->data();
  return Status::OK();
}

enum class SetOp { kUnion, kExcept, kIntersect };

// array_union(a, b): the distinct elements of a then b; array_except(a, b): a's distinct
// elements not in b; array_intersect(a, b): a's distinct elements also in b. In the order of
// first appearance, a NULL element kept once.
template <SetOp kOp>
Status SetExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto left, ListArg(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto right, ListArg(batch, 1));
  const int64_t right_base = left->values()->length();
  ListsBuilder b;
  std::unordered_set<std::string> emitted, in_right;
  for (int64_t i = 0; i < left->length(); ++i) {
    if (left->IsNull(i) || right->IsNull(i)) {
      b.EndRow(false);
      continue;
    }
    emitted.clear();
    in_right.clear();
    if (kOp != SetOp::kUnion) {
      for (int64_t j = right->value_offset(i); j < right->value_offset(i + 1); ++j) {
        in_right.insert(KeyOf(*right->values(), j, Zero::kSigned));
      }
    }
    for (int64_t j = left->value_offset(i); j < left->value_offset(i + 1); ++j) {
      std::string key = KeyOf(*left->values(), j, Zero::kSigned);
      const bool keep = kOp == SetOp::kUnion       ? true
                        : kOp == SetOp::kExcept    ? in_right.count(key) == 0
                                                   : in_right.count(key) > 0;
      if (keep && emitted.insert(std::move(key)).second) b.take.push_back(j);
    }
    if (kOp == SetOp::kUnion) {
      for (int64_t j = right->value_offset(i); j < right->value_offset(i + 1); ++j) {
        if (emitted.insert(KeyOf(*right->values(), j, Zero::kSigned)).second) {
          b.take.push_back(right_base + j);
        }
      }
    }
    b.EndRow(true);
  }
  ARROW_ASSIGN_OR_RAISE(auto source, arrow::Concatenate({left->values(), right->values()}));
  ARROW_ASSIGN_OR_RAISE(auto result, b.Finish(source));
  out->value = result->data();
  return Status::OK();
}

// --- flatten, arrays_zip, shuffle ---------------------------------------------------------------

// flatten(a): the inner arrays' elements in order; NULL when an inner array is.
Status FlattenExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto lists, ListArg(batch, 0));
  const auto& inner = static_cast<const arrow::ListArray&>(*lists->values());
  ListsBuilder b;
  for (int64_t i = 0; i < lists->length(); ++i) {
    bool valid = lists->IsValid(i);
    for (int64_t j = lists->value_offset(i); valid && j < lists->value_offset(i + 1); ++j) {
      valid = inner.IsValid(j);
    }
    if (!valid) {
      b.EndRow(false);
      continue;
    }
    for (int64_t j = lists->value_offset(i); j < lists->value_offset(i + 1); ++j) {
      for (int64_t k = inner.value_offset(j); k < inner.value_offset(j + 1); ++k) {
        b.take.push_back(k);
      }
    }
    b.EndRow(true);
  }
  ARROW_ASSIGN_OR_RAISE(auto result, b.Finish(inner.values()));
  out->value = result->data();
  return Status::OK();
}

Result<arrow::TypeHolder> InnerElements(cp::KernelContext*,
                                        const std::vector<arrow::TypeHolder>& args) {
  const auto& outer = static_cast<const arrow::ListType&>(*args[0].type);
  const auto& inner = static_cast<const arrow::ListType&>(*outer.value_type());
  return arrow::TypeHolder(plan::ArrayOf(inner.value_type()));
}

// arrays_zip(a1, ..., an, type): the i-th struct holds each array's i-th element (NULL past its
// end), as long as the longest; NULL when an array is. The last argument is a NULL of the result
// type, which names the fields.
Status ArraysZipExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  const int width = batch.num_values() - 1;
  const auto& type = static_cast<const arrow::ListType&>(*batch[width].type());
  std::vector<std::shared_ptr<arrow::ListArray>> lists;
  for (int k = 0; k < width; ++k) {
    ARROW_ASSIGN_OR_RAISE(auto list, ListArg(batch, k));
    lists.push_back(std::move(list));
  }
  // Per field, the positions of its elements (-1 past an array's end); the rows' structs are
  // then one list per row over consecutive structs.
  std::vector<std::vector<int64_t>> fields(static_cast<size_t>(width));
  ListsBuilder rows;
  for (int64_t i = 0; i < batch.length; ++i) {
    bool row_valid = true;
    int64_t longest = 0;
    for (const auto& list : lists) {
      row_valid = row_valid && list->IsValid(i);
      if (list->IsValid(i)) longest = std::max<int64_t>(longest, list->value_length(i));
    }
    if (!row_valid) longest = 0;
    for (int k = 0; k < width; ++k) {
      const auto& list = *lists[k];
      for (int64_t j = 0; j < longest; ++j) {
        fields[k].push_back(j < list.value_length(i) ? list.value_offset(i) + j : -1);
      }
    }
    for (int64_t j = 0; j < longest; ++j) rows.take.push_back(static_cast<int64_t>(rows.take.size()));
    rows.EndRow(row_valid);
  }
  arrow::ArrayVector children;
  for (int k = 0; k < width; ++k) {
    ARROW_ASSIGN_OR_RAISE(auto child, TakeOrNull(lists[k]->values(), fields[k]));
    children.push_back(std::move(child));
  }
  const auto count = static_cast<int64_t>(rows.take.size());
  auto structs = std::make_shared<arrow::StructArray>(type.value_type(), count, children);
  ARROW_ASSIGN_OR_RAISE(auto result, rows.Finish(structs));
  out->value = result->data();
  return Status::OK();
}

Result<arrow::TypeHolder> LastArgType(cp::KernelContext*,
                                      const std::vector<arrow::TypeHolder>& args) {
  return arrow::TypeHolder(plan::ArrayOf(
      static_cast<const arrow::ListType&>(*args.back().type).value_type()));
}

// shuffle(a): its elements in a random order.
Status ShuffleExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto lists, ListArg(batch, 0));
  static thread_local std::mt19937_64 random{std::random_device{}()};
  ListsBuilder b;
  for (int64_t i = 0; i < lists->length(); ++i) {
    size_t from = b.take.size();
    for (int64_t j = lists->value_offset(i); lists->IsValid(i) && j < lists->value_offset(i + 1);
         ++j) {
      b.take.push_back(j);
    }
    std::shuffle(b.take.begin() + static_cast<std::ptrdiff_t>(from), b.take.end(), random);
    b.EndRow(lists->IsValid(i));
  }
  ARROW_ASSIGN_OR_RAISE(auto result, b.Finish(lists->values()));
  out->value = result->data();
  return Status::OK();
}

Result<std::shared_ptr<arrow::Array>> CastValues(std::shared_ptr<arrow::Array> values,
                                                 const std::shared_ptr<arrow::DataType>& type) {
  if (values->type()->Equals(*type)) return values;
  ARROW_ASSIGN_OR_RAISE(auto cast, cp::Cast(values, type));
  return cast.make_array();
}

Result<std::shared_ptr<arrow::Buffer>> Validity(const std::vector<bool>& valid, int64_t* nulls) {
  *nulls = 0;
  for (bool v : valid) *nulls += !v;
  if (*nulls == 0) return nullptr;
  ARROW_ASSIGN_OR_RAISE(auto bits, arrow::AllocateEmptyBitmap(static_cast<int64_t>(valid.size())));
  for (size_t i = 0; i < valid.size(); ++i) {
    if (valid[i]) arrow::bit_util::SetBit(bits->mutable_data(), static_cast<int64_t>(i));
  }
  return std::shared_ptr<arrow::Buffer>(std::move(bits));
}

// --- sequence -----------------------------------------------------------------------------------

// sequence(start, stop, step): start, start + step, ... up to stop, as Spark's
// Sequence.getSequenceLength checks it: a step of the wrong sign (or 0 between different bounds)
// is an IllegalArgumentException, more than kMaxArrayLength elements an error. Integers, dates
// (in days) and timestamps (in microseconds) alike: int64 arithmetic, the result of start's type.
Status SequenceExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto starts, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto stops, ArgArray(batch, 1));
  ARROW_ASSIGN_OR_RAISE(auto steps, ArgArray(batch, 2));
  const auto type = starts->type();
  // Dates as their days (arrow casts a date to int32 only), timestamps as their microseconds.
  auto as_longs = [&](std::shared_ptr<arrow::Array> v) -> Result<std::shared_ptr<arrow::Array>> {
    if (type->id() == arrow::Type::DATE32) {
      ARROW_ASSIGN_OR_RAISE(v, CastValues(v, arrow::int32()));
    }
    return CastValues(v, arrow::int64());
  };
  ARROW_ASSIGN_OR_RAISE(auto start_values, as_longs(starts));
  ARROW_ASSIGN_OR_RAISE(auto stop_values, as_longs(stops));
  const auto& start = static_cast<const arrow::Int64Array&>(*start_values);
  const auto& stop = static_cast<const arrow::Int64Array&>(*stop_values);
  const auto& step = static_cast<const arrow::Int64Array&>(*steps);
  arrow::Int64Builder values;
  std::vector<int32_t> offsets{0};
  std::vector<bool> valid;
  for (int64_t i = 0; i < starts->length(); ++i) {
    if (start.IsNull(i) || stop.IsNull(i) || step.IsNull(i)) {
      valid.push_back(false);
      offsets.push_back(offsets.back());
      continue;
    }
    const int64_t a = start.Value(i), b = stop.Value(i), by = step.Value(i);
    if (!((by > 0 && a <= b) || (by < 0 && a >= b) || (by == 0 && a == b))) {
      return UserError(ErrorKind::kIllegalArgument, "",
                       "requirement failed: Illegal sequence boundaries: " + std::to_string(a) +
                           " to " + std::to_string(b) + " by " + std::to_string(by));
    }
    const __int128 length =
        a == b ? 1 : 1 + (static_cast<__int128>(b) - a) / static_cast<__int128>(by);
    if (length > kMaxArrayLength) {
      return TooManyElements(static_cast<int64_t>(length), "sequence", true);
    }
    if (static_cast<int64_t>(offsets.back()) + static_cast<int64_t>(length) > kMaxArrayLength) {
      return Status::CapacityError("sequence: more elements than one batch may hold");
    }
    ARROW_RETURN_NOT_OK(values.Reserve(static_cast<int64_t>(length)));
    for (int64_t k = 0; k < static_cast<int64_t>(length); ++k) {
      values.UnsafeAppend(static_cast<int64_t>(a + static_cast<__int128>(by) * k));
    }
    valid.push_back(true);
    offsets.push_back(offsets.back() + static_cast<int32_t>(length));
  }
  ARROW_ASSIGN_OR_RAISE(auto longs, values.Finish());
  // Dates and timestamps: the integers of their layout, relabelled.
  std::shared_ptr<arrow::Array> elements;
  if (type->id() == arrow::Type::DATE32 || type->id() == arrow::Type::TIMESTAMP) {
    const auto layout = type->id() == arrow::Type::DATE32 ? arrow::int32() : arrow::int64();
    ARROW_ASSIGN_OR_RAISE(auto narrowed, CastValues(longs, layout));
    auto data = narrowed->data()->Copy();
    data->type = type;
    elements = arrow::MakeArray(data);
  } else {
    ARROW_ASSIGN_OR_RAISE(elements, CastValues(longs, type));
  }
  int64_t nulls = 0;
  ARROW_ASSIGN_OR_RAISE(auto bitmap, Validity(valid, &nulls));
  auto result = std::make_shared<arrow::ListArray>(plan::ArrayOf(type), starts->length(),
                                                   arrow::Buffer::FromVector(offsets), elements,
                                                   bitmap, nulls);
  out->value = result->data();
  return Status::OK();
}

constexpr int64_t kMicrosPerDay = 86400LL * 1000000;

// A date sequence's step, an interval in microseconds, as days: whole days only.
Status SequenceDaysExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto steps, ArgArray(batch, 0));
  const auto& micros = static_cast<const arrow::Int64Array&>(*steps);
  arrow::Int64Builder days;
  for (int64_t i = 0; i < micros.length(); ++i) {
    if (micros.IsNull(i)) {
      ARROW_RETURN_NOT_OK(days.AppendNull());
      continue;
    }
    const int64_t m = micros.Value(i);
    if (m / kMicrosPerDay == 0) {
      return UserError(ErrorKind::kIllegalArgument, "_LEGACY_ERROR_TEMP_3242",
                       "sequence step must be an interval day to second of day granularity if "
                       "start and end values are dates");
    }
    if (m % kMicrosPerDay != 0) {
      return UserError(ErrorKind::kUnsupportedOperation, "UNSUPPORTED_FEATURE",
                       "The feature is not supported: sequence of dates by an interval of part "
                       "of a day.",
                       "0A000");
    }
    ARROW_RETURN_NOT_OK(days.Append(m / kMicrosPerDay));
  }
  ARROW_ASSIGN_OR_RAISE(auto result, days.Finish());
  out->value = result->data();
  return Status::OK();
}

// A timestamp sequence's step in microseconds: less than a day (whole days step the session
// zone's calendar).
Status SequenceMicrosExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto steps, ArgArray(batch, 0));
  const auto& micros = static_cast<const arrow::Int64Array&>(*steps);
  for (int64_t i = 0; i < micros.length(); ++i) {
    if (micros.IsValid(i) &&
        (micros.Value(i) >= kMicrosPerDay || micros.Value(i) <= -kMicrosPerDay)) {
      return UserError(ErrorKind::kUnsupportedOperation, "UNSUPPORTED_FEATURE",
                       "The feature is not supported: sequence of timestamps by an interval of a "
                       "day or more.",
                       "0A000");
    }
  }
  out->value = steps->data();
  return Status::OK();
}

// --- array_sort without a comparator ------------------------------------------------------------

// Spark's ordering of two non-NULL values (of one type): numbers by value with NaN above every
// other and -0.0 equal to 0.0, text and binary by bytes, arrays element by element (a NULL
// element first, a prefix before the longer), structs field by field.
int CompareValues(const arrow::Array& a, int64_t i, const arrow::Array& b, int64_t j);

int CompareNullsFirst(const arrow::Array& a, int64_t i, const arrow::Array& b, int64_t j) {
  if (a.IsNull(i) || b.IsNull(j)) return a.IsNull(i) == b.IsNull(j) ? 0 : a.IsNull(i) ? -1 : 1;
  return CompareValues(a, i, b, j);
}

template <class T>
int Three(T x, T y) {
  return x < y ? -1 : y < x ? 1 : 0;
}

template <class T>
int CompareFloat(T x, T y) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) == std::isnan(y) ? 0 : std::isnan(x) ? 1 : -1;
  return Three(x, y);
}

template <class ArrayType>
int ComparePrimitive(const arrow::Array& a, int64_t i, const arrow::Array& b, int64_t j) {
  return Three(static_cast<const ArrayType&>(a).Value(i), static_cast<const ArrayType&>(b).Value(j));
}

int CompareValues(const arrow::Array& a, int64_t i, const arrow::Array& b, int64_t j) {
  switch (a.type_id()) {
    case arrow::Type::NA: return 0;
    case arrow::Type::BOOL: return ComparePrimitive<arrow::BooleanArray>(a, i, b, j);
    case arrow::Type::INT8: return ComparePrimitive<arrow::Int8Array>(a, i, b, j);
    case arrow::Type::INT16: return ComparePrimitive<arrow::Int16Array>(a, i, b, j);
    case arrow::Type::INT32: return ComparePrimitive<arrow::Int32Array>(a, i, b, j);
    case arrow::Type::INT64: return ComparePrimitive<arrow::Int64Array>(a, i, b, j);
    case arrow::Type::DATE32: return ComparePrimitive<arrow::Date32Array>(a, i, b, j);
    case arrow::Type::TIMESTAMP: return ComparePrimitive<arrow::TimestampArray>(a, i, b, j);
    case arrow::Type::FLOAT:
      return CompareFloat(static_cast<const arrow::FloatArray&>(a).Value(i),
                          static_cast<const arrow::FloatArray&>(b).Value(j));
    case arrow::Type::DOUBLE:
      return CompareFloat(static_cast<const arrow::DoubleArray&>(a).Value(i),
                          static_cast<const arrow::DoubleArray&>(b).Value(j));
    case arrow::Type::DECIMAL128: {
      arrow::Decimal128 x(static_cast<const arrow::Decimal128Array&>(a).GetValue(i));
      arrow::Decimal128 y(static_cast<const arrow::Decimal128Array&>(b).GetValue(j));
      return Three(x, y);
    }
    case arrow::Type::STRING:
    case arrow::Type::BINARY: {
      auto x = static_cast<const arrow::BinaryArray&>(a).GetView(i);
      auto y = static_cast<const arrow::BinaryArray&>(b).GetView(j);
      int c = x.compare(y);
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    case arrow::Type::LIST: {
      const auto& x = static_cast<const arrow::ListArray&>(a);
      const auto& y = static_cast<const arrow::ListArray&>(b);
      const int64_t n = std::min(x.value_length(i), y.value_length(j));
      for (int64_t k = 0; k < n; ++k) {
        int c = CompareNullsFirst(*x.values(), x.value_offset(i) + k, *y.values(),
                                  y.value_offset(j) + k);
        if (c != 0) return c;
      }
      return Three(x.value_length(i), y.value_length(j));
    }
    case arrow::Type::STRUCT: {
      const auto& x = static_cast<const arrow::StructArray&>(a);
      const auto& y = static_cast<const arrow::StructArray&>(b);
      for (int f = 0; f < x.num_fields(); ++f) {
        int c = CompareNullsFirst(*x.field(f), i, *y.field(f), j);
        if (c != 0) return c;
      }
      return 0;
    }
    default:
      return 0;  // the analyzer lets no other type be sorted
  }
}

// array_sort(a): ascending, NULLs last, equal elements in their order.
Result<std::shared_ptr<arrow::Array>> SortNaturally(const arrow::ListArray& lists) {
  const auto& values = *lists.values();
  ListsBuilder b;
  for (int64_t i = 0; i < lists.length(); ++i) {
    const size_t from = b.take.size();
    for (int64_t j = lists.value_offset(i); lists.IsValid(i) && j < lists.value_offset(i + 1);
         ++j) {
      b.take.push_back(j);
    }
    std::stable_sort(b.take.begin() + static_cast<std::ptrdiff_t>(from), b.take.end(),
                     [&](int64_t x, int64_t y) {
                       if (values.IsNull(x) || values.IsNull(y)) return values.IsValid(x) && values.IsNull(y);
                       return CompareValues(values, x, values, y) < 0;
                     });
    b.EndRow(lists.IsValid(i));
  }
  return b.Finish(lists.values());
}

// --- higher-order functions ---------------------------------------------------------------------

// The outer columns a lambda reads (arguments from `first` on), each taken at `rows`.
Result<arrow::ArrayVector> OuterAt(const cp::ExecSpan& batch, int first,
                                   const std::vector<int64_t>& rows) {
  arrow::ArrayVector out;
  for (int k = first; k < batch.num_values(); ++k) {
    ARROW_ASSIGN_OR_RAISE(auto column, ArgArray(batch, k));
    ARROW_ASSIGN_OR_RAISE(auto taken, TakeAt(column, rows));
    out.push_back(std::move(taken));
  }
  return out;
}

// zip_with(a, b, (x, y) -> z): z of the i-th elements, as long as the longer array (NULL past
// the shorter one's end); NULL when either array is.
Status ZipWith(const HigherOrderCall& call, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto left, ListArg(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto right, ListArg(batch, 1));
  std::vector<int64_t> xs, ys, owner;
  ListsBuilder rows;
  for (int64_t i = 0; i < left->length(); ++i) {
    const bool valid = left->IsValid(i) && right->IsValid(i);
    const int64_t n = valid ? std::max(left->value_length(i), right->value_length(i)) : 0;
    for (int64_t j = 0; j < n; ++j) {
      xs.push_back(j < left->value_length(i) ? left->value_offset(i) + j : -1);
      ys.push_back(j < right->value_length(i) ? right->value_offset(i) + j : -1);
      owner.push_back(i);
      rows.take.push_back(static_cast<int64_t>(rows.take.size()));
    }
    rows.EndRow(valid);
  }
  ARROW_ASSIGN_OR_RAISE(auto x, TakeOrNull(left->values(), xs));
  ARROW_ASSIGN_OR_RAISE(auto y, TakeOrNull(right->values(), ys));
  ARROW_ASSIGN_OR_RAISE(auto outer, OuterAt(batch, 2, owner));
  const auto count = static_cast<int64_t>(owner.size());
  ARROW_ASSIGN_OR_RAISE(auto z, EvaluateLambda(call, 0, {x, y}, outer, count));
  const auto& type = static_cast<const arrow::ListType&>(*call.result_type);
  ARROW_ASSIGN_OR_RAISE(z, CastValues(z, type.value_type()));
  int64_t nulls = 0;
  ARROW_ASSIGN_OR_RAISE(auto bitmap, Validity(rows.valid, &nulls));
  auto result = std::make_shared<arrow::ListArray>(
      call.result_type, left->length(), arrow::Buffer::FromVector(rows.offsets), z, bitmap, nulls);
  out->value = result->data();
  return Status::OK();
}

// map_zip_with(m1, m2, (k, v1, v2) -> v): for each key of m1, then each of m2's others, v of the
// key's values in both (NULL where a map lacks it); NULL when either map is.
Status MapZipWith(const HigherOrderCall& call, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto first_array, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto second_array, ArgArray(batch, 1));
  const auto& m1 = static_cast<const arrow::MapArray&>(*first_array);
  const auto& m2 = static_cast<const arrow::MapArray&>(*second_array);
  const int64_t second_base = m1.keys()->length();
  std::vector<int64_t> keys, v1, v2, owner;
  ListsBuilder rows;
  std::unordered_map<std::string, size_t> seen;  // a key's entry in the row's result
  for (int64_t i = 0; i < m1.length(); ++i) {
    const bool valid = m1.IsValid(i) && m2.IsValid(i);
    seen.clear();
    const size_t row_start = keys.size();
    for (int64_t j = m1.value_offset(i); valid && j < m1.value_offset(i + 1); ++j) {
      seen.emplace(KeyOf(*m1.keys(), j, Zero::kSigned), keys.size());
      keys.push_back(j);
      v1.push_back(j);
      v2.push_back(-1);
    }
    for (int64_t j = m2.value_offset(i); valid && j < m2.value_offset(i + 1); ++j) {
      auto [at, fresh] = seen.emplace(KeyOf(*m2.keys(), j, Zero::kSigned), keys.size());
      if (fresh) {
        keys.push_back(second_base + j);
        v1.push_back(-1);
        v2.push_back(j);
      } else {
        v2[at->second] = j;
      }
    }
    for (size_t k = row_start; k < keys.size(); ++k) {
      owner.push_back(i);
      rows.take.push_back(static_cast<int64_t>(k));
    }
    rows.EndRow(valid);
  }
  ARROW_ASSIGN_OR_RAISE(auto all_keys, arrow::Concatenate({m1.keys(), m2.keys()}));
  ARROW_ASSIGN_OR_RAISE(auto k, TakeOrNull(all_keys, keys));
  ARROW_ASSIGN_OR_RAISE(auto x, TakeOrNull(m1.items(), v1));
  ARROW_ASSIGN_OR_RAISE(auto y, TakeOrNull(m2.items(), v2));
  ARROW_ASSIGN_OR_RAISE(auto outer, OuterAt(batch, 2, owner));
  const auto count = static_cast<int64_t>(owner.size());
  ARROW_ASSIGN_OR_RAISE(auto v, EvaluateLambda(call, 0, {k, x, y}, outer, count));
  const auto& type = static_cast<const arrow::MapType&>(*call.result_type);
  ARROW_ASSIGN_OR_RAISE(v, CastValues(v, type.item_type()));
  ARROW_ASSIGN_OR_RAISE(k, CastValues(k, type.key_type()));
  int64_t nulls = 0;
  ARROW_ASSIGN_OR_RAISE(auto bitmap, Validity(rows.valid, &nulls));
  auto result = std::make_shared<arrow::MapArray>(call.result_type, m1.length(),
                                                  arrow::Buffer::FromVector(rows.offsets), k, v,
                                                  bitmap, nulls);
  out->value = result->data();
  return Status::OK();
}

Status ComparatorReturnedNull() {
  return UserError(ErrorKind::kRuntime, "COMPARATOR_RETURNS_NULL",
                   "The comparator has returned a NULL for a comparison. It should return a "
                   "positive integer for \"greater than\", 0 for \"equal\" and a negative "
                   "integer for \"less than\". To revert to deprecated behavior where NULL is "
                   "treated as 0 (equal), you must set "
                   "\"spark.sql.legacy.allowNullComparisonResultInArraySort\" to \"true\".",
                   "22004");
}

// Rows of more elements than this sort by one comparison at a time; others by a table of every
// pair's comparison, evaluated at once.
constexpr int64_t kLargestTabulated = 512;

// array_sort(a, (l, r) -> int): a stable sort by the comparator (as Java's TimSort is for a
// consistent one); a NULL comparison the sort consults is an error.
Status SortByComparator(const HigherOrderCall& call, const cp::ExecSpan& batch,
                        cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto lists, ListArg(batch, 0));
  const auto& values = lists->values();
  // The pairs (l, r) of the tabulated rows, every row's table one after another.
  std::vector<int64_t> ls, rs, owner, table_start(static_cast<size_t>(lists->length()), -1);
  for (int64_t i = 0; i < lists->length(); ++i) {
    const int64_t n = lists->IsValid(i) ? lists->value_length(i) : 0;
    if (n < 2 || n > kLargestTabulated) continue;
    table_start[i] = static_cast<int64_t>(ls.size());
    for (int64_t a = 0; a < n; ++a) {
      for (int64_t b = 0; b < n; ++b) {
        ls.push_back(lists->value_offset(i) + a);
        rs.push_back(lists->value_offset(i) + b);
        owner.push_back(i);
      }
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto l, TakeAt(values, ls));
  ARROW_ASSIGN_OR_RAISE(auto r, TakeAt(values, rs));
  ARROW_ASSIGN_OR_RAISE(auto outer, OuterAt(batch, 1, owner));
  ARROW_ASSIGN_OR_RAISE(auto table, EvaluateLambda(call, 0, {l, r}, outer,
                                                   static_cast<int64_t>(owner.size())));
  ARROW_ASSIGN_OR_RAISE(table, CastValues(table, arrow::int32()));
  const auto& compared = static_cast<const arrow::Int32Array&>(*table);
  Status failed;
  ListsBuilder b;
  std::vector<int64_t> order;
  for (int64_t i = 0; i < lists->length() && failed.ok(); ++i) {
    const int64_t n = lists->IsValid(i) ? lists->value_length(i) : 0;
    const int64_t first = lists->IsValid(i) ? lists->value_offset(i) : 0;
    order.resize(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) order[j] = j;
    std::function<bool(int64_t, int64_t)> less;
    if (table_start[i] >= 0) {
      const int64_t base = table_start[i];
      less = [&, base, n](int64_t a, int64_t b) {
        const int64_t at = base + a * n + b;
        if (compared.IsNull(at)) {
          if (failed.ok()) failed = ComparatorReturnedNull();
          return false;
        }
        return compared.Value(at) < 0;
      };
    } else {
      less = [&, first, i](int64_t a, int64_t b) {
        if (!failed.ok()) return false;
        auto one = [&]() -> Result<bool> {
          ARROW_ASSIGN_OR_RAISE(auto x, TakeAt(values, {first + a}));
          ARROW_ASSIGN_OR_RAISE(auto y, TakeAt(values, {first + b}));
          ARROW_ASSIGN_OR_RAISE(auto outer_row, OuterAt(batch, 1, {i}));
          ARROW_ASSIGN_OR_RAISE(auto c, EvaluateLambda(call, 0, {x, y}, outer_row, 1));
          ARROW_ASSIGN_OR_RAISE(c, CastValues(c, arrow::int32()));
          if (c->IsNull(0)) return ComparatorReturnedNull();
          return static_cast<const arrow::Int32Array&>(*c).Value(0) < 0;
        };
        auto result = one();
        if (!result.ok()) {
          failed = result.status();
          return false;
        }
        return *result;
      };
    }
    std::stable_sort(order.begin(), order.end(), less);
    for (int64_t j : order) b.take.push_back(first + j);
    b.EndRow(lists->IsValid(i));
  }
  ARROW_RETURN_NOT_OK(failed);
  ARROW_ASSIGN_OR_RAISE(auto result, b.Finish(values));
  ARROW_ASSIGN_OR_RAISE(result, CastValues(result, call.result_type));
  out->value = result->data();
  return Status::OK();
}

}  // namespace

bool IsCollectionHigherOrder(const std::string& function) {
  return function == "zip_with" || function == "map_zip_with" || function == "array_sort";
}

Status CollectionHigherOrder(const HigherOrderCall& call, const cp::ExecSpan& batch,
                             cp::ExecResult* out) {
  if (call.function == "zip_with") return ZipWith(call, batch, out);
  if (call.function == "map_zip_with") return MapZipWith(call, batch, out);
  if (!call.bodies.empty()) return SortByComparator(call, batch, out);
  // array_sort(a) without a comparator.
  ARROW_ASSIGN_OR_RAISE(auto lists, ListArg(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto sorted, SortNaturally(*lists));
  ARROW_ASSIGN_OR_RAISE(sorted, CastValues(sorted, call.result_type));
  out->value = sorted->data();
  return Status::OK();
}

Status RegisterCollectionKernels(cp::FunctionRegistry* registry) {
  const auto list = cp::InputType(arrow::Type::LIST);
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_array_insert", cp::Arity::Ternary(),
                                      {list, cp::InputType(arrow::Type::INT32), cp::InputType::Any()},
                                      cp::OutputType(NullableListOfFirst), ArrayInsertExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_array_position", cp::Arity::Binary(),
                                      {list, cp::InputType::Any()},
                                      cp::OutputType(arrow::int64()), ArrayPositionExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_array_remove", cp::Arity::Binary(),
                                      {list, cp::InputType::Any()},
                                      cp::OutputType(NullableListOfFirst), ArrayRemoveExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_array_repeat", cp::Arity::Binary(),
                                      {cp::InputType::Any(), cp::InputType(arrow::Type::INT32)},
                                      cp::OutputType(NullableListOfArg), ArrayRepeatExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_arrays_overlap", cp::Arity::Binary(),
                                      {list, list}, cp::OutputType(arrow::boolean()),
                                      ArraysOverlapExec));
  for (auto [name, exec] : {std::pair<const char*, cp::ArrayKernelExec>{
                                "ember_array_union", SetExec<SetOp::kUnion>},
                            {"ember_array_except", SetExec<SetOp::kExcept>},
                            {"ember_array_intersect", SetExec<SetOp::kIntersect>}}) {
    ARROW_RETURN_NOT_OK(AddScalarKernel(registry, name, cp::Arity::Binary(), {list, list},
                                        cp::OutputType(NullableListOfFirst), exec));
  }
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_sequence", cp::Arity::Ternary(),
                                      {cp::InputType::Any(), cp::InputType::Any(),
                                       cp::InputType(arrow::Type::INT64)},
                                      cp::OutputType(NullableListOfArg), SequenceExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_sequence_days", cp::Arity::Unary(),
                                      {cp::InputType(arrow::Type::INT64)},
                                      cp::OutputType(arrow::int64()), SequenceDaysExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_sequence_micros", cp::Arity::Unary(),
                                      {cp::InputType(arrow::Type::INT64)},
                                      cp::OutputType(arrow::int64()), SequenceMicrosExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_flatten", cp::Arity::Unary(), {list},
                                      cp::OutputType(InnerElements), FlattenExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_shuffle", cp::Arity::Unary(), {list},
                                      cp::OutputType(NullableListOfFirst), ShuffleExec));
  {
    auto fn = std::make_shared<cp::ScalarFunction>(
        "ember_arrays_zip", cp::Arity::VarArgs(1),
        cp::FunctionDoc("Spark's arrays_zip(...): the arrays' elements side by side", "",
                        {"arrays"}));
    cp::ScalarKernel kernel(cp::KernelSignature::Make({cp::InputType::Any()},
                                                      cp::OutputType(LastArgType),
                                                      /*is_varargs=*/true),
                            ArraysZipExec);
    kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
    kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
    ARROW_RETURN_NOT_OK(fn->AddKernel(std::move(kernel)));
    ARROW_RETURN_NOT_OK(registry->AddFunction(std::move(fn)));
  }
  return Status::OK();
}

}  // namespace ember::exec
