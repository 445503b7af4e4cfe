# ctest duet.mpi.failure: runs duet_mpi_fail under mpirun and checks that the job failed (non-zero
# exit), that the failing rank said which it was and why, and that it ended rather than hung.
# The ctest TIMEOUT stops this script too; the shorter timeout here leaves room to say what happened.
#
# cmake -DMPIEXEC=... -DNUMPROC_FLAG=... [-DFLAGS=<flags after the rank count>] -DPROGRAM=...
#       -P fail_check.cmake
foreach(_var MPIEXEC NUMPROC_FLAG PROGRAM)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "fail_check.cmake needs -D${_var}=...")
  endif()
endforeach()

execute_process(
  COMMAND ${MPIEXEC} ${NUMPROC_FLAG} 3 ${FLAGS} ${PROGRAM}
  RESULT_VARIABLE _result
  OUTPUT_VARIABLE _out
  ERROR_VARIABLE _err
  TIMEOUT 90)
set(_all "${_out}\n${_err}")
message("exit: ${_result}\n--- output ---\n${_all}")

if(_result MATCHES "timeout")
  message(FATAL_ERROR "the job hung: the ranks in MPI_Barrier were not ended by rank 1's failure")
endif()
if(_result STREQUAL "0")
  message(FATAL_ERROR "the job exited 0 although rank 1 failed")
endif()
foreach(_expected "error on rank 1" "deliberate failure for the run_or_abort test")
  string(FIND "${_all}" "${_expected}" _at)
  if(_at EQUAL -1)
    message(FATAL_ERROR "the output does not say \"${_expected}\"")
  endif()
endforeach()
# The waiting ranks did nothing wrong: they must not be reported as failing.
foreach(_innocent 0 2)
  string(FIND "${_all}" "error on rank ${_innocent}" _at)
  if(NOT _at EQUAL -1)
    message(FATAL_ERROR "rank ${_innocent} reported an error, but only rank 1 failed")
  endif()
endforeach()
message("OK: the job ended with a non-zero exit and rank 1's error")
