#include "ember/common/java_number.h"

#include <charconv>
#include <cmath>

namespace ember {

namespace {

template <typename Float>
std::string Text(Float x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  char buffer[64];
  auto end = std::to_chars(buffer, buffer + sizeof(buffer), x, std::chars_format::scientific).ptr;
  std::string text(buffer, end);  // "-1.2345e+07"
  bool negative = text[0] == '-';
  if (negative) text.erase(0, 1);
  size_t e = text.find('e');
  int exponent = std::stoi(text.substr(e + 1));
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c != '.') digits += c;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  int point = exponent + 1;  // the decimal point sits after this many digits
  std::string out = negative ? "-" : "";
  if (point > -3 && point <= 7) {
    if (point <= 0) return out + "0." + std::string(-point, '0') + digits;
    if (point >= static_cast<int>(digits.size())) {
      return out + digits + std::string(point - digits.size(), '0') + ".0";
    }
    return out + digits.substr(0, point) + "." + digits.substr(point);
  }
  return out + digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0") + "E" +
         std::to_string(point - 1);
}

}  // namespace

std::string JavaNumberText(double x) { return Text(x); }
std::string JavaNumberText(float x) { return Text(x); }

}  // namespace ember
