# ctest duet.mpi.compile_once: 8 ranks of one node start with an empty program cache and run the
# halo exchange case; each program must be compiled by one rank only, the others waiting for it
# and loading its cache entry (the entry lock, core/src/disk_cache.hpp). Counted from DUET_LOG=debug's
# "compiling <name>" lines.
#
# cmake -DMPIEXEC=... -DNUMPROC_FLAG=... [-DFLAGS=...] -DPROGRAM=... -DCACHE=<folder to empty>
#       -P compile_once.cmake   (with DUET_BACKEND, DUET_MPI_SHARE_DEVICES in the environment)
foreach(_var MPIEXEC NUMPROC_FLAG PROGRAM CACHE)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "compile_once.cmake needs -D${_var}=...")
  endif()
endforeach()

file(REMOVE_RECURSE "${CACHE}")
set(ENV{DUET_CACHE_DIR} "${CACHE}")
set(ENV{DUET_LOG} debug)
execute_process(
  COMMAND ${MPIEXEC} ${NUMPROC_FLAG} 8 ${FLAGS} ${PROGRAM} "-tc=halo exchange*"
  RESULT_VARIABLE _result
  OUTPUT_VARIABLE _out
  ERROR_VARIABLE _err
  TIMEOUT 280)
if(_result EQUAL 77)
  message("SKIPPED: no device for the ranks\n${_out}\n${_err}")
  return()
endif()
if(NOT _result STREQUAL "0")
  message(FATAL_ERROR "the job failed (${_result})\n--- output ---\n${_out}\n${_err}")
endif()

string(REGEX MATCHALL "program cache miss: compiling [^\n]* on [^\n]*" _compiles "${_err}")
list(LENGTH _compiles _count)
if(_count EQUAL 0)
  message(FATAL_ERROR "no compile was logged: is DUET_LOG=debug read?\n${_err}")
endif()
set(_names "")
foreach(_line IN LISTS _compiles)
  string(REGEX REPLACE "program cache miss: compiling (.*) on .*" "\\1" _name "${_line}")
  list(APPEND _names "${_name}")
endforeach()
set(_unique ${_names})
list(REMOVE_DUPLICATES _unique)
list(LENGTH _unique _programs)
message("${_count} compile(s) of ${_programs} program(s) by 8 ranks:\n  ${_compiles}")
if(NOT _count EQUAL _programs)
  message(FATAL_ERROR "some program was compiled by more than one rank")
endif()
string(REGEX MATCHALL "hit after another process compiled it" _waited "${_err}")
list(LENGTH _waited _waits)
message("${_waits} load(s) after waiting for the rank that compiled")
