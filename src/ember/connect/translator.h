// Spark Connect's plans to Ember's API: each relation becomes a DataFrame (analysed eagerly, as
// every DataFrame of Ember is) and each expression a Column, by one small function per message
// kind (relations.cc, expressions.cc). A kind without a translation fails with
// UNSUPPORTED_FEATURE naming it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <arrow/result.h>

#include "ember/column.h"
#include "ember/dataframe.h"

namespace spark::connect {
class Expression;
class Relation;
}

namespace ember {
class Session;
}

namespace ember::connect {

class StreamingQueries;

class Translator {
 public:
  /// `streams`: the session's streaming queries, whose foreachBatch batches a plan may name
  /// (cached_remote_relation).
  explicit Translator(std::shared_ptr<Session> session, const StreamingQueries* streams = nullptr)
      : session_(std::move(session)), streams_(streams) {}

  arrow::Result<DataFrame> Relation(const spark::connect::Relation& relation) const;
  arrow::Result<Column> Expression(const spark::connect::Expression& expression) const;

  const std::shared_ptr<Session>& session() const { return session_; }

 private:
  std::shared_ptr<Session> session_;
  const StreamingQueries* streams_;
  // The DataFrame of each relation with a plan id translated so far: an attribute that names
  // a plan id (df["a"] in the client) binds to that DataFrame's output.
  mutable std::map<int64_t, DataFrame> frames_;
};

/// df.show()'s text, as Spark's Dataset.showString renders it.
arrow::Result<std::string> ShowString(const DataFrame& df, int num_rows, int truncate,
                                      bool vertical);

}  // namespace ember::connect
