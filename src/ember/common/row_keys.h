// Row keys as bytes: one canonical byte string per row for some columns, so rows can be
// compared, hashed and looked up without a typed comparison per column.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/result.h>
#include <arrow/type_fwd.h>

namespace ember {

// FNV-1a: state partitions in checkpoints depend on it, so it never changes.
inline constexpr uint64_t kFnvOffset = 14695981039346656037ULL;
inline constexpr uint64_t kFnvPrime = 1099511628211ULL;

/// Rows' keys as bytes, back to back in one buffer: no allocation per row, which for a
/// million rows of one 8-byte key is half the memory of a string each.
class EncodedKeys {
 public:
  EncodedKeys(std::string bytes, std::vector<int64_t> offsets)
      : bytes_(std::move(bytes)), offsets_(std::move(offsets)) {}

  size_t size() const { return offsets_.size() - 1; }
  std::string_view operator[](size_t row) const {
    return {bytes_.data() + offsets_[row], static_cast<size_t>(offsets_[row + 1] - offsets_[row])};
  }

  struct Iterator {
    using iterator_category = std::input_iterator_tag;
    using value_type = std::string_view;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::string_view;
    const EncodedKeys* keys;
    size_t row;
    std::string_view operator*() const { return (*keys)[row]; }
    Iterator& operator++() {
      ++row;
      return *this;
    }
    bool operator==(const Iterator& other) const { return row == other.row; }
  };
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size()}; }

 private:
  std::string bytes_;
  std::vector<int64_t> offsets_;  // row i is bytes_[offsets_[i], offsets_[i + 1])
};

/// The first `num_keys` columns of each row as bytes: equal keys (NULL included), equal bytes.
arrow::Result<EncodedKeys> EncodeKeys(const arrow::Table& table, int num_keys);

/// The FNV-1a hash of an encoded key.
uint64_t HashKey(std::string_view key);

/// HashKey of each row's EncodeKeys bytes, without building them.
arrow::Result<std::vector<uint64_t>> HashKeys(const arrow::Table& table, int num_keys);

}  // namespace ember
