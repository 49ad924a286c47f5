// Spark's math functions: DOUBLE in (numbers and text cast to it), DOUBLE out, with Java's
// Math results: NaN outside a function's domain, NULL for the logarithm of a value at or below
// its asymptote.

#include <limits>
#include <numbers>

#include "ember/plan/function_util.h"

namespace ember::plan::fn {

namespace {

using arrow::Result;

// Spark's unary math functions are all nullable.
Result<TypedCall> UnaryMathRule(const Expr& call, std::vector<ExprPtr> args) {
  ARROW_ASSIGN_OR_RAISE(auto typed, PowerRule(call, std::move(args)));
  typed.nullable = true;
  return typed;
}

// f(x) of one double, as the arrow function `kernel` computes it.
FunctionDef Unary(std::string name, std::string kernel) {
  return Direct(std::move(name), 1, UnaryMathRule, std::move(kernel));
}

// f(x) of one double, lowered by `lower` from the argument.
FunctionDef UnaryOf(std::string name, std::function<cp::Expression(cp::Expression)> lower) {
  return Scalar(std::move(name), 1, 1, UnaryMathRule,
                [lower](const Expr&, std::vector<cp::Expression> a,
                        const EvalContext&) -> Result<cp::Expression> { return lower(a[0]); });
}

cp::Expression Double(double v) { return cp::literal(v); }

// A logarithm, NULL when x <= asymptote (Spark's UnaryLogExpression).
FunctionDef Logarithm(std::string name, std::string kernel, double asymptote) {
  return UnaryOf(std::move(name), [kernel, asymptote](cp::Expression x) {
    return Fn("if_else", {Fn("less_equal", {x, Double(asymptote)}),
                          cp::literal(arrow::MakeNullScalar(arrow::float64())), Fn(kernel, {x})});
  });
}

// A constant of no arguments (pi(), e()).
FunctionDef Constant(std::string name, double value) {
  return Scalar(
      std::move(name), 0, 0,
      [](const Expr&, std::vector<ExprPtr> args) -> Result<TypedCall> {
        return TypedCall{arrow::float64(), false, std::move(args)};
      },
      [value](const Expr&, std::vector<cp::Expression>, const EvalContext&)
          -> Result<cp::Expression> { return Double(value); });
}

// An integral argument as INT or BIGINT (smaller types widen to INT): shiftleft's and its kin's.
Result<TypedCall> ShiftRule(const Expr& call, std::vector<ExprPtr> args) {
  for (size_t i = 0; i < 2; ++i) {
    if (IsNullType(*args[i]->type)) args[i] = CastIfNeeded(args[i], arrow::int32());
  }
  auto id = args[0]->type->id();
  if (!IsIntegral(*args[0]->type)) return UnexpectedType(call, 0, *args[0], "(\"INT\" or \"BIGINT\")");
  if (id != arrow::Type::INT64) args[0] = CastIfNeeded(args[0], arrow::int32());
  if (!IsIntegral(*args[1]->type) || args[1]->type->id() == arrow::Type::INT64) {
    return UnexpectedType(call, 1, *args[1], "\"INT\"");
  }
  args[1] = CastIfNeeded(args[1], arrow::int32());
  auto type = args[0]->type;
  return Typed(std::move(args), type);
}

// a << n, a >> n, a >>> n with Java's rule: the shift counts modulo the width of a.
FunctionDef Shift(std::string name, bool left, bool is_unsigned) {
  return Scalar(std::move(name), 2, 2, ShiftRule,
                [left, is_unsigned](const Expr& call, std::vector<cp::Expression> a,
                                    const EvalContext&) -> Result<cp::Expression> {
                  bool wide = call.type->id() == arrow::Type::INT64;
                  auto bits = wide ? arrow::int64() : arrow::int32();
                  auto n = CastTo(Fn("bit_wise_and", {a[1], cp::literal(wide ? 63 : 31)}), bits);
                  // Arrow leaves a signed value unchanged when shifted by its width - 1: left
                  // and logical shifts run unsigned, an arithmetic one in two halves.
                  auto as_unsigned = wide ? arrow::uint64() : arrow::uint32();
                  auto unsigned_n = CastTo(n, as_unsigned, false);
                  if (left || is_unsigned) {
                    auto shifted = Fn(left ? "shift_left" : "shift_right",
                                      {CastTo(a[0], as_unsigned, false), unsigned_n});
                    return CastTo(shifted, bits, false);
                  }
                  auto half = Fn("divide", {n, CastTo(cp::literal(2), bits)});
                  return Fn("shift_right", {Fn("shift_right", {a[0], half}),
                                            Fn("subtract", {n, half})});
                });
}

// try_add(a, b), try_subtract, try_multiply, try_divide, try_mod: the operator `op` with its
// types, NULL where it would fail. Decimals and timestamps take the operator's own lowering.
FunctionDef TryArithmetic(std::string name, std::string op, int code) {
  auto as_operator = [op](const Expr& call) {
    auto renamed = std::make_shared<Expr>(call);
    renamed->name = op;
    return renamed;
  };
  return Scalar(
      std::move(name), 2, 2,
      [as_operator](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        ARROW_ASSIGN_OR_RAISE(auto typed, ArithmeticRule(*as_operator(call), std::move(args)));
        typed.nullable = true;
        return typed;
      },
      [as_operator, op, code](const Expr& call, std::vector<cp::Expression> a,
                              const EvalContext& ctx) -> Result<cp::Expression> {
        const auto id = call.type->id();
        const bool plain = IsIntegral(*call.type) || id == arrow::Type::FLOAT ||
                           id == arrow::Type::DOUBLE;
        if (!plain || call.args[0]->type->id() != id || call.args[1]->type->id() != id) {
          return FindFunction(op)->lower(*as_operator(call), std::move(a), ctx);
        }
        return Fn("ember_try_arithmetic", {a[0], a[1], cp::literal(code)});
      });
}

}  // namespace

void AddMathFunctions(Catalog& c) {
  Add(c, TryArithmetic("try_add", "+", 0));
  Add(c, TryArithmetic("try_subtract", "-", 1));
  Add(c, TryArithmetic("try_multiply", "*", 2));
  Add(c, TryArithmetic("try_divide", "/", 3));
  Add(c, TryArithmetic("try_mod", "%", 4));
  for (const char* name : {"sqrt", "exp", "expm1", "sin", "cos", "tan", "asin", "acos", "atan",
                           "sinh", "cosh", "tanh"}) {
    Add(c, Unary(name, name));
  }
  Add(c, Unary("cbrt", "ember_cbrt"));
  // Spark's inverse hyperbolic functions are these formulas, not the C library's.
  Add(c, UnaryOf("asinh", [](cp::Expression x) {
        auto formula = Fn("ln", {Fn("add", {x, Fn("sqrt", {Fn("add", {Fn("multiply", {x, x}),
                                                                      Double(1)})})})});
        return Fn("if_else", {Fn("equal", {x, Double(-std::numeric_limits<double>::infinity())}), x, formula});
      }));
  Add(c, UnaryOf("acosh", [](cp::Expression x) {
        return Fn("ln", {Fn("add", {x, Fn("sqrt", {Fn("subtract", {Fn("multiply", {x, x}),
                                                                   Double(1)})})})});
      }));
  Add(c, UnaryOf("atanh", [](cp::Expression x) {
        return Fn("multiply", {Double(0.5), Fn("subtract", {Fn("log1p", {x}),
                                                            Fn("log1p", {Fn("negate", {x})})})});
      }));
  Add(c, UnaryOf("cot", [](cp::Expression x) { return Fn("divide", {Double(1), Fn("tan", {x})}); }));
  Add(c, UnaryOf("sec", [](cp::Expression x) { return Fn("divide", {Double(1), Fn("cos", {x})}); }));
  Add(c, UnaryOf("csc", [](cp::Expression x) { return Fn("divide", {Double(1), Fn("sin", {x})}); }));
  // Java's Math.toDegrees and toRadians multiply by these constants.
  Add(c, UnaryOf("degrees", [](cp::Expression x) {
        return Fn("multiply", {x, Double(57.29577951308232)});
      }));
  Add(c, UnaryOf("radians", [](cp::Expression x) {
        return Fn("multiply", {x, Double(0.017453292519943295)});
      }));
  Add(c, UnaryOf("rint", [](cp::Expression x) {
        return Fn("round", {x}, std::make_shared<cp::RoundOptions>(0, cp::RoundMode::HALF_TO_EVEN));
      }));
  // Math.signum keeps a zero's sign and a NaN.
  for (const char* name : {"sign", "signum"}) {
    Add(c, UnaryOf(name, [](cp::Expression x) {
          return Fn("if_else", {Fn("equal", {x, Double(0)}), x, Fn("sign", {x})});
        }));
  }
  Add(c, Logarithm("ln", "ln", 0));
  Add(c, Logarithm("log10", "log10", 0));
  Add(c, Logarithm("log2", "log2", 0));
  Add(c, Logarithm("log1p", "log1p", -1));
  // log(x) is ln(x); log(base, x) is ln(x) / ln(base), NULL unless both are positive.
  Add(c, Scalar("log", 1, 2, UnaryMathRule,
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  auto null = cp::literal(arrow::MakeNullScalar(arrow::float64()));
                  if (a.size() == 1) {
                    return Fn("if_else", {Fn("less_equal", {a[0], Double(0)}), null,
                                          Fn("ln", {a[0]})});
                  }
                  auto outside = Fn("or_kleene", {Fn("less_equal", {a[0], Double(0)}),
                                                  Fn("less_equal", {a[1], Double(0)})});
                  return Fn("if_else", {outside, null,
                                        Fn("divide", {Fn("ln", {a[1]}), Fn("ln", {a[0]})})});
                }));
  // Spark adds 0.0 to both sides, so a negative zero counts as a zero.
  Add(c, Scalar("atan2", 2, 2, PowerRule,
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return Fn("atan2", {Fn("add", {a[0], Double(0)}), Fn("add", {a[1], Double(0)})});
                }));
  Add(c, Direct("hypot", 2, PowerRule, "ember_hypot"));
  Add(c, Constant("pi", std::numbers::pi));
  Add(c, Constant("e", std::numbers::e));
  Add(c, Scalar(
             "factorial", 1, 1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               bool integral = IsNullType(*args[0]->type) || IsString(*args[0]->type) ||
                               IsIntegral(*args[0]->type);
               if (!integral) return UnexpectedType(call, 0, *args[0], "\"INT\"");
               args[0] = CastIfNeeded(args[0], arrow::int32());
               return TypedCall{arrow::int64(), true, std::move(args)};
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("ember_factorial", {a[0]});
             }));
  Add(c, Scalar("positive", 1, 1, NumericUnaryRule,
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> { return a[0]; }));
  // nanvl(a, b): b where a is NaN.
  Add(c, Scalar("nanvl", 2, 2, PowerRule,
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return Fn("if_else", {Fn("is_nan", {a[0]}), a[1], a[0]});
                }));
  Add(c, Shift("shiftleft", true, false));
  Add(c, Shift("shiftright", false, false));
  Add(c, Shift("shiftrightunsigned", false, true));
}

}  // namespace ember::plan::fn
