// RE2 behind a C interface, built as a module of its own (libember_re2.so) that
// exec/regex_kernels.cc loads beside the Python module with a symbol scope of its own. pyarrow's
// libarrow_compute exports its own, newer RE2 under many of the same names: linked into one
// scope, either library would call the other's functions on its objects.

#include <re2/re2.h>

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" {

// The compiled pattern, or null if RE2 refuses it; *groups its capturing groups.
__attribute__((visibility("default"))) void* ember_re2_compile(const char* pattern, size_t length,
                                                               int* groups) {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(64 << 20);
  auto* re = new RE2(re2::StringPiece(pattern, length), options);
  if (!re->ok()) {
    delete re;
    return nullptr;
  }
  *groups = re->NumberOfCapturingGroups();
  return re;
}

// The first match in text[from, length), the whole text its context (for ^ and \b): 1 and
// spans[2k], spans[2k + 1] the byte offsets of group k < n (-1 where a group took no part), or 0.
__attribute__((visibility("default"))) int ember_re2_match(const void* compiled, const char* text,
                                                           size_t length, size_t from, int n,
                                                           int64_t* spans) {
  const auto& re = *static_cast<const RE2*>(compiled);
  std::vector<re2::StringPiece> groups(static_cast<size_t>(n));
  re2::StringPiece subject(text, length);
  if (!re.Match(subject, from, length, RE2::UNANCHORED, groups.data(), n)) return 0;
  for (int k = 0; k < n; ++k) {
    const auto& g = groups[static_cast<size_t>(k)];
    spans[2 * k] = g.data() ? g.data() - text : -1;
    spans[2 * k + 1] = g.data() ? g.data() - text + static_cast<int64_t>(g.size()) : -1;
  }
  return 1;
}

__attribute__((visibility("default"))) void ember_re2_free(void* compiled) {
  delete static_cast<RE2*>(compiled);
}

}  // extern "C"
