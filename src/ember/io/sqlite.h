// A SQLite database file, the one embedded database Ember keeps metadata in (the Iceberg JDBC
// catalog, the session catalog). Statements run one at a time with text parameters, each in
// autocommit mode (a transaction of its own); a lock another process holds is waited for.
#pragma once

#include <arrow/result.h>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace ember::io {

class SqliteDatabase {
 public:
  using Value = std::optional<std::string>;  // a SQL text value, or NULL
  using Row = std::vector<Value>;

  /// What a statement did.
  struct Outcome {
    int changed = 0;        // rows inserted, updated or deleted
    bool conflict = false;  // a constraint (primary key) was violated: nothing changed
  };

  /// Opens (creates) the file. `label` names the database in the errors of later statements
  /// ("<label>: <SQLite's message> (in: <statement>)"); an error opening it is an IOError with
  /// SQLite's message alone, for the caller to say what it was opening.
  static arrow::Result<std::unique_ptr<SqliteDatabase>> Open(const std::string& file,
                                                             std::string label);
  ~SqliteDatabase();

  /// Runs one statement, calling `row` for each result row.
  arrow::Result<Outcome> Run(const std::string& sql, const std::vector<Value>& params,
                             const std::function<void(const Row&)>& row = nullptr);
  /// The rows of a query.
  arrow::Result<std::vector<Row>> Query(const std::string& sql, const std::vector<Value>& params);
  /// Runs a script of statements without parameters (a schema).
  arrow::Status Exec(const std::string& script);

 private:
  SqliteDatabase(sqlite3* db, std::string label) : db_(db), label_(std::move(label)) {}
  arrow::Status Failed(const std::string& sql) const;

  sqlite3* db_;
  std::string label_;
  std::mutex mutex_;
};

}  // namespace ember::io
