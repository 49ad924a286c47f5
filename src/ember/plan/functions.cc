#include "ember/plan/functions.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

#include <arrow/array/util.h>
#include <arrow/compute/api.h>
#include <arrow/scalar.h>
#include <arrow/type.h>

#include "ember/common/hyperloglog.h"
#include "ember/common/interval.h"
#include "ember/common/spark_hash.h"
#include "ember/error.h"
#include "ember/plan/function_util.h"
#include "ember/plan/type_names.h"
#include "ember/user_function.h"

namespace ember::plan {

namespace cp = arrow::compute;
using arrow::Result;
using arrow::Status;

bool IsIntegral(const arrow::DataType& t) {
  switch (t.id()) {
    case arrow::Type::INT8: case arrow::Type::INT16: case arrow::Type::INT32:
    case arrow::Type::INT64:
      return true;
    default:
      return false;
  }
}
bool IsNumeric(const arrow::DataType& t) {
  return IsIntegral(t) || t.id() == arrow::Type::FLOAT || t.id() == arrow::Type::DOUBLE ||
         t.id() == arrow::Type::DECIMAL128;
}
bool IsString(const arrow::DataType& t) { return t.id() == arrow::Type::STRING; }
bool IsTimestamp(const arrow::DataType& t) { return t.id() == arrow::Type::TIMESTAMP; }
static bool IsNull(const arrow::DataType& t) { return t.id() == arrow::Type::NA; }
static bool IsMap(const arrow::DataType& t) { return t.id() == arrow::Type::MAP; }
static bool IsDecimal(const arrow::DataType& t) { return t.id() == arrow::Type::DECIMAL128; }

namespace fn {

bool IsNullType(const arrow::DataType& t) { return IsNull(t); }

namespace {

int NumericRank(const arrow::DataType& t) {
  switch (t.id()) {
    case arrow::Type::INT8: return 1;
    case arrow::Type::INT16: return 2;
    case arrow::Type::INT32: return 3;
    case arrow::Type::INT64: return 4;
    case arrow::Type::DECIMAL128: return 5;
    case arrow::Type::FLOAT: return 6;
    case arrow::Type::DOUBLE: return 7;
    default: return 0;
  }
}

// The decimal an integral type fits in (Spark's DecimalType.forType).
std::shared_ptr<arrow::DataType> DecimalFor(const arrow::DataType& t) {
  switch (t.id()) {
    case arrow::Type::INT8: return arrow::decimal128(3, 0);
    case arrow::Type::INT16: return arrow::decimal128(5, 0);
    case arrow::Type::INT32: return arrow::decimal128(10, 0);
    case arrow::Type::INT64: return arrow::decimal128(20, 0);
    default: return nullptr;
  }
}

// The decimal type an operand takes in decimal arithmetic: an integer literal only needs its own
// digits (Spark's DecimalType.fromLiteral), other integers their type's range.
std::shared_ptr<arrow::DataType> DecimalOperand(const Expr& e) {
  if (!IsIntegral(*e.type)) return e.type;
  if (e.kind == ExprKind::kLiteral && e.value->is_valid) {
    std::string digits = e.value->ToString();
    if (!digits.empty() && digits[0] == '-') digits.erase(0, 1);
    return arrow::decimal128(static_cast<int32_t>(std::max<size_t>(digits.size(), 1)), 0);
  }
  return DecimalFor(*e.type);
}

std::shared_ptr<arrow::DataType> WiderDecimal(const arrow::Decimal128Type& a,
                                              const arrow::Decimal128Type& b) {
  int scale = std::max(a.scale(), b.scale());
  int range = std::max(a.precision() - a.scale(), b.precision() - b.scale());
  return arrow::decimal128(std::min(38, range + scale), scale);
}

bool NameEqualsIgnoreCase(std::string a, std::string b) {
  std::transform(a.begin(), a.end(), a.begin(), ::tolower);
  std::transform(b.begin(), b.end(), b.begin(), ::tolower);
  return a == b;
}

}  // namespace

std::string Quoted(const Expr& e) { return "\"" + DisplayName(e) + "\""; }
std::string TypeQuoted(const arrow::DataType& t) { return "\"" + SparkTypeName(t, true) + "\""; }

arrow::Status Mismatch(const Expr& call, const std::string& sub, const std::string& detail) {
  return UserError(ErrorKind::kAnalysis, "DATATYPE_MISMATCH." + sub,
                   "Cannot resolve " + Quoted(call) + " due to data type mismatch: " + detail +
                       ".",
                   "42K09");
}

arrow::Status UnexpectedType(const Expr& call, size_t index, const Expr& arg,
                             const std::string& required) {
  return Mismatch(call, "UNEXPECTED_INPUT_TYPE",
                  "The " + std::string(index == 0   ? "first"
                                       : index == 1 ? "second"
                                       : index == 2 ? "third"
                                                    : "next") +
                      " parameter requires the " + required + " type, however " + Quoted(arg) +
                      " has the type " + TypeQuoted(*arg.type));
}

bool AnyNullable(const std::vector<ExprPtr>& args) {
  return std::any_of(args.begin(), args.end(), [](const ExprPtr& a) { return a->nullable; });
}

TypedCall Typed(std::vector<ExprPtr> args, std::shared_ptr<arrow::DataType> type) {
  bool nullable = AnyNullable(args);
  return TypedCall{std::move(type), nullable, std::move(args)};
}

// --- type rules -------------------------------------------------------------------------------

// Casts every argument to their common type.
Result<TypedCall> CommonType(const Expr& call, std::vector<ExprPtr> args, size_t first) {
  std::shared_ptr<arrow::DataType> common = arrow::null();
  for (size_t i = first; i < args.size(); ++i) {
    auto wider = WiderType(common, args[i]->type);
    if (!wider) {
      std::string types;
      for (size_t j = first; j < args.size(); ++j) {
        types += (j > first ? ", " : "") + TypeQuoted(*args[j]->type);
      }
      return Mismatch(call, "DATA_DIFF_TYPES",
                      "Input to `" + call.name + "` should all be the same type, but it's [" +
                          types + "]");
    }
    common = wider;
  }
  for (size_t i = first; i < args.size(); ++i) args[i] = CastIfNeeded(args[i], common);
  return Typed(std::move(args), common);
}

// Comparison operands: implicit casts as Spark's ANSI coercion does for literals of text.
Result<TypedCall> ComparisonRule(const Expr& call, std::vector<ExprPtr> args) {
  auto& a = args[0];
  auto& b = args[1];
  auto common = WiderType(a->type, b->type);
  if (!common) {
    // A string compared with a number, date or timestamp is cast to the other side's type.
    if (IsString(*a->type) && CanCast(*a->type, *b->type)) {
      common = b->type;
    } else if (IsString(*b->type) && CanCast(*b->type, *a->type)) {
      common = a->type;
    } else {
      return Mismatch(call, "BINARY_OP_DIFF_TYPES",
                      "the left and right operands of the binary operator have incompatible "
                      "types (" + TypeQuoted(*a->type) + " and " + TypeQuoted(*b->type) + ")");
    }
  }
  if (IsMap(*common)) {
    return Mismatch(call, "INVALID_ORDERING_TYPE",
                    "The `" + call.name + "` does not support ordering on type " +
                        TypeQuoted(*common));
  }
  a = CastIfNeeded(a, common);
  b = CastIfNeeded(b, common);
  bool nullable = call.name == "<=>" ? false : AnyNullable(args);
  return TypedCall{arrow::boolean(), nullable, std::move(args)};
}

Result<TypedCall> ArithmeticRule(const Expr& call, std::vector<ExprPtr> args) {
  const auto& op = call.name;
  auto& a = args[0];
  auto& b = args[1];
  // Timestamp +/- interval (a duration) keeps the timestamp type.
  if ((op == "+" || op == "-") && IsTimestamp(*a->type) &&
      b->type->id() == arrow::Type::DURATION) {
    return Typed(std::move(args), a->type);
  }
  for (size_t i = 0; i < 2; ++i) {
    const auto& t = *args[i]->type;
    if (!IsNumeric(t) && !IsNull(t) && !IsString(t)) {
      return Mismatch(call, "BINARY_OP_WRONG_TYPE",
                      "the binary operator requires the input type \"NUMERIC\", not " +
                          TypeQuoted(t));
    }
  }
  // Text in arithmetic is read as a BIGINT beside an integer, else as a DOUBLE (Spark's ANSI
  // coercion).
  for (auto [text, other] : {std::pair{&a, &b}, std::pair{&b, &a}}) {
    if (!IsString(*(*text)->type)) continue;
    *text = CastIfNeeded(*text, IsIntegral(*(*other)->type) ? arrow::int64() : arrow::float64());
  }
  auto common = WiderType(a->type, b->type);
  if (IsNull(*common)) common = op == "/" ? arrow::float64() : arrow::int32();
  if (op == "/" && !IsDecimal(*common)) common = arrow::float64();
  if (op == "div") common = arrow::int64();
  if (IsDecimal(*common) && op == "%") common = arrow::float64();
  auto result = common;
  if (IsDecimal(*common)) {
    // Arrow's decimal kernels derive the result precision as Spark does for + - *.
    auto da = DecimalOperand(*a);
    auto db = DecimalOperand(*b);
    if (IsDecimal(*da) && IsDecimal(*db)) {
      const auto& x = static_cast<const arrow::Decimal128Type&>(*da);
      const auto& y = static_cast<const arrow::Decimal128Type&>(*db);
      int scale = 0, precision = 0;
      if (op == "*") {
        scale = x.scale() + y.scale();
        precision = x.precision() + y.precision() + 1;
      } else if (op == "/") {
        scale = std::max(6, x.scale() + y.precision() + 1);
        precision = x.precision() - x.scale() + y.scale() + scale;
        // Arrow's decimal quotient has scale s1 - s2: widen the dividend's scale so the quotient
        // has Spark's.
        int dividend_scale = std::min(38, scale + y.scale());
        a = CastIfNeeded(a, arrow::decimal128(38, dividend_scale));
        b = CastIfNeeded(b, db);
        int capped = std::min(38, precision);
        return TypedCall{arrow::decimal128(capped, std::min(scale, capped)), true, std::move(args)};
      } else {
        scale = std::max(x.scale(), y.scale());
        precision = std::max(x.precision() - x.scale(), y.precision() - y.scale()) + scale + 1;
      }
      a = CastIfNeeded(a, da);
      b = CastIfNeeded(b, db);
      result = arrow::decimal128(std::min(38, precision), std::min(scale, 38));
      return Typed(std::move(args), result);
    }
  }
  a = CastIfNeeded(a, common);
  b = CastIfNeeded(b, common);
  bool nullable = AnyNullable(args) || op == "/" || op == "%" || op == "div";
  return TypedCall{result, nullable, std::move(args)};
}

// Spark's bitwise operators take integral operands of one type: a NULL takes the other's type,
// text is read as a BIGINT, and integers widen.
Result<TypedCall> BitwiseRule(const Expr& call, std::vector<ExprPtr> args) {
  for (auto& arg : args) {
    if (IsString(*arg->type)) arg = CastIfNeeded(arg, arrow::int64());
  }
  if (args.size() == 1) {
    if (IsNull(*args[0]->type)) args[0] = CastIfNeeded(args[0], arrow::int32());
    if (!IsIntegral(*args[0]->type)) return UnexpectedType(call, 0, *args[0], "\"INTEGRAL\"");
    auto type = args[0]->type;
    return Typed(std::move(args), type);
  }
  auto& a = args[0];
  auto& b = args[1];
  if (IsNull(*a->type)) a = CastIfNeeded(a, IsNull(*b->type) ? arrow::int32() : b->type);
  if (IsNull(*b->type)) b = CastIfNeeded(b, a->type);
  if (!IsIntegral(*a->type) || !IsIntegral(*b->type)) {
    if (!a->type->Equals(*b->type)) {
      return Mismatch(call, "BINARY_OP_DIFF_TYPES",
                      "the left and right operands of the binary operator have incompatible "
                      "types (" + TypeQuoted(*a->type) + " and " + TypeQuoted(*b->type) + ")");
    }
    return Mismatch(call, "BINARY_OP_WRONG_TYPE",
                    "the binary operator requires the input type \"INTEGRAL\", not " +
                        TypeQuoted(*a->type));
  }
  auto common = WiderType(a->type, b->type);
  a = CastIfNeeded(a, common);
  b = CastIfNeeded(b, common);
  return Typed(std::move(args), common);
}

// pow(x, y): both operands as doubles.
Result<TypedCall> PowerRule(const Expr& call, std::vector<ExprPtr> args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (IsNull(*args[i]->type) || IsString(*args[i]->type)) {
      args[i] = CastIfNeeded(args[i], arrow::float64());
    }
    if (!IsNumeric(*args[i]->type)) return UnexpectedType(call, i, *args[i], "\"DOUBLE\"");
    args[i] = CastIfNeeded(args[i], arrow::float64());
  }
  return Typed(std::move(args), arrow::float64());
}

Result<TypedCall> BooleanRule(const Expr& call, std::vector<ExprPtr> args) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (IsNull(*args[i]->type)) args[i] = CastIfNeeded(args[i], arrow::boolean());
    if (args[i]->type->id() != arrow::Type::BOOL) {
      return UnexpectedType(call, i, *args[i], "\"BOOLEAN\"");
    }
  }
  return Typed(std::move(args), arrow::boolean());
}

Result<TypedCall> StringArgsRule(const Expr& call, std::vector<ExprPtr> args,
                                 std::shared_ptr<arrow::DataType> result) {
  for (auto& arg : args) {
    if (!IsString(*arg->type)) {
      if (!CanCast(*arg->type, *arrow::utf8())) {
        return UnexpectedType(call, 0, *arg, "\"STRING\"");
      }
      arg = CastIfNeeded(arg, arrow::utf8());
    }
  }
  return Typed(std::move(args), std::move(result));
}

Result<TypedCall> NumericUnaryRule(const Expr& call, std::vector<ExprPtr> args) {
  if (IsString(*args[0]->type)) args[0] = CastIfNeeded(args[0], arrow::float64());
  if (IsNull(*args[0]->type)) args[0] = CastIfNeeded(args[0], arrow::float64());
  if (!IsNumeric(*args[0]->type)) return UnexpectedType(call, 0, *args[0], "\"NUMERIC\"");
  auto type = args[0]->type;
  return Typed(std::move(args), type);
}

// Arguments that must be literals (formats, units, lengths).
Result<std::string> LiteralString(const Expr& call, const ExprPtr& arg) {
  const Expr& e = *StripAlias(arg);
  if (e.kind == ExprKind::kLiteral && e.value->is_valid && IsString(*e.type)) {
    return static_cast<const arrow::StringScalar&>(*e.value).ToString();
  }
  if (e.kind == ExprKind::kCast && e.args[0]->kind == ExprKind::kLiteral) {
    const Expr& literal = *e.args[0];
    if (IsString(*e.type) && literal.value->is_valid && !IsString(*literal.type)) {
      // A number or boolean read as text (id.contains(1)): its text as a cast gives it.
      ARROW_ASSIGN_OR_RAISE(auto text, literal.value->CastTo(arrow::utf8()));
      return static_cast<const arrow::StringScalar&>(*text).ToString();
    }
    return LiteralString(call, e.args[0]);
  }
  return UserError(ErrorKind::kAnalysis, "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
                   "Cannot resolve " + Quoted(call) + " due to data type mismatch: the input " +
                       Quoted(e) + " should be a foldable \"STRING\" expression.",
                   "42K09");
}

Result<int64_t> LiteralInt(const Expr& call, const ExprPtr& arg) {
  const Expr& e = *StripAlias(arg);
  if (e.kind == ExprKind::kLiteral && e.value->is_valid && IsIntegral(*e.type)) {
    ARROW_ASSIGN_OR_RAISE(auto s, e.value->CastTo(arrow::int64()));
    return static_cast<const arrow::Int64Scalar&>(*s).value;
  }
  if (e.kind == ExprKind::kCall && e.name == "negative") {
    ARROW_ASSIGN_OR_RAISE(auto v, LiteralInt(call, e.args[0]));
    return -v;
  }
  return UserError(ErrorKind::kAnalysis, "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
                   "Cannot resolve " + Quoted(call) + " due to data type mismatch: the input " +
                       Quoted(e) + " should be a foldable \"INT\" expression.",
                   "42K09");
}

Result<ExprPtr> AsTimestamp(const Expr& call, ExprPtr arg, size_t index) {
  if (IsTimestamp(*arg->type)) return arg;
  if (IsString(*arg->type) || arg->type->id() == arrow::Type::DATE32 || IsNull(*arg->type)) {
    return CastIfNeeded(arg, TimestampType());
  }
  return UnexpectedType(call, index, *arg, "\"TIMESTAMP\"");
}

// --- lowering helpers -------------------------------------------------------------------------

cp::Expression Lit(std::shared_ptr<arrow::Scalar> s) { return cp::literal(arrow::Datum(s)); }
cp::Expression I64(int64_t v) { return cp::literal(v); }

cp::Expression Fn(std::string name, std::vector<cp::Expression> args,
                  std::shared_ptr<cp::FunctionOptions> options) {
  return cp::call(std::move(name), std::move(args), std::move(options));
}

// A timestamp relabelled to the session zone, so arrow's field extraction and rounding work in
// local time. The instant is unchanged.
cp::Expression InZone(cp::Expression ts, const EvalContext& ctx) {
  return Fn("cast", {std::move(ts)},
            std::make_shared<cp::CastOptions>(
                cp::CastOptions::Safe(arrow::timestamp(arrow::TimeUnit::MICRO, ctx.time_zone))));
}

// A value whose calendar fields arrow can read as Spark's: instants in the session zone, dates and
// timestamp_ntz values as they are.
cp::Expression WallClock(cp::Expression value, const arrow::DataType& type, const EvalContext& ctx) {
  bool zoned = IsTimestamp(type) && !static_cast<const arrow::TimestampType&>(type).timezone().empty();
  return zoned ? InZone(std::move(value), ctx) : value;
}

cp::Expression CastTo(cp::Expression e, std::shared_ptr<arrow::DataType> type, bool safe) {
  auto options = safe ? cp::CastOptions::Safe(type) : cp::CastOptions::Unsafe(type);
  return Fn("cast", {std::move(e)}, std::make_shared<cp::CastOptions>(options));
}

// The local wall-clock time of an instant, as a zone-less timestamp.
cp::Expression Now(const EvalContext& ctx) {
  return Lit(std::make_shared<arrow::TimestampScalar>(ctx.current_timestamp_us, TimestampType()));
}

cp::Expression LocalTime(cp::Expression ts, const EvalContext& ctx) {
  return Fn("local_timestamp", {InZone(std::move(ts), ctx)});
}

// Spark's datetime pattern letters to strptime/strftime directives.
std::string ToStrftime(const std::string& pattern) {
  // Longer letter runs first: "MMM" is a month's name, "MM" its number.
  static const std::vector<std::pair<std::string, std::string>> kMap = {
      {"yyyy", "%Y"}, {"MMM", "%b"}, {"MM", "%m"},     {"dd", "%d"},  {"HH", "%H"},
      {"mm", "%M"},   {"ss", "%S"},  {"yy", "%y"},     {"SSSSSS", ""}, {"SSS", ""},
      {"a", "%p"},    {"EEE", "%a"}};
  std::string out;
  for (size_t i = 0; i < pattern.size();) {
    if (pattern[i] == '\'') {
      size_t end = pattern.find('\'', i + 1);
      if (end == std::string::npos) end = pattern.size();
      out += pattern.substr(i + 1, end - i - 1);
      i = end + 1;
      continue;
    }
    bool matched = false;
    for (const auto& [spark, c] : kMap) {
      if (pattern.compare(i, spark.size(), spark) == 0) {
        out += c;
        i += spark.size();
        matched = true;
        break;
      }
    }
    if (!matched) out += pattern[i++];
  }
  return out;
}

// Local wall-clock time (zone-less) to an instant, with java.time's rules for Spark: an ambiguous
// time takes the earlier offset, a time in a gap is moved forward by the gap's length. Both come
// from the offset in force just before: utc = local - offset(earliest valid instant).
cp::Expression LocalToUtc(cp::Expression local, const EvalContext& ctx) {
  if (ctx.time_zone == "UTC") return CastTo(std::move(local), TimestampType());
  auto earliest = Fn("assume_timezone", {local},
                     std::make_shared<cp::AssumeTimezoneOptions>(
                         ctx.time_zone, cp::AssumeTimezoneOptions::AMBIGUOUS_EARLIEST,
                         cp::AssumeTimezoneOptions::NONEXISTENT_EARLIEST));
  auto instant = CastTo(earliest, arrow::int64());
  auto wall = CastTo(Fn("local_timestamp", {earliest}), arrow::int64());
  auto offset = Fn("subtract", {wall, instant});
  return CastTo(Fn("subtract", {CastTo(local, arrow::int64()), offset}), TimestampType());
}

// Parses text into an instant: zone-less text is wall-clock time in the session zone.
cp::Expression ParseTimestamp(cp::Expression text, const std::string& format, bool error_is_null,
                              const EvalContext& ctx) {
  auto utc = TimestampType();
  if (format.empty()) {
    // Spark's lenient forms: "yyyy-MM-dd", "yyyy-MM-dd HH:mm:ss[.SSSSSS]", a "T" separator and
    // an optional zone offset; text without an offset is wall-clock time in the session zone.
    auto parsed = Fn(error_is_null ? "ember_try_parse_timestamp" : "ember_parse_timestamp", {text});
    if (ctx.time_zone == "UTC") return CastTo(parsed, utc);
    return Fn("if_else", {Fn("ember_timestamp_has_offset", {text}), CastTo(parsed, utc),
                          LocalToUtc(parsed, ctx)});
  }
  auto local = Fn("strptime", {text},
                  std::make_shared<cp::StrptimeOptions>(ToStrftime(format), arrow::TimeUnit::MICRO,
                                                        /*error_is_null=*/true));
  if (!error_is_null) local = Fn("ember_parsed_or_error", {std::move(text), local});
  return LocalToUtc(local, ctx);
}

// Formats an instant with a Spark pattern in the session zone; seconds are whole seconds, as
// arrow's %S would print the fraction of a microsecond timestamp.
cp::Expression FormatTimestamp(cp::Expression ts, const std::string& format,
                               const EvalContext& ctx) {
  auto seconds = CastTo(InZone(std::move(ts), ctx),
                        arrow::timestamp(arrow::TimeUnit::SECOND, ctx.time_zone), /*safe=*/false);
  return Fn("strftime", {seconds}, std::make_shared<cp::StrftimeOptions>(ToStrftime(format)));
}

// Spark's text of a timestamp: "yyyy-MM-dd HH:mm:ss" and the fraction, if any, without trailing
// zeros.
cp::Expression TimestampText(cp::Expression ts, bool zoned, const EvalContext& ctx) {
  auto local = zoned ? InZone(std::move(ts), ctx) : std::move(ts);
  auto text = Fn("strftime", {local}, std::make_shared<cp::StrftimeOptions>("%Y-%m-%d %H:%M:%S"));
  return Fn("replace_substring_regex", {text},
            std::make_shared<cp::ReplaceSubstringOptions>("\\.?0+$", ""));
}

// --- the catalog ------------------------------------------------------------------------------

void Add(Catalog& catalog, FunctionDef def) {
  std::string name = def.name;
  catalog.emplace(std::move(name), std::move(def));
}

FunctionDef Scalar(std::string name, int min_args, int max_args, TypeRule rule,
                   ScalarLowering lower) {
  FunctionDef def;
  def.name = std::move(name);
  def.min_args = min_args;
  def.max_args = max_args;
  def.type_rule = std::move(rule);
  def.lower = std::move(lower);
  return def;
}

// A scalar function that maps onto one arrow function of the same arity.
FunctionDef Direct(std::string name, int args, TypeRule rule, std::string arrow_name,
                   std::shared_ptr<cp::FunctionOptions> options) {
  return Scalar(std::move(name), args, args, std::move(rule),
                [arrow_name, options](const Expr&, std::vector<cp::Expression> a,
                                      const EvalContext&) -> Result<cp::Expression> {
                  return Fn(arrow_name, std::move(a), options);
                });
}

FunctionDef Aggregate(std::string name, TypeRule rule, std::string hash_fn, std::string scalar_fn,
                      std::shared_ptr<cp::FunctionOptions> options) {
  FunctionDef def;
  def.name = std::move(name);
  def.aggregate = true;
  def.min_args = 1;
  def.max_args = 1;
  def.type_rule = std::move(rule);
  def.hash_aggregate = std::move(hash_fn);
  def.scalar_aggregate = std::move(scalar_fn);
  def.options = std::move(options);
  return def;
}

}  // namespace fn

namespace {

using namespace fn;  // NOLINT: the catalog's building blocks

// Date and time fields of an instant, in the session zone.
FunctionDef DateField(std::string name, std::string arrow_name) {
  // A time of day of a date is its midnight's.
  const bool of_day = arrow_name == "hour" || arrow_name == "minute" || arrow_name == "second";
  return Scalar(
      std::move(name), 1, 1,
      [of_day](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        if (of_day || args[0]->type->id() != arrow::Type::DATE32) {
          ARROW_ASSIGN_OR_RAISE(args[0], AsTimestamp(call, args[0], 0));
        }
        return Typed(std::move(args), arrow::int32());
      },
      [arrow_name](const Expr& call, std::vector<cp::Expression> a,
                   const EvalContext& ctx) -> Result<cp::Expression> {
        return CastTo(Fn(arrow_name, {WallClock(a[0], *call.args[0]->type, ctx)}), arrow::int32());
      });
}

Result<TypedCall> SumRule(const Expr& call, std::vector<ExprPtr> args) {
  auto& t = *args[0]->type;
  if (IsString(t)) args[0] = CastIfNeeded(args[0], arrow::float64());
  if (IsNull(t)) args[0] = CastIfNeeded(args[0], arrow::float64());
  const auto& at = *args[0]->type;
  if (!IsNumeric(at)) return UnexpectedType(call, 0, *args[0], "\"NUMERIC\" or \"INTERVAL\"");
  std::shared_ptr<arrow::DataType> result = arrow::float64();
  if (IsIntegral(at)) result = arrow::int64();
  if (IsDecimal(at)) {
    const auto& d = static_cast<const arrow::Decimal128Type&>(at);
    result = arrow::decimal128(std::min(38, d.precision() + 10), d.scale());
  }
  return TypedCall{result, true, std::move(args)};
}

Result<TypedCall> AvgRule(const Expr& call, std::vector<ExprPtr> args) {
  auto& t = *args[0]->type;
  if (IsString(t) || IsNull(t)) args[0] = CastIfNeeded(args[0], arrow::float64());
  const auto& at = *args[0]->type;
  if (!IsNumeric(at)) return UnexpectedType(call, 0, *args[0], "\"NUMERIC\" or \"INTERVAL\"");
  std::shared_ptr<arrow::DataType> result = arrow::float64();
  if (IsDecimal(at)) {
    const auto& d = static_cast<const arrow::Decimal128Type&>(at);
    int scale = std::min(38, d.scale() + 4);
    result = arrow::decimal128(std::min(38, d.precision() + 4), scale);
    // Arrow's mean keeps the input's scale: widen it first so no digit is lost.
    args[0] = CastIfNeeded(args[0], arrow::decimal128(38, scale));
  }
  return TypedCall{result, true, std::move(args)};
}

Result<TypedCall> SameTypeAggRule(const Expr&, std::vector<ExprPtr> args) {
  auto type = args[0]->type;
  return TypedCall{type, true, std::move(args)};
}

// first(x[, ignoreNulls]), last: x's type; ignoreNulls a constant boolean.
Result<TypedCall> FirstLastRule(const Expr& call, std::vector<ExprPtr> args) {
  if (args.size() == 2) {
    const Expr& flag = *args[1];
    if (flag.kind != ExprKind::kLiteral || flag.type->id() != arrow::Type::BOOL ||
        !flag.value->is_valid) {
      return UnexpectedType(call, 1, flag, "\"BOOLEAN\"");
    }
  }
  auto type = args[0]->type;
  return TypedCall{type, true, std::move(args)};
}

Result<TypedCall> CountRule(const Expr& call, std::vector<ExprPtr> args) {
  if (args.size() > 1 && !call.distinct) {
    return UserError(ErrorKind::kAnalysis, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                     "The `count` requires 1 parameters but the actual number is " +
                         std::to_string(args.size()) + ".",
                     "42605");
  }
  return TypedCall{arrow::int64(), false, std::move(args)};
}

// The kernel options of approx_count_distinct(value[, rsd]): the precision for rsd (default 0.05).
Result<std::shared_ptr<cp::FunctionOptions>> ApproxCountDistinctOptions(
    const std::vector<ExprPtr>& args) {
  double rsd = 0.05;
  if (args.size() == 2) {
    const auto& value = *args[1]->value;
    if (value.type->id() == arrow::Type::DECIMAL128) {
      const auto& d = static_cast<const arrow::Decimal128Scalar&>(value);
      rsd = d.value.ToDouble(static_cast<const arrow::Decimal128Type&>(*d.type).scale());
    } else {
      rsd = static_cast<const arrow::DoubleScalar&>(value).value;
    }
  }
  ARROW_ASSIGN_OR_RAISE(int precision, HyperLogLog::PrecisionFor(rsd));
  return std::make_shared<HyperLogLogOptions>(precision);
}

// approx_count_distinct(value[, rsd]): any value Spark can hash; rsd a double or decimal literal
// (HyperLogLogPlusPlus.validateDoubleLiteral), whose precision must be at least 4.
Result<TypedCall> ApproxCountDistinctRule(const Expr& call, std::vector<ExprPtr> args) {
  if (!SparkHashable(*args[0]->type)) {
    return UnexpectedType(call, 0, *args[0], "hashable");
  }
  if (args.size() == 2) {
    const Expr& rsd = *args[1];
    bool literal = rsd.kind == ExprKind::kLiteral && rsd.value->is_valid &&
                   (rsd.type->id() == arrow::Type::DOUBLE || IsDecimal(*rsd.type));
    if (!literal) {
      return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1104",
                       "The second argument should be a double literal.", "");
    }
    ARROW_RETURN_NOT_OK(ApproxCountDistinctOptions(args).status());
  }
  return TypedCall{arrow::int64(), false, std::move(args)};
}

// --- arrays -----------------------------------------------------------------------------------

bool IsArray(const arrow::DataType& t) { return t.id() == arrow::Type::LIST; }

const arrow::ListType& AsList(const ExprPtr& e) {
  return static_cast<const arrow::ListType&>(*e->type);
}

Status NotArray(const Expr& call, size_t index, const Expr& arg, bool or_map) {
  return UnexpectedType(call, index, arg, or_map ? "(\"ARRAY\" or \"MAP\")" : "\"ARRAY\"");
}

// The index of a struct's field named `name` in any case, or -1.
int FieldIndexIgnoreCase(const arrow::DataType& structs, const std::string& name) {
  for (int i = 0; i < structs.num_fields(); ++i) {
    if (NameEqualsIgnoreCase(structs.field(i)->name(), name)) return i;
  }
  return -1;
}

const arrow::MapType& AsMap(const ExprPtr& e) { return static_cast<const arrow::MapType&>(*e->type); }

// An array and an integral index (element_at, get, a[i]): the index as an int, the element's
// type; nullable unless Spark knows the element of array(...) at a constant index in bounds.
Result<TypedCall> ArrayIndexRule(const Expr& call, std::vector<ExprPtr> args, bool one_based) {
  if (!IsArray(*args[0]->type)) return NotArray(call, 0, *args[0], true);
  if (!IsIntegral(*args[1]->type) && !IsNull(*args[1]->type)) {
    return UnexpectedType(call, 1, *args[1], one_based ? "\"INT\"" : "\"INTEGRAL\"");
  }
  args[1] = CastIfNeeded(args[1], arrow::int32());
  auto element = AsList(args[0]).value_type();
  bool nullable = true;
  const Expr& array = *StripAlias(args[0]);
  std::string array_name = array.name;
  std::transform(array_name.begin(), array_name.end(), array_name.begin(), ::tolower);
  if (array.kind == ExprKind::kCall && array_name == "array") {
    auto index = LiteralInt(call, args[1]);
    int64_t n = static_cast<int64_t>(array.args.size());
    if (index.ok()) {
      int64_t at = one_based ? (*index > 0 ? *index - 1 : *index < 0 ? n + *index : -1) : *index;
      if (at >= 0 && at < n) nullable = array.args[static_cast<size_t>(at)]->nullable;
    }
  }
  return TypedCall{element, nullable, std::move(args)};
}

// How a key looked up in a map meets the map's key type: m[k] casts any key Spark can cast,
// element_at widens the key to the map's key type, map_contains_key widens either to the other
// (the lookup kernel casts the map's keys to the key's type).
enum class KeyCoercion { kCast, kWidenKey, kWidenEither };

Result<ExprPtr> MapKey(const Expr& call, const ExprPtr& map, const ExprPtr& key,
                       KeyCoercion coercion) {
  auto key_type = AsMap(map).key_type();
  if (coercion == KeyCoercion::kCast && CanCast(*key->type, *key_type)) {
    return CastIfNeeded(key, key_type);
  }
  auto wider = WiderType(key_type, key->type);
  if (!wider || (coercion != KeyCoercion::kWidenEither && !wider->Equals(*key_type))) {
    return Mismatch(call, "MAP_FUNCTION_DIFF_TYPES",
                    "Input to `" + call.name + "` should have been \"MAP\" followed by a value "
                        "with same key type, but it's [" + TypeQuoted(*map->type) + ", " +
                        TypeQuoted(*key->type) + "]");
  }
  return CastIfNeeded(key, wider);
}

// explode(a), explode_outer(a), posexplode(a), posexplode_outer(a): the analyzer moves them into
// a Generate node (Analyzer::Generate); typed as their element, nullable as it is. A map's
// element is its entry, a struct of key and value; inline's is a struct of its array: the
// struct's fields are then the generated columns.
FunctionDef Generator(std::string name, bool outer, bool position, bool inline_structs = false) {
  FunctionDef def = Scalar(
      std::move(name), 1, 1,
      [inline_structs](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        const auto& type = *args[0]->type;
        if (inline_structs) {
          if (!IsArray(type) || AsList(args[0]).value_type()->id() != arrow::Type::STRUCT) {
            return UnexpectedType(call, 0, *args[0], "\"ARRAY<STRUCT>\"");
          }
        } else if (IsMap(type)) {
          return TypedCall{AsMap(args[0]).value_type(), false, std::move(args)};
        } else if (!IsArray(type)) {
          return NotArray(call, 0, *args[0], true);
        }
        auto element = AsList(args[0]).value_field();
        return TypedCall{element->type(), element->nullable(), std::move(args)};
      },
      nullptr);
  def.generator = true;
  def.generator_outer = outer;
  def.generator_position = position;
  def.generator_inline = inline_structs;
  return def;
}

void AddArrayFunctions(Catalog& c) {
  Add(c, Generator("explode", false, false));
  Add(c, Generator("explode_outer", true, false));
  Add(c, Generator("posexplode", false, true));
  Add(c, Generator("posexplode_outer", true, true));
  Add(c, Generator("inline", false, false, true));
  Add(c, Generator("inline_outer", true, false, true));
  // split(str, regex[, limit]): Java's String.split, limit <= 0 keeping trailing empty strings.
  Add(c, Scalar(
             "split", 2, 3,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               std::vector<ExprPtr> text{args[0], args[1]};
               ARROW_ASSIGN_OR_RAISE(auto typed, StringArgsRule(call, text, arrow::utf8()));
               args[0] = typed.args[0];
               args[1] = typed.args[1];
               if (args.size() == 3) {
                 if (!IsIntegral(*args[2]->type) && !IsNull(*args[2]->type)) {
                   return UnexpectedType(call, 2, *args[2], "\"INT\"");
                 }
                 args[2] = CastIfNeeded(args[2], arrow::int32());
               }
               return Typed(std::move(args), ArrayOf(arrow::utf8(), false));
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               if (a.size() == 2) a.push_back(cp::literal(int32_t{-1}));
               return Fn("ember_split", std::move(a));
             }));
  // array(a, b, ...): the arguments' common type; an element may be NULL when an argument may.
  Add(c, Scalar(
             "array", 0, -1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (args.empty()) return TypedCall{ArrayOf(arrow::null(), false), false, {}};
               ARROW_ASSIGN_OR_RAISE(auto typed, CommonType(call, std::move(args)));
               return TypedCall{ArrayOf(typed.type, AnyNullable(typed.args)), false,
                                std::move(typed.args)};
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               if (a.empty()) {
                 ARROW_ASSIGN_OR_RAISE(auto empty, arrow::MakeEmptyArray(arrow::null()));
                 return Lit(std::make_shared<arrow::ListScalar>(empty, call.type));
               }
               return Fn("ember_make_array", std::move(a));
             }));
  // size(a), cardinality(a): NULL for a NULL array (Spark 4's default: ANSI mode ends the legacy
  // -1).
  for (const char* name : {"size", "cardinality"}) {
    Add(c, Scalar(
               name, 1, 1,
               [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                 if (!IsArray(*args[0]->type) && !IsMap(*args[0]->type)) {
                   return NotArray(call, 0, *args[0], true);
                 }
                 return Typed(std::move(args), arrow::int32());
               },
               [](const Expr& call, std::vector<cp::Expression> a,
                  const EvalContext&) -> Result<cp::Expression> {
                 // A map's size is its keys' (arrow measures lists only).
                 if (IsMap(*call.args[0]->type)) a[0] = Fn("ember_map_keys", {a[0]});
                 return CastTo(Fn("list_value_length", std::move(a)), arrow::int32());
               }));
  }
  // element_at(a, i): 1-based, negative from the end; ANSI errors for 0 or past the end.
  // element_at(m, k): k's value, NULL without one. try_element_at: NULL past the end too.
  for (auto [name, kernel] : {std::pair{"element_at", "ember_element_at"},
                              {"try_element_at", "ember_try_element_at"}}) {
    std::string array_kernel = kernel;
    Add(c, Scalar(
               name, 2, 2,
               [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                 if (IsMap(*args[0]->type)) {
                   ARROW_ASSIGN_OR_RAISE(args[1], MapKey(call, args[0], args[1], KeyCoercion::kWidenKey));
                   return TypedCall{AsMap(args[0]).item_type(), true, std::move(args)};
                 }
                 return ArrayIndexRule(call, std::move(args), /*one_based=*/true);
               },
               [array_kernel](const Expr& call, std::vector<cp::Expression> a,
                              const EvalContext&) -> Result<cp::Expression> {
                 if (IsMap(*call.args[0]->type)) return Fn("ember_map_value", std::move(a));
                 return Fn(array_kernel, std::move(a));
               }));
  }
  // get(a, i): 0-based, NULL outside the array.
  Add(c, Scalar(
             "get", 2, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               return ArrayIndexRule(call, std::move(args), /*one_based=*/false);
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("ember_get", std::move(a));
             }));
  // array_contains(a, v): true if an element equals v, else NULL if an element is NULL.
  Add(c, Scalar(
             "array_contains", 2, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               for (const auto& arg : args) {
                 if (IsNull(*arg->type)) {
                   return Mismatch(call, "NULL_TYPE",
                                   "Null typed values cannot be used as arguments of "
                                   "`array_contains`");
                 }
               }
               if (!IsArray(*args[0]->type)) return NotArray(call, 0, *args[0], false);
               auto element = AsList(args[0]).value_type();
               auto common = WiderType(element, args[1]->type);
               if (!common) {
                 return Mismatch(call, "ARRAY_FUNCTION_DIFF_TYPES",
                                 "Input to `array_contains` should have been \"ARRAY\" followed "
                                 "by a value with same element type, but it's [" +
                                     TypeQuoted(*args[0]->type) + ", " +
                                     TypeQuoted(*args[1]->type) + "]");
               }
               const bool contains_null = AsList(args[0]).value_field()->nullable();
               args[0] = CastIfNeeded(args[0], ArrayOf(common, contains_null));
               args[1] = CastIfNeeded(args[1], common);
               bool nullable = AnyNullable(args) || contains_null;
               return TypedCall{arrow::boolean(), nullable, std::move(args)};
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("ember_array_contains", std::move(a));
             }));
}

// A function of one array argument that keeps its type.
FunctionDef ArrayToArray(std::string name, std::string kernel) {
  return Scalar(
      std::move(name), 1, 1,
      [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        if (!IsArray(*args[0]->type)) return NotArray(call, 0, *args[0], false);
        auto type = args[0]->type;
        return Typed(std::move(args), type);
      },
      [kernel](const Expr&, std::vector<cp::Expression> a,
               const EvalContext&) -> Result<cp::Expression> { return Fn(kernel, std::move(a)); });
}

void AddMoreArrayFunctions(Catalog& c) {
  Add(c, ArrayToArray("array_distinct", "ember_array_distinct"));
  {
    auto compact = ArrayToArray("array_compact", "ember_array_compact");
    auto rule = compact.type_rule;
    compact.type_rule = [rule](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
      ARROW_ASSIGN_OR_RAISE(auto typed, rule(call, std::move(args)));
      typed.type = ArrayOf(static_cast<const arrow::ListType&>(*typed.type).value_type(), false);
      return typed;
    };
    Add(c, std::move(compact));
  }
  for (auto [name, kernel] : {std::pair{"array_max", "ember_array_max"}, {"array_min", "ember_array_min"}}) {
    std::string k = kernel;
    Add(c, Scalar(
               name, 1, 1,
               [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                 if (!IsArray(*args[0]->type)) return NotArray(call, 0, *args[0], false);
                 auto element = AsList(args[0]).value_type();
                 return TypedCall{element, true, std::move(args)};
               },
               [k](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> { return Fn(k, std::move(a)); }));
  }
  // sort_array(a[, asc]): NULLs first ascending, last descending.
  Add(c, Scalar(
             "sort_array", 1, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (!IsArray(*args[0]->type)) return NotArray(call, 0, *args[0], false);
               if (args.size() == 2) {
                 const Expr& asc = *StripAlias(args[1]);
                 bool boolean = asc.type->id() == arrow::Type::BOOL || IsNull(*asc.type);
                 if (asc.kind == ExprKind::kCast && IsNull(*asc.args[0]->type)) {
                   return TypedCall{args[0]->type, true, std::move(args)};  // NULL: no order
                 }
                 if (asc.kind != ExprKind::kLiteral || !boolean) {
                   return Mismatch(call, "UNEXPECTED_INPUT_TYPE",
                                   "The second parameter requires the \"BOOLEAN\" type, however " +
                                       Quoted(asc) + " has the type " + TypeQuoted(*asc.type));
                 }
               }
               auto type = args[0]->type;
               return Typed(std::move(args), type);
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               if (a.size() == 1) a.push_back(cp::literal(true));
               const Expr& asc = *StripAlias(call.args.back());
               bool null_order = call.args.size() == 2 &&
                                 (IsNull(*asc.type) || (asc.kind == ExprKind::kCast &&
                                                        IsNull(*asc.args[0]->type)));
               if (null_order) return Lit(arrow::MakeNullScalar(call.type));
               return Fn("ember_sort_array", std::move(a));
             }));
  Add(c, Scalar(
             "slice", 3, 3,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (!IsArray(*args[0]->type)) return NotArray(call, 0, *args[0], false);
               for (size_t i = 1; i < 3; ++i) {
                 if (!IsIntegral(*args[i]->type) && !IsNull(*args[i]->type)) {
                   return UnexpectedType(call, i, *args[i], "\"INT\"");
                 }
                 args[i] = CastIfNeeded(args[i], arrow::int32());
               }
               auto type = args[0]->type;
               return Typed(std::move(args), type);
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("ember_slice", std::move(a));
             }));
  Add(c, Scalar(
             "array_join", 2, 3,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (!IsArray(*args[0]->type) || !IsString(*AsList(args[0]).value_type())) {
                 return UnexpectedType(call, 0, *args[0], "\"ARRAY<STRING>\"");
               }
               for (size_t i = 1; i < args.size(); ++i) {
                 args[i] = CastIfNeeded(args[i], arrow::utf8());
               }
               bool nullable = args[0]->nullable || args[1]->nullable ||
                               (args.size() == 3 && args[2]->nullable);
               return TypedCall{arrow::utf8(), nullable, std::move(args)};
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               if (a.size() == 2) a.push_back(Lit(arrow::MakeNullScalar(arrow::utf8())));
               return Fn("ember_array_join", std::move(a));
             }));
}

// --- structs --------------------------------------------------------------------------------

// make_struct's options for a struct of `type`: its names and its fields' nullability, so that
// the values built have the type the analyzer gave them.
std::shared_ptr<cp::MakeStructOptions> StructOptions(const arrow::DataType& type) {
  std::vector<std::string> names;
  std::vector<bool> nullable;
  std::vector<std::shared_ptr<const arrow::KeyValueMetadata>> metadata;
  for (const auto& f : type.fields()) {
    names.push_back(f->name());
    nullable.push_back(f->nullable());
    metadata.push_back(f->metadata());
  }
  return std::make_shared<cp::MakeStructOptions>(names, nullable, metadata);
}

// --- maps -------------------------------------------------------------------------------------

Status NotMap(const Expr& call, size_t index, const Expr& arg) {
  return UnexpectedType(call, index, arg, "\"MAP\"");
}

cp::Expression EmptyMap(const std::shared_ptr<arrow::DataType>& type) {
  const auto& map = static_cast<const arrow::MapType&>(*type);
  auto entries = *arrow::MakeEmptyArray(map.value_type());
  return Lit(std::make_shared<arrow::MapScalar>(entries, type));
}

void AddMapFunctions(Catalog& c) {
  // map(k1, v1, ...): the keys' common type and the values'; never NULL itself.
  Add(c, Scalar(
             "map", 0, -1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (args.size() % 2 != 0) {
                 return UserError(ErrorKind::kAnalysis, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                                  "The `map` requires 2n (n > 0) parameters but the actual "
                                  "number is " + std::to_string(args.size()) + ". Please, refer "
                                  "to 'https://spark.apache.org/docs/latest/"
                                  "sql-ref-functions.html' for a fix.",
                                  "42605");
               }
               std::vector<ExprPtr> keys, values;
               for (size_t i = 0; i < args.size(); ++i) (i % 2 ? values : keys).push_back(args[i]);
               auto common = [&](std::vector<ExprPtr> part, const char* which) -> Result<TypedCall> {
                 auto typed = CommonType(call, std::move(part));
                 if (typed.ok()) return typed;
                 std::string types;
                 for (size_t i = 0; i < args.size(); ++i) {
                   if ((i % 2 == 1) == (which[0] == 'v')) {
                     types += (types.empty() ? "" : " or ") + TypeQuoted(*args[i]->type);
                   }
                 }
                 return Mismatch(call, std::string("CREATE_MAP_") +
                                           (which[0] == 'v' ? "VALUE" : "KEY") + "_DIFF_TYPES",
                                 std::string("The given ") + which + " of function `map` should "
                                     "all be the same type, but they are [" + types + "]");
               };
               ARROW_ASSIGN_OR_RAISE(auto typed_keys, common(std::move(keys), "keys"));
               ARROW_ASSIGN_OR_RAISE(auto typed_values, common(std::move(values), "values"));
               if (IsMap(*typed_keys.type)) {
                 return Mismatch(call, "INVALID_MAP_KEY_TYPE",
                                 "The key of map cannot be/contain " + TypeQuoted(*typed_keys.type));
               }
               std::vector<ExprPtr> out;
               for (size_t i = 0; i < typed_keys.args.size(); ++i) {
                 out.push_back(typed_keys.args[i]);
                 out.push_back(typed_values.args[i]);
               }
               auto type = MapOf(typed_keys.type, typed_values.type, AnyNullable(typed_values.args));
               return TypedCall{type, false, std::move(out)};
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               if (a.empty()) return EmptyMap(call.type);
               return Fn("ember_make_map", std::move(a));
             }));
  // map_keys(m), map_values(m), map_entries(m): arrays over the map's own buffers.
  for (auto [name, kernel] : {std::pair{"map_keys", "ember_map_keys"},
                              {"map_values", "ember_map_values"},
                              {"map_entries", "ember_map_entries"}}) {
    std::string fn_name = name, k = kernel;
    Add(c, Scalar(
               name, 1, 1,
               [fn_name](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                 if (!IsMap(*args[0]->type)) return NotMap(call, 0, *args[0]);
                 const auto& map = AsMap(args[0]);
                 auto type = fn_name == "map_keys"     ? ArrayOf(map.key_type(), false)
                             : fn_name == "map_values" ? ArrayOf(map.item_type(),
                                                                 map.item_field()->nullable())
                                                       : ArrayOf(map.value_type(), false);
                 return Typed(std::move(args), type);
               },
               [k](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> { return Fn(k, std::move(a)); }));
  }
  // map_from_arrays(keys, values): NULL when either is; arrays of unequal lengths are an error.
  Add(c, Scalar(
             "map_from_arrays", 2, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               for (size_t i = 0; i < 2; ++i) {
                 if (!IsArray(*args[i]->type)) return NotArray(call, i, *args[i], false);
               }
               const auto& values = AsList(args[1]);
               auto type = MapOf(AsList(args[0]).value_type(), values.value_type(),
                                 values.value_field()->nullable());
               return Typed(std::move(args), type);
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("ember_map_from_arrays", std::move(a));
             }));
  // map_from_entries(array of (key, value) structs): NULL when the array or an entry is.
  Add(c, Scalar(
             "map_from_entries", 1, 1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               const auto& type = *args[0]->type;
               if (!IsArray(type) || AsList(args[0]).value_type()->id() != arrow::Type::STRUCT ||
                   AsList(args[0]).value_type()->num_fields() != 2) {
                 return UnexpectedType(call, 0, *args[0], "\"ARRAY\" of pair \"STRUCT\"");
               }
               const auto& pair = *AsList(args[0]).value_type();
               auto map = MapOf(pair.field(0)->type(), pair.field(1)->type(),
                                pair.field(1)->nullable());
               bool nullable = args[0]->nullable || AsList(args[0]).value_field()->nullable();
               return TypedCall{map, nullable, std::move(args)};
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("ember_map_from_entries", std::move(a));
             }));
  // map_contains_key(m, k): the key and the map's keys widened to one type.
  Add(c, Scalar(
             "map_contains_key", 2, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               for (const auto& arg : args) {
                 if (IsNull(*arg->type)) {
                   return Mismatch(call, "NULL_TYPE",
                                   "Null typed values cannot be used as arguments of "
                                   "`map_contains_key`");
                 }
               }
               if (!IsMap(*args[0]->type)) return NotMap(call, 0, *args[0]);
               ARROW_ASSIGN_OR_RAISE(args[1],
                                     MapKey(call, args[0], args[1], KeyCoercion::kWidenEither));
               return TypedCall{arrow::boolean(), true, std::move(args)};
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("ember_map_contains_key", std::move(a));
             }));
  // map_concat(m1, ...): every map's entries; NULL when a map is; map_concat() is an empty
  // map<string,string>.
  Add(c, Scalar(
             "map_concat", 0, -1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (args.empty()) {
                 return TypedCall{MapOf(arrow::utf8(), arrow::utf8()), false, {}};
               }
               std::string types;
               bool all_maps = true;
               for (const auto& arg : args) {
                 types += (types.empty() ? "" : ", ") + TypeQuoted(*arg->type);
                 all_maps = all_maps && IsMap(*arg->type);
               }
               if (!all_maps) {
                 return Mismatch(call, "MAP_CONCAT_DIFF_TYPES",
                                 "The `map_concat` should all be of type map, but it's [" +
                                     types + "]");
               }
               auto type = args[0]->type;
               for (const auto& arg : args) {
                 auto wider = WiderType(type, arg->type);
                 if (!wider) {
                   std::string alternatives;
                   for (const auto& a : args) {
                     alternatives += (alternatives.empty() ? "" : " or ") + TypeQuoted(*a->type);
                   }
                   return Mismatch(call, "DATA_DIFF_TYPES",
                                   "Input to `map_concat` should all be the same type, but it's (" +
                                       alternatives + ")");
                 }
                 type = wider;
               }
               for (auto& arg : args) arg = CastIfNeeded(arg, type);
               return Typed(std::move(args), type);
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               if (a.empty()) return EmptyMap(call.type);
               return Fn("ember_map_concat", std::move(a));
             }));
  // str_to_map(text[, pair_delimiter[, key_value_delimiter]]): delimiters ',' and ':' unless
  // given, both regular expressions.
  Add(c, Scalar(
             "str_to_map", 1, 3,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (args.size() < 2) args.push_back(Literal(std::make_shared<arrow::StringScalar>(",")));
               if (args.size() < 3) args.push_back(Literal(std::make_shared<arrow::StringScalar>(":")));
               ARROW_ASSIGN_OR_RAISE(auto typed, StringArgsRule(call, std::move(args), arrow::utf8()));
               typed.type = MapOf(arrow::utf8(), arrow::utf8());
               return typed;
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("ember_str_to_map", std::move(a));
             }));
}

// --- higher-order functions -------------------------------------------------------------------

bool IsLambda(const ExprPtr& e) { return e && e->kind == ExprKind::kLambda; }

Status NotLambda(const Expr& call, size_t index, const Expr& arg) {
  return UnexpectedType(call, index, arg, "\"LAMBDA\"");
}

// The body's type must be boolean (filter, exists, forall, map_filter).
Status BooleanLambda(const Expr& call, size_t index, const ExprPtr& lambda) {
  if (lambda->type->id() == arrow::Type::BOOL) return Status::OK();
  return UnexpectedType(call, index, *lambda, "\"BOOLEAN\"");
}

// A higher-order function of an array: `f(a, x -> ...)` or, when `with_index`, also
// `f(a, (x, i) -> ...)`; `type` gives its type and nullability from the array and the lambda.
FunctionDef ArrayHigherOrder(
    std::string name, bool with_index,
    std::function<Result<TypedCall>(const Expr& call, std::vector<ExprPtr> args)> type) {
  FunctionDef def = Scalar(
      std::move(name), 2, 2,
      [type](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        if (!IsArray(*args[0]->type)) return NotArray(call, 0, *args[0], false);
        if (!IsLambda(args[1])) return NotLambda(call, 1, *args[1]);
        return type(call, std::move(args));
      },
      nullptr);
  def.lambda_variables = [with_index](const Expr& call, const std::vector<ExprPtr>& args, size_t,
                                      size_t arity) -> Result<std::vector<LambdaVariable>> {
    if (!IsArray(*args[0]->type)) return NotArray(call, 0, *args[0], false);
    auto element = AsList(args[0]).value_field();
    std::vector<LambdaVariable> variables{{element->type(), element->nullable()}};
    if (with_index && arity == 2) variables.push_back({arrow::int32(), false});
    return variables;
  };
  return def;
}

// A higher-order function of a map: `f(m, (k, v) -> ...)`.
FunctionDef MapHigherOrder(
    std::string name,
    std::function<Result<TypedCall>(const Expr& call, std::vector<ExprPtr> args)> type) {
  FunctionDef def = Scalar(
      std::move(name), 2, 2,
      [type](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        if (!IsMap(*args[0]->type)) return NotMap(call, 0, *args[0]);
        if (!IsLambda(args[1])) return NotLambda(call, 1, *args[1]);
        return type(call, std::move(args));
      },
      nullptr);
  def.lambda_variables = [](const Expr& call, const std::vector<ExprPtr>& args, size_t,
                            size_t) -> Result<std::vector<LambdaVariable>> {
    if (!IsMap(*args[0]->type)) return NotMap(call, 0, *args[0]);
    const auto& map = AsMap(args[0]);
    return std::vector<LambdaVariable>{{map.key_type(), false},
                                       {map.item_type(), map.item_field()->nullable()}};
  };
  return def;
}

void AddHigherOrderFunctions(Catalog& c) {
  // transform(a, x -> y), transform(a, (x, i) -> y): each element mapped.
  Add(c, ArrayHigherOrder("transform", true, [](const Expr&, std::vector<ExprPtr> args) {
        auto type = ArrayOf(args[1]->type, args[1]->nullable);
        bool nullable = args[0]->nullable;
        return Result<TypedCall>(TypedCall{type, nullable, std::move(args)});
      }));
  // filter(a, x -> bool), filter(a, (x, i) -> bool): the elements where it is true.
  Add(c, ArrayHigherOrder("filter", true, [](const Expr& call, std::vector<ExprPtr> args)
                                              -> Result<TypedCall> {
        ARROW_RETURN_NOT_OK(BooleanLambda(call, 1, args[1]));
        auto type = args[0]->type;
        bool nullable = args[0]->nullable;
        return TypedCall{type, nullable, std::move(args)};
      }));
  // exists(a, x -> bool), forall(a, x -> bool): SQL's three-valued OR and AND of the predicates.
  for (const char* name : {"exists", "forall"}) {
    Add(c, ArrayHigherOrder(name, false, [](const Expr& call, std::vector<ExprPtr> args)
                                             -> Result<TypedCall> {
          ARROW_RETURN_NOT_OK(BooleanLambda(call, 1, args[1]));
          bool nullable = args[0]->nullable || args[1]->nullable ||
                          AsList(args[0]).value_field()->nullable();
          return TypedCall{arrow::boolean(), nullable, std::move(args)};
        }));
  }
  // aggregate(a, zero, (acc, x) -> acc[, acc -> result]), reduce: a fold from zero.
  for (const char* name : {"aggregate", "reduce"}) {
    FunctionDef fold = Scalar(
        name, 3, 4,
        [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
          if (!IsArray(*args[0]->type)) return NotArray(call, 0, *args[0], false);
          for (size_t i = 2; i < args.size(); ++i) {
            if (!IsLambda(args[i])) return NotLambda(call, i, *args[i]);
          }
          // The accumulator has zero's type, and the merge must keep it.
          if (SparkTypeName(*args[1]->type) != SparkTypeName(*args[2]->type)) {
            return Mismatch(call, "UNEXPECTED_INPUT_TYPE",
                            "The third parameter requires the " + TypeQuoted(*args[1]->type) +
                                " type, however " + Quoted(*args[2]) + " has the type " +
                                TypeQuoted(*args[2]->type));
          }
          const ExprPtr& last = args.back();
          auto type = last->type;
          bool nullable = true;
          return TypedCall{type, nullable, std::move(args)};
        },
        nullptr);
    fold.lambda_variables = [](const Expr& call, const std::vector<ExprPtr>& args, size_t index,
                               size_t) -> Result<std::vector<LambdaVariable>> {
      if (!IsArray(*args[0]->type)) return NotArray(call, 0, *args[0], false);
      if (index == 1) return std::vector<LambdaVariable>{};
      // The accumulator has the merge's type; the merge's own is not known before it is
      // resolved, so the accumulator takes zero's type (Spark asks them to be one).
      auto acc = args[1]->type;
      if (index == 3 && args[2]) acc = args[2]->type;
      auto element = AsList(args[0]).value_field();
      if (index == 2) {
        return std::vector<LambdaVariable>{{acc, true}, {element->type(), element->nullable()}};
      }
      return std::vector<LambdaVariable>{{acc, true}};
    };
    Add(c, std::move(fold));
  }
  // map_filter(m, (k, v) -> bool): the entries where it is true.
  Add(c, MapHigherOrder("map_filter", [](const Expr& call, std::vector<ExprPtr> args)
                                          -> Result<TypedCall> {
        ARROW_RETURN_NOT_OK(BooleanLambda(call, 1, args[1]));
        auto type = args[0]->type;
        bool nullable = args[0]->nullable;
        return TypedCall{type, nullable, std::move(args)};
      }));
  // transform_values(m, (k, v) -> v2), transform_keys(m, (k, v) -> k2): new keys are checked as
  // a new map's.
  Add(c, MapHigherOrder("transform_values", [](const Expr&, std::vector<ExprPtr> args) {
        auto type = MapOf(AsMap(args[0]).key_type(), args[1]->type, args[1]->nullable);
        bool nullable = args[0]->nullable;
        return Result<TypedCall>(TypedCall{type, nullable, std::move(args)});
      }));
  Add(c, MapHigherOrder("transform_keys", [](const Expr& call, std::vector<ExprPtr> args)
                                              -> Result<TypedCall> {
        if (IsMap(*args[1]->type)) {
          return Mismatch(call, "INVALID_MAP_KEY_TYPE",
                          "The key of map cannot be/contain " + TypeQuoted(*args[1]->type));
        }
        const auto& map = AsMap(args[0]);
        auto type = MapOf(args[1]->type, map.item_type(), map.item_field()->nullable());
        bool nullable = args[0]->nullable;
        return TypedCall{type, nullable, std::move(args)};
      }));
}

Catalog BuildCatalog() {
  Catalog c;
  // Arithmetic: ANSI mode, so overflow and division by zero raise errors.
  for (auto [op, fn] : {std::pair{"+", "add_checked"}, {"-", "subtract_checked"},
                        {"*", "multiply_checked"}}) {
    std::string arrow_fn = fn;
    Add(c, Scalar(op, 2, 2, ArithmeticRule,
                  [arrow_fn](const Expr&, std::vector<cp::Expression> a,
                             const EvalContext&) -> Result<cp::Expression> {
                    return Fn(arrow_fn, std::move(a));
                  }));
  }
  Add(c, Scalar("/", 2, 2, ArithmeticRule,
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return Fn("divide_checked", std::move(a));
                }));
  Add(c, Scalar("div", 2, 2, ArithmeticRule,
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return Fn("divide_checked", std::move(a));
                }));
  // Spark's remainder takes the dividend's sign: a - trunc(a / b) * b.
  Add(c, Scalar("%", 2, 2, ArithmeticRule,
                [](const Expr& call, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  // Java's remainder: the dividend's sign, C's fmod for fractions.
                  if (call.type->id() == arrow::Type::DOUBLE || call.type->id() == arrow::Type::FLOAT) {
                    return CastTo(Fn("ember_fmod", {CastTo(a[0], arrow::float64()),
                                                    CastTo(a[1], arrow::float64())}),
                                  call.type);
                  }
                  auto quotient = Fn("divide_checked", {a[0], a[1]});
                  if (!IsIntegral(*call.type)) quotient = Fn("trunc", {quotient});
                  return Fn("subtract", {a[0], Fn("multiply", {quotient, a[1]})});
                }));
  Add(c, Scalar("negative", 1, 1, NumericUnaryRule,
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return Fn("negate_checked", std::move(a));
                }));
  Add(c, Direct("abs", 1, NumericUnaryRule, "abs_checked"));
  Add(c, Direct("power", 2, PowerRule, "power"));
  Add(c, Direct("pow", 2, PowerRule, "power"));
  for (auto [op, fn] : {std::pair{"&", "bit_wise_and"}, {"|", "bit_wise_or"},
                        {"^", "bit_wise_xor"}}) {
    Add(c, Direct(op, 2, BitwiseRule, fn));
  }
  Add(c, Direct("~", 1, BitwiseRule, "bit_wise_not"));
  // Comparison.
  for (auto [op, fn] : {std::pair{"=", "equal"}, {"<", "less"}, {"<=", "less_equal"},
                        {">", "greater"}, {">=", "greater_equal"}}) {
    Add(c, Direct(op, 2, ComparisonRule, fn));
  }
  Add(c, Scalar("<=>", 2, 2, ComparisonRule,
                [](const Expr& call, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  auto both_null = Fn("and", {Fn("is_null", {a[0]}), Fn("is_null", {a[1]})});
                  // A NULL-typed side is always NULL.
                  if (IsNull(*call.args[0]->type) || IsNull(*call.args[1]->type)) return both_null;
                  auto equal = Fn("coalesce", {Fn("equal", {a[0], a[1]}), cp::literal(false)});
                  return Fn("or", {both_null, equal});
                }));
  // Boolean logic with SQL's three-valued semantics.
  Add(c, Direct("and", 2, BooleanRule, "and_kleene"));
  Add(c, Direct("or", 2, BooleanRule, "or_kleene"));
  Add(c, Direct("not", 1, BooleanRule, "invert"));
  auto null_test = [](const Expr&, std::vector<ExprPtr> args) -> Result<TypedCall> {
    return TypedCall{arrow::boolean(), false, std::move(args)};
  };
  Add(c, Direct("isnull", 1, null_test, "is_null"));
  Add(c, Direct("isnotnull", 1, null_test, "is_valid"));
  Add(c, Direct("isnan", 1,
                [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  ARROW_ASSIGN_OR_RAISE(auto t, NumericUnaryRule(call, std::move(args)));
                  t.args[0] = CastIfNeeded(t.args[0], arrow::float64());
                  t.type = arrow::boolean();
                  return t;
                },
                "is_nan"));
  // x IN (a, b, ...) is an OR of equalities, which gives SQL's NULL semantics.
  Add(c, Scalar(
             "in", 1, -1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               ARROW_ASSIGN_OR_RAISE(auto typed, CommonType(call, std::move(args)));
               typed.type = arrow::boolean();
               return typed;
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               if (a.size() == 1) return cp::literal(false);
               cp::Expression out = Fn("equal", {a[0], a[1]});
               for (size_t i = 2; i < a.size(); ++i) {
                 out = Fn("or_kleene", {out, Fn("equal", {a[0], a[i]})});
               }
               return out;
             }));
  Add(c, Scalar(
             "like", 2, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               ARROW_RETURN_NOT_OK(LiteralString(call, args[1]).status());
               return StringArgsRule(call, std::move(args), arrow::boolean());
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               ARROW_ASSIGN_OR_RAISE(auto pattern, LiteralString(call, call.args[1]));
               return Fn("match_like", {a[0]}, std::make_shared<cp::MatchSubstringOptions>(pattern));
             }));
  // contains, startswith, endswith and ilike of a literal (a column's values as the second
  // argument are not built yet).
  for (auto [name, arrow_fn] : {std::pair{"contains", "match_substring"},
                                {"startswith", "starts_with"}, {"endswith", "ends_with"},
                                {"ilike", "match_like"}}) {
    std::string fn = arrow_fn;
    bool ignore_case = std::string(name) == "ilike";
    Add(c, Scalar(
               name, 2, 2,
               [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                 ARROW_ASSIGN_OR_RAISE(auto typed,
                                       StringArgsRule(call, std::move(args), arrow::boolean()));
                 ARROW_RETURN_NOT_OK(LiteralString(call, typed.args[1]).status());
                 return typed;
               },
               [fn, ignore_case](const Expr& call, std::vector<cp::Expression> a,
                                 const EvalContext&) -> Result<cp::Expression> {
                 ARROW_ASSIGN_OR_RAISE(auto pattern, LiteralString(call, call.args[1]));
                 return Fn(fn, {a[0]},
                           std::make_shared<cp::MatchSubstringOptions>(pattern, ignore_case));
               }));
  }
  Add(c, Scalar(
             "rlike", 2, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               ARROW_RETURN_NOT_OK(LiteralString(call, args[1]).status());
               return StringArgsRule(call, std::move(args), arrow::boolean());
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               ARROW_ASSIGN_OR_RAISE(auto pattern, LiteralString(call, call.args[1]));
               return Fn("match_substring_regex", {a[0]},
                         std::make_shared<cp::MatchSubstringOptions>(pattern));
             }));
  // Conditionals.
  Add(c, Scalar(
             "when", 2, -1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               std::vector<ExprPtr> values;
               for (size_t i = 0; i < args.size(); ++i) {
                 bool is_condition = i % 2 == 0 && i + 1 < args.size();
                 if (is_condition) {
                   if (IsNull(*args[i]->type)) args[i] = CastIfNeeded(args[i], arrow::boolean());
                   if (args[i]->type->id() != arrow::Type::BOOL) {
                     return UnexpectedType(call, i, *args[i], "\"BOOLEAN\"");
                   }
                 } else {
                   values.push_back(args[i]);
                 }
               }
               std::shared_ptr<arrow::DataType> common = arrow::null();
               for (const auto& v : values) {
                 auto wider = WiderType(common, v->type);
                 if (!wider) {
                   return Mismatch(call, "DATA_DIFF_TYPES",
                                   "Input to `casewhen` should all be the same type");
                 }
                 common = wider;
               }
               bool nullable = args.size() % 2 == 0;  // no ELSE: NULL when nothing matches
               for (size_t i = 0; i < args.size(); ++i) {
                 bool is_condition = i % 2 == 0 && i + 1 < args.size();
                 if (!is_condition) {
                   args[i] = CastIfNeeded(args[i], common);
                   nullable = nullable || args[i]->nullable;
                 }
               }
               return TypedCall{common, nullable, std::move(args)};
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               std::vector<cp::Expression> conditions, values;
               std::vector<std::string> names;
               size_t i = 0;
               for (; i + 1 < a.size(); i += 2) {
                 conditions.push_back(a[i]);
                 values.push_back(a[i + 1]);
                 names.push_back("c" + std::to_string(i));
               }
               if (i < a.size()) values.push_back(a[i]);
               std::vector<cp::Expression> args{
                   Fn("make_struct", conditions, std::make_shared<cp::MakeStructOptions>(names))};
               args.insert(args.end(), values.begin(), values.end());
               if (call.type->id() == arrow::Type::NA) return Lit(arrow::MakeNullScalar(call.type));
               return Fn("case_when", args);
             }));
  Add(c, Scalar(
             "coalesce", 1, -1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               ARROW_ASSIGN_OR_RAISE(auto typed, CommonType(call, std::move(args)));
               typed.nullable = std::all_of(typed.args.begin(), typed.args.end(),
                                            [](const ExprPtr& e) { return e->nullable; });
               return typed;
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("coalesce", std::move(a));
             }));
  // Strings.
  Add(c, Scalar(
             "concat", 1, -1,
             [](const Expr& call, std::vector<ExprPtr> args) {
               return StringArgsRule(call, std::move(args), arrow::utf8());
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               a.push_back(cp::literal(""));
               return Fn("binary_join_element_wise", std::move(a),
                         std::make_shared<cp::JoinOptions>(cp::JoinOptions::EMIT_NULL));
             }));
  auto string_rule = [](const Expr& call, std::vector<ExprPtr> args) {
    return StringArgsRule(call, std::move(args), arrow::utf8());
  };
  Add(c, Direct("upper", 1, string_rule, "utf8_upper"));
  Add(c, Direct("ucase", 1, string_rule, "utf8_upper"));
  Add(c, Direct("lower", 1, string_rule, "utf8_lower"));
  Add(c, Direct("lcase", 1, string_rule, "utf8_lower"));
  Add(c, Direct("trim", 1, string_rule, "utf8_trim", std::make_shared<cp::TrimOptions>(" ")));
  Add(c, Direct("ltrim", 1, string_rule, "utf8_ltrim", std::make_shared<cp::TrimOptions>(" ")));
  Add(c, Direct("rtrim", 1, string_rule, "utf8_rtrim", std::make_shared<cp::TrimOptions>(" ")));
  Add(c, Direct("reverse", 1, string_rule, "utf8_reverse"));
  for (const char* name : {"length", "char_length", "character_length"}) {
    Add(c, Scalar(
               name, 1, 1,
               [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                 // Binary values count bytes.
                 if (args[0]->type->id() == arrow::Type::BINARY) {
                   return Typed(std::move(args), arrow::int32());
                 }
                 return StringArgsRule(call, std::move(args), arrow::int32());
               },
               [](const Expr& call, std::vector<cp::Expression> a,
                  const EvalContext&) -> Result<cp::Expression> {
                 bool bytes = call.args[0]->type->id() == arrow::Type::BINARY;
                 return CastTo(Fn(bytes ? "binary_length" : "utf8_length", std::move(a)),
                               arrow::int32());
               }));
  }
  for (const char* name : {"substring", "substr"}) {
    Add(c, Scalar(
               name, 2, 3,
               [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                 for (size_t i = 1; i < args.size(); ++i) {
                   ARROW_RETURN_NOT_OK(LiteralInt(call, args[i]).status());
                 }
                 std::vector<ExprPtr> text{args[0]};
                 ARROW_ASSIGN_OR_RAISE(auto typed, StringArgsRule(call, text, arrow::utf8()));
                 args[0] = typed.args[0];
                 return Typed(std::move(args), arrow::utf8());
               },
               [](const Expr& call, std::vector<cp::Expression> a,
                  const EvalContext&) -> Result<cp::Expression> {
                 // Spark counts from 1; 0 means 1; a negative start counts from the end.
                 ARROW_ASSIGN_OR_RAISE(int64_t pos, LiteralInt(call, call.args[1]));
                 int64_t len = std::numeric_limits<int32_t>::max();
                 if (call.args.size() > 2) {
                   ARROW_ASSIGN_OR_RAISE(len, LiteralInt(call, call.args[2]));
                 }
                 if (len <= 0) return cp::literal("");
                 int64_t start = pos > 0 ? pos - 1 : pos;
                 int64_t stop = start + len;
                 if (start < 0 && stop >= 0) stop = std::numeric_limits<int32_t>::max();
                 return Fn("utf8_slice_codeunits", {a[0]},
                           std::make_shared<cp::SliceOptions>(start, stop));
               }));
  }
  // floor(x), ceil(x) (ceiling): a double rounds to a bigint as Java's Math.floor(x).toLong
  // does (NaN is 0, beyond the long range the nearest long), an integer is itself as a bigint,
  // a decimal(p, s) rounds to decimal(p - s + 1, 0).
  for (const char* name : {"floor", "ceil", "ceiling"}) {
    const std::string kernel = std::string(name) == "floor" ? "floor" : "ceil";
    Add(c, Scalar(
               name, 1, 1,
               [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                 ARROW_ASSIGN_OR_RAISE(auto typed, NumericUnaryRule(call, std::move(args)));
                 if (IsDecimal(*typed.type)) {
                   const auto& d = static_cast<const arrow::Decimal128Type&>(*typed.type);
                   typed.type = arrow::decimal128(std::min(38, d.precision() - d.scale() + 1), 0);
                 } else {
                   typed.type = arrow::int64();
                 }
                 return typed;
               },
               [kernel](const Expr& call, std::vector<cp::Expression> a,
                        const EvalContext&) -> Result<cp::Expression> {
                 const auto& from = *call.args[0]->type;
                 if (IsDecimal(from)) return Fn(kernel, {a[0]});
                 if (IsIntegral(from)) return CastTo(a[0], arrow::int64());
                 auto rounded = Fn(kernel, {CastTo(a[0], arrow::float64())});
                 constexpr double kTwoTo63 = 9223372036854775808.0;
                 // Within the long range (the largest double below 2^63 is 2^63 - 1024), NaN as
                 // 0, so that the cast is exact; values at 2^63 or above are Long.MAX_VALUE.
                 auto inside = Fn("max_element_wise",
                                  {Fn("min_element_wise",
                                      {rounded, cp::literal(kTwoTo63 - 1024.0)}),
                                   cp::literal(-kTwoTo63)});
                 inside = Fn("if_else", {Fn("is_nan", {rounded}), cp::literal(0.0), inside});
                 return Fn("if_else",
                           {Fn("greater_equal", {rounded, cp::literal(kTwoTo63)}),
                            cp::literal(std::numeric_limits<int64_t>::max()),
                            CastTo(inside, arrow::int64())});
               }));
  }
  // round(x, d): Spark rounds half away from zero.
  Add(c, Scalar(
             "round", 1, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (args.size() == 2) ARROW_RETURN_NOT_OK(LiteralInt(call, args[1]).status());
               std::vector<ExprPtr> value{args[0]};
               ARROW_ASSIGN_OR_RAISE(auto typed, NumericUnaryRule(call, value));
               args[0] = typed.args[0];
               auto type = typed.type;
               if (IsDecimal(*type)) {
                 int64_t digits = 0;
                 if (args.size() == 2) {
                   ARROW_ASSIGN_OR_RAISE(digits, LiteralInt(call, args[1]));
                 }
                 const auto& d = static_cast<const arrow::Decimal128Type&>(*type);
                 int scale = static_cast<int>(std::clamp<int64_t>(digits, 0, d.scale()));
                 type = arrow::decimal128(std::min(38, d.precision() - d.scale() + scale + 1), scale);
               }
               // Spark's round is always nullable.
               auto rounded = Typed(std::move(args), type);
               rounded.nullable = true;
               return rounded;
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               int64_t digits = 0;
               if (call.args.size() == 2) {
                 ARROW_ASSIGN_OR_RAISE(digits, LiteralInt(call, call.args[1]));
               }
               auto options = std::make_shared<cp::RoundOptions>(
                   digits, cp::RoundMode::HALF_TOWARDS_INFINITY);
               if (IsIntegral(*call.type)) {
                 if (digits >= 0) return a[0];
                 return CastTo(Fn("round", {CastTo(a[0], arrow::float64())}, options), call.type);
               }
               if (call.type->id() == arrow::Type::DOUBLE || call.type->id() == arrow::Type::FLOAT) {
                 // Spark rounds the value's shortest decimal text (BigDecimal of the double).
                 auto rounded = Fn("ember_round_half_up",
                                   {CastTo(a[0], arrow::float64()),
                                    cp::literal(static_cast<int32_t>(digits))});
                 return CastTo(rounded, call.type);
               }
               return CastTo(Fn("round", {a[0]}, options), call.type);
             }));
  Add(c, Scalar(
             "concat_ws", 1, -1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               ARROW_RETURN_NOT_OK(LiteralString(call, args[0]).status());
               return StringArgsRule(call, std::move(args), arrow::utf8());
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               ARROW_ASSIGN_OR_RAISE(auto separator, LiteralString(call, call.args[0]));
               if (a.size() == 1) return cp::literal("");
               // Spark skips NULL values. Arrow's SKIP mode drops rows whose values are all
               // NULL, so a non-null marker leads every row and is cut off afterwards.
               const std::string marker = "\x1f";
               std::vector<cp::Expression> args{cp::literal(marker)};
               args.insert(args.end(), a.begin() + 1, a.end());
               args.push_back(cp::literal(separator));
               auto joined = Fn("binary_join_element_wise", std::move(args),
                                std::make_shared<cp::JoinOptions>(cp::JoinOptions::SKIP));
               std::string pattern = "^\x1f(?:";
               for (char ch : separator) {
                 if (!std::isalnum(static_cast<unsigned char>(ch))) pattern += '\\';
                 pattern += ch;
               }
               pattern += ")?";
               return Fn("replace_substring_regex", {joined},
                         std::make_shared<cp::ReplaceSubstringOptions>(pattern, "", 1));
             }));
  // Dates and times.
  Add(c, DateField("year", "year"));
  Add(c, DateField("month", "month"));
  Add(c, DateField("quarter", "quarter"));
  Add(c, DateField("dayofmonth", "day"));
  Add(c, DateField("day", "day"));
  Add(c, DateField("dayofyear", "day_of_year"));
  Add(c, DateField("hour", "hour"));
  Add(c, DateField("minute", "minute"));
  Add(c, DateField("second", "second"));
  Add(c, Scalar(
             "dayofweek", 1, 1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (args[0]->type->id() != arrow::Type::DATE32) {
                 ARROW_ASSIGN_OR_RAISE(args[0], AsTimestamp(call, args[0], 0));
               }
               return Typed(std::move(args), arrow::int32());
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext& ctx) -> Result<cp::Expression> {
               // Spark counts 1 = Sunday .. 7 = Saturday.
               auto options = std::make_shared<cp::DayOfWeekOptions>(/*count_from_zero=*/false,
                                                                    /*week_start=*/7);
               return CastTo(Fn("day_of_week", {WallClock(a[0], *call.args[0]->type, ctx)}, options),
                             arrow::int32());
             }));
  for (const char* name : {"date_add", "date_sub"}) {
    bool subtract = std::string(name) == "date_sub";
    Add(c, Scalar(
               name, 2, 2,
               [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                 if (args[0]->type->id() != arrow::Type::DATE32) {
                   if (!IsString(*args[0]->type) && !IsTimestamp(*args[0]->type)) {
                     return UnexpectedType(call, 0, *args[0], "\"DATE\"");
                   }
                   args[0] = CastIfNeeded(args[0], arrow::date32());
                 }
                 if (!IsIntegral(*args[1]->type)) {
                   return UnexpectedType(call, 1, *args[1], "(\"INT\" or \"SMALLINT\" or \"TINYINT\")");
                 }
                 args[1] = CastIfNeeded(args[1], arrow::int32());
                 return Typed(std::move(args), arrow::date32());
               },
               [subtract](const Expr&, std::vector<cp::Expression> a,
                          const EvalContext&) -> Result<cp::Expression> {
                 auto days = CastTo(a[0], arrow::int32());
                 return CastTo(Fn(subtract ? "subtract_checked" : "add_checked", {days, a[1]}),
                               arrow::date32());
               }));
  }
  Add(c, Scalar(
             "add_months", 2, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               args[0] = CastIfNeeded(args[0], arrow::date32());
               if (!IsIntegral(*args[1]->type)) {
                 return UnexpectedType(call, 1, *args[1], "\"INT\"");
               }
               args[1] = CastIfNeeded(args[1], arrow::int32());
               return Typed(std::move(args), arrow::date32());
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("ember_add_months", std::move(a));
             }));
  Add(c, Direct("last_day", 1,
                [](const Expr&, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  args[0] = CastIfNeeded(args[0], arrow::date32());
                  return Typed(std::move(args), arrow::date32());
                },
                "ember_last_day"));
  Add(c, Scalar(
             "datediff", 2, 2,
             [](const Expr&, std::vector<ExprPtr> args) -> Result<TypedCall> {
               for (auto& arg : args) arg = CastIfNeeded(arg, arrow::date32());
               return Typed(std::move(args), arrow::int32());
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("subtract", {CastTo(a[0], arrow::int32()), CastTo(a[1], arrow::int32())});
             }));
  Add(c, Scalar(
             "to_timestamp", 1, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (args.size() == 2) ARROW_RETURN_NOT_OK(LiteralString(call, args[1]).status());
               // Text without a format is read by a cast, which Spark makes nullable.
               const bool cast = IsString(*args[0]->type) && args.size() == 1;
               if (!IsString(*args[0]->type)) {
                 ARROW_ASSIGN_OR_RAISE(args[0], AsTimestamp(call, args[0], 0));
               }
               return TypedCall{TimestampType(), cast || AnyNullable(args), std::move(args)};
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext& ctx) -> Result<cp::Expression> {
               if (!IsString(*call.args[0]->type)) return a[0];
               std::string format;
               if (call.args.size() == 2) {
                 ARROW_ASSIGN_OR_RAISE(format, LiteralString(call, call.args[1]));
               }
               return ParseTimestamp(a[0], format, /*error_is_null=*/false, ctx);
             }));
  Add(c, Scalar(
             "to_date", 1, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (args.size() == 2) ARROW_RETURN_NOT_OK(LiteralString(call, args[1]).status());
               if (args[0]->type->id() == arrow::Type::DATE32) {
                 return Typed(std::move(args), arrow::date32());
               }
               if (!IsString(*args[0]->type)) {
                 ARROW_ASSIGN_OR_RAISE(args[0], AsTimestamp(call, args[0], 0));
               }
               return Typed(std::move(args), arrow::date32());
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext& ctx) -> Result<cp::Expression> {
               const auto& from = *call.args[0]->type;
               if (from.id() == arrow::Type::DATE32) return a[0];
               cp::Expression ts = a[0];
               if (IsString(from)) {
                 std::string format;
                 if (call.args.size() == 2) {
                   ARROW_ASSIGN_OR_RAISE(format, LiteralString(call, call.args[1]));
                 }
                 if (format.empty()) {
                   return LowerCast(a[0], arrow::utf8(), arrow::date32(), false, ctx);
                 }
                 ts = ParseTimestamp(a[0], format, false, ctx);
                 return CastTo(LocalTime(ts, ctx), arrow::date32());
               }
               return LowerCast(ts, call.args[0]->type, arrow::date32(), false, ctx);
             }));
  Add(c, Scalar(
             "date_trunc", 2, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               ARROW_RETURN_NOT_OK(LiteralString(call, args[0]).status());
               ARROW_ASSIGN_OR_RAISE(args[1], AsTimestamp(call, args[1], 1));
               return Typed(std::move(args), TimestampType());
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext& ctx) -> Result<cp::Expression> {
               ARROW_ASSIGN_OR_RAISE(auto unit_name, LiteralString(call, call.args[0]));
               std::transform(unit_name.begin(), unit_name.end(), unit_name.begin(), ::tolower);
               static const std::map<std::string, cp::CalendarUnit> kUnits = {
                   {"year", cp::CalendarUnit::YEAR},     {"yyyy", cp::CalendarUnit::YEAR},
                   {"yy", cp::CalendarUnit::YEAR},       {"quarter", cp::CalendarUnit::QUARTER},
                   {"month", cp::CalendarUnit::MONTH},   {"mon", cp::CalendarUnit::MONTH},
                   {"mm", cp::CalendarUnit::MONTH},      {"week", cp::CalendarUnit::WEEK},
                   {"day", cp::CalendarUnit::DAY},       {"dd", cp::CalendarUnit::DAY},
                   {"hour", cp::CalendarUnit::HOUR},     {"minute", cp::CalendarUnit::MINUTE},
                   {"second", cp::CalendarUnit::SECOND},
                   {"millisecond", cp::CalendarUnit::MILLISECOND},
                   {"microsecond", cp::CalendarUnit::MICROSECOND}};
               auto it = kUnits.find(unit_name);
               if (it == kUnits.end()) {
                 return Lit(arrow::MakeNullScalar(TimestampType()));
               }
               auto options = std::make_shared<cp::RoundTemporalOptions>(1, it->second);
               const auto& type = static_cast<const arrow::TimestampType&>(*call.args[1]->type);
               bool zoned = !type.timezone().empty();
               auto local = zoned ? LocalTime(a[1], ctx) : a[1];
               auto floor = Fn("floor_temporal", {local}, options);
               if (it->second >= cp::CalendarUnit::DAY) return LocalToUtc(floor, ctx);
               // Below a day Spark keeps the value's offset (ZonedDateTime.truncatedTo), which
               // matters in the repeated hour: move the instant back by what was cut off.
               auto instant = zoned ? a[1] : LocalToUtc(a[1], ctx);
               auto cut = Fn("subtract", {CastTo(local, arrow::int64()), CastTo(floor, arrow::int64())});
               return CastTo(Fn("subtract", {CastTo(instant, arrow::int64()), cut}), TimestampType());
             }));
  Add(c, Scalar(
             "from_unixtime", 1, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (args.size() == 2) ARROW_RETURN_NOT_OK(LiteralString(call, args[1]).status());
               if (!IsNumeric(*args[0]->type) && !IsNull(*args[0]->type)) {
                 return UnexpectedType(call, 0, *args[0], "\"BIGINT\"");
               }
               args[0] = CastIfNeeded(args[0], arrow::int64());
               return Typed(std::move(args), arrow::utf8());
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext& ctx) -> Result<cp::Expression> {
               std::string format = "yyyy-MM-dd HH:mm:ss";
               if (call.args.size() == 2) {
                 ARROW_ASSIGN_OR_RAISE(format, LiteralString(call, call.args[1]));
               }
               auto micros = Fn("multiply_checked", {a[0], I64(1000000)});
               auto ts = CastTo(micros, TimestampType());
               return FormatTimestamp(ts, format, ctx);
             }));
  Add(c, Scalar(
             "unix_timestamp", 0, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (args.size() == 2) ARROW_RETURN_NOT_OK(LiteralString(call, args[1]).status());
               if (!args.empty() && !IsString(*args[0]->type)) {
                 ARROW_ASSIGN_OR_RAISE(args[0], AsTimestamp(call, args[0], 0));
               }
               return Typed(std::move(args), arrow::int64());
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext& ctx) -> Result<cp::Expression> {
               cp::Expression ts;
               if (a.empty()) {
                 ts = Now(ctx);
               } else if (IsString(*call.args[0]->type)) {
                 std::string format = "yyyy-MM-dd HH:mm:ss";
                 if (call.args.size() == 2) {
                   ARROW_ASSIGN_OR_RAISE(format, LiteralString(call, call.args[1]));
                 }
                 ts = ParseTimestamp(a[0], format, /*error_is_null=*/false, ctx);
               } else {
                 ts = a[0];
               }
               // Spark divides the microseconds, truncating toward zero (also before 1970).
               return Fn("divide", {CastTo(ts, arrow::int64()), I64(1000000)});
             }));
  // INTERVAL '...' from SQL text: a day-time interval, as an arrow duration in microseconds, so
  // that timestamp +/- interval works (range conditions of stream-stream joins).
  Add(c, Scalar(
             "interval", 1, 1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               ARROW_ASSIGN_OR_RAISE(auto text, LiteralString(call, args[0]));
               ARROW_RETURN_NOT_OK(ParseIntervalMicros(text).status());
               return TypedCall{arrow::duration(arrow::TimeUnit::MICRO), false, std::move(args)};
             },
             [](const Expr& call, std::vector<cp::Expression>,
                const EvalContext&) -> Result<cp::Expression> {
               ARROW_ASSIGN_OR_RAISE(auto text, LiteralString(call, call.args[0]));
               ARROW_ASSIGN_OR_RAISE(int64_t micros, ParseIntervalMicros(text));
               return Lit(std::make_shared<arrow::DurationScalar>(micros, arrow::TimeUnit::MICRO));
             }));
  // window(ts, duration, slide[, start]): the epoch-aligned tumbling window containing ts. For a
  // sliding window the analyzer adds a fifth argument, n: the n-th latest window containing ts.
  Add(c, Scalar(
             "window", 3, 5,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               // A window over a window column (chained windows) uses its window_time.
               bool over_window = args[0]->type->id() == arrow::Type::STRUCT &&
                   static_cast<const arrow::StructType&>(*args[0]->type).GetFieldIndex("end") >= 0;
               if (!over_window) {
                 ARROW_ASSIGN_OR_RAISE(args[0], AsTimestamp(call, args[0], 0));
               }
               for (size_t i = 1; i < args.size() && i < 4; ++i) {
                 ARROW_ASSIGN_OR_RAISE(auto text, LiteralString(call, args[i]));
                 ARROW_RETURN_NOT_OK(ParseIntervalMicros(text).status());
               }
               auto type = arrow::struct_({arrow::field("start", TimestampType()),
                                           arrow::field("end", TimestampType())});
               // Never NULL: rows without a time are filtered out below (the analyzer).
               return TypedCall{type, false, std::move(args)};
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               ARROW_ASSIGN_OR_RAISE(auto size_text, LiteralString(call, call.args[1]));
               ARROW_ASSIGN_OR_RAISE(auto slide_text, LiteralString(call, call.args[2]));
               ARROW_ASSIGN_OR_RAISE(int64_t size, ParseIntervalMicros(size_text));
               ARROW_ASSIGN_OR_RAISE(int64_t slide, ParseIntervalMicros(slide_text));
               int64_t offset = 0;
               if (call.args.size() > 3) {
                 ARROW_ASSIGN_OR_RAISE(auto start_text, LiteralString(call, call.args[3]));
                 ARROW_ASSIGN_OR_RAISE(offset, ParseIntervalMicros(start_text));
               }
               if (size <= 0 || slide <= 0 || slide > size) {
                 return UserError(ErrorKind::kAnalysis, "DATATYPE_MISMATCH.PARAMETER_CONSTRAINT_VIOLATION",
                                  "The window duration and slide duration must be positive, and "
                                  "the slide must not exceed the window.", "42K09");
               }
               int64_t nth = 0;
               if (call.args.size() > 4) {
                 nth = std::static_pointer_cast<arrow::Int64Scalar>(call.args[4]->value)->value;
               } else if (slide != size) {
                 return Status::Invalid("a sliding window() must be expanded by the analyzer");
               }
               // The latest start = ts - floor_mod(ts - offset, slide), with micros since the
               // epoch; the n-th latest starts n slides before it. Over a window: its end - 1.
               cp::Expression time = a[0];
               if (call.args[0]->type->id() == arrow::Type::STRUCT) {
                 int end = static_cast<const arrow::StructType&>(*call.args[0]->type).GetFieldIndex("end");
                 time = Fn("subtract", {CastTo(Fn("struct_field", {a[0]}, std::make_shared<cp::StructFieldOptions>(std::vector<int>{end})), arrow::int64()), I64(1)});
               }
               auto micros = CastTo(time, arrow::int64());
               auto shifted = Fn("subtract", {micros, I64(offset)});
               auto rem = Fn("subtract", {shifted, Fn("multiply", {Fn("divide", {shifted, I64(slide)}), I64(slide)})});
               auto floor_rem = Fn("if_else", {Fn("less", {rem, I64(0)}), Fn("add", {rem, I64(slide)}), rem});
               auto start = Fn("subtract", {Fn("subtract", {micros, floor_rem}), I64(nth * slide)});
               auto end = Fn("add", {start, I64(size)});
               auto window = Fn("make_struct", {CastTo(start, TimestampType()), CastTo(end, TimestampType())},
                                std::make_shared<cp::MakeStructOptions>(std::vector<std::string>{"start", "end"}));
               auto type = arrow::struct_({arrow::field("start", TimestampType()),
                                           arrow::field("end", TimestampType())});
               return Fn("if_else", {Fn("is_null", {a[0]}), Lit(arrow::MakeNullScalar(type)), window});
             }));
  // session_window(ts, gap): the session [ts, ts + gap) of one event; aggregations merge the
  // sessions of a key that overlap (exec/incremental_aggregate.cc).
  Add(c, Scalar(
             "session_window", 2, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               ARROW_ASSIGN_OR_RAISE(args[0], AsTimestamp(call, args[0], 0));
               ARROW_ASSIGN_OR_RAISE(auto gap, LiteralString(call, args[1]));
               ARROW_RETURN_NOT_OK(ParseIntervalMicros(gap).status());
               auto type = arrow::struct_({arrow::field("start", TimestampType()),
                                           arrow::field("end", TimestampType())});
               return TypedCall{type, false, std::move(args)};
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               ARROW_ASSIGN_OR_RAISE(auto gap_text, LiteralString(call, call.args[1]));
               ARROW_ASSIGN_OR_RAISE(int64_t gap, ParseIntervalMicros(gap_text));
               auto micros = CastTo(a[0], arrow::int64());
               auto end = CastTo(Fn("add", {micros, I64(gap)}), TimestampType());
               return Fn("make_struct", {a[0], end},
                         std::make_shared<cp::MakeStructOptions>(std::vector<std::string>{"start", "end"}));
             }));
  // window_time(w): the last instant of a window, end - 1 microsecond.
  Add(c, Scalar(
             "window_time", 1, 1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               const auto& t = *args[0]->type;
               if (t.id() != arrow::Type::STRUCT ||
                   static_cast<const arrow::StructType&>(t).GetFieldIndex("end") < 0) {
                 return UserError(ErrorKind::kAnalysis, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                                  "Cannot resolve " + Quoted(call) +
                                      " due to data type mismatch: the input should be a window "
                                      "column.",
                                  "42K09");
               }
               // Spark: NULL-able, as the window struct's end field is.
               return TypedCall{TimestampType(), true, std::move(args)};
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               int end = static_cast<const arrow::StructType&>(*call.args[0]->type).GetFieldIndex("end");
               auto micros = CastTo(Fn("struct_field", {a[0]}, std::make_shared<cp::StructFieldOptions>(std::vector<int>{end})), arrow::int64());
               return CastTo(Fn("subtract", {micros, I64(1)}), TimestampType());
             }));
  // Spark's ExtractValue: a struct's field (s.f, s['f']), the field of an array's structs
  // (a.f: an array of the field), an array's element counted from 0 (a[i]: ANSI error outside
  // it), a map's value (m[k]: NULL without one). From `col("w.start")`, getField, getItem, [].
  Add(c, Scalar(
             "extract_value", 2, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               const auto& base = *args[0]->type;
               const bool fields_of_array = IsArray(base) &&
                                            AsList(args[0]).value_type()->id() == arrow::Type::STRUCT &&
                                            IsString(*args[1]->type);
               if (base.id() == arrow::Type::STRUCT || fields_of_array) {
                 if (!IsString(*args[1]->type) || !LiteralString(call, args[1]).ok()) {
                   return UserError(ErrorKind::kAnalysis, "INVALID_EXTRACT_FIELD_TYPE",
                                    "Field name should be a non-null string literal, but it's " +
                                        Quoted(*args[1]) + ".",
                                    "42000");
                 }
                 const std::string name = *LiteralString(call, args[1]);
                 const auto& structs = fields_of_array ? *AsList(args[0]).value_type() : base;
                 int index = FieldIndexIgnoreCase(structs, name);
                 if (index < 0) {
                   std::string names;
                   for (const auto& f : structs.fields()) {
                     names += (names.empty() ? "`" : ", `") + f->name() + "`";
                   }
                   return UserError(ErrorKind::kAnalysis, "FIELD_NOT_FOUND",
                                    "No such struct field `" + name + "` in " + names + ".",
                                    "42704");
                 }
                 const auto& field = structs.field(index);
                 if (fields_of_array) {
                   bool contains_null = AsList(args[0]).value_field()->nullable() || field->nullable();
                   bool nullable = args[0]->nullable;
                   return TypedCall{ArrayOf(field->type(), contains_null), nullable, std::move(args)};
                 }
                 bool nullable = args[0]->nullable || field->nullable();
                 return TypedCall{field->type(), nullable, std::move(args)};
               }
               if (IsArray(base)) return ArrayIndexRule(call, std::move(args), /*one_based=*/false);
               if (IsMap(base)) {
                 ARROW_ASSIGN_OR_RAISE(args[1], MapKey(call, args[0], args[1], KeyCoercion::kCast));
                 return TypedCall{AsMap(args[0]).item_type(), true, std::move(args)};
               }
               return UserError(ErrorKind::kAnalysis, "INVALID_EXTRACT_BASE_FIELD_TYPE",
                                "Can't extract a value from " + Quoted(*args[0]) +
                                    ". Need a complex type [STRUCT, ARRAY, MAP] but got " +
                                    TypeQuoted(base) + ".",
                                "42000");
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               const auto& base = *call.args[0]->type;
               if (IsMap(base)) return Fn("ember_map_value", std::move(a));
               const bool by_name = IsString(*call.args[1]->type);
               if (IsArray(base) && !by_name) return Fn("ember_array_item", std::move(a));
               ARROW_ASSIGN_OR_RAISE(auto name, LiteralString(call, call.args[1]));
               const auto& structs = IsArray(base) ? *AsList(call.args[0]).value_type() : base;
               auto index = std::make_shared<cp::StructFieldOptions>(
                   std::vector<int>{FieldIndexIgnoreCase(structs, name)});
               if (IsArray(base)) return Fn("ember_array_struct_field", {a[0]}, index);
               return Fn("struct_field", {a[0]}, index);
             }));
  FunctionDef make_struct = Scalar(
             "struct", 1, -1,
             [](const Expr&, std::vector<ExprPtr> args) -> Result<TypedCall> {
               arrow::FieldVector fields;
               for (size_t i = 0; i < args.size(); ++i) {
                 std::string name = args[i]->kind == ExprKind::kAlias ||
                                            args[i]->kind == ExprKind::kAttribute
                                        ? args[i]->name
                                        : "col" + std::to_string(i + 1);
                 fields.push_back(arrow::field(name, args[i]->type, args[i]->nullable));
                 args[i] = StripAlias(args[i]);
               }
               return TypedCall{arrow::struct_(fields), false, std::move(args)};
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("make_struct", std::move(a), StructOptions(*call.type));
             });
  make_struct.takes_aliases = true;
  Add(c, std::move(make_struct));
  // named_struct(name1, value1, ...): the names are string literals.
  Add(c, Scalar(
             "named_struct", 2, -1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (args.size() % 2 != 0) {
                 return UserError(ErrorKind::kAnalysis, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                                  "The `named_struct` requires 2n (n > 0) parameters but the "
                                  "actual number is " + std::to_string(args.size()) + ".",
                                  "42605");
               }
               arrow::FieldVector fields;
               for (size_t i = 0; i < args.size(); i += 2) {
                 ARROW_ASSIGN_OR_RAISE(auto name, LiteralString(call, args[i]));
                 fields.push_back(arrow::field(name, args[i + 1]->type, args[i + 1]->nullable));
               }
               return TypedCall{arrow::struct_(fields), false, std::move(args)};
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               std::vector<cp::Expression> values;
               for (size_t i = 1; i < a.size(); i += 2) values.push_back(std::move(a[i]));
               return Fn("make_struct", std::move(values), StructOptions(*call.type));
             }));
  // Column.withField and dropFields (Spark's UpdateFields) on one level of a struct: the Connect
  // translation nests them for a path "a.b". A NULL struct stays NULL.
  for (bool with : {true, false}) {
    Add(c, Scalar(
               with ? "with_field" : "drop_field", with ? 3 : 2, with ? 3 : 2,
               [with](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                 ARROW_ASSIGN_OR_RAISE(auto name, LiteralString(call, args[1]));
                 if (args[0]->type->id() != arrow::Type::STRUCT) {
                   return UnexpectedType(call, 0, *args[0], "\"STRUCT\"");
                 }
                 arrow::FieldVector fields;
                 bool replaced = false;
                 for (const auto& f : args[0]->type->fields()) {
                   if (!NameEqualsIgnoreCase(f->name(), name)) {
                     fields.push_back(f);
                   } else if (with && !replaced) {
                     fields.push_back(arrow::field(f->name(), args[2]->type, args[2]->nullable));
                     replaced = true;
                   }
                 }
                 if (with && !replaced) {
                   fields.push_back(arrow::field(name, args[2]->type, args[2]->nullable));
                 }
                 if (fields.empty()) {
                   return UserError(ErrorKind::kAnalysis, "DATATYPE_MISMATCH.CANNOT_DROP_ALL_FIELDS",
                                    "Cannot resolve " + Quoted(call) +
                                        " due to data type mismatch: Cannot drop all fields in "
                                        "struct.",
                                    "42K09");
                 }
                 bool nullable = args[0]->nullable;
                 return TypedCall{arrow::struct_(fields), nullable, std::move(args)};
               },
               [with](const Expr& call, std::vector<cp::Expression> a,
                      const EvalContext&) -> Result<cp::Expression> {
                 ARROW_ASSIGN_OR_RAISE(auto name, LiteralString(call, call.args[1]));
                 const auto& in = static_cast<const arrow::StructType&>(*call.args[0]->type);
                 std::vector<cp::Expression> values;
                 std::vector<std::string> names;
                 std::vector<bool> nullable;
                 std::vector<std::shared_ptr<const arrow::KeyValueMetadata>> metadata;
                 for (const auto& f : call.type->fields()) {
                   names.push_back(f->name());
                   nullable.push_back(f->nullable());
                   metadata.push_back(f->metadata());
                   int i = in.GetFieldIndex(f->name());
                   if (with && NameEqualsIgnoreCase(f->name(), name)) {
                     values.push_back(a[2]);
                   } else {
                     values.push_back(Fn("struct_field", {a[0]},
                                         std::make_shared<cp::StructFieldOptions>(
                                             std::vector<int>{i})));
                   }
                 }
                 auto rebuilt = Fn("make_struct", std::move(values),
                                   std::make_shared<cp::MakeStructOptions>(names, nullable,
                                                                           metadata));
                 return Fn("if_else", {Fn("is_null", {a[0]}),
                                       Lit(arrow::MakeNullScalar(call.type)), rebuilt});
               }));
  }
  // Collections: arrays are arrow lists (ArrayOf).
  AddArrayFunctions(c);
  AddMoreArrayFunctions(c);
  AddMapFunctions(c);
  AddHigherOrderFunctions(c);
  AddMathFunctions(c);
  AddStringFunctions(c);
  AddMiscFunctions(c);
  // Aggregates.
  {
    // count(DISTINCT a, b, ...) takes several columns.
    auto count = Aggregate("count", CountRule, "hash_count", "count",
                           std::make_shared<cp::CountOptions>(cp::CountOptions::ONLY_VALID));
    count.max_args = -1;
    Add(c, std::move(count));
  }
  Add(c, Aggregate("sum", SumRule, "hash_sum", "sum",
                   std::make_shared<cp::ScalarAggregateOptions>(true, 1)));
  for (const char* name : {"avg", "mean"}) {
    Add(c, Aggregate(name, AvgRule, "hash_mean", "mean",
                     std::make_shared<cp::ScalarAggregateOptions>(true, 1)));
  }
  Add(c, Aggregate("min", SameTypeAggRule, "hash_min", "min",
                   std::make_shared<cp::ScalarAggregateOptions>(true, 1)));
  Add(c, Aggregate("max", SameTypeAggRule, "hash_max", "max",
                   std::make_shared<cp::ScalarAggregateOptions>(true, 1)));
  // Spark's first/last keep nulls unless ignorenulls is set.
  for (auto [name, hash_fn, scalar_fn] :
       {std::tuple{"first", "hash_first", "first"}, {"first_value", "hash_first", "first"},
        {"last", "hash_last", "last"}, {"last_value", "hash_last", "last"}}) {
    auto def = Aggregate(name, FirstLastRule, hash_fn, scalar_fn,
                         std::make_shared<cp::ScalarAggregateOptions>(false, 0));
    def.max_args = 2;
    def.call_options = [](const Expr& call) -> Result<std::shared_ptr<cp::FunctionOptions>> {
      // NULLs kept (Spark's default) unless the call says to skip them.
      bool ignore_nulls = false;
      if (call.args.size() == 2 && call.args[1]->kind == ExprKind::kLiteral) {
        ignore_nulls = static_cast<const arrow::BooleanScalar&>(*call.args[1]->value).value;
      }
      return std::make_shared<cp::ScalarAggregateOptions>(ignore_nulls, 0);
    };
    Add(c, std::move(def));
  }
  Add(c, Aggregate("any_value", SameTypeAggRule, "hash_first", "first",
                   std::make_shared<cp::ScalarAggregateOptions>(true, 0)));
  {
    // A HyperLogLog++ sketch per group (common/hyperloglog.h), estimated after the aggregation.
    auto approx = Aggregate("approx_count_distinct", ApproxCountDistinctRule,
                            "hash_ember_hll_sketch", "ember_hll_sketch");
    approx.max_args = 2;
    approx.call_options = [](const Expr& call) { return ApproxCountDistinctOptions(call.args); };
    approx.finalize = "ember_hll_estimate";
    Add(c, std::move(approx));
  }
  // collect_list(x), collect_set(x): the non-NULL values, as an array that contains no NULL.
  for (auto [name, hash_fn, scalar_fn] :
       {std::tuple{"collect_list", "hash_list", "ember_collect_list"},
        {"collect_set", "hash_distinct", "ember_collect_set"}}) {
    auto collect = Aggregate(
        name,
        [](const Expr&, std::vector<ExprPtr> args) -> Result<TypedCall> {
          auto type = ArrayOf(args[0]->type, false);
          return TypedCall{type, false, std::move(args)};
        },
        hash_fn, scalar_fn);
    if (std::string(hash_fn) == "hash_distinct") {
      collect.options = std::make_shared<cp::CountOptions>(cp::CountOptions::ONLY_VALID);
    }
    collect.finalize = "ember_array_compact";
    Add(c, std::move(collect));
  }
  Add(c, Aggregate("count_distinct", CountRule, "hash_count_distinct", "count_distinct",
                   std::make_shared<cp::CountOptions>(cp::CountOptions::ONLY_VALID)));
  AddAggregateFunctions(c);
  AddDatetimeFunctions(c);
  AddCollectionFunctions(c);
  AddRegexFunctions(c);
  AddJsonFunctions(c);
  for (const char* name : {"extract_value", "interval", "with_field", "drop_field", "count_distinct"}) {
    c.at(name).internal = true;
  }
  return c;
}

}  // namespace

using namespace fn;  // NOLINT: the catalog's building blocks

Result<std::shared_ptr<cp::FunctionOptions>> AggregateOptions(const FunctionDef& def,
                                                              const Expr& call) {
  if (def.call_options) return def.call_options(call);
  return def.options;
}

const Catalog& TheCatalog() {
  static const Catalog catalog = BuildCatalog();
  return catalog;
}

bool IsFoldable(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kLiteral: return true;
    case ExprKind::kCall:
      if (e.function || e.table_function || IsAggregateCall(e)) return false;
      if (e.name == "rand" || e.name == "randn" || e.name == "random" || e.name == "uuid" ||
          e.name == "shuffle") {
        return false;
      }
      break;
    case ExprKind::kCast:
    case ExprKind::kAlias: break;
    default: return false;
  }
  return std::all_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) { return IsFoldable(*a); });
}

const std::vector<std::string>& WindowOnlyFunctionNames() {
  static const std::vector<std::string> names = {
      "cume_dist", "dense_rank", "lag", "lead", "nth_value", "ntile", "percent_rank", "rank",
      "row_number"};
  return names;
}

std::vector<std::string> FunctionNames() {
  std::vector<std::string> names = WindowOnlyFunctionNames();
  for (const auto& [name, def] : TheCatalog()) {
    if (!def.internal) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

const FunctionDef* FindFunction(const std::string& name) {
  const Catalog& catalog = TheCatalog();
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  auto it = catalog.find(lower);
  return it == catalog.end() ? nullptr : &it->second;
}

bool GeneratesFields(const Expr& call) {
  const FunctionDef* def = FindFunction(call.name);
  return def && def->generator &&
         (def->generator_inline || call.args[0]->type->id() == arrow::Type::MAP);
}

bool IsAggregateCall(const Expr& expr) {
  if (expr.kind != ExprKind::kCall) return false;
  if (expr.function) return static_cast<bool>(expr.function->aggregate);
  const FunctionDef* def = FindFunction(expr.name);
  return def && def->aggregate;
}

bool ContainsAggregate(const Expr& expr) {
  if (IsAggregateCall(expr)) return true;
  for (const auto& arg : expr.args) {
    if (ContainsAggregate(*arg)) return true;
  }
  return false;
}

std::shared_ptr<arrow::DataType> WiderType(const std::shared_ptr<arrow::DataType>& a,
                                           const std::shared_ptr<arrow::DataType>& b) {
  if (a->Equals(*b)) return a;
  if (IsNull(*a)) return b;
  if (IsNull(*b)) return a;
  // Arrays and maps widen element by element, and may hold NULLs when either may.
  if (IsArray(*a) && IsArray(*b)) {
    const auto& la = static_cast<const arrow::ListType&>(*a);
    const auto& lb = static_cast<const arrow::ListType&>(*b);
    auto element = WiderType(la.value_type(), lb.value_type());
    if (!element) return nullptr;
    return ArrayOf(element, la.value_field()->nullable() || lb.value_field()->nullable());
  }
  if (IsMap(*a) && IsMap(*b)) {
    const auto& ma = static_cast<const arrow::MapType&>(*a);
    const auto& mb = static_cast<const arrow::MapType&>(*b);
    auto key = WiderType(ma.key_type(), mb.key_type());
    auto value = WiderType(ma.item_type(), mb.item_type());
    if (!key || !value) return nullptr;
    return MapOf(key, value, ma.item_field()->nullable() || mb.item_field()->nullable());
  }
  if (IsNumeric(*a) && IsNumeric(*b)) {
    if (IsDecimal(*a) || IsDecimal(*b)) {
      if (a->id() == arrow::Type::FLOAT || a->id() == arrow::Type::DOUBLE ||
          b->id() == arrow::Type::FLOAT || b->id() == arrow::Type::DOUBLE) {
        return arrow::float64();
      }
      auto da = IsDecimal(*a) ? a : DecimalFor(*a);
      auto db = IsDecimal(*b) ? b : DecimalFor(*b);
      return WiderDecimal(static_cast<const arrow::Decimal128Type&>(*da),
                          static_cast<const arrow::Decimal128Type&>(*db));
    }
    // ANSI coercion: an int or bigint cannot widen to float without losing digits, so both go
    // to double.
    bool a_float = a->id() == arrow::Type::FLOAT, b_float = b->id() == arrow::Type::FLOAT;
    bool a_wide_int = a->id() == arrow::Type::INT32 || a->id() == arrow::Type::INT64;
    bool b_wide_int = b->id() == arrow::Type::INT32 || b->id() == arrow::Type::INT64;
    if ((a_float && b_wide_int) || (b_float && a_wide_int)) return arrow::float64();
    return NumericRank(*a) >= NumericRank(*b) ? a : b;
  }
  bool a_time = a->id() == arrow::Type::DATE32 || IsTimestamp(*a);
  bool b_time = b->id() == arrow::Type::DATE32 || IsTimestamp(*b);
  if (a_time && b_time) return IsTimestamp(*a) ? a : b;
  return nullptr;
}

ExprPtr CastIfNeeded(const ExprPtr& expr, const std::shared_ptr<arrow::DataType>& type) {
  if (expr->type && expr->type->Equals(*type)) return expr;
  auto cast = std::make_shared<Expr>(*Cast(expr, type));
  cast->nullable = expr->nullable || CastForcesNullable(*expr->type, *type);
  return cast;
}

bool CastForcesNullable(const arrow::DataType& from, const arrow::DataType& to) {
  auto id = from.id();
  if (id == arrow::Type::NA) return false;
  if (IsString(from)) return to.id() != arrow::Type::BINARY;
  if (IsString(to)) return false;
  bool from_float = id == arrow::Type::FLOAT || id == arrow::Type::DOUBLE;
  if (from_float && IsTimestamp(to)) return true;
  if (IsTimestamp(from) && to.id() == arrow::Type::DATE32) return false;
  if (to.id() == arrow::Type::DATE32) return true;
  if (id == arrow::Type::DATE32) return !IsTimestamp(to);
  if (IsDecimal(to)) {
    // Spark's canNullSafeCastToDecimal: the decimal holds every value of the source.
    const auto& d = static_cast<const arrow::Decimal128Type&>(to);
    std::shared_ptr<arrow::DataType> source =
        IsIntegral(from) ? DecimalFor(from)
        : id == arrow::Type::BOOL ? arrow::decimal128(1, 0)
        : IsDecimal(from) ? from.GetSharedPtr() : nullptr;
    if (!source) return true;
    // A smaller scale rounds rather than overflows: only the integer digits count.
    const auto& s = static_cast<const arrow::Decimal128Type&>(*source);
    return d.precision() - d.scale() < s.precision() - s.scale();
  }
  return (from_float || IsDecimal(from)) && IsIntegral(to);
}

bool CanCast(const arrow::DataType& from, const arrow::DataType& to) {
  if (from.Equals(to) || IsNull(from)) return true;
  bool from_time = from.id() == arrow::Type::DATE32 || IsTimestamp(from);
  bool to_time = to.id() == arrow::Type::DATE32 || IsTimestamp(to);
  bool from_bool = from.id() == arrow::Type::BOOL, to_bool = to.id() == arrow::Type::BOOL;
  if (IsString(to)) return true;
  if (IsString(from)) return IsNumeric(to) || to_time || to_bool || to.id() == arrow::Type::BINARY;
  if (IsNumeric(from)) return IsNumeric(to) || to_bool || IsTimestamp(to);
  if (from_bool) return IsNumeric(to);
  if (from_time) return to_time || (IsTimestamp(from) && IsNumeric(to));
  if (from.id() == arrow::Type::LIST && to.id() == arrow::Type::LIST) {
    return CanCast(*static_cast<const arrow::ListType&>(from).value_type(),
                   *static_cast<const arrow::ListType&>(to).value_type());
  }
  if (from.id() == arrow::Type::MAP && to.id() == arrow::Type::MAP) {
    const auto& f = static_cast<const arrow::MapType&>(from);
    const auto& t = static_cast<const arrow::MapType&>(to);
    return CanCast(*f.key_type(), *t.key_type()) && CanCast(*f.item_type(), *t.item_type());
  }
  if (from.id() == arrow::Type::STRUCT && to.id() == arrow::Type::STRUCT) {
    if (from.num_fields() != to.num_fields()) return false;
    for (int i = 0; i < from.num_fields(); ++i) {
      if (!CanCast(*from.field(i)->type(), *to.field(i)->type())) return false;
    }
    return true;
  }
  return false;
}

Result<cp::Expression> LowerCast(cp::Expression arg, const std::shared_ptr<arrow::DataType>& from,
                                 const std::shared_ptr<arrow::DataType>& to, bool try_cast,
                                 const EvalContext& ctx) {
  if (from->Equals(*to)) return arg;
  if (IsNull(*from)) return Lit(arrow::MakeNullScalar(to));
  const bool to_time = to->id() == arrow::Type::DATE32 || IsTimestamp(*to);
  if (IsString(*from) && IsTimestamp(*to)) {
    auto ts = ParseTimestamp(arg, "", try_cast, ctx);
    return static_cast<const arrow::TimestampType&>(*to).timezone().empty()
               ? CastTo(LocalTime(ts, ctx), to)
               : ts;
  }
  if (IsString(*from) && to->id() == arrow::Type::DATE32) {
    // Spark reads the date part of date or timestamp text.
    auto parsed = Fn(try_cast ? "ember_try_parse_timestamp" : "ember_parse_timestamp", {arg});
    return CastTo(parsed, to);
  }
  if (IsString(*from) && (IsNumeric(*to) || to->id() == arrow::Type::BOOL || to_time)) {
    // Spark trims surrounding whitespace before reading a number.
    auto trimmed = Fn("utf8_trim_whitespace", {arg});
    if (to->id() == arrow::Type::BOOL) {
      auto lower = Fn("utf8_lower", {trimmed});
      auto any_of = [&](std::vector<const char*> words) {
        cp::Expression out = cp::literal(false);
        for (const char* w : words) out = Fn("or", {out, Fn("equal", {lower, cp::literal(w)})});
        return out;
      };
      auto yes = any_of({"t", "true", "y", "yes", "1"});
      auto no = any_of({"f", "false", "n", "no", "0"});
      if (try_cast) {
        return Fn("case_when",
                  {Fn("make_struct", {yes, no},
                      std::make_shared<cp::MakeStructOptions>(std::vector<std::string>{"t", "f"})),
                   cp::literal(true), cp::literal(false)});
      }
      // Other text reaches arrow's cast, whose error is CAST_INVALID_INPUT.
      return CastTo(Fn("if_else", {yes, cp::literal("true"),
                                   Fn("if_else", {no, cp::literal("false"), trimmed})}),
                    to);
    }
    return CastTo(trimmed, to);
  }
  if (IsTimestamp(*from) && to->id() == arrow::Type::DATE32) {
    bool zoned = !static_cast<const arrow::TimestampType&>(*from).timezone().empty();
    return CastTo(zoned ? LocalTime(arg, ctx) : arg, to);
  }
  if (from->id() == arrow::Type::DATE32 && IsTimestamp(*to)) {
    auto midnight = CastTo(arg, arrow::timestamp(arrow::TimeUnit::MICRO));
    if (!static_cast<const arrow::TimestampType&>(*to).timezone().empty()) {
      return LocalToUtc(midnight, ctx);
    }
    return midnight;
  }
  if (IsTimestamp(*from) && IsTimestamp(*to)) {
    bool from_zoned = !static_cast<const arrow::TimestampType&>(*from).timezone().empty();
    if (from_zoned) return CastTo(LocalTime(arg, ctx), to);
    return LocalToUtc(arg, ctx);
  }
  if (IsTimestamp(*from) && IsNumeric(*to)) {
    // Spark casts a timestamp to its seconds since the epoch.
    auto micros = CastTo(arg, arrow::int64());
    if (IsIntegral(*to)) {
      auto seconds = Fn("floor_temporal", {arg},
                        std::make_shared<cp::RoundTemporalOptions>(1, cp::CalendarUnit::SECOND));
      return CastTo(Fn("divide", {CastTo(seconds, arrow::int64()), I64(1000000)}), to);
    }
    return CastTo(Fn("divide", {CastTo(micros, arrow::float64()), cp::literal(1e6)}), to);
  }
  if (IsNumeric(*from) && IsTimestamp(*to)) {
    auto micros = Fn("multiply_checked", {CastTo(arg, arrow::float64()), cp::literal(1e6)});
    return CastTo(CastTo(micros, arrow::int64(), /*safe=*/false), to);
  }
  if (IsTimestamp(*from) && IsString(*to)) {
    return TimestampText(arg, !static_cast<const arrow::TimestampType&>(*from).timezone().empty(),
                         ctx);
  }
  if (from->id() == arrow::Type::BOOL && IsString(*to)) {
    return Fn("if_else", {arg, cp::literal("true"), cp::literal("false")});
  }
  const bool from_float = from->id() == arrow::Type::DOUBLE || from->id() == arrow::Type::FLOAT;
  const bool from_decimal = from->id() == arrow::Type::DECIMAL128;
  if ((from_float || from_decimal || IsIntegral(*from)) && IsIntegral(*to) &&
      (from_float || from_decimal || to->byte_width() < from->byte_width())) {
    // Spark truncates toward zero; a value outside the type is CAST_OVERFLOW (NULL for TRY_CAST).
    return Fn("ember_cast_integral", {arg, Lit(arrow::MakeNullScalar(to)), cp::literal(try_cast)});
  }
  if (IsIntegral(*from) && (to->id() == arrow::Type::FLOAT || to->id() == arrow::Type::DOUBLE)) {
    return CastTo(arg, to, /*safe=*/false);  // rounded to the nearest, as Java does
  }
  if (from_float && IsString(*to)) {
    return Fn(from->id() == arrow::Type::FLOAT ? "ember_number_text_float"
                                               : "ember_number_text_double",
              {arg});
  }
  if (from_float && to->id() == arrow::Type::DECIMAL128) {
    // Spark rounds the double's decimal text half up to the scale; NaN and infinities are NULL.
    const auto& d = static_cast<const arrow::Decimal128Type&>(*to);
    auto x = CastTo(arg, arrow::float64());
    auto rounded = Fn("ember_round_half_up", {x, cp::literal(static_cast<int32_t>(d.scale()))});
    auto finite = Fn("if_else", {Fn("is_finite", {x}), rounded,
                                 Lit(arrow::MakeNullScalar(arrow::float64()))});
    return CastTo(finite, to);
  }
  if (from->id() == arrow::Type::BOOL && IsDecimal(*to)) return CastTo(CastTo(arg, arrow::int32()), to);
  if (IsNumeric(*from) && to->id() == arrow::Type::BOOL) {
    return Fn("not_equal", {arg, CastTo(cp::literal(0), from)});
  }
  if (IsIntegral(*from) && to->id() == arrow::Type::DECIMAL128) {
    const auto& d = static_cast<const arrow::Decimal128Type&>(*to);
    return CastTo(CastTo(arg, arrow::decimal128(38, d.scale())), to);
  }
  if (IsDecimal(*from) && IsDecimal(*to) &&
      static_cast<const arrow::Decimal128Type&>(*to).scale() <
          static_cast<const arrow::Decimal128Type&>(*from).scale()) {
    // Fewer digits after the point: rounded half up (away from zero), as Java's BigDecimal.
    int32_t scale = static_cast<const arrow::Decimal128Type&>(*to).scale();
    auto rounded = Fn("round", {arg},
                      std::make_shared<cp::RoundOptions>(scale, cp::RoundMode::HALF_TOWARDS_INFINITY));
    auto options = cp::CastOptions::Safe(to);
    options.allow_decimal_truncate = true;
    return Fn("cast", {rounded}, std::make_shared<cp::CastOptions>(options));
  }
  if (from->id() == arrow::Type::DECIMAL128 && IsNumeric(*to)) {
    auto options = cp::CastOptions::Safe(to);
    options.allow_decimal_truncate = true;
    options.allow_float_truncate = true;
    return Fn("cast", {arg}, std::make_shared<cp::CastOptions>(options));
  }
  return CastTo(arg, to);
}

cp::Expression LowerFormatTimestamp(cp::Expression ts, const std::string& pattern,
                                    const EvalContext& ctx) {
  return fn::FormatTimestamp(std::move(ts), pattern, ctx);
}

}  // namespace ember::plan
