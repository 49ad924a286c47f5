// Spark's array functions beyond those of functions.cc: array_size, array_append, array_prepend,
// array_insert, array_position, array_remove, array_repeat, arrays_overlap, array_union,
// array_except, array_intersect, flatten, arrays_zip, sequence, array_sort, shuffle, zip_with and
// map_zip_with. Their kernels are in exec/collection_kernels.cc.

#include <algorithm>
#include <cctype>

#include <arrow/array/util.h>
#include <arrow/scalar.h>

#include "ember/error.h"
#include "ember/plan/function_util.h"
#include "ember/plan/type_names.h"

namespace ember::plan::fn {

namespace {

using arrow::Result;
using arrow::Status;

bool IsList(const arrow::DataType& t) { return t.id() == arrow::Type::LIST; }

const arrow::ListType& ListOf(const ExprPtr& e) {
  return static_cast<const arrow::ListType&>(*e->type);
}
bool ContainsNull(const ExprPtr& e) { return ListOf(e).value_field()->nullable(); }

Status NotArray(const Expr& call, size_t index, const Expr& arg) {
  return UnexpectedType(call, index, arg, "\"ARRAY\"");
}

Status NullTyped(const Expr& call) {
  return Mismatch(call, "NULL_TYPE",
                  "Null typed values cannot be used as arguments of `" + call.name + "`");
}

ScalarLowering Kernel(std::string name) {
  return [name](const Expr&, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> { return Fn(name, std::move(a)); };
}

// An array and a value of its element's type (array_append, array_position, ...): both widened to
// one element type; `array` and `value` index the arguments.
Result<std::shared_ptr<arrow::DataType>> ArrayAndElement(const Expr& call,
                                                         std::vector<ExprPtr>* args, size_t array,
                                                         size_t value) {
  auto& a = (*args)[array];
  auto& v = (*args)[value];
  std::shared_ptr<arrow::DataType> common;
  if (IsList(*a->type)) common = WiderType(ListOf(a).value_type(), v->type);
  if (!common) {
    return Mismatch(call, "ARRAY_FUNCTION_DIFF_TYPES",
                    "Input to `" + call.name + "` should have been \"ARRAY\" followed by a value "
                        "with same element type, but it's [" + TypeQuoted(*a->type) + ", " +
                        TypeQuoted(*v->type) + "]");
  }
  a = CastIfNeeded(a, ArrayOf(common, ContainsNull(a)));
  v = CastIfNeeded(v, common);
  return common;
}

// Two arrays of one element type (arrays_overlap, array_union, ...): the common element type.
Result<std::shared_ptr<arrow::DataType>> TwoArrays(const Expr& call, std::vector<ExprPtr>* args) {
  auto& a = (*args)[0];
  auto& b = (*args)[1];
  std::shared_ptr<arrow::DataType> common;
  if (IsList(*a->type) && IsList(*b->type)) {
    common = WiderType(ListOf(a).value_type(), ListOf(b).value_type());
  }
  if (!common) {
    return Mismatch(call, "BINARY_ARRAY_DIFF_TYPES",
                    "Input to function `" + call.name + "` should have been two \"ARRAY\" with "
                        "same element type, but it's [" + TypeQuoted(*a->type) + ", " +
                        TypeQuoted(*b->type) + "]");
  }
  a = CastIfNeeded(a, ArrayOf(common, ContainsNull(a)));
  b = CastIfNeeded(b, ArrayOf(common, ContainsNull(b)));
  return common;
}

// An argument Spark types as INT: an integer no wider (TINYINT, SMALLINT are widened).
Status IntArgument(const Expr& call, size_t index, std::vector<ExprPtr>* args, bool null_ok) {
  auto& arg = (*args)[index];
  auto id = arg->type->id();
  bool ok = id == arrow::Type::INT8 || id == arrow::Type::INT16 || id == arrow::Type::INT32 ||
            (null_ok && id == arrow::Type::NA);
  if (!ok) return UnexpectedType(call, index, *arg, "\"INT\"");
  arg = CastIfNeeded(arg, arrow::int32());
  return Status::OK();
}

// A field's name in arrays_zip: a column's own, else its position.
std::string ZipFieldName(const ExprPtr& arg, size_t index) {
  const Expr& e = *arg;
  if (e.kind == ExprKind::kAttribute || e.kind == ExprKind::kAlias) return e.name;
  if (e.kind == ExprKind::kCall && e.name == "extract_value" && e.args.size() == 2 &&
      e.args[1]->kind == ExprKind::kLiteral && e.args[1]->value &&
      e.args[1]->value->type->id() == arrow::Type::STRING && e.args[1]->value->is_valid) {
    return static_cast<const arrow::StringScalar&>(*e.args[1]->value).ToString();
  }
  return std::to_string(index);
}

void AddElementFunctions(Catalog& c) {
  // array_size(a): its number of elements; NULL for a NULL array.
  Add(c, Scalar("array_size", 1, 1,
                [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  if (!IsList(*args[0]->type)) return NotArray(call, 0, *args[0]);
                  return Typed(std::move(args), arrow::int32());
                },
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return CastTo(Fn("list_value_length", std::move(a)), arrow::int32());
                }));
  // array_append(a, v), array_prepend(a, v): v after the last element, or before the first;
  // array_insert(a, pos, v) places it (ember_array_insert at -1 and 1).
  for (auto [name, position] : {std::pair{"array_append", -1}, {"array_prepend", 1}}) {
    int32_t at = position;
    Add(c, Scalar(
               name, 2, 2,
               [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                 if (!IsList(*args[0]->type)) return NotArray(call, 0, *args[0]);
                 ARROW_ASSIGN_OR_RAISE(auto element, ArrayAndElement(call, &args, 0, 1));
                 auto type = ArrayOf(element, ContainsNull(args[0]) || args[1]->nullable);
                 bool nullable = args[0]->nullable;
                 return TypedCall{type, nullable, std::move(args)};
               },
               [at](const Expr&, std::vector<cp::Expression> a,
                    const EvalContext&) -> Result<cp::Expression> {
                 return Fn("ember_array_insert", {a[0], cp::literal(at), a[1]});
               }));
  }
  Add(c, Scalar(
             "array_insert", 3, 3,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               ARROW_ASSIGN_OR_RAISE(auto element, ArrayAndElement(call, &args, 0, 2));
               ARROW_RETURN_NOT_OK(IntArgument(call, 1, &args, /*null_ok=*/false));
               // A position past either end pads with NULLs.
               auto type = ArrayOf(element, true);
               bool nullable = args[0]->nullable || args[1]->nullable;
               return TypedCall{type, nullable, std::move(args)};
             },
             Kernel("ember_array_insert")));
  // array_position(a, v): v's first 1-based position, 0 if absent; a NULL-typed array is an
  // error.
  Add(c, Scalar(
             "array_position", 2, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (IsNullType(*args[0]->type)) return NullTyped(call);
               ARROW_RETURN_NOT_OK(ArrayAndElement(call, &args, 0, 1).status());
               return Typed(std::move(args), arrow::int64());
             },
             Kernel("ember_array_position")));
  // array_remove(a, v): without the elements equal to v.
  Add(c, Scalar(
             "array_remove", 2, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               ARROW_RETURN_NOT_OK(ArrayAndElement(call, &args, 0, 1).status());
               auto type = args[0]->type;
               return Typed(std::move(args), type);
             },
             Kernel("ember_array_remove")));
  // array_repeat(v, count): count must be an INT; NULL only for a NULL count.
  Add(c, Scalar(
             "array_repeat", 2, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               auto id = args[1]->type->id();
               if (id != arrow::Type::INT32 && id != arrow::Type::NA) {
                 return UnexpectedType(call, 1, *args[1], "\"INT\"");
               }
               args[1] = CastIfNeeded(args[1], arrow::int32());
               auto type = ArrayOf(args[0]->type, args[0]->nullable);
               bool nullable = args[1]->nullable;
               return TypedCall{type, nullable, std::move(args)};
             },
             Kernel("ember_array_repeat")));
}

void AddSetFunctions(Catalog& c) {
  // arrays_overlap(a, b): SQL's three-valued answer to whether they share an element.
  Add(c, Scalar(
             "arrays_overlap", 2, 2,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               ARROW_RETURN_NOT_OK(TwoArrays(call, &args).status());
               bool nullable = AnyNullable(args) || ContainsNull(args[0]) || ContainsNull(args[1]);
               return TypedCall{arrow::boolean(), nullable, std::move(args)};
             },
             Kernel("ember_arrays_overlap")));
  // array_union, array_except, array_intersect: distinct elements in the order of first
  // appearance.
  for (auto [name, kernel] : {std::pair{"array_union", "ember_array_union"},
                              {"array_except", "ember_array_except"},
                              {"array_intersect", "ember_array_intersect"}}) {
    std::string fn_name = name;
    Add(c, Scalar(
               name, 2, 2,
               [fn_name](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                 ARROW_ASSIGN_OR_RAISE(auto element, TwoArrays(call, &args));
                 bool a = ContainsNull(args[0]), b = ContainsNull(args[1]);
                 bool contains_null = fn_name == "array_union"    ? a || b
                                      : fn_name == "array_except" ? a
                                                                  : a && b;
                 return Typed(std::move(args), ArrayOf(element, contains_null));
               },
               Kernel(kernel)));
  }
}

void AddShapeFunctions(Catalog& c) {
  // flatten(a): an array of arrays as one; NULL when an inner array is.
  Add(c, Scalar(
             "flatten", 1, 1,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               if (!IsList(*args[0]->type) || !IsList(*ListOf(args[0]).value_type())) {
                 return UnexpectedType(call, 0, *args[0], "\"ARRAY\" of \"ARRAY\"");
               }
               const auto& inner = static_cast<const arrow::ListType&>(*ListOf(args[0]).value_type());
               auto type = ArrayOf(inner.value_type(), inner.value_field()->nullable());
               bool nullable = args[0]->nullable || ContainsNull(args[0]);
               return TypedCall{type, nullable, std::move(args)};
             },
             Kernel("ember_flatten")));
  // arrays_zip(a1, ...): an array of structs whose fields are named after the columns (else
  // "0", "1", ...).
  FunctionDef zip = Scalar(
      "arrays_zip", 0, -1,
      [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        arrow::FieldVector fields;
        for (size_t i = 0; i < args.size(); ++i) {
          if (!IsList(*args[i]->type)) return NotArray(call, i, *args[i]);
          fields.push_back(arrow::field(ZipFieldName(args[i], i), ListOf(args[i]).value_type()));
          args[i] = StripAlias(args[i]);
        }
        return Typed(std::move(args), ArrayOf(arrow::struct_(fields), false));
      },
      [](const Expr& call, std::vector<cp::Expression> a,
         const EvalContext&) -> Result<cp::Expression> {
        if (a.empty()) {
          const auto& type = static_cast<const arrow::ListType&>(*call.type);
          ARROW_ASSIGN_OR_RAISE(auto empty, arrow::MakeEmptyArray(type.value_type()));
          return Lit(std::make_shared<arrow::ListScalar>(empty, call.type));
        }
        a.push_back(Lit(arrow::MakeNullScalar(call.type)));
        return Fn("ember_arrays_zip", std::move(a));
      });
  zip.takes_aliases = true;
  Add(c, std::move(zip));
  // shuffle(a): a random permutation.
  // shuffle(a[, seed]): the seed, a constant, is taken but not used (Spark's sequence per
  // partition cannot be repeated here).
  Add(c, Scalar("shuffle", 1, 2,
                [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
                  if (!IsList(*args[0]->type)) return NotArray(call, 0, *args[0]);
                  if (args.size() == 2) ARROW_RETURN_NOT_OK(LiteralInt(call, args[1]).status());
                  auto type = args[0]->type;
                  return Typed(std::move(args), type);
                },
                [](const Expr&, std::vector<cp::Expression> a,
                   const EvalContext&) -> Result<cp::Expression> {
                  return Fn("ember_shuffle", {a[0]});
                }));
}


bool IsLambda(const ExprPtr& e) { return e && e->kind == ExprKind::kLambda; }

// Whether Spark orders values of the type (a map, also inside, it does not).
bool Orderable(const arrow::DataType& t) {
  if (t.id() == arrow::Type::MAP) return false;
  for (const auto& f : t.fields()) {
    if (!Orderable(*f->type())) return false;
  }
  return true;
}

// The key type two maps of map_zip_with share.
Result<std::shared_ptr<arrow::DataType>> ZipKeyType(const Expr& call,
                                                    const std::vector<ExprPtr>& args) {
  for (size_t i = 0; i < 2; ++i) {
    if (args[i]->type->id() != arrow::Type::MAP) {
      return UnexpectedType(call, i, *args[i], "\"MAP\"");
    }
  }
  const auto& a = static_cast<const arrow::MapType&>(*args[0]->type);
  const auto& b = static_cast<const arrow::MapType&>(*args[1]->type);
  auto key = WiderType(a.key_type(), b.key_type());
  if (!key) {
    return Mismatch(call, "MAP_ZIP_WITH_DIFF_TYPES",
                    "Input to the `map_zip_with` should have been two maps with compatible key "
                        "types, but it's [" + TypeQuoted(*args[0]->type) + ", " +
                        TypeQuoted(*args[1]->type) + "]");
  }
  return key;
}

void AddHigherOrderFunctions(Catalog& c) {
  // array_sort(a): ascending, NULLs last; array_sort(a, (l, r) -> int): by the comparator.
  FunctionDef sort = Scalar(
      "array_sort", 1, 2,
      [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        if (!IsList(*args[0]->type)) return NotArray(call, 0, *args[0]);
        if (args.size() == 2) {
          if (!IsLambda(args[1])) return UnexpectedType(call, 1, *args[1], "\"LAMBDA\"");
          if (args[1]->type->id() != arrow::Type::INT32) {
            return Mismatch(call, "UNEXPECTED_RETURN_TYPE",
                            "The `lambdafunction` requires return \"INT\" type, but the actual "
                            "is " + TypeQuoted(*args[1]->type) + " type");
          }
        } else if (!Orderable(*ListOf(args[0]).value_type())) {
          return Mismatch(call, "INVALID_ORDERING_TYPE",
                          "The `array_sort` does not support ordering on type " +
                              TypeQuoted(*ListOf(args[0]).value_type()));
        }
        auto type = args[0]->type;
        bool nullable = args[0]->nullable;
        return TypedCall{type, nullable, std::move(args)};
      },
      nullptr);
  sort.lambda_variables = [](const Expr& call, const std::vector<ExprPtr>& args, size_t,
                             size_t) -> Result<std::vector<LambdaVariable>> {
    if (!IsList(*args[0]->type)) return NotArray(call, 0, *args[0]);
    auto element = ListOf(args[0]).value_field();
    return std::vector<LambdaVariable>{{element->type(), element->nullable()},
                                       {element->type(), element->nullable()}};
  };
  Add(c, std::move(sort));
  // zip_with(a, b, (x, y) -> z): as long as the longer array, the shorter one's missing elements
  // NULL.
  FunctionDef zip = Scalar(
      "zip_with", 3, 3,
      [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        for (size_t i = 0; i < 2; ++i) {
          if (!IsList(*args[i]->type)) return NotArray(call, i, *args[i]);
        }
        if (!IsLambda(args[2])) return UnexpectedType(call, 2, *args[2], "\"LAMBDA\"");
        auto type = ArrayOf(args[2]->type, args[2]->nullable);
        bool nullable = args[0]->nullable || args[1]->nullable;
        return TypedCall{type, nullable, std::move(args)};
      },
      nullptr);
  zip.lambda_variables = [](const Expr& call, const std::vector<ExprPtr>& args, size_t,
                            size_t) -> Result<std::vector<LambdaVariable>> {
    for (size_t i = 0; i < 2; ++i) {
      if (!IsList(*args[i]->type)) return NotArray(call, i, *args[i]);
    }
    return std::vector<LambdaVariable>{{ListOf(args[0]).value_type(), true},
                                       {ListOf(args[1]).value_type(), true}};
  };
  Add(c, std::move(zip));
  // map_zip_with(m1, m2, (k, v1, v2) -> v): over the keys of either map, m1's first; the maps'
  // keys widened to one type.
  FunctionDef map_zip = Scalar(
      "map_zip_with", 3, 3,
      [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
        ARROW_ASSIGN_OR_RAISE(auto key, ZipKeyType(call, args));
        if (!IsLambda(args[2])) return UnexpectedType(call, 2, *args[2], "\"LAMBDA\"");
        for (size_t i = 0; i < 2; ++i) {
          const auto& map = static_cast<const arrow::MapType&>(*args[i]->type);
          args[i] = CastIfNeeded(args[i], MapOf(key, map.item_type(),
                                                map.item_field()->nullable()));
        }
        auto type = MapOf(key, args[2]->type, args[2]->nullable);
        bool nullable = args[0]->nullable || args[1]->nullable;
        return TypedCall{type, nullable, std::move(args)};
      },
      nullptr);
  map_zip.lambda_variables = [](const Expr& call, const std::vector<ExprPtr>& args, size_t,
                                size_t) -> Result<std::vector<LambdaVariable>> {
    ARROW_ASSIGN_OR_RAISE(auto key, ZipKeyType(call, args));
    const auto& a = static_cast<const arrow::MapType&>(*args[0]->type);
    const auto& b = static_cast<const arrow::MapType&>(*args[1]->type);
    return std::vector<LambdaVariable>{{key, false}, {a.item_type(), true}, {b.item_type(), true}};
  };
  Add(c, std::move(map_zip));
}

// --- sequence ---------------------------------------------------------------------------------

Status SequenceTypes(const Expr& call) {
  return Mismatch(call, "SEQUENCE_WRONG_INPUT_TYPES",
                  "`sequence` uses the wrong parameter type. The parameter type must conform "
                  "to:\n1. The start and stop expressions must resolve to the same type.\n2. If "
                  "start and stop expressions resolve to the \"DATE\" or \"TIMESTAMP\" type then "
                  "the step expression must resolve to the \"INTERVAL\" type, otherwise to the "
                  "same type as the start and stop expressions");
}

Status SequenceUnsupported(const std::string& what) {
  return UserError(ErrorKind::kUnsupportedOperation, "UNSUPPORTED_FEATURE",
                   "The feature is not supported: sequence " + what + ".", "0A000");
}

// A step written as INTERVAL '...': its text, to tell months (which Ember's intervals lack)
// from days; empty for another expression.
std::string IntervalText(const ExprPtr& step) {
  const Expr& e = *StripAlias(step);
  if (e.kind != ExprKind::kCall || e.name != "interval" || e.args.empty()) return "";
  const Expr& text = *e.args[0];
  if (text.kind != ExprKind::kLiteral || !text.value || !text.value->is_valid) return "";
  std::string out = text.value->ToString();
  std::transform(out.begin(), out.end(), out.begin(), ::tolower);
  return out;
}

bool IsTemporal(const arrow::DataType& t) {
  return t.id() == arrow::Type::DATE32 || t.id() == arrow::Type::TIMESTAMP;
}

void AddSequence(Catalog& c) {
  // sequence(start, stop[, step]): integers by an integer step (1 or -1 without one), dates and
  // timestamps by an interval (a day or minus one without one).
  Add(c, Scalar(
             "sequence", 2, 3,
             [](const Expr& call, std::vector<ExprPtr> args) -> Result<TypedCall> {
               auto common = WiderType(args[0]->type, args[1]->type);
               if (!common) return SequenceTypes(call);
               if (IsIntegral(*common)) {
                 if (args.size() == 3) {
                   if (!IsIntegral(*args[2]->type)) return SequenceTypes(call);
                   common = WiderType(common, args[2]->type);
                 }
                 for (auto& arg : args) arg = CastIfNeeded(arg, common);
                 return Typed(std::move(args), ArrayOf(common, false));
               }
               if (!IsTemporal(*common)) return SequenceTypes(call);
               if (args.size() == 3) {
                 if (args[2]->type->id() != arrow::Type::DURATION) return SequenceTypes(call);
                 std::string text = IntervalText(args[2]);
                 if (text.find("month") != std::string::npos ||
                     text.find("year") != std::string::npos) {
                   return SequenceUnsupported("by a year-month interval");
                 }
               }
               args[0] = CastIfNeeded(args[0], common);
               args[1] = CastIfNeeded(args[1], common);
               return Typed(std::move(args), ArrayOf(common, false));
             },
             [](const Expr& call, std::vector<cp::Expression> a,
                const EvalContext&) -> Result<cp::Expression> {
               const auto& element = *static_cast<const arrow::ListType&>(*call.type).value_type();
               if (IsIntegral(element)) {
                 if (a.size() == 2) {
                   // 1 up, -1 down.
                   auto up = Fn("less_equal", {a[0], a[1]});
                   a.push_back(Fn("if_else", {up, I64(1), I64(-1)}));
                 }
                 a[2] = CastTo(a[2], arrow::int64());
                 return Fn("ember_sequence", std::move(a));
               }
               const bool dates = element.id() == arrow::Type::DATE32;
               if (a.size() == 2) {
                 if (!dates) return SequenceUnsupported("of timestamps by days");
                 auto up = Fn("less_equal", {a[0], a[1]});
                 a.push_back(Fn("if_else", {up, I64(1), I64(-1)}));
                 return Fn("ember_sequence", std::move(a));
               }
               // A day-time interval, in microseconds: dates step whole days, timestamps less than
               // a day, as instants (whole days step the session zone's calendar, which the kernel
               // lacks).
               auto micros = CastTo(a[2], arrow::int64());
               a[2] = Fn(dates ? "ember_sequence_days" : "ember_sequence_micros", {micros});
               return Fn("ember_sequence", std::move(a));
             }));
}
}  // namespace

void AddCollectionFunctions(Catalog& c) {
  AddElementFunctions(c);
  AddSetFunctions(c);
  AddShapeFunctions(c);
  AddHigherOrderFunctions(c);
  AddSequence(c);
}

}  // namespace ember::plan::fn
