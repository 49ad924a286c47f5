// ember_user_function: a user's function (ember/user_function.h) as an arrow compute function, so
// that it runs wherever an expression runs (projections, filters, aggregate inputs, streams). The
// function itself travels in the call's options.
#include "ember/exec/kernels.h"

#include <arrow/array/util.h>
#include <arrow/compute/api.h>
#include <arrow/compute/kernel.h>
#include <arrow/compute/registry.h>

#include "ember/error.h"
#include "ember/user_function.h"

namespace ember::exec {

namespace cp = arrow::compute;
using arrow::Result;
using arrow::Status;

namespace {

class UserFunctionOptions : public cp::FunctionOptions {
 public:
  UserFunctionOptions(std::shared_ptr<const UserFunction> function,
                      std::vector<std::string> keywords);
  std::shared_ptr<const UserFunction> function;
  std::vector<std::string> keywords;  // the call's, see UserFunction::call
};

class UserFunctionOptionsType : public cp::FunctionOptionsType {
 public:
  const char* type_name() const override { return "EmberUserFunctionOptions"; }
  std::string Stringify(const cp::FunctionOptions& options) const override {
    return "UserFunctionOptions(" + Of(options).function->name + ")";
  }
  bool Compare(const cp::FunctionOptions& a, const cp::FunctionOptions& b) const override {
    return Of(a).function == Of(b).function && Of(a).keywords == Of(b).keywords;
  }
  std::unique_ptr<cp::FunctionOptions> Copy(const cp::FunctionOptions& options) const override {
    return std::make_unique<UserFunctionOptions>(Of(options).function, Of(options).keywords);
  }

 private:
  static const UserFunctionOptions& Of(const cp::FunctionOptions& options) {
    return static_cast<const UserFunctionOptions&>(options);
  }
};

const cp::FunctionOptionsType* OptionsType() {
  static const UserFunctionOptionsType type;
  return &type;
}

UserFunctionOptions::UserFunctionOptions(std::shared_ptr<const UserFunction> function,
                                         std::vector<std::string> keywords)
    : cp::FunctionOptions(OptionsType()), function(std::move(function)),
      keywords(std::move(keywords)) {}

struct UserFunctionState : cp::KernelState {
  std::shared_ptr<const UserFunction> function;
  std::vector<std::string> keywords;
};

Result<std::unique_ptr<cp::KernelState>> Init(cp::KernelContext*,
                                              const cp::KernelInitArgs& args) {
  if (args.options == nullptr) return Status::Invalid("ember_user_function needs its function");
  auto state = std::make_unique<UserFunctionState>();
  const auto& options = static_cast<const UserFunctionOptions&>(*args.options);
  state->function = options.function;
  state->keywords = options.keywords;
  return state;
}

const UserFunction& FunctionOf(cp::KernelContext* ctx) {
  return *static_cast<const UserFunctionState*>(ctx->state())->function;
}

Result<arrow::TypeHolder> ReturnType(cp::KernelContext* ctx, const std::vector<arrow::TypeHolder>&) {
  return arrow::TypeHolder(FunctionOf(ctx).return_type);
}

Status Exec(cp::KernelContext* ctx, const cp::ExecSpan& batch, cp::ExecResult* out) {
  const UserFunction& function = FunctionOf(ctx);
  if (!function.call) {
    return Status::Invalid("the aggregate function ", function.name, " outside an aggregation");
  }
  std::vector<std::shared_ptr<arrow::Array>> args;
  for (int i = 0; i < batch.num_values(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto arg, ArgArray(batch, i));
    args.push_back(std::move(arg));
  }
  const auto& keywords = static_cast<const UserFunctionState*>(ctx->state())->keywords;
  ARROW_ASSIGN_OR_RAISE(auto result, function.call(args, batch.length, keywords));
  if (result->length() != batch.length || !result->type()->Equals(*function.return_type)) {
    return Status::Invalid("the function ", function.name, " returned ", result->length(), " ",
                           result->type()->ToString(), " values for ", batch.length, " ",
                           function.return_type->ToString(), " rows");
  }
  out->value = result->data();
  return Status::OK();
}

}  // namespace

Status RegisterUserFunctionKernel(cp::FunctionRegistry* registry) {
  // Not pure: a user's function is called for every batch, never folded into a constant.
  // With a summary: pyarrow.compute, imported after this, lists every function and fails on a
  // variadic one without.
  auto fn = std::make_shared<cp::ScalarFunction>(
      "ember_user_function", cp::Arity::VarArgs(0),
      cp::FunctionDoc("Call a user's function", "", {"args"}), nullptr, /*is_pure=*/false);
  cp::ScalarKernel kernel(cp::KernelSignature::Make({cp::InputType::Any()},
                                                    cp::OutputType(ReturnType),
                                                    /*is_varargs=*/true),
                          Exec, Init);
  kernel.null_handling = cp::NullHandling::COMPUTED_NO_PREALLOCATE;
  kernel.mem_allocation = cp::MemAllocation::NO_PREALLOCATE;
  ARROW_RETURN_NOT_OK(fn->AddKernel(std::move(kernel)));
  return registry->AddFunction(std::move(fn));
}

cp::Expression CallUserFunction(std::shared_ptr<const UserFunction> function,
                                std::vector<cp::Expression> args,
                                std::vector<std::string> keywords) {
  return cp::call("ember_user_function", std::move(args),
                  std::make_shared<UserFunctionOptions>(std::move(function), std::move(keywords)));
}

}  // namespace ember::exec
