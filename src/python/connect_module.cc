// ember._connect: the Spark Connect server for ember.connect. A module of its own so that gRPC
// and protobuf load only into the processes that serve Connect, not into every `import ember`.
// The server runs on gRPC's threads and never takes the GIL.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include "ember/connect.h"

namespace nb = nanobind;

NB_MODULE(_connect, m) {
  m.doc() = "Ember's Spark Connect server";
  nb::class_<ember::ConnectServer>(m, "ConnectServer")
      .def_static("start",
                  [](const std::string& address) {
                    auto server = ember::ConnectServer::Start(address);
                    if (!server.ok()) throw std::runtime_error(server.status().message());
                    return std::move(server).ValueUnsafe();
                  })
      .def_prop_ro("port", &ember::ConnectServer::port)
      .def("shutdown", &ember::ConnectServer::Shutdown, nb::call_guard<nb::gil_scoped_release>())
      .def("wait", &ember::ConnectServer::Wait, nb::call_guard<nb::gil_scoped_release>());
}
