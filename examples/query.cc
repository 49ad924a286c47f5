// A starting point for C++ users: a session, a JSON read with a schema, a query, printed rows.
//   ember_example_query examples/data/events.json
#include <iostream>

#include <arrow/pretty_print.h>
#include <arrow/table.h>

#include "ember/session.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " <events.json>\n";
    return 2;
  }
  auto session = ember::Session::Make({{"spark.sql.session.timeZone", "UTC"}});
  auto run = [&]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto schema_df, session->Sql("SELECT 1"));  // warms up the catalog
    (void)schema_df;
    ARROW_ASSIGN_OR_RAISE(
        auto events,
        session->ReadFiles("json", {argv[1]},
                           arrow::schema({arrow::field("event_id", arrow::int32()),
                                          arrow::field("company_id", arrow::utf8()),
                                          arrow::field("amount", arrow::float64()),
                                          arrow::field("event_ts", arrow::utf8())}),
                           {}));
    ARROW_RETURN_NOT_OK(session->CreateTempView("events", events, /*replace=*/true));
    ARROW_ASSIGN_OR_RAISE(auto totals, session->Sql(
                                           "SELECT company_id, count(*) AS n, sum(amount) AS total "
                                           "FROM events GROUP BY company_id ORDER BY company_id"));
    ARROW_ASSIGN_OR_RAISE(auto table, totals.ToTable());
    return arrow::PrettyPrint(*table, {}, &std::cout);
  };
  arrow::Status status = run();
  if (!status.ok()) {
    std::cerr << status.message() << "\n";
    return 1;
  }
  return 0;
}
