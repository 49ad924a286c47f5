// Spark's map functions, where arrow has no kernel with Spark's semantics. A map is an arrow map
// array (plan::MapOf): a list of entries, each a struct of "key" and "value". Every map Ember
// builds is checked as Spark checks a new map: no NULL key (NULL_MAP_KEY) and no key twice
// (DUPLICATED_MAP_KEY: Spark's default spark.sql.mapKeyDedupPolicy, EXCEPTION).
#include <arrow/array/array_binary.h>
#include <arrow/array/array_nested.h>
#include <arrow/array/array_primitive.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/array/concatenate.h>
#include <arrow/array/util.h>
#include <arrow/compute/api.h>
#include <arrow/compute/exec.h>
#include <arrow/compute/registry.h>
#include <arrow/compute/row/grouper.h>
#include <arrow/scalar.h>
#include <arrow/util/bit_util.h>
#include <arrow/util/bitmap_builders.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/error.h"
#include "ember/exec/kernel_util.h"
#include "ember/exec/kernels.h"
#include "ember/plan/type_names.h"

namespace ember::exec {

namespace cp = arrow::compute;
using arrow::Result;
using arrow::Status;

Status CheckMapKeys(const arrow::Array& keys, const std::vector<int32_t>& offsets) {
  if (keys.null_count() > 0) {
    return UserError(ErrorKind::kRuntime, "NULL_MAP_KEY", "Cannot use null as map key.", "2200E");
  }
  if (keys.length() < 2) return Status::OK();
  // Equal (row, key) pairs fall into one group: fewer groups than keys means a repeated key.
  arrow::Int32Builder rows;
  ARROW_RETURN_NOT_OK(rows.Reserve(keys.length()));
  for (size_t i = 0; i + 1 < offsets.size(); ++i) {
    for (int32_t j = offsets[i]; j < offsets[i + 1]; ++j) rows.UnsafeAppend(static_cast<int32_t>(i));
  }
  ARROW_ASSIGN_OR_RAISE(auto row_array, rows.Finish());
  ARROW_ASSIGN_OR_RAISE(auto grouper, cp::Grouper::Make({arrow::int32(), keys.type()}));
  cp::ExecBatch pairs({row_array, keys.Slice(0)}, keys.length());
  ARROW_ASSIGN_OR_RAISE(auto ids, grouper->Consume(cp::ExecSpan(pairs)));
  if (grouper->num_groups() == static_cast<uint32_t>(keys.length())) return Status::OK();
  const auto& id = static_cast<const arrow::UInt32Array&>(*ids.make_array());
  std::vector<bool> seen(grouper->num_groups());
  for (int64_t j = 0; j < id.length(); ++j) {
    if (!seen[id.Value(j)]) {
      seen[id.Value(j)] = true;
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto key, keys.GetScalar(j));
    return UserError(ErrorKind::kRuntime, "DUPLICATED_MAP_KEY",
                     "Duplicate map key " + key->ToString() +
                         " was found, please check the input data. If you want to remove the "
                         "duplicated keys, you can set \"spark.sql.mapKeyDedupPolicy\" to "
                         "\"LAST_WIN\" so that the key inserted at last takes precedence.",
                     "23505");
  }
  return Status::OK();
}

namespace {

const arrow::MapType& MapTypeOf(const arrow::DataType& type) {
  return static_cast<const arrow::MapType&>(type);
}

// --- building maps ----------------------------------------------------------------------------

// A column of new maps: row i holds entries offsets[i] .. offsets[i+1] of keys and values, and is
// NULL where !valid[i] (its range then empty).
Result<std::shared_ptr<arrow::Array>> NewMaps(const std::shared_ptr<arrow::DataType>& type,
                                              std::vector<int32_t> offsets,
                                              const std::vector<bool>& valid,
                                              const std::shared_ptr<arrow::Array>& keys,
                                              const std::shared_ptr<arrow::Array>& values) {
  ARROW_RETURN_NOT_OK(CheckMapKeys(*keys, offsets));
  const int64_t n = static_cast<int64_t>(valid.size());
  std::shared_ptr<arrow::Buffer> bitmap;
  int64_t nulls = 0;
  for (bool v : valid) nulls += !v;
  if (nulls > 0) {
    ARROW_ASSIGN_OR_RAISE(auto bits, arrow::AllocateEmptyBitmap(n));
    for (int64_t i = 0; i < n; ++i) {
      if (valid[i]) arrow::bit_util::SetBit(bits->mutable_data(), i);
    }
    bitmap = std::move(bits);
  }
  auto entries = std::make_shared<arrow::StructArray>(
      MapTypeOf(*type).value_type(), keys->length(), arrow::ArrayVector{keys, values});
  return std::make_shared<arrow::MapArray>(type, n, arrow::Buffer::FromVector(std::move(offsets)),
                                           entries, bitmap, nulls);
}

Result<arrow::TypeHolder> MapOfFirstTwo(cp::KernelContext*,
                                        const std::vector<arrow::TypeHolder>& args) {
  return arrow::TypeHolder(plan::MapOf(args[0].GetSharedPtr(), args[1].GetSharedPtr()));
}

// map(k1, v1, k2, v2, ...): a map of the pairs, row by row (the analyzer gives all keys one type
// and all values another).
Status MakeMapExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  arrow::ArrayVector keys, values;
  for (int j = 0; j < batch.num_values(); ++j) {
    ARROW_ASSIGN_OR_RAISE(auto column, ArgArray(batch, j));
    (j % 2 == 0 ? keys : values).push_back(std::move(column));
  }
  ARROW_ASSIGN_OR_RAISE(auto key_cells, RowMajor(keys, batch.length));
  ARROW_ASSIGN_OR_RAISE(auto value_cells, RowMajor(values, batch.length));
  const int32_t width = static_cast<int32_t>(keys.size());
  std::vector<int32_t> offsets(static_cast<size_t>(batch.length + 1));
  for (int64_t i = 0; i <= batch.length; ++i) offsets[i] = static_cast<int32_t>(i) * width;
  ARROW_ASSIGN_OR_RAISE(auto maps, NewMaps(out->type()->GetSharedPtr(), std::move(offsets),
                                           std::vector<bool>(batch.length, true), key_cells,
                                           value_cells));
  out->value = maps->data();
  return Status::OK();
}

Result<arrow::TypeHolder> MapOfElements(cp::KernelContext*,
                                        const std::vector<arrow::TypeHolder>& args) {
  const auto& keys = static_cast<const arrow::ListType&>(*args[0].type);
  const auto& values = static_cast<const arrow::ListType&>(*args[1].type);
  return arrow::TypeHolder(plan::MapOf(keys.value_type(), values.value_type(),
                                       values.value_field()->nullable()));
}

// map_from_arrays(keys, values): NULL when either array is; arrays of different lengths are an
// error.
Status MapFromArraysExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto key_array, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto value_array, ArgArray(batch, 1));
  const auto& keys = static_cast<const arrow::ListArray&>(*key_array);
  const auto& values = static_cast<const arrow::ListArray&>(*value_array);
  std::vector<int32_t> offsets{0};
  std::vector<bool> valid;
  std::vector<int64_t> key_at, value_at;
  for (int64_t i = 0; i < keys.length(); ++i) {
    const bool row_valid = keys.IsValid(i) && values.IsValid(i);
    valid.push_back(row_valid);
    if (row_valid) {
      if (keys.value_length(i) != values.value_length(i)) {
        return UserError(ErrorKind::kRuntime, "_LEGACY_ERROR_TEMP_2128",
                         "The key array and value array of MapData must have the same length.",
                         "");
      }
      for (int32_t j = 0; j < keys.value_length(i); ++j) {
        key_at.push_back(keys.value_offset(i) + j);
        value_at.push_back(values.value_offset(i) + j);
      }
    }
    offsets.push_back(static_cast<int32_t>(key_at.size()));
  }
  ARROW_ASSIGN_OR_RAISE(auto key_cells, TakeAt(keys.values(), key_at));
  ARROW_ASSIGN_OR_RAISE(auto value_cells, TakeAt(values.values(), value_at));
  ARROW_ASSIGN_OR_RAISE(auto maps, NewMaps(out->type()->GetSharedPtr(), std::move(offsets), valid,
                                           key_cells, value_cells));
  out->value = maps->data();
  return Status::OK();
}

Result<arrow::TypeHolder> MapOfPairs(cp::KernelContext*,
                                     const std::vector<arrow::TypeHolder>& args) {
  const auto& pair = *static_cast<const arrow::ListType&>(*args[0].type).value_type();
  return arrow::TypeHolder(plan::MapOf(pair.field(0)->type(), pair.field(1)->type(),
                                       pair.field(1)->nullable()));
}

// map_from_entries(array of (key, value) structs): NULL when the array or one of its entries is.
Status MapFromEntriesExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto list_array, ArgArray(batch, 0));
  const auto& lists = static_cast<const arrow::ListArray&>(*list_array);
  const auto& pairs = static_cast<const arrow::StructArray&>(*lists.values());
  std::vector<int32_t> offsets{0};
  std::vector<bool> valid;
  std::vector<int64_t> at;
  for (int64_t i = 0; i < lists.length(); ++i) {
    bool row_valid = lists.IsValid(i);
    for (int32_t j = 0; row_valid && j < lists.value_length(i); ++j) {
      row_valid = pairs.IsValid(lists.value_offset(i) + j);
    }
    valid.push_back(row_valid);
    for (int32_t j = 0; row_valid && j < lists.value_length(i); ++j) {
      at.push_back(lists.value_offset(i) + j);
    }
    offsets.push_back(static_cast<int32_t>(at.size()));
  }
  ARROW_ASSIGN_OR_RAISE(auto key_cells, TakeAt(pairs.field(0), at));
  ARROW_ASSIGN_OR_RAISE(auto value_cells, TakeAt(pairs.field(1), at));
  ARROW_ASSIGN_OR_RAISE(auto maps, NewMaps(out->type()->GetSharedPtr(), std::move(offsets), valid,
                                           key_cells, value_cells));
  out->value = maps->data();
  return Status::OK();
}

Result<arrow::TypeHolder> SameType(cp::KernelContext*, const std::vector<arrow::TypeHolder>& args) {
  return args[0];
}

// map_concat(m1, m2, ...): the entries of every map in order; NULL when any map is.
Status MapConcatExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  std::vector<std::shared_ptr<arrow::MapArray>> maps;
  arrow::ArrayVector all_keys, all_values;
  for (int j = 0; j < batch.num_values(); ++j) {
    ARROW_ASSIGN_OR_RAISE(auto column, ArgArray(batch, j));
    auto map = std::static_pointer_cast<arrow::MapArray>(column);
    all_keys.push_back(map->keys());
    all_values.push_back(map->items());
    maps.push_back(std::move(map));
  }
  // The entries of map j sit after those of maps 0 .. j-1 in the stacked keys and values.
  std::vector<int64_t> base{0};
  for (const auto& keys : all_keys) base.push_back(base.back() + keys->length());
  ARROW_ASSIGN_OR_RAISE(auto stacked_keys, arrow::Concatenate(all_keys));
  ARROW_ASSIGN_OR_RAISE(auto stacked_values, arrow::Concatenate(all_values));
  std::vector<int32_t> offsets{0};
  std::vector<bool> valid;
  std::vector<int64_t> at;
  for (int64_t i = 0; i < batch.length; ++i) {
    bool row_valid = true;
    for (const auto& map : maps) row_valid = row_valid && map->IsValid(i);
    valid.push_back(row_valid);
    for (size_t j = 0; row_valid && j < maps.size(); ++j) {
      for (int32_t e = maps[j]->value_offset(i); e < maps[j]->value_offset(i + 1); ++e) {
        at.push_back(base[j] + e);
      }
    }
    offsets.push_back(static_cast<int32_t>(at.size()));
  }
  ARROW_ASSIGN_OR_RAISE(auto key_cells, TakeAt(stacked_keys, at));
  ARROW_ASSIGN_OR_RAISE(auto value_cells, TakeAt(stacked_values, at));
  ARROW_ASSIGN_OR_RAISE(auto result, NewMaps(out->type()->GetSharedPtr(), std::move(offsets),
                                             valid, key_cells, value_cells));
  out->value = result->data();
  return Status::OK();
}

// str_to_map(text, pair_delimiter, key_value_delimiter): the text split into pairs, each pair
// into a key and its value (NULL without one), both delimiters regular expressions: Spark's
// StringToMap splits with Java's String.split, as Ember's split does.
Status StringToMapExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  // A delimiter given once (a literal) stays a scalar: split then reads its pattern once.
  auto argument = [&](int i) -> Result<arrow::Datum> {
    if (batch[i].is_scalar()) return arrow::Datum(batch[i].scalar->GetSharedPtr());
    ARROW_ASSIGN_OR_RAISE(auto array, ArgArray(batch, i));
    return arrow::Datum(std::move(array));
  };
  ARROW_ASSIGN_OR_RAISE(auto text, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto pair_delimiter, argument(1));
  ARROW_ASSIGN_OR_RAISE(auto key_delimiter, argument(2));
  ARROW_ASSIGN_OR_RAISE(auto key_delimiters, ArgArray(batch, 2));
  ARROW_ASSIGN_OR_RAISE(auto split_pairs,
                        cp::CallFunction("ember_split", {text, pair_delimiter,
                                                         arrow::Datum(int32_t{-1})}));
  auto pairs = std::static_pointer_cast<arrow::ListArray>(split_pairs.make_array());
  // Each pair beside its row's key-value delimiter, split in two.
  std::vector<int32_t> offsets{0};
  std::vector<bool> valid;
  std::vector<int64_t> pair_at, delimiter_at;
  for (int64_t i = 0; i < pairs->length(); ++i) {
    const bool row_valid = pairs->IsValid(i) && key_delimiters->IsValid(i);
    valid.push_back(row_valid);
    for (int32_t j = 0; row_valid && j < pairs->value_length(i); ++j) {
      pair_at.push_back(pairs->value_offset(i) + j);
      delimiter_at.push_back(i);
    }
    offsets.push_back(static_cast<int32_t>(pair_at.size()));
  }
  ARROW_ASSIGN_OR_RAISE(auto pair_texts, TakeAt(pairs->values(), pair_at));
  arrow::Datum delimiters = key_delimiter;
  if (key_delimiter.is_array()) {
    ARROW_ASSIGN_OR_RAISE(delimiters, TakeAt(key_delimiters, delimiter_at));
  }
  ARROW_ASSIGN_OR_RAISE(auto split_each, cp::CallFunction("ember_split", {pair_texts, delimiters,
                                                                       arrow::Datum(int32_t{2})}));
  ARROW_ASSIGN_OR_RAISE(auto keys, cp::CallFunction("ember_get", {split_each, arrow::Datum(int32_t{0})}));
  ARROW_ASSIGN_OR_RAISE(auto values, cp::CallFunction("ember_get", {split_each, arrow::Datum(int32_t{1})}));
  ARROW_ASSIGN_OR_RAISE(auto maps, NewMaps(out->type()->GetSharedPtr(), std::move(offsets), valid,
                                           keys.make_array(), values.make_array()));
  out->value = maps->data();
  return Status::OK();
}

// --- reading maps -----------------------------------------------------------------------------

constexpr int64_t kNoEntry = -1;

// Per row, the position in maps.keys() of the entry whose key equals the row's key: kNoEntry
// when there is none, NULL when the map or the key is NULL. The map's keys are cast to the
// key's type when the analyzer widened the key (map_contains_key(map(1, 1), 1.5)).
Result<std::shared_ptr<arrow::Int64Array>> FindKeys(const arrow::MapArray& maps,
                                                    const std::shared_ptr<arrow::Array>& keys) {
  const int64_t n = maps.length();
  const int64_t first = n ? maps.value_offset(0) : 0, last = n ? maps.value_offset(n) : 0;
  std::shared_ptr<arrow::Array> entry_keys = maps.keys()->Slice(first, last - first);
  if (!entry_keys->type()->Equals(*keys->type())) {
    ARROW_ASSIGN_OR_RAISE(auto cast, cp::Cast(entry_keys, keys->type()));
    entry_keys = cast.make_array();
  }
  std::vector<int64_t> owner;
  owner.reserve(static_cast<size_t>(last - first));
  for (int64_t i = 0; i < n; ++i) {
    for (int32_t e = maps.value_offset(i); e < maps.value_offset(i + 1); ++e) owner.push_back(i);
  }
  ARROW_ASSIGN_OR_RAISE(auto beside, TakeAt(keys, owner));
  ARROW_ASSIGN_OR_RAISE(auto equal, cp::CallFunction("equal", {entry_keys, beside}));
  const auto& eq = static_cast<const arrow::BooleanArray&>(*equal.make_array());
  arrow::Int64Builder found;
  ARROW_RETURN_NOT_OK(found.Reserve(n));
  for (int64_t i = 0; i < n; ++i) {
    if (maps.IsNull(i) || keys->IsNull(i)) {
      found.UnsafeAppendNull();
      continue;
    }
    int64_t at = kNoEntry;
    for (int32_t e = maps.value_offset(i); e < maps.value_offset(i + 1) && at == kNoEntry; ++e) {
      if (eq.IsValid(e - first) && eq.Value(e - first)) at = e;
    }
    found.UnsafeAppend(at);
  }
  ARROW_ASSIGN_OR_RAISE(auto result, found.Finish());
  return std::static_pointer_cast<arrow::Int64Array>(result);
}

Result<arrow::TypeHolder> ValueType(cp::KernelContext*, const std::vector<arrow::TypeHolder>& args) {
  return arrow::TypeHolder(MapTypeOf(*args[0].type).item_type());
}

// m[key], element_at(m, key): the key's value, NULL when the map lacks the key.
Status MapValueExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto map_array, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto keys, ArgArray(batch, 1));
  const auto& maps = static_cast<const arrow::MapArray&>(*map_array);
  ARROW_ASSIGN_OR_RAISE(auto found, FindKeys(maps, keys));
  arrow::Int64Builder take;
  ARROW_RETURN_NOT_OK(take.Reserve(found->length()));
  for (int64_t i = 0; i < found->length(); ++i) {
    if (found->IsNull(i) || found->Value(i) == kNoEntry) {
      take.UnsafeAppendNull();
    } else {
      take.UnsafeAppend(found->Value(i));
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto indices, take.Finish());
  ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(maps.items(), indices));
  out->value = taken.make_array()->data();
  return Status::OK();
}

// map_contains_key(m, key).
Status MapContainsKeyExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto map_array, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto keys, ArgArray(batch, 1));
  ARROW_ASSIGN_OR_RAISE(auto found,
                        FindKeys(static_cast<const arrow::MapArray&>(*map_array), keys));
  arrow::BooleanBuilder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(found->length()));
  for (int64_t i = 0; i < found->length(); ++i) {
    if (found->IsNull(i)) {
      builder.UnsafeAppendNull();
    } else {
      builder.UnsafeAppend(found->Value(i) != kNoEntry);
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto result, builder.Finish());
  out->value = result->data();
  return Status::OK();
}

// map_keys, map_values, map_entries: the map's own offsets, NULLs and children seen as an
// array, without a copy.
enum class MapPart { kKeys, kValues, kEntries };

template <MapPart kPart>
std::shared_ptr<arrow::DataType> PartArrayType(const arrow::MapType& type) {
  switch (kPart) {
    case MapPart::kKeys: return plan::ArrayOf(type.key_type(), false);
    case MapPart::kValues: return plan::ArrayOf(type.item_type(), type.item_field()->nullable());
    case MapPart::kEntries: return plan::ArrayOf(type.value_type(), false);
  }
  return nullptr;
}

template <MapPart kPart>
Result<arrow::TypeHolder> PartType(cp::KernelContext*, const std::vector<arrow::TypeHolder>& args) {
  return arrow::TypeHolder(PartArrayType<kPart>(MapTypeOf(*args[0].type)));
}

template <MapPart kPart>
Status MapPartExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto map_array, ArgArray(batch, 0));
  const auto& maps = static_cast<const arrow::MapArray&>(*map_array);
  std::shared_ptr<arrow::Array> part = kPart == MapPart::kKeys     ? maps.keys()
                                       : kPart == MapPart::kValues ? maps.items()
                                                                   : maps.values();
  const auto& data = *maps.data();
  auto result = std::make_shared<arrow::ListArray>(PartArrayType<kPart>(*maps.map_type()),
                                                   maps.length(), data.buffers[1], part,
                                                   data.buffers[0], maps.null_count(),
                                                   maps.offset());
  out->value = result->data();
  return Status::OK();
}

// --- fields of an array of structs ------------------------------------------------------------

// array_of_structs.field (Spark's GetArrayStructFields): per array, its elements' field; NULL
// where an element is NULL. The field's index comes as StructFieldOptions.
struct FieldIndex : cp::KernelState {
  int index = 0;
};

Result<std::unique_ptr<cp::KernelState>> InitFieldIndex(cp::KernelContext*,
                                                        const cp::KernelInitArgs& args) {
  const auto* options = static_cast<const cp::StructFieldOptions*>(args.options);
  if (options == nullptr || options->field_ref.field_path() == nullptr ||
      options->field_ref.field_path()->indices().size() != 1) {
    return Status::Invalid("ember_array_struct_field needs the index of one field");
  }
  auto state = std::make_unique<FieldIndex>();
  state->index = options->field_ref.field_path()->indices()[0];
  return state;
}

Result<arrow::TypeHolder> FieldArrayType(cp::KernelContext* ctx,
                                         const std::vector<arrow::TypeHolder>& args) {
  const auto& element = *static_cast<const arrow::ListType&>(*args[0].type).value_type();
  const auto& field = element.field(static_cast<FieldIndex*>(ctx->state())->index);
  return arrow::TypeHolder(plan::ArrayOf(field->type()));
}

Status ArrayStructFieldExec(cp::KernelContext* ctx, const cp::ExecSpan& batch,
                            cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto list_array, ArgArray(batch, 0));
  const auto& lists = static_cast<const arrow::ListArray&>(*list_array);
  const auto& structs = static_cast<const arrow::StructArray&>(*lists.values());
  ARROW_ASSIGN_OR_RAISE(auto field,
                        structs.GetFlattenedField(static_cast<FieldIndex*>(ctx->state())->index));
  const auto& data = *lists.data();
  auto result = std::make_shared<arrow::ListArray>(out->type()->GetSharedPtr(), lists.length(),
                                                   data.buffers[1], field, data.buffers[0],
                                                   lists.null_count(), lists.offset());
  out->value = result->data();
  return Status::OK();
}

Status AddVarArgs(cp::FunctionRegistry* registry, const std::string& name,
                  cp::OutputType output, cp::ArrayKernelExec exec) {
  // A summary: pyarrow.compute documents every registered function, and cannot word an empty
  // one for any number of arguments.
  auto fn = std::make_shared<cp::ScalarFunction>(
      name, cp::Arity::VarArgs(0), cp::FunctionDoc("Spark's " + name.substr(6), "", {"values"}));
  cp::ScalarKernel kernel(
      cp::KernelSignature::Make({cp::InputType::Any()}, std::move(output), /*is_varargs=*/true),
      exec);
  kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
  kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
  ARROW_RETURN_NOT_OK(fn->AddKernel(std::move(kernel)));
  return registry->AddFunction(std::move(fn));
}

}  // namespace

Status RegisterMapKernels(cp::FunctionRegistry* registry) {
  const cp::InputType map(arrow::Type::MAP), list(arrow::Type::LIST);
  ARROW_RETURN_NOT_OK(AddVarArgs(registry, "ember_make_map", cp::OutputType(MapOfFirstTwo),
                                 MakeMapExec));
  ARROW_RETURN_NOT_OK(AddVarArgs(registry, "ember_map_concat", cp::OutputType(SameType),
                                 MapConcatExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_map_from_arrays", cp::Arity::Binary(),
                                      {list, list}, cp::OutputType(MapOfElements),
                                      MapFromArraysExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_map_from_entries", cp::Arity::Unary(),
                                      {list}, cp::OutputType(MapOfPairs), MapFromEntriesExec));
  const cp::InputType text(arrow::Type::STRING);
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_str_to_map", cp::Arity::Ternary(),
                                      {text, text, text},
                                      cp::OutputType(plan::MapOf(arrow::utf8(), arrow::utf8())),
                                      StringToMapExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_map_value", cp::Arity::Binary(),
                                      {map, cp::InputType::Any()}, cp::OutputType(ValueType),
                                      MapValueExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_map_contains_key", cp::Arity::Binary(),
                                      {map, cp::InputType::Any()},
                                      cp::OutputType(arrow::boolean()), MapContainsKeyExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_map_keys", cp::Arity::Unary(), {map},
                                      cp::OutputType(PartType<MapPart::kKeys>),
                                      MapPartExec<MapPart::kKeys>));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_map_values", cp::Arity::Unary(), {map},
                                      cp::OutputType(PartType<MapPart::kValues>),
                                      MapPartExec<MapPart::kValues>));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_map_entries", cp::Arity::Unary(), {map},
                                      cp::OutputType(PartType<MapPart::kEntries>),
                                      MapPartExec<MapPart::kEntries>));
  {
    auto fn = std::make_shared<cp::ScalarFunction>("ember_array_struct_field", cp::Arity::Unary(),
                                                   cp::FunctionDoc::Empty());
    cp::ScalarKernel kernel({list}, cp::OutputType(FieldArrayType), ArrayStructFieldExec,
                            InitFieldIndex);
    kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
    kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
    ARROW_RETURN_NOT_OK(fn->AddKernel(std::move(kernel)));
    ARROW_RETURN_NOT_OK(registry->AddFunction(std::move(fn)));
  }
  return Status::OK();
}

}  // namespace ember::exec
