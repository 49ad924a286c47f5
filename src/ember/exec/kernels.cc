#include "ember/exec/kernels.h"
#include "ember/exec/kernel_util.h"

#include <cctype>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <mutex>
#include <optional>
#include <string_view>

#include <arrow/array/array_binary.h>
#include <arrow/array/array_primitive.h>
#include <arrow/array/concatenate.h>
#include <arrow/array/util.h>
#include <arrow/array/builder_primitive.h>
#include <arrow/compute/api.h>
#include <arrow/compute/kernel.h>
#include <arrow/compute/registry.h>
#include <arrow/scalar.h>

#include "ember/error.h"

namespace ember::exec {

namespace cp = arrow::compute;

namespace {

struct ParsedTimestamp {
  int64_t micros = 0;  // wall clock read as UTC, minus the offset if any
  bool has_offset = false;
};

int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  // Days since 1970-01-01 of a proleptic Gregorian date, counted in 400-year eras.
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// The proleptic Gregorian date of a day count since 1970-01-01.
void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

unsigned DaysInMonth(int64_t y, unsigned m) {
  static const unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}
  bool Done() const { return i_ >= s_.size(); }
  char Peek() const { return Done() ? '\0' : s_[i_]; }
  bool Accept(char c) {
    if (Peek() != c) return false;
    ++i_;
    return true;
  }
  // Reads between min and max digits.
  std::optional<int64_t> Digits(size_t min, size_t max, size_t* count = nullptr) {
    int64_t v = 0;
    size_t n = 0;
    while (n < max && !Done() && static_cast<unsigned>(Peek() - '0') <= 9) {
      v = v * 10 + (s_[i_++] - '0');
      ++n;
    }
    if (count) *count = n;
    if (n < min) return std::nullopt;
    return v;
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

// The shape JSON sources hold millions of, "yyyy-MM-ddTHH:mm:ss[.f]" (or a space for the "T")
// with an optional "Z", read without the general cursor. Anything else is left to it (nullopt);
// what this accepts, the general path reads to the same instant.
std::optional<ParsedTimestamp> ParseCommonTimestamp(std::string_view t) {
  auto digit = [&](size_t i) { return static_cast<unsigned>(t[i] - '0') <= 9; };
  if (t.size() < 19 || t[4] != '-' || t[7] != '-' || (t[10] != 'T' && t[10] != ' ') ||
      t[13] != ':' || t[16] != ':') {
    return std::nullopt;
  }
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18}) {
    if (!digit(i)) return std::nullopt;
  }
  auto number = [&](size_t at, size_t digits) {
    int64_t v = 0;
    for (size_t k = 0; k < digits; ++k) v = v * 10 + (t[at + k] - '0');
    return v;
  };
  int64_t year = number(0, 4), month = number(5, 2), day = number(8, 2);
  int64_t hour = number(11, 2), minute = number(14, 2), second = number(17, 2);
  if (month < 1 || month > 12 || day < 1 ||
      day > static_cast<int64_t>(DaysInMonth(year, static_cast<unsigned>(month))) ||
      hour > 23 || minute > 59 || second > 59) {
    return std::nullopt;
  }
  size_t i = 19;
  int64_t fraction = 0;
  if (i < t.size() && t[i] == '.') {
    size_t n = 0;
    for (++i; i < t.size() && n < 6 && digit(i); ++i, ++n) fraction = fraction * 10 + (t[i] - '0');
    if (n == 0 || (i < t.size() && digit(i))) return std::nullopt;  // none, or more than 6
    for (; n < 6; ++n) fraction *= 10;
  }
  ParsedTimestamp out;
  if (i < t.size() && t[i] == 'Z') {
    out.has_offset = true;
    ++i;
  }
  if (i != t.size()) return std::nullopt;
  out.micros = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) *
                   86400LL * 1000000LL +
               ((hour * 60 + minute) * 60 + second) * 1000000LL + fraction;
  return out;
}

std::optional<ParsedTimestamp> ParseTimestampText(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  if (auto common = ParseCommonTimestamp(text)) return common;
  Cursor c(text);
  bool negative_year = c.Accept('-');
  auto year = c.Digits(4, 6);
  if (!year || !c.Accept('-')) return std::nullopt;
  auto month = c.Digits(1, 2);
  if (!month || !c.Accept('-')) return std::nullopt;
  auto day = c.Digits(1, 2);
  int64_t y = negative_year ? -*year : *year;
  if (!day || *month < 1 || *month > 12 || *day < 1 ||
      *day > static_cast<int64_t>(DaysInMonth(y, static_cast<unsigned>(*month)))) {
    return std::nullopt;
  }
  int64_t micros = DaysFromCivil(y, static_cast<unsigned>(*month), static_cast<unsigned>(*day)) *
                   86400LL * 1000000LL;
  ParsedTimestamp out;
  if (c.Accept('T') || c.Accept(' ')) {
    auto hour = c.Digits(1, 2);
    if (!hour || !c.Accept(':')) return std::nullopt;
    auto minute = c.Digits(1, 2);
    if (!minute) return std::nullopt;
    int64_t second = 0, fraction = 0;
    if (c.Accept(':')) {
      auto s = c.Digits(1, 2);
      if (!s) return std::nullopt;
      second = *s;
      if (c.Accept('.')) {
        size_t n = 0;
        auto f = c.Digits(1, 9, &n);
        if (!f) return std::nullopt;
        fraction = *f;
        for (; n < 6; ++n) fraction *= 10;
        for (; n > 6; --n) fraction /= 10;
      }
    }
    if (*hour > 23 || *minute > 59 || second > 59) return std::nullopt;
    micros += ((*hour * 60 + *minute) * 60 + second) * 1000000LL + fraction;
    if (c.Accept('Z')) {
      out.has_offset = true;
    } else if (c.Peek() == '+' || c.Peek() == '-') {
      int sign = c.Accept('-') ? -1 : (c.Accept('+'), 1);
      auto oh = c.Digits(2, 2);
      if (!oh) return std::nullopt;
      c.Accept(':');
      auto om = c.Digits(0, 2);
      micros -= sign * ((*oh * 60 + om.value_or(0)) * 60LL) * 1000000LL;
      out.has_offset = true;
    }
  }
  if (!c.Done()) return std::nullopt;
  out.micros = micros;
  return out;
}

template <bool kTry>
arrow::Status ParseExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto input_array, ArgArray(batch, 0));
  const auto& input = static_cast<const arrow::StringArray&>(*input_array);
  arrow::TimestampBuilder builder(arrow::timestamp(arrow::TimeUnit::MICRO),
                                  arrow::default_memory_pool());
  ARROW_RETURN_NOT_OK(builder.Reserve(input.length()));
  for (int64_t i = 0; i < input.length(); ++i) {
    if (input.IsNull(i)) {
      builder.UnsafeAppendNull();
      continue;
    }
    auto parsed = ParseTimestampText(input.GetView(i));
    if (!parsed) {
      if (kTry) {
        builder.UnsafeAppendNull();
        continue;
      }
      return UserError(ErrorKind::kDateTime, "CAST_INVALID_INPUT",
                       "The value '" + std::string(input.GetView(i)) +
                           "' of the type \"STRING\" cannot be cast to \"TIMESTAMP\" because it is "
                           "malformed. Correct the value as per the syntax, or change its target "
                           "type. Use `try_cast` to tolerate malformed input and return NULL "
                           "instead.",
                       "22018");
    }
    builder.UnsafeAppend(parsed->micros);
  }
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder.Finish(&result));
  out->value = result->data();
  return arrow::Status::OK();
}

// Text a pattern did not parse (NULL from strptime where the text is not NULL) is Spark's
// CANNOT_PARSE_TIMESTAMP; parsed values pass through.
arrow::Status ParsedOrErrorExec(cp::KernelContext*, const cp::ExecSpan& batch,
                                cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto text_array, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto parsed, ArgArray(batch, 1));
  const auto& text = static_cast<const arrow::StringArray&>(*text_array);
  for (int64_t i = 0; i < text.length(); ++i) {
    if (parsed->IsNull(i) && !text.IsNull(i)) {
      return UserError(ErrorKind::kDateTime, "CANNOT_PARSE_TIMESTAMP",
                       "Text '" + std::string(text.GetView(i)) +
                           "' could not be parsed. Use `try_to_timestamp` to tolerate invalid "
                           "input string and return NULL instead.",
                       "22007");
    }
  }
  out->value = parsed->data();
  return arrow::Status::OK();
}

arrow::Status HasOffsetExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto input_array, ArgArray(batch, 0));
  const auto& input = static_cast<const arrow::StringArray&>(*input_array);
  arrow::BooleanBuilder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(input.length()));
  for (int64_t i = 0; i < input.length(); ++i) {
    if (input.IsNull(i)) {
      builder.UnsafeAppendNull();
      continue;
    }
    auto parsed = ParseTimestampText(input.GetView(i));
    builder.UnsafeAppend(parsed && parsed->has_offset);
  }
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder.Finish(&result));
  out->value = result->data();
  return arrow::Status::OK();
}

// Spark's add_months: the same day of the month, or the month's last day if it has fewer.
arrow::Status AddMonthsExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto dates, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto months, ArgArray(batch, 1));
  const auto& d = static_cast<const arrow::Date32Array&>(*dates);
  const auto& n = static_cast<const arrow::Int32Array&>(*months);
  arrow::Date32Builder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(d.length()));
  for (int64_t i = 0; i < d.length(); ++i) {
    if (d.IsNull(i) || n.IsNull(i)) {
      builder.UnsafeAppendNull();
      continue;
    }
    int64_t y;
    unsigned m, day;
    CivilFromDays(d.Value(i), &y, &m, &day);
    int64_t total = y * 12 + (m - 1) + n.Value(i);
    int64_t ny = total >= 0 ? total / 12 : (total - 11) / 12;
    unsigned nm = static_cast<unsigned>(total - ny * 12) + 1;
    unsigned nd = std::min(day, DaysInMonth(ny, nm));
    builder.UnsafeAppend(static_cast<int32_t>(DaysFromCivil(ny, nm, nd)));
  }
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder.Finish(&result));
  out->value = result->data();
  return arrow::Status::OK();
}

// Rounds half away from zero the shortest decimal text of a double, as Spark's
// BigDecimal(x).setScale(d, HALF_UP) does: round(2.675, 2) is 2.68 although 2.675 is stored as
// 2.67499999...
double RoundHalfUp(double x, int digits) {
  if (!std::isfinite(x)) return x;
  if (digits < 0) {
    double scale = std::pow(10.0, -digits);
    return RoundHalfUp(x / scale, 0) * scale;
  }
  char buffer[512];
  auto end = std::to_chars(buffer, buffer + sizeof(buffer), x, std::chars_format::fixed).ptr;
  std::string text(buffer, end);
  size_t point = text.find('.');
  if (point == std::string::npos || text.size() - point - 1 <= static_cast<size_t>(digits)) {
    return x;
  }
  size_t cut = point + 1 + static_cast<size_t>(digits);
  double result = std::strtod(text.substr(0, cut).c_str(), nullptr);
  if (text[cut] < '5') return result;
  result += std::copysign(std::pow(10.0, -digits), x);
  // Through text again, so the result is the double nearest the rounded decimal.
  char out[512];
  auto out_end = std::to_chars(out, out + sizeof(out), result, std::chars_format::fixed, digits).ptr;
  return std::strtod(std::string(out, out_end).c_str(), nullptr);
}

arrow::Status RoundExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto values, ArgArray(batch, 0));
  // The digits may come as an array too: arrow passes constants folded together as arrays.
  ARROW_ASSIGN_OR_RAISE(auto digit_values, ArgArray(batch, 1));
  const auto& digits = static_cast<const arrow::Int32Array&>(*digit_values);
  const auto& v = static_cast<const arrow::DoubleArray&>(*values);
  arrow::DoubleBuilder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(v.length()));
  for (int64_t i = 0; i < v.length(); ++i) {
    if (v.IsNull(i) || digits.IsNull(i)) {
      builder.UnsafeAppendNull();
    } else {
      // + 0.0: a zero is positive, as the BigDecimal Spark rounds through has no sign of zero.
      builder.UnsafeAppend(RoundHalfUp(v.Value(i), digits.Value(i)) + 0.0);
    }
  }
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder.Finish(&result));
  out->value = result->data();
  return arrow::Status::OK();
}

arrow::Status LastDayExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto dates, ArgArray(batch, 0));
  const auto& d = static_cast<const arrow::Date32Array&>(*dates);
  arrow::Date32Builder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(d.length()));
  for (int64_t i = 0; i < d.length(); ++i) {
    if (d.IsNull(i)) {
      builder.UnsafeAppendNull();
      continue;
    }
    int64_t y;
    unsigned m, day;
    CivilFromDays(d.Value(i), &y, &m, &day);
    builder.UnsafeAppend(static_cast<int32_t>(DaysFromCivil(y, m, DaysInMonth(y, m))));
  }
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder.Finish(&result));
  out->value = result->data();
  return arrow::Status::OK();
}

arrow::Status AddUnary(cp::FunctionRegistry* registry, const std::string& name,
                       std::shared_ptr<arrow::DataType> out_type, cp::ArrayKernelExec exec,
                       arrow::Type::type in_type = arrow::Type::STRING) {
  auto fn = std::make_shared<cp::ScalarFunction>(name, cp::Arity::Unary(), cp::FunctionDoc::Empty());
  cp::ScalarKernel kernel({cp::InputType(in_type)}, cp::OutputType(out_type), exec);
  kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
  kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
  ARROW_RETURN_NOT_OK(fn->AddKernel(std::move(kernel)));
  return registry->AddFunction(std::move(fn));
}

}  // namespace

arrow::Status RegisterKernels() {
  static std::once_flag once;
  static arrow::Status status;
  std::call_once(once, [] {
    status = cp::Initialize();
    if (!status.ok()) return;
    auto* registry = cp::GetFunctionRegistry();
    auto naive = arrow::timestamp(arrow::TimeUnit::MICRO);
    status = AddUnary(registry, "ember_parse_timestamp", naive, ParseExec<false>);
    if (status.ok()) status = AddUnary(registry, "ember_try_parse_timestamp", naive, ParseExec<true>);
    if (status.ok()) {
      status = AddUnary(registry, "ember_timestamp_has_offset", arrow::boolean(), HasOffsetExec);
    }
    if (status.ok()) {
      auto fn = std::make_shared<cp::ScalarFunction>("ember_parsed_or_error", cp::Arity::Binary(),
                                                     cp::FunctionDoc::Empty());
      cp::ScalarKernel kernel({cp::InputType(arrow::Type::STRING), cp::InputType(naive)},
                              cp::OutputType(naive), ParsedOrErrorExec);
      kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
      kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
      status = fn->AddKernel(std::move(kernel));
      if (status.ok()) status = registry->AddFunction(std::move(fn));
    }
    if (status.ok()) {
      status = AddUnary(registry, "ember_last_day", arrow::date32(), LastDayExec, arrow::Type::DATE32);
    }
    if (status.ok()) {
      auto fn = std::make_shared<cp::ScalarFunction>("ember_round_half_up", cp::Arity::Binary(),
                                                     cp::FunctionDoc::Empty());
      cp::ScalarKernel kernel({cp::InputType(arrow::Type::DOUBLE), cp::InputType(arrow::Type::INT32)},
                              cp::OutputType(arrow::float64()), RoundExec);
      kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
      kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
      status = fn->AddKernel(std::move(kernel));
      if (status.ok()) status = registry->AddFunction(std::move(fn));
    }
    if (status.ok()) {
      auto fn = std::make_shared<cp::ScalarFunction>("ember_add_months", cp::Arity::Binary(),
                                                     cp::FunctionDoc::Empty());
      cp::ScalarKernel kernel({cp::InputType(arrow::Type::DATE32), cp::InputType(arrow::Type::INT32)},
                              cp::OutputType(arrow::date32()), AddMonthsExec);
      kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
      kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
      status = fn->AddKernel(std::move(kernel));
      if (status.ok()) status = registry->AddFunction(std::move(fn));
    }
    if (status.ok()) status = RegisterHyperLogLogKernels(registry);
    if (status.ok()) status = RegisterAggregateKernels(registry);
    if (status.ok()) status = RegisterArrayKernels(registry);
    if (status.ok()) status = RegisterMapKernels(registry);
    if (status.ok()) status = RegisterScalarKernels(registry);
    if (status.ok()) status = RegisterHigherOrderKernel(registry);
    if (status.ok()) status = RegisterUserFunctionKernel(registry);
    if (status.ok()) status = RegisterCollectionKernels(registry);
    if (status.ok()) status = RegisterRegexKernels(registry);
    if (status.ok()) status = RegisterStringKernels(registry);
    if (status.ok()) status = RegisterJsonKernels(registry);
  });
  return status;
}

arrow::Result<std::shared_ptr<arrow::Array>> RowMajor(
    const std::vector<std::shared_ptr<arrow::Array>>& columns, int64_t length) {
  // The columns one after another, then taken in row order: cell j of row i is at
  // j * length + i.
  ARROW_ASSIGN_OR_RAISE(auto stacked, arrow::Concatenate(columns));
  const int64_t width = static_cast<int64_t>(columns.size());
  arrow::Int64Builder indices;
  ARROW_RETURN_NOT_OK(indices.Reserve(length * width));
  for (int64_t i = 0; i < length; ++i) {
    for (int64_t j = 0; j < width; ++j) indices.UnsafeAppend(j * length + i);
  }
  ARROW_ASSIGN_OR_RAISE(auto order, indices.Finish());
  ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(stacked, order));
  return taken.make_array();
}

arrow::Status AddScalarKernel(cp::FunctionRegistry* registry, const std::string& name,
                              cp::Arity arity, std::vector<cp::InputType> inputs,
                              cp::OutputType output, cp::ArrayKernelExec exec) {
  auto fn = std::make_shared<cp::ScalarFunction>(name, arity, cp::FunctionDoc::Empty());
  cp::ScalarKernel kernel(std::move(inputs), std::move(output), exec);
  kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
  kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
  ARROW_RETURN_NOT_OK(fn->AddKernel(std::move(kernel)));
  return registry->AddFunction(std::move(fn));
}

arrow::Result<std::shared_ptr<arrow::Array>> ArgArray(const cp::ExecSpan& batch, int i) {
  if (batch[i].is_array()) return batch[i].array.ToArray();
  return arrow::MakeArrayFromScalar(*batch[i].scalar, batch.length);
}

arrow::Result<std::shared_ptr<arrow::Array>> TakeAt(const std::shared_ptr<arrow::Array>& values,
                                                    const std::vector<int64_t>& positions) {
  arrow::Int64Builder indices;
  ARROW_RETURN_NOT_OK(indices.AppendValues(positions));
  ARROW_ASSIGN_OR_RAISE(auto index_array, indices.Finish());
  ARROW_ASSIGN_OR_RAISE(auto taken, cp::Take(values, index_array));
  return taken.make_array();
}

}  // namespace ember::exec
