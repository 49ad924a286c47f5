// Spark's collection functions where arrow has no kernel with Spark's semantics: split (Java's
// String.split), array(...) (arrow builds no list from columns), element_at (Spark's ANSI
// errors), array_contains (SQL's NULL rules). Arrays are arrow list arrays whose element field
// is named "element" (plan::ArrayOf).
#include <arrow/array/array_binary.h>
#include <arrow/array/array_nested.h>
#include <arrow/array/array_primitive.h>
#include <arrow/array/builder_binary.h>
#include <arrow/array/builder_nested.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/array/concatenate.h>
#include <arrow/array/util.h>
#include <arrow/compute/api.h>
#include <arrow/compute/kernel.h>
#include <arrow/compute/registry.h>
#include <arrow/record_batch.h>
#include <arrow/scalar.h>
#include <arrow/util/bit_util.h>
#include <arrow/util/bitmap_builders.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
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


// --- split ------------------------------------------------------------------------------------

// Java's String.split with Spark's limit: limit <= 0 keeps every piece, trailing empty ones too;
// limit > 0 makes at most limit pieces, the last one the rest; a zero-width match at the start
// gives no leading empty piece (Java 8+). A pattern without regex metacharacters (or one escaped
// character) is split on as a literal, as Java's fast path does. Any other pattern runs on RE2
// (Arrow's replace_substring_regex): linear time, where a backtracking engine overflows the
// stack on long strings. RE2 wraps every match m as MARK m MARK; the text's pieces are then the
// tokens between marks at even positions, its matches those at odd ones.
constexpr std::string_view kMarks[] = {"\xEF\xBF\xBF", "\xEF\xBF\xBE", std::string_view("\0", 1),
                                       "\x01"};

bool IsLiteral(const std::string& pattern, std::string* literal) {
  static const std::string kMeta = ".$|()[]{}^?*+\\";
  if (pattern.find_first_of(kMeta) == std::string::npos) {
    *literal = pattern;
    return true;
  }
  if (pattern.size() == 2 && pattern[0] == '\\' &&
      !std::isalnum(static_cast<unsigned char>(pattern[1]))) {
    *literal = pattern.substr(1);
    return true;
  }
  return false;
}

size_t CharBytes(unsigned char lead) { return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4; }

// Cuts text into pieces at the given matches ([start, end) byte ranges, in order).
void Cut(std::string_view text, const std::vector<std::pair<size_t, size_t>>& matches,
         int32_t limit, std::vector<std::string_view>* out) {
  out->clear();
  size_t index = 0;
  for (auto [start, end] : matches) {
    if (limit > 0 && static_cast<int32_t>(out->size()) >= limit - 1) break;
    if (index == 0 && start == 0 && end == 0) continue;  // no leading piece of a zero-width match
    out->push_back(text.substr(index, start - index));
    index = end;
  }
  out->push_back(text.substr(index));
}

Status InvalidPattern(const std::string& pattern) {
  return UserError(ErrorKind::kRuntime, "INVALID_PARAMETER_VALUE.PATTERN",
                   "The value of parameter(s) `regexp` in `split` is invalid: '" + pattern + "'.",
                   "22023");
}

// The texts with every match of pattern marked, or null where a text holds the mark itself.
Result<std::shared_ptr<arrow::StringArray>> MarkMatches(const std::shared_ptr<arrow::Array>& texts,
                                                        const std::string& pattern,
                                                        std::string_view mark) {
  std::string rewrite(mark);
  rewrite += "\\0";
  rewrite += mark;
  cp::ReplaceSubstringOptions options(pattern, rewrite);
  auto marked = cp::CallFunction("replace_substring_regex", {texts}, &options);
  if (!marked.ok()) return InvalidPattern(pattern);
  return std::static_pointer_cast<arrow::StringArray>(marked->make_array());
}

// The matches of one marked text, as byte ranges of the original text.
void MatchesOf(std::string_view marked, std::string_view mark,
               std::vector<std::pair<size_t, size_t>>* matches) {
  matches->clear();
  size_t original = 0, token = 0, at = 0;
  size_t match_start = 0;
  while (true) {
    size_t next = marked.find(mark, at);
    size_t length = (next == std::string_view::npos ? marked.size() : next) - at;
    if (token % 2 == 0) {
      original += length;  // a piece of the text
      match_start = original;
    } else {
      original += length;  // a match
      matches->emplace_back(match_start, original);
    }
    if (next == std::string_view::npos) break;
    at = next + mark.size();
    ++token;
  }
}

Status SplitExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto text_array, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto pattern_array, ArgArray(batch, 1));
  ARROW_ASSIGN_OR_RAISE(auto limit_array, ArgArray(batch, 2));
  const auto& text = static_cast<const arrow::StringArray&>(*text_array);
  const auto& pattern = static_cast<const arrow::StringArray&>(*pattern_array);
  const auto& limit = static_cast<const arrow::Int32Array&>(*limit_array);
  auto values = std::make_shared<arrow::StringBuilder>();
  arrow::ListBuilder builder(arrow::default_memory_pool(), values, plan::ArrayOf(arrow::utf8()));
  // A pattern is read once (literal or regex) while the rows' pattern stays the same; one
  // regex for the whole batch (the usual case) is matched over the whole column at once.
  struct Pattern {
    std::string text, literal;
    bool is_literal = false;
  };
  std::optional<Pattern> current;
  auto read = [&](std::string_view p) {
    if (current && current->text == p) return;
    current.emplace();
    current->text = std::string(p);
    current->is_literal = IsLiteral(current->text, &current->literal);
  };
  std::shared_ptr<arrow::StringArray> marked;
  if (!batch[1].is_array() && batch[1].scalar->is_valid) {
    read(pattern.GetView(0));
    if (!current->text.empty() && !current->is_literal) {
      ARROW_ASSIGN_OR_RAISE(marked, MarkMatches(text_array, current->text, kMarks[0]));
    }
  }
  std::vector<std::pair<size_t, size_t>> matches;
  std::vector<std::string_view> pieces;
  for (int64_t i = 0; i < text.length(); ++i) {
    if (text.IsNull(i) || pattern.IsNull(i) || limit.IsNull(i)) {
      ARROW_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    std::string_view t = text.GetView(i);
    read(pattern.GetView(i));
    const std::string& p = current->text;
    int32_t n = limit.Value(i);
    matches.clear();
    if (p.empty()) {
      // Spark splits into characters, the first `limit` of them when limit > 0, and keeps no
      // trailing empty piece; "" stays [""].
      pieces.clear();
      for (size_t at = 0; at < t.size() && !(n > 0 && static_cast<int32_t>(pieces.size()) == n);) {
        size_t bytes = std::min(CharBytes(static_cast<unsigned char>(t[at])), t.size() - at);
        pieces.push_back(t.substr(at, bytes));
        at += bytes;
      }
      if (pieces.empty()) pieces.push_back(t);
    } else {
      if (current->is_literal) {
        const std::string& literal = current->literal;
        for (size_t at = t.find(literal); at != std::string_view::npos;
             at = t.find(literal, at + literal.size())) {
          matches.emplace_back(at, at + literal.size());
        }
      } else {
        std::string_view mark;
        for (auto candidate : kMarks) {
          if (t.find(candidate) == std::string_view::npos) {
            mark = candidate;
            break;
          }
        }
        if (mark.empty()) {
          return UserError(ErrorKind::kRuntime, "INVALID_PARAMETER_VALUE.PATTERN",
                           "`split` cannot match a regular expression in a string that holds "
                           "U+FFFF, U+FFFE, U+0000 and U+0001 together.",
                           "22023");
        }
        if (marked && mark == kMarks[0] && !marked->IsNull(i)) {
          MatchesOf(marked->GetView(i), mark, &matches);
        } else {
          std::shared_ptr<arrow::Array> one;
          arrow::StringBuilder single;
          ARROW_RETURN_NOT_OK(single.Append(t));
          ARROW_RETURN_NOT_OK(single.Finish(&one));
          ARROW_ASSIGN_OR_RAISE(auto row, MarkMatches(one, p, mark));
          MatchesOf(row->GetView(0), mark, &matches);
        }
      }
      Cut(t, matches, n, &pieces);
    }
    ARROW_RETURN_NOT_OK(builder.Append());
    for (auto piece : pieces) ARROW_RETURN_NOT_OK(values->Append(piece));
  }
  ARROW_ASSIGN_OR_RAISE(auto result, builder.Finish());
  out->value = result->data();
  return Status::OK();
}

// --- array(...) -------------------------------------------------------------------------------

Status MakeArrayExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  const int64_t width = batch.num_values();
  const auto& type = static_cast<const arrow::ListType&>(*out->type());
  std::vector<int32_t> offsets(static_cast<size_t>(batch.length + 1));
  for (int64_t i = 0; i <= batch.length; ++i) offsets[i] = static_cast<int32_t>(i * width);
  std::shared_ptr<arrow::Array> values;
  if (width == 0) {
    ARROW_ASSIGN_OR_RAISE(values, arrow::MakeEmptyArray(type.value_type()));
  } else {
    arrow::ArrayVector columns;
    for (int j = 0; j < width; ++j) {
      ARROW_ASSIGN_OR_RAISE(auto column, ArgArray(batch, j));
      columns.push_back(std::move(column));
    }
    ARROW_ASSIGN_OR_RAISE(values, RowMajor(columns, batch.length));
  }
  auto offset_buffer = arrow::Buffer::FromVector(std::move(offsets));
  auto result = std::make_shared<arrow::ListArray>(out->type()->GetSharedPtr(), batch.length,
                                                   offset_buffer, values);
  out->value = result->data();
  return Status::OK();
}

Result<arrow::TypeHolder> MakeArrayType(cp::KernelContext*,
                                        const std::vector<arrow::TypeHolder>& args) {
  return arrow::TypeHolder(plan::ArrayOf(args.empty() ? arrow::null() : args[0].GetSharedPtr()));
}

// --- element_at, a[i], get, try_element_at ------------------------------------------------------

// How an index picks an array's element: counted from 1 (negative: from the end) or from 0, and
// whether an index out of bounds is an error (ANSI) or NULL.
struct Indexing {
  bool one_based;
  bool out_of_bounds_is_null;
};
constexpr Indexing kElementAt{true, false};     // element_at(a, i)
constexpr Indexing kTryElementAt{true, true};   // try_element_at(a, i)
constexpr Indexing kSubscript{false, false};    // a[i]
constexpr Indexing kGet{false, true};           // get(a, i)

template <const Indexing& kIndexing>
Status ElementAtExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto list_array, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto index_array, ArgArray(batch, 1));
  const auto& lists = static_cast<const arrow::ListArray&>(*list_array);
  const auto& index = static_cast<const arrow::Int32Array&>(*index_array);
  arrow::Int64Builder take;
  ARROW_RETURN_NOT_OK(take.Reserve(lists.length()));
  for (int64_t i = 0; i < lists.length(); ++i) {
    if (lists.IsNull(i) || index.IsNull(i)) {
      take.UnsafeAppendNull();
      continue;
    }
    int64_t n = lists.value_length(i), k = index.Value(i);
    if (kIndexing.one_based && k == 0) {
      return UserError(ErrorKind::kRuntime, "INVALID_INDEX_OF_ZERO",
                       "The index 0 is invalid. An index shall be either < 0 or > 0 (the first "
                       "element has index 1).",
                       "22003");
    }
    // The element's position from the list's start, or -1 when there is none.
    int64_t at = kIndexing.one_based ? (k > 0 ? k - 1 : n + k) : k;
    if (at < 0 || at >= n) {
      if (kIndexing.out_of_bounds_is_null) {
        take.UnsafeAppendNull();
        continue;
      }
      const std::string bounds = "The index " + std::to_string(k) +
                                 " is out of bounds. The array has " + std::to_string(n) +
                                 " elements. ";
      if (kIndexing.one_based) {
        return UserError(ErrorKind::kRuntime, "INVALID_ARRAY_INDEX_IN_ELEMENT_AT",
                         bounds + "Use `try_element_at` to tolerate accessing element at "
                                  "invalid index and return NULL instead.",
                         "22003");
      }
      return UserError(ErrorKind::kRuntime, "INVALID_ARRAY_INDEX",
                       bounds + "Use the SQL function `get()` to tolerate accessing element at "
                                "invalid index and return NULL instead.",
                       "22003");
    }
    take.UnsafeAppend(lists.value_offset(i) + at);
  }
  ARROW_ASSIGN_OR_RAISE(auto indices, take.Finish());
  ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(lists.values(), indices));
  out->value = taken.make_array()->data();
  return Status::OK();
}

Result<arrow::TypeHolder> ElementType(cp::KernelContext*,
                                      const std::vector<arrow::TypeHolder>& args) {
  return arrow::TypeHolder(static_cast<const arrow::ListType&>(*args[0].type).value_type());
}

// --- array_contains ---------------------------------------------------------------------------

// true when an element equals the value; else NULL if an element is NULL; else false. NULL for a
// NULL array or value.
Status ArrayContainsExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto list_array, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto value_array, ArgArray(batch, 1));
  const auto& lists = static_cast<const arrow::ListArray&>(*list_array);
  // Each element beside its row's value, compared at once.
  ARROW_ASSIGN_OR_RAISE(auto parents, cp::CallFunction("list_parent_indices", {lists}));
  ARROW_ASSIGN_OR_RAISE(auto flat, cp::CallFunction("list_flatten", {lists}));
  ARROW_ASSIGN_OR_RAISE(auto beside, cp::Take(value_array, parents));
  ARROW_ASSIGN_OR_RAISE(auto equal, cp::CallFunction("equal", {flat, beside}));
  auto eq = std::static_pointer_cast<arrow::BooleanArray>(equal.make_array());
  auto flat_values = flat.make_array();
  arrow::BooleanBuilder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(lists.length()));
  int64_t e = 0;
  for (int64_t i = 0; i < lists.length(); ++i) {
    int64_t n = lists.IsNull(i) ? 0 : lists.value_length(i);
    bool found = false, saw_null = false;
    for (int64_t j = 0; j < n; ++j, ++e) {
      if (flat_values->IsNull(e)) {
        saw_null = true;
      } else if (eq->IsValid(e) && eq->Value(e)) {
        found = true;
      }
    }
    if (lists.IsNull(i) || value_array->IsNull(i) || (!found && saw_null)) {
      builder.UnsafeAppendNull();
    } else {
      builder.UnsafeAppend(found);
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto result, builder.Finish());
  out->value = result->data();
  return Status::OK();
}

// --- rebuilding lists -------------------------------------------------------------------------

// New lists over the old ones' elements: row i holds elements take[offsets[i] .. offsets[i+1])
// of `lists.values()`, NULL where !valid[i].
Result<std::shared_ptr<arrow::Array>> Regroup(const arrow::ListArray& lists,
                                              const std::vector<int64_t>& take,
                                              const std::vector<int32_t>& offsets,
                                              const std::vector<bool>& valid) {
  arrow::Int64Builder indices;
  ARROW_RETURN_NOT_OK(indices.AppendValues(take));
  ARROW_ASSIGN_OR_RAISE(auto index_array, indices.Finish());
  ARROW_ASSIGN_OR_RAISE(auto values, cp::Take(lists.values(), index_array));
  int64_t n = static_cast<int64_t>(valid.size());
  ARROW_ASSIGN_OR_RAISE(auto bitmap, arrow::AllocateEmptyBitmap(n));
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (valid[i]) {
      arrow::bit_util::SetBit(bitmap->mutable_data(), i);
    } else {
      ++nulls;
    }
  }
  return std::make_shared<arrow::ListArray>(
      lists.type(), n, arrow::Buffer::FromVector(offsets), values.make_array(),
      nulls ? std::shared_ptr<arrow::Buffer>(std::move(bitmap)) : nullptr, nulls);
}

// The elements of each list in the order of (row, element) with elements ascending or
// descending, NULLs first or last: positions into lists.values(), rows in order.
Result<std::vector<int64_t>> SortedElements(const arrow::ListArray& lists, bool ascending,
                                            bool nulls_first) {
  arrow::Int64Builder rows, positions;
  for (int64_t i = 0; i < lists.length(); ++i) {
    if (lists.IsNull(i)) continue;
    for (int64_t j = lists.value_offset(i); j < lists.value_offset(i + 1); ++j) {
      ARROW_RETURN_NOT_OK(rows.Append(i));
      ARROW_RETURN_NOT_OK(positions.Append(j));
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto row_array, rows.Finish());
  ARROW_ASSIGN_OR_RAISE(auto position_array, positions.Finish());
  ARROW_ASSIGN_OR_RAISE(auto values, cp::Take(lists.values(), position_array));
  auto batch = arrow::RecordBatch::Make(
      arrow::schema({arrow::field("row", arrow::int64()), arrow::field("v", values.type())}),
      row_array->length(), {row_array, values.make_array()});
  cp::SortOptions options(
      {cp::SortKey("row"),
       cp::SortKey("v", ascending ? cp::SortOrder::Ascending : cp::SortOrder::Descending)},
      nulls_first ? cp::NullPlacement::AtStart : cp::NullPlacement::AtEnd);
  ARROW_ASSIGN_OR_RAISE(auto order, cp::SortIndices(arrow::Datum(batch), options));
  const auto& o = static_cast<const arrow::UInt64Array&>(*order);
  const auto& p = static_cast<const arrow::Int64Array&>(*position_array);
  std::vector<int64_t> out(static_cast<size_t>(o.length()));
  for (int64_t k = 0; k < o.length(); ++k) out[k] = p.Value(static_cast<int64_t>(o.Value(k)));
  return out;
}

std::vector<int32_t> OffsetsOf(const arrow::ListArray& lists, std::vector<bool>* valid) {
  std::vector<int32_t> offsets{0};
  for (int64_t i = 0; i < lists.length(); ++i) {
    valid->push_back(lists.IsValid(i));
    offsets.push_back(offsets.back() + (lists.IsNull(i) ? 0 : lists.value_length(i)));
  }
  return offsets;
}

Result<std::shared_ptr<arrow::ListArray>> ListArg(const cp::ExecSpan& batch, int i) {
  ARROW_ASSIGN_OR_RAISE(auto array, ArgArray(batch, i));
  return std::static_pointer_cast<arrow::ListArray>(array);
}

// sort_array(a, asc): NULLs first when ascending, last when descending.
Status SortArrayExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto lists, ListArg(batch, 0));
  // A constant (Spark requires one), which arrow may pass as an array when it folds constants.
  ARROW_ASSIGN_OR_RAISE(auto order, ArgArray(batch, 1));
  bool ascending = order->length() == 0 || order->IsNull(0) ||
                   static_cast<const arrow::BooleanArray&>(*order).Value(0);
  ARROW_ASSIGN_OR_RAISE(auto take, SortedElements(*lists, ascending, ascending));
  std::vector<bool> valid;
  auto offsets = OffsetsOf(*lists, &valid);
  ARROW_ASSIGN_OR_RAISE(auto result, Regroup(*lists, take, offsets, valid));
  out->value = result->data();
  return Status::OK();
}

// array_max(a) / array_min(a): the greatest / least non-NULL element, NULL if none.
template <bool kMax>
Status ExtremeExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto lists, ListArg(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto sorted, SortedElements(*lists, /*ascending=*/!kMax, false));
  arrow::Int64Builder take;
  size_t k = 0;
  for (int64_t i = 0; i < lists->length(); ++i) {
    int64_t n = lists->IsNull(i) ? 0 : lists->value_length(i);
    if (n == 0 || lists->values()->IsNull(sorted[k])) {
      ARROW_RETURN_NOT_OK(take.AppendNull());
    } else {
      ARROW_RETURN_NOT_OK(take.Append(sorted[k]));
    }
    k += static_cast<size_t>(n);
  }
  ARROW_ASSIGN_OR_RAISE(auto indices, take.Finish());
  ARROW_ASSIGN_OR_RAISE(auto result, cp::Take(lists->values(), indices));
  out->value = result.make_array()->data();
  return Status::OK();
}

// array_distinct(a): the first of each run of equal elements, in their order; one NULL.
Status ArrayDistinctExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto lists, ListArg(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto sorted, SortedElements(*lists, true, false));
  arrow::Int64Builder positions;
  ARROW_RETURN_NOT_OK(positions.AppendValues(sorted));
  ARROW_ASSIGN_OR_RAISE(auto position_array, positions.Finish());
  ARROW_ASSIGN_OR_RAISE(auto values, cp::Take(lists->values(), position_array));
  auto v = values.make_array();
  std::vector<bool> keep(sorted.size(), true);
  std::vector<int64_t> row_of(sorted.size());
  size_t k = 0;
  for (int64_t i = 0; i < lists->length(); ++i) {
    int64_t n = lists->IsNull(i) ? 0 : lists->value_length(i);
    for (int64_t j = 0; j < n; ++j) row_of[k++] = i;
  }
  if (v->length() > 1) {
    ARROW_ASSIGN_OR_RAISE(auto equal,
                          cp::CallFunction("equal", {v->Slice(1), v->Slice(0, v->length() - 1)}));
    auto eq = std::static_pointer_cast<arrow::BooleanArray>(equal.make_array());
    for (int64_t m = 1; m < v->length(); ++m) {
      bool same_row = row_of[m] == row_of[m - 1];
      bool both_null = v->IsNull(m) && v->IsNull(m - 1);
      bool equal_values = eq->IsValid(m - 1) && eq->Value(m - 1);
      // A stable sort keeps the earliest of equal elements first.
      if (same_row && (both_null || equal_values)) keep[m] = false;
    }
  }
  std::vector<int64_t> kept;
  for (size_t m = 0; m < sorted.size(); ++m) {
    if (keep[m]) kept.push_back(sorted[m]);
  }
  std::sort(kept.begin(), kept.end());
  std::vector<bool> valid;
  std::vector<int32_t> offsets{0};
  size_t at = 0;
  for (int64_t i = 0; i < lists->length(); ++i) {
    valid.push_back(lists->IsValid(i));
    int64_t end = lists->IsNull(i) ? 0 : lists->value_offset(i + 1);
    int32_t count = 0;
    while (at < kept.size() && kept[at] < end) ++at, ++count;
    offsets.push_back(offsets.back() + count);
  }
  ARROW_ASSIGN_OR_RAISE(auto result, Regroup(*lists, kept, offsets, valid));
  out->value = result->data();
  return Status::OK();
}

// A list per row of `lists`' elements: pick(i, &take) appends the indexes of row i's elements
// and says whether the row is valid.
template <class Pick>
Result<std::shared_ptr<arrow::Array>> Rebuild(const arrow::ListArray& lists, Pick pick) {
  std::vector<int64_t> take;
  std::vector<int32_t> offsets{0};
  std::vector<bool> valid;
  for (int64_t i = 0; i < lists.length(); ++i) {
    ARROW_ASSIGN_OR_RAISE(bool ok, pick(i, &take));
    valid.push_back(ok);
    offsets.push_back(static_cast<int32_t>(take.size()));
  }
  return Regroup(lists, take, offsets, valid);
}

// array_compact(a): without its NULL elements (also collect_list's last step).
Status ArrayCompactExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto lists, ListArg(batch, 0));
  const auto& values = *lists->values();
  ARROW_ASSIGN_OR_RAISE(
      auto result, Rebuild(*lists, [&](int64_t i, std::vector<int64_t>* take) -> Result<bool> {
        if (lists->IsNull(i)) return false;
        for (int64_t j = lists->value_offset(i); j < lists->value_offset(i + 1); ++j) {
          if (values.IsValid(j)) take->push_back(j);
        }
        return true;
      }));
  out->value = result->data();
  return Status::OK();
}

// slice(a, start, length): 1-based start, negative from the end; errors for start 0 and a
// negative length.
Status SliceExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto lists, ListArg(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto starts, ArgArray(batch, 1));
  ARROW_ASSIGN_OR_RAISE(auto lengths, ArgArray(batch, 2));
  const auto& start = static_cast<const arrow::Int32Array&>(*starts);
  const auto& length = static_cast<const arrow::Int32Array&>(*lengths);
  ARROW_ASSIGN_OR_RAISE(
      auto result, Rebuild(*lists, [&](int64_t i, std::vector<int64_t>* take) -> Result<bool> {
        if (lists->IsNull(i) || start.IsNull(i) || length.IsNull(i)) return false;
        int64_t n = lists->value_length(i), s = start.Value(i), len = length.Value(i);
        if (s == 0) {
          return UserError(ErrorKind::kRuntime, "INVALID_PARAMETER_VALUE.START",
                           "The value of parameter(s) `start` in `slice` is invalid: Expects a "
                           "positive or a negative value for `start`, but got 0.",
                           "22023");
        }
        if (len < 0) {
          return UserError(ErrorKind::kRuntime, "INVALID_PARAMETER_VALUE.LENGTH",
                           "The value of parameter(s) `length` in `slice` is invalid: Expects "
                           "`length` greater than or equal to 0, but got " +
                               std::to_string(len) + ".",
                           "22023");
        }
        int64_t from = s > 0 ? s - 1 : n + s;
        if (from >= 0 && from < n) {
          for (int64_t j = from; j < std::min(n, from + len); ++j) {
            take->push_back(lists->value_offset(i) + j);
          }
        }
        return true;
      }));
  out->value = result->data();
  return Status::OK();
}

// array_join(a, delimiter[, null_replacement]): NULL elements skipped, or replaced.
Status ArrayJoinExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto lists, ListArg(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto delimiters, ArgArray(batch, 1));
  ARROW_ASSIGN_OR_RAISE(auto replacements, ArgArray(batch, 2));
  const auto& delimiter = static_cast<const arrow::StringArray&>(*delimiters);
  const auto& replacement = static_cast<const arrow::StringArray&>(*replacements);
  const auto& values = static_cast<const arrow::StringArray&>(*lists->values());
  // The third argument is NULL when absent: NULL elements are then skipped.
  const bool replaces = batch[2].is_array() || batch[2].scalar->is_valid;
  arrow::StringBuilder builder;
  std::string text;
  for (int64_t i = 0; i < lists->length(); ++i) {
    if (lists->IsNull(i) || delimiter.IsNull(i) || (replaces && replacement.IsNull(i))) {
      ARROW_RETURN_NOT_OK(builder.AppendNull());
      continue;
    }
    text.clear();
    bool first = true;
    for (int64_t j = lists->value_offset(i); j < lists->value_offset(i + 1); ++j) {
      if (values.IsNull(j) && !replaces) continue;
      if (!first) text += delimiter.GetView(i);
      text += values.IsNull(j) ? replacement.GetView(i) : values.GetView(j);
      first = false;
    }
    ARROW_RETURN_NOT_OK(builder.Append(text));
  }
  ARROW_ASSIGN_OR_RAISE(auto result, builder.Finish());
  out->value = result->data();
  return Status::OK();
}

// --- collect_list, collect_set without grouping ------------------------------------------------

// The values seen, kept as they came (arrow's hash_list and hash_distinct collect per group);
// the aggregate's finalizer, array_compact, drops the NULLs on both paths.
struct Collected : cp::KernelState {
  std::shared_ptr<arrow::DataType> type;
  arrow::ArrayVector chunks;
};

Result<std::unique_ptr<cp::KernelState>> InitCollected(cp::KernelContext*,
                                                       const cp::KernelInitArgs& args) {
  auto state = std::make_unique<Collected>();
  state->type = args.inputs[0].GetSharedPtr();
  return state;
}

Status ConsumeCollected(cp::KernelContext* ctx, const cp::ExecSpan& batch) {
  ARROW_ASSIGN_OR_RAISE(auto values, ArgArray(batch, 0));
  static_cast<Collected*>(ctx->state())->chunks.push_back(std::move(values));
  return Status::OK();
}

Status MergeCollected(cp::KernelContext*, cp::KernelState&& src, cp::KernelState* dst) {
  auto& into = static_cast<Collected&>(*dst);
  auto& from = static_cast<Collected&>(src);
  into.chunks.insert(into.chunks.end(), from.chunks.begin(), from.chunks.end());
  return Status::OK();
}

template <bool kDistinct>
Status FinalizeCollected(cp::KernelContext* ctx, arrow::Datum* out) {
  auto& state = *static_cast<Collected*>(ctx->state());
  std::shared_ptr<arrow::Array> values;
  if (state.chunks.empty()) {
    ARROW_ASSIGN_OR_RAISE(values, arrow::MakeEmptyArray(state.type));
  } else {
    ARROW_ASSIGN_OR_RAISE(values, arrow::Concatenate(state.chunks));
  }
  if (kDistinct) {
    ARROW_ASSIGN_OR_RAISE(values, cp::Unique(values));
  }
  *out = arrow::Datum(std::make_shared<arrow::ListScalar>(values, plan::ArrayOf(state.type)));
  return Status::OK();
}

Result<arrow::TypeHolder> ListOfArg(cp::KernelContext*,
                                    const std::vector<arrow::TypeHolder>& args) {
  return arrow::TypeHolder(plan::ArrayOf(args[0].GetSharedPtr()));
}

template <bool kDistinct>
Status AddCollect(cp::FunctionRegistry* registry, const std::string& name) {
  cp::ScalarAggregateKernel kernel({cp::InputType::Any()}, cp::OutputType(ListOfArg),
                                   InitCollected, ConsumeCollected, MergeCollected,
                                   FinalizeCollected<kDistinct>, /*ordered=*/true);
  auto fn = std::make_shared<cp::ScalarAggregateFunction>(name, cp::Arity::Unary(),
                                                          cp::FunctionDoc::Empty());
  ARROW_RETURN_NOT_OK(fn->AddKernel(std::move(kernel)));
  return registry->AddFunction(std::move(fn));
}

Result<arrow::TypeHolder> SameType(cp::KernelContext*, const std::vector<arrow::TypeHolder>& args) {
  return args[0];
}

}  // namespace

Status RegisterArrayKernels(cp::FunctionRegistry* registry) {
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_split", cp::Arity::Ternary(),
                          {cp::InputType(arrow::Type::STRING), cp::InputType(arrow::Type::STRING),
                           cp::InputType(arrow::Type::INT32)},
                          cp::OutputType(plan::ArrayOf(arrow::utf8())), SplitExec));
  {
    // A summary: pyarrow.compute documents every registered function, and cannot word an
    // empty summary for any number of arguments.
    auto fn = std::make_shared<cp::ScalarFunction>(
        "ember_make_array", cp::Arity::VarArgs(1),
        cp::FunctionDoc("Spark's array(...): one list per row of its arguments", "", {"values"}));
    cp::ScalarKernel kernel(
        cp::KernelSignature::Make({cp::InputType::Any()}, cp::OutputType(MakeArrayType),
                                  /*is_varargs=*/true),
        MakeArrayExec);
    kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
    kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
    ARROW_RETURN_NOT_OK(fn->AddKernel(std::move(kernel)));
    ARROW_RETURN_NOT_OK(registry->AddFunction(std::move(fn)));
  }
  for (auto [name, exec] : {std::pair<const char*, cp::ArrayKernelExec>{
                                "ember_element_at", ElementAtExec<kElementAt>},
                            {"ember_try_element_at", ElementAtExec<kTryElementAt>},
                            {"ember_array_item", ElementAtExec<kSubscript>},
                            {"ember_get", ElementAtExec<kGet>}}) {
    ARROW_RETURN_NOT_OK(AddScalarKernel(
        registry, name, cp::Arity::Binary(),
        {cp::InputType(arrow::Type::LIST), cp::InputType(arrow::Type::INT32)},
        cp::OutputType(ElementType), exec));
  }
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_array_contains", cp::Arity::Binary(),
                          {cp::InputType(arrow::Type::LIST), cp::InputType::Any()},
                          cp::OutputType(arrow::boolean()), ArrayContainsExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_sort_array", cp::Arity::Binary(),
                          {cp::InputType(arrow::Type::LIST), cp::InputType(arrow::Type::BOOL)},
                          cp::OutputType(SameType), SortArrayExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_array_max", cp::Arity::Unary(),
                          {cp::InputType(arrow::Type::LIST)}, cp::OutputType(ElementType),
                          ExtremeExec<true>));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_array_min", cp::Arity::Unary(),
                          {cp::InputType(arrow::Type::LIST)}, cp::OutputType(ElementType),
                          ExtremeExec<false>));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_array_distinct", cp::Arity::Unary(),
                          {cp::InputType(arrow::Type::LIST)}, cp::OutputType(SameType),
                          ArrayDistinctExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_array_compact", cp::Arity::Unary(),
                          {cp::InputType(arrow::Type::LIST)}, cp::OutputType(SameType),
                          ArrayCompactExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_slice", cp::Arity::Ternary(),
                          {cp::InputType(arrow::Type::LIST), cp::InputType(arrow::Type::INT32),
                           cp::InputType(arrow::Type::INT32)},
                          cp::OutputType(SameType), SliceExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_array_join", cp::Arity::Ternary(),
                          {cp::InputType(arrow::Type::LIST), cp::InputType(arrow::Type::STRING),
                           cp::InputType(arrow::Type::STRING)},
                          cp::OutputType(arrow::utf8()), ArrayJoinExec));
  ARROW_RETURN_NOT_OK(AddCollect<false>(registry, "ember_collect_list"));
  ARROW_RETURN_NOT_OK(AddCollect<true>(registry, "ember_collect_set"));
  return Status::OK();
}

}  // namespace ember::exec
