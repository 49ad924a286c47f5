# Arrow C++ comes from the pinned pyarrow wheel: its headers and shared libraries are used at build
# time and the very same libraries are loaded at run time, so Ember and pyarrow share one libarrow.
find_package(Python 3.10 REQUIRED COMPONENTS Interpreter Development.Module)
execute_process(
  COMMAND ${Python_EXECUTABLE} -c
    "import pyarrow as pa; v = pa.__version__.split('.'); print(pa.get_include()); print(pa.get_library_dirs()[0]); print(int(v[0]) * 100 + int(v[1]))"
  OUTPUT_VARIABLE _pyarrow_info OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE _pyarrow_rc)
if(NOT _pyarrow_rc EQUAL 0)
  message(FATAL_ERROR "pyarrow is not importable by ${Python_EXECUTABLE}; run scripts/setup.sh")
endif()
string(REPLACE "\n" ";" _pyarrow_info "${_pyarrow_info}")
list(GET _pyarrow_info 0 PYARROW_INCLUDE_DIR)
list(GET _pyarrow_info 1 PYARROW_LIBRARY_DIR)
list(GET _pyarrow_info 2 PYARROW_SO_VERSION)

foreach(_lib arrow arrow_compute arrow_acero arrow_dataset parquet)
  set(_path ${PYARROW_LIBRARY_DIR}/lib${_lib}.so.${PYARROW_SO_VERSION})
  if(NOT EXISTS ${_path})
    message(FATAL_ERROR "missing ${_path}")
  endif()
  add_library(PyArrow::${_lib} SHARED IMPORTED)
  set_target_properties(PyArrow::${_lib} PROPERTIES
    IMPORTED_LOCATION ${_path}
    INTERFACE_INCLUDE_DIRECTORIES ${PYARROW_INCLUDE_DIR})
endforeach()
message(STATUS "Arrow C++ from pyarrow: ${PYARROW_LIBRARY_DIR} (so ${PYARROW_SO_VERSION})")
