#include "ember/sql/lexer.h"

#include <algorithm>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <arrow/scalar.h>
#include <arrow/type.h>
#include <arrow/util/decimal.h>

#include "ember/error.h"

namespace ember::sql {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// Bytes of multi-byte UTF-8 characters count as letters: Spark accepts Unicode letters in
// identifiers.
bool IsWordChar(char c) {
  return IsLetter(c) || IsDigit(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(uint32_t code, std::string* out) {
  if (code < 0x80) {
    *out += static_cast<char>(code);
  } else if (code < 0x800) {
    *out += static_cast<char>(0xC0 | (code >> 6));
    *out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    *out += static_cast<char>(0xE0 | (code >> 12));
    *out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (code >> 18));
    *out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// Reads `digits` hex digits at body[i]; -1 if they are not all there.
int64_t ReadHex(const std::string& body, size_t i, int digits) {
  if (i + digits > body.size()) return -1;
  int64_t code = 0;
  for (int k = 0; k < digits; ++k) {
    int h = HexValue(body[i + k]);
    if (h < 0) return -1;
    code = code * 16 + h;
  }
  return code;
}

// The text between the quotes of a Spark string literal, with its backslash escapes resolved the
// way Spark resolves them (\% and \_ keep their backslash for LIKE patterns).
std::string Unescape(const std::string& body) {
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 == body.size()) {
      out += c;
      continue;
    }
    char n = body[i + 1];
    if (n == 'u' || n == 'U') {
      int digits = n == 'u' ? 4 : 8;
      int64_t code = ReadHex(body, i + 2, digits);
      if (code >= 0 && code <= 0x10FFFF) {
        AppendUtf8(static_cast<uint32_t>(code), &out);
        i += 1 + digits;
        continue;
      }
    }
    if (n >= '0' && n <= '3' && i + 3 < body.size() && body[i + 2] >= '0' && body[i + 2] <= '7' &&
        body[i + 3] >= '0' && body[i + 3] <= '7') {
      out += static_cast<char>((n - '0') * 64 + (body[i + 2] - '0') * 8 + (body[i + 3] - '0'));
      i += 3;
      continue;
    }
    ++i;
    switch (n) {
      case '0':
        out += '\0';
        break;
      case 'b':
        out += '\b';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'Z':
        out += '\x1A';
        break;
      case '%':
        out += "\\%";
        break;
      case '_':
        out += "\\_";
        break;
      default:
        out += n;
        break;  // \' \" \\ and any other character stand for themselves
    }
  }
  return out;
}

// Length of the numeric literal that starts at text[i] (0 if none), following Spark's lexer: the
// longest of its numeric forms, where a form containing a decimal point must not be followed by
// a letter, digit or underscore; when it is, only the digits before the point make a number.
size_t NumberLength(const std::string& text, size_t i) {
  size_t n = text.size();
  size_t j = i;
  while (j < n && IsDigit(text[j])) ++j;
  size_t int_digits = j - i;
  bool dot = false;
  size_t frac_digits = 0;
  if (j < n && text[j] == '.') {
    size_t k = j + 1;
    while (k < n && IsDigit(text[k])) ++k;
    frac_digits = k - j - 1;
    if (int_digits + frac_digits > 0) {
      dot = true;
      j = k;
    }
  }
  if (int_digits + frac_digits == 0) return 0;
  bool exponent = false;
  if (j < n && (text[j] == 'e' || text[j] == 'E')) {
    size_t k = j + 1;
    if (k < n && (text[k] == '+' || text[k] == '-')) ++k;
    if (k < n && IsDigit(text[k])) {
      while (k < n && IsDigit(text[k])) ++k;
      j = k;
      exponent = true;
    }
  }
  if (j + 1 < n && (text[j] == 'b' || text[j] == 'B') &&
      (text[j + 1] == 'd' || text[j + 1] == 'D')) {
    j += 2;
  } else if (j < n) {
    char s = static_cast<char>(text[j] & ~0x20);
    if (s == 'D' || s == 'F' || (!dot && !exponent && (s == 'L' || s == 'S' || s == 'Y'))) ++j;
  }
  if (dot && j < n && IsWordChar(text[j])) {
    // Spark's isValidDecimal rejects the form; the digits before the point stay a number.
    return int_digits;
  }
  return j - i;
}

}  // namespace

bool EqualsKeyword(const std::string& word, const char* keyword) {
  size_t i = 0;
  for (; i < word.size() && keyword[i] != '\0'; ++i) {
    char c = word[i];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (c != keyword[i]) return false;
  }
  return i == word.size() && keyword[i] == '\0';
}

std::string ToUpper(std::string text) {
  for (char& c : text) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return text;
}

std::string ToLower(std::string text) {
  for (char& c : text) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return text;
}

std::string PositionText(const std::string& text, size_t offset) {
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  size_t pos = 0;
  for (size_t i = line_start; i < offset && i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++pos;  // skip continuation bytes
  }
  return "(line " + std::to_string(line) + ", pos " + std::to_string(pos) + ")";
}

arrow::Status WithPosition(const arrow::Status& status, const std::string& text, size_t offset) {
  return arrow::Status(status.code(), status.message() + " " + PositionText(text, offset),
                       status.detail());
}

arrow::Result<std::vector<Token>> Tokenize(const std::string& text) {
  std::vector<Token> tokens;
  size_t n = text.size();
  size_t i = 0;
  auto add = [&](TokenKind kind, size_t start, size_t end, std::string value) {
    tokens.push_back(Token{kind, text.substr(start, end - start), std::move(value), start});
  };
  while (i < n) {
    char c = text[i];
    if (IsSpace(c)) {
      ++i;
      continue;
    }
    if (c == '-' && i + 1 < n && text[i + 1] == '-') {
      while (i < n && text[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      // Bracketed comments nest in Spark; hints (/*+ ... */) are dropped like comments.
      size_t start = i;
      int depth = 0;
      while (i < n) {
        if (text[i] == '/' && i + 1 < n && text[i + 1] == '*') {
          ++depth;
          i += 2;
        } else if (text[i] == '*' && i + 1 < n && text[i + 1] == '/') {
          i += 2;
          if (--depth == 0) break;
        } else {
          ++i;
        }
      }
      if (depth > 0) {
        return WithPosition(
            UserError(ErrorKind::kParse, "UNCLOSED_BRACKETED_COMMENT",
                      "Found an unclosed bracketed comment. Please, append */ at the end of the "
                      "comment.",
                      "42601"),
            text, start);
      }
      continue;
    }
    bool raw = (c == 'r' || c == 'R') && i + 1 < n && (text[i + 1] == '\'' || text[i + 1] == '"');
    if (c == '\'' || c == '"' || raw) {
      size_t start = i;
      char quote = raw ? text[i + 1] : c;
      size_t j = raw ? i + 2 : i + 1;
      while (j < n && text[j] != quote) {
        j += (!raw && text[j] == '\\' && j + 1 < n) ? 2 : 1;
      }
      if (j >= n) {
        // Unterminated: like Spark, the quote alone is an unrecognised token.
        add(TokenKind::kSymbol, start, start + 1, std::string(1, c));
        i = start + 1;
        continue;
      }
      std::string body = text.substr(raw ? i + 2 : i + 1, j - (raw ? i + 2 : i + 1));
      add(TokenKind::kString, start, j + 1, raw ? body : Unescape(body));
      i = j + 1;
      continue;
    }
    if (c == '`') {
      std::string name;
      size_t j = i + 1;
      bool closed = false;
      while (j < n) {
        if (text[j] == '`') {
          if (j + 1 < n && text[j + 1] == '`') {
            name += '`';
            j += 2;
            continue;
          }
          closed = true;
          break;
        }
        name += text[j++];
      }
      if (!closed) {
        add(TokenKind::kSymbol, i, i + 1, "`");
        ++i;
        continue;
      }
      add(TokenKind::kQuotedIdent, i, j + 1, std::move(name));
      i = j + 1;
      continue;
    }
    if (IsDigit(c) || (c == '.' && i + 1 < n && IsDigit(text[i + 1]))) {
      size_t number = NumberLength(text, i);
      size_t word = i;
      while (IsDigit(c) && word < n && IsWordChar(text[word])) ++word;
      // The longest token wins; on a tie the numeric literal does (it comes first in Spark).
      if (word > i + number) {
        add(TokenKind::kWord, i, word, text.substr(i, word - i));
        i = word;
        continue;
      }
      if (number > 0) {
        add(TokenKind::kNumber, i, i + number, text.substr(i, number));
        i += number;
        continue;
      }
    }
    if (IsWordChar(c)) {
      size_t j = i;
      while (j < n && IsWordChar(text[j])) ++j;
      add(TokenKind::kWord, i, j, text.substr(i, j - i));
      i = j;
      continue;
    }
    static const char* kSymbols[] = {"<=>", "||", "==", "<>", "!=", "<=", ">=", "::", "->", "=>"};
    size_t length = 1;
    for (const char* symbol : kSymbols) {
      size_t size = std::strlen(symbol);
      if (text.compare(i, size, symbol) == 0) {
        length = size;
        break;
      }
    }
    add(TokenKind::kSymbol, i, i + length, text.substr(i, length));
    i += length;
  }
  tokens.push_back(Token{TokenKind::kEnd, "", "", n});
  return tokens;
}

namespace {

arrow::Status RangeError(const std::string& raw, const char* type, const std::string& min,
                         const std::string& max) {
  return UserError(ErrorKind::kParse, "INVALID_NUMERIC_LITERAL_RANGE",
                   "Numeric literal " + raw + " is outside the valid range for " + type +
                       " with minimum value of " + min + " and maximum value of " + max +
                       ". Please adjust the value accordingly.",
                   "22003");
}

// Magnitude of a digit string, or false when it does not fit in 64 bits.
bool Magnitude(const std::string& digits, uint64_t* out) {
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *out);
  return ec == std::errc() && end == digits.data() + digits.size();
}

// A decimal literal from a mantissa with an optional exponent ("1.50", "1.5e3"), typed like
// java.math.BigDecimal: precision = max(significant digits, scale).
arrow::Result<std::shared_ptr<arrow::Scalar>> DecimalValue(const std::string& body, bool negative) {
  size_t e = body.find_first_of("eE");
  std::string mantissa = body.substr(0, e);
  int64_t exponent = 0;
  if (e != std::string::npos) exponent = std::strtoll(body.c_str() + e + 1, nullptr, 10);
  size_t dot = mantissa.find('.');
  std::string digits = mantissa;
  int64_t scale = 0;
  if (dot != std::string::npos) {
    digits = mantissa.substr(0, dot) + mantissa.substr(dot + 1);
    scale = static_cast<int64_t>(mantissa.size() - dot - 1);
  }
  scale -= exponent;
  if (scale < 0) {
    if (-scale > 38) scale = -39;  // beyond any precision; reported below
    digits.append(static_cast<size_t>(-scale), '0');
    scale = 0;
  }
  size_t first = digits.find_first_not_of('0');
  digits = first == std::string::npos ? "0" : digits.substr(first);
  int64_t precision = std::max<int64_t>(static_cast<int64_t>(digits.size()), scale);
  if (precision > 38) {
    return UserError(
        ErrorKind::kParse, "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION",
        "Decimal precision " + std::to_string(precision) + " exceeds max precision 38.", "22003");
  }
  ARROW_ASSIGN_OR_RAISE(auto value, arrow::Decimal128::FromString((negative ? "-" : "") + digits));
  return std::make_shared<arrow::Decimal128Scalar>(
      value, arrow::decimal128(static_cast<int32_t>(precision), static_cast<int32_t>(scale)));
}

}  // namespace

arrow::Result<std::shared_ptr<arrow::Scalar>> NumberValue(const std::string& token_text,
                                                          bool negative) {
  std::string upper = ToUpper(token_text);
  std::string sign = negative ? "-" : "";
  auto ends_with = [&](const char* suffix) {
    std::string s(suffix);
    return upper.size() > s.size() && upper.compare(upper.size() - s.size(), s.size(), s) == 0;
  };
  if (ends_with("BD")) return DecimalValue(upper.substr(0, upper.size() - 2), negative);
  char last = upper.back();
  std::string body = upper.substr(0, upper.size() - 1);
  if (last == 'L' || last == 'S' || last == 'Y') {
    uint64_t magnitude = 0;
    bool fits = Magnitude(body, &magnitude);
    if (last == 'L') {
      uint64_t limit = negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
      if (!fits || magnitude > limit) {
        return RangeError(sign + body, "bigint", "-9223372036854775808", "9223372036854775807");
      }
      return std::make_shared<arrow::Int64Scalar>(negative ? static_cast<int64_t>(0 - magnitude)
                                                           : static_cast<int64_t>(magnitude));
    }
    int64_t max = last == 'S' ? 32767 : 127;
    uint64_t limit = static_cast<uint64_t>(negative ? max + 1 : max);
    if (!fits || magnitude > limit) {
      return RangeError(sign + body, last == 'S' ? "smallint" : "tinyint", std::to_string(-max - 1),
                        std::to_string(max));
    }
    int64_t value = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
    if (last == 'S') return std::make_shared<arrow::Int16Scalar>(static_cast<int16_t>(value));
    return std::make_shared<arrow::Int8Scalar>(static_cast<int8_t>(value));
  }
  bool is_double = last == 'D' || (last != 'F' && upper.find('E') != std::string::npos);
  if (is_double || last == 'F') {
    std::string raw = (last == 'D' || last == 'F') ? body : upper;
    double value = std::strtod(raw.c_str(), nullptr);
    if (negative) value = -value;
    if (last == 'F') {
      if (std::isinf(value) || std::fabs(value) > FLT_MAX) {
        return RangeError(sign + token_text.substr(0, token_text.size() - 1), "float",
                          "-3.4028234663852886E+38", "3.4028234663852886E+38");
      }
      return std::make_shared<arrow::FloatScalar>(static_cast<float>(value));
    }
    if (std::isinf(value)) {
      std::string text = last == 'D' ? token_text.substr(0, token_text.size() - 1) : token_text;
      return RangeError(sign + text, "double", "-1.7976931348623157E+308",
                        "1.7976931348623157E+308");
    }
    return std::make_shared<arrow::DoubleScalar>(value);
  }
  if (upper.find('.') != std::string::npos) return DecimalValue(upper, negative);
  uint64_t magnitude = 0;
  if (Magnitude(upper, &magnitude)) {
    if (magnitude <= (negative ? uint64_t{1} << 31 : (uint64_t{1} << 31) - 1)) {
      int64_t value = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
      return std::make_shared<arrow::Int32Scalar>(static_cast<int32_t>(value));
    }
    if (magnitude <= (negative ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1)) {
      return std::make_shared<arrow::Int64Scalar>(negative ? static_cast<int64_t>(0 - magnitude)
                                                           : static_cast<int64_t>(magnitude));
    }
  }
  return DecimalValue(upper, negative);  // beyond bigint: decimal(p, 0), as Spark does
}

}  // namespace ember::sql
