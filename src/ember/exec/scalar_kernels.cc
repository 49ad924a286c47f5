// Row-by-row kernels of Spark's string, math and hash functions that arrow has no kernel for with
// Spark's semantics: padding that truncates, positions in characters, Java's soundex and
// Levenshtein, hex and base64 as Spark writes them, digests. Each is NULL where an argument is.

#include <openssl/evp.h>
#include <zlib.h>

#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <type_traits>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/compute/api.h>

#include "ember/common/java_number.h"
#include "ember/common/random.h"
#include "ember/common/spark_hash.h"
#include "ember/error.h"
#include "ember/exec/kernel_util.h"
#include "ember/exec/kernels.h"

namespace ember::exec {

namespace cp = arrow::compute;
using arrow::Result;
using arrow::Status;

namespace {

using Args = std::vector<std::shared_ptr<arrow::Array>>;

std::string_view Str(const Args& a, size_t k, int64_t i) {
  return static_cast<const arrow::BinaryArray&>(*a[k]).GetView(i);
}
int32_t I32(const Args& a, size_t k, int64_t i) {
  return static_cast<const arrow::Int32Array&>(*a[k]).Value(i);
}
int64_t I64(const Args& a, size_t k, int64_t i) {
  return static_cast<const arrow::Int64Array&>(*a[k]).Value(i);
}
double F64(const Args& a, size_t k, int64_t i) {
  return static_cast<const arrow::DoubleArray&>(*a[k]).Value(i);
}

// Calls `row(args, i, builder)` for each row where no argument is NULL, appends NULL elsewhere.
template <typename Builder, typename Row>
Status EachRow(const cp::ExecSpan& batch, cp::ExecResult* out,
               const std::shared_ptr<arrow::DataType>& type, Row row) {
  Args args;
  for (int k = 0; k < batch.num_values(); ++k) {
    ARROW_ASSIGN_OR_RAISE(auto array, ArgArray(batch, k));
    args.push_back(std::move(array));
  }
  std::unique_ptr<arrow::ArrayBuilder> base;
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), type, &base));
  auto& builder = static_cast<Builder&>(*base);
  ARROW_RETURN_NOT_OK(builder.Reserve(batch.length));
  for (int64_t i = 0; i < batch.length; ++i) {
    bool any_null = false;
    for (const auto& a : args) any_null = any_null || a->IsNull(i);
    if (any_null) {
      ARROW_RETURN_NOT_OK(builder.AppendNull());
    } else {
      ARROW_RETURN_NOT_OK(row(args, i, builder));
    }
  }
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder.Finish(&result));
  out->value = result->data();
  return Status::OK();
}

// --- UTF-8 characters, as Spark's UTF8String counts them ----------------------------------------

size_t CharBytes(unsigned char first) {
  if (first < 0x80) return 1;
  if ((first & 0xE0) == 0xC0) return 2;
  if ((first & 0xF0) == 0xE0) return 3;
  if ((first & 0xF8) == 0xF0) return 4;
  return 1;
}

// The characters of `s`, each as its bytes.
std::vector<std::string_view> Chars(std::string_view s) {
  std::vector<std::string_view> chars;
  for (size_t i = 0; i < s.size();) {
    size_t n = std::min(CharBytes(static_cast<unsigned char>(s[i])), s.size() - i);
    chars.push_back(s.substr(i, n));
    i += n;
  }
  return chars;
}

uint32_t CodePoint(std::string_view c) {
  auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(c[k])); };
  switch (c.size()) {
    case 1: return b(0);
    case 2: return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3: return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
  }
}

void AppendCodePoint(std::string* out, uint32_t cp) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string Join(const std::vector<std::string_view>& chars, size_t from, size_t to) {
  std::string out;
  for (size_t k = from; k < to && k < chars.size(); ++k) out += chars[k];
  return out;
}

// --- string kernels -----------------------------------------------------------------------------

// lpad/rpad(str, len, pad): exactly `len` characters, the string cut or padded with repeats of
// `pad`; an empty pad only cuts.
template <bool kLeft>
Status PadExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::StringBuilder>(batch, out, arrow::utf8(), [](const Args& a, int64_t i,
                                                                     arrow::StringBuilder& b) {
    auto chars = Chars(Str(a, 0, i));
    size_t len = static_cast<size_t>(std::max(I32(a, 1, i), 0));
    auto pad = Chars(Str(a, 2, i));
    if (chars.size() >= len || pad.empty()) return b.Append(Join(chars, 0, len));
    std::string fill;
    for (size_t k = 0; k < len - chars.size(); ++k) fill += pad[k % pad.size()];
    std::string s(Str(a, 0, i));
    return b.Append(kLeft ? fill + s : s + fill);
  });
}

// ascii(str): the code point of the first character, 0 for ''.
Status AsciiExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::Int32Builder>(batch, out, arrow::int32(), [](const Args& a, int64_t i,
                                                                     arrow::Int32Builder& b) {
    std::string_view s = Str(a, 0, i);
    if (s.empty()) return b.Append(0);
    return b.Append(static_cast<int32_t>(CodePoint(s.substr(0, CharBytes(s[0])))));
  });
}

// chr(n): the character of code point n mod 256; '' for a negative n.
Status ChrExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::StringBuilder>(batch, out, arrow::utf8(), [](const Args& a, int64_t i,
                                                                     arrow::StringBuilder& b) {
    int64_t n = I64(a, 0, i);
    if (n < 0) return b.Append("");
    std::string s;
    AppendCodePoint(&s, static_cast<uint32_t>(n & 0xFF));
    return b.Append(s);
  });
}

// locate(substr, str, start): the 1-based character position of substr in str from position
// start, 0 when absent or start < 1.
Status LocateExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::Int32Builder>(batch, out, arrow::int32(), [](const Args& a, int64_t i,
                                                                     arrow::Int32Builder& b) {
    std::string_view sub = Str(a, 0, i), s = Str(a, 1, i);
    int32_t start = I32(a, 2, i);
    if (start < 1) return b.Append(0);
    if (sub.empty()) return b.Append(1);
    auto chars = Chars(s);
    size_t from = 0;  // byte offset of character start - 1
    for (int32_t k = 0; k < start - 1; ++k) {
      if (static_cast<size_t>(k) >= chars.size()) return b.Append(0);
      from += chars[k].size();
    }
    size_t at = s.find(sub, from);
    if (at == std::string_view::npos) return b.Append(0);
    return b.Append(static_cast<int32_t>(Chars(s.substr(0, at)).size()) + 1);
  });
}

// initcap(lower(str)): the first character and each one after a space in title case.
Status InitcapExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::StringBuilder>(batch, out, arrow::utf8(), [](const Args& a, int64_t i,
                                                                     arrow::StringBuilder& b) {
    std::string result;
    bool start = true;
    for (std::string_view c : Chars(Str(a, 0, i))) {
      if (start && c == "\u00DF") {
        result += "Ss";  // Java's title case of sharp s
      } else if (start && c.size() == 1) {
        result.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c[0]))));
      } else if (start) {
        // Beyond ASCII: arrow's Unicode upper case of the one character.
        ARROW_ASSIGN_OR_RAISE(auto upper, cp::CallFunction("utf8_upper",
                                                           {arrow::MakeScalar(std::string(c))}));
        result += upper.scalar_as<arrow::StringScalar>().view();
      } else {
        result += c;
      }
      start = c == " ";
    }
    return b.Append(result);
  });
}

// translate(str, from, to): each character of `from` replaced by the one at its place in `to`,
// or removed when `to` is shorter; the first occurrence in `from` counts.
Status TranslateExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::StringBuilder>(batch, out, arrow::utf8(), [](const Args& a, int64_t i,
                                                                     arrow::StringBuilder& b) {
    auto from = Chars(Str(a, 1, i)), to = Chars(Str(a, 2, i));
    std::string result;
    for (std::string_view c : Chars(Str(a, 0, i))) {
      auto it = std::find(from.begin(), from.end(), c);
      if (it == from.end()) {
        result += c;
      } else if (static_cast<size_t>(it - from.begin()) < to.size()) {
        result += to[it - from.begin()];
      }
    }
    return b.Append(result);
  });
}

// levenshtein(a, b, threshold): the edit distance in characters; -1 past a threshold >= 0.
Status LevenshteinExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::Int32Builder>(batch, out, arrow::int32(), [](const Args& a, int64_t i,
                                                                     arrow::Int32Builder& b) {
    auto s = Chars(Str(a, 0, i)), t = Chars(Str(a, 1, i));
    int32_t threshold = I32(a, 2, i);
    std::vector<int32_t> prev(t.size() + 1), cur(t.size() + 1);
    for (size_t j = 0; j <= t.size(); ++j) prev[j] = static_cast<int32_t>(j);
    for (size_t k = 1; k <= s.size(); ++k) {
      cur[0] = static_cast<int32_t>(k);
      for (size_t j = 1; j <= t.size(); ++j) {
        int32_t cost = s[k - 1] == t[j - 1] ? 0 : 1;
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      }
      std::swap(prev, cur);
    }
    int32_t d = prev[t.size()];
    return b.Append(d > threshold ? -1 : d);
  });
}

// soundex(str): American Soundex of an ASCII-lettered string; other strings unchanged.
Status SoundexExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  // A..Z: '0' vowels and Y (they separate equal codes), '7' H and W (they do not).
  static constexpr std::string_view kCodes = "01230127022455012623017202";
  return EachRow<arrow::StringBuilder>(batch, out, arrow::utf8(), [](const Args& a, int64_t i,
                                                                     arrow::StringBuilder& b) {
    std::string_view s = Str(a, 0, i);
    if (s.empty()) return b.Append(s);
    char first = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
    if (first < 'A' || first > 'Z') return b.Append(s);
    std::string code = {first, '0', '0', '0'};
    size_t n = 1;
    char last = kCodes[first - 'A'];
    for (size_t k = 1; k < s.size() && n < 4; ++k) {
      char c = static_cast<char>(std::toupper(static_cast<unsigned char>(s[k])));
      if (c < 'A' || c > 'Z') {
        last = '0';
        continue;
      }
      char digit = kCodes[c - 'A'];
      if (digit == '7') continue;
      if (digit != '0' && digit != last) code[n++] = digit;
      last = digit;
    }
    return b.Append(code);
  });
}

// substring_index(str, delim, count): before the count-th delimiter from the left (count > 0)
// or after the count-th from the right (count < 0); the whole string with fewer delimiters.
Status SubstringIndexExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::StringBuilder>(batch, out, arrow::utf8(), [](const Args& a, int64_t i,
                                                                     arrow::StringBuilder& b) {
    std::string_view s = Str(a, 0, i), delim = Str(a, 1, i);
    int32_t count = I32(a, 2, i);
    if (count == 0 || delim.empty()) return b.Append("");
    if (count > 0) {
      size_t at = std::string_view::npos, from = 0;
      for (int32_t k = 0; k < count; ++k) {
        at = s.find(delim, from);
        if (at == std::string_view::npos) return b.Append(s);
        from = at + delim.size();
      }
      return b.Append(s.substr(0, at));
    }
    size_t end = s.size();
    size_t at = 0;
    for (int64_t k = 0; k < -static_cast<int64_t>(count); ++k) {
      if (end < delim.size()) return b.Append(s);
      at = s.rfind(delim, end - delim.size());
      if (at == std::string_view::npos) return b.Append(s);
      end = at;
    }
    return b.Append(s.substr(at + delim.size()));
  });
}

// split_part(str, delim, n): the n-th piece (negative: from the end), '' past either end; an
// empty delimiter makes the whole string the one piece.
Status SplitPartExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::StringBuilder>(batch, out, arrow::utf8(), [](const Args& a, int64_t i,
                                                                     arrow::StringBuilder& b)
                                                                     -> Status {
    std::string_view s = Str(a, 0, i), delim = Str(a, 1, i);
    int32_t n = I32(a, 2, i);
    if (n == 0) {
      return UserError(ErrorKind::kRuntime, "INVALID_INDEX_OF_ZERO",
                       "The index 0 is invalid. An index shall be either < 0 or > 0 (the first "
                       "element has index 1).",
                       "22003");
    }
    std::vector<std::string_view> pieces;
    if (delim.empty()) {
      pieces.push_back(s);
    } else {
      size_t from = 0;
      while (true) {
        size_t at = s.find(delim, from);
        pieces.push_back(s.substr(from, at == std::string_view::npos ? s.npos : at - from));
        if (at == std::string_view::npos) break;
        from = at + delim.size();
      }
    }
    int64_t index = n > 0 ? n - 1 : static_cast<int64_t>(pieces.size()) + n;
    if (index < 0 || index >= static_cast<int64_t>(pieces.size())) return b.Append("");
    return b.Append(pieces[index]);
  });
}

// find_in_set(str, list): the 1-based place of str among the comma-separated list, 0 when absent
// or when str has a comma.
Status FindInSetExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::Int32Builder>(batch, out, arrow::int32(), [](const Args& a, int64_t i,
                                                                     arrow::Int32Builder& b) {
    std::string_view s = Str(a, 0, i), list = Str(a, 1, i);
    if (s.find(',') != std::string_view::npos) return b.Append(0);
    int32_t place = 1;
    size_t from = 0;
    while (true) {
      size_t at = list.find(',', from);
      if (list.substr(from, at == list.npos ? list.npos : at - from) == s) return b.Append(place);
      if (at == std::string_view::npos) return b.Append(0);
      from = at + 1;
      ++place;
    }
  });
}

// overlay(input, replace, pos, len): input with `len` characters from `pos` (1-based) replaced.
Status OverlayExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::StringBuilder>(batch, out, arrow::utf8(), [](const Args& a, int64_t i,
                                                                     arrow::StringBuilder& b) {
    auto input = Chars(Str(a, 0, i));
    std::string_view replace = Str(a, 1, i);
    int64_t pos = I32(a, 2, i), len = I32(a, 3, i);
    if (len < 0) len = static_cast<int64_t>(Chars(replace).size());
    int64_t cut = std::max<int64_t>(pos - 1, 0);
    std::string result = Join(input, 0, static_cast<size_t>(cut));
    result += replace;
    int64_t rest = std::max<int64_t>(pos - 1 + len, 0);
    result += Join(input, static_cast<size_t>(rest), input.size());
    return b.Append(result);
  });
}

// replace(str, search, replacement): every occurrence, left to right; an empty search none.
Status ReplaceExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::StringBuilder>(batch, out, arrow::utf8(), [](const Args& a, int64_t i,
                                                                     arrow::StringBuilder& b) {
    std::string_view s = Str(a, 0, i), search = Str(a, 1, i), with = Str(a, 2, i);
    if (search.empty()) return b.Append(s);
    std::string result;
    size_t from = 0;
    for (size_t at; (at = s.find(search, from)) != std::string_view::npos;) {
      result.append(s.substr(from, at - from)).append(with);
      from = at + search.size();
    }
    result.append(s.substr(from));
    return b.Append(result);
  });
}

// --- hex, binary and base64 text ----------------------------------------------------------------

constexpr char kHexDigits[] = "0123456789ABCDEF";

// hex(n): two's complement digits without leading zeros (Java's Long.toHexString), upper case.
Status HexIntExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::StringBuilder>(batch, out, arrow::utf8(), [](const Args& a, int64_t i,
                                                                     arrow::StringBuilder& b) {
    auto v = static_cast<uint64_t>(I64(a, 0, i));
    std::string s;
    do {
      s.insert(s.begin(), kHexDigits[v & 0xF]);
      v >>= 4;
    } while (v != 0);
    return b.Append(s);
  });
}

// hex(bytes): two upper-case digits per byte.
Status HexBytesExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::StringBuilder>(batch, out, arrow::utf8(), [](const Args& a, int64_t i,
                                                                     arrow::StringBuilder& b) {
    std::string s;
    for (unsigned char c : Str(a, 0, i)) {
      s.push_back(kHexDigits[c >> 4]);
      s.push_back(kHexDigits[c & 0xF]);
    }
    return b.Append(s);
  });
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// unhex(str): the bytes of hex digits (an odd count read with a leading 0); NULL for others.
Status UnhexExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::BinaryBuilder>(batch, out, arrow::binary(), [](const Args& a, int64_t i,
                                                                       arrow::BinaryBuilder& b) {
    std::string digits(Str(a, 0, i));
    if (digits.size() % 2 == 1) digits.insert(digits.begin(), '0');
    std::string bytes;
    for (size_t k = 0; k < digits.size(); k += 2) {
      int hi = HexValue(digits[k]), lo = HexValue(digits[k + 1]);
      if (hi < 0 || lo < 0) return b.AppendNull();
      bytes.push_back(static_cast<char>(hi * 16 + lo));
    }
    return b.Append(bytes);
  });
}

// bin(n): two's complement binary digits without leading zeros (Java's Long.toBinaryString).
Status BinExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::StringBuilder>(batch, out, arrow::utf8(), [](const Args& a, int64_t i,
                                                                     arrow::StringBuilder& b) {
    auto v = static_cast<uint64_t>(I64(a, 0, i));
    std::string s;
    do {
      s.insert(s.begin(), static_cast<char>('0' + (v & 1)));
      v >>= 1;
    } while (v != 0);
    return b.Append(s);
  });
}

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// base64(bytes): MIME base64 as Spark writes it, lines of 76 characters joined by CRLF.
Status Base64Exec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::StringBuilder>(batch, out, arrow::utf8(), [](const Args& a, int64_t i,
                                                                     arrow::StringBuilder& b) {
    std::string_view in = Str(a, 0, i);
    std::string s;
    for (size_t k = 0; k < in.size(); k += 3) {
      uint32_t n = static_cast<unsigned char>(in[k]) << 16;
      if (k + 1 < in.size()) n |= static_cast<unsigned char>(in[k + 1]) << 8;
      if (k + 2 < in.size()) n |= static_cast<unsigned char>(in[k + 2]);
      if (k > 0 && k % 57 == 0) s += "\r\n";
      s.push_back(kBase64[(n >> 18) & 63]);
      s.push_back(kBase64[(n >> 12) & 63]);
      s.push_back(k + 1 < in.size() ? kBase64[(n >> 6) & 63] : '=');
      s.push_back(k + 2 < in.size() ? kBase64[n & 63] : '=');
    }
    return b.Append(s);
  });
}

// unbase64(str): MIME base64 read leniently, as Java's MIME decoder reads it: characters outside
// the alphabet are skipped, and decoding stops at '='.
Status Unbase64Exec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::BinaryBuilder>(batch, out, arrow::binary(), [](const Args& a, int64_t i,
                                                                       arrow::BinaryBuilder& b) {
    std::string bytes;
    uint32_t bits = 0;
    int count = 0;
    for (char c : Str(a, 0, i)) {
      if (c == '=') break;
      const char* at = std::strchr(kBase64, c);
      if (c == '\0' || at == nullptr) continue;
      bits = (bits << 6) | static_cast<uint32_t>(at - kBase64);
      count += 6;
      if (count >= 8) {
        count -= 8;
        bytes.push_back(static_cast<char>((bits >> count) & 0xFF));
      }
    }
    return b.Append(bytes);
  });
}

// --- digests ------------------------------------------------------------------------------------

Result<std::string> Digest(const EVP_MD* md, std::string_view in) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest;
  unsigned int size = 0;
  if (EVP_Digest(in.data(), in.size(), digest.data(), &size, md, nullptr) != 1) {
    return Status::Invalid("message digest failed");
  }
  std::string s;
  constexpr char kLower[] = "0123456789abcdef";
  for (unsigned int k = 0; k < size; ++k) {
    s.push_back(kLower[digest[k] >> 4]);
    s.push_back(kLower[digest[k] & 0xF]);
  }
  return s;
}

template <const EVP_MD* (*kMd)()>
Status DigestExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::StringBuilder>(batch, out, arrow::utf8(), [](const Args& a, int64_t i,
                                                                     arrow::StringBuilder& b) {
    ARROW_ASSIGN_OR_RAISE(auto s, Digest(kMd(), Str(a, 0, i)));
    return b.Append(s);
  });
}

// sha2(bytes, bits): SHA-224, 256 (also 0), 384 or 512; NULL for other lengths.
Status Sha2Exec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::StringBuilder>(batch, out, arrow::utf8(), [](const Args& a, int64_t i,
                                                                     arrow::StringBuilder& b) {
    const EVP_MD* md = nullptr;
    switch (I32(a, 1, i)) {
      case 224: md = EVP_sha224(); break;
      case 0: case 256: md = EVP_sha256(); break;
      case 384: md = EVP_sha384(); break;
      case 512: md = EVP_sha512(); break;
      default: return b.AppendNull();
    }
    ARROW_ASSIGN_OR_RAISE(auto s, Digest(md, Str(a, 0, i)));
    return b.Append(s);
  });
}

Status Crc32Exec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::Int64Builder>(batch, out, arrow::int64(), [](const Args& a, int64_t i,
                                                                     arrow::Int64Builder& b) {
    std::string_view s = Str(a, 0, i);
    uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(s.data()), static_cast<uInt>(s.size()));
    return b.Append(static_cast<int64_t>(crc));
  });
}

// --- math ---------------------------------------------------------------------------------------

Status CbrtExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::DoubleBuilder>(batch, out, arrow::float64(), [](const Args& a, int64_t i,
                                                                        arrow::DoubleBuilder& b) {
    return b.Append(std::cbrt(F64(a, 0, i)));
  });
}

Status HypotExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::DoubleBuilder>(batch, out, arrow::float64(), [](const Args& a, int64_t i,
                                                                        arrow::DoubleBuilder& b) {
    return b.Append(std::hypot(F64(a, 0, i), F64(a, 1, i)));
  });
}

// a % b of doubles as Java computes it (C's fmod); ANSI mode's error for b = 0.
Status FmodExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::DoubleBuilder>(batch, out, arrow::float64(), [](const Args& a, int64_t i,
                                                                        arrow::DoubleBuilder& b)
                                                                        -> Status {
    if (F64(a, 1, i) == 0) {
      return UserError(ErrorKind::kArithmetic, "DIVIDE_BY_ZERO",
                       "Division by zero. Use `try_divide` to tolerate divisor being 0 and "
                       "return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to "
                       "\"false\" to bypass this error.",
                       "22012");
    }
    return b.Append(std::fmod(F64(a, 0, i), F64(a, 1, i)));
  });
}

// NULL for NaN: skewness and kurtosis of values without spread.
Status NanToNullExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::DoubleBuilder>(batch, out, arrow::float64(), [](const Args& a, int64_t i,
                                                                        arrow::DoubleBuilder& b) {
    double v = F64(a, 0, i);
    return std::isnan(v) ? b.AppendNull() : b.Append(v);
  });
}

// factorial(n): n! for 0 <= n <= 20, NULL otherwise.
Status FactorialExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::Int64Builder>(batch, out, arrow::int64(), [](const Args& a, int64_t i,
                                                                     arrow::Int64Builder& b) {
    int32_t n = I32(a, 0, i);
    if (n < 0 || n > 20) return b.AppendNull();
    int64_t f = 1;
    for (int32_t k = 2; k <= n; ++k) f *= k;
    return b.Append(f);
  });
}

// --- casts --------------------------------------------------------------------------------------

// CAST(number AS DOUBLE/FLOAT text): Java's Double.toString / Float.toString.
Status NumberTextExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  return EachRow<arrow::StringBuilder>(batch, out, arrow::utf8(), [](const Args& a, int64_t i,
                                                                     arrow::StringBuilder& b) {
    if (a[0]->type_id() == arrow::Type::FLOAT) {
      return b.Append(JavaNumberText(static_cast<const arrow::FloatArray&>(*a[0]).Value(i)));
    }
    return b.Append(JavaNumberText(F64(a, 0, i)));
  });
}

// Spark's literal of a value in messages: 2147483647, 7L, 2.5D, 1.5F, 3S, 1Y.
std::string SqlValue(const arrow::Array& values, int64_t i) {
  switch (values.type_id()) {
    case arrow::Type::INT8: return std::to_string(static_cast<const arrow::Int8Array&>(values).Value(i)) + "Y";
    case arrow::Type::INT16: return std::to_string(static_cast<const arrow::Int16Array&>(values).Value(i)) + "S";
    case arrow::Type::INT32: return std::to_string(static_cast<const arrow::Int32Array&>(values).Value(i));
    case arrow::Type::INT64: return std::to_string(static_cast<const arrow::Int64Array&>(values).Value(i)) + "L";
    case arrow::Type::FLOAT: return JavaNumberText(static_cast<const arrow::FloatArray&>(values).Value(i)) + "F";
    case arrow::Type::DOUBLE: return JavaNumberText(static_cast<const arrow::DoubleArray&>(values).Value(i)) + "D";
    default: {
      auto scalar = values.GetScalar(i);
      return scalar.ok() ? (*scalar)->ToString() : "?";
    }
  }
}

std::string SqlTypeName(const arrow::DataType& t) {
  switch (t.id()) {
    case arrow::Type::INT8: return "TINYINT";
    case arrow::Type::INT16: return "SMALLINT";
    case arrow::Type::INT32: return "INT";
    case arrow::Type::INT64: return "BIGINT";
    case arrow::Type::FLOAT: return "FLOAT";
    case arrow::Type::DOUBLE: return "DOUBLE";
    default: return t.ToString();
  }
}

// The range of an integral type, as doubles: [lo, hi) holds every value that truncates into it.
std::pair<double, double> IntegralRange(const arrow::DataType& t) {
  switch (t.id()) {
    case arrow::Type::INT8: return {-128.0, 128.0};
    case arrow::Type::INT16: return {-32768.0, 32768.0};
    case arrow::Type::INT32: return {-2147483648.0, 2147483648.0};
    default: return {-9223372036854775808.0, 9223372036854775808.0};
  }
}

// ember_cast_integral(x, target, try): x (a number or a decimal) cast to the integral type of
// `target` (a NULL of that type), truncating toward zero; a value outside the type (NaN too) is
// CAST_OVERFLOW, or NULL when `try` is true.
Status CastIntegralExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto values, ArgArray(batch, 0));
  auto target = batch[1].type()->GetSharedPtr();
  ARROW_ASSIGN_OR_RAISE(auto try_flag, ArgArray(batch, 2));
  bool try_cast = try_flag->length() > 0 &&
                  static_cast<const arrow::BooleanArray&>(*try_flag).Value(0);
  auto [lo, hi] = IntegralRange(*target);
  ARROW_ASSIGN_OR_RAISE(auto as_double, cp::Cast(values, arrow::float64(),
                                                 cp::CastOptions::Unsafe(arrow::float64())));
  auto doubles = as_double.make_array();
  const auto& d = static_cast<const arrow::DoubleArray&>(*doubles);
  arrow::BooleanBuilder outside;
  bool any_outside = false;
  for (int64_t i = 0; i < values->length(); ++i) {
    bool bad = false;
    if (values->IsValid(i)) {
      double v = std::trunc(d.Value(i));
      // Doubles of 64-bit integers are rounded: compare bigints exactly.
      bool exact = values->type_id() == arrow::Type::INT64 && target->id() != arrow::Type::INT64;
      if (values->type_id() == arrow::Type::DECIMAL128) {
        // Decimals compare exactly, their fraction cut off.
        int32_t scale = static_cast<const arrow::Decimal128Type&>(*values->type()).scale();
        auto whole = arrow::Decimal128(
            static_cast<const arrow::Decimal128Array&>(*values).GetValue(i)).ReduceScaleBy(scale,
                                                                                    false);
        int64_t max = hi >= 9223372036854775808.0 ? std::numeric_limits<int64_t>::max()
                                                  : static_cast<int64_t>(hi) - 1;
        bad = whole < arrow::Decimal128(static_cast<int64_t>(lo)) || whole > arrow::Decimal128(max);
      } else if (exact) {
        int64_t x = static_cast<const arrow::Int64Array&>(*values).Value(i);
        bad = x < static_cast<int64_t>(lo) || x >= static_cast<int64_t>(hi);
      } else {
        bad = std::isnan(v) || v < lo || v >= hi;
      }
    }
    if (bad && !try_cast) {
      return UserError(ErrorKind::kArithmetic, "CAST_OVERFLOW",
                       "The value " + SqlValue(*values, i) + " of the type \"" +
                           SqlTypeName(*values->type()) + "\" cannot be cast to \"" +
                           SqlTypeName(*target) +
                           "\" due to an overflow. Use `try_cast` to tolerate overflow and "
                           "return NULL instead. If necessary set \"spark.sql.ansi.enabled\" "
                           "to \"false\" to bypass this error.",
                       "22003");
    }
    any_outside = any_outside || bad;
    ARROW_RETURN_NOT_OK(outside.Append(bad));
  }
  auto options = cp::CastOptions::Unsafe(target);
  ARROW_ASSIGN_OR_RAISE(auto cast, cp::Cast(values, options));
  if (any_outside) {
    std::shared_ptr<arrow::Array> mask;
    ARROW_RETURN_NOT_OK(outside.Finish(&mask));
    ARROW_ASSIGN_OR_RAISE(cast, cp::IfElse(mask, arrow::MakeNullScalar(target), cast));
  }
  out->value = cast.array();
  return Status::OK();
}

Result<arrow::TypeHolder> SecondArgType(cp::KernelContext*,
                                        const std::vector<arrow::TypeHolder>& args) {
  return args[1];
}

cp::InputType T(arrow::Type::type id) { return cp::InputType(id); }

std::shared_ptr<arrow::DataType> TypeOf(arrow::Type::type id) {
  switch (id) {
    case arrow::Type::INT8: return arrow::int8();
    case arrow::Type::INT16: return arrow::int16();
    case arrow::Type::INT32: return arrow::int32();
    case arrow::Type::INT64: return arrow::int64();
    case arrow::Type::FLOAT: return arrow::float32();
    default: return arrow::float64();
  }
}

}  // namespace

// ember_try_arithmetic(a, b, op): try_add, try_subtract, try_multiply, try_divide, try_mod of
// two numbers of one integral or floating type (op 0 to 4): NULL where Spark's ANSI arithmetic
// fails (integer overflow, division by zero), else the ANSI result (Java's remainder).
template <typename T>
std::optional<T> TryArithmetic(T a, T b, int op) {
  if constexpr (std::is_integral_v<T>) {
    T r;
    switch (op) {
      case 0: if (__builtin_add_overflow(a, b, &r)) return std::nullopt; return r;
      case 1: if (__builtin_sub_overflow(a, b, &r)) return std::nullopt; return r;
      case 2: if (__builtin_mul_overflow(a, b, &r)) return std::nullopt; return r;
      default:
        if (b == 0) return std::nullopt;
        if (b == -1) return op == 3 ? TryArithmetic<T>(0, a, 1) : std::optional<T>(0);
        return op == 3 ? static_cast<T>(a / b) : static_cast<T>(a % b);
    }
  } else {
    switch (op) {
      case 0: return a + b;
      case 1: return a - b;
      case 2: return a * b;
      case 3: if (b == 0) return std::nullopt; return a / b;
      default: if (b == 0) return std::nullopt; return std::fmod(a, b);
    }
  }
}

template <typename ArrowType>
Status TryArithmeticOf(const arrow::Array& left, const arrow::Array& right, int op,
                       std::shared_ptr<arrow::Array>* out) {
  using ArrayType = typename arrow::TypeTraits<ArrowType>::ArrayType;
  using CType = typename ArrowType::c_type;
  const auto& a = static_cast<const ArrayType&>(left);
  const auto& b = static_cast<const ArrayType&>(right);
  typename arrow::TypeTraits<ArrowType>::BuilderType builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(a.length()));
  for (int64_t i = 0; i < a.length(); ++i) {
    std::optional<CType> r;
    if (a.IsValid(i) && b.IsValid(i)) r = TryArithmetic<CType>(a.Value(i), b.Value(i), op);
    if (r) {
      builder.UnsafeAppend(*r);
    } else {
      builder.UnsafeAppendNull();
    }
  }
  return builder.Finish(out);
}

Status TryArithmeticExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto a, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto b, ArgArray(batch, 1));
  ARROW_ASSIGN_OR_RAISE(auto op_array, ArgArray(batch, 2));
  int op = op_array->length() ? static_cast<const arrow::Int32Array&>(*op_array).Value(0) : 0;
  std::shared_ptr<arrow::Array> result;
  switch (a->type_id()) {
    case arrow::Type::INT8: ARROW_RETURN_NOT_OK(TryArithmeticOf<arrow::Int8Type>(*a, *b, op, &result)); break;
    case arrow::Type::INT16: ARROW_RETURN_NOT_OK(TryArithmeticOf<arrow::Int16Type>(*a, *b, op, &result)); break;
    case arrow::Type::INT32: ARROW_RETURN_NOT_OK(TryArithmeticOf<arrow::Int32Type>(*a, *b, op, &result)); break;
    case arrow::Type::INT64: ARROW_RETURN_NOT_OK(TryArithmeticOf<arrow::Int64Type>(*a, *b, op, &result)); break;
    case arrow::Type::FLOAT: ARROW_RETURN_NOT_OK(TryArithmeticOf<arrow::FloatType>(*a, *b, op, &result)); break;
    case arrow::Type::DOUBLE: ARROW_RETURN_NOT_OK(TryArithmeticOf<arrow::DoubleType>(*a, *b, op, &result)); break;
    default: return Status::NotImplemented("try arithmetic of ", a->type()->ToString());
  }
  out->value = result->data();
  return Status::OK();
}

// --- dates and errors ----------------------------------------------------------------------------

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool LeapYear(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

Status FieldOutOfBounds(const std::string& field, int64_t value, const std::string& range) {
  return UserError(ErrorKind::kDateTime, "DATETIME_FIELD_OUT_OF_BOUNDS",
                   "Invalid value for " + field + " (valid values " + range + "): " +
                       std::to_string(value) +
                       ". If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass "
                       "this error.",
                   "22023");
}

// ember_make_date(year, month, day): Java's LocalDate.of, its range errors Spark's (ANSI).
Status MakeDateExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  std::vector<std::shared_ptr<arrow::Int32Array>> fields;
  for (int i = 0; i < 3; ++i) {
    ARROW_ASSIGN_OR_RAISE(auto field, ArgArray(batch, i));
    fields.push_back(std::static_pointer_cast<arrow::Int32Array>(field));
  }
  arrow::Date32Builder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(batch.length));
  for (int64_t i = 0; i < batch.length; ++i) {
    if (fields[0]->IsNull(i) || fields[1]->IsNull(i) || fields[2]->IsNull(i)) {
      builder.UnsafeAppendNull();
      continue;
    }
    int64_t y = fields[0]->Value(i), m = fields[1]->Value(i), d = fields[2]->Value(i);
    if (y < -999999999 || y > 999999999) return FieldOutOfBounds("Year", y, "-999999999 - 999999999");
    if (m < 1 || m > 12) return FieldOutOfBounds("MonthOfYear", m, "1 - 12");
    if (d < 1 || d > 31) return FieldOutOfBounds("DayOfMonth", d, "1 - 28/31");
    static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int64_t last = kDays[m - 1] + (m == 2 && LeapYear(y) ? 1 : 0);
    if (d > last) {
      static const char* kMonths[] = {"JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE",
                                      "JULY", "AUGUST", "SEPTEMBER", "OCTOBER", "NOVEMBER",
                                      "DECEMBER"};
      return UserError(ErrorKind::kDateTime, "DATETIME_FIELD_OUT_OF_BOUNDS",
                       "Invalid date '" + std::string(kMonths[m - 1]) + " " + std::to_string(d) +
                           "'. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to "
                           "bypass this error.",
                       "22023");
    }
    int64_t days = DaysFromCivil(y, m, d);
    if (days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max()) {
      return FieldOutOfBounds("Year", y, "within the DATE range");
    }
    builder.UnsafeAppend(static_cast<int32_t>(days));
  }
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder.Finish(&result));
  out->value = result->data();
  return Status::OK();
}

// ember_next_day(date, day name): the first later date on that day of the week; a name Spark
// does not know (SU, SUN, SUNDAY, ... in any case) is ILLEGAL_DAY_OF_WEEK.
Status NextDayExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto dates_array, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto names_array, ArgArray(batch, 1));
  const auto& dates = static_cast<const arrow::Date32Array&>(*dates_array);
  const auto& names = static_cast<const arrow::StringArray&>(*names_array);
  static const char* kDays[][3] = {{"MO", "MON", "MONDAY"},   {"TU", "TUE", "TUESDAY"},
                                   {"WE", "WED", "WEDNESDAY"}, {"TH", "THU", "THURSDAY"},
                                   {"FR", "FRI", "FRIDAY"},   {"SA", "SAT", "SATURDAY"},
                                   {"SU", "SUN", "SUNDAY"}};
  arrow::Date32Builder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(batch.length));
  for (int64_t i = 0; i < batch.length; ++i) {
    if (dates.IsNull(i) || names.IsNull(i)) {
      builder.UnsafeAppendNull();
      continue;
    }
    std::string name(names.GetView(i));
    for (auto& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    int wanted = -1;  // 0 Monday .. 6 Sunday
    for (int k = 0; k < 7 && wanted < 0; ++k) {
      for (const char* form : kDays[k]) {
        if (name == form) wanted = k;
      }
    }
    if (wanted < 0) {
      return UserError(ErrorKind::kRuntime, "ILLEGAL_DAY_OF_WEEK",
                       "Illegal input for day of week: " + std::string(names.GetView(i)) + ".",
                       "22009");
    }
    int64_t day = dates.Value(i);
    int64_t weekday = ((day % 7) + 7 + 3) % 7;  // 1970-01-01 was a Thursday (3)
    int64_t ahead = (wanted - weekday + 7) % 7;
    builder.UnsafeAppend(static_cast<int32_t>(day + (ahead == 0 ? 7 : ahead)));
  }
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder.Finish(&result));
  out->value = result->data();
  return Status::OK();
}

// ember_assert_true(condition, message): NULLs, or USER_RAISED_EXCEPTION with the message
// where the condition is false or NULL.
Status AssertTrueExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto conditions_array, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto messages_array, ArgArray(batch, 1));
  const auto& conditions = static_cast<const arrow::BooleanArray&>(*conditions_array);
  const auto& messages = static_cast<const arrow::StringArray&>(*messages_array);
  for (int64_t i = 0; i < batch.length; ++i) {
    if (conditions.IsNull(i) || !conditions.Value(i)) {
      return UserError(ErrorKind::kRuntime, "USER_RAISED_EXCEPTION",
                       messages.IsNull(i) ? "null" : std::string(messages.GetView(i)), "P0001");
    }
  }
  out->value = std::make_shared<arrow::NullArray>(batch.length)->data();
  return Status::OK();
}

// ember_raise_error(message): USER_RAISED_EXCEPTION for any row.
Status RaiseErrorExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto messages_array, ArgArray(batch, 0));
  const auto& messages = static_cast<const arrow::StringArray&>(*messages_array);
  if (batch.length > 0) {
    return UserError(ErrorKind::kRuntime, "USER_RAISED_EXCEPTION",
                     messages.IsNull(0) ? "null" : std::string(messages.GetView(0)), "P0001");
  }
  out->value = std::make_shared<arrow::NullArray>(0)->data();
  return Status::OK();
}

// ember_bit_count(x): the one bits of an integer's two's complement (Java's Long.bitCount of
// the value widened to a long) or of a boolean.
Status BitCountExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto values_array, ArgArray(batch, 0));
  const auto& values = static_cast<const arrow::Int64Array&>(*values_array);
  arrow::Int32Builder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(batch.length));
  for (int64_t i = 0; i < batch.length; ++i) {
    if (values.IsNull(i)) {
      builder.UnsafeAppendNull();
    } else {
      builder.UnsafeAppend(__builtin_popcountll(static_cast<uint64_t>(values.Value(i))));
    }
  }
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder.Finish(&result));
  out->value = result->data();
  return Status::OK();
}

// --- random values --------------------------------------------------------------------------

// A generator per call site: seeded once, by the seed argument's first value (rand(seed)) or at
// random, it goes on from batch to batch.
struct RandomState : cp::KernelState {
  std::optional<std::mt19937_64> engine;
};

Result<std::unique_ptr<cp::KernelState>> RandomInit(cp::KernelContext*, const cp::KernelInitArgs&) {
  return std::make_unique<RandomState>();
}

std::mt19937_64& Engine(cp::KernelContext* ctx, const cp::ExecSpan& batch) {
  auto& state = *static_cast<RandomState*>(ctx->state());
  if (!state.engine) {
    uint64_t seed = RandomBits();
    if (batch.num_values() > 0) {
      const auto& arg = batch[0];
      if (arg.is_scalar() && arg.scalar->is_valid) {
        seed = static_cast<uint64_t>(arg.scalar_as<arrow::Int64Scalar>().value);
      } else if (arg.is_array() && arg.array.length > 0 && arg.array.IsValid(0)) {
        seed = static_cast<uint64_t>(arg.array.GetValues<int64_t>(1)[0]);
      } else {
        seed = 0;  // rand(NULL) is rand(0)
      }
    }
    state.engine.emplace(seed);
  }
  return *state.engine;
}

// ember_rand(seed), ember_randn(seed): uniform in [0, 1), standard normal.
template <bool kNormal>
Status RandomExec(cp::KernelContext* ctx, const cp::ExecSpan& batch, cp::ExecResult* out) {
  auto& engine = Engine(ctx, batch);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  arrow::DoubleBuilder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(batch.length));
  for (int64_t i = 0; i < batch.length; ++i) {
    builder.UnsafeAppend(kNormal ? normal(engine) : uniform(engine));
  }
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder.Finish(&result));
  out->value = result->data();
  return Status::OK();
}

// ember_uuid(): a random (version 4) UUID per row.
Status UuidExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  arrow::StringBuilder builder;
  for (int64_t i = 0; i < batch.length; ++i) ARROW_RETURN_NOT_OK(builder.Append(NewUuid()));
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder.Finish(&result));
  out->value = result->data();
  return Status::OK();
}

// ember_width_bucket(v, min, max, n): the bucket of v among n equal ones between min and max
// (0 below, n + 1 above; either order of the bounds); NULL for no bucket (Spark's rules).
Status WidthBucketExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  std::vector<std::shared_ptr<arrow::Array>> args;
  for (int i = 0; i < 4; ++i) {
    ARROW_ASSIGN_OR_RAISE(auto arg, ArgArray(batch, i));
    args.push_back(std::move(arg));
  }
  const auto& v = static_cast<const arrow::DoubleArray&>(*args[0]);
  const auto& lo = static_cast<const arrow::DoubleArray&>(*args[1]);
  const auto& hi = static_cast<const arrow::DoubleArray&>(*args[2]);
  const auto& n = static_cast<const arrow::Int64Array&>(*args[3]);
  arrow::Int64Builder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(batch.length));
  for (int64_t i = 0; i < batch.length; ++i) {
    if (v.IsNull(i) || lo.IsNull(i) || hi.IsNull(i) || n.IsNull(i)) {
      builder.UnsafeAppendNull();
      continue;
    }
    double x = v.Value(i), a = lo.Value(i), b = hi.Value(i);
    int64_t buckets = n.Value(i);
    if (buckets <= 0 || buckets == std::numeric_limits<int64_t>::max() || std::isnan(x) ||
        a == b || !std::isfinite(a) || !std::isfinite(b)) {
      builder.UnsafeAppendNull();
      continue;
    }
    int64_t bucket;
    if (a < b) {
      bucket = x < a ? 0 : x >= b ? buckets + 1
                                  : static_cast<int64_t>(std::floor((x - a) / (b - a) * buckets)) + 1;
    } else {
      bucket = x > a ? 0 : x <= b ? buckets + 1
                                  : static_cast<int64_t>(std::floor((a - x) / (a - b) * buckets)) + 1;
    }
    builder.UnsafeAppend(bucket);
  }
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder.Finish(&result));
  out->value = result->data();
  return Status::OK();
}

// ember_bit_get(x, pos, bits): bit pos of x (a BIGINT widened from a type of `bits` bits);
// a position outside the type is INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE.
Status BitGetExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto values_array, ArgArray(batch, 0));
  ARROW_ASSIGN_OR_RAISE(auto positions_array, ArgArray(batch, 1));
  ARROW_ASSIGN_OR_RAISE(auto bits_array, ArgArray(batch, 2));
  const auto& values = static_cast<const arrow::Int64Array&>(*values_array);
  const auto& positions = static_cast<const arrow::Int32Array&>(*positions_array);
  const auto& bits = static_cast<const arrow::Int32Array&>(*bits_array);
  arrow::Int8Builder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(batch.length));
  for (int64_t i = 0; i < batch.length; ++i) {
    if (values.IsNull(i) || positions.IsNull(i)) {
      builder.UnsafeAppendNull();
      continue;
    }
    int32_t pos = positions.Value(i), size = bits.Value(i);
    if (pos < 0 || pos >= size) {
      return UserError(ErrorKind::kRuntime, "INVALID_PARAMETER_VALUE.BIT_POSITION_RANGE",
                       "The value of parameter(s) `pos` in `bit_get` is invalid: expects an "
                       "integer value in [0, " + std::to_string(size) + "), but got " +
                           std::to_string(pos) + ".",
                       "22023");
    }
    builder.UnsafeAppend(static_cast<int8_t>((static_cast<uint64_t>(values.Value(i)) >> pos) & 1));
  }
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder.Finish(&result));
  out->value = result->data();
  return Status::OK();
}

// ember_make_timestamp(year, month, day, hour, minute, seconds in microseconds, try): the
// wall-clock time as a zone-less timestamp; Spark's field errors (NULL for try_). Sixty seconds
// are the next minute only without a fraction.
Status MakeTimestampExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  std::vector<std::shared_ptr<arrow::Array>> args;
  for (int i = 0; i < 7; ++i) {
    ARROW_ASSIGN_OR_RAISE(auto arg, ArgArray(batch, i));
    args.push_back(std::move(arg));
  }
  auto field = [&](int k, int64_t i) { return static_cast<const arrow::Int32Array&>(*args[k]).Value(i); };
  const auto& micros = static_cast<const arrow::Int64Array&>(*args[5]);
  const bool try_make = static_cast<const arrow::BooleanArray&>(*args[6]).Value(0);
  arrow::TimestampBuilder builder(arrow::timestamp(arrow::TimeUnit::MICRO), arrow::default_memory_pool());
  ARROW_RETURN_NOT_OK(builder.Reserve(batch.length));
  for (int64_t i = 0; i < batch.length; ++i) {
    bool null = false;
    for (int k = 0; k < 6; ++k) null = null || args[k]->IsNull(i);
    if (null) {
      builder.UnsafeAppendNull();
      continue;
    }
    int64_t y = field(0, i), mo = field(1, i), d = field(2, i), h = field(3, i), mi = field(4, i);
    int64_t us = micros.Value(i);
    Status bad;
    static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (mo < 1 || mo > 12) {
      bad = FieldOutOfBounds("MonthOfYear", mo, "1 - 12");
    } else if (d < 1 || d > kDays[mo - 1] + (mo == 2 && LeapYear(y) ? 1 : 0)) {
      bad = FieldOutOfBounds("DayOfMonth", d, "1 - 28/31");
    } else if (h < 0 || h > 23) {
      bad = FieldOutOfBounds("HourOfDay", h, "0 - 23");
    } else if (mi < 0 || mi > 59) {
      bad = FieldOutOfBounds("MinuteOfHour", mi, "0 - 59");
    } else if (us > 60000000 && us < 61000000) {
      bad = UserError(ErrorKind::kDateTime, "INVALID_FRACTION_OF_SECOND",
                      "Valid range for seconds is [0, 60] (inclusive), but the provided value is " +
                          std::to_string(us / 1000000) + "." + std::to_string(us % 1000000) +
                          ". To avoid this error, use `try_make_timestamp`, which returns NULL on "
                          "error.",
                      "22023");
    } else if (us < 0 || us > 60000000) {
      bad = FieldOutOfBounds("SecondOfMinute", us / 1000000, "0 - 59");
    } else if (y < -290307 || y > 294246) {
      bad = FieldOutOfBounds("Year", y, "within the TIMESTAMP range");
    }
    if (!bad.ok()) {
      if (!try_make) return bad;
      builder.UnsafeAppendNull();
      continue;
    }
    int64_t seconds = ((DaysFromCivil(y, mo, d) * 24 + h) * 60 + mi) * 60;
    builder.UnsafeAppend(seconds * 1000000 + us);
  }
  std::shared_ptr<arrow::Array> result;
  ARROW_RETURN_NOT_OK(builder.Finish(&result));
  out->value = result->data();
  return Status::OK();
}

// ember_xxhash64(s), ember_hash(s): Spark's xxhash64(a, ...) and hash(a, ...) of the struct s
// of the arguments, whose fields are chained each through the next as its seed, as Spark chains
// a call's arguments (common/spark_hash.h).
template <bool kXxHash64>
Status SparkHashExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto values, ArgArray(batch, 0));
  std::shared_ptr<arrow::Array> result;
  if constexpr (kXxHash64) {
    ARROW_ASSIGN_OR_RAISE(auto hashes, SparkXxHash64(*values));
    arrow::Int64Builder builder;
    ARROW_RETURN_NOT_OK(builder.Reserve(values->length()));
    for (uint64_t h : hashes) builder.UnsafeAppend(static_cast<int64_t>(h));
    ARROW_RETURN_NOT_OK(builder.Finish(&result));
  } else {
    ARROW_ASSIGN_OR_RAISE(auto hashes, SparkMurmur3Hash(*values));
    arrow::Int32Builder builder;
    ARROW_RETURN_NOT_OK(builder.AppendValues(hashes));
    ARROW_RETURN_NOT_OK(builder.Finish(&result));
  }
  out->value = result->data();
  return Status::OK();
}

Status RegisterScalarKernels(cp::FunctionRegistry* registry) {
  using arrow::Type;
  struct Spec {
    const char* name;
    std::vector<cp::InputType> inputs;
    std::shared_ptr<arrow::DataType> output;
    cp::ArrayKernelExec exec;
  };
  const std::vector<Spec> specs = {
      {"ember_lpad", {T(Type::STRING), T(Type::INT32), T(Type::STRING)}, arrow::utf8(), PadExec<true>},
      {"ember_rpad", {T(Type::STRING), T(Type::INT32), T(Type::STRING)}, arrow::utf8(), PadExec<false>},
      {"ember_ascii", {T(Type::STRING)}, arrow::int32(), AsciiExec},
      {"ember_chr", {T(Type::INT64)}, arrow::utf8(), ChrExec},
      {"ember_locate", {T(Type::STRING), T(Type::STRING), T(Type::INT32)}, arrow::int32(), LocateExec},
      {"ember_initcap", {T(Type::STRING)}, arrow::utf8(), InitcapExec},
      {"ember_translate", {T(Type::STRING), T(Type::STRING), T(Type::STRING)}, arrow::utf8(),
       TranslateExec},
      {"ember_levenshtein", {T(Type::STRING), T(Type::STRING), T(Type::INT32)}, arrow::int32(),
       LevenshteinExec},
      {"ember_soundex", {T(Type::STRING)}, arrow::utf8(), SoundexExec},
      {"ember_substring_index", {T(Type::STRING), T(Type::STRING), T(Type::INT32)}, arrow::utf8(),
       SubstringIndexExec},
      {"ember_split_part", {T(Type::STRING), T(Type::STRING), T(Type::INT32)}, arrow::utf8(),
       SplitPartExec},
      {"ember_find_in_set", {T(Type::STRING), T(Type::STRING)}, arrow::int32(), FindInSetExec},
      {"ember_overlay", {T(Type::STRING), T(Type::STRING), T(Type::INT32), T(Type::INT32)},
       arrow::utf8(), OverlayExec},
      {"ember_replace", {T(Type::STRING), T(Type::STRING), T(Type::STRING)}, arrow::utf8(),
       ReplaceExec},
      {"ember_hex_int", {T(Type::INT64)}, arrow::utf8(), HexIntExec},
      {"ember_hex_bytes", {T(Type::BINARY)}, arrow::utf8(), HexBytesExec},
      {"ember_unhex", {T(Type::STRING)}, arrow::binary(), UnhexExec},
      {"ember_bin", {T(Type::INT64)}, arrow::utf8(), BinExec},
      {"ember_base64", {T(Type::BINARY)}, arrow::utf8(), Base64Exec},
      {"ember_unbase64", {T(Type::STRING)}, arrow::binary(), Unbase64Exec},
      {"ember_md5", {T(Type::BINARY)}, arrow::utf8(), DigestExec<EVP_md5>},
      {"ember_sha1", {T(Type::BINARY)}, arrow::utf8(), DigestExec<EVP_sha1>},
      {"ember_sha2", {T(Type::BINARY), T(Type::INT32)}, arrow::utf8(), Sha2Exec},
      {"ember_crc32", {T(Type::BINARY)}, arrow::int64(), Crc32Exec},
      {"ember_cbrt", {T(Type::DOUBLE)}, arrow::float64(), CbrtExec},
      {"ember_hypot", {T(Type::DOUBLE), T(Type::DOUBLE)}, arrow::float64(), HypotExec},
      {"ember_factorial", {T(Type::INT32)}, arrow::int64(), FactorialExec},
      {"ember_nan_to_null", {T(Type::DOUBLE)}, arrow::float64(), NanToNullExec},
      {"ember_fmod", {T(Type::DOUBLE), T(Type::DOUBLE)}, arrow::float64(), FmodExec},
  };
  for (const auto& spec : specs) {
    auto arity = cp::Arity(static_cast<int>(spec.inputs.size()));
    ARROW_RETURN_NOT_OK(AddScalarKernel(registry, spec.name, arity, spec.inputs,
                                        cp::OutputType(spec.output), spec.exec));
  }
  for (auto id : {Type::FLOAT, Type::DOUBLE}) {
    ARROW_RETURN_NOT_OK(AddScalarKernel(registry, std::string("ember_number_text_") +
                                                      (id == Type::FLOAT ? "float" : "double"),
                                        cp::Arity::Unary(), {T(id)}, cp::OutputType(arrow::utf8()),
                                        NumberTextExec));
  }
  auto try_arithmetic = std::make_shared<cp::ScalarFunction>(
      "ember_try_arithmetic", cp::Arity::Ternary(), cp::FunctionDoc::Empty());
  for (auto id : {Type::INT8, Type::INT16, Type::INT32, Type::INT64, Type::FLOAT, Type::DOUBLE}) {
    cp::ScalarKernel kernel({T(id), T(id), T(Type::INT32)}, cp::OutputType(TypeOf(id)),
                            TryArithmeticExec);
    kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
    kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
    ARROW_RETURN_NOT_OK(try_arithmetic->AddKernel(std::move(kernel)));
  }
  ARROW_RETURN_NOT_OK(registry->AddFunction(std::move(try_arithmetic)));
  // Not pure: a new value for every row and call.
  const std::vector<Spec> random = {
      {"ember_rand", {T(Type::INT64)}, arrow::float64(), RandomExec<false>},
      {"ember_randn", {T(Type::INT64)}, arrow::float64(), RandomExec<true>},
      {"ember_uuid", {}, arrow::utf8(), UuidExec}};
  for (const auto& spec : random) {
    auto fn = std::make_shared<cp::ScalarFunction>(
        spec.name, cp::Arity(static_cast<int>(spec.inputs.size())), cp::FunctionDoc::Empty(),
        nullptr, /*is_pure=*/false);
    cp::ScalarKernel kernel(spec.inputs, cp::OutputType(spec.output), spec.exec, RandomInit);
    kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
    kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
    ARROW_RETURN_NOT_OK(fn->AddKernel(std::move(kernel)));
    ARROW_RETURN_NOT_OK(registry->AddFunction(std::move(fn)));
  }
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_width_bucket", cp::Arity(4),
                                      {T(Type::DOUBLE), T(Type::DOUBLE), T(Type::DOUBLE),
                                       T(Type::INT64)},
                                      cp::OutputType(arrow::int64()), WidthBucketExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_bit_get", cp::Arity::Ternary(),
                                      {T(Type::INT64), T(Type::INT32), T(Type::INT32)},
                                      cp::OutputType(arrow::int8()), BitGetExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(
      registry, "ember_make_timestamp", cp::Arity(7),
      {T(Type::INT32), T(Type::INT32), T(Type::INT32), T(Type::INT32), T(Type::INT32),
       T(Type::INT64), T(Type::BOOL)},
      cp::OutputType(arrow::timestamp(arrow::TimeUnit::MICRO)), MakeTimestampExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_make_date", cp::Arity::Ternary(),
                                      {T(Type::INT32), T(Type::INT32), T(Type::INT32)},
                                      cp::OutputType(arrow::date32()), MakeDateExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_next_day", cp::Arity::Binary(),
                                      {T(Type::DATE32), T(Type::STRING)},
                                      cp::OutputType(arrow::date32()), NextDayExec));
  // Not pure: folded into a constant, they would fail a query that reaches no row.
  const std::vector<Spec> raising = {
      {"ember_assert_true", {T(Type::BOOL), T(Type::STRING)}, arrow::null(), AssertTrueExec},
      {"ember_raise_error", {T(Type::STRING)}, arrow::null(), RaiseErrorExec}};
  for (const auto& spec : raising) {
    auto fn = std::make_shared<cp::ScalarFunction>(
        spec.name, cp::Arity(static_cast<int>(spec.inputs.size())), cp::FunctionDoc::Empty(),
        nullptr, /*is_pure=*/false);
    cp::ScalarKernel kernel(spec.inputs, cp::OutputType(spec.output), spec.exec);
    kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
    kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
    ARROW_RETURN_NOT_OK(fn->AddKernel(std::move(kernel)));
    ARROW_RETURN_NOT_OK(registry->AddFunction(std::move(fn)));
  }
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_bit_count", cp::Arity::Unary(),
                                      {T(Type::INT64)}, cp::OutputType(arrow::int32()),
                                      BitCountExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_xxhash64", cp::Arity::Unary(),
                                      {T(Type::STRUCT)}, cp::OutputType(arrow::int64()),
                                      SparkHashExec<true>));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_hash", cp::Arity::Unary(),
                                      {T(Type::STRUCT)}, cp::OutputType(arrow::int32()),
                                      SparkHashExec<false>));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_cast_integral", cp::Arity::Ternary(),
                                      {cp::InputType::Any(), cp::InputType::Any(), T(Type::BOOL)},
                                      cp::OutputType(SecondArgType), CastIntegralExec));
  return Status::OK();
}

}  // namespace ember::exec
