// The kernels of Spark's regular expression functions (regexp_extract, regexp_extract_all,
// regexp_replace, regexp_count, regexp_instr, regexp_substr, rlike). Spark's patterns are Java's
// (java.util.regex.Pattern); Ember translates each into RE2's syntax once and runs it on RE2,
// which matches in linear time where a backtracking engine can take exponential time or overflow
// its stack. What Java has and RE2 cannot run (backreferences, lookaround, possessive quantifiers,
// atomic groups, nested classes) is refused with UNSUPPORTED_FEATURE, never run differently.
// Matches follow Java's Matcher.find(): leftmost-first, and after an empty match the next search
// starts one character further, so an empty match may follow a non-empty one.

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/compute/registry.h>
#include <arrow/scalar.h>

#include "ember/error.h"
#include "ember/exec/kernel_util.h"
#include "ember/exec/kernels.h"
#include "ember/plan/type_names.h"

namespace ember::exec {

namespace cp = arrow::compute;
using arrow::Result;
using arrow::Status;

namespace {

// --- Java's pattern syntax in RE2's --------------------------------------------------------------

struct Translation {
  std::string re2;
  std::map<std::string, int> names;  // named groups' numbers
  bool invalid = false;     // Java refuses the pattern
  std::string unsupported;  // what Java accepts and RE2 cannot run, or empty
};

// Java's line terminators, outside a class: what `.` does not match.
constexpr const char* kJavaDot = "[^\\n\\r\\x{85}\\x{2028}\\x{2029}]";
// Java's \s (ASCII) and its complement, as class contents.
constexpr const char* kJavaSpace = "\\t\\n\\x0B\\f\\r ";
constexpr const char* kJavaNotSpace = "\\x00-\\x08\\x0E-\\x1F\\x21-\\x{10FFFF}";
constexpr const char* kJavaHorizontal =
    " \\t\\x{A0}\\x{1680}\\x{180E}\\x{2000}-\\x{200A}\\x{202F}\\x{205F}\\x{3000}";
constexpr const char* kJavaVertical = "\\n\\x0B\\f\\r\\x{85}\\x{2028}\\x{2029}";

bool IsHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
uint32_t HexValue(char c) {
  return static_cast<uint32_t>(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

size_t Utf8Length(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

// Text matched as it is: every ASCII character but letters, digits and _ escaped.
std::string QuoteMeta(std::string_view s) {
  std::string out;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\0') {
      out += "\\x00";
      continue;
    }
    if (u < 0x80 && !std::isalnum(u) && c != '_') out += '\\';
    out += c;
  }
  return out;
}

std::string CodePointEscape(uint32_t cp) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "\\x{%X}", cp);
  return buffer;
}

class Translator {
 public:
  explicit Translator(std::string_view java) : in_(java) {}

  Translation Run() {
    while (i_ < in_.size() && Ok()) Step();
    if (Ok() && !groups_.empty()) invalid_ = true;  // an unclosed group
    Translation t;
    t.re2 = std::move(out_);
    t.names = std::move(names_);
    t.invalid = invalid_;
    t.unsupported = unsupported_;
    return t;
  }

 private:
  struct Flags {
    bool dotall = false, unix_lines = false, comments = false;
  };

  bool Ok() const { return !invalid_ && unsupported_.empty(); }
  void Unsupported(const char* what) { unsupported_ = what; }
  bool At(char c, size_t ahead = 0) const {
    return i_ + ahead < in_.size() && in_[i_ + ahead] == c;
  }
  void CopyChar() {
    size_t n = std::min(Utf8Length(static_cast<unsigned char>(in_[i_])), in_.size() - i_);
    out_.append(in_.substr(i_, n));
    i_ += n;
  }
  // Whitespace and #-comments in Java's COMMENTS mode (?x).
  bool SkipComment() {
    if (!flags_.comments) return false;
    char c = in_[i_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\x0B') {
      ++i_;
      return true;
    }
    if (c == '#') {
      while (i_ < in_.size() && in_[i_] != '\n') ++i_;
      return true;
    }
    return false;
  }

  void Step() {
    if (SkipComment()) return;
    char c = in_[i_];
    switch (c) {
      case '\\': Escape(false); atom_ = true; return;
      case '[': Class(); atom_ = true; return;
      case '(': Open(); atom_ = false; return;
      case ')':
        if (groups_.empty()) {
          invalid_ = true;
          return;
        }
        flags_ = groups_.back();
        groups_.pop_back();
        out_ += ')';
        ++i_;
        atom_ = true;
        return;
      case '.':
        out_ += flags_.dotall ? "(?s:.)" : flags_.unix_lines ? "[^\\n]" : kJavaDot;
        ++i_;
        atom_ = true;
        return;
      case '*': case '+': case '?':
        out_ += c;
        ++i_;
        QuantifierTail();
        return;
      case '{': Repetition(); return;
      case '^': case '$': case '|':
        out_ += c;
        ++i_;
        atom_ = false;
        return;
      case ']': case '}':
        out_ += '\\';
        out_ += c;
        ++i_;
        atom_ = true;
        return;
      case '\0':
        out_ += "\\x00";
        ++i_;
        atom_ = true;
        return;
      default:
        CopyChar();
        atom_ = true;
    }
  }

  // After *, +, ? or {n,m}: a lazy ? is RE2's too; a possessive + is not.
  void QuantifierTail() {
    atom_ = false;
    if (At('?')) {
      out_ += '?';
      ++i_;
    } else if (At('+')) {
      Unsupported("possessive quantifiers");
    }
  }

  // {n}, {n,}, {n,m}; Java refuses any other {, except where nothing precedes it to repeat.
  void Repetition() {
    if (!atom_) {
      out_ += "\\{";
      ++i_;
      return;
    }
    size_t j = i_ + 1;
    auto number = [&](long* value) {
      size_t start = j;
      *value = 0;
      while (j < in_.size() && IsDigit(in_[j])) {
        if (*value < 100000) *value = *value * 10 + (in_[j] - '0');
        ++j;
      }
      return j > start;
    };
    long low = 0, high = -1;
    if (!number(&low)) {
      invalid_ = true;
      return;
    }
    bool comma = j < in_.size() && in_[j] == ',';
    if (comma) {
      ++j;
      if (!number(&high)) high = -1;
    } else {
      high = low;
    }
    if (j >= in_.size() || in_[j] != '}' || (high >= 0 && high < low)) {
      invalid_ = true;
      return;
    }
    if (low > 1000 || high > 1000) {
      Unsupported("repetition counts above 1000");
      return;
    }
    out_.append(in_.substr(i_, j + 1 - i_));
    i_ = j + 1;
    QuantifierTail();
  }

  void Open() {
    ++i_;
    groups_.push_back(flags_);
    if (!At('?')) {
      out_ += '(';
      ++groups_seen_;
      return;
    }
    ++i_;
    if (i_ >= in_.size()) {
      invalid_ = true;
      return;
    }
    char c = in_[i_];
    if (c == ':') {
      out_ += "(?:";
      ++i_;
      return;
    }
    if (c == '=' || c == '!') return Unsupported("lookahead");
    if (c == '>') return Unsupported("atomic groups");
    if (c == '<') {
      if (At('=', 1) || At('!', 1)) return Unsupported("lookbehind");
      size_t j = i_ + 1;
      while (j < in_.size() && (IsAsciiLetter(in_[j]) || (j > i_ + 1 && IsDigit(in_[j])))) ++j;
      if (j == i_ + 1 || j >= in_.size() || in_[j] != '>') {
        invalid_ = true;
        return;
      }
      out_ += "(?P<";
      out_.append(in_.substr(i_ + 1, j - i_ - 1));
      names_[std::string(in_.substr(i_ + 1, j - i_ - 1))] = ++groups_seen_;
      out_ += '>';
      i_ = j + 1;
      return;
    }
    // Inline flags: (?idmsuxU-idmsuxU) or (?flags:...).
    std::string on, off;
    bool negate = false;
    for (; i_ < in_.size(); ++i_) {
      char f = in_[i_];
      if (f == '-' && !negate) {
        negate = true;
        continue;
      }
      if (f == ':' || f == ')') break;
      switch (f) {
        case 'i': case 'm': (negate ? off : on) += f; break;
        case 's': flags_.dotall = !negate; break;
        case 'd': flags_.unix_lines = !negate; break;
        case 'x': flags_.comments = !negate; break;
        case 'u': break;  // Unicode case folding: RE2's (?i) folds Unicode anyway
        case 'U': return Unsupported("the UNICODE_CHARACTER_CLASS flag (?U)");
        default:
          invalid_ = true;
          return;
      }
    }
    if (i_ >= in_.size()) {
      invalid_ = true;
      return;
    }
    std::string set = on.empty() && off.empty() ? "" : on + (off.empty() ? "" : "-" + off);
    if (in_[i_] == ')') {
      groups_.pop_back();  // the flags hold to the end of the enclosing group
      if (!set.empty()) out_ += "(?" + set + ")";
    } else {
      out_ += "(?" + set + ":";
    }
    ++i_;
  }

  void Class() {
    out_ += '[';
    ++i_;
    if (At('^')) {
      out_ += '^';
      ++i_;
    }
    bool first = true;
    while (Ok()) {
      if (i_ >= in_.size()) {
        invalid_ = true;
        return;
      }
      if (SkipComment()) continue;
      char c = in_[i_];
      if (c == ']' && !first) {
        out_ += ']';
        ++i_;
        return;
      }
      if (c == '[') return Unsupported("nested character classes");
      if (c == '&' && At('&', 1)) return Unsupported("character class intersections");
      if (c == '\\') {
        Escape(true);
      } else if (c == ']') {
        out_ += "\\]";
        ++i_;
      } else if (c == '\0') {
        out_ += "\\x00";
        ++i_;
      } else {
        CopyChar();
      }
      first = false;
    }
  }

  // Emits a class's contents (in a class) or the class.
  void EmitSet(bool in_class, const std::string& contents, bool negated = false) {
    if (in_class) {
      if (negated) return Unsupported("a negated class escape inside a class");
      out_ += contents;
    } else {
      out_ += negated ? "[^" : "[";
      out_ += contents;
      out_ += ']';
    }
  }

  void Escape(bool in_class) {
    ++i_;
    if (i_ >= in_.size()) {
      invalid_ = true;
      return;
    }
    char c = in_[i_++];
    auto outside_only = [&](const char* re2) {
      if (in_class) {
        invalid_ = true;
      } else {
        out_ += re2;
      }
    };
    switch (c) {
      case 'd': case 'D': case 'w': case 'W': case 't': case 'n': case 'r': case 'f':
        out_ += '\\';
        out_ += c;
        return;
      case 'a': out_ += "\\x07"; return;
      case 'e': out_ += "\\x1B"; return;
      case 's': return EmitSet(in_class, kJavaSpace);
      case 'S': return EmitSet(in_class, kJavaNotSpace);
      case 'h': return EmitSet(in_class, kJavaHorizontal);
      case 'H': return EmitSet(in_class, kJavaHorizontal, true);
      case 'v': return EmitSet(in_class, kJavaVertical);
      case 'V': return EmitSet(in_class, kJavaVertical, true);
      case 'R': return outside_only("(?:\\r\\n|[\\n\\x0B\\f\\r\\x{85}\\x{2028}\\x{2029}])");
      case 'b':
        if (At('{')) return Unsupported("\\b{g}");
        return outside_only("\\b");
      case 'B': return outside_only("\\B");
      case 'A': return outside_only("\\A");
      case 'z': return outside_only("\\z");
      case 'Z': return in_class ? void(invalid_ = true) : Unsupported("\\Z");
      case 'G': return in_class ? void(invalid_ = true) : Unsupported("\\G");
      case 'k': return Unsupported("backreferences");
      case 'N': return Unsupported("\\N{name}");
      case 'X': return Unsupported("\\X");
      case 'Q': {
        size_t end = in_.find("\\E", i_);
        std::string_view quoted = in_.substr(i_, end == std::string_view::npos ? end : end - i_);
        out_ += QuoteMeta(quoted);
        i_ = end == std::string_view::npos ? in_.size() : end + 2;
        return;
      }
      case '0': {
        // \0n, \0nn, \0mnn (m <= 3): octal.
        uint32_t v = 0;
        size_t digits = 0;
        while (digits < 3 && i_ < in_.size() && in_[i_] >= '0' && in_[i_] <= '7' &&
               (digits < 2 || v <= 037)) {
          v = v * 8 + static_cast<uint32_t>(in_[i_++] - '0');
          ++digits;
        }
        if (digits == 0) {
          invalid_ = true;
          return;
        }
        out_ += CodePointEscape(v);
        return;
      }
      case 'x': {
        uint32_t v = 0;
        if (At('{')) {
          size_t end = in_.find('}', i_);
          if (end == std::string_view::npos || end == i_ + 1) {
            invalid_ = true;
            return;
          }
          for (size_t k = i_ + 1; k < end; ++k) {
            if (!IsHex(in_[k]) || v > 0x10FFFF) {
              invalid_ = true;
              return;
            }
            v = v * 16 + HexValue(in_[k]);
          }
          i_ = end + 1;
          if (v > 0x10FFFF) {
            invalid_ = true;
            return;
          }
        } else {
          if (i_ + 2 > in_.size() || !IsHex(in_[i_]) || !IsHex(in_[i_ + 1])) {
            invalid_ = true;
            return;
          }
          v = HexValue(in_[i_]) * 16 + HexValue(in_[i_ + 1]);
          i_ += 2;
        }
        out_ += CodePointEscape(v);
        return;
      }
      case 'u': {
        auto hex4 = [&](size_t at, uint32_t* v) {
          if (at + 4 > in_.size()) return false;
          *v = 0;
          for (size_t k = at; k < at + 4; ++k) {
            if (!IsHex(in_[k])) return false;
            *v = *v * 16 + HexValue(in_[k]);
          }
          return true;
        };
        uint32_t v = 0, low = 0;
        if (!hex4(i_, &v)) {
          invalid_ = true;
          return;
        }
        i_ += 4;
        if (v >= 0xD800 && v <= 0xDBFF && At('\\') && At('u', 1) && hex4(i_ + 2, &low) &&
            low >= 0xDC00 && low <= 0xDFFF) {
          v = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00);
          i_ += 6;
        }
        if (v >= 0xD800 && v <= 0xDFFF) return Unsupported("a lone surrogate");
        out_ += CodePointEscape(v);
        return;
      }
      case 'c': {
        if (i_ >= in_.size()) {
          invalid_ = true;
          return;
        }
        out_ += CodePointEscape(static_cast<unsigned char>(in_[i_++]) ^ 64);
        return;
      }
      case 'p': case 'P': return Property(in_class, c == 'P');
      default: break;
    }
    if (IsDigit(c)) {
      if (in_class) {
        invalid_ = true;
      } else {
        Unsupported("backreferences");
      }
      return;
    }
    if (IsAsciiLetter(c)) {  // Java refuses escapes of other letters
      invalid_ = true;
      return;
    }
    // Any other character escaped is itself.
    --i_;
    size_t n = std::min(Utf8Length(static_cast<unsigned char>(c)), in_.size() - i_);
    std::string_view ch = in_.substr(i_, n);
    i_ += n;
    out_ += QuoteMeta(ch);
  }

  // \p{Name}, \pL: Java's POSIX classes (ASCII), general categories and Is-prefixed scripts.
  void Property(bool in_class, bool negated) {
    std::string name;
    if (At('{')) {
      size_t end = in_.find('}', i_);
      if (end == std::string_view::npos) {
        invalid_ = true;
        return;
      }
      name = std::string(in_.substr(i_ + 1, end - i_ - 1));
      i_ = end + 1;
    } else if (i_ < in_.size()) {
      name = std::string(1, in_[i_++]);
    } else {
      invalid_ = true;
      return;
    }
    static const std::unordered_map<std::string, std::string> kPosix = {
        {"Lower", "lower"}, {"Upper", "upper"}, {"ASCII", "ascii"}, {"Alpha", "alpha"},
        {"Digit", "digit"}, {"Alnum", "alnum"}, {"Punct", "punct"}, {"Graph", "graph"},
        {"Print", "print"}, {"Blank", "blank"}, {"Cntrl", "cntrl"}, {"XDigit", "xdigit"},
        {"Space", "space"}};
    static const std::unordered_map<std::string, std::string> kBinary = {
        {"LETTER", "L"}, {"DIGIT", "Nd"}, {"PUNCTUATION", "P"}, {"CONTROL", "Cc"}};
    static const char* kCategories[] = {
        "C", "Cc", "Cf", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me",
        "Mn", "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S",
        "Sc", "Sk", "Sm", "So", "Z", "Zl", "Zp", "Zs"};
    auto category = [&](const std::string& n) {
      for (const char* k : kCategories) {
        if (n == k) return true;
      }
      return false;
    };
    auto unicode = [&](const std::string& n) {
      std::string p = std::string(negated ? "\\P{" : "\\p{") + n + "}";
      out_ += in_class ? p : "[" + p + "]";
    };
    auto posix = [&](const std::string& n) {
      std::string p = std::string(negated ? "[:^" : "[:") + n + ":]";
      out_ += in_class ? p : "[" + p + "]";
    };
    bool is = name.size() > 2 && name.compare(0, 2, "Is") == 0;
    std::string bare = is ? name.substr(2) : name;
    if (auto it = kPosix.find(bare); it != kPosix.end()) return posix(it->second);
    if (category(bare)) return unicode(bare);
    if (name.compare(0, 2, "In") == 0 || name.compare(0, 4, "java") == 0 ||
        name.find('=') != std::string::npos || bare == "all" || bare == "LC" || bare == "LD" ||
        bare == "L1" || bare == "Cn") {
      return Unsupported("this \\p{...} class");
    }
    if (!is) {
      invalid_ = true;  // Java knows no other bare name
      return;
    }
    std::string upper;
    for (char ch : bare) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (auto it = kBinary.find(upper); it != kBinary.end()) return unicode(it->second);
    // A script: RE2 spells it Capitalised (Latin, Greek, Han); an unknown one fails to compile.
    std::string script;
    for (size_t k = 0; k < bare.size(); ++k) {
      bool word_start = k == 0 || bare[k - 1] == '_';
      unsigned char ch = static_cast<unsigned char>(bare[k]);
      script += static_cast<char>(word_start ? std::toupper(ch) : std::tolower(ch));
    }
    unicode(script);
  }

  std::string_view in_;
  size_t i_ = 0;
  std::string out_;
  Flags flags_;
  std::vector<Flags> groups_;  // the flags outside each open group
  bool atom_ = false;          // whether what precedes can be repeated
  int groups_seen_ = 0;        // capturing groups so far
  std::map<std::string, int> names_;
  bool invalid_ = false;
  std::string unsupported_;
};

// --- compiled patterns ---------------------------------------------------------------------------

// RE2, from its module (re2_module.cc) beside the binary that holds this code, loaded once into a
// symbol scope of its own (RTLD_DEEPBIND: libre2 binds to itself, never to the RE2 that pyarrow's
// libarrow_compute exports) and never unloaded.
struct Re2Module {
  void* (*compile)(const char* pattern, size_t length, int* groups) = nullptr;
  int (*match)(const void* re, const char* text, size_t length, size_t from, int n,
               int64_t* spans) = nullptr;
  void (*free)(void* re) = nullptr;
};

Result<const Re2Module*> LoadRe2() {
  static std::mutex mutex;
  static Re2Module module;
  std::lock_guard<std::mutex> lock(mutex);
  if (module.compile) return &module;
  Dl_info self;
  if (dladdr(reinterpret_cast<void*>(&LoadRe2), &self) == 0 || !self.dli_fname) {
    return Status::IOError("Cannot find where Ember is installed");
  }
  std::string path = self.dli_fname;
  path = path.substr(0, path.rfind('/') + 1) + "libember_re2.so";
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!library) return Status::IOError("Cannot load ", path, ": ", dlerror());
  module.match = reinterpret_cast<decltype(module.match)>(dlsym(library, "ember_re2_match"));
  module.free = reinterpret_cast<decltype(module.free)>(dlsym(library, "ember_re2_free"));
  auto compile = reinterpret_cast<decltype(module.compile)>(dlsym(library, "ember_re2_compile"));
  if (!compile || !module.match || !module.free) return Status::IOError("Not RE2's module: ", path);
  module.compile = compile;
  return &module;
}

struct Regex {
  const Re2Module* module = nullptr;
  void* re = nullptr;
  int groups = 0;                    // Java's groupCount()
  std::map<std::string, int> names;  // named groups' numbers
  ~Regex() {
    if (re) module->free(re);
  }
};

Status InvalidPattern(const std::string& function, const std::string& pattern) {
  return UserError(ErrorKind::kRuntime, "INVALID_PARAMETER_VALUE.PATTERN",
                   "The value of parameter(s) `regexp` in `" + function + "` is invalid: '" +
                       pattern + "'.",
                   "22023");
}

// A pattern compiled, from a cache shared by all queries: a column of patterns usually holds few.
Result<std::shared_ptr<const Regex>> Compile(const std::string& pattern,
                                             const std::string& function) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::shared_ptr<const Regex>> cache;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(pattern);
    if (it != cache.end()) return it->second;
  }
  Translation t = Translator(pattern).Run();
  if (t.invalid) return InvalidPattern(function, pattern);
  if (!t.unsupported.empty()) {
    return UserError(ErrorKind::kRuntime, "UNSUPPORTED_FEATURE",
                     "The feature is not supported: " + t.unsupported +
                         " in the regular expression '" + pattern + "' of `" + function +
                         "` (Ember runs Java's regular expressions on RE2, in linear time).",
                     "0A000");
  }
  ARROW_ASSIGN_OR_RAISE(const Re2Module* module, LoadRe2());
  auto regex = std::make_shared<Regex>();
  regex->module = module;
  regex->re = module->compile(t.re2.data(), t.re2.size(), &regex->groups);
  if (!regex->re) return InvalidPattern(function, pattern);
  regex->names = std::move(t.names);
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() >= 1024) cache.clear();
  cache.emplace(pattern, regex);
  return regex;
}

// The last pattern of a column, compiled: rows usually repeat their pattern.
class PatternColumn {
 public:
  explicit PatternColumn(std::string function) : function_(std::move(function)) {}
  Result<const Regex*> Get(std::string_view pattern) {
    if (!regex_ || pattern != text_) {
      text_ = std::string(pattern);
      ARROW_ASSIGN_OR_RAISE(regex_, Compile(text_, function_));
    }
    return regex_.get();
  }
  const std::string& function() const { return function_; }

 private:
  std::string function_;
  std::string text_;
  std::shared_ptr<const Regex> regex_;
};

// The groups of a match: spans[2k], spans[2k + 1] the byte offsets of group k, -1 where it took
// no part.
struct Groups {
  std::string_view text;
  const int64_t* spans;
  size_t start() const { return static_cast<size_t>(spans[0]); }
  size_t end() const { return static_cast<size_t>(spans[1]); }
  // Group k's text; empty where it took no part (Spark gives '' for Java's null).
  std::string_view operator[](size_t k) const {
    if (spans[2 * k] < 0) return {};
    return text.substr(static_cast<size_t>(spans[2 * k]),
                       static_cast<size_t>(spans[2 * k + 1] - spans[2 * k]));
  }
};

// Calls on_match(groups) for each match of Java's find() loop in text (group 0 the match, then
// `wanted` groups), until it returns false.
template <typename OnMatch>
Status EachMatch(const Regex& regex, std::string_view text, int wanted, OnMatch on_match) {
  std::vector<int64_t> spans(2 * (static_cast<size_t>(wanted) + 1));
  size_t from = 0;
  while (from <= text.size()) {
    if (!regex.module->match(regex.re, text.data(), text.size(), from, wanted + 1,
                             spans.data())) {
      break;
    }
    Groups groups{text, spans.data()};
    size_t start = groups.start(), end = groups.end();
    ARROW_ASSIGN_OR_RAISE(bool more, on_match(groups));
    if (!more) break;
    if (end == start) {
      if (end >= text.size()) break;
      from = end + Utf8Length(static_cast<unsigned char>(text[end]));
    } else {
      from = end;
    }
  }
  return Status::OK();
}

// UTF-16 code units of UTF-8 text (Java's String.length(), its positions).
int64_t Utf16Length(std::string_view s) {
  int64_t n = 0;
  for (size_t i = 0; i < s.size();) {
    size_t bytes = Utf8Length(static_cast<unsigned char>(s[i]));
    n += bytes == 4 ? 2 : 1;
    i += bytes;
  }
  return n;
}

// The byte offset of UTF-16 position `units` (rounded up to a character's start).
size_t Utf16ToByte(std::string_view s, int64_t units) {
  size_t i = 0;
  for (int64_t n = 0; i < s.size() && n < units;) {
    size_t bytes = Utf8Length(static_cast<unsigned char>(s[i]));
    n += bytes == 4 ? 2 : 1;
    i += bytes;
  }
  return std::min(i, s.size());
}

Status CheckGroupIndex(const std::string& function, int groups, int32_t index) {
  if (index >= 0 && index <= groups) return Status::OK();
  return UserError(ErrorKind::kIllegalArgument, "INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX",
                   "The value of parameter(s) `idx` in `" + function +
                       "` is invalid: Expects group index between 0 and " +
                       std::to_string(groups) + ", but got " + std::to_string(index) + ".",
                   "22023");
}

// --- kernels -------------------------------------------------------------------------------------

// regexp_extract(str, regexp, idx): group idx of the first match, '' without a match or where the
// group took no part; regexp_substr(str, regexp): the first match, NULL without one or if empty.
template <bool kSubstr>
Status ExtractExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  auto args = Args(batch);
  PatternColumn patterns("regexp_extract");
  arrow::StringBuilder builder;
  return EachRow(batch, out, &builder, args, [&](int64_t i) -> Status {
    ARROW_ASSIGN_OR_RAISE(const Regex* regex, patterns.Get(args[1].Text(i)));
    int32_t index = kSubstr ? 0 : args[2].Int(i);
    std::string_view found;
    bool matched = false;
    ARROW_RETURN_NOT_OK(EachMatch(*regex, args[0].Text(i), regex->groups,
                                  [&](const Groups& g) -> Result<bool> {
                                    ARROW_RETURN_NOT_OK(
                                        CheckGroupIndex(patterns.function(), regex->groups, index));
                                    found = g[static_cast<size_t>(index)];
                                    matched = true;
                                    return false;
                                  }));
    if (kSubstr && (!matched || found.empty())) return builder.AppendNull();
    return builder.Append(found);
  });
}

// regexp_extract_all(str, regexp, idx): group idx of every match.
Status ExtractAllExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  auto args = Args(batch);
  PatternColumn patterns("regexp_extract_all");
  auto values = std::make_shared<arrow::StringBuilder>();
  arrow::ListBuilder builder(arrow::default_memory_pool(), values, plan::ArrayOf(arrow::utf8()));
  return EachRow(batch, out, &builder, args, [&](int64_t i) -> Status {
    ARROW_ASSIGN_OR_RAISE(const Regex* regex, patterns.Get(args[1].Text(i)));
    int32_t index = args[2].Int(i);
    ARROW_RETURN_NOT_OK(builder.Append());
    return EachMatch(*regex, args[0].Text(i), regex->groups,
                     [&](const Groups& g) -> Result<bool> {
                       ARROW_RETURN_NOT_OK(
                           CheckGroupIndex(patterns.function(), regex->groups, index));
                       ARROW_RETURN_NOT_OK(values->Append(g[static_cast<size_t>(index)]));
                       return true;
                     });
  });
}

// regexp_count(str, regexp): the number of matches.
Status CountExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  auto args = Args(batch);
  PatternColumn patterns("regexp_extract_all");
  arrow::Int32Builder builder;
  return EachRow(batch, out, &builder, args, [&](int64_t i) -> Status {
    ARROW_ASSIGN_OR_RAISE(const Regex* regex, patterns.Get(args[1].Text(i)));
    int32_t count = 0;
    ARROW_RETURN_NOT_OK(EachMatch(*regex, args[0].Text(i), 0,
                                  [&](const Groups&) -> Result<bool> {
                                    ++count;
                                    return true;
                                  }));
    return builder.Append(count);
  });
}

// regexp_instr(str, regexp[, idx]): the 1-based position of the first match in UTF-16 code units
// (Java's), 0 without one; idx is read only for its NULL.
Status InstrExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  auto args = Args(batch);
  PatternColumn patterns("regexp_instr");
  arrow::Int32Builder builder;
  return EachRow(batch, out, &builder, args, [&](int64_t i) -> Status {
    ARROW_ASSIGN_OR_RAISE(const Regex* regex, patterns.Get(args[1].Text(i)));
    std::string_view text = args[0].Text(i);
    int32_t position = 0;
    ARROW_RETURN_NOT_OK(EachMatch(*regex, text, 0,
                                  [&](const Groups& g) -> Result<bool> {
                                    position = static_cast<int32_t>(
                                                   Utf16Length(text.substr(0, g.start()))) + 1;
                                    return false;
                                  }));
    return builder.Append(position);
  });
}

// rlike(str, regexp): whether the pattern matches anywhere.
Status RlikeExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  auto args = Args(batch);
  PatternColumn patterns("rlike");
  arrow::BooleanBuilder builder;
  return EachRow(batch, out, &builder, args, [&](int64_t i) -> Status {
    ARROW_ASSIGN_OR_RAISE(const Regex* regex, patterns.Get(args[1].Text(i)));
    bool found = false;
    ARROW_RETURN_NOT_OK(EachMatch(*regex, args[0].Text(i), 0, [&](const Groups&) -> Result<bool> {
      found = true;
      return false;
    }));
    return builder.Append(found);
  });
}

// Java's replacement text (Matcher.appendReplacement): \x is x, $n the longest group number
// there is, ${name} a named group. A reference Java refuses is an error once a match uses it.
class Replacement {
 public:
  Replacement(std::string_view text, const Regex& regex) {
    auto literal = [&](std::string_view s) {
      if (pieces_.empty() || !std::holds_alternative<std::string>(pieces_.back())) {
        pieces_.emplace_back(std::string());
      }
      std::get<std::string>(pieces_.back()).append(s);
    };
    for (size_t i = 0; i < text.size();) {
      char c = text[i];
      if (c == '\\') {
        if (++i == text.size()) {
          ok_ = false;
          return;
        }
        size_t n = std::min(Utf8Length(static_cast<unsigned char>(text[i])), text.size() - i);
        literal(text.substr(i, n));
        i += n;
      } else if (c == '$') {
        if (++i == text.size()) {
          ok_ = false;
          return;
        }
        int group = 0;
        if (text[i] == '{') {
          size_t end = ++i;
          while (end < text.size() && (IsAsciiLetter(text[end]) || IsDigit(text[end]))) ++end;
          if (end == i || end == text.size() || text[end] != '}' || IsDigit(text[i])) {
          ok_ = false;
          return;
        }
          auto it = regex.names.find(std::string(text.substr(i, end - i)));
          if (it == regex.names.end()) {
          ok_ = false;
          return;
        }
          group = it->second;
          i = end + 1;
        } else {
          if (!IsDigit(text[i])) {
          ok_ = false;
          return;
        }
          group = text[i++] - '0';
          while (i < text.size() && IsDigit(text[i]) && group * 10 + (text[i] - '0') <= regex.groups) {
            group = group * 10 + (text[i++] - '0');
          }
          if (group > regex.groups) {
          ok_ = false;
          return;
        }
        }
        pieces_.emplace_back(group);
      } else {
        size_t n = std::min(Utf8Length(static_cast<unsigned char>(c)), text.size() - i);
        literal(text.substr(i, n));
        i += n;
      }
    }
  }
  bool ok() const { return ok_; }
  void AppendTo(std::string* out, const Groups& groups) const {
    for (const auto& piece : pieces_) {
      if (const auto* s = std::get_if<std::string>(&piece)) {
        out->append(*s);
      } else {
        out->append(groups[static_cast<size_t>(std::get<int>(piece))]);
      }
    }
  }

 private:
  std::vector<std::variant<std::string, int>> pieces_;
  bool ok_ = true;
};

// regexp_replace(str, regexp, rep, position): every match from `position` (1-based, in UTF-16
// code units as Java counts) replaced; the search sees the text from there as a whole text.
Status ReplaceExec(cp::KernelContext*, const cp::ExecSpan& batch, cp::ExecResult* out) {
  auto args = Args(batch);
  PatternColumn patterns("regexp_replace");
  const Regex* last_regex = nullptr;
  std::string last_text;
  std::optional<Replacement> replacement;
  arrow::StringBuilder builder;
  std::string result;
  return EachRow(batch, out, &builder, args, [&](int64_t i) -> Status {
    ARROW_ASSIGN_OR_RAISE(const Regex* regex, patterns.Get(args[1].Text(i)));
    std::string_view text = args[0].Text(i), rep = args[2].Text(i);
    int32_t position = args[3].Int(i);
    if (position <= 0) {
      return UserError(ErrorKind::kAnalysis, "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
                       "Cannot resolve \"regexp_replace\" due to data type mismatch: The position "
                       "must be between (0, 2147483647] (current value = " +
                           std::to_string(position) + ").",
                       "42K09");
    }
    if (regex != last_regex || rep != last_text) {
      last_regex = regex;
      last_text = std::string(rep);
      replacement.emplace(rep, *regex);
    }
    int64_t skip = position - 1;
    if (skip != 0 && skip >= Utf16Length(text)) return builder.Append(text);
    size_t from = Utf16ToByte(text, skip);
    std::string_view region = text.substr(from);
    result.assign(text.substr(0, from));
    size_t copied = 0;
    ARROW_RETURN_NOT_OK(EachMatch(
        *regex, region, regex->groups, [&](const Groups& g) -> Result<bool> {
          if (!replacement->ok()) {
            return UserError(ErrorKind::kRuntime, "INVALID_REGEXP_REPLACE",
                             "Could not perform regexp_replace for source = \"" +
                                 std::string(text) + "\", pattern = \"" +
                                 std::string(args[1].Text(i)) + "\", replacement = \"" +
                                 std::string(rep) + "\" and position = " +
                                 std::to_string(position) + ".",
                             "22023");
          }
          result.append(region.substr(copied, g.start() - copied));
          replacement->AppendTo(&result, g);
          copied = g.end();
          return true;
        }));
    result.append(region.substr(copied));
    return builder.Append(result);
  });
}

}  // namespace

arrow::Status RegisterRegexKernels(arrow::compute::FunctionRegistry* registry) {
  auto text = cp::InputType(arrow::Type::STRING);
  auto int32 = cp::InputType(arrow::Type::INT32);
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_regexp_extract", cp::Arity::Ternary(),
                                      {text, text, int32}, cp::OutputType(arrow::utf8()),
                                      ExtractExec<false>));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_regexp_substr", cp::Arity::Binary(),
                                      {text, text}, cp::OutputType(arrow::utf8()),
                                      ExtractExec<true>));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_regexp_extract_all", cp::Arity::Ternary(),
                                      {text, text, int32},
                                      cp::OutputType(plan::ArrayOf(arrow::utf8())),
                                      ExtractAllExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_regexp_count", cp::Arity::Binary(),
                                      {text, text}, cp::OutputType(arrow::int32()), CountExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_regexp_instr", cp::Arity::Ternary(),
                                      {text, text, int32}, cp::OutputType(arrow::int32()),
                                      InstrExec));
  ARROW_RETURN_NOT_OK(AddScalarKernel(registry, "ember_rlike", cp::Arity::Binary(), {text, text},
                                      cp::OutputType(arrow::boolean()), RlikeExec));
  return AddScalarKernel(registry, "ember_regexp_replace", cp::Arity(4, false),
                         {text, text, text, int32}, cp::OutputType(arrow::utf8()), ReplaceExec);
}

}  // namespace ember::exec
