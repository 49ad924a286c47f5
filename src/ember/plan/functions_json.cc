// Spark's JSON functions: from_json, to_json, get_json_object, json_tuple, json_array_length,
// json_object_keys (kernels in exec/json_kernels.cc) and schema_of_json, whose argument is a
// constant: its schema is inferred here, as Spark's JsonInferSchema does, and is a literal.

#include <algorithm>
#include <cctype>
#include <map>

#include <nlohmann/json.hpp>

#include "ember/error.h"
#include "ember/plan/function_util.h"
#include "ember/plan/type_names.h"

namespace ember::plan::fn {

namespace {

using arrow::Result;

// The options argument of a JSON function: map('mode', 'FAILFAST', ...) with constant keys and
// values, by lower-case key (Spark's options are case-insensitive).
Result<std::map<std::string, std::string>> LiteralOptions(const Expr& call, const ExprPtr& arg) {
  std::map<std::string, std::string> options;
  const Expr& e = *arg;
  if (e.kind != ExprKind::kCall || e.name != "map") {
    return UserError(ErrorKind::kAnalysis, "INVALID_OPTIONS.NON_MAP_FUNCTION",
                     "Invalid options: Must use the `map()` function for options.", "42K06");
  }
  for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
    ARROW_ASSIGN_OR_RAISE(auto key, LiteralString(call, e.args[i]));
    ARROW_ASSIGN_OR_RAISE(auto value, LiteralString(call, e.args[i + 1]));
    std::transform(key.begin(), key.end(), key.begin(), ::tolower);
    options[key] = value;
  }
  return options;
}

std::string Option(const std::map<std::string, std::string>& options, const std::string& key,
                   const std::string& otherwise) {
  auto it = options.find(key);
  return it == options.end() ? otherwise : it->second;
}

Result<ExprPtr> TextArg(const Expr& call, ExprPtr arg, size_t index) {
  if (IsNullType(*arg->type)) arg = CastIfNeeded(arg, arrow::utf8());
  if (!IsString(*arg->type)) return UnexpectedType(call, index, *arg, "\"STRING\"");
  return arg;
}

// Spark reads a map only with text keys, at any depth (INVALID_JSON_MAP_KEY_TYPE).
bool TextKeysOnly(const arrow::DataType& type) {
  if (type.id() == arrow::Type::MAP &&
      !IsString(*static_cast<const arrow::MapType&>(type).key_type())) {
    return false;
  }
  for (const auto& f : type.fields()) {
    if (!TextKeysOnly(*f->type())) return false;
  }
  return true;
}

// from_json(json, schema[, options]): the schema as DDL or as Spark's JSON form, nullable all
// through as Spark makes it.
Result<TypedCall> FromJsonRule(const Expr& call, std::vector<ExprPtr> args) {
  ARROW_ASSIGN_OR_RAISE(args[0], TextArg(call, args[0], 0));
  ARROW_ASSIGN_OR_RAISE(auto text, LiteralString(call, args[1]));
  ARROW_ASSIGN_OR_RAISE(auto schema, ParseSchemaString(text));
  const auto id = schema->id();
  if (id != arrow::Type::STRUCT && id != arrow::Type::LIST && id != arrow::Type::MAP) {
    return UserError(ErrorKind::kAnalysis, "INVALID_SCHEMA.NON_STRUCT_TYPE",
                     "The input schema " + Quoted(*args[1]) +
                         " is not a valid schema string. The input expression must be a map, "
                         "an array or a struct, but it got " + TypeQuoted(*schema) + ".",
                     "42K07");
  }
  if (!TextKeysOnly(*schema)) {
    return Mismatch(call, "INVALID_JSON_MAP_KEY_TYPE",
                    "Input schema " + TypeQuoted(*schema) +
                        " can only contain \"STRING\" as a key type for a \"MAP\".");
  }
  if (args.size() == 3) {
    ARROW_ASSIGN_OR_RAISE(auto options, LiteralOptions(call, args[2]));
    std::string mode = Option(options, "mode", "PERMISSIVE");
    std::transform(mode.begin(), mode.end(), mode.begin(), ::toupper);
    if (mode != "PERMISSIVE" && mode != "FAILFAST") {
      return UserError(ErrorKind::kAnalysis, "PARSE_MODE_UNSUPPORTED",
                       "The function `from_json` doesn't support the " + mode +
                           " mode. Acceptable modes are PERMISSIVE and FAILFAST.",
                       "42601");
    }
  }
  return TypedCall{AsNullableType(schema), true, std::move(args)};
}

Result<cp::Expression> LowerFromJson(const Expr& call, std::vector<cp::Expression> a,
                                     const EvalContext& ctx) {
  std::string mode = "PERMISSIVE";
  if (call.args.size() == 3) {
    ARROW_ASSIGN_OR_RAISE(auto options, LiteralOptions(call, call.args[2]));
    mode = Option(options, "mode", mode);
    std::transform(mode.begin(), mode.end(), mode.begin(), ::toupper);
  }
  return Fn("ember_from_json", {a[0], Lit(arrow::MakeNullScalar(call.type)),
                                cp::literal(mode == "FAILFAST"), cp::literal(ctx.time_zone)});
}

// to_json(value[, options]): a struct, an array or a map as JSON text.
Result<TypedCall> ToJsonRule(const Expr& call, std::vector<ExprPtr> args) {
  const auto id = args[0]->type->id();
  if (id != arrow::Type::STRUCT && id != arrow::Type::LIST && id != arrow::Type::MAP) {
    return Mismatch(call, "INVALID_JSON_SCHEMA",
                    "Input schema " + TypeQuoted(*args[0]->type) +
                        " must be a struct, an array, a map or a variant.");
  }
  if (args.size() == 2) ARROW_RETURN_NOT_OK(LiteralOptions(call, args[1]).status());
  return TypedCall{arrow::utf8(), true, std::move(args)};
}

Result<cp::Expression> LowerToJson(const Expr& call, std::vector<cp::Expression> a,
                                   const EvalContext& ctx) {
  std::map<std::string, std::string> options;
  if (call.args.size() == 2) {
    ARROW_ASSIGN_OR_RAISE(options, LiteralOptions(call, call.args[1]));
  }
  std::string ignore_nulls = Option(options, "ignorenullfields", "true");
  std::transform(ignore_nulls.begin(), ignore_nulls.end(), ignore_nulls.begin(), ::tolower);
  return Fn("ember_to_json", {a[0], cp::literal(ignore_nulls != "false"),
                              cp::literal(ctx.time_zone),
                              cp::literal(Option(options, "timestampformat", "")),
                              cp::literal(Option(options, "dateformat", ""))});
}

// --- schema_of_json ---------------------------------------------------------------------------

// The type Spark infers for a JSON value (JsonInferSchema.inferField), before NULLs become text.
std::shared_ptr<arrow::DataType> Infer(const nlohmann::json& v, bool primitives_as_string);

// Two inferred types as one (JsonInferSchema.compatibleType).
std::shared_ptr<arrow::DataType> Merge(const std::shared_ptr<arrow::DataType>& a,
                                       const std::shared_ptr<arrow::DataType>& b) {
  if (a->Equals(*b)) return a;
  if (a->id() == arrow::Type::NA) return b;
  if (b->id() == arrow::Type::NA) return a;
  auto is = [&](arrow::Type::type x, arrow::Type::type y) {
    return (a->id() == x && b->id() == y) || (a->id() == y && b->id() == x);
  };
  if (is(arrow::Type::INT64, arrow::Type::DOUBLE) || is(arrow::Type::DECIMAL128, arrow::Type::DOUBLE)) {
    return arrow::float64();
  }
  if (a->id() == arrow::Type::DECIMAL128 || b->id() == arrow::Type::DECIMAL128) {
    auto as_decimal = [](const std::shared_ptr<arrow::DataType>& t) -> std::pair<int, int> {
      if (t->id() == arrow::Type::INT64) return {20, 0};
      const auto& d = static_cast<const arrow::Decimal128Type&>(*t);
      return {d.precision(), d.scale()};
    };
    if (is(arrow::Type::DECIMAL128, arrow::Type::INT64) ||
        (a->id() == arrow::Type::DECIMAL128 && b->id() == arrow::Type::DECIMAL128)) {
      auto [p1, s1] = as_decimal(a);
      auto [p2, s2] = as_decimal(b);
      int scale = std::max(s1, s2);
      int range = std::max(p1 - s1, p2 - s2);
      if (range + scale > 38) return arrow::float64();
      return arrow::decimal128(range + scale, scale);
    }
  }
  if (a->id() == arrow::Type::STRUCT && b->id() == arrow::Type::STRUCT) {
    std::map<std::string, std::shared_ptr<arrow::DataType>> fields;
    for (const auto& f : a->fields()) fields[f->name()] = f->type();
    for (const auto& f : b->fields()) {
      auto it = fields.find(f->name());
      fields[f->name()] = it == fields.end() ? f->type() : Merge(it->second, f->type());
    }
    arrow::FieldVector out;
    for (auto& [name, type] : fields) out.push_back(arrow::field(name, type));
    return arrow::struct_(out);
  }
  if (a->id() == arrow::Type::LIST && b->id() == arrow::Type::LIST) {
    return ArrayOf(Merge(a->field(0)->type(), b->field(0)->type()));
  }
  return arrow::utf8();
}

std::shared_ptr<arrow::DataType> Infer(const nlohmann::json& v, bool primitives_as_string) {
  using T = nlohmann::json::value_t;
  switch (v.type()) {
    case T::null: return arrow::null();
    case T::object: {
      std::map<std::string, std::shared_ptr<arrow::DataType>> fields;  // sorted, as Spark's
      for (const auto& [name, value] : v.items()) fields[name] = Infer(value, primitives_as_string);
      arrow::FieldVector out;
      for (auto& [name, type] : fields) out.push_back(arrow::field(name, type));
      return arrow::struct_(out);
    }
    case T::array: {
      std::shared_ptr<arrow::DataType> element = arrow::null();
      for (const auto& e : v) element = Merge(element, Infer(e, primitives_as_string));
      return ArrayOf(element);
    }
    default:
      break;
  }
  if (primitives_as_string || v.is_string()) return arrow::utf8();
  if (v.is_boolean()) return arrow::boolean();
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    return arrow::decimal128(20, 0);
  }
  if (v.is_number_integer()) return arrow::int64();
  return arrow::float64();
}

// NULL types (a JSON null, an empty array's element) become text (canonicalizeType).
std::shared_ptr<arrow::DataType> Canonical(const std::shared_ptr<arrow::DataType>& t) {
  if (t->id() == arrow::Type::NA) return arrow::utf8();
  if (t->id() == arrow::Type::LIST) return ArrayOf(Canonical(t->field(0)->type()));
  if (t->id() == arrow::Type::STRUCT) {
    arrow::FieldVector out;
    for (const auto& f : t->fields()) out.push_back(arrow::field(f->name(), Canonical(f->type())));
    return arrow::struct_(out);
  }
  return t;
}

// A type as Spark's DataType.sql writes it: STRUCT<a: BIGINT, `a b`: ARRAY<STRING>>.
std::string TypeSql(const arrow::DataType& t) {
  if (t.id() == arrow::Type::LIST) return "ARRAY<" + TypeSql(*t.field(0)->type()) + ">";
  if (t.id() != arrow::Type::STRUCT) return SparkTypeName(t, /*upper=*/true);
  std::string out = "STRUCT<";
  for (int i = 0; i < t.num_fields(); ++i) {
    const std::string& name = t.field(i)->name();
    bool plain = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                 std::all_of(name.begin(), name.end(), [](char c) {
                   return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                 });
    std::string quoted = name;
    if (!plain) {
      quoted.clear();
      for (char c : name) quoted += c == '`' ? std::string("``") : std::string(1, c);
      quoted = "`" + quoted + "`";
    }
    out += (i ? ", " : "") + quoted + ": " + TypeSql(*t.field(i)->type());
  }
  return out + ">";
}

Result<TypedCall> SchemaOfJsonRule(const Expr& call, std::vector<ExprPtr> args) {
  const Expr& json = *args[0];
  if (json.kind == ExprKind::kLiteral || json.kind == ExprKind::kCast) {
    bool null = json.kind == ExprKind::kLiteral ? !json.value->is_valid
                                                 : json.args[0]->kind == ExprKind::kLiteral &&
                                                       !json.args[0]->value->is_valid;
    if (null) return Mismatch(call, "UNEXPECTED_NULL", "The json must not be null.");
  }
  ARROW_RETURN_NOT_OK(LiteralString(call, args[0]).status());
  if (args.size() == 2) ARROW_RETURN_NOT_OK(LiteralOptions(call, args[1]).status());
  return TypedCall{arrow::utf8(), false, std::move(args)};
}

Result<cp::Expression> LowerSchemaOfJson(const Expr& call, std::vector<cp::Expression>,
                                         const EvalContext&) {
  ARROW_ASSIGN_OR_RAISE(auto text, LiteralString(call, call.args[0]));
  bool primitives_as_string = false;
  if (call.args.size() == 2) {
    ARROW_ASSIGN_OR_RAISE(auto options, LiteralOptions(call, call.args[1]));
    primitives_as_string = Option(options, "primitivesasstring", "false") == "true";
  }
  auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) {
    return UserError(ErrorKind::kRuntime, "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
                     "Malformed records are detected in schema inference: " + text +
                         ". Parse Mode: FAILFAST.",
                     "22023");
  }
  return cp::literal(TypeSql(*Canonical(Infer(json, primitives_as_string))));
}

// json_tuple(json, k1, k2, ...): a generator of one row per input row, whose columns c0, c1, ...
// are the values of the fields k1, k2, ...; its argument is the array of that one struct
// (ember_json_tuple), which the generator inlines.
Result<TypedCall> JsonTupleRule(const Expr& call, std::vector<ExprPtr> args) {
  if (args.size() < 2) {
    return UserError(ErrorKind::kAnalysis, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                     "The `json_tuple` requires > 1 parameters but the actual number is " +
                         std::to_string(args.size()) + ".",
                     "42605");
  }
  arrow::FieldVector fields;
  for (size_t i = 0; i < args.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(args[i], TextArg(call, args[i], i));
    if (i > 0) fields.push_back(arrow::field("c" + std::to_string(i - 1), arrow::utf8()));
  }
  auto row = arrow::struct_(fields);
  auto rows = std::make_shared<Expr>(*Call("json_tuple_rows", args));
  rows->type = ArrayOf(row, false);
  rows->nullable = false;
  return TypedCall{row, false, {rows}};
}

}  // namespace

void AddJsonFunctions(Catalog& c) {
  Add(c, Scalar("from_json", 2, 3, FromJsonRule, LowerFromJson));
  Add(c, Scalar("to_json", 1, 2, ToJsonRule, LowerToJson));
  Add(c, Scalar("schema_of_json", 1, 2, SchemaOfJsonRule, LowerSchemaOfJson));
  Add(c, Scalar(
             "get_json_object", 2, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               ARROW_ASSIGN_OR_RAISE(auto typed, StringArgsRule(call, std::move(args), arrow::utf8()));
               typed.nullable = true;  // NULL where the path finds nothing
               return typed;
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("ember_get_json_object", {a[0], a[1]});
             }));
  Add(c, Scalar(
             "json_array_length", 1, 1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               ARROW_ASSIGN_OR_RAISE(args[0], TextArg(call, args[0], 0));
               return TypedCall{arrow::int32(), true, std::move(args)};
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("ember_json_array_length", {a[0]});
             }));
  Add(c, Scalar(
             "json_object_keys", 1, 1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               ARROW_ASSIGN_OR_RAISE(args[0], TextArg(call, args[0], 0));
               return TypedCall{ArrayOf(arrow::utf8(), false), true, std::move(args)};
             },
             [](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               return Fn("ember_json_object_keys", {a[0]});
             }));
  {
    auto def = Scalar("json_tuple", 0, -1, JsonTupleRule, nullptr);
    def.generator = true;
    def.generator_inline = true;
    Add(c, std::move(def));
  }
  {
    auto rows = Scalar(
        "json_tuple_rows", 1, -1,
        [](const Expr&, std::vector<ExprPtr> args) -> Result<TypedCall> {
          arrow::FieldVector fields;
          for (size_t i = 1; i < args.size(); ++i) {
            fields.push_back(arrow::field("c" + std::to_string(i - 1), arrow::utf8()));
          }
          return TypedCall{ArrayOf(arrow::struct_(fields), false), false, std::move(args)};
        },
        [](const Expr& call, std::vector<cp::Expression> a,
           const EvalContext&) -> Result<cp::Expression> {
          std::vector<cp::Expression> args{a[0], Lit(arrow::MakeNullScalar(call.type))};
          args.insert(args.end(), a.begin() + 1, a.end());
          return Fn("ember_json_tuple", std::move(args));
        });
    rows.internal = true;
    Add(c, std::move(rows));
  }
}

}  // namespace ember::plan::fn
