// Spark's date and time functions beyond the first ones of functions.cc: epoch conversions,
// calendar names, zone shifts, the current date and zone. Instants are microseconds since the
// epoch (TIMESTAMP), dates days since it (DATE); calendar fields are read in the session zone.

#include <limits>

#include "ember/error.h"
#include "ember/plan/function_util.h"
#include "ember/plan/type_names.h"

namespace ember::plan::fn {

namespace {

using arrow::Result;

// x / d rounded toward negative infinity (Java's Math.floorDiv), for a positive d.
cp::Expression FloorDiv(cp::Expression x, int64_t d) {
  auto q = Fn("divide", {x, I64(d)});
  auto r = Fn("subtract", {x, Fn("multiply", {q, I64(d)})});
  return Fn("if_else", {Fn("less", {r, I64(0)}), Fn("subtract", {q, I64(1)}), q});
}

Result<ExprPtr> AsDate(const Expr& call, ExprPtr arg, size_t index) {
  auto id = arg->type->id();
  if (id == arrow::Type::DATE32) return arg;
  if (IsNullType(*arg->type) || IsString(*arg->type) || IsTimestamp(*arg->type)) {
    return CastIfNeeded(arg, arrow::date32());
  }
  return UnexpectedType(call, index, *arg, "\"DATE\"");
}

// f(date) with the result type `type`, lowered by `lower`.
FunctionDef OfDate(std::string name, std::shared_ptr<arrow::DataType> type,
                   std::function<cp::Expression(cp::Expression)> lower) {
  return Scalar(
      std::move(name), 1, 1,
      [type](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        ARROW_ASSIGN_OR_RAISE(args[0], AsDate(call, args[0], 0));
        return fn::Typed(std::move(args), type);
      },
      [lower](const Expr&, std::vector<cp::Expression> a,
              const EvalContext&) -> Result<cp::Expression> { return lower(a[0]); });
}

// f(timestamp) as a BIGINT count of `unit` microseconds since the epoch.
FunctionDef EpochOf(std::string name, int64_t unit) {
  return Scalar(
      std::move(name), 1, 1,
      [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        // A TIMESTAMP only: text is not read as one here.
        if (IsNullType(*args[0]->type)) args[0] = CastIfNeeded(args[0], TimestampType());
        if (!IsTimestamp(*args[0]->type)) return UnexpectedType(call, 0, *args[0], "\"TIMESTAMP\"");
        return fn::Typed(std::move(args), arrow::int64());
      },
      [unit](const Expr&, std::vector<cp::Expression> a,
             const EvalContext&) -> Result<cp::Expression> {
        auto micros = CastTo(a[0], arrow::int64());
        return unit == 1 ? micros : FloorDiv(micros, unit);
      });
}

// timestamp_millis(n) and its kin: the instant n units after the epoch.
FunctionDef FromEpoch(std::string name, int64_t unit, bool fractions) {
  return Scalar(
      std::move(name), 1, 1,
      [fractions](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        auto& t = *args[0]->type;
        if (IsNullType(t)) args[0] = CastIfNeeded(args[0], arrow::int64());
        bool integral = IsIntegral(*args[0]->type);
        if (!integral && !(fractions && IsNumeric(*args[0]->type))) {
          return UnexpectedType(call, 0, *args[0], fractions ? "\"NUMERIC\"" : "\"BIGINT\"");
        }
        if (integral) args[0] = CastIfNeeded(args[0], arrow::int64());
        auto typed = fn::Typed(std::move(args), TimestampType());
        typed.nullable = typed.nullable || arrow::is_floating(typed.args[0]->type->id());  // NaN: NULL
        return typed;
      },
      [unit](const Expr& call, std::vector<cp::Expression> a,
             const EvalContext&) -> Result<cp::Expression> {
        if (IsIntegral(*call.args[0]->type)) {
          return CastTo(Fn("multiply_checked", {a[0], I64(unit)}), TimestampType());
        }
        // Java's double-to-long: NaN and infinities give NULL here, the rest saturates.
        auto value = CastTo(a[0], arrow::float64());
        auto micros = Fn("trunc", {Fn("multiply", {value, cp::literal(static_cast<double>(unit))})});
        constexpr double kTwoTo63 = 9223372036854775808.0;
        auto saturated = Fn(
            "if_else",
            {Fn("greater_equal", {micros, cp::literal(kTwoTo63)}),
             I64(std::numeric_limits<int64_t>::max()),
             Fn("if_else", {Fn("less_equal", {micros, cp::literal(-kTwoTo63)}),
                            I64(std::numeric_limits<int64_t>::min()),
                            CastTo(micros, arrow::int64(), false)})});
        auto finite = Fn("if_else", {Fn("is_finite", {value}), saturated,
                                     Lit(arrow::MakeNullScalar(arrow::int64()))});
        return CastTo(finite, TimestampType());
      });
}

// The English name of a date's day or month, as strftime's C locale writes it ("Mon", "Jan").
FunctionDef CalendarName(std::string name, std::string directive) {
  return OfDate(std::move(name), arrow::utf8(), [directive](cp::Expression d) {
    auto ts = CastTo(d, arrow::timestamp(arrow::TimeUnit::SECOND));
    return Fn("strftime", {ts}, std::make_shared<cp::StrftimeOptions>(directive, "C"));
  });
}

// A NULL literal, typed or not.
bool IsNullOfAnyType(const ExprPtr& e) {
  ExprPtr x = StripAlias(e);
  if (x->kind == ExprKind::kLiteral) return !x->value->is_valid;
  return x->kind == ExprKind::kCast && IsNullOfAnyType(x->args[0]);
}

arrow::Status InvalidTimeZone(const std::string& zone) {
  return UserError(ErrorKind::kIllegalArgument, "INVALID_TIMEZONE",
                   "The timezone: " + zone + " is invalid. The timezone must be either a "
                   "region-based zone ID or a zone offset. Region IDs must have the form "
                   "'area/city', such as 'America/Los_Angeles'. Zone offsets must be in the format "
                   "'(+|-)HH', '(+|-)HH:mm' or '(+|-)HH:mm:ss', e.g '-08', '+01:00' or "
                   "'-13:33:33', and must be in the range from -18:00 to +18:00. 'Z' and 'UTC' are "
                   "accepted as synonyms for '+00:00'.",
                   "22009");
}

// from_utc_timestamp(ts, zone) and to_utc_timestamp(ts, zone): the zone a literal.
FunctionDef ZoneShift(std::string name, bool from_utc) {
  return Scalar(
      std::move(name), 2, 2,
      [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        ARROW_ASSIGN_OR_RAISE(args[0], AsTimestamp(call, args[0], 0));
        if (!IsNullOfAnyType(args[1])) ARROW_RETURN_NOT_OK(LiteralString(call, args[1]).status());
        return fn::Typed(std::move(args), TimestampType());
      },
      [from_utc](const Expr& call, std::vector<cp::Expression> a,
                 const EvalContext& ctx) -> Result<cp::Expression> {
        // A NULL on either side is NULL, the zone unread (Spark's null-safe evaluation).
        if (IsNullOfAnyType(call.args[0]) || IsNullOfAnyType(call.args[1])) {
          return Lit(arrow::MakeNullScalar(TimestampType()));
        }
        ARROW_ASSIGN_OR_RAISE(auto zone, LiteralString(call, call.args[1]));
        if (zone.empty()) return InvalidTimeZone(zone);
        EvalContext other = ctx;
        other.time_zone = zone;
        // from_utc: the wall clock of the instant in `zone`, read as UTC; to_utc: the wall clock
        // of the instant in UTC, read in `zone`. The session zone plays no part.
        if (from_utc) return CastTo(LocalTime(a[0], other), TimestampType());
        auto utc_wall = CastTo(a[0], arrow::timestamp(arrow::TimeUnit::MICRO));
        return LocalToUtc(utc_wall, other);
      });
}

FunctionDef NoArguments(std::string name, std::shared_ptr<arrow::DataType> type,
                        std::function<cp::Expression(const EvalContext&)> value) {
  return Scalar(
      std::move(name), 0, 0,
      [type](const Expr&, std::vector<ExprPtr> args) -> Result<TypedCall> {
        return TypedCall{type, false, std::move(args)};
      },
      [value](const Expr&, std::vector<cp::Expression>,
              const EvalContext& ctx) -> Result<cp::Expression> { return value(ctx); });
}

}  // namespace

void AddDatetimeFunctions(Catalog& c) {
  Add(c, Scalar("unix_date", 1, 1,
                [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  // A DATE only: text is not read as one here.
                  if (IsNullType(*args[0]->type)) args[0] = CastIfNeeded(args[0], arrow::date32());
                  if (args[0]->type->id() != arrow::Type::DATE32) {
                    return UnexpectedType(call, 0, *args[0], "\"DATE\"");
                  }
                  return fn::Typed(std::move(args), arrow::int32());
                },
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return CastTo(a[0], arrow::int32());
                }));
  Add(c, Scalar("date_from_unix_date", 1, 1,
                [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  if (IsNullType(*args[0]->type)) args[0] = CastIfNeeded(args[0], arrow::int32());
                  if (!IsIntegral(*args[0]->type) || args[0]->type->id() == arrow::Type::INT64) {
                    return UnexpectedType(call, 0, *args[0], "\"INT\"");
                  }
                  args[0] = CastIfNeeded(args[0], arrow::int32());
                  return fn::Typed(std::move(args), arrow::date32());
                },
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return CastTo(a[0], arrow::date32());
                }));
  Add(c, EpochOf("unix_micros", 1));
  Add(c, EpochOf("unix_millis", 1000));
  Add(c, EpochOf("unix_seconds", 1000000));
  Add(c, FromEpoch("timestamp_micros", 1, false));
  Add(c, FromEpoch("timestamp_millis", 1000, false));
  Add(c, FromEpoch("timestamp_seconds", 1000000, true));
  // weekday: 0 for Monday; weekofyear: the ISO week.
  Add(c, OfDate("weekday", arrow::int32(), [](cp::Expression d) {
        return CastTo(Fn("day_of_week", {d}), arrow::int32());
      }));
  Add(c, OfDate("weekofyear", arrow::int32(), [](cp::Expression d) {
        return CastTo(Fn("iso_week", {d}), arrow::int32());
      }));
  Add(c, CalendarName("dayname", "%a"));
  Add(c, CalendarName("monthname", "%b"));
  Add(c, Scalar("date_format", 2, 2,
                [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  ARROW_ASSIGN_OR_RAISE(args[0], AsTimestamp(call, args[0], 0));
                  ARROW_RETURN_NOT_OK(LiteralString(call, args[1]).status());
                  return fn::Typed(std::move(args), arrow::utf8());
                },
                [](const Expr& call, std::vector<cp::Expression> a,
                   const EvalContext& ctx) -> Result<cp::Expression> {
                  ARROW_ASSIGN_OR_RAISE(auto format, LiteralString(call, call.args[1]));
                  return FormatTimestamp(a[0], format, ctx);
                }));
  Add(c, ZoneShift("from_utc_timestamp", true));
  Add(c, ZoneShift("to_utc_timestamp", false));
  for (const char* name : {"current_date", "curdate"}) {
    Add(c, NoArguments(name, arrow::date32(), [](const EvalContext& ctx) {
          return CastTo(LocalTime(Now(ctx), ctx), arrow::date32());
        }));
  }
  Add(c, NoArguments("current_timestamp", TimestampType(), Now));
  Add(c, NoArguments("localtimestamp", arrow::timestamp(arrow::TimeUnit::MICRO),
                     [](const EvalContext& ctx) { return LocalTime(Now(ctx), ctx); }));
  Add(c, NoArguments("current_timezone", arrow::utf8(),
                     [](const EvalContext& ctx) { return cp::literal(ctx.time_zone); }));
  Alias(c, "now", "current_timestamp");
  Alias(c, "dateadd", "date_add");
  Alias(c, "date_diff", "datediff");
  Alias(c, "to_unix_timestamp", "unix_timestamp");
}

}  // namespace ember::plan::fn
