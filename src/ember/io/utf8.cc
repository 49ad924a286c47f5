#include "ember/io/utf8.h"

#include <algorithm>
#include <cstdint>

#include <simdjson.h>

namespace ember::io {

namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

bool Continuation(uint8_t b) { return (b & 0xC0) == 0x80; }

void AppendCodePoint(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Java's chars (UTF-16 code units) written as UTF-8 by Java's encoder: a surrogate pair is its
// supplementary character, a surrogate alone '?'.
class Utf16ToUtf8 {
 public:
  explicit Utf16ToUtf8(std::string& out) : out_(out) {}
  ~Utf16ToUtf8() { Flush(); }

  void Put(uint32_t unit) {
    bool high = unit >= 0xD800 && unit <= 0xDBFF, low = unit >= 0xDC00 && unit <= 0xDFFF;
    if (pending_ != 0) {
      if (low) {
        AppendCodePoint(out_, 0x10000 + ((pending_ - 0xD800) << 10) + (unit - 0xDC00));
        pending_ = 0;
        return;
      }
      Flush();
    }
    if (high) {
      pending_ = unit;
    } else if (low) {
      out_ += '?';
    } else {
      AppendCodePoint(out_, unit);
    }
  }

  void Flush() {
    if (pending_ != 0) out_ += '?';
    pending_ = 0;
  }

 private:
  std::string& out_;
  uint32_t pending_ = 0;
};

}  // namespace

bool IsValidUtf8(std::string_view bytes) { return simdjson::validate_utf8(bytes.data(), bytes.size()); }

std::string ReplaceMalformedUtf8(std::string_view bytes) {
  // Java's String(byte[], UTF_8) decoding, sequence by sequence.
  const auto* src = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t n = bytes.size();
  std::string out;
  out.reserve(n + 8);
  size_t sp = 0;
  while (sp < n) {
    const size_t at = sp;
    const uint8_t b1 = src[sp++];
    if (b1 < 0x80) {
      out += static_cast<char>(b1);
    } else if (b1 >= 0xC2 && b1 <= 0xDF) {
      if (sp >= n) {
        out += kReplacement;
        break;
      }
      if (!Continuation(src[sp])) {
        out += kReplacement;  // the next byte is decoded on its own
      } else {
        out.append(bytes.substr(at, 2));
        ++sp;
      }
    } else if ((b1 & 0xF0) == 0xE0) {
      auto malformed2 = [&](uint8_t b2) {
        return (b1 == 0xE0 && (b2 & 0xE0) == 0x80) || !Continuation(b2);
      };
      if (sp + 1 < n) {
        const uint8_t b2 = src[sp], b3 = src[sp + 1];
        if (malformed2(b2) || !Continuation(b3)) {
          out += kReplacement;
          sp = at + (malformed2(b2) ? 1 : 2);
        } else {
          uint32_t c = ((b1 & 0x0Fu) << 12) | ((b2 & 0x3Fu) << 6) | (b3 & 0x3Fu);
          if (c >= 0xD800 && c <= 0xDFFF) {
            out += kReplacement;  // a surrogate: one malformed sequence of 3 bytes
          } else {
            out.append(bytes.substr(at, 3));
          }
          sp = at + 3;
        }
      } else {
        out += kReplacement;
        if (sp < n && malformed2(src[sp])) continue;
        break;  // cut off at the end: one replacement for the rest
      }
    } else if (b1 >= 0xF0 && b1 <= 0xF7) {
      auto malformed2 = [&](uint8_t b2) {
        return b1 > 0xF4 || (b1 == 0xF0 && (b2 < 0x90 || b2 > 0xBF)) ||
               (b1 == 0xF4 && (b2 & 0xF0) != 0x80) || !Continuation(b2);
      };
      if (sp + 2 < n) {
        const uint8_t b2 = src[sp], b3 = src[sp + 1], b4 = src[sp + 2];
        uint32_t cp = ((b1 & 0x07u) << 18) | ((b2 & 0x3Fu) << 12) | ((b3 & 0x3Fu) << 6) | (b4 & 0x3Fu);
        if (!Continuation(b2) || !Continuation(b3) || !Continuation(b4) || cp < 0x10000 ||
            cp > 0x10FFFF) {
          out += kReplacement;
          sp = at + (malformed2(b2) ? 1 : !Continuation(b3) ? 2 : 3);
        } else {
          out.append(bytes.substr(at, 4));
          sp = at + 4;
        }
      } else {
        out += kReplacement;
        if (b1 > 0xF4 || (sp < n && malformed2(src[sp]))) continue;
        ++sp;
        if (sp < n && !Continuation(src[sp])) continue;
        break;
      }
    } else {
      out += kReplacement;  // a continuation byte without a lead, C0, C1, F8 to FF
    }
  }
  return out;
}

std::optional<std::string> JacksonUtf8(std::string_view bytes, size_t* rejected) {
  // Jackson's UTF8StreamJsonParser: the lead byte says how many continuation bytes follow.
  const auto* src = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t n = bytes.size();
  std::string out;
  out.reserve(n + 8);
  {
    Utf16ToUtf8 units(out);
    for (size_t i = 0; i < n;) {
      const uint8_t c = src[i];
      int extra = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
      if (extra < 0) {
        if (rejected) *rejected = i;
        return std::nullopt;
      }
      int32_t value = extra == 0 ? c : extra == 1 ? (c & 0x1F) : extra == 2 ? (c & 0x0F) : (c & 0x07);
      for (int k = 1; k <= extra; ++k) {
        if (i + k >= n || !Continuation(src[i + k])) {
          if (rejected) *rejected = std::min(i + k, n);
          return std::nullopt;
        }
        value = (value << 6) | (src[i + k] & 0x3F);
      }
      i += static_cast<size_t>(extra) + 1;
      if (extra < 3) {
        units.Put(static_cast<uint32_t>(value));
        continue;
      }
      // Jackson's surrogate pair, as it computes one (Java's int and char arithmetic).
      int32_t v = value - 0x10000;
      units.Put(static_cast<uint16_t>(0xD800 | (v >> 10)));
      units.Put(static_cast<uint16_t>(0xDC00 | (v & 0x3FF)));
    }
  }
  return out;
}

}  // namespace ember::io
