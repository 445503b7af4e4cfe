# Finds Python and nanobind for the Python module (python/) and adds it when both are there. Through
# scikit-build-core (SKBUILD, pip install .) they are required; in a plain CMake build they are
# optional, like MPI: the core never needs Python.
if(SKBUILD)
  set(_duet_python_required REQUIRED)
else()
  set(_duet_python_required QUIET)
endif()
find_package(Python 3.8 COMPONENTS Interpreter Development.Module ${_duet_python_required})
if(Python_FOUND AND NOT nanobind_DIR)
  execute_process(COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
                  OUTPUT_VARIABLE _duet_nanobind_dir OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _duet_nanobind_status ERROR_QUIET)
  if(_duet_nanobind_status EQUAL 0)
    set(nanobind_DIR "${_duet_nanobind_dir}" CACHE PATH "nanobind's CMake package (python -m nanobind --cmake_dir)")
  endif()
endif()
if(Python_FOUND)
  find_package(nanobind CONFIG ${_duet_python_required})
endif()
if(Python_FOUND AND nanobind_FOUND)
  add_subdirectory(python)
  message(STATUS "duet: Python ${Python_VERSION} and nanobind found, building the Python module")
else()
  message(STATUS "duet: the Python module is left out (it needs Python's development files and nanobind: "
                 "-DPython_EXECUTABLE=<a venv's python with nanobind>)")
endif()
