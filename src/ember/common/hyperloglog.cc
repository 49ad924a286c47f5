#include "ember/common/hyperloglog.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

#include "ember/error.h"

namespace ember {

namespace cp = arrow::compute;

namespace {

// Precisions 4..18 have HLL++'s bias correction and linear-counting thresholds; larger ones use
// plain HyperLogLog, as in Spark.
constexpr int kMaxCorrectedPrecision = 18;
// Spark has no upper bound (its buffer just grows); Ember stops where one sketch reaches 27 MB.
constexpr int kMaxPrecision = 25;
constexpr uint64_t kRegisterMask = 0x3f;
constexpr int kRegisterBits = 6;
constexpr int kNeighbours = 6;  // bias points averaged around a raw estimate

// Linear counting is used up to these estimates, per precision 4..18: the values Spark 4.0.1 uses
// (read from it; 15500 for p = 14 where the HLL++ paper's table is commonly quoted as 11500).
constexpr double kLinearCountingThreshold[] = {10,   20,   40,    80,    220,   400,    900,   1800,
                                               3100, 6500, 15500, 20000, 50000, 120000, 350000};

struct BiasPoint {
  int precision;
  double estimate;
  double bias;
};

constexpr BiasPoint kBiasPoints[] = {
#include "ember/common/hyperloglog_bias.inc"
};

// The points of one precision, as parallel arrays.
struct BiasTable {
  std::vector<double> estimates;
  std::vector<double> biases;
};

const BiasTable& BiasTableOf(int precision) {
  static const std::vector<BiasTable> tables = [] {
    std::vector<BiasTable> t(kMaxCorrectedPrecision + 1);
    for (const auto& point : kBiasPoints) {
      t[static_cast<size_t>(point.precision)].estimates.push_back(point.estimate);
      t[static_cast<size_t>(point.precision)].biases.push_back(point.bias);
    }
    return t;
  }();
  return tables[static_cast<size_t>(precision)];
}

// The index where `key` is, or else where it would be inserted, found by bisection in the exact
// steps of java.util.Arrays.binarySearch (the published estimates are not strictly increasing
// everywhere, so another search could land on another neighbour).
size_t BisectionIndex(const std::vector<double>& values, double key) {
  int64_t low = 0, high = static_cast<int64_t>(values.size()) - 1;
  while (low <= high) {
    int64_t mid = (low + high) / 2;
    double v = values[static_cast<size_t>(mid)];
    if (v < key) {
      low = mid + 1;
    } else if (v > key) {
      high = mid - 1;
    } else {
      return static_cast<size_t>(mid);
    }
  }
  return static_cast<size_t>(low);
}

// Java's Math.round: the nearest long, halves up.
int64_t RoundHalfUp(double x) {
  double floor = std::floor(x);
  return static_cast<int64_t>(x - floor >= 0.5 ? floor + 1 : floor);
}

class HyperLogLogOptionsType : public cp::FunctionOptionsType {
 public:
  const char* type_name() const override { return HyperLogLogOptions::kTypeName; }
  std::string Stringify(const cp::FunctionOptions& options) const override {
    return "HyperLogLogOptions(precision=" +
           std::to_string(static_cast<const HyperLogLogOptions&>(options).precision) + ")";
  }
  bool Compare(const cp::FunctionOptions& a, const cp::FunctionOptions& b) const override {
    return static_cast<const HyperLogLogOptions&>(a).precision ==
           static_cast<const HyperLogLogOptions&>(b).precision;
  }
  std::unique_ptr<cp::FunctionOptions> Copy(const cp::FunctionOptions& options) const override {
    return std::make_unique<HyperLogLogOptions>(
        static_cast<const HyperLogLogOptions&>(options).precision);
  }
};

const cp::FunctionOptionsType* OptionsType() {
  static const HyperLogLogOptionsType type;
  return &type;
}

}  // namespace

HyperLogLogOptions::HyperLogLogOptions(int precision)
    : cp::FunctionOptions(OptionsType()), precision(precision) {}

arrow::Result<int> HyperLogLog::PrecisionFor(double relative_sd) {
  double p = std::ceil(2.0 * std::log(1.106 / relative_sd) / std::log(2.0));
  if (!(p >= kMinPrecision)) {
    // Spark's requirement fails inside the function's constructor, which it reports so.
    return UserError(ErrorKind::kAnalysis, "FAILED_FUNCTION_CALL",
                     "Failed preparing of the function `approx_count_distinct` for call. "
                     "Please, double check function's arguments.",
                     "38000");
  }
  if (p > kMaxPrecision) {
    return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                     "The feature is not supported: approx_count_distinct with a relative "
                     "standard deviation below " +
                         std::to_string(1.106 / std::exp2(kMaxPrecision / 2.0)) +
                         " (precision above " + std::to_string(kMaxPrecision) + ").",
                     "0A000");
  }
  return static_cast<int>(p);
}

HyperLogLog::HyperLogLog(int precision) : p_(precision), m_(1 << precision) {
  const double m = m_;
  switch (p_) {
    case 4:
      alpha_m2_ = 0.673 * m * m;
      break;
    case 5:
      alpha_m2_ = 0.697 * m * m;
      break;
    case 6:
      alpha_m2_ = 0.709 * m * m;
      break;
    default:
      alpha_m2_ = (0.7213 / (1.0 + 1.079 / m)) * m * m;
      break;
  }
}

arrow::Result<int> HyperLogLog::PrecisionOfSketch(int64_t bytes) {
  for (int p = kMinPrecision; p <= kMaxPrecision; ++p) {
    if (HyperLogLog(p).sketch_bytes() == bytes) return p;
  }
  return arrow::Status::Invalid("approx_count_distinct: no sketch has ", bytes, " bytes");
}

void HyperLogLog::Add(std::span<uint64_t> words, uint64_t hash) const {
  const auto index = static_cast<int>(hash >> (64 - p_));
  // The rest of the hash, shifted up, with a 1 where it ends so the rank stays below 65 - p.
  const uint64_t rest = (hash << p_) | (uint64_t{1} << (p_ - 1));
  const auto rank = static_cast<uint64_t>(std::countl_zero(rest) + 1);
  uint64_t& word = words[static_cast<size_t>(index / kRegistersPerWord)];
  const int shift = kRegisterBits * (index % kRegistersPerWord);
  if (rank > ((word >> shift) & kRegisterMask)) {
    word = (word & ~(kRegisterMask << shift)) | (rank << shift);
  }
}

void HyperLogLog::Merge(std::span<uint64_t> into, std::span<const uint64_t> from) const {
  for (size_t w = 0; w < into.size(); ++w) {
    uint64_t merged = 0;
    for (int r = 0; r < kRegistersPerWord; ++r) {
      const uint64_t mask = kRegisterMask << (kRegisterBits * r);
      merged |= std::max(into[w] & mask, from[w] & mask);
    }
    into[w] = merged;
  }
}

double HyperLogLog::EstimateBias(double raw) const {
  const BiasTable& table = BiasTableOf(p_);
  const auto n = static_cast<int64_t>(table.estimates.size());
  auto distance = [&](int64_t i) {
    double d = raw - table.estimates[static_cast<size_t>(i)];
    return d * d;
  };
  // A window of the 6 points nearest to the raw estimate: start with the 6 ending at the insertion
  // point and slide up while the next point above is nearer than the window's lowest.
  const auto nearest = static_cast<int64_t>(BisectionIndex(table.estimates, raw));
  int64_t low = std::max<int64_t>(nearest - kNeighbours + 1, 0);
  int64_t high = std::min<int64_t>(low + kNeighbours, n);
  while (high < n && distance(high) < distance(low)) {
    ++low;
    ++high;
  }
  double sum = 0.0;
  for (int64_t i = low; i < high; ++i) sum += table.biases[static_cast<size_t>(i)];
  return sum / static_cast<double>(high - low);
}

int64_t HyperLogLog::Estimate(std::span<const uint64_t> words) const {
  // In register order, as the floating-point sum must be the same as Spark's.
  double inverse_sum = 0.0;
  double zeros = 0.0;
  int index = 0;
  for (uint64_t word : words) {
    for (int r = 0; r < kRegistersPerWord && index < m_; ++r, ++index) {
      const auto value = static_cast<int>((word >> (kRegisterBits * r)) & kRegisterMask);
      inverse_sum += 1.0 / static_cast<double>(uint64_t{1} << value);
      if (value == 0) zeros += 1.0;
    }
  }
  const double m = m_;
  const double raw = alpha_m2_ / inverse_sum;
  auto corrected = [&] {
    return p_ <= kMaxCorrectedPrecision && raw < 5.0 * m ? raw - EstimateBias(raw) : raw;
  };
  double estimate;
  if (zeros > 0) {
    const double linear = m * std::log(m / zeros);
    const bool small =
        p_ <= kMaxCorrectedPrecision && linear <= kLinearCountingThreshold[p_ - kMinPrecision];
    estimate = small || raw <= 2.5 * m ? linear : corrected();
  } else {
    estimate = corrected();
  }
  return RoundHalfUp(estimate);
}

}  // namespace ember
