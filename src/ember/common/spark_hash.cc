#include "ember/common/spark_hash.h"

#include <arrow/array.h>
#include <arrow/type.h>
#include <arrow/util/decimal.h>
#include <xxhash.h>

#include <array>
#include <bit>
#include <cstring>
#include <string_view>

namespace ember {

static_assert(std::endian::native == std::endian::little,
              "Spark hashes ints and longs by their little-endian bytes; a big-endian host would "
              "need byte swaps here");

namespace {

// Spark's two hashes of ints, longs and bytes; the value walk below is shared.
struct XxHash64 {
  static uint64_t Bytes(const void* data, size_t size, uint64_t seed) {
    return XXH64(data, size, seed);
  }
  static uint64_t Int(int32_t v, uint64_t seed) { return Bytes(&v, sizeof v, seed); }
  static uint64_t Long(int64_t v, uint64_t seed) { return Bytes(&v, sizeof v, seed); }
};

// Murmur3_x86_32 as Spark's Murmur3_x86_32 computes it (32-bit seed and result), bytes by its
// hashUnsafeBytes: whole 4-byte words, then each remaining byte (sign-extended) as a word.
struct Murmur3 {
  static uint32_t MixK1(uint32_t k1) {
    k1 *= 0xcc9e2d51u;
    k1 = std::rotl(k1, 15);
    return k1 * 0x1b873593u;
  }
  static uint32_t MixH1(uint32_t h1, uint32_t k1) {
    h1 ^= k1;
    h1 = std::rotl(h1, 13);
    return h1 * 5 + 0xe6546b64u;
  }
  static uint32_t Finish(uint32_t h1, uint32_t length) {
    h1 ^= length;
    h1 ^= h1 >> 16;
    h1 *= 0x85ebca6bu;
    h1 ^= h1 >> 13;
    h1 *= 0xc2b2ae35u;
    return h1 ^ (h1 >> 16);
  }
  static uint64_t Bytes(const void* data, size_t size, uint64_t seed) {
    const auto* bytes = static_cast<const uint8_t*>(data);
    auto h1 = static_cast<uint32_t>(seed);
    size_t aligned = size - size % 4;
    for (size_t i = 0; i < aligned; i += 4) {
      uint32_t word;
      std::memcpy(&word, bytes + i, 4);
      h1 = MixH1(h1, MixK1(word));
    }
    for (size_t i = aligned; i < size; ++i) {
      h1 = MixH1(h1, MixK1(static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(bytes[i])))));
    }
    return Finish(h1, static_cast<uint32_t>(size));
  }
  static uint64_t Int(int32_t v, uint64_t seed) {
    uint32_t h1 = MixH1(static_cast<uint32_t>(seed), MixK1(static_cast<uint32_t>(v)));
    return Finish(h1, 4);
  }
  static uint64_t Long(int64_t v, uint64_t seed) {
    auto bits = static_cast<uint64_t>(v);
    uint32_t h1 = MixH1(static_cast<uint32_t>(seed), MixK1(static_cast<uint32_t>(bits)));
    h1 = MixH1(h1, MixK1(static_cast<uint32_t>(bits >> 32)));
    return Finish(h1, 8);
  }
};

template <typename H>
uint64_t HashFloat(float v, uint64_t seed) {
  if (v == 0.0f) return H::Int(0, seed);        // -0.0 as 0.0
  if (v != v) return H::Int(0x7fc00000, seed);  // the canonical NaN
  return H::Int(std::bit_cast<int32_t>(v), seed);
}

template <typename H>
uint64_t HashDouble(double v, uint64_t seed) {
  if (v == 0.0) return H::Long(0, seed);
  if (v != v) return H::Long(0x7ff8000000000000LL, seed);
  return H::Long(std::bit_cast<int64_t>(v), seed);
}

// A decimal of more than 18 digits: the unscaled value's shortest big-endian two's complement
// bytes, at least one.
template <typename H>
uint64_t HashWideDecimal(const arrow::Decimal128& unscaled, uint64_t seed) {
  std::array<uint8_t, 16> big;
  const auto high = static_cast<uint64_t>(unscaled.high_bits());
  const uint64_t low = unscaled.low_bits();
  for (int i = 0; i < 8; ++i) {
    big[static_cast<size_t>(i)] = static_cast<uint8_t>(high >> (56 - 8 * i));
    big[static_cast<size_t>(8 + i)] = static_cast<uint8_t>(low >> (56 - 8 * i));
  }
  size_t start = 0;
  // A leading byte is redundant when it only repeats the sign that the next byte's top bit has.
  while (start + 1 < big.size()) {
    const uint8_t b = big[start];
    const bool next_negative = (big[start + 1] & 0x80) != 0;
    if ((b == 0x00 && !next_negative) || (b == 0xff && next_negative)) {
      ++start;
    } else {
      break;
    }
  }
  return H::Bytes(big.data() + start, big.size() - start, seed);
}

int64_t ToMicros(int64_t v, arrow::TimeUnit::type unit) {
  switch (unit) {
    case arrow::TimeUnit::SECOND:
      return v * 1000000;
    case arrow::TimeUnit::MILLI:
      return v * 1000;
    case arrow::TimeUnit::MICRO:
      return v;
    case arrow::TimeUnit::NANO:
      return v >= 0 ? v / 1000 : -((-v + 999) / 1000);
  }
  return v;
}

template <typename ArrayType>
const ArrayType& As(const arrow::Array& a) {
  return static_cast<const ArrayType&>(a);
}

// The hash of row i of `a` with `seed` (Spark's hash of one value).
template <typename H>
uint64_t HashValue(const arrow::Array& a, int64_t i, uint64_t seed) {
  if (a.IsNull(i)) return seed;
  switch (a.type_id()) {
    case arrow::Type::BOOL:
      return H::Int(As<arrow::BooleanArray>(a).Value(i) ? 1 : 0, seed);
    case arrow::Type::INT8:
      return H::Int(As<arrow::Int8Array>(a).Value(i), seed);
    case arrow::Type::INT16:
      return H::Int(As<arrow::Int16Array>(a).Value(i), seed);
    case arrow::Type::INT32:
      return H::Int(As<arrow::Int32Array>(a).Value(i), seed);
    case arrow::Type::DATE32:
      return H::Int(As<arrow::Date32Array>(a).Value(i), seed);
    case arrow::Type::INTERVAL_MONTHS:
      return H::Int(As<arrow::MonthIntervalArray>(a).Value(i), seed);
    case arrow::Type::INT64:
      return H::Long(As<arrow::Int64Array>(a).Value(i), seed);
    case arrow::Type::TIMESTAMP: {
      const auto& t = static_cast<const arrow::TimestampType&>(*a.type());
      return H::Long(ToMicros(As<arrow::TimestampArray>(a).Value(i), t.unit()), seed);
    }
    case arrow::Type::DURATION: {
      const auto& t = static_cast<const arrow::DurationType&>(*a.type());
      return H::Long(ToMicros(As<arrow::DurationArray>(a).Value(i), t.unit()), seed);
    }
    case arrow::Type::FLOAT:
      return HashFloat<H>(As<arrow::FloatArray>(a).Value(i), seed);
    case arrow::Type::DOUBLE:
      return HashDouble<H>(As<arrow::DoubleArray>(a).Value(i), seed);
    case arrow::Type::DECIMAL128: {
      const auto& d = As<arrow::Decimal128Array>(a);
      const arrow::Decimal128 unscaled(d.GetValue(i));
      if (static_cast<const arrow::Decimal128Type&>(*a.type()).precision() <= 18) {
        return H::Long(static_cast<int64_t>(unscaled.low_bits()), seed);
      }
      return HashWideDecimal<H>(unscaled, seed);
    }
    case arrow::Type::STRING:
    case arrow::Type::BINARY: {
      std::string_view v = As<arrow::BinaryArray>(a).GetView(i);
      return H::Bytes(v.data(), v.size(), seed);
    }
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY: {
      std::string_view v = As<arrow::LargeBinaryArray>(a).GetView(i);
      return H::Bytes(v.data(), v.size(), seed);
    }
    case arrow::Type::FIXED_SIZE_BINARY: {
      std::string_view v = As<arrow::FixedSizeBinaryArray>(a).GetView(i);
      return H::Bytes(v.data(), v.size(), seed);
    }
    case arrow::Type::STRUCT: {
      const auto& s = As<arrow::StructArray>(a);
      uint64_t h = seed;
      for (int f = 0; f < s.num_fields(); ++f) h = HashValue<H>(*s.field(f), i, h);
      return h;
    }
    case arrow::Type::MAP: {
      const auto& m = As<arrow::MapArray>(a);
      uint64_t h = seed;
      for (int64_t j = m.value_offset(i); j < m.value_offset(i + 1); ++j) {
        h = HashValue<H>(*m.keys(), j, h);
        h = HashValue<H>(*m.items(), j, h);
      }
      return h;
    }
    case arrow::Type::LIST: {
      const auto& l = As<arrow::ListArray>(a);
      uint64_t h = seed;
      for (int64_t j = l.value_offset(i); j < l.value_offset(i + 1); ++j)
        h = HashValue<H>(*l.values(), j, h);
      return h;
    }
    case arrow::Type::LARGE_LIST: {
      const auto& l = As<arrow::LargeListArray>(a);
      uint64_t h = seed;
      for (int64_t j = l.value_offset(i); j < l.value_offset(i + 1); ++j)
        h = HashValue<H>(*l.values(), j, h);
      return h;
    }
    case arrow::Type::FIXED_SIZE_LIST: {
      const auto& l = As<arrow::FixedSizeListArray>(a);
      uint64_t h = seed;
      for (int64_t j = l.value_offset(i); j < l.value_offset(i) + l.value_length(); ++j) {
        h = HashValue<H>(*l.values(), j, h);
      }
      return h;
    }
    default:
      return seed;  // not reached: SparkXxHash64 checks the type first
  }
}

}  // namespace

bool SparkHashable(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::NA:
    case arrow::Type::BOOL:
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::DATE32:
    case arrow::Type::TIMESTAMP:
    case arrow::Type::DURATION:
    case arrow::Type::INTERVAL_MONTHS:
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE:
    case arrow::Type::DECIMAL128:
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::FIXED_SIZE_BINARY:
      return true;
    case arrow::Type::STRUCT:
    case arrow::Type::MAP:
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST:
    case arrow::Type::FIXED_SIZE_LIST:
      for (const auto& field : type.fields()) {
        if (!SparkHashable(*field->type())) return false;
      }
      return true;
    default:
      return false;
  }
}

arrow::Result<std::vector<uint64_t>> SparkXxHash64(const arrow::Array& values, uint64_t seed) {
  if (!SparkHashable(*values.type())) {
    return arrow::Status::NotImplemented("Spark's xxhash64 of ", values.type()->ToString());
  }
  std::vector<uint64_t> hashes(static_cast<size_t>(values.length()), seed);
  if (values.type_id() == arrow::Type::NA) return hashes;
  for (int64_t i = 0; i < values.length(); ++i) {
    hashes[static_cast<size_t>(i)] = HashValue<XxHash64>(values, i, seed);
  }
  return hashes;
}

arrow::Result<std::vector<int32_t>> SparkMurmur3Hash(const arrow::Array& values, int32_t seed) {
  if (!SparkHashable(*values.type())) {
    return arrow::Status::NotImplemented("Spark's hash of ", values.type()->ToString());
  }
  const auto unsigned_seed = static_cast<uint32_t>(seed);
  std::vector<int32_t> hashes(static_cast<size_t>(values.length()), seed);
  if (values.type_id() == arrow::Type::NA) return hashes;
  for (int64_t i = 0; i < values.length(); ++i) {
    hashes[static_cast<size_t>(i)] =
        static_cast<int32_t>(static_cast<uint32_t>(HashValue<Murmur3>(values, i, unsigned_seed)));
  }
  return hashes;
}

}  // namespace ember
