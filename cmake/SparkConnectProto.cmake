# Spark Connect's protocol as C++, generated at build time. The .proto definitions are never
# copied into Ember: scripts/connect_descriptors.py reads the serialized descriptors out of the
# pinned pyspark's generated Python modules (and google.rpc's, from googleapis-common-protos) into
# a FileDescriptorSet, and Debian's protoc generates the messages' code from it. The service
# needs no generated gRPC code: the transport (src/ember/connect/grpc_transport.cc) serves every
# method generically, as bytes.
#
# Defines the object library ember_connect_proto (the generated code, its warnings relaxed: it is
# not Ember's code) whose headers only src/ember/connect includes.
find_package(Protobuf REQUIRED)  # module mode: Debian's libprotobuf-dev has no CMake config

# The folders of the *_pb2.py modules, for the descriptor set's dependencies.
execute_process(
  COMMAND ${Python_EXECUTABLE} -c [[
import importlib.util, pathlib
for top, rest in (("pyspark", "sql/connect/proto"), ("google", "rpc")):
    spec = importlib.util.find_spec(top)
    for root in (spec.submodule_search_locations if spec else []):
        if pathlib.Path(root, rest).is_dir():
            print(pathlib.Path(root, rest)); break
]]
  OUTPUT_VARIABLE _connect_pb2_dirs OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE _connect_rc)
string(REPLACE "\n" ";" _connect_pb2_dirs "${_connect_pb2_dirs}")
list(LENGTH _connect_pb2_dirs _connect_found)
if(NOT _connect_rc EQUAL 0 OR NOT _connect_found EQUAL 2)
  message(FATAL_ERROR "pyspark and googleapis-common-protos must be installed for "
                      "${Python_EXECUTABLE} (scripts/setup.sh)")
endif()
set(_connect_pb2_files)
foreach(_dir IN LISTS _connect_pb2_dirs)
  file(GLOB _files ${_dir}/*_pb2.py)
  list(APPEND _connect_pb2_files ${_files})
endforeach()

set(CONNECT_PROTO_DIR ${CMAKE_CURRENT_BINARY_DIR}/connect_proto)
set(_fds ${CONNECT_PROTO_DIR}/spark_connect.fds)
add_custom_command(
  OUTPUT ${_fds}
  COMMAND ${Python_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/connect_descriptors.py ${_fds}
          pyspark.sql.connect.proto google.rpc
  DEPENDS ${PROJECT_SOURCE_DIR}/scripts/connect_descriptors.py ${_connect_pb2_files}
  COMMENT "Reading Spark Connect's descriptors from the installed pyspark"
  VERBATIM)

# The files of the protocol that Ember's service uses, and those they import.
set(_protos spark/connect/base spark/connect/catalog spark/connect/commands spark/connect/common
            spark/connect/expressions spark/connect/ml spark/connect/ml_common
            spark/connect/relations spark/connect/types google/rpc/status
            google/rpc/error_details)
set(_proto_files)
set(_generated)
foreach(_p IN LISTS _protos)
  list(APPEND _proto_files ${_p}.proto)
  list(APPEND _generated ${CONNECT_PROTO_DIR}/${_p}.pb.cc ${CONNECT_PROTO_DIR}/${_p}.pb.h)
endforeach()
add_custom_command(
  OUTPUT ${_generated}
  COMMAND protobuf::protoc --descriptor_set_in=${_fds} -I${Protobuf_INCLUDE_DIRS}
          --cpp_out=${CONNECT_PROTO_DIR} ${_proto_files}
  DEPENDS ${_fds} protobuf::protoc
  COMMENT "Generating Spark Connect's C++ messages"
  VERBATIM)

list(FILTER _generated INCLUDE REGEX "\\.cc$")
add_library(ember_connect_proto OBJECT ${_generated})
target_include_directories(ember_connect_proto SYSTEM PUBLIC ${CONNECT_PROTO_DIR})
target_link_libraries(ember_connect_proto PUBLIC protobuf::libprotobuf)
target_compile_options(ember_connect_proto PRIVATE -w)  # generated code, not Ember's
# -O1 compiles the generated code in two thirds of -O3's time; message parsing is not where a
# query's time goes (rows travel as Arrow IPC bytes).
target_compile_options(ember_connect_proto PRIVATE $<$<NOT:$<CONFIG:Debug>>:-O1>)

# The gRPC transport, a module of its own loaded with dlopen (src/ember/connect/transport.h says
# why): it links gRPC and none of the engine, and exports only its entry point.
find_package(gRPC CONFIG REQUIRED)
add_library(ember_connect_grpc MODULE ${PROJECT_SOURCE_DIR}/src/ember/connect/grpc_transport.cc)
target_include_directories(ember_connect_grpc PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(ember_connect_grpc PRIVATE gRPC::grpc++)
set_target_properties(ember_connect_grpc PROPERTIES CXX_VISIBILITY_PRESET hidden
                                                    VISIBILITY_INLINES_HIDDEN ON)
target_link_options(ember_connect_grpc PRIVATE "LINKER:--exclude-libs,ALL")
add_dependencies(ember_connect_grpc ember_layer_check)
