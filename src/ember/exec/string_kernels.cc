// Kernels of Spark's string functions that count characters or read bytes as Java does: left,
// right, btrim, elt, luhn_check, mask, url_encode, url_decode and the UTF-8 checks. Characters are
// code points, as Spark's UTF8String counts them; each kernel is NULL where an argument is, unless
// it says otherwise.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <locale>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/compute/registry.h>
#include <arrow/scalar.h>

#include "ember/error.h"
#include "ember/exec/kernel_util.h"
#include "ember/exec/kernels.h"

namespace ember::exec {

namespace cp = arrow::compute;
using arrow::Result;
using arrow::Status;

namespace {


size_t CharBytes(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

// The code points of valid UTF-8 text.
std::vector<uint32_t> CodePoints(std::string_view s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) {
    auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[k])); };
    size_t n = std::min(CharBytes(static_cast<unsigned char>(s[i])), s.size() - i);
    uint32_t cp = n == 1 ? b(i) : n == 2 ? b(i) & 0x1F : n == 3 ? b(i) & 0x0F : b(i) & 0x07;
    for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (b(i + k) & 0x3F);
    out.push_back(cp);
    i += n;
  }
  return out;
}

// The byte offset after the first `n` characters (the whole text if it has fewer).
size_t PrefixBytes(std::string_view s, int64_t n) {
  size_t i = 0;
  for (int64_t k = 0; k < n && i < s.size(); ++k) i += CharBytes(static_cast<unsigned char>(s[i]));
  return std::min(i, s.size());
}

// The value of a decimal digit (Java's Character.isDigit: Unicode's Nd), or -1.
int DigitValue(uint32_t cp) {
  static const uint32_t kZeros[] = {
      0x30,    0x660,   0x6F0,   0x7C0,   0x966,   0x9E6,   0xA66,   0xAE6,   0xB66,
      0xBE6,   0xC66,   0xCE6,   0xD66,   0xDE6,   0xE50,   0xED0,   0xF20,   0x1040,
      0x1090,  0x17E0,  0x1810,  0x1946,  0x19D0,  0x1A80,  0x1A90,  0x1B50,  0x1BB0,
      0x1C40,  0x1C50,  0xA620,  0xA8D0,  0xA900,  0xA9D0,  0xA9F0,  0xAA50,  0xABF0,
      0xFF10,  0x104A0, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0,
      0x11650, 0x116C0, 0x11730, 0x118E0, 0x16A60, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2,
      0x1D7EC, 0x1D7F6, 0x1E950, 0x1FBF0};
  for (uint32_t zero : kZeros) {
    if (cp >= zero && cp < zero + 10) return static_cast<int>(cp - zero);
  }
  return -1;
}

// --- left, right, btrim, elt --------------------------------------------------------------------

// left(str, len): the first len characters; right(str, len): the last len.
template <bool kLeft>
Status SideExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  auto args = Args(batch);
  arrow::StringBuilder builder;
  return EachRow(batch, out, &builder, args, [&](int64_t i) -> Status {
    std::string_view s = args[0].Text(i);
    int64_t len = args[1].Int(i);
    if (len <= 0) return builder.Append("");
    if (kLeft) return builder.Append(s.substr(0, PrefixBytes(s, len)));
    int64_t chars = static_cast<int64_t>(CodePoints(s).size());
    return builder.Append(s.substr(PrefixBytes(s, std::max<int64_t>(chars - len, 0))));
  });
}

// btrim(str, chars): the characters of `chars` removed from both ends.
Status BtrimExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  auto args = Args(batch);
  arrow::StringBuilder builder;
  return EachRow(batch, out, &builder, args, [&](int64_t i) -> Status {
    std::string_view s = args[0].Text(i);
    auto trim = CodePoints(args[1].Text(i));
    auto in_trim = [&](uint32_t cp) { return std::find(trim.begin(), trim.end(), cp) != trim.end(); };
    auto chars = CodePoints(s);
    size_t first = 0, last = chars.size();
    while (first < last && in_trim(chars[first])) ++first;
    while (last > first && in_trim(chars[last - 1])) --last;
    size_t from = PrefixBytes(s, static_cast<int64_t>(first));
    size_t to = PrefixBytes(s, static_cast<int64_t>(last));
    return builder.Append(s.substr(from, to - from));
  });
}

// elt(n, v1, v2, ...): v_n; an n outside 1..count is INVALID_ARRAY_INDEX (ANSI mode).
Status EltExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  auto args = Args(batch);
  std::unique_ptr<arrow::ArrayBuilder> base;
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), out->type()->GetSharedPtr(),
                                         &base));
  auto& builder = static_cast<arrow::BinaryBuilder&>(*base);
  const int64_t count = static_cast<int64_t>(args.size()) - 1;
  return EachRow(
      batch, out, &builder, args,
      [&](int64_t i) -> Status {
        int64_t n = args[0].Int(i);
        if (n < 1 || n > count) {
          return UserError(ErrorKind::kRuntime, "INVALID_ARRAY_INDEX",
                           "The index " + std::to_string(n) +
                               " is out of bounds. The array has " + std::to_string(count) +
                               " elements. Use the SQL function `get()` to tolerate accessing "
                               "element at invalid index and return NULL instead.",
                           "22003");
        }
        const Arg& value = args[static_cast<size_t>(n)];
        if (value.IsNull(i)) return builder.AppendNull();
        return builder.Append(value.Text(i));
      },
      1);
}

// --- luhn_check, mask -----------------------------------------------------------------------------

// luhn_check(str): digits only (any Unicode decimal digits, as Java's Character.isDigit), at
// least one, with a Luhn checksum divisible by 10.
Status LuhnExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  auto args = Args(batch);
  arrow::BooleanBuilder builder;
  return EachRow(batch, out, &builder, args, [&](int64_t i) -> Status {
    auto chars = CodePoints(args[0].Text(i));
    if (chars.empty()) return builder.Append(false);
    int sum = 0;
    bool second = false;
    for (auto it = chars.rbegin(); it != chars.rend(); ++it) {
      int d = DigitValue(*it);
      if (d < 0) return builder.Append(false);
      if (second) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
      second = !second;
    }
    return builder.Append(sum % 10 == 0);
  });
}

// mask(str, upper, lower, digit, other): each upper-case letter, lower-case letter and digit
// (Unicode's, as Java's Character classes them) replaced by its class's character; a NULL
// replacement keeps the class as it is. NULL only for a NULL str.
Status MaskExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  auto args = Args(batch);
  static const std::locale kUnicode("C.UTF-8");
  const auto& ctype = std::use_facet<std::ctype<wchar_t>>(kUnicode);
  arrow::StringBuilder builder;
  std::string result;
  return EachRow(
      batch, out, &builder, args,
      [&](int64_t i) -> Status {
        auto replacement = [&](size_t k) -> std::string_view {
          return args[k].IsNull(i) ? std::string_view() : args[k].Text(i);
        };
        result.clear();
        std::string_view s = args[0].Text(i);
        for (size_t at = 0; at < s.size();) {
          size_t n = std::min(CharBytes(static_cast<unsigned char>(s[at])), s.size() - at);
          uint32_t cp = CodePoints(s.substr(at, n))[0];
          auto wc = static_cast<wchar_t>(cp);
          bool upper = ctype.is(std::ctype_base::upper, wc) && !ctype.is(std::ctype_base::lower, wc);
          bool lower = ctype.is(std::ctype_base::lower, wc) && !upper &&
                       !ctype.is(std::ctype_base::upper, wc);
          size_t k = upper ? 1 : lower ? 2 : DigitValue(cp) >= 0 ? 3 : 4;
          std::string_view with = replacement(k);
          result.append(with.data() ? with : s.substr(at, n));
          at += n;
        }
        return builder.Append(result);
      },
      1);
}

// --- URLs -----------------------------------------------------------------------------------------

// url_encode(str): Java's URLEncoder with UTF-8: letters, digits and .-*_ as they are, a space
// as +, every other byte as %XX.
Status UrlEncodeExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  auto args = Args(batch);
  arrow::StringBuilder builder;
  std::string result;
  return EachRow(batch, out, &builder, args, [&](int64_t i) -> Status {
    static const char kHex[] = "0123456789ABCDEF";
    result.clear();
    for (char c : args[0].Text(i)) {
      auto u = static_cast<unsigned char>(c);
      if (std::isalnum(u) || c == '.' || c == '-' || c == '*' || c == '_') {
        result.push_back(c);
      } else if (c == ' ') {
        result.push_back('+');
      } else {
        result.push_back('%');
        result.push_back(kHex[u >> 4]);
        result.push_back(kHex[u & 0xF]);
      }
    }
    return builder.Append(result);
  });
}

// Invalid UTF-8 replaced by U+FFFD, one per maximal invalid subpart (as Java's decoder does).
std::string MakeValidUtf8(std::string_view s, bool* was_valid = nullptr) {
  std::string out;
  bool valid = true;
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  for (size_t i = 0; i < s.size();) {
    unsigned char b = byte(i);
    if (b < 0x80) {
      out.push_back(static_cast<char>(b));
      ++i;
      continue;
    }
    size_t n = 0;
    unsigned char low = 0x80, high = 0xBF;  // the second byte's range
    if (b >= 0xC2 && b <= 0xDF) {
      n = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      n = 3;
      if (b == 0xE0) low = 0xA0;
      if (b == 0xED) high = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      n = 4;
      if (b == 0xF0) low = 0x90;
      if (b == 0xF4) high = 0x8F;
    }
    size_t k = i + 1;
    if (n > 0) {
      for (; k < i + n && k < s.size(); ++k) {
        unsigned char lo = k == i + 1 ? low : 0x80, hi = k == i + 1 ? high : 0xBF;
        if (byte(k) < lo || byte(k) > hi) break;
      }
    }
    if (n > 0 && k == i + n) {
      out.append(s.substr(i, n));
    } else {
      out.append("\xEF\xBF\xBD");
      valid = false;
    }
    i = k;
  }
  if (was_valid) *was_valid = valid;
  return out;
}

// url_decode(str): Java's URLDecoder with UTF-8: + is a space, %XX a byte; a % without two hex
// digits is CANNOT_DECODE_URL (try_url_decode: NULL).
template <bool kTry>
Status UrlDecodeExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  auto args = Args(batch);
  arrow::StringBuilder builder;
  std::string bytes;
  return EachRow(batch, out, &builder, args, [&](int64_t i) -> Status {
    std::string_view s = args[0].Text(i);
    bytes.clear();
    for (size_t k = 0; k < s.size();) {
      if (s[k] == '+') {
        bytes.push_back(' ');
        ++k;
      } else if (s[k] == '%') {
        if (k + 3 > s.size() || !std::isxdigit(static_cast<unsigned char>(s[k + 1])) ||
            !std::isxdigit(static_cast<unsigned char>(s[k + 2]))) {
          if (kTry) return builder.AppendNull();
          return UserError(ErrorKind::kIllegalArgument, "CANNOT_DECODE_URL",
                           "The provided URL cannot be decoded: " + std::string(s) +
                               ". Please ensure that the URL is properly formatted and try again.",
                           "22546");
        }
        auto hex = [&](char h) { return h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10; };
        bytes.push_back(static_cast<char>(hex(s[k + 1]) * 16 + hex(s[k + 2])));
        k += 3;
      } else {
        bytes.push_back(s[k]);
        ++k;
      }
    }
    return builder.Append(MakeValidUtf8(bytes));
  });
}

// --- UTF-8 checks ---------------------------------------------------------------------------------

enum class Utf8Check { kIsValid, kMakeValid, kValidate, kTryValidate };

template <Utf8Check kCheck>
Status Utf8Exec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  auto args = Args(batch);
  using Builder = std::conditional_t<kCheck == Utf8Check::kIsValid, arrow::BooleanBuilder,
                                     arrow::StringBuilder>;
  Builder builder;
  return EachRow(batch, out, &builder, args, [&](int64_t i) -> Status {
    std::string_view s = args[0].Text(i);
    bool valid = true;
    std::string fixed = MakeValidUtf8(s, &valid);
    if constexpr (kCheck == Utf8Check::kIsValid) {
      return builder.Append(valid);
    } else {
      if (kCheck == Utf8Check::kMakeValid || valid) return builder.Append(fixed);
      if (kCheck == Utf8Check::kTryValidate) return builder.AppendNull();
      std::string hex = "x'";
      static const char kHex[] = "0123456789ABCDEF";
      for (char c : s) {
        hex.push_back(kHex[static_cast<unsigned char>(c) >> 4]);
        hex.push_back(kHex[static_cast<unsigned char>(c) & 0xF]);
      }
      return UserError(ErrorKind::kIllegalArgument, "INVALID_UTF8_STRING",
                       "Invalid UTF8 byte sequence found in string: " + hex + "'.", "22029");
    }
  });
}

}  // namespace

arrow::Status RegisterStringKernels(arrow::compute::FunctionRegistry* registry) {
  auto text = cp::InputType(arrow::Type::STRING);
  auto bytes = cp::InputType(arrow::Type::BINARY);
  auto int32 = cp::InputType(arrow::Type::INT32);
  auto str = cp::OutputType(arrow::utf8());
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_left", cp::Arity::Binary(), {text, int32},
                                      str, SideExec<true>));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_right", cp::Arity::Binary(), {text, int32},
                                      str, SideExec<false>));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_btrim", cp::Arity::Binary(), {text, text},
                                      str, BtrimExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_luhn_check", cp::Arity::Unary(), {text},
                                      cp::OutputType(arrow::boolean()), LuhnExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_mask", cp::Arity(5, false),
                                      {text, text, text, text, text}, str, MaskExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_url_encode", cp::Arity::Unary(), {text},
                                      str, UrlEncodeExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_url_decode", cp::Arity::Unary(), {text},
                                      str, UrlDecodeExec<false>));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_try_url_decode", cp::Arity::Unary(),
                                      {text}, str, UrlDecodeExec<true>));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_is_valid_utf8", cp::Arity::Unary(),
                                      {bytes}, cp::OutputType(arrow::boolean()),
                                      Utf8Exec<Utf8Check::kIsValid>));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_make_valid_utf8", cp::Arity::Unary(),
                                      {bytes}, str, Utf8Exec<Utf8Check::kMakeValid>));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_validate_utf8", cp::Arity::Unary(), {bytes},
                                      str, Utf8Exec<Utf8Check::kValidate>));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_try_validate_utf8", cp::Arity::Unary(),
                                      {bytes}, str, Utf8Exec<Utf8Check::kTryValidate>));
  // elt(n, v...): the values' type (text or binary), given as the second argument.
  // A summary, as pyarrow.compute's import documents every function and needs one for varargs.
  auto elt = std::make_shared<cp::ScalarFunction>("ember_elt", cp::Arity::VarArgs(2),
                                                  cp::FunctionDoc("elt's value", "", {"args"}));
  auto second = [](cp::KernelContext*, const std::vector<arrow::TypeHolder>& types)
      -> Result<arrow::TypeHolder> { return types[1]; };
  cp::ScalarKernel kernel(cp::KernelSignature::Make({int32, cp::InputType::Any()},
                                                    cp::OutputType(second), /*is_varargs=*/true),
                          EltExec);
  kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
  kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
  ARROW_RETURN_NOT_OK(elt->AddKernel(std::move(kernel)));
  return registry->AddFunction(std::move(elt));
}

}  // namespace ember::exec
