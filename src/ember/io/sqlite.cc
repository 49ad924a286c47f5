#include "ember/io/sqlite.h"

#include <sqlite3.h>

namespace ember::io {

using arrow::Result;
using arrow::Status;

Result<std::unique_ptr<SqliteDatabase>> SqliteDatabase::Open(const std::string& file,
                                                             std::string label) {
  sqlite3* db = nullptr;
  int rc =
      sqlite3_open_v2(file.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Status::IOError(message);
  }
  sqlite3_busy_timeout(db, 60000);
  return std::unique_ptr<SqliteDatabase>(new SqliteDatabase(db, std::move(label)));
}

SqliteDatabase::~SqliteDatabase() { sqlite3_close_v2(db_); }

Status SqliteDatabase::Failed(const std::string& sql) const {
  return Status::IOError(label_, ": ", sqlite3_errmsg(db_), " (in: ", sql, ")");
}

Result<SqliteDatabase::Outcome> SqliteDatabase::Run(const std::string& sql,
                                                    const std::vector<Value>& params,
                                                    const std::function<void(const Row&)>& row) {
  std::lock_guard<std::mutex> lock(mutex_);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr) !=
      SQLITE_OK) {
    return Failed(sql);
  }
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(stmt, sqlite3_finalize);
  for (size_t i = 0; i < params.size(); ++i) {
    int index = static_cast<int>(i) + 1;
    int rc = params[i] ? sqlite3_bind_text(stmt, index, params[i]->data(),
                                           static_cast<int>(params[i]->size()), SQLITE_TRANSIENT)
                       : sqlite3_bind_null(stmt, index);
    if (rc != SQLITE_OK) return Failed(sql);
  }
  for (;;) {
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) break;
    if (rc == SQLITE_ROW) {
      Row values;
      for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
        const unsigned char* text = sqlite3_column_text(stmt, c);
        if (text) {
          values.emplace_back(std::string(reinterpret_cast<const char*>(text),
                                          static_cast<size_t>(sqlite3_column_bytes(stmt, c))));
        } else {
          values.emplace_back(std::nullopt);
        }
      }
      if (row) row(values);
      continue;
    }
    if ((rc & 0xFF) == SQLITE_CONSTRAINT) return Outcome{0, true};
    return Failed(sql);
  }
  return Outcome{sqlite3_changes(db_), false};
}

Result<std::vector<SqliteDatabase::Row>> SqliteDatabase::Query(const std::string& sql,
                                                               const std::vector<Value>& params) {
  std::vector<Row> rows;
  ARROW_RETURN_NOT_OK(Run(sql, params, [&](const Row& r) { rows.push_back(r); }).status());
  return rows;
}

Status SqliteDatabase::Exec(const std::string& script) {
  std::lock_guard<std::mutex> lock(mutex_);
  char* error = nullptr;
  if (sqlite3_exec(db_, script.c_str(), nullptr, nullptr, &error) == SQLITE_OK) {
    return Status::OK();
  }
  std::string message = error ? error : "";
  sqlite3_free(error);
  return Status::IOError(label_, ": ", message, " (in: ", script, ")");
}

}  // namespace ember::io
