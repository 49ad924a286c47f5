// Spark Connect's plans to Ember's API: each relation becomes a DataFrame (analysed eagerly, as
// every DataFrame of Ember is) and each expression a Column, by one small function per message
// kind (relations.cc, expressions.cc). A kind without a translation fails with
// UNSUPPORTED_FEATURE naming it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <arrow/result.h>

#include "ember/column.h"
#include "ember/dataframe.h"

namespace google::protobuf {
template <typename Element>
class RepeatedPtrField;
}

namespace spark::connect {
class CommonInlineUserDefinedDataSource;
class CommonInlineUserDefinedFunction;
class CommonInlineUserDefinedTableFunction;
class Expression;
class Expression_Window;
class Relation;
}

namespace ember {
class ConnectPythonRunner;
class Session;
struct GroupStateSpec;
struct UserBatchFunction;
struct UserFunction;
struct UserGroupFunction;
struct UserTableFunction;
}

namespace ember::connect {

class ConnectSession;
class StreamingQueries;

class Translator {
 public:
  /// Plans of a client of `session`: their foreachBatch batches (cached_remote_relation) are the
  /// session's streaming queries', their Python functions run in the session's runner.
  explicit Translator(const ConnectSession& session);

  arrow::Result<DataFrame> Relation(const spark::connect::Relation& relation) const;
  arrow::Result<Column> Expression(const spark::connect::Expression& expression) const;
  /// spark.udf.register: the function becomes a temporary function of the session.
  arrow::Status RegisterFunction(
      const spark::connect::CommonInlineUserDefinedFunction& function) const;
  /// spark.udtf.register: the Python table function becomes a temporary table function of the
  /// session.
  arrow::Status RegisterTableFunction(
      const spark::connect::CommonInlineUserDefinedTableFunction& function) const;
  /// spark.dataSource.register: the Python data source becomes a format of the session's
  /// readers, batch and streaming.
  arrow::Status RegisterDataSource(
      const spark::connect::CommonInlineUserDefinedDataSource& source) const;

  const std::shared_ptr<Session>& session() const { return session_; }

 private:
  /// The session's settings that Spark hands its Python worker, as the plan is translated.
  std::map<std::string, std::string> RunnerConf() const;
  arrow::Result<std::shared_ptr<const UserFunction>> PythonFunction(
      const spark::connect::CommonInlineUserDefinedFunction& function) const;
  arrow::Result<std::shared_ptr<const UserTableFunction>> PythonTableFunction(
      const spark::connect::CommonInlineUserDefinedTableFunction& function) const;
  /// A window expression: a function over a window's partitions, order and frame.
  arrow::Result<Column> Window(const spark::connect::Expression_Window& window) const;
  /// A call's arguments and the keyword each is passed by (empty: by position).
  arrow::Result<std::pair<std::vector<Column>, std::vector<std::string>>> Arguments(
      const google::protobuf::RepeatedPtrField<spark::connect::Expression>& arguments) const;
  arrow::Result<std::shared_ptr<const UserBatchFunction>> PythonBatchFunction(
      const spark::connect::CommonInlineUserDefinedFunction& function) const;
  /// applyInPandas, applyInArrow; with `state`, applyInPandasWithState; `cogroup`, of
  /// cogroup().
  arrow::Result<std::shared_ptr<const UserGroupFunction>> PythonGroupFunction(
      const spark::connect::CommonInlineUserDefinedFunction& function,
      const std::shared_ptr<const GroupStateSpec>& state, bool cogroup) const;

  std::shared_ptr<Session> session_;
  const StreamingQueries* streams_;
  std::shared_ptr<ConnectPythonRunner> python_;
  // One object per function of a plan, however often the plan names it: the analyzer knows a
  // user's function by its object (groupBy(f(a)) and select(f(a)) must match).
  mutable std::map<std::string, std::shared_ptr<const UserFunction>> functions_;
  // The DataFrame of each relation with a plan id translated so far: an attribute that names
  // a plan id (df["a"] in the client) binds to that DataFrame's output.
  mutable std::map<int64_t, DataFrame> frames_;
};

/// df.show()'s text, as Spark's Dataset.showString renders it.
arrow::Result<std::string> ShowString(const DataFrame& df, int num_rows, int truncate,
                                      bool vertical);

}  // namespace ember::connect
