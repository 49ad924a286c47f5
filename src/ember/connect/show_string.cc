// df.show()'s text, laid out as Spark's Dataset.showString: cells as Spark casts values to
// strings (Java's float digits, timestamps in the session time zone, nested values in brackets),
// truncated and padded by their width in UTF-16 units, full-width characters counting twice.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

#include <arrow/array.h>
#include <arrow/compute/api_scalar.h>
#include <arrow/compute/cast.h>
#include <arrow/table.h>
#include <arrow/type.h>

#include "ember/common/java_number.h"
#include "ember/connect/translator.h"
#include "ember/session.h"

namespace ember::connect {

namespace {

// Civil date of a day count since 1970-01-01 (Howard Hinnant's days_from_civil, inverted).
std::string DateText(int64_t days) {
  days += 719468;
  int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  int64_t doe = days - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t day = doy - (153 * mp + 2) / 5 + 1;
  int64_t month = mp < 10 ? mp + 3 : mp - 9;
  int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  char buffer[96];
  std::snprintf(buffer, sizeof(buffer), "%04lld-%02lld-%02lld", static_cast<long long>(year),
                static_cast<long long>(month), static_cast<long long>(day));
  return buffer;
}

// Wall-clock microseconds as "yyyy-MM-dd HH:mm:ss[.ffffff]" without trailing zeros.
std::string TimestampText(int64_t micros) {
  int64_t days = micros >= 0 ? micros / 86400000000LL : -((-micros + 86399999999LL) / 86400000000LL);
  int64_t in_day = micros - days * 86400000000LL;
  int64_t seconds = in_day / 1000000;
  int64_t fraction = in_day % 1000000;
  char buffer[96];
  std::snprintf(buffer, sizeof(buffer), " %02lld:%02lld:%02lld", static_cast<long long>(seconds / 3600),
                static_cast<long long>(seconds / 60 % 60), static_cast<long long>(seconds % 60));
  std::string text = DateText(days) + buffer;
  if (fraction != 0) {
    std::snprintf(buffer, sizeof(buffer), ".%06lld", static_cast<long long>(fraction));
    std::string f = buffer;
    while (f.back() == '0') f.pop_back();
    text += f;
  }
  return text;
}

std::optional<std::string> Cell(const arrow::Array& array, int64_t i);

std::string NestedCell(const arrow::Array& array, int64_t i) {
  auto text = Cell(array, i);
  return text ? *text : "NULL";
}

// The text of one value, or nullopt for null. Timestamps are wall-clock values here.
std::optional<std::string> Cell(const arrow::Array& array, int64_t i) {
  if (array.IsNull(i)) return std::nullopt;
  switch (array.type_id()) {
    case arrow::Type::BOOL:
      return static_cast<const arrow::BooleanArray&>(array).Value(i) ? "true" : "false";
    case arrow::Type::FLOAT:
      return JavaNumberText(static_cast<const arrow::FloatArray&>(array).Value(i));
    case arrow::Type::DOUBLE:
      return JavaNumberText(static_cast<const arrow::DoubleArray&>(array).Value(i));
    case arrow::Type::STRING:
      return std::string(static_cast<const arrow::StringArray&>(array).GetView(i));
    case arrow::Type::BINARY: {
      auto bytes = static_cast<const arrow::BinaryArray&>(array).GetView(i);
      std::string text = "[";
      char hex[4];
      for (size_t k = 0; k < bytes.size(); ++k) {
        std::snprintf(hex, sizeof(hex), "%02X", static_cast<unsigned char>(bytes[k]));
        text += (k ? " " : "") + std::string(hex);
      }
      return text + "]";
    }
    case arrow::Type::DATE32:
      return DateText(static_cast<const arrow::Date32Array&>(array).Value(i));
    case arrow::Type::TIMESTAMP:
      return TimestampText(static_cast<const arrow::TimestampArray&>(array).Value(i));
    case arrow::Type::LIST: {
      const auto& list = static_cast<const arrow::ListArray&>(array);
      auto values = list.values();
      std::string text = "[";
      for (int64_t k = list.value_offset(i); k < list.value_offset(i + 1); ++k) {
        text += (k > list.value_offset(i) ? ", " : "") + NestedCell(*values, k);
      }
      return text + "]";
    }
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapArray&>(array);
      std::string text = "{";
      for (int64_t k = map.value_offset(i); k < map.value_offset(i + 1); ++k) {
        text += (k > map.value_offset(i) ? ", " : "") + NestedCell(*map.keys(), k) + " -> " +
                NestedCell(*map.items(), k);
      }
      return text + "}";
    }
    case arrow::Type::STRUCT: {
      const auto& s = static_cast<const arrow::StructArray&>(array);
      std::string text = "{";
      for (int f = 0; f < s.num_fields(); ++f) {
        text += (f ? ", " : "") + NestedCell(*s.field(f), i);
      }
      return text + "}";
    }
    default: {
      auto scalar = array.GetScalar(i);
      return scalar.ok() ? (*scalar)->ToString() : std::string("?");
    }
  }
}

// Timestamps with a zone as wall-clock values in the session time zone, nested ones included.
arrow::Result<std::shared_ptr<arrow::ChunkedArray>> WallClock(
    const std::shared_ptr<arrow::ChunkedArray>& column, const std::string& time_zone) {
  const auto& type = column->type();
  if (type->id() != arrow::Type::TIMESTAMP ||
      static_cast<const arrow::TimestampType&>(*type).timezone().empty()) {
    return column;
  }
  ARROW_ASSIGN_OR_RAISE(auto zoned, arrow::compute::Cast(
                                        column, arrow::timestamp(arrow::TimeUnit::MICRO, time_zone)));
  ARROW_ASSIGN_OR_RAISE(auto local, arrow::compute::CallFunction("local_timestamp", {zoned}));
  return local.chunked_array();
}

std::string EscapeMeta(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\f': out += "\\f"; break;
      case '\b': out += "\\b"; break;
      case '\v': out += "\\v"; break;
      case '\a': out += "\\a"; break;
      default: out += c;
    }
  }
  return out;
}

// The code points of UTF-8 text, each with its byte offset.
std::vector<std::pair<size_t, char32_t>> CodePoints(const std::string& text) {
  std::vector<std::pair<size_t, char32_t>> out;
  for (size_t i = 0; i < text.size();) {
    auto byte = static_cast<unsigned char>(text[i]);
    int length = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4;
    char32_t cp = length == 1 ? byte : byte & (0x3F >> (length - 1));
    for (int k = 1; k < length && i + k < text.size(); ++k) {
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    }
    out.emplace_back(i, cp);
    i += length;
  }
  return out;
}

size_t Utf16Length(const std::string& text) {
  size_t n = 0;
  for (auto [at, cp] : CodePoints(text)) n += cp > 0xFFFF ? 2 : 1;
  return n;
}

bool FullWidth(char32_t c) {
  return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) ||
         (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFE10 && c <= 0xFE19) || (c >= 0xFE30 && c <= 0xFE6F) ||
         (c >= 0xFF00 && c <= 0xFF60) || (c >= 0xFFE0 && c <= 0xFFE6);
}

size_t DisplayWidth(const std::string& text) {
  size_t n = 0;
  for (auto [at, cp] : CodePoints(text)) n += (cp > 0xFFFF ? 2 : 1) + (FullWidth(cp) ? 1 : 0);
  return n;
}

// The first `units` UTF-16 units of text, a split surrogate pair becoming "?".
std::string Utf16Prefix(const std::string& text, size_t units) {
  size_t used = 0;
  for (auto [at, cp] : CodePoints(text)) {
    size_t size = cp > 0xFFFF ? 2 : 1;
    if (used + size > units) return text.substr(0, at) + (used < units ? "?" : "");
    used += size;
  }
  return text;
}

std::string Truncate(const std::string& text, int truncate) {
  if (truncate <= 0 || Utf16Length(text) <= static_cast<size_t>(truncate)) return text;
  if (truncate < 4) return Utf16Prefix(text, truncate);
  return Utf16Prefix(text, truncate - 3) + "...";
}

std::string Pad(const std::string& text, size_t width, bool left) {
  std::string padding(width - std::min(width, DisplayWidth(text)), ' ');
  return left ? padding + text : text + padding;
}

}  // namespace

arrow::Result<std::string> ShowString(const DataFrame& df, int num_rows, int truncate,
                                      bool vertical) {
  ARROW_ASSIGN_OR_RAISE(auto limited, df.Limit(num_rows >= 0 ? int64_t{num_rows} + 1 : 1));
  ARROW_ASSIGN_OR_RAISE(auto table, limited.ToTable());
  int64_t rows = std::max(num_rows, 0);
  bool more = table->num_rows() > rows;
  table = table->Slice(0, rows);
  std::string time_zone = df.session()->GetConf("spark.sql.session.timeZone", "UTC");

  std::vector<std::string> names;
  std::vector<std::vector<std::string>> cells(table->num_rows());
  for (int c = 0; c < table->num_columns(); ++c) {
    names.push_back(EscapeMeta(table->schema()->field(c)->name()));
    ARROW_ASSIGN_OR_RAISE(auto column, WallClock(table->column(c), time_zone));
    int64_t row = 0;
    for (const auto& chunk : column->chunks()) {
      for (int64_t i = 0; i < chunk->length(); ++i) {
        auto text = Cell(*chunk, i);
        cells[row++].push_back(Truncate(EscapeMeta(text ? *text : "NULL"), truncate));
      }
    }
  }
  std::vector<std::string> lines;
  if (vertical) {
    if (cells.empty()) {
      lines.push_back("(0 rows)");
    } else {
      size_t name_width = 3;
      size_t value_width = 3;
      for (const auto& n : names) name_width = std::max(name_width, DisplayWidth(n));
      for (const auto& row : cells) {
        for (const auto& c : row) value_width = std::max(value_width, DisplayWidth(c));
      }
      for (size_t r = 0; r < cells.size(); ++r) {
        std::string header = "-RECORD " + std::to_string(r);
        size_t total = name_width + value_width + 5;
        lines.push_back(header + std::string(total - std::min(total, header.size()), '-'));
        for (size_t c = 0; c < names.size(); ++c) {
          lines.push_back(" " + Pad(names[c], name_width, false) + " | " +
                          Pad(cells[r][c], value_width, false) + " ");
        }
      }
      lines.push_back("");
    }
  } else {
    std::vector<size_t> widths;
    for (size_t c = 0; c < names.size(); ++c) {
      size_t w = std::max<size_t>(3, DisplayWidth(names[c]));
      for (const auto& row : cells) w = std::max(w, DisplayWidth(row[c]));
      widths.push_back(w);
    }
    std::string rule = "+";
    for (size_t w : widths) rule += std::string(w, '-') + "+";
    auto line = [&](const std::vector<std::string>& values) {
      std::string out = "|";
      for (size_t c = 0; c < values.size(); ++c) out += Pad(values[c], widths[c], truncate > 0) + "|";
      return out;
    };
    lines.push_back(rule);
    lines.push_back(line(names));
    lines.push_back(rule);
    for (const auto& row : cells) lines.push_back(line(row));
    lines.push_back(rule);
    lines.push_back("");
  }
  if (more) {
    if (!lines.empty() && lines.back().empty()) lines.pop_back();
    lines.push_back("only showing top " + std::to_string(rows) + " row" + (rows == 1 ? "" : "s"));
  }
  std::string text;
  for (size_t i = 0; i < lines.size(); ++i) text += (i ? "\n" : "") + lines[i];
  return text;
}

}  // namespace ember::connect
