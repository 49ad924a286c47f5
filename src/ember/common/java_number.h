// Numbers as the JVM prints them, where Spark's text is Java's: names of literals, cells of
// show().
#pragma once

#include <string>

namespace ember {

/// Double.toString / Float.toString: the shortest digits that read back as the same value,
/// plain for 1e-3 <= |x| < 1e7 and as d.dddE<n> otherwise ("2.0", "1.0E20", "NaN").
std::string JavaNumberText(double x);
std::string JavaNumberText(float x);

}  // namespace ember
