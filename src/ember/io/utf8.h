// Bytes that are not valid UTF-8, made into text as Spark's JVM makes them: no string Ember gives
// a user is invalid UTF-8.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ember::io {

/// Whether `bytes` are valid UTF-8.
bool IsValidUtf8(std::string_view bytes);

/// `bytes` with each malformed UTF-8 sequence replaced by U+FFFD where Java's UTF-8 decoder
/// replaces one (a surrogate's 3-byte form is one malformed sequence; a cut-off sequence ending
/// the bytes is one). Spark's CSV and text readers and its results reach users through it.
std::string ReplaceMalformedUtf8(std::string_view bytes);

/// `bytes` as Jackson's UTF-8 JSON parser decodes them, written back as valid UTF-8: a lead byte
/// takes its continuation bytes with no check of their value, so an overlong form is its
/// character, a pair of 3-byte surrogates (CESU-8) one supplementary character and a surrogate
/// alone '?' (Java's encoder). No value when Jackson rejects a byte (a continuation byte without
/// a lead, 0xF8 to 0xFF, a lead without its continuation bytes): the record is malformed, and
/// `rejected`, if given, holds the offset of the byte Jackson stopped at (read: Jackson's next
/// token starts after it).
std::optional<std::string> JacksonUtf8(std::string_view bytes, size_t* rejected = nullptr);

}  // namespace ember::io
