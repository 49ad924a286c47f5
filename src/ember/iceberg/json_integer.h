// Integer fields of Iceberg's metadata JSON. nlohmann's get<int64_t>() casts whatever number it
// holds: a float out of range (1e85) is undefined behaviour, 1.5 becomes 1 and 2^40 as an int
// wraps. These take only an integer that fits, and otherwise throw std::invalid_argument naming
// the field, which the metadata readers turn into a malformed-metadata error.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace ember::iceberg {

template <typename T>
T JsonInteger(const nlohmann::json& value, const char* name) {
  if (value.is_number_unsigned()) {
    if (value.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max())) {
      return static_cast<T>(value.get<uint64_t>());
    }
  } else if (value.is_number_integer()) {
    int64_t v = value.get<int64_t>();
    if (v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max()) {
      return static_cast<T>(v);
    }
  }
  throw std::invalid_argument(std::string(name) + " is not a " + std::to_string(sizeof(T) * 8) +
                              "-bit integer: " + value.dump());
}

/// The integer `object[key]`, or `fallback` when the key is absent.
template <typename T>
T JsonInteger(const nlohmann::json& object, const char* key, T fallback) {
  auto it = object.find(key);
  return it == object.end() ? fallback : JsonInteger<T>(*it, key);
}

}  // namespace ember::iceberg
