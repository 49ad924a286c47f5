#include "ember/column.h"

#include <arrow/scalar.h>

#include "ember/plan/expr.h"

namespace ember {

Column Column::Alias(const std::string& name) const { return Column(plan::Alias(expr_, name)); }

Column Column::Cast(std::shared_ptr<arrow::DataType> type, bool try_cast) const {
  return Column(plan::Cast(expr_, std::move(type), try_cast));
}

Column Column::Sort(bool ascending, bool nulls_first) const {
  const auto& child = expr_->kind == plan::ExprKind::kSortOrder ? expr_->args[0] : expr_;
  return Column(plan::SortOrder(child, ascending, nulls_first));
}

Column Column::GetField(const std::string& name) const {
  return GetItem(Column(plan::Literal(std::make_shared<arrow::StringScalar>(name))));
}

Column Column::GetItem(const Column& key) const {
  return Column(plan::Call("extract_value", {expr_, key.expr_}));
}

std::string Column::Name() const { return plan::DisplayName(*expr_); }

Column Col(const std::string& name) {
  if (name == "*") return Column(plan::Star());
  if (name.size() > 2 && name.compare(name.size() - 2, 2, ".*") == 0) {
    auto parts = plan::ColumnFromString(name.substr(0, name.size() - 2))->name_parts;
    return Column(plan::Star(parts));
  }
  return Column(plan::ColumnFromString(name));
}

Column Lit(std::shared_ptr<arrow::Scalar> value) { return Column(plan::Literal(std::move(value))); }

Column Call(const std::string& function, const std::vector<Column>& args, bool distinct) {
  std::vector<plan::ExprPtr> exprs;
  for (const auto& a : args) exprs.push_back(a.expr());
  return Column(plan::Call(function, std::move(exprs), distinct));
}

Column Call(std::shared_ptr<const UserFunction> function, const std::vector<Column>& args,
            const std::vector<std::string>& keywords) {
  std::vector<plan::ExprPtr> exprs;
  for (const auto& a : args) exprs.push_back(a.expr());
  return Column(plan::Call(std::move(function), std::move(exprs), keywords));
}

}  // namespace ember
