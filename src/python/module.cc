// The native module behind the `ember` Python package. It only converts: Python values to the
// C++ API's types, results to Arrow C streams, and errors to PySpark's exception classes (in the
// translator below, the one place that does so). Everything else happens in the C++ core.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/unique_ptr.h>

#include <climits>
#include <cstdint>
#include <optional>
#include <string_view>

#include <arrow/array.h>
#include <arrow/builder.h>
#include <arrow/c/abi.h>
#include <arrow/c/bridge.h>
#include <arrow/record_batch.h>
#include <arrow/scalar.h>
#include <arrow/table.h>
#include <arrow/type.h>

#include "ember/column.h"
#include "ember/connect.h"
#include "ember/dataframe.h"
#include "ember/error.h"
#include "ember/plan/type_names.h"
#include "ember/session.h"
#include "ember/streaming.h"
#include "ember/common/interval.h"
#include "ember/common/path_segment.h"
#include "ember/sql/parser.h"

namespace nb = nanobind;
using ember::Column;
using ember::DataFrame;
using ember::Session;

namespace {

// A failed arrow::Status on its way to Python.
struct StatusError {
  arrow::Status status;
};

template <typename T>
T Unwrap(arrow::Result<T> result) {
  if (!result.ok()) throw StatusError{result.status()};
  return std::move(result).ValueUnsafe();
}

void Check(const arrow::Status& status) {
  if (!status.ok()) throw StatusError{status};
}

// Engine text on its way to Python (messages, events, progress): an invalid UTF-8 sequence in
// it (a file's bytes quoted in an error) becomes U+FFFD, as Spark's decoding does, instead of a
// UnicodeDecodeError where the caller expects the engine's answer.
nb::str Text(std::string_view text) {
  PyObject* decoded =
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
  if (decoded == nullptr) throw nb::python_error();
  return nb::steal<nb::str>(decoded);
}

nb::object OptionalText(const std::optional<std::string>& text) {
  return text ? nb::object(Text(*text)) : nb::object(nb::none());
}

// Ends a wait on a query when Python has a signal to handle: Ctrl-C raises KeyboardInterrupt
// in the waiting caller, as it does in PySpark, instead of being held until the query ends.
bool PythonSignalled() {
  nb::gil_scoped_acquire gil;
  return PyErr_CheckSignals() != 0;
}

// A failed wait: the pending Python exception if a signal ended it, else the query's error.
void CheckWait(const arrow::Status& status) {
  if (status.IsCancelled() && PyErr_Occurred()) throw nb::python_error();
  Check(status);
}

// Whether native code may still call into the interpreter: not once it is finalizing (a thread
// that takes the GIL then is ended by Python, and a C++ thread ended so aborts the process).
bool InterpreterUsable() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

// A query as Python holds it: dropping the last reference stops the query, which joins its
// thread; that thread may be waiting for the GIL (foreachBatch, a listener), so the GIL is let
// go around it.
std::shared_ptr<ember::StreamingQuery> HeldByPython(std::shared_ptr<ember::StreamingQuery> query) {
  ember::StreamingQuery* raw = query.get();
  return std::shared_ptr<ember::StreamingQuery>(raw, [query = std::move(query)](auto*) mutable {
    if (InterpreterUsable() && PyGILState_Check()) {
      nb::gil_scoped_release release;
      query.reset();
    } else {
      query.reset();
    }
  });
}

// A Python object kept by engine objects that may die on any thread, with or without the GIL.
std::shared_ptr<nb::object> KeptPythonObject(nb::object object) {
  return std::shared_ptr<nb::object>(new nb::object(std::move(object)), [](nb::object* o) {
    if (InterpreterUsable()) {
      nb::gil_scoped_acquire gil;
      delete o;
    } else {
      (void)o->release();  // the interpreter is gone, and its objects with it
      delete o;
    }
  });
}

template <typename T>
T* CapsulePointer(nb::handle capsule, const char* name);
nb::capsule SchemaCapsule(const arrow::Schema& schema);
nb::capsule OwnedCapsule(std::unique_ptr<ArrowSchema> schema);
nb::capsule OwnedCapsule(std::unique_ptr<ArrowArray> array);

// Runs `call`, a user's foreach or foreachBatch function, on a query's thread: the GIL is taken
// for the call only, and an exception it raises is Spark's error for the sink.
template <class Call>
arrow::Status CallUserFunction(bool foreach, const Call& call) {
  if (!InterpreterUsable()) {
    return arrow::Status::Cancelled("the Python interpreter is shutting down");
  }
  nb::gil_scoped_acquire gil;
  try {
    call();
    return arrow::Status::OK();
  } catch (nb::python_error& error) {
    return ember::UserError(
        ember::ErrorKind::kRuntime,
        foreach ? "FOREACH_USER_FUNCTION_ERROR" : "FOREACH_BATCH_USER_FUNCTION_ERROR",
        std::string("An error occurred in the user provided function in ") +
            (foreach ? "foreach sink" : "foreach batch sink") + ". Reason: " + error.what(),
        "39000");
  }
}

// Runs a Connect client's Python functions, given pickled, in this interpreter through the
// Runner of ember/connect/_functions.py: foreachBatch and foreach (`runner(command, foreach,
// session_id, relation_id, batch_id)` calls it with the batch's client DataFrame), UDFs and
// mapInPandas (on Arrow batches). Called on the engine's threads, it takes the GIL for the call
// only.
class PythonFunctionRunner final : public ember::ConnectPythonRunner {
 public:
  explicit PythonFunctionRunner(nb::callable function)
      : function_(KeptPythonObject(std::move(function))) {}

  arrow::Status ForeachBatch(const std::string& command, bool foreach,
                             const std::string& session_id, const std::string& relation_id,
                             int64_t batch_id) override {
    return CallUserFunction(foreach, [&] {
      (*function_)(nb::bytes(command.data(), command.size()), foreach, session_id, relation_id,
                   batch_id);
    });
  }

  arrow::Result<std::shared_ptr<arrow::Array>> CallFunction(
      const std::string& command, int32_t eval_type,
      const std::shared_ptr<arrow::DataType>& return_type, const std::vector<std::string>& keywords,
      const std::map<std::string, std::string>& conf,
      const std::vector<std::shared_ptr<arrow::Array>>& args, int64_t length) override {
    arrow::FieldVector fields;
    for (size_t i = 0; i < args.size(); ++i) {
      fields.push_back(arrow::field(KeywordName(keywords, i), args[i]->type()));
    }
    auto batch = arrow::RecordBatch::Make(arrow::schema(fields), length, args);
    return CallOnBatch("call_function", command, eval_type, conf, *batch,
                       *arrow::schema({arrow::field("result", return_type)}),
                       [](ArrowArray* array, ArrowSchema* schema) {
                         return arrow::ImportArray(array, schema);
                       });
  }

  // runner.aggregate_groups(command, eval_type, conf, rows, result schema, groups): a value per
  // group; the rows' columns named as CallFunction names them.
  arrow::Result<std::shared_ptr<arrow::Array>> AggregateGroups(
      const std::string& command, int32_t eval_type,
      const std::shared_ptr<arrow::DataType>& return_type, const std::vector<std::string>& keywords,
      const std::map<std::string, std::string>& conf, const ember::GroupedRows& groups) override {
    std::vector<std::string> names;
    for (int i = 0; i < groups.rows->num_columns(); ++i) names.push_back(KeywordName(keywords, i));
    ARROW_ASSIGN_OR_RAISE(auto rows, groups.rows->RenameColumns(names));
    return CallOnBatch("aggregate_groups", command, eval_type, conf, *rows,
                       *arrow::schema({arrow::field("result", return_type)}),
                       [](ArrowArray* array, ArrowSchema* schema) {
                         return arrow::ImportArray(array, schema);
                       },
                       groups.groups.get());
  }

  arrow::Result<std::shared_ptr<arrow::RecordBatch>> MapBatch(
      const std::string& command, int32_t eval_type,
      const std::shared_ptr<arrow::Schema>& output_schema,
      const std::map<std::string, std::string>& conf,
      const std::shared_ptr<arrow::RecordBatch>& batch) override {
    return CallOnBatch("map_batch", command, eval_type, conf, *batch, *output_schema,
                       [](ArrowArray* array, ArrowSchema* schema) {
                         return arrow::ImportRecordBatch(array, schema);
                       });
  }

  // runner.apply_to_groups(command, eval_type, rows, groups, other rows (cogroup), output
  // schema, state schema, timeout, batch time, watermark) with the GIL taken for the call; it
  // gives back (rows, states), batches with __arrow_c_array__.
  arrow::Result<ember::GroupedResult> ApplyToGroups(
      const std::string& command, int32_t eval_type,
      const std::shared_ptr<arrow::Schema>& output_schema, const ember::GroupStateSpec* state,
      const std::map<std::string, std::string>& conf, const ember::GroupedRows& groups) override {
    ARROW_ASSIGN_OR_RAISE(auto rows, Exported(*groups.rows));
    ARROW_ASSIGN_OR_RAISE(auto group_rows, Exported(*groups.groups));
    std::pair<std::unique_ptr<ArrowSchema>, std::unique_ptr<ArrowArray>> other_rows;
    if (groups.other_rows) {
      ARROW_ASSIGN_OR_RAISE(other_rows, Exported(*groups.other_rows));
    }
    return WithGil([&]() -> arrow::Result<ember::GroupedResult> {
      nb::object other_schema = nb::none(), other_array = nb::none();
      if (groups.other_rows) {
        other_schema = OwnedCapsule(std::move(other_rows.first));
        other_array = OwnedCapsule(std::move(other_rows.second));
      }
      nb::object state_schema = nb::none(), timeout = nb::none();
      if (state) {
        state_schema = SchemaCapsule(*arrow::schema({arrow::field("state", state->type)}));
        timeout = nb::str(state->timeout.c_str());
      }
      nb::tuple result = nb::cast<nb::tuple>(function_->attr("apply_to_groups")(
          nb::bytes(command.data(), command.size()), eval_type, OwnedCapsule(std::move(rows.first)),
          OwnedCapsule(std::move(rows.second)), OwnedCapsule(std::move(group_rows.first)),
          OwnedCapsule(std::move(group_rows.second)), other_schema, other_array,
          SchemaCapsule(*output_schema), state_schema, timeout, groups.batch_time_ms,
          groups.watermark_ms, groups.watermark_present, conf));
      ember::GroupedResult out;
      ARROW_ASSIGN_OR_RAISE(out.rows, ImportedBatch(result[0]));
      if (state) {
        ARROW_ASSIGN_OR_RAISE(out.states, ImportedBatch(result[1]));
      }
      return out;
    });
  }

  // runner.call_table_function(command, eval_type, conf, args, output schema + row, analyzed).
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> CallTableFunction(
      const std::string& command, int32_t eval_type,
      const std::shared_ptr<arrow::Schema>& output_schema, const std::string& analyzed,
      const std::map<std::string, std::string>& conf,
      const std::shared_ptr<arrow::RecordBatch>& args) override {
    ARROW_ASSIGN_OR_RAISE(auto result_schema,
                          output_schema->AddField(output_schema->num_fields(),
                                                  arrow::field("row", arrow::int64())));
    ARROW_ASSIGN_OR_RAISE(auto exported, Exported(*args));
    return WithGil([&]() -> arrow::Result<std::shared_ptr<arrow::RecordBatch>> {
      return ImportedBatch(function_->attr("call_table_function")(
          nb::bytes(command.data(), command.size()), eval_type, conf,
          OwnedCapsule(std::move(exported.first)), OwnedCapsule(std::move(exported.second)),
          SchemaCapsule(*result_schema),
          analyzed.empty() ? nb::object(nb::none()) : nb::object(nb::bytes(analyzed.data(), analyzed.size()))));
    });
  }

  // runner.analyze_table_function(command, args, constant and table flags): (serialized DataType,
  // pickled AnalyzeResult, withSinglePartition, partitionBy, orderBy, select). `args` is one
  // row: each constant argument's value, else NULL.
  arrow::Result<TableFunctionAnalysis> AnalyzeTableFunction(
      const std::string& command, const std::vector<ember::TableFunctionArgument>& args) override {
    arrow::FieldVector fields;
    arrow::ArrayVector columns;
    std::vector<bool> constant, tables;
    for (const auto& arg : args) {
      fields.push_back(arrow::field(arg.keyword, arg.type));
      std::shared_ptr<arrow::Array> column;
      if (arg.value) {
        ARROW_ASSIGN_OR_RAISE(column, arrow::MakeArrayFromScalar(*arg.value, 1));
        if (!column->type()->Equals(*arg.type)) {
          ARROW_ASSIGN_OR_RAISE(column, arrow::MakeArrayOfNull(arg.type, 1));
        }
      } else {
        ARROW_ASSIGN_OR_RAISE(column, arrow::MakeArrayOfNull(arg.type, 1));
      }
      columns.push_back(std::move(column));
      constant.push_back(arg.value != nullptr);
      tables.push_back(arg.is_table);
    }
    auto batch = arrow::RecordBatch::Make(arrow::schema(fields), 1, columns);
    ARROW_ASSIGN_OR_RAISE(auto exported, Exported(*batch));
    return WithGil([&]() -> arrow::Result<TableFunctionAnalysis> {
      nb::tuple result = nb::cast<nb::tuple>(function_->attr("analyze_table_function")(
          nb::bytes(command.data(), command.size()), OwnedCapsule(std::move(exported.first)),
          OwnedCapsule(std::move(exported.second)), constant, tables));
      TableFunctionAnalysis out;
      auto schema = nb::cast<nb::bytes>(result[0]);
      auto pickled = nb::cast<nb::bytes>(result[1]);
      out.schema.assign(schema.c_str(), schema.size());
      out.pickled.assign(pickled.c_str(), pickled.size());
      out.single_partition = nb::cast<bool>(result[2]);
      out.partition_by = nb::cast<std::vector<std::string>>(result[3]);
      for (const auto& order : nb::cast<std::vector<std::tuple<std::string, bool, int>>>(result[4])) {
        out.order_by.push_back({std::get<0>(order), std::get<1>(order), std::get<2>(order)});
      }
      out.select = nb::cast<std::vector<std::pair<std::string, std::string>>>(result[5]);
      return out;
    });
  }

  // runner.data_source_schema(command, options): the DDL text of the source's schema().
  arrow::Result<std::string> DataSourceSchema(
      const std::string& command, const std::map<std::string, std::string>& options) override {
    return WithGil([&]() -> arrow::Result<std::string> {
      return nb::cast<std::string>(function_->attr("data_source_schema")(
          nb::bytes(command.data(), command.size()), options));
    });
  }

  // runner.data_source_read(command, schema, options): a batch of all the reader's rows.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> ReadDataSource(
      const std::string& command, const std::shared_ptr<arrow::Schema>& schema,
      const std::map<std::string, std::string>& options) override {
    return WithGil([&]() -> arrow::Result<std::shared_ptr<arrow::RecordBatch>> {
      return ImportedBatch(function_->attr("data_source_read")(
          nb::bytes(command.data(), command.size()), SchemaCapsule(*schema), options));
    });
  }

  // runner.data_source_stream(command, schema, options): a reader object whose methods the
  // engine calls (PythonStreamReader).
  arrow::Result<std::unique_ptr<ember::UserStreamReader>> OpenStreamReader(
      const std::string& command, const std::shared_ptr<arrow::Schema>& schema,
      const std::map<std::string, std::string>& options) override;

  // runner.data_source_write(command, options, overwrite, batch_id, rows' schema and array).
  arrow::Status WriteDataSource(const std::string& command,
                                const std::map<std::string, std::string>& options, bool overwrite,
                                int64_t batch_id, const std::shared_ptr<arrow::Table>& rows) override {
    ARROW_ASSIGN_OR_RAISE(auto batch, rows->CombineChunksToBatch());
    ARROW_ASSIGN_OR_RAISE(auto exported, Exported(*batch));
    return WithGil([&]() -> arrow::Result<bool> {
             function_->attr("data_source_write")(
                 nb::bytes(command.data(), command.size()), options, overwrite, batch_id,
                 OwnedCapsule(std::move(exported.first)), OwnedCapsule(std::move(exported.second)));
             return true;
           }).status();
  }

  // Runs `call` with the GIL; a Python exception is Spark's PythonException.
  template <class Call>
  static auto WithGil(const Call& call) -> decltype(call()) {
    if (!InterpreterUsable()) {
      return arrow::Status::Cancelled("the Python interpreter is shutting down");
    }
    nb::gil_scoped_acquire gil;
    try {
      return call();
    } catch (nb::python_error& error) {
      // ember.connect._functions.AnalysisError: what Spark refuses while analysing the query.
      nb::object refused = nb::module_::import_("ember.connect._functions").attr("AnalysisError");
      if (error.matches(refused)) {
        nb::handle value = error.value();
        return ember::UserError(ember::ErrorKind::kAnalysis,
                                nb::cast<std::string>(value.attr("condition")),
                                nb::cast<std::string>(value.attr("message")),
                                nb::cast<std::string>(value.attr("sql_state")));
      }
      return ember::UserError(ember::ErrorKind::kPython, "",
                              nb::cast<std::string>(nb::str(error.value())));
    }
  }

  // The batch of a Python object with __arrow_c_array__, moved out of its capsules. GIL held.
  static arrow::Result<std::shared_ptr<arrow::RecordBatch>> ImportedBatch(nb::handle object) {
    nb::tuple exported = nb::cast<nb::tuple>(object.attr("__arrow_c_array__")());
    return arrow::ImportRecordBatch(CapsulePointer<ArrowArray>(exported[1], "arrow_array"),
                                    CapsulePointer<ArrowSchema>(exported[0], "arrow_schema"));
  }

 private:
  // An argument column's name in the batch Python gets: the keyword it is passed by, or empty
  // for a positional one (no keyword is empty).
  static std::string KeywordName(const std::vector<std::string>& keywords, size_t i) {
    return i < keywords.size() ? keywords[i] : std::string();
  }

  // A batch as Arrow's C data interface hands it over, without a copy.
  static arrow::Result<std::pair<std::unique_ptr<ArrowSchema>, std::unique_ptr<ArrowArray>>> Exported(
      const arrow::RecordBatch& batch) {
    auto c_array = std::make_unique<ArrowArray>();
    auto c_schema = std::make_unique<ArrowSchema>();
    ARROW_RETURN_NOT_OK(arrow::ExportRecordBatch(batch, c_array.get(), c_schema.get()));
    return std::make_pair(std::move(c_schema), std::move(c_array));
  }

  // runner.<method>(command, eval_type, conf, batch's schema and array, result_schema) with the GIL
  // taken for the call: the batch goes to Python and the result (any object with
  // __arrow_c_array__) comes back through Arrow's C data interface, neither copied; `import`
  // takes the result's array and schema. An exception of the function is Spark's
  // PythonException.
  // `groups`, when given, follows as two more arguments (a function of groups).
  template <class Import>
  auto CallOnBatch(const char* method, const std::string& command, int32_t eval_type,
                   const std::map<std::string, std::string>& conf,
                   const arrow::RecordBatch& batch, const arrow::Schema& result_schema,
                   const Import& import, const arrow::RecordBatch* groups = nullptr)
      -> decltype(import(nullptr, nullptr)) {
    ARROW_ASSIGN_OR_RAISE(auto exported, Exported(batch));
    std::pair<std::unique_ptr<ArrowSchema>, std::unique_ptr<ArrowArray>> exported_groups;
    if (groups) {
      ARROW_ASSIGN_OR_RAISE(exported_groups, Exported(*groups));
    }
    return WithGil([&]() -> decltype(import(nullptr, nullptr)) {
      nb::list args;
      args.append(nb::bytes(command.data(), command.size()));
      args.append(eval_type);
      args.append(nb::cast(conf));
      args.append(OwnedCapsule(std::move(exported.first)));
      args.append(OwnedCapsule(std::move(exported.second)));
      args.append(SchemaCapsule(result_schema));
      if (groups) {
        args.append(OwnedCapsule(std::move(exported_groups.first)));
        args.append(OwnedCapsule(std::move(exported_groups.second)));
      }
      nb::object result = function_->attr(method)(*args);
      nb::tuple capsules = nb::cast<nb::tuple>(result.attr("__arrow_c_array__")());
      // The import moves both out of their capsules.
      return import(CapsulePointer<ArrowArray>(capsules[1], "arrow_array"),
                    CapsulePointer<ArrowSchema>(capsules[0], "arrow_schema"));
    });
  }

  std::shared_ptr<nb::object> function_;
};

// A Python data source's stream reader (ember/connect/_data_sources.py's StreamReader) as the
// engine's UserStreamReader: each call takes the GIL.
class PythonStreamReader final : public ember::UserStreamReader {
 public:
  explicit PythonStreamReader(nb::object reader) : reader_(KeptPythonObject(std::move(reader))) {}

  arrow::Result<std::string> InitialOffset() override { return Text("initial_offset"); }
  arrow::Result<std::string> LatestOffset() override { return Text("latest_offset"); }
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> Read(const std::string& start,
                                                          const std::string& end) override {
    return PythonFunctionRunner::WithGil([&]() -> arrow::Result<std::shared_ptr<arrow::RecordBatch>> {
      return PythonFunctionRunner::ImportedBatch(reader_->attr("read")(start, end));
    });
  }
  arrow::Status Commit(const std::string& end) override {
    return PythonFunctionRunner::WithGil([&]() -> arrow::Result<bool> {
      reader_->attr("commit")(end);
      return true;
    }).status();
  }
  void Stop() override {
    (void)PythonFunctionRunner::WithGil([&]() -> arrow::Result<bool> {
      reader_->attr("stop")();
      return true;
    });
  }

 private:
  arrow::Result<std::string> Text(const char* method) {
    return PythonFunctionRunner::WithGil([&]() -> arrow::Result<std::string> {
      return nb::cast<std::string>(reader_->attr(method)());
    });
  }

  std::shared_ptr<nb::object> reader_;
};

arrow::Result<std::unique_ptr<ember::UserStreamReader>> PythonFunctionRunner::OpenStreamReader(
    const std::string& command, const std::shared_ptr<arrow::Schema>& schema,
    const std::map<std::string, std::string>& options) {
  return WithGil([&]() -> arrow::Result<std::unique_ptr<ember::UserStreamReader>> {
    nb::object reader = function_->attr("data_source_stream")(
        nb::bytes(command.data(), command.size()), SchemaCapsule(*schema), options);
    return std::make_unique<PythonStreamReader>(std::move(reader));
  });
}

// Hands a streaming query's events to a Python function (StreamingQueryManager's dispatcher)
// as (kind, fields). It runs on the bus's thread (kStarted: on the thread in start()) and takes
// the GIL for the call; an exception the function lets through is reported as unraisable.
class PythonListener : public ember::StreamingQueryListener {
 public:
  explicit PythonListener(nb::callable function) : function_(std::move(function)) {}
  ~PythonListener() override {
    if (!InterpreterUsable()) {
      (void)function_.release();  // the interpreter is gone, and its objects with it
      return;
    }
    nb::gil_scoped_acquire gil;
    function_ = nb::object();
  }
  void OnQueryStarted(const ember::StreamingQueryEvent& e) override { Call("started", e); }
  void OnQueryProgress(const ember::StreamingQueryEvent& e) override { Call("progress", e); }
  void OnQueryIdle(const ember::StreamingQueryEvent& e) override { Call("idle", e); }
  void OnQueryTerminated(const ember::StreamingQueryEvent& e) override { Call("terminated", e); }

 private:
  void Call(const char* kind, const ember::StreamingQueryEvent& e) {
    if (!InterpreterUsable()) return;
    nb::gil_scoped_acquire gil;
    try {
      nb::dict fields;
      fields["id"] = Text(e.id);
      fields["runId"] = Text(e.run_id);
      fields["name"] = e.name.empty() ? nb::object(nb::none()) : nb::object(Text(e.name));
      fields["timestamp"] = Text(e.timestamp);
      fields["progress"] = Text(e.progress);
      fields["exception"] = OptionalText(e.exception);
      fields["errorClassOnException"] = OptionalText(e.error_class);
      function_(kind, fields);
    } catch (nb::python_error& error) {
      error.discard_as_unraisable("a streaming query listener");
    }
  }

  nb::object function_;
};

template <typename T>
T* CapsulePointer(nb::handle capsule, const char* name) {
  void* pointer = PyCapsule_GetPointer(capsule.ptr(), name);
  if (!pointer) throw nb::python_error();
  return static_cast<T*>(pointer);
}

nb::capsule StreamCapsule(std::shared_ptr<arrow::Table> table) {
  auto* stream = new ArrowArrayStream;
  auto reader = std::make_shared<arrow::TableBatchReader>(std::move(table));
  Check(arrow::ExportRecordBatchReader(reader, stream));
  return nb::capsule(stream, "arrow_array_stream", [](void* p) noexcept {
    auto* s = static_cast<ArrowArrayStream*>(p);
    if (s->release) s->release(s);
    delete s;
  });
}


// Capsules as Arrow's PyCapsule interface names them, releasing what no importer moved out.
nb::capsule OwnedCapsule(std::unique_ptr<ArrowSchema> schema) {
  return nb::capsule(schema.release(), "arrow_schema", [](void* p) noexcept {
    auto* s = static_cast<ArrowSchema*>(p);
    if (s->release) s->release(s);
    delete s;
  });
}

nb::capsule OwnedCapsule(std::unique_ptr<ArrowArray> array) {
  return nb::capsule(array.release(), "arrow_array", [](void* p) noexcept {
    auto* a = static_cast<ArrowArray*>(p);
    if (a->release) a->release(a);
    delete a;
  });
}

nb::capsule SchemaCapsule(const arrow::Schema& schema) {
  auto c_schema = std::make_unique<ArrowSchema>();
  Check(arrow::ExportSchema(schema, c_schema.get()));
  return OwnedCapsule(std::move(c_schema));
}

std::shared_ptr<arrow::Table> TableFromStream(nb::handle capsule) {
  auto* stream = CapsulePointer<ArrowArrayStream>(capsule, "arrow_array_stream");
  auto reader = Unwrap(arrow::ImportRecordBatchReader(stream));
  return Unwrap(reader->ToTable());
}

std::shared_ptr<arrow::Schema> SchemaFromDdl(const std::string& ddl) {
  auto type = Unwrap(ember::plan::ParseTypeName("struct<" + ddl + ">"));
  return arrow::schema(type->fields());
}

// A literal from a one-element arrow array that Python built with the value's Spark type.
Column LiteralFromStream(nb::handle capsule) {
  auto table = TableFromStream(capsule);
  auto scalar = Unwrap(table->column(0)->GetScalar(0));
  return ember::Lit(std::move(scalar));
}

// A literal of a plain Python value (None, bool, int, float, str) with the type PySpark gives
// it, or None for any other value, which the Python side converts with pyarrow.
nb::object SimpleLiteral(nb::handle value) {
  PyObject* v = value.ptr();
  std::shared_ptr<arrow::Scalar> scalar;
  if (v == Py_None) {
    scalar = std::make_shared<arrow::NullScalar>();
  } else if (v == Py_True || v == Py_False) {
    scalar = std::make_shared<arrow::BooleanScalar>(v == Py_True);
  } else if (PyLong_CheckExact(v)) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow != 0) return nb::none();
    if (x >= INT32_MIN && x <= INT32_MAX) {
      scalar = std::make_shared<arrow::Int32Scalar>(static_cast<int32_t>(x));
    } else {
      scalar = std::make_shared<arrow::Int64Scalar>(x);
    }
  } else if (PyFloat_CheckExact(v)) {
    scalar = std::make_shared<arrow::DoubleScalar>(PyFloat_AS_DOUBLE(v));
  } else if (PyUnicode_CheckExact(v)) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(v, &size);
    if (data == nullptr) {  // lone surrogates: pyarrow reports those
      PyErr_Clear();
      return nb::none();
    }
    scalar = std::make_shared<arrow::StringScalar>(std::string(data, static_cast<size_t>(size)));
  } else {
    return nb::none();
  }
  return nb::cast(ember::Lit(std::move(scalar)));
}

// --- Plain Python values to and from Arrow, for the common simple types --------------------
// createDataFrame() and collect() of ints, doubles, strings and booleans need no pyarrow (whose
// import, with numpy's, costs a few hundred milliseconds). Anything else, or any value that is
// not of the column's exact Python type, is left to the Python side, which uses pyarrow and so
// keeps pyarrow's conversions and errors.

template <typename Builder, typename Convert>
bool AppendValues(PyObject* values, arrow::ArrayBuilder* builder, Convert convert) {
  auto* typed = static_cast<Builder*>(builder);
  Py_ssize_t n = PySequence_Fast_GET_SIZE(values);
  PyObject** items = PySequence_Fast_ITEMS(values);
  Check(typed->Reserve(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (items[i] == Py_None) {
      Check(typed->AppendNull());
      continue;
    }
    auto value = convert(items[i]);
    if (!value) return false;
    Check(typed->Append(*value));
  }
  return true;
}

template <typename Builder, int64_t kMin, int64_t kMax>
bool AppendInts(PyObject* values, arrow::ArrayBuilder* builder) {
  return AppendValues<Builder>(values, builder, [](PyObject* v) -> std::optional<int64_t> {
    if (!PyLong_CheckExact(v)) return std::nullopt;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow != 0 || x < kMin || x > kMax) return std::nullopt;
    return x;
  });
}

std::optional<bool> BoolValue(PyObject* v) {
  if (v == Py_True) return true;
  if (v == Py_False) return false;
  return std::nullopt;
}

std::optional<double> DoubleValue(PyObject* v) {
  if (!PyFloat_CheckExact(v)) return std::nullopt;
  return PyFloat_AS_DOUBLE(v);
}

std::optional<std::string_view> StringValue(PyObject* v) {
  if (!PyUnicode_CheckExact(v)) return std::nullopt;
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(v, &size);
  if (data == nullptr) {  // lone surrogates: pyarrow reports those
    PyErr_Clear();
    return std::nullopt;
  }
  return std::string_view(data, static_cast<size_t>(size));
}

// Appends a column's values (a list or tuple); false if one is not of the type's Python type.
bool AppendColumn(PyObject* values, arrow::ArrayBuilder* builder) {
  switch (builder->type()->id()) {
    case arrow::Type::BOOL:
      return AppendValues<arrow::BooleanBuilder>(values, builder, BoolValue);
    case arrow::Type::INT8:
      return AppendInts<arrow::Int8Builder, INT8_MIN, INT8_MAX>(values, builder);
    case arrow::Type::INT16:
      return AppendInts<arrow::Int16Builder, INT16_MIN, INT16_MAX>(values, builder);
    case arrow::Type::INT32:
      return AppendInts<arrow::Int32Builder, INT32_MIN, INT32_MAX>(values, builder);
    case arrow::Type::INT64:
      return AppendInts<arrow::Int64Builder, INT64_MIN, INT64_MAX>(values, builder);
    case arrow::Type::DOUBLE:
      return AppendValues<arrow::DoubleBuilder>(values, builder, DoubleValue);
    case arrow::Type::STRING:
      return AppendValues<arrow::StringBuilder>(values, builder, StringValue);
    default:
      return false;
  }
}

// A DataFrame of columns of Python values, its fields given by name, Spark type name (of a
// simple type) and nullability; None when a value needs pyarrow's conversion.
nb::object FromColumns(Session& session, const std::vector<std::string>& names,
                       const std::vector<std::string>& types, const std::vector<bool>& nullable,
                       nb::handle columns) {
  if (types.size() != names.size() || nullable.size() != names.size()) {
    throw nb::value_error("a type and a nullability for each name");
  }
  arrow::FieldVector fields;
  for (size_t i = 0; i < names.size(); ++i) {
    auto type = Unwrap(ember::plan::ParseTypeName(types[i]));
    fields.push_back(arrow::field(names[i], std::move(type), nullable[i]));
  }
  auto schema = arrow::schema(std::move(fields));
  nb::object seq = nb::steal(PySequence_Fast(columns.ptr(), "columns must be a sequence"));
  if (!seq.is_valid()) throw nb::python_error();
  // pyarrow's path zips columns with fields, and raises its own error for too few.
  if (PySequence_Fast_GET_SIZE(seq.ptr()) < schema->num_fields()) return nb::none();
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  for (int i = 0; i < schema->num_fields(); ++i) {
    nb::object values = nb::steal(
        PySequence_Fast(PySequence_Fast_GET_ITEM(seq.ptr(), i), "a column must be a sequence"));
    if (!values.is_valid()) throw nb::python_error();
    auto builder = Unwrap(arrow::MakeBuilder(schema->field(i)->type()));
    if (!AppendColumn(values.ptr(), builder.get())) return nb::none();
    arrays.push_back(Unwrap(builder->Finish()));
    if (arrays.back()->length() != arrays.front()->length()) return nb::none();
  }
  int64_t rows = arrays.empty() ? 0 : arrays[0]->length();
  auto table = arrow::Table::Make(schema, std::move(arrays), rows);
  return nb::cast(Unwrap(session.FromArrow(std::move(table))));
}

// One column's values as pyarrow's to_pylist() gives them, or None for a type that the Python
// side converts (temporal, decimal, binary, nested: PySpark has its own rules for those).
nb::object ColumnValues(const arrow::ChunkedArray& column) {
  switch (column.type()->id()) {
    case arrow::Type::NA:
    case arrow::Type::BOOL:
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE:
    case arrow::Type::STRING:
      break;
    default:
      return nb::none();
  }
  nb::object list = nb::steal(PyList_New(column.length()));
  if (!list.is_valid()) throw nb::python_error();
  Py_ssize_t at = 0;
  for (const auto& chunk : column.chunks()) {
    const arrow::Array& a = *chunk;
    for (int64_t i = 0; i < a.length(); ++i) {
      PyObject* value = nullptr;
      if (a.IsNull(i)) {
        value = Py_NewRef(Py_None);
      } else {
        switch (a.type_id()) {
          case arrow::Type::BOOL:
            value = PyBool_FromLong(static_cast<const arrow::BooleanArray&>(a).Value(i));
            break;
          case arrow::Type::INT8:
            value = PyLong_FromLong(static_cast<const arrow::Int8Array&>(a).Value(i));
            break;
          case arrow::Type::INT16:
            value = PyLong_FromLong(static_cast<const arrow::Int16Array&>(a).Value(i));
            break;
          case arrow::Type::INT32:
            value = PyLong_FromLong(static_cast<const arrow::Int32Array&>(a).Value(i));
            break;
          case arrow::Type::INT64:
            value = PyLong_FromLongLong(static_cast<const arrow::Int64Array&>(a).Value(i));
            break;
          case arrow::Type::FLOAT:
            value = PyFloat_FromDouble(static_cast<const arrow::FloatArray&>(a).Value(i));
            break;
          case arrow::Type::DOUBLE:
            value = PyFloat_FromDouble(static_cast<const arrow::DoubleArray&>(a).Value(i));
            break;
          default: {  // STRING
            auto text = static_cast<const arrow::StringArray&>(a).GetView(i);
            value =
                PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "strict");
            if (value == nullptr) {  // not UTF-8: pyarrow's conversion reports it
              PyErr_Clear();
              return nb::none();
            }
          }
        }
        if (value == nullptr) throw nb::python_error();
      }
      PyList_SET_ITEM(list.ptr(), at++, value);
    }
  }
  return list;
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "Ember's native core";
  // Sessions, queries and foreachBatch functions may live until the interpreter exits, as they
  // do in PySpark; nanobind's exit-time report of them is noise.
  nb::set_leak_warnings(false);

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const StatusError& e) {
      const auto* detail = ember::GetErrorDetail(e.status);
      std::string kind = detail ? ember::ErrorKindName(detail->kind()) : "SparkRuntimeException";
      std::string condition = detail ? detail->condition() : "INTERNAL_ERROR";
      std::string sql_state = detail ? detail->sql_state() : "XX000";
      std::string message = detail ? e.status.message()
                                   : "[INTERNAL_ERROR] " + e.status.ToString() + " SQLSTATE: XX000";
      nb::gil_scoped_acquire gil;
      nb::object errors = nb::module_::import_("ember.errors");
      nb::object exc =
          errors.attr("from_core")(Text(kind), Text(condition), Text(message), Text(sql_state));
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
    }
  });

  nb::class_<Column>(m, "Column")
      .def("alias", &Column::Alias)
      .def("cast",
           [](const Column& c, const std::string& type, bool try_cast) {
             return c.Cast(Unwrap(ember::plan::ParseTypeName(type)), try_cast);
           },
           nb::arg("type"), nb::arg("try_cast") = false)
      .def("sort", &Column::Sort)
      .def("get_field", &Column::GetField)
      .def("name", &Column::Name);
  m.def("col", &ember::Col);
  m.def("lit", &LiteralFromStream);
  m.def("simple_lit", &SimpleLiteral, nb::arg("value").none());
  m.def("parse_expression", [](const std::string& text) {
    return Column(Unwrap(ember::sql::ParseExpression(text)));
  });
  m.def("call",
        nb::overload_cast<const std::string&, const std::vector<Column>&, bool>(&ember::Call),
        nb::arg("function"), nb::arg("args"), nb::arg("distinct") = false);

  nb::class_<DataFrame>(m, "DataFrame")
      .def("schema", [](const DataFrame& df) { return SchemaCapsule(*df.schema()); })
      .def_prop_ro("is_streaming", &DataFrame::is_streaming)
      .def("col", [](const DataFrame& df, const std::string& name) { return Unwrap(df[name]); })
      .def("select", [](const DataFrame& df, const std::vector<Column>& c) { return Unwrap(df.Select(c)); })
      .def("filter", [](const DataFrame& df, const Column& c) { return Unwrap(df.Filter(c)); })
      .def("with_columns",
           [](const DataFrame& df, const std::vector<std::string>& names,
              const std::vector<Column>& cols) { return Unwrap(df.WithColumns(names, cols)); })
      .def("with_columns_renamed",
           [](const DataFrame& df, const std::vector<std::pair<std::string, std::string>>& r) {
             return Unwrap(df.WithColumnsRenamed(r));
           })
      .def("drop", [](const DataFrame& df, const std::vector<Column>& c) { return Unwrap(df.Drop(c)); })
      .def("alias", [](const DataFrame& df, const std::string& a) { return Unwrap(df.Alias(a)); })
      .def("with_watermark",
           [](const DataFrame& df, const std::string& column, const std::string& delay) {
             return Unwrap(df.WithWatermark(column, delay));
           })
      .def("group_by",
           [](const DataFrame& df, const std::vector<Column>& keys, const std::vector<Column>& aggs) {
             return Unwrap(df.GroupBy(keys, aggs));
           })
      .def("observe",
           [](const DataFrame& df, const std::string& name, const std::vector<Column>& metrics) {
             return Unwrap(df.Observe(name, metrics));
           })
      .def("order_by", [](const DataFrame& df, const std::vector<Column>& o) { return Unwrap(df.OrderBy(o)); })
      .def("limit", [](const DataFrame& df, int64_t n) { return Unwrap(df.Limit(n)); })
      .def("drop_duplicates",
           [](const DataFrame& df, const std::vector<std::string>& c) { return Unwrap(df.DropDuplicates(c)); })
      .def("drop_duplicates_within_watermark",
           [](const DataFrame& df, const std::vector<std::string>& c) {
             return Unwrap(df.DropDuplicatesWithinWatermark(c));
           })
      .def("distinct", [](const DataFrame& df) { return Unwrap(df.Distinct()); })
      .def("union",
           [](const DataFrame& df, const DataFrame& other, bool by_name, bool allow_missing) {
             return Unwrap(df.Union(other, by_name, allow_missing));
           })
      .def("join_on",
           [](const DataFrame& df, const DataFrame& other, const Column& on, const std::string& how) {
             return Unwrap(df.Join(other, &on, {}, how));
           })
      .def("join_using",
           [](const DataFrame& df, const DataFrame& other,
              const std::vector<std::string>& using_columns, const std::string& how) {
             return Unwrap(df.Join(other, nullptr, using_columns, how));
           })
      .def("save",
           [](const DataFrame& df, const std::string& format, const std::optional<std::string>& path,
              const std::map<std::string, std::string>& options, const std::string& mode,
              const std::vector<std::string>& partition_by) {
             arrow::Status status;
             {
               nb::gil_scoped_release release;
               status = df.Save(format, path, options, mode, partition_by);
             }
             Check(status);
           },
           nb::arg("format"), nb::arg("path").none(), nb::arg("options"), nb::arg("mode"),
           nb::arg("partition_by"))
      .def("to_arrow",
           [](const DataFrame& df) {
             std::shared_ptr<arrow::Table> table;
             {
               nb::gil_scoped_release release;
               table = Unwrap(df.ToTable());
             }
             return StreamCapsule(std::move(table));
           })
      .def("collect",
           [](const DataFrame& df) -> nb::object {
             std::shared_ptr<arrow::Table> table;
             {
               nb::gil_scoped_release release;
               table = Unwrap(df.ToTable());
             }
             // (names, columns of Python values, number of rows), or the Arrow stream when a
             // column needs the Python side's conversion.
             nb::list columns;
             for (const auto& column : table->columns()) {
               nb::object values = ColumnValues(*column);
               if (values.is_none()) return StreamCapsule(std::move(table));
               columns.append(values);
             }
             return nb::make_tuple(table->ColumnNames(), columns, table->num_rows());
           })
      .def("count",
           [](const DataFrame& df) {
             nb::gil_scoped_release release;
             return Unwrap(df.Count());
           })
      .def("explain", &DataFrame::Explain);

  nb::class_<Session>(m, "Session")
      .def_static("make", [](std::map<std::string, std::string> conf) { return Session::Make(std::move(conf)); })
      .def("get_conf", [](const Session& s, const std::string& key) { return s.GetConf(key); })
      .def("set_conf", &Session::SetConf)
      .def("unset_conf", &Session::UnsetConf)
      .def("all_conf", &Session::AllConf)
      .def("sql", [](Session& s, const std::string& q) { return Unwrap(s.Sql(q)); })
      .def("range", [](Session& s, int64_t a, int64_t b, int64_t step) { return Unwrap(s.Range(a, b, step)); })
      .def("from_arrow", [](Session& s, nb::handle capsule) { return Unwrap(s.FromArrow(TableFromStream(capsule))); })
      .def("from_columns", &FromColumns)
      .def("read_files",
           [](Session& s, const std::string& format, const std::vector<std::string>& paths,
              const std::string& ddl, const std::map<std::string, std::string>& options) {
             // An empty DDL means no schema: Spark infers one where it can.
             auto schema = ddl.empty() ? nullptr : SchemaFromDdl(ddl);
             return Unwrap(s.ReadFiles(format, paths, schema, options));
           })
      .def("table", [](Session& s, const std::string& name) { return Unwrap(s.Table(name)); })
      .def("read_stream",
           [](Session& s, const std::string& format, const std::string& path,
              const std::string& ddl, const std::map<std::string, std::string>& options) {
             auto schema = ddl.empty() ? nullptr : SchemaFromDdl(ddl);
             return Unwrap(ember::ReadStream(s.shared_from_this(), format, path, schema, options));
           })
      .def("save_as_table",
           [](Session& s, const std::string& name, const DataFrame& df, const std::string& format,
              const std::string& mode, const std::vector<std::string>& partition_by) {
             arrow::Status status;
             {
               nb::gil_scoped_release release;
               status = s.SaveAsTable(name, df, format, mode, partition_by);
             }
             Check(status);
           })
      .def("insert_into",
           [](Session& s, const std::string& name, const DataFrame& df, bool overwrite) {
             arrow::Status status;
             {
               nb::gil_scoped_release release;
               status = s.InsertInto(name, df, overwrite);
             }
             Check(status);
           })
      .def("write_table",
           [](Session& s, const std::string& name, const DataFrame& df, const std::string& mode,
              const std::vector<std::tuple<std::string, std::string, int64_t>>& partitioning,
              const std::map<std::string, std::string>& properties, const std::string& provider) {
             std::vector<ember::PartitionTerm> terms;
             for (const auto& [transform, column, argument] : partitioning) {
               terms.push_back({transform, column, argument});
             }
             arrow::Status status;
             {
               nb::gil_scoped_release release;
               status = s.WriteTable(name, df, mode, terms, properties, provider);
             }
             Check(status);
           },
           nb::arg("name"), nb::arg("df"), nb::arg("mode"),
           nb::arg("partitioning") = std::vector<std::tuple<std::string, std::string, int64_t>>{},
           nb::arg("properties") = std::map<std::string, std::string>{},
           nb::arg("provider") = "")
      .def("create_temp_view",
           [](Session& s, const std::string& name, const DataFrame& df, bool replace) {
             Check(s.CreateTempView(name, df, replace));
           })
      .def("last_observed_metrics",
           [](const Session& s, const std::string& name) -> nb::object {
             auto observed = s.LastObservedMetrics(name);
             if (!observed) return nb::none();
             return StreamCapsule(Unwrap(arrow::Table::FromRecordBatches({observed->row})));
           })
      .def("drop_temp_view", &Session::DropTempView)
      .def("temp_view_names", &Session::TempViewNames);

  m.def("explain_stream", &ember::ExplainStream, nb::arg("df"), nb::arg("mode"), nb::arg("ran"));
  nb::class_<ember::Sink>(m, "Sink");
  m.def("table_sink", [](std::shared_ptr<Session> session, const std::string& name, std::string mode,
                         const DataFrame& df, const std::string& format,
                         std::vector<std::string> partition_by) {
    return Unwrap(ember::MakeTableSink(std::move(session), name, std::move(mode), *df.schema(),
                                       format, std::move(partition_by)));
  });
  m.def("read_stream_table", [](std::shared_ptr<Session> session, const std::string& name,
                                const std::map<std::string, std::string>& options) {
    return Unwrap(ember::ReadStreamTable(session, name, options));
  });
  m.def("file_sink", [](std::shared_ptr<Session> session, const std::string& format,
                        const std::string& path, std::vector<std::string> partition_by,
                        std::optional<std::string> retention) {
    return Unwrap(ember::MakeFileSink(std::move(session), format, path, std::move(partition_by),
                                      std::move(retention)));
  }, nb::arg("session"), nb::arg("format"), nb::arg("path"), nb::arg("partition_by"),
     nb::arg("retention").none());
  m.def("memory_sink", [](std::shared_ptr<Session> session, std::string name, std::string mode) {
    return ember::MakeMemorySink(std::move(session), std::move(name), std::move(mode));
  });
  // foreachBatch: the Python function runs on the query's thread, holding the GIL. The foreach
  // sink runs through it too (`foreach` true), with its own error condition.
  m.def("foreach_batch_sink", [](nb::callable function, bool foreach, std::string description) {
    auto holder = KeptPythonObject(std::move(function));
    return ember::MakeForeachBatchSink([holder, foreach](const DataFrame& batch, int64_t batch_id) {
      return CallUserFunction(foreach, [&] { (*holder)(batch, batch_id); });
    }, std::move(description));
  }, nb::arg("function"), nb::arg("foreach") = false, nb::arg("description") = "ForeachBatchSink");

  // spark.streams' listeners: one Python dispatcher, called for every event.
  nb::class_<ember::StreamingQueryListenerBus>(m, "StreamingQueryListenerBus")
      .def(nb::init<>())
      .def("set_dispatcher",
           [](ember::StreamingQueryListenerBus& bus, nb::callable function) {
             bus.AddListener(std::make_shared<PythonListener>(std::move(function)));
           })
      .def("wait_until_empty", &ember::StreamingQueryListenerBus::WaitUntilEmpty,
           nb::call_guard<nb::gil_scoped_release>())
      .def("close", &ember::StreamingQueryListenerBus::Close,
           nb::call_guard<nb::gil_scoped_release>());

  nb::class_<ember::StreamingQuery>(m, "StreamingQuery")
      .def_static(
          "start",
          [](const DataFrame& df, std::shared_ptr<ember::Sink> sink, std::string name,
             std::string checkpoint, std::string output_mode, std::string trigger,
             int64_t interval_ms, bool delete_checkpoint_on_stop,
             std::shared_ptr<ember::StreamingQueryListenerBus> listeners) {
            ember::StreamingQueryOptions options;
            options.listeners = std::move(listeners);
            options.name = std::move(name);
            options.checkpoint_location = std::move(checkpoint);
            options.output_mode = std::move(output_mode);
            options.delete_checkpoint_on_stop = delete_checkpoint_on_stop;
            options.trigger.interval_ms = interval_ms;
            options.trigger.kind = trigger == "once"           ? ember::TriggerKind::kOnce
                                   : trigger == "availableNow" ? ember::TriggerKind::kAvailableNow
                                   : trigger == "processingTime"
                                       ? ember::TriggerKind::kProcessingTime
                                       : ember::TriggerKind::kDefault;
            return HeldByPython(
                Unwrap(ember::StreamingQuery::Start(df, std::move(options), std::move(sink))));
          })
      .def_prop_ro("id", &ember::StreamingQuery::id)
      .def_prop_ro("run_id", &ember::StreamingQuery::run_id)
      .def_prop_ro("name", &ember::StreamingQuery::name)
      .def_prop_ro("is_active", &ember::StreamingQuery::IsActive)
      .def("process_all_available",
           [](ember::StreamingQuery& q) {
             arrow::Status status;
             {
               nb::gil_scoped_release release;
               status = q.ProcessAllAvailable(PythonSignalled);
             }
             CheckWait(status);
           })
      .def("await_termination",
           [](ember::StreamingQuery& q, double timeout_seconds) {  // negative: no timeout
             arrow::Result<bool> result;
             {
               nb::gil_scoped_release release;
               result = q.AwaitTermination(
                   timeout_seconds < 0 ? std::nullopt : std::optional<double>(timeout_seconds),
                   PythonSignalled);
             }
             CheckWait(result.status());
             return *result;
           })
      .def("stop", &ember::StreamingQuery::Stop, nb::call_guard<nb::gil_scoped_release>())
      .def("exception",
           [](const ember::StreamingQuery& q) -> nb::object {
             auto status = q.exception();
             if (status.ok()) return nb::none();
             return Text(status.message());
           })
      .def("raise_exception", [](const ember::StreamingQuery& q) { Check(q.exception()); })
      .def("last_progress", [](const ember::StreamingQuery& q) { return Text(q.LastProgress()); })
      .def("recent_progress",
           [](const ember::StreamingQuery& q) {
             nb::list out;
             for (const auto& p : q.RecentProgress()) out.append(Text(p));
             return out;
           })
      .def("status", [](const ember::StreamingQuery& q) { return Text(q.Status()); });
  m.def("query_checkpoint_location", [](const std::string& root, const std::string& query_name) {
    return Unwrap(ember::QueryCheckpointLocation(root, query_name));
  });
  m.def("interval_ms", [](const std::string& text) {
    return Unwrap(ember::ParseIntervalMicros(text)) / 1000;
  });

  // The Spark Connect server (ember.connect): it serves on gRPC's threads, without the GIL;
  // `python_functions` runs the clients' foreachBatch and foreach functions in this interpreter.
  nb::class_<ember::ConnectServer>(m, "ConnectServer")
      .def_static("start", [](const std::string& address, nb::callable python_functions) {
        return Unwrap(ember::ConnectServer::Start(
            address, std::make_shared<PythonFunctionRunner>(std::move(python_functions))));
      })
      .def_prop_ro("port", &ember::ConnectServer::port)
      .def("shutdown", &ember::ConnectServer::Shutdown, nb::call_guard<nb::gil_scoped_release>())
      .def("wait", &ember::ConnectServer::Wait, nb::call_guard<nb::gil_scoped_release>());

  m.def("parse_type", [](const std::string& text) {
    return ember::plan::SparkTypeName(*Unwrap(ember::plan::ParseTypeName(text)));
  });
}
