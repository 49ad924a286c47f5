// HyperLogLog++ as Spark's approx_count_distinct computes it (the dense form only; Spark keeps no
// sparse form), so that Ember's estimates are Spark's to the last digit.
//
// A sketch has m = 2^p registers of 6 bits, packed ten to a 64-bit word from the low bits up (the
// top 4 bits of each word stay zero): m / 10 + 1 words. Ember stores a sketch as the words'
// little-endian bytes in one binary value; in a state store this value is the aggregate's buffer.
//
//  - add: a value's 64-bit hash h (Spark's xxhash64 with seed 42, see spark_hash.h) picks
//    register h >> (64 - p); the register keeps the largest rank seen, where the rank is the
//    number of leading zeros of the remaining 64 - p bits, plus one (at most 64 - p + 1).
//  - merge: register by register, the larger value.
//  - estimate: the raw HyperLogLog estimate E = alpha * m^2 / sum(2^-register); below 5m it is
//    corrected by the empirical bias of HLL++ (the mean bias of the 6 published raw estimates
//    nearest to E); while some registers are zero and linear counting m * ln(m / zeros) is at most
//    the precision's threshold (or E <= 2.5m), linear counting wins. Rounded half up to a long.
#pragma once

#include <arrow/compute/function_options.h>
#include <arrow/result.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace ember {

/// The options of the approx_count_distinct kernels: the sketch's precision p.
class HyperLogLogOptions : public arrow::compute::FunctionOptions {
 public:
  explicit HyperLogLogOptions(int precision = 9);
  static constexpr char const kTypeName[] = "EmberHyperLogLogOptions";
  int precision;
};

class HyperLogLog {
 public:
  static constexpr int kMinPrecision = 4;
  static constexpr int kRegistersPerWord = 10;

  /// Spark's precision for a relative standard deviation: ceil(2 * log2(1.106 / rsd)). Fails,
  /// with Spark's FAILED_FUNCTION_CALL, when that is below 4 (rsd above about 0.39).
  static arrow::Result<int> PrecisionFor(double relative_sd);

  explicit HyperLogLog(int precision);

  int precision() const { return p_; }
  int num_registers() const { return m_; }
  int num_words() const { return m_ / kRegistersPerWord + 1; }
  int sketch_bytes() const { return num_words() * 8; }
  /// The precision of a sketch of `bytes` bytes, or an error if no precision has that size.
  static arrow::Result<int> PrecisionOfSketch(int64_t bytes);

  /// Records a value by its hash.
  void Add(std::span<uint64_t> words, uint64_t hash) const;
  /// into := register-wise max(into, from).
  void Merge(std::span<uint64_t> into, std::span<const uint64_t> from) const;
  /// The cardinality estimate of a sketch.
  int64_t Estimate(std::span<const uint64_t> words) const;

  /// The bias HLL++ subtracts from a raw estimate (exposed for tests).
  double EstimateBias(double raw) const;

 private:
  int p_;
  int m_;
  double alpha_m2_;
};

}  // namespace ember
