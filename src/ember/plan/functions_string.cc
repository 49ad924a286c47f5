// Spark's string functions beyond the first ones of functions.cc: padding, positions, character
// maps, pieces, hex and base64 text and digests. Positions and lengths count characters, as
// Spark's UTF8String does; their kernels are exec/scalar_kernels.cc's.

#include <limits>

#include "ember/plan/function_util.h"

namespace ember::plan::fn {

namespace {

using arrow::Result;

// Casts argument i to `type` where Spark would (NULL, and text or numbers where it casts), or
// says which type the argument needs.
Result<ExprPtr> Coerce(const Expr& call, size_t i, ExprPtr arg,
                       const std::shared_ptr<arrow::DataType>& type) {
  if (arg->type->Equals(*type)) return arg;
  bool text_to_binary = IsString(*arg->type) && type->id() == arrow::Type::BINARY;
  bool to_text = IsString(*type) && CanCast(*arg->type, *type) &&
                 arg->type->id() != arrow::Type::BINARY;
  bool integral = IsIntegral(*type) && (IsIntegral(*arg->type) || IsString(*arg->type));
  if (IsNullType(*arg->type) || text_to_binary || to_text || integral) {
    return CastIfNeeded(arg, type);
  }
  return UnexpectedType(call, i, *arg, TypeQuoted(*type));
}

// A function of fixed argument types: `types` for the arguments (a missing trailing argument
// takes its default from `defaults`), `result` for the value; lowered to `kernel`.
FunctionDef Typed(std::string name, std::vector<std::shared_ptr<arrow::DataType>> types,
                  std::shared_ptr<arrow::DataType> result, std::string kernel,
                  std::vector<std::shared_ptr<arrow::Scalar>> defaults = {}) {
  int max_args = static_cast<int>(types.size());
  int min_args = max_args - static_cast<int>(defaults.size());
  return Scalar(
      std::move(name), min_args, max_args,
      [types, result](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        for (size_t i = 0; i < args.size(); ++i) {
          ARROW_ASSIGN_OR_RAISE(args[i], Coerce(call, i, args[i], types[i]));
        }
        return fn::Typed(std::move(args), result);
      },
      [kernel, defaults, max_args](const Expr&, std::vector<cp::Expression> a,
                                   const EvalContext&) -> Result<cp::Expression> {
        size_t first_default = static_cast<size_t>(max_args) - defaults.size();
        for (size_t i = a.size(); i < static_cast<size_t>(max_args); ++i) {
          a.push_back(Lit(defaults[i - first_default]));
        }
        return Fn(kernel, std::move(a));
      });
}

std::shared_ptr<arrow::Scalar> Text(std::string s) { return arrow::MakeScalar(std::move(s)); }
std::shared_ptr<arrow::Scalar> Int(int32_t v) { return arrow::MakeScalar(v); }

// hex(x): the digits of a number, or of the bytes of text or binary.
Result<TypedCall> HexRule(const Expr& call, std::vector<ExprPtr> args) {
  auto id = args[0]->type->id();
  if (IsNullType(*args[0]->type) || IsIntegral(*args[0]->type)) {
    args[0] = CastIfNeeded(args[0], arrow::int64());
  } else if (id != arrow::Type::STRING && id != arrow::Type::BINARY) {
    return UnexpectedType(call, 0, *args[0], "(\"BIGINT\" or \"BINARY\" or \"STRING\")");
  }
  return fn::Typed(std::move(args), arrow::utf8());
}

// A function whose value may be NULL for any arguments (sha2 of an unknown length, unhex of
// what is not hex, split_part past the end).
FunctionDef AlwaysNullable(FunctionDef def) {
  def.type_rule = [rule = def.type_rule](const Expr& call, std::vector<ExprPtr> args) {
    return rule(call, std::move(args)).Map([](TypedCall typed) {
      typed.nullable = true;
      return typed;
    });
  };
  return def;
}

// The UTF-8 checks read bytes: binary as it is (Spark's cast to text keeps invalid bytes), the
// rest as text.
FunctionDef Utf8Check(std::string name, std::shared_ptr<arrow::DataType> result,
                      std::string kernel) {
  return AlwaysNullable(Scalar(
      std::move(name), 1, 1,
      [result](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        // A cast of binary to text keeps its bytes in Spark, valid or not: read them.
        const Expr& e = *StripAlias(args[0]);
        if (e.kind == ExprKind::kCast && IsString(*e.type) &&
            e.args[0]->type->id() == arrow::Type::BINARY) {
          args[0] = e.args[0];
        }
        if (args[0]->type->id() != arrow::Type::BINARY) {
          ARROW_ASSIGN_OR_RAISE(args[0], Coerce(call, 0, args[0], arrow::utf8()));
        }
        return fn::Typed(std::move(args), result);
      },
      [kernel](const Expr&, std::vector<cp::Expression> a,
               const EvalContext&) -> Result<cp::Expression> {
        return Fn(kernel, {CastTo(a[0], arrow::binary())});
      }));
}

// mask's replacement characters: constants of one character, or NULL to keep the class.
Result<TypedCall> MaskRule(const Expr& call, std::vector<ExprPtr> args) {
  static const char* kNames[] = {"upperChar", "lowerChar", "digitChar", "otherChar"};
  for (size_t i = 0; i < args.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(args[i], Coerce(call, i, args[i], arrow::utf8()));
    if (i == 0) continue;
    const Expr& e = *StripAlias(args[i]);
    bool null = (e.kind == ExprKind::kLiteral && !e.value->is_valid) ||
                (e.kind == ExprKind::kCast && e.args[0]->kind == ExprKind::kLiteral &&
                 !e.args[0]->value->is_valid);
    if (null) continue;
    ARROW_ASSIGN_OR_RAISE(auto text, LiteralString(call, args[i]));
    size_t chars = 0;
    for (unsigned char ch : text) chars += (ch & 0xC0) != 0x80;
    if (chars != 1) {
      return Mismatch(call, "INPUT_SIZE_NOT_ONE",
                      std::string("Length of `") + kNames[i - 1] + "` should be 1");
    }
  }
  auto typed = fn::Typed(std::move(args), arrow::utf8());
  typed.nullable = true;
  return typed;
}

// elt(n, v1, v2, ...): the values are all binary, or all read as text.
Result<TypedCall> EltRule(const Expr& call, std::vector<ExprPtr> args) {
  ARROW_ASSIGN_OR_RAISE(args[0], Coerce(call, 0, args[0], arrow::int32()));
  bool binary = true;
  for (size_t i = 1; i < args.size(); ++i) {
    binary = binary && args[i]->type->id() == arrow::Type::BINARY;
  }
  auto type = binary ? arrow::binary() : arrow::utf8();
  for (size_t i = 1; i < args.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(args[i], Coerce(call, i, args[i], type));
  }
  auto typed = fn::Typed(std::move(args), type);
  typed.nullable = true;
  return typed;
}

}  // namespace

void AddStringFunctions(Catalog& c) {
  auto str = arrow::utf8();
  auto i32 = arrow::int32();
  auto bin = arrow::binary();
  Add(c, Typed("lpad", {str, i32, str}, str, "ember_lpad", {Text(" ")}));
  Add(c, Typed("rpad", {str, i32, str}, str, "ember_rpad", {Text(" ")}));
  Add(c, Typed("ascii", {str}, i32, "ember_ascii"));
  for (const char* name : {"chr", "char"}) {
    Add(c, Typed(name, {arrow::int64()}, str, "ember_chr"));
  }
  // locate(substr, str[, start]): a NULL start finds nothing (0), as in Hive.
  for (const char* name : {"locate", "position"}) {
    auto def = Typed(name, {str, str, i32}, i32, "ember_locate", {Int(1)});
    def.type_rule = [rule = def.type_rule](const Expr& call, std::vector<ExprPtr> args) {
      return rule(call, std::move(args)).Map([](TypedCall typed) {
        typed.nullable = typed.args[0]->nullable || typed.args[1]->nullable;
        return typed;
      });
    };
    def.lower = [lower = def.lower](const Expr& call, std::vector<cp::Expression> a,
                                    const EvalContext& ctx) {
      if (a.size() == 3) a[2] = Fn("coalesce", {a[2], cp::literal(0)});
      return lower(call, std::move(a), ctx);
    };
    Add(c, std::move(def));
  }
  // instr(str, substr) is locate(substr, str).
  Add(c, Scalar("instr", 2, 2,
                [str](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  for (size_t i = 0; i < 2; ++i) {
                    ARROW_ASSIGN_OR_RAISE(args[i], Coerce(call, i, args[i], str));
                  }
                  return fn::Typed(std::move(args), arrow::int32());
                },
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return Fn("ember_locate", {a[1], a[0], cp::literal(1)});
                }));
  Add(c, Scalar("initcap", 1, 1,
                [str](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  ARROW_ASSIGN_OR_RAISE(args[0], Coerce(call, 0, args[0], str));
                  return fn::Typed(std::move(args), str);
                },
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return Fn("ember_initcap", {Fn("utf8_lower", {a[0]})});
                }));
  Add(c, Typed("translate", {str, str, str}, str, "ember_translate"));
  // Without a threshold, none: the largest int.
  Add(c, Typed("levenshtein", {str, str, i32}, i32, "ember_levenshtein",
               {Int(std::numeric_limits<int32_t>::max())}));
  Add(c, Typed("soundex", {str}, str, "ember_soundex"));
  Add(c, Typed("substring_index", {str, str, i32}, str, "ember_substring_index"));
  Add(c, AlwaysNullable(Typed("split_part", {str, str, i32}, str, "ember_split_part")));
  Add(c, Typed("find_in_set", {str, str}, i32, "ember_find_in_set"));
  Add(c, Typed("overlay", {str, str, i32, i32}, str, "ember_overlay", {Int(-1)}));
  Add(c, Typed("replace", {str, str, str}, str, "ember_replace", {Text("")}));
  Add(c, Scalar("repeat", 2, 2,
                [str, i32](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  ARROW_ASSIGN_OR_RAISE(args[0], Coerce(call, 0, args[0], str));
                  ARROW_ASSIGN_OR_RAISE(args[1], Coerce(call, 1, args[1], i32));
                  return fn::Typed(std::move(args), str);
                },
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  auto times = Fn("max_element_wise", {a[1], cp::literal(0)},
                                  std::make_shared<cp::ElementWiseAggregateOptions>(false));
                  return Fn("binary_repeat", {a[0], times});
                }));
  Add(c, Scalar("space", 1, 1,
                [i32](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  ARROW_ASSIGN_OR_RAISE(args[0], Coerce(call, 0, args[0], i32));
                  return fn::Typed(std::move(args), arrow::utf8());
                },
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  auto times = Fn("max_element_wise", {a[0], cp::literal(0)},
                                  std::make_shared<cp::ElementWiseAggregateOptions>(false));
                  return Fn("binary_repeat", {cp::literal(" "), times});
                }));
  // octet_length and bit_length: bytes of text or binary.
  for (auto [name, factor] : {std::pair{"octet_length", 1}, {"bit_length", 8}}) {
    int32_t f = factor;
    Add(c, Scalar(name, 1, 1,
                  [str](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                    if (args[0]->type->id() != arrow::Type::BINARY) {
                      ARROW_ASSIGN_OR_RAISE(args[0], Coerce(call, 0, args[0], str));
                    }
                    return fn::Typed(std::move(args), arrow::int32());
                  },
                  [f](const Expr&, std::vector<cp::Expression> a,
                      const EvalContext&) -> Result<cp::Expression> {
                    auto bytes = CastTo(Fn("binary_length", {a[0]}), arrow::int32());
                    return f == 1 ? bytes : Fn("multiply", {bytes, cp::literal(f)});
                  }));
  }
  Add(c, Scalar("hex", 1, 1, HexRule,
                [](const Expr& call, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  if (call.args[0]->type->id() == arrow::Type::INT64) {
                    return Fn("ember_hex_int", {a[0]});
                  }
                  return Fn("ember_hex_bytes", {CastTo(a[0], arrow::binary())});
                }));
  Add(c, AlwaysNullable(Typed("unhex", {str}, bin, "ember_unhex")));
  Add(c, Typed("bin", {arrow::int64()}, str, "ember_bin"));
  Add(c, Typed("base64", {bin}, str, "ember_base64"));
  Add(c, Typed("unbase64", {str}, bin, "ember_unbase64"));
  Add(c, Typed("md5", {bin}, str, "ember_md5"));
  for (const char* name : {"sha1", "sha"}) Add(c, Typed(name, {bin}, str, "ember_sha1"));
  Add(c, AlwaysNullable(Typed("sha2", {bin, i32}, str, "ember_sha2")));
  Add(c, Typed("crc32", {bin}, arrow::int64(), "ember_crc32"));
  // left(str, len), right(str, len): characters from either end; none for len <= 0.
  Add(c, Typed("left", {str, i32}, str, "ember_left"));
  Add(c, AlwaysNullable(Typed("right", {str, i32}, str, "ember_right")));
  Add(c, Typed("btrim", {str, str}, str, "ember_btrim", {Text(" ")}));
  Add(c, Scalar("elt", 2, -1, EltRule,
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return Fn("ember_elt", std::move(a));
                }));
  Add(c, AlwaysNullable(Typed("luhn_check", {str}, arrow::boolean(), "ember_luhn_check")));
  Add(c, Scalar("mask", 1, 5, MaskRule,
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  static const char* kDefaults[] = {"X", "x", "n"};
                  for (size_t i = a.size(); i < 5; ++i) {
                    a.push_back(i < 4 ? cp::literal(kDefaults[i - 1])
                                      : Lit(arrow::MakeNullScalar(arrow::utf8())));
                  }
                  return Fn("ember_mask", std::move(a));
                }));
  for (const char* name : {"url_encode", "url_decode", "try_url_decode"}) {
    Add(c, AlwaysNullable(Typed(name, {str}, str, std::string("ember_") + name)));
  }
  Add(c, Utf8Check("is_valid_utf8", arrow::boolean(), "ember_is_valid_utf8"));
  for (const char* name : {"make_valid_utf8", "validate_utf8", "try_validate_utf8"}) {
    Add(c, Utf8Check(name, str, std::string("ember_") + name));
  }
}

}  // namespace ember::plan::fn
