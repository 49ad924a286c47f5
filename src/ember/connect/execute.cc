#include "ember/connect/execute.h"

#include <arrow/array.h>
#include <arrow/record_batch.h>
#include <arrow/table.h>

#include "ember/common/random.h"
#include "ember/connect/arrow_ipc.h"
#include "ember/connect/data_types.h"
#include "ember/connect/errors.h"
#include "ember/connect/sessions.h"
#include "ember/connect/translator.h"
#include "ember/connect/write.h"
#include "ember/session.h"
#include "ember/sql/parser.h"
#include "spark/connect/commands.pb.h"
#include "spark/connect/relations.pb.h"

namespace ember::connect {

namespace pb = spark::connect;
using arrow::Result;

namespace {

// Rows per ArrowBatch: batches stay well below the client's 128 MiB message limit.
constexpr int64_t kRowsPerBatch = 64 * 1024;

class Responses {
 public:
  Responses(const ConnectSession& session, std::string operation_id)
      : session_(session), operation_id_(std::move(operation_id)) {}

  pb::ExecutePlanResponse* Add() {
    auto& r = responses_.emplace_back();
    r.set_session_id(session_.session_id());
    r.set_server_side_session_id(session_.server_side_session_id());
    r.set_operation_id(operation_id_);
    r.set_response_id(NewUuid());
    return &r;
  }
  std::vector<pb::ExecutePlanResponse> Finish() {
    Add()->mutable_result_complete();
    return std::move(responses_);
  }

 private:
  const ConnectSession& session_;
  std::string operation_id_;
  std::vector<pb::ExecutePlanResponse> responses_;
};

// A result's schema, then its rows in batches: the non-empty ones, or one empty batch for no
// rows, as the client needs at least one.
arrow::Status AddRows(const DataFrame& df, Responses* out,
                      std::map<std::string, ObservedMetrics>* observed) {
  ARROW_ASSIGN_OR_RAISE(auto table, df.ToTable(observed));
  ARROW_RETURN_NOT_OK(ToProto(*table->schema(), out->Add()->mutable_schema()));
  auto add = [&](const arrow::RecordBatch& batch, int64_t offset) -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto data, WriteIpcStream(batch));
    auto* arrow_batch = out->Add()->mutable_arrow_batch();
    arrow_batch->set_row_count(batch.num_rows());
    arrow_batch->set_start_offset(offset);
    arrow_batch->set_data(std::move(data));
    return arrow::Status::OK();
  };
  arrow::TableBatchReader reader(*table);
  reader.set_chunksize(kRowsPerBatch);
  int64_t offset = 0;
  std::shared_ptr<arrow::RecordBatch> batch;
  while (true) {
    ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
    if (!batch) break;
    if (batch->num_rows() == 0) continue;  // a chunk a filter emptied; later ones may have rows
    ARROW_RETURN_NOT_OK(add(*batch, offset));
    offset += batch->num_rows();
  }
  if (offset > 0) return arrow::Status::OK();
  ARROW_ASSIGN_OR_RAISE(batch, arrow::RecordBatch::MakeEmpty(table->schema()));
  return add(*batch, 0);
}

// After the rows, the metrics of the plan's observations (df.observe) as Spark sends them: one
// response, each observation's values as literals keyed by their columns' names.
arrow::Status AddObservedMetrics(const std::map<std::string, ObservedMetrics>& observed,
                                 Responses* out) {
  if (observed.empty()) return arrow::Status::OK();
  auto* response = out->Add();
  for (const auto& [name, metrics] : observed) {
    auto* message = response->add_observed_metrics();
    message->set_name(name);
    message->set_plan_id(metrics.observation_id);
    for (int i = 0; i < metrics.row->num_columns(); ++i) {
      ARROW_ASSIGN_OR_RAISE(auto value, metrics.row->column(i)->GetScalar(0));
      ARROW_RETURN_NOT_OK(ToProto(*value, message->add_values()));
      message->add_keys(metrics.row->schema()->field(i)->name());
    }
  }
  return arrow::Status::OK();
}

// spark.sql(text): a query comes back as its relation, for the client to build on; any other
// statement runs now and comes back as its result rows, as Spark's handleSqlCommand does.
arrow::Status SqlCommand(const Translator& t, const pb::SqlCommand& command, Responses* out) {
  pb::Relation relation;
  if (command.has_input()) {
    relation = command.input();
  } else {  // a Spark 3.x client: the text in the field Spark 4.0 deprecates
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    relation.mutable_sql()->set_query(command.sql());
#pragma GCC diagnostic pop
  }
  if (relation.rel_type_case() != pb::Relation::kSql) {
    return Unsupported("sql_command of a relation other than `sql`");
  }
  ARROW_ASSIGN_OR_RAISE(auto statement, sql::ParseStatement(relation.sql().query()));
  if (statement.kind == sql::StatementKind::kQuery) {
    ARROW_RETURN_NOT_OK(t.Relation(relation).status());  // analysis errors surface here
    *out->Add()->mutable_sql_command_result()->mutable_relation() = relation;
    return arrow::Status::OK();
  }
  ARROW_ASSIGN_OR_RAISE(auto df, t.Relation(relation));
  ARROW_ASSIGN_OR_RAISE(auto table, df.ToTable());
  ARROW_ASSIGN_OR_RAISE(auto combined, table->CombineChunksToBatch());
  ARROW_ASSIGN_OR_RAISE(auto data, WriteIpcStream(*combined));
  out->Add()->mutable_sql_command_result()->mutable_relation()->mutable_local_relation()->set_data(
      std::move(data));
  return arrow::Status::OK();
}

arrow::Status CreateView(const Translator& t, const pb::CreateDataFrameViewCommand& command) {
  if (command.is_global()) return Unsupported("global temporary views");
  ARROW_ASSIGN_OR_RAISE(auto df, t.Relation(command.input()));
  return t.session()->CreateTempView(command.name(), df, command.replace());
}

arrow::Status RunCommand(const Translator& t, StreamingQueries& streams, const pb::Command& command,
                         Responses* out) {
  switch (command.command_type_case()) {
    case pb::Command::kSqlCommand: return SqlCommand(t, command.sql_command(), out);
    case pb::Command::kCreateDataframeView: return CreateView(t, command.create_dataframe_view());
    case pb::Command::kRegisterFunction: return t.RegisterFunction(command.register_function());
    case pb::Command::kRegisterTableFunction:
      return t.RegisterTableFunction(command.register_table_function());
    case pb::Command::kRegisterDataSource:
      return t.RegisterDataSource(command.register_data_source());
    case pb::Command::kWriteOperation: return Write(t, command.write_operation());
    case pb::Command::kWriteOperationV2: return WriteV2(t, command.write_operation_v2());
    case pb::Command::kWriteStreamOperationStart:
      return streams.Start(t, command.write_stream_operation_start(),
                           out->Add()->mutable_write_stream_operation_start_result());
    case pb::Command::kStreamingQueryCommand:
      return streams.QueryCommand(command.streaming_query_command(),
                                  out->Add()->mutable_streaming_query_command_result());
    case pb::Command::kStreamingQueryListenerBusCommand:
      // Adding one is an event stream (StreamEvents); removing it ends that stream.
      if (command.streaming_query_listener_bus_command().has_remove_listener_bus_listener()) {
        streams.RemoveClientListener();
        return arrow::Status::OK();
      }
      return Unsupported("streaming_query_listener_bus_command of no kind");
    case pb::Command::kStreamingQueryManagerCommand:
      return streams.ManagerCommand(command.streaming_query_manager_command(),
                                    out->Add()->mutable_streaming_query_manager_command_result());
    default: {
      const auto* field = pb::Command::descriptor()->FindFieldByNumber(command.command_type_case());
      return Unsupported("command `" + (field ? field->name() : std::string("?")) + "`");
    }
  }
}

}  // namespace

Result<std::vector<pb::ExecutePlanResponse>> Execute(const ConnectSession& session,
                                                     const pb::ExecutePlanRequest& request,
                                                     const std::string& operation_id) {
  Translator translator(session);
  Responses out(session, operation_id);
  const auto& plan = request.plan();
  if (plan.has_root()) {
    ARROW_ASSIGN_OR_RAISE(auto df, translator.Relation(plan.root()));
    std::map<std::string, ObservedMetrics> observed;
    ARROW_RETURN_NOT_OK(AddRows(df, &out, &observed));
    ARROW_RETURN_NOT_OK(AddObservedMetrics(observed, &out));
  } else if (plan.has_command()) {
    ARROW_RETURN_NOT_OK(RunCommand(translator, session.streams(), plan.command(), &out));
  } else {
    return Unsupported("plan without a root relation or a command");
  }
  return out.Finish();
}

bool IsEventStream(const pb::ExecutePlanRequest& request) {
  const auto& plan = request.plan();
  return plan.has_command() && plan.command().has_streaming_query_listener_bus_command() &&
         plan.command().streaming_query_listener_bus_command().has_add_listener_bus_listener();
}

arrow::Status StreamEvents(const ConnectSession& session, const std::string& operation_id,
                           const std::function<bool(const pb::ExecutePlanResponse&)>& write) {
  auto response = [&] {  // one at a time: the stream may last as long as the session
    pb::ExecutePlanResponse r;
    r.set_session_id(session.session_id());
    r.set_server_side_session_id(session.server_side_session_id());
    r.set_operation_id(operation_id);
    r.set_response_id(NewUuid());
    return r;
  };
  ARROW_RETURN_NOT_OK(session.streams().StreamEvents(
      [&](const pb::StreamingQueryListenerEventsResult& result) {
        auto r = response();
        *r.mutable_streaming_query_listener_events_result() = result;
        return write(r);
      }));
  auto complete = response();
  complete.mutable_result_complete();
  write(complete);
  return arrow::Status::OK();
}

}  // namespace ember::connect
