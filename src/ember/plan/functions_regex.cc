// Spark's regular expression functions: regexp_extract, regexp_extract_all, regexp_replace,
// regexp_count, regexp_instr, regexp_substr. Patterns are Java's, and may be columns; the kernels
// (exec/regex_kernels.cc) translate each distinct pattern to RE2 once.

#include <optional>

#include "ember/plan/function_util.h"
#include "ember/plan/type_names.h"

namespace ember::plan::fn {

namespace {

using arrow::Result;

// Argument i as text, where Spark casts it to STRING implicitly.
Result<ExprPtr> AsText(const Expr& call, size_t i, ExprPtr arg) {
  if (IsString(*arg->type)) return arg;
  if (IsNullType(*arg->type) ||
      (CanCast(*arg->type, *arrow::utf8()) && arg->type->id() != arrow::Type::BINARY)) {
    return CastIfNeeded(arg, arrow::utf8());
  }
  return UnexpectedType(call, i, *arg, "\"STRING\"");
}

// Argument i as an INT (a group index, a position).
Result<ExprPtr> AsInt(const Expr& call, size_t i, ExprPtr arg) {
  if (IsNullType(*arg->type) || IsIntegral(*arg->type) || IsString(*arg->type)) {
    return CastIfNeeded(arg, arrow::int32());
  }
  return UnexpectedType(call, i, *arg, "\"INT\"");
}

// Text arguments up to `texts`, INT ones after; a result of `type`.
TypeRule Rule(size_t texts, std::shared_ptr<arrow::DataType> type) {
  return [texts, type](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
    for (size_t i = 0; i < args.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(args[i], i < texts ? AsText(call, i, args[i]) : AsInt(call, i, args[i]));
    }
    return Typed(std::move(args), type);
  };
}

// The kernel on the arguments, a missing INT argument taking `default_int`.
ScalarLowering Lower(std::string kernel, size_t arity, int32_t default_int = 0) {
  return [kernel, arity, default_int](const Expr&, std::vector<cp::Expression> a,
                                      const EvalContext&) -> Result<cp::Expression> {
    if (a.size() < arity) a.push_back(cp::literal(default_int));
    return Fn(kernel, std::move(a));
  };
}

// The value of a literal integer (perhaps cast or negated); nullopt for NULL or an expression
// whose value the kernel checks instead.
std::optional<int64_t> ConstantInt(const ExprPtr& arg) {
  const Expr& e = *StripAlias(arg);
  if (e.kind == ExprKind::kLiteral && e.value->is_valid && IsIntegral(*e.type)) {
    auto v = e.value->CastTo(arrow::int64());
    if (v.ok()) return static_cast<const arrow::Int64Scalar&>(**v).value;
  }
  if (e.kind == ExprKind::kCast && e.args.size() == 1) return ConstantInt(e.args[0]);
  if (e.kind == ExprKind::kCall && e.name == "negative" && e.args.size() == 1) {
    auto v = ConstantInt(e.args[0]);
    if (v) return -*v;
  }
  return std::nullopt;
}

// regexp_replace's position: foldable, and positive unless NULL.
Result<TypedCall> ReplaceRule(const Expr& call, std::vector<ExprPtr> args) {
  if (args.size() == 4) {
    if (!IsFoldable(*args[3])) {
      return Mismatch(call, "NON_FOLDABLE_INPUT",
                      "the input `position` should be a foldable \"INT\" expression; however, "
                      "got " + Quoted(*args[3]));
    }
    auto position = ConstantInt(args[3]);
    if (position && *position <= 0) {
      return Mismatch(call, "VALUE_OUT_OF_RANGE",
                      "The position must be between (0, 2147483647] (current value = " +
                          std::to_string(*position) + ")");
    }
  }
  return Rule(3, arrow::utf8())(call, std::move(args));
}

}  // namespace

void AddRegexFunctions(Catalog& c) {
  auto text = arrow::utf8();
  // regexp_extract(str, regexp[, idx = 1]): group idx of the first match; '' without one.
  Add(c, Scalar("regexp_extract", 2, 3, Rule(2, text), Lower("ember_regexp_extract", 3, 1)));
  Add(c, Scalar("regexp_extract_all", 2, 3, Rule(2, ArrayOf(text)),
                Lower("ember_regexp_extract_all", 3, 1)));
  // regexp_replace(str, regexp, rep[, position = 1]).
  Add(c, Scalar("regexp_replace", 3, 4, ReplaceRule, Lower("ember_regexp_replace", 4, 1)));
  Add(c, Scalar("regexp_count", 2, 2, Rule(2, arrow::int32()), Lower("ember_regexp_count", 2)));
  // regexp_instr(str, regexp[, idx]): idx is accepted and ignored, as Spark does.
  Add(c, Scalar("regexp_instr", 2, 3, Rule(2, arrow::int32()), Lower("ember_regexp_instr", 3)));
  // regexp_substr(str, regexp): the first match, NULL for none or an empty one.
  auto substr = Rule(2, text);
  Add(c, Scalar("regexp_substr", 2, 2,
                [substr](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  ARROW_ASSIGN_OR_RAISE(auto typed, substr(call, std::move(args)));
                  typed.nullable = true;
                  return typed;
                },
                Lower("ember_regexp_substr", 2)));
}

}  // namespace ember::plan::fn
