// Tokens of Spark SQL text and the values of its literals. The lexer follows Spark's lexical rules
// (SqlBaseLexer.g4): case-insensitive keywords, `--` and nested `/* */` comments, 'single' and
// "double" quoted strings with backslash escapes, backquoted identifiers, and numeric literals
// whose suffix (L, S, Y, D, F, BD) or form (exponent, decimal point) decides their type.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <arrow/result.h>
#include <arrow/status.h>
#include <arrow/type_fwd.h>

namespace ember::sql {

enum class TokenKind {
  kWord,         // an unquoted identifier or keyword, as written
  kQuotedIdent,  // `a b`: value holds the name without the backquotes
  kString,       // 'x', "x", R'x': value holds the unescaped text
  kNumber,       // a numeric literal as written, suffix included
  kSymbol,       // an operator or punctuation mark; also a character Spark does not recognise
  kEnd,          // the end of the input
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;   // the source text of the token
  std::string value;  // kString, kQuotedIdent: the decoded value; otherwise equal to text
  size_t offset = 0;  // byte offset of the token in the source
};

/// Splits SQL text into tokens, dropping whitespace and comments; the last token is kEnd.
/// Fails only for an unclosed bracketed comment, as Spark does. Any other text that is no token
/// (an unterminated string, a stray `@`) becomes a one-character kSymbol, so that the parser
/// reports a syntax error at its position.
arrow::Result<std::vector<Token>> Tokenize(const std::string& text);

/// Spark's position suffix for a byte offset of `text`: "(line L, pos P)", lines counted from 1
/// and positions from 0 within the line, in characters.
std::string PositionText(const std::string& text, size_t offset);

/// `status` with " (line L, pos P)" appended to its message; the detail is kept.
arrow::Status WithPosition(const arrow::Status& status, const std::string& text, size_t offset);

/// The value of a kNumber token, negated when `negative` (a minus sign folded into the literal),
/// typed as Spark types it: an integer is int if it fits, else bigint, else decimal(p,0); a
/// suffix L, S, Y makes bigint, smallint, tinyint; a decimal point makes decimal(p,s); an
/// exponent or a D suffix double; F float; BD decimal. Out-of-range values fail like Spark
/// (INVALID_NUMERIC_LITERAL_RANGE, DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION), without position.
arrow::Result<std::shared_ptr<arrow::Scalar>> NumberValue(const std::string& token_text,
                                                          bool negative);

/// Whether a word equals a keyword, ignoring case; `keyword` is upper case.
bool EqualsKeyword(const std::string& word, const char* keyword);

/// An upper-case copy (ASCII letters only).
std::string ToUpper(std::string text);

/// A lower-case copy (ASCII letters only).
std::string ToLower(std::string text);

}  // namespace ember::sql
