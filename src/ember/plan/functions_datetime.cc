// Spark's date and time functions beyond the first ones of functions.cc: epoch conversions,
// calendar names, zone shifts, the current date and zone. Instants are microseconds since the
// epoch (TIMESTAMP), dates days since it (DATE); calendar fields are read in the session zone.

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>

#include "ember/error.h"
#include "ember/plan/function_util.h"
#include "ember/plan/type_names.h"

namespace ember::plan {

const char* ExtractFunction(const std::string& field) {
  static const std::map<std::string, const char*> kFields = {
      {"YEAR", "year"},      {"Y", "year"},           {"YEARS", "year"},
      {"YR", "year"},        {"YRS", "year"},         {"QUARTER", "quarter"},
      {"QTR", "quarter"},    {"MONTH", "month"},      {"MON", "month"},
      {"MONS", "month"},     {"MONTHS", "month"},     {"WEEK", "weekofyear"},
      {"W", "weekofyear"},   {"WEEKS", "weekofyear"}, {"DAY", "dayofmonth"},
      {"D", "dayofmonth"},   {"DAYS", "dayofmonth"},  {"DAYOFWEEK", "dayofweek"},
      {"DOW", "dayofweek"},  {"DOY", "dayofyear"},    {"HOUR", "hour"},
      {"H", "hour"},         {"HOURS", "hour"},       {"HR", "hour"},
      {"HRS", "hour"},       {"MINUTE", "minute"},    {"M", "minute"},
      {"MIN", "minute"},     {"MINS", "minute"},      {"MINUTES", "minute"},
      {"SECOND", "second"},  {"S", "second"},         {"SEC", "second"},
      {"SECONDS", "second"}, {"SECS", "second"}};
  std::string upper = field;
  std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
  auto found = kFields.find(upper);
  return found == kFields.end() ? nullptr : found->second;
}

}  // namespace ember::plan

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

// An INT argument: other integers (a BIGINT beyond INT fails the cast), text and NULL are cast
// to one.
Result<ExprPtr> AsInt(const Expr& call, ExprPtr arg, size_t index) {
  const auto id = arg->type->id();
  if (id == arrow::Type::INT32) return arg;
  if (IsNullType(*arg->type) || IsString(*arg->type) || IsIntegral(*arg->type)) {
    return CastIfNeeded(arg, arrow::int32());
  }
  return UnexpectedType(call, index, *arg, "\"INT\"");
}

// make_date(year, month, day): the date, an error for fields out of range (ANSI).
Result<TypedCall> MakeDateRule(const Expr& call, std::vector<ExprPtr> args) {
  for (size_t i = 0; i < 3; ++i) {
    ARROW_ASSIGN_OR_RAISE(args[i], AsInt(call, args[i], i));
  }
  return fn::Typed(std::move(args), arrow::date32());
}

// date_part(field, x), datepart: the function EXTRACT calls for the field, on x.
FunctionDef DatePart(std::string name) {
  auto as_field_call = [](const Expr& call) -> Result<std::shared_ptr<Expr>> {
    ARROW_ASSIGN_OR_RAISE(auto field, LiteralString(call, call.args[0]));
    const char* function = ExtractFunction(field);
    if (!function) {
      return UserError(ErrorKind::kAnalysis, "INVALID_EXTRACT_FIELD",
                       "Cannot extract `" + field + "` from " + Quoted(*call.args[1]) + ".",
                       "42601");
    }
    auto renamed = std::make_shared<Expr>(call);
    renamed->name = function;
    renamed->args = {call.args[1]};
    return renamed;
  };
  return Scalar(
      std::move(name), 2, 2,
      [as_field_call](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        if (IsNullOfAnyType(args[0])) return TypedCall{arrow::float64(), true, std::move(args)};
        auto with_args = std::make_shared<Expr>(call);
        with_args->args = args;
        ARROW_ASSIGN_OR_RAISE(auto field_call, as_field_call(*with_args));
        ARROW_ASSIGN_OR_RAISE(auto typed,
                              FindFunction(field_call->name)->type_rule(*field_call, {args[1]}));
        return TypedCall{typed.type, typed.nullable, {args[0], typed.args[0]}};
      },
      [as_field_call](const Expr& call, std::vector<cp::Expression> a,
                      const EvalContext& ctx) -> Result<cp::Expression> {
        if (IsNullOfAnyType(call.args[0])) return Lit(arrow::MakeNullScalar(arrow::float64()));
        ARROW_ASSIGN_OR_RAISE(auto field_call, as_field_call(call));
        field_call->type = call.type;
        return FindFunction(field_call->name)->lower(*field_call, {a[1]}, ctx);
      });
}

// to_timestamp(x[, format]) as NULL where text does not parse (try_to_timestamp).
Result<cp::Expression> LowerTryToTimestamp(const Expr& call, std::vector<cp::Expression> a,
                                           const EvalContext& ctx) {
  if (!IsString(*call.args[0]->type)) return a[0];
  std::string format;
  if (call.args.size() == 2) {
    ARROW_ASSIGN_OR_RAISE(format, LiteralString(call, call.args[1]));
  }
  return ParseTimestamp(a[0], format, /*error_is_null=*/true, ctx);
}

// Spark's nullability is its replacement's: a cast for text without a format (nullable) and for
// a date (nullable to TIMESTAMP_NTZ only), a parse by the format otherwise.
Result<TypedCall> ToTimestampRule(const Expr& call, std::vector<ExprPtr> args,
                                  std::shared_ptr<arrow::DataType> type) {
  if (args.size() == 2) ARROW_RETURN_NOT_OK(LiteralString(call, args[1]).status());
  const bool text = IsString(*args[0]->type);
  const bool nullable_cast =
      (text && args.size() == 1) ||
      (args[0]->type->id() == arrow::Type::DATE32 &&
       static_cast<const arrow::TimestampType&>(*type).timezone().empty());
  if (!text) {
    ARROW_ASSIGN_OR_RAISE(args[0], AsTimestamp(call, args[0], 0));
    args[0] = CastIfNeeded(args[0], type);
  }
  return TypedCall{type, nullable_cast || AnyNullable(args), std::move(args)};
}

// make_timestamp(year, month, day, hour, minute, second[, zone]) and its kin: the instant of
// that wall-clock time in the zone (the session's by default), or the wall-clock time itself for
// `_ntz`; seconds a DECIMAL(16, 6). `try_` gives NULL where the others fail.
FunctionDef MakeTimestamp(std::string name, bool local, bool try_make) {
  return Scalar(
      std::move(name), 6, local ? 6 : 7,
      [local, try_make](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        for (size_t i = 0; i < 5; ++i) {
          ARROW_ASSIGN_OR_RAISE(args[i], AsInt(call, args[i], i));
        }
        auto& seconds = args[5];
        if (!IsNullType(*seconds->type) && !IsNumeric(*seconds->type) && !IsString(*seconds->type)) {
          return UnexpectedType(call, 5, *seconds, "\"DECIMAL(16,6)\"");
        }
        seconds = CastIfNeeded(seconds, arrow::decimal128(16, 6));
        if (args.size() == 7) ARROW_RETURN_NOT_OK(LiteralString(call, args[6]).status());
        auto type = local ? arrow::timestamp(arrow::TimeUnit::MICRO) : TimestampType();
        return TypedCall{type, try_make || AnyNullable(args), std::move(args)};
      },
      [local, try_make](const Expr& call, std::vector<cp::Expression> a,
                        const EvalContext& ctx) -> Result<cp::Expression> {
        auto million = Lit(std::make_shared<arrow::Decimal128Scalar>(arrow::Decimal128(1000000),
                                                                     arrow::decimal128(7, 0)));
        auto cast = cp::CastOptions::Safe(arrow::int64());
        cast.allow_decimal_truncate = true;
        auto micros = Fn("cast", {Fn("multiply", {a[5], million})},
                         std::make_shared<cp::CastOptions>(cast));
        auto wall = Fn("ember_make_timestamp",
                       {a[0], a[1], a[2], a[3], a[4], micros, cp::literal(try_make)});
        if (local) return wall;
        EvalContext zone = ctx;
        if (call.args.size() == 7) {
          ARROW_ASSIGN_OR_RAISE(zone.time_zone, LiteralString(call, call.args[6]));
        }
        return LocalToUtc(wall, zone);
      });
}

}  // namespace

void AddDatetimeFunctions(Catalog& c) {
  for (bool try_make : {false, true}) {
    std::string prefix = try_make ? "try_" : "";
    Add(c, MakeTimestamp(prefix + "make_timestamp", false, try_make));
    Add(c, MakeTimestamp(prefix + "make_timestamp_ltz", false, try_make));
    Add(c, MakeTimestamp(prefix + "make_timestamp_ntz", true, try_make));
  }
  Add(c, DatePart("date_part"));
  Add(c, DatePart("datepart"));
  Add(c, Scalar("make_date", 3, 3, MakeDateRule,
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return Fn("ember_make_date", {a[0], a[1], a[2]});
                }));
  Alias(c, "to_timestamp_ltz", "to_timestamp");
  Add(c, Scalar("try_to_timestamp", 1, 2,
                [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  const bool text = IsString(*args[0]->type);
                  ARROW_ASSIGN_OR_RAISE(auto typed, ToTimestampRule(call, std::move(args),
                                                                    TimestampType()));
                  typed.nullable = text || typed.args[0]->nullable;  // NULL where text fails
                  return typed;
                },
                LowerTryToTimestamp));
  // to_timestamp_ntz(x[, format]): the wall-clock time the text says, without a zone.
  Add(c, Scalar("to_timestamp_ntz", 1, 2,
                [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  return ToTimestampRule(call, std::move(args),
                                         arrow::timestamp(arrow::TimeUnit::MICRO));
                },
                [](const Expr& call, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  if (!IsString(*call.args[0]->type)) return a[0];
                  std::string format;
                  if (call.args.size() == 2) {
                    ARROW_ASSIGN_OR_RAISE(format, LiteralString(call, call.args[1]));
                  }
                  // In UTC the instant of a wall-clock time is that time.
                  EvalContext utc;
                  return CastTo(ParseTimestamp(a[0], format, false, utc),
                                arrow::timestamp(arrow::TimeUnit::MICRO));
                }));
  // trunc(date, unit): the first day of its year, quarter, month or week (Monday); NULL for
  // another unit.
  Add(c, Scalar(
             "trunc", 2, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               ARROW_ASSIGN_OR_RAISE(args[0], AsDate(call, args[0], 0));
               if (!IsNullOfAnyType(args[1])) ARROW_RETURN_NOT_OK(LiteralString(call, args[1]).status());
               auto typed = fn::Typed(std::move(args), arrow::date32());
               typed.nullable = true;
               return typed;
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               if (IsNullOfAnyType(call.args[1])) return Lit(arrow::MakeNullScalar(arrow::date32()));
               ARROW_ASSIGN_OR_RAISE(auto unit, LiteralString(call, call.args[1]));
               std::transform(unit.begin(), unit.end(), unit.begin(), ::toupper);
               static const std::map<std::string, cp::CalendarUnit> kUnits = {
                   {"YEAR", cp::CalendarUnit::YEAR},   {"YYYY", cp::CalendarUnit::YEAR},
                   {"YY", cp::CalendarUnit::YEAR},     {"QUARTER", cp::CalendarUnit::QUARTER},
                   {"MONTH", cp::CalendarUnit::MONTH}, {"MM", cp::CalendarUnit::MONTH},
                   {"MON", cp::CalendarUnit::MONTH},   {"WEEK", cp::CalendarUnit::WEEK}};
               auto it = kUnits.find(unit);
               if (it == kUnits.end()) return Lit(arrow::MakeNullScalar(arrow::date32()));
               return Fn("floor_temporal", {a[0]},
                         std::make_shared<cp::RoundTemporalOptions>(1, it->second));
             }));
  // next_day(date, day): the first date after `date` that is the named day of the week.
  Add(c, Scalar("next_day", 2, 2,
                [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  ARROW_ASSIGN_OR_RAISE(args[0], AsDate(call, args[0], 0));
                  if (IsNullType(*args[1]->type)) args[1] = CastIfNeeded(args[1], arrow::utf8());
                  if (!IsString(*args[1]->type)) {
                    return UnexpectedType(call, 1, *args[1], "\"STRING\"");
                  }
                  return TypedCall{arrow::date32(), true, std::move(args)};
                },
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return Fn("ember_next_day", {a[0], a[1]});
                }));
  // convert_timezone([from,] to, ts): the wall-clock time in `to` of the wall-clock time `ts`
  // in `from` (the session zone when left out); zones are constants.
  Add(c, Scalar(
             "convert_timezone", 2, 3,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               for (size_t i = 0; i + 1 < args.size(); ++i) {
                 ARROW_RETURN_NOT_OK(LiteralString(call, args[i]).status());
               }
               auto& ts = args.back();
               if (IsString(*ts->type) || IsNullType(*ts->type) ||
                   ts->type->id() == arrow::Type::DATE32 || IsTimestamp(*ts->type)) {
                 ts = CastIfNeeded(ts, arrow::timestamp(arrow::TimeUnit::MICRO));
               } else {
                 return UnexpectedType(call, args.size() - 1, *ts, "\"TIMESTAMP_NTZ\"");
               }
               return fn::Typed(std::move(args), arrow::timestamp(arrow::TimeUnit::MICRO));
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext& ctx) -> Result<cp::Expression> {
               EvalContext from = ctx, to = ctx;
               if (call.args.size() == 3) {
                 ARROW_ASSIGN_OR_RAISE(from.time_zone, LiteralString(call, call.args[0]));
               }
               ARROW_ASSIGN_OR_RAISE(to.time_zone, LiteralString(call, call.args[call.args.size() - 2]));
               return CastTo(LocalTime(LocalToUtc(a.back(), from), to),
                             arrow::timestamp(arrow::TimeUnit::MICRO));
             }));
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
