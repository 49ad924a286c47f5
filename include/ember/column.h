// Column: an expression of the DataFrame API, as pyspark.sql.Column. Operators are functions named
// by Spark's symbols: Call("+", {a, b}), Call("=", {a, b}), Call("and", {a, b}).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <arrow/type_fwd.h>

namespace ember {

struct UserFunction;

namespace plan {
struct Expr;
}

class Column {
 public:
  explicit Column(std::shared_ptr<const plan::Expr> expr) : expr_(std::move(expr)) {}

  const std::shared_ptr<const plan::Expr>& expr() const { return expr_; }

  Column Alias(const std::string& name) const;
  Column Cast(std::shared_ptr<arrow::DataType> type, bool try_cast = false) const;
  Column Sort(bool ascending, bool nulls_first) const;
  Column GetField(const std::string& name) const;
  /// A struct's field, an array's element (from 0) or a map's value: Spark's extract value.
  Column GetItem(const Column& key) const;
  /// Spark's name for this column when it has no alias.
  std::string Name() const;

 private:
  std::shared_ptr<const plan::Expr> expr_;
};

/// A column by name: "a", "t.a", "s.field", "`a.b`", or "*".
Column Col(const std::string& name);
Column Lit(std::shared_ptr<arrow::Scalar> value);
Column Call(const std::string& function, const std::vector<Column>& args, bool distinct = false);
/// A call of a user's function (ember/user_function.h), evaluated batch by batch.
/// A user's function; `keywords`: per argument, the keyword it is passed by, or empty.
Column Call(std::shared_ptr<const UserFunction> function, const std::vector<Column>& args,
            const std::vector<std::string>& keywords = {});

}  // namespace ember
