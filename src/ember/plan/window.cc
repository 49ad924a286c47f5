// Window expressions in the analyzer: Spark's checks and frames (ResolveWindowFrame,
// ResolveWindowOrder) and ExtractWindowExpressions.
#include "ember/plan/window.h"

#include <algorithm>
#include <functional>

#include <arrow/scalar.h>
#include <arrow/type.h>

#include "ember/error.h"
#include "ember/plan/analyzer.h"
#include "ember/plan/functions.h"
#include "ember/plan/type_names.h"

namespace ember::plan {

using arrow::Result;
using arrow::Status;

namespace {

// Functions whose value depends on the rows' order alone: their frame is fixed.
bool IsRanking(const std::string& name) {
  return name == "row_number" || name == "rank" || name == "dense_rank" ||
         name == "percent_rank" || name == "cume_dist" || name == "ntile";
}

bool IsOffset(const std::string& name) { return name == "lag" || name == "lead"; }

Status WrongArgs(const std::string& name, const std::string& expected, size_t n) {
  return UserError(ErrorKind::kAnalysis, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
                   "The `" + name + "` requires " + expected +
                       " parameters but the actual number is " + std::to_string(n) +
                       ". Please, refer to "
                       "'https://spark.apache.org/docs/latest/sql-ref-functions.html' for a fix.",
                   "42605");
}

// An integer literal argument (ntile's buckets, an offset).
Result<int64_t> IntLiteral(const Expr& call, const ExprPtr& arg, const std::string& param) {
  const Expr& e = *StripAlias(arg);
  if (e.kind != ExprKind::kLiteral || !e.value->is_valid ||
      (e.type->id() != arrow::Type::INT32 && e.type->id() != arrow::Type::INT16 &&
       e.type->id() != arrow::Type::INT8)) {
    return UserError(ErrorKind::kAnalysis, "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT",
                     "Cannot resolve \"" + DisplayName(call) +
                         "\" due to data type mismatch: the input " + param +
                         " should be a foldable \"INT\" expression; however, got \"" +
                         DisplayName(e) + "\".",
                     "42K09");
  }
  ARROW_ASSIGN_OR_RAISE(auto value, e.value->CastTo(arrow::int64()));
  return static_cast<const arrow::Int64Scalar&>(*value).value;
}

Status OutOfRange(const Expr& call, const std::string& param, const std::string& range,
                  int64_t value) {
  return UserError(ErrorKind::kAnalysis, "DATATYPE_MISMATCH.VALUE_OUT_OF_RANGE",
                   "Cannot resolve \"" + DisplayName(call) +
                       "\" due to data type mismatch: The " + param + " must be between " +
                       range + " (current value = " + std::to_string(value) + ").",
                   "42K09");
}

ExprPtr IntLit(int64_t v) { return Literal(std::make_shared<arrow::Int32Scalar>(static_cast<int32_t>(v))); }

}  // namespace

bool IsWindowFunctionName(const std::string& name) {
  const auto& names = WindowOnlyFunctionNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool IsFirstOrLast(const std::string& name) {
  return name == "first" || name == "first_value" || name == "any_value" || name == "last" ||
         name == "last_value";
}

bool ContainsWindow(const Expr& expr) {
  if (expr.kind == ExprKind::kWindow) return true;
  return std::any_of(expr.args.begin(), expr.args.end(),
                     [](const ExprPtr& arg) { return ContainsWindow(*arg); });
}

Status WindowFunctionWithoutOver(const Expr& call) {
  return UserError(ErrorKind::kAnalysis, "WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE",
                   "Window function \"" + call.name + "\" requires an OVER clause.", "42601");
}

Result<ExprPtr> TypeWindowFunction(const Expr& call, std::vector<ExprPtr> args) {
  const std::string& name = call.name;
  auto out = std::make_shared<Expr>(call);
  out->nullable = false;
  if (name == "row_number" || name == "rank" || name == "dense_rank" || name == "percent_rank" ||
      name == "cume_dist") {
    if (!args.empty()) return WrongArgs(name, "0", args.size());
    out->type = name == "percent_rank" || name == "cume_dist" ? arrow::float64() : arrow::int32();
  } else if (name == "ntile") {
    if (args.size() != 1) return WrongArgs(name, "1", args.size());
    ARROW_ASSIGN_OR_RAISE(int64_t buckets, IntLiteral(call, args[0], "buckets"));
    if (buckets <= 0) return OutOfRange(call, "buckets", "1 and 2147483647", buckets);
    out->type = arrow::int32();
  } else if (IsOffset(name)) {
    // lag(input[, offset[, default]]), IGNORE NULLS as a fourth argument `true`.
    if (args.empty() || args.size() > 4) return WrongArgs(name, "[1, 3]", args.size());
    if (args.size() < 2) args.push_back(IntLit(1));
    ARROW_RETURN_NOT_OK(IntLiteral(call, args[1], "offset").status());
    if (args.size() < 3) args.push_back(Literal(arrow::MakeNullScalar(args[0]->type)));
    if (!args[2]->type->Equals(*args[0]->type)) {
      if (args[2]->type->id() != arrow::Type::NA && !CanCast(*args[2]->type, *args[0]->type)) {
        return UserError(ErrorKind::kAnalysis, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                         "Cannot resolve \"" + DisplayName(call) +
                             "\" due to data type mismatch: The third parameter requires the \"" +
                             SparkTypeName(*args[0]->type, true) + "\" type, however \"" +
                             DisplayName(*args[2]) + "\" has the type \"" +
                             SparkTypeName(*args[2]->type, true) + "\".",
                         "42K09");
      }
      args[2] = CastIfNeeded(args[2], args[0]->type);
    }
    if (args.size() == 4 && args[3]->type->id() != arrow::Type::BOOL) {
      return WrongArgs(name, "[1, 3]", args.size());
    }
    out->type = args[0]->type;
    out->nullable = true;
  } else if (IsFirstOrLast(name)) {
    if (args.empty() || args.size() > 2) return WrongArgs(name, "[1, 2]", args.size());
    if (args.size() == 2) {
      const Expr& flag = *args[1];
      if (flag.kind != ExprKind::kLiteral || flag.type->id() != arrow::Type::BOOL) {
        return UserError(ErrorKind::kAnalysis, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                         "Cannot resolve \"" + DisplayName(call) +
                             "\" due to data type mismatch: The second parameter requires the "
                             "\"BOOLEAN\" type, however \"" + DisplayName(flag) +
                             "\" has the type \"" + SparkTypeName(*flag.type, true) + "\".",
                         "42K09");
      }
    }
    out->type = args[0]->type;
    out->nullable = true;
  } else if (name == "nth_value") {
    // nth_value(input, offset), IGNORE NULLS as a third argument `true`.
    if (args.size() < 2 || args.size() > 3) return WrongArgs(name, "[2, 3]", args.size());
    ARROW_ASSIGN_OR_RAISE(int64_t offset, IntLiteral(call, args[1], "offset"));
    if (offset <= 0) return OutOfRange(call, "offset", "1 and 2147483647", offset);
    out->type = args[0]->type;
    out->nullable = true;
  } else {
    return Status::Invalid("not a window function: ", name);
  }
  out->args = std::move(args);
  return out;
}

Result<ExprPtr> TypeWindow(const Expr& window, std::vector<ExprPtr> args) {
  const Expr& f = *StripAlias(args[0]);
  const size_t first_order = 1 + window.window->partitions;
  const bool ordered = args.size() > first_order;
  auto spec = std::make_shared<WindowSpec>(*window.window);
  WindowFrame& frame = spec->frame;
  auto out = std::make_shared<Expr>(window);
  out->args = args;
  out->args[0] = StripAlias(args[0]);
  const bool window_only = f.kind == ExprKind::kCall && !f.function &&
                           IsWindowFunctionName(f.name) && !FindFunction(f.name);
  if (window_only && (IsRanking(f.name) || IsOffset(f.name))) {
    if (!ordered) {
      return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1037",
                       "Window function " + DisplayName(f) +
                           " requires window to be ordered, please add ORDER BY clause. For "
                           "example SELECT " + DisplayName(f) +
                           "(value_expr) OVER (PARTITION BY window_partition ORDER BY "
                           "window_ordering) from table.",
                       "");
    }
    WindowFrame required{true, WindowFrame::kUnboundedPreceding, 0};
    if (IsOffset(f.name)) {
      int64_t offset = static_cast<const arrow::Int64Scalar&>(
                           *StripAlias(f.args[1])->value->CastTo(arrow::int64()).ValueOrDie())
                           .value;
      if (f.name == "lag") offset = -offset;
      required = WindowFrame{true, offset, offset};
    }
    if (spec->frame_specified && (frame.rows != required.rows || frame.lower != required.lower ||
                                  frame.upper != required.upper)) {
      return UserError(ErrorKind::kAnalysis, "_LEGACY_ERROR_TEMP_1036",
                       "Window Frame " + FrameText(frame) + " must match the required frame " +
                           FrameText(required) + ".",
                       "");
    }
    frame = required;
  } else if (window_only || IsAggregateCall(f)) {
    if (f.function) {
      return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                       "The feature is not supported: a user's aggregate function over a window "
                       "in Ember.",
                       "0A000");
    }
    if (f.distinct) {
      return UserError(ErrorKind::kAnalysis, "DISTINCT_WINDOW_FUNCTION_UNSUPPORTED",
                       "Distinct window functions are not supported: " + DisplayName(*out) + ".",
                       "0A000");
    }
    if (!spec->frame_specified) {
      // Spark's default: with ORDER BY the rows up to the current one and its peers, else all.
      frame = ordered ? WindowFrame{false, WindowFrame::kUnboundedPreceding, 0}
                      : WindowFrame{true, WindowFrame::kUnboundedPreceding,
                                    WindowFrame::kUnboundedFollowing};
    }
    const bool offsets = (frame.lower != WindowFrame::kUnboundedPreceding && frame.lower != 0) ||
                         (frame.upper != WindowFrame::kUnboundedFollowing && frame.upper != 0);
    if (!frame.rows && offsets) {
      return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_FEATURE",
                       "The feature is not supported: a RANGE frame with offsets (" +
                           FrameText(frame) + ") in Ember; use ROWS.",
                       "0A000");
    }
  } else {
    return UserError(ErrorKind::kAnalysis, "UNSUPPORTED_EXPR_FOR_WINDOW",
                     "Expression \"" + DisplayName(f) + "\" not supported within a window function.",
                     "42P20");
  }
  out->window = std::move(spec);
  out->type = f.type;
  out->nullable = f.nullable;
  return ExprPtr(out);
}

Result<ExtractedWindows> ExtractWindows(const PlanPtr& child, std::vector<ExprPtr> exprs) {
  // One Window node per specification (its partition keys, orders and frame), in order of
  // appearance, each over the one before.
  std::vector<std::string> keys;
  std::vector<std::shared_ptr<LogicalPlan>> nodes;
  std::function<ExprPtr(const ExprPtr&)> rewrite = [&](const ExprPtr& e) -> ExprPtr {
    if (e->kind == ExprKind::kWindow) {
      std::string key = std::to_string(e->window->partitions) + "|" + FrameText(e->window->frame);
      for (size_t i = 1; i < e->args.size(); ++i) key += "|" + DisplayName(*e->args[i]);
      auto it = std::find(keys.begin(), keys.end(), key);
      std::shared_ptr<LogicalPlan> node;
      if (it == keys.end()) {
        node = std::make_shared<LogicalPlan>();
        node->kind = PlanKind::kWindow;
        keys.push_back(key);
        nodes.push_back(node);
      } else {
        node = nodes[static_cast<size_t>(it - keys.begin())];
      }
      Attribute attr{DisplayName(*e), NewAttributeId(), e->type, e->nullable, ""};
      node->exprs.push_back(e);
      node->output.push_back(attr);
      return AttributeRef(attr);
    }
    if (e->args.empty()) return e;
    auto out = std::make_shared<Expr>(*e);
    for (auto& arg : out->args) arg = rewrite(arg);
    return out;
  };
  for (auto& e : exprs) e = rewrite(e);
  PlanPtr input = child;
  for (auto& node : nodes) {
    // Output: the input's columns, then the node's results (collected in `output` above).
    std::vector<Attribute> results = std::move(node->output);
    node->output = input->output;
    node->output.insert(node->output.end(), results.begin(), results.end());
    node->is_streaming = input->is_streaming;
    node->children = {input};
    input = node;
  }
  return ExtractedWindows{input, std::move(exprs)};
}

}  // namespace ember::plan
