// Spark's conditional functions (nvl, nvl2, nullif, if, greatest, ...), its casts written as
// functions (int(x), string(x), ...), typeof, and the functions that are other names of ones the
// catalog has (mod for %, len for length, ...).

#include <pwd.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <functional>

#include "ember/common/random.h"
#include "ember/error.h"
#include "ember/plan/function_util.h"
#include "ember/plan/type_names.h"

namespace ember::plan::fn {

namespace {

using arrow::Result;

// Spark's wider type of two where text meets another type (findWiderTypeForString of its ANSI
// coercion): text and an integer make a BIGINT, text and a fraction a DOUBLE, text and another
// atomic type that type; the text is then cast, and fails if it does not parse.
std::shared_ptr<arrow::DataType> WiderWithText(const std::shared_ptr<arrow::DataType>& a,
                                               const std::shared_ptr<arrow::DataType>& b) {
  if (auto wider = WiderType(a, b)) return wider;
  if (IsString(*b) && !IsString(*a)) return WiderWithText(b, a);
  if (!IsString(*a)) return nullptr;
  if (IsIntegral(*b)) return arrow::int64();
  if (IsNumeric(*b)) return arrow::float64();
  switch (b->id()) {
    case arrow::Type::BOOL: case arrow::Type::DATE32: case arrow::Type::TIMESTAMP:
    case arrow::Type::BINARY:
      return b;
    default:
      return nullptr;
  }
}

// The arguments from `first` on cast to their common type (text promoted as WiderWithText).
Result<TypedCall> CommonWithText(const Expr& call, std::vector<ExprPtr> args, size_t first = 0) {
  std::shared_ptr<arrow::DataType> common = arrow::null();
  for (size_t i = first; i < args.size() && common; ++i) common = WiderWithText(common, args[i]->type);
  if (!common) return CommonType(call, std::move(args), first);  // its DATA_DIFF_TYPES error
  for (size_t i = first; i < args.size(); ++i) args[i] = CastIfNeeded(args[i], common);
  return fn::Typed(std::move(args), common);
}

cp::Expression Null(const std::shared_ptr<arrow::DataType>& type) {
  return cp::literal(arrow::MakeNullScalar(type));
}


// A cast written as a function: int(x) is CAST(x AS INT).
FunctionDef CastFunction(std::string name, std::shared_ptr<arrow::DataType> type) {
  return Scalar(
      std::move(name), 1, 1,
      [type](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        if (!CanCast(*args[0]->type, *type)) {
          return Mismatch(call, "CAST_WITHOUT_SUGGESTION",
                          "cannot cast " + TypeQuoted(*args[0]->type) + " to " +
                              TypeQuoted(*type));
        }
        bool nullable = args[0]->nullable;
        args[0] = CastIfNeeded(args[0], type);
        return TypedCall{type, nullable || args[0]->nullable, std::move(args)};
      },
      [](const Expr&, std::vector<cp::Expression> a,
         const EvalContext&) -> Result<cp::Expression> { return a[0]; });
}

// greatest / least: the largest / smallest non-NULL argument; NULL when all are.
FunctionDef Extreme(std::string name, std::string kernel) {
  return Scalar(
      std::move(name), 2, -1,
      [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        ARROW_ASSIGN_OR_RAISE(auto typed, CommonType(call, std::move(args)));
        typed.nullable = std::all_of(typed.args.begin(), typed.args.end(),
                                     [](const ExprPtr& a) { return a->nullable; });
        return typed;
      },
      [kernel](const Expr& call, std::vector<cp::Expression> a,
               const EvalContext&) -> Result<cp::Expression> {
        if (IsNullType(*call.type)) return Null(call.type);
        auto type = call.type->id();
        bool fractional = type == arrow::Type::DOUBLE || type == arrow::Type::FLOAT;
        std::vector<cp::Expression> nans;
        if (fractional) {
          for (const auto& arg : a) nans.push_back(Fn("coalesce", {Fn("is_nan", {arg}), cp::literal(false)}));
        }
        auto extreme = Fn(kernel, a, std::make_shared<cp::ElementWiseAggregateOptions>(true));
        if (!fractional) return extreme;
        // Spark orders NaN above every number: greatest of any NaN is NaN, least only of all.
        bool greatest = kernel == "max_element_wise";
        auto nan = Fn(greatest ? "or_kleene" : "and_kleene", {nans[0], nans[1]});
        for (size_t i = 2; i < nans.size(); ++i) nan = Fn(greatest ? "or_kleene" : "and_kleene", {nan, nans[i]});
        return Fn("if_else", {nan, CastTo(cp::literal(std::nan("")), call.type), extreme});
      });
}

// The value of `a` unless it equals `b` (then NULL), comparing in their common type.
Result<TypedCall> NullIfRule(const Expr& call, std::vector<ExprPtr> args) {
  auto common = WiderType(args[0]->type, args[1]->type);
  if (!common) {
    return Mismatch(call, "BINARY_OP_DIFF_TYPES",
                    "the left and right operands of the binary operator have incompatible types (" +
                        TypeQuoted(*args[0]->type) + " and " + TypeQuoted(*args[1]->type) + ")");
  }
  auto type = args[0]->type;
  args.push_back(CastIfNeeded(args[0], common));
  args[1] = CastIfNeeded(args[1], common);
  return TypedCall{type, true, std::move(args)};
}

cp::Expression NullIf(cp::Expression value, cp::Expression a, cp::Expression b,
                      const std::shared_ptr<arrow::DataType>& type) {
  auto equal = Fn("coalesce", {Fn("equal", {std::move(a), std::move(b)}), cp::literal(false)});
  return Fn("if_else", {equal, Null(type), std::move(value)});
}

// xxhash64(a, ...) and hash(a, ...): Spark's hashes of their arguments, each argument's hash the
// seed of the next's; never NULL. Maps have no stable hash in Spark (HASH_MAP_TYPE).
FunctionDef HashFunction(std::string name, std::shared_ptr<arrow::DataType> type,
                         std::string kernel) {
  return Scalar(
      std::move(name), 0, -1,
      [type](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        if (args.empty()) {
          return UserError(ErrorKind::kAnalysis, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                           "The `" + call.name +
                               "` requires > 0 parameters but the actual number is 0.",
                           "42605");
        }
        std::function<bool(const arrow::DataType&)> has_map = [&](const arrow::DataType& t) {
          if (t.id() == arrow::Type::MAP) return true;
          for (const auto& f : t.fields()) {
            if (has_map(*f->type())) return true;
          }
          return false;
        };
        for (const auto& arg : args) {
          if (has_map(*arg->type)) {
            return Mismatch(call, "HASH_MAP_TYPE",
                            "Input to the function `" + call.name +
                                "` cannot contain elements of the \"MAP\" type. In Spark, same "
                                "maps may have different hashcode, thus hash expressions are "
                                "prohibited on \"MAP\" elements. To restore previous behavior "
                                "set \"spark.sql.legacy.allowHashOnMapType\" to \"true\".");
          }
        }
        return TypedCall{type, false, std::move(args)};
      },
      [kernel](const Expr&, std::vector<cp::Expression> a,
               const EvalContext&) -> Result<cp::Expression> {
        std::vector<std::string> names;
        for (size_t i = 0; i < a.size(); ++i) names.push_back("a" + std::to_string(i));
        auto row = Fn("make_struct", std::move(a), std::make_shared<cp::MakeStructOptions>(names));
        return Fn(kernel, {row});
      });
}

// A function of no arguments whose value is a constant of the session (current_database()).
FunctionDef SessionValue(std::string name, std::function<std::string(const EvalContext&)> value) {
  return Scalar(
      std::move(name), 0, 0,
      [](const Expr&, std::vector<ExprPtr> args) -> Result<TypedCall> {
        return TypedCall{arrow::utf8(), false, std::move(args)};
      },
      [value](const Expr&, std::vector<cp::Expression>,
              const EvalContext& ctx) -> Result<cp::Expression> {
        return cp::literal(value(ctx));
      });
}

// The user Spark names: SPARK_USER, else the process's user.
std::string CurrentUser() {
  if (const char* user = std::getenv("SPARK_USER"); user && *user) return user;
  if (const passwd* entry = getpwuid(geteuid()); entry && entry->pw_name) return entry->pw_name;
  return "";
}

}  // namespace

void Alias(Catalog& c, const std::string& name, const std::string& of) {
  FunctionDef def = c.at(of);
  def.name = name;
  auto renamed = [of](const Expr& call) {
    Expr copy = call;
    copy.name = of;
    return copy;
  };
  if (def.type_rule) {
    def.type_rule = [rule = def.type_rule, renamed](const Expr& call, std::vector<ExprPtr> args) {
      return rule(renamed(call), std::move(args));
    };
  }
  if (def.lower) {
    def.lower = [lower = def.lower, renamed](const Expr& call, std::vector<cp::Expression> a,
                                             const EvalContext& ctx) {
      return lower(renamed(call), std::move(a), ctx);
    };
  }
  Add(c, std::move(def));
}

void AddMiscFunctions(Catalog& c) {
  // assert_true(cond[, message]): NULL, or USER_RAISED_EXCEPTION where cond is not true.
  Add(c, Scalar(
             "assert_true", 1, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (IsNullType(*args[0]->type)) args[0] = CastIfNeeded(args[0], arrow::boolean());
               if (args[0]->type->id() != arrow::Type::BOOL) {
                 return UnexpectedType(call, 0, *args[0], "\"BOOLEAN\"");
               }
               if (args.size() == 1) {
                 args.push_back(Literal(arrow::MakeScalar(
                     "'" + DisplayName(*args[0]) + "' is not true!")));
               }
               if (!CanCast(*args[1]->type, *arrow::utf8())) {
                 return UnexpectedType(call, 1, *args[1], "\"STRING\"");
               }
               args[1] = CastIfNeeded(args[1], arrow::utf8());
               return TypedCall{arrow::null(), true, std::move(args)};
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("ember_assert_true", {a[0], a[1]});
             }));
  // raise_error(message): USER_RAISED_EXCEPTION for every row it reaches.
  Add(c, Scalar(
             "raise_error", 1, 1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (!CanCast(*args[0]->type, *arrow::utf8())) {
                 return UnexpectedType(call, 0, *args[0], "\"STRING\"");
               }
               args[0] = CastIfNeeded(args[0], arrow::utf8());
               return TypedCall{arrow::null(), true, std::move(args)};
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("ember_raise_error", {a[0]});
             }));
  for (const char* name : {"current_database", "current_schema"}) {
    Add(c, SessionValue(name, [](const EvalContext& ctx) { return ctx.current_database; }));
  }
  Add(c, SessionValue("current_catalog", [](const EvalContext&) { return "spark_catalog"; }));
  for (const char* name : {"current_user", "user", "session_user"}) {
    Add(c, SessionValue(name, [](const EvalContext&) { return CurrentUser(); }));
  }
  // Spark's version and its build's revision; Ember is no Spark build.
  Add(c, SessionValue("version", [](const EvalContext&) { return "4.0.1 ember"; }));
  // rand([seed]), random, randn: uniform in [0, 1) or standard normal, a generator per call
  // seeded by the constant seed (at random without one); Spark's own sequence is not repeated.
  for (auto [name, kernel] : {std::pair{"rand", "ember_rand"}, {"random", "ember_rand"},
                              {"randn", "ember_randn"}}) {
    std::string function = kernel;
    Add(c, Scalar(
               name, 0, 1,
               [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                 if (args.size() == 1) {
                   const Expr& seed = *args[0];
                   if (!IsNullType(*seed.type) && !IsIntegral(*seed.type)) {
                     return UnexpectedType(call, 0, seed, "(\"INT\" or \"BIGINT\")");
                   }
                   if (seed.kind != ExprKind::kLiteral) {
                     return UserError(ErrorKind::kAnalysis, "SEED_EXPRESSION_IS_UNFOLDABLE",
                                      "The seed expression " + Quoted(seed) +
                                          " of the expression " + Quoted(call) +
                                          " must be foldable.",
                                      "42K08");
                   }
                   args[0] = CastIfNeeded(args[0], arrow::int64());
                 }
                 return TypedCall{arrow::float64(), false, std::move(args)};
               },
               [function](const Expr&, std::vector<cp::Expression> a,
                          const EvalContext&) -> Result<cp::Expression> {
                 if (a.empty()) a.push_back(cp::literal(static_cast<int64_t>(RandomBits())));
                 return Fn(function, {a[0]});
               }));
  }
  Add(c, Scalar("uuid", 0, 0,
                [](const Expr&, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  return TypedCall{arrow::utf8(), false, std::move(args)};
                },
                [](const Expr&, std::vector<cp::Expression>,
                   const EvalContext&) -> Result<cp::Expression> { return Fn("ember_uuid", {}); }));
  // width_bucket(v, min, max, n): v's bucket among n equal ones from min to max.
  Add(c, Scalar(
             "width_bucket", 4, 4,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               for (size_t i = 0; i < 4; ++i) {
                 auto& t = *args[i]->type;
                 if (!IsNullType(t) && !IsNumeric(t) && !IsString(t)) {
                   return UnexpectedType(call, i, *args[i], i == 3 ? "\"BIGINT\"" : "\"DOUBLE\"");
                 }
                 args[i] = CastIfNeeded(args[i], i == 3 ? arrow::int64() : arrow::float64());
               }
               return TypedCall{arrow::int64(), true, std::move(args)};
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("ember_width_bucket", std::move(a));
             }));
  // bit_get(x, pos), getbit: bit pos (0 the lowest) of an integer, a TINYINT.
  for (const char* name : {"bit_get", "getbit"}) {
    Add(c, Scalar(
               name, 2, 2,
               [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                 if (IsNullType(*args[0]->type)) args[0] = CastIfNeeded(args[0], arrow::int64());
                 if (!IsIntegral(*args[0]->type)) {
                   return UnexpectedType(call, 0, *args[0], "\"INTEGRAL\"");
                 }
                 if (IsNullType(*args[1]->type)) args[1] = CastIfNeeded(args[1], arrow::int32());
                 if (!IsIntegral(*args[1]->type) || args[1]->type->id() == arrow::Type::INT64) {
                   return UnexpectedType(call, 1, *args[1], "\"INT\"");
                 }
                 args[1] = CastIfNeeded(args[1], arrow::int32());
                 return fn::Typed(std::move(args), arrow::int8());
               },
               [](const Expr& call, std::vector<cp::Expression> a,
                  const EvalContext&) -> Result<cp::Expression> {
                 const int32_t bits = call.args[0]->type->byte_width() * 8;
                 return Fn("ember_bit_get", {CastTo(a[0], arrow::int64()), a[1], cp::literal(bits)});
               }));
  }
  // between(x, lo, hi): lo <= x AND x <= hi, each comparison with its own coercion.
  Add(c, Scalar(
             "between", 3, 3,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               auto compare = [&](const char* op, ExprPtr a, ExprPtr b) {
                 auto renamed = std::make_shared<Expr>(call);
                 renamed->name = op;
                 return FindFunction(op)->type_rule(*renamed, {std::move(a), std::move(b)});
               };
               ARROW_ASSIGN_OR_RAISE(auto low, compare(">=", args[0], args[1]));
               ARROW_ASSIGN_OR_RAISE(auto high, compare("<=", args[0], args[2]));
               return TypedCall{arrow::boolean(), low.nullable || high.nullable,
                                {low.args[0], low.args[1], high.args[0], high.args[1]}};
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext& ctx) -> Result<cp::Expression> {
               auto compare = [&](const char* op, size_t first) -> Result<cp::Expression> {
                 auto renamed = std::make_shared<Expr>(call);
                 renamed->name = op;
                 renamed->args = {call.args[first], call.args[first + 1]};
                 renamed->type = arrow::boolean();
                 return FindFunction(op)->lower(*renamed, {a[first], a[first + 1]}, ctx);
               };
               ARROW_ASSIGN_OR_RAISE(auto low, compare(">=", 0));
               ARROW_ASSIGN_OR_RAISE(auto high, compare("<=", 2));
               return Fn("and_kleene", {low, high});
             }));
  // bit_count(x): the one bits of an integer (as a BIGINT's two's complement) or a boolean.
  Add(c, Scalar(
             "bit_count", 1, 1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               const auto& t = *args[0]->type;
               if (IsNullType(t)) args[0] = CastIfNeeded(args[0], arrow::int64());
               if (!IsIntegral(*args[0]->type) && args[0]->type->id() != arrow::Type::BOOL) {
                 return UnexpectedType(call, 0, *args[0], "(\"INTEGRAL\" or \"BOOLEAN\")");
               }
               args[0] = CastIfNeeded(args[0], arrow::int64());
               return fn::Typed(std::move(args), arrow::int32());
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("ember_bit_count", {a[0]});
             }));
  Add(c, HashFunction("xxhash64", arrow::int64(), "ember_xxhash64"));
  Add(c, HashFunction("hash", arrow::int32(), "ember_hash"));
  // nvl(a, b), ifnull(a, b): a unless it is NULL.
  for (const char* name : {"nvl", "ifnull"}) {
    Add(c, Scalar(name, 2, 2,
                  [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                    ARROW_ASSIGN_OR_RAISE(auto typed, CommonWithText(call, std::move(args)));
                    typed.nullable = typed.args[0]->nullable && typed.args[1]->nullable;
                    return typed;
                  },
                  [](const Expr&, std::vector<cp::Expression> a,
                     const EvalContext&) -> Result<cp::Expression> {
                    return Fn("coalesce", std::move(a));
                  }));
  }
  // nvl2(a, b, c): b when a is not NULL, else c.
  Add(c, Scalar("nvl2", 3, 3,
                [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  ARROW_ASSIGN_OR_RAISE(auto typed, CommonWithText(call, std::move(args), 1));
                  typed.nullable = typed.args[1]->nullable || typed.args[2]->nullable;
                  return typed;
                },
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return Fn("if_else", {Fn("is_valid", {a[0]}), a[1], a[2]});
                }));
  Add(c, Scalar("nullif", 2, 2, NullIfRule,
                [](const Expr& call, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return NullIf(a[0], a[2], a[1], call.type);
                }));
  // zeroifnull(x): coalesce(x, 0); nullifzero(x): nullif(x, 0).
  Add(c, Scalar("zeroifnull", 1, 1,
                [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  args.push_back(Literal(arrow::MakeScalar(int32_t{0})));
                  ARROW_ASSIGN_OR_RAISE(auto typed, CommonType(call, std::move(args)));
                  typed.nullable = false;
                  return typed;
                },
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return Fn("coalesce", std::move(a));
                }));
  Add(c, Scalar("nullifzero", 1, 1,
                [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  args.push_back(Literal(arrow::MakeScalar(int32_t{0})));
                  return NullIfRule(call, std::move(args));
                },
                [](const Expr& call, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return NullIf(a[0], a[2], a[1], call.type);
                }));
  // if(cond, a, b).
  Add(c, Scalar("if", 3, 3,
                [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  if (IsNullType(*args[0]->type)) args[0] = CastIfNeeded(args[0], arrow::boolean());
                  if (args[0]->type->id() != arrow::Type::BOOL) {
                    return UnexpectedType(call, 0, *args[0], "\"BOOLEAN\"");
                  }
                  ARROW_ASSIGN_OR_RAISE(auto typed, CommonWithText(call, std::move(args), 1));
                  typed.nullable = typed.args[1]->nullable || typed.args[2]->nullable;
                  return typed;
                },
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  // A NULL condition takes the else branch.
                  auto cond = Fn("coalesce", {a[0], cp::literal(false)});
                  return Fn("if_else", {cond, a[1], a[2]});
                }));
  Add(c, Extreme("greatest", "max_element_wise"));
  Add(c, Extreme("least", "min_element_wise"));
  // typeof(x): the type's name.
  Add(c, Scalar("typeof", 1, 1,
                [](const Expr&, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  return TypedCall{arrow::utf8(), false, std::move(args)};
                },
                [](const Expr& call, std::vector<cp::Expression>,
                   const EvalContext&) -> Result<cp::Expression> {
                  return cp::literal(SparkTypeName(*call.args[0]->type));
                }));
  for (auto [name, type] :
       std::vector<std::pair<const char*, std::shared_ptr<arrow::DataType>>>{
           {"tinyint", arrow::int8()}, {"smallint", arrow::int16()}, {"int", arrow::int32()},
           {"bigint", arrow::int64()}, {"float", arrow::float32()}, {"double", arrow::float64()},
           {"boolean", arrow::boolean()}, {"string", arrow::utf8()}, {"binary", arrow::binary()},
           {"date", arrow::date32()}, {"timestamp", TimestampType()},
           {"decimal", arrow::decimal128(10, 0)}}) {
    Add(c, CastFunction(name, type));
  }
  // pmod(a, n): the remainder a % n made non-negative for a positive n.
  {
    auto mod = c.at("%");
    FunctionDef pmod = mod;
    pmod.name = "pmod";
    pmod.type_rule = [rule = mod.type_rule](const Expr& call, std::vector<ExprPtr> args) {
      return rule(call, std::move(args)).Map([](TypedCall typed) {
        typed.nullable = true;
        return typed;
      });
    };
    pmod.lower = [remainder = mod.lower](const Expr& call, std::vector<cp::Expression> a,
                                         const EvalContext& ctx) -> Result<cp::Expression> {
      ARROW_ASSIGN_OR_RAISE(auto r, remainder(call, {a[0], a[1]}, ctx));
      ARROW_ASSIGN_OR_RAISE(auto wrapped, remainder(call, {Fn("add", {r, a[1]}), a[1]}, ctx));
      return Fn("if_else", {Fn("less", {r, CastTo(cp::literal(0), call.type)}), wrapped, r});
    };
    Add(c, std::move(pmod));
  }
  Alias(c, "mod", "%");
  Alias(c, "len", "length");
  Alias(c, "equal_null", "<=>");
  Alias(c, "!", "not");
  Alias(c, "==", "=");
  Alias(c, "<<", "shiftleft");
  Alias(c, ">>", "shiftright");
  Alias(c, ">>>", "shiftrightunsigned");
  for (const char* name : {"regexp", "regexp_like"}) Alias(c, name, "rlike");
}

}  // namespace ember::plan::fn
