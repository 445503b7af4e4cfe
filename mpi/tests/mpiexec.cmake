# How duet's ctest entries start MPI programs (mpi/tests and examples/ include this): sets
#   DUET_MPIEXEC_FLAGS  flags after the rank count: MPIEXEC_PREFLAGS, and --oversubscribe for Open
#                       MPI, which otherwise refuses more ranks than cores (CI has 2); MPICH's
#                       mpiexec oversubscribes anyway and rejects the flag.
#   DUET_MPIEXEC_ENV    Open MPI refuses to run as root (CI does) without both of these.
# FindMPI leaves MPI_CXX_LIBRARY_VERSION_STRING empty here, so ask mpiexec itself who it is.
# Asked once per mpiexec (a later configure may point MPIEXEC_EXECUTABLE elsewhere).
if(NOT DUET_MPIEXEC_ASKED STREQUAL MPIEXEC_EXECUTABLE)
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version
    OUTPUT_VARIABLE _duet_mpiexec_version ERROR_VARIABLE _duet_mpiexec_version TIMEOUT 30)
  if(_duet_mpiexec_version MATCHES "Open MPI|OpenRTE")
    set(DUET_MPIEXEC_IS_OPEN_MPI ON CACHE INTERNAL "mpiexec is Open MPI's")
  else()
    set(DUET_MPIEXEC_IS_OPEN_MPI OFF CACHE INTERNAL "mpiexec is Open MPI's")
  endif()
  set(DUET_MPIEXEC_ASKED "${MPIEXEC_EXECUTABLE}" CACHE INTERNAL "the mpiexec DUET_MPIEXEC_IS_OPEN_MPI is about")
endif()
set(DUET_MPIEXEC_FLAGS ${MPIEXEC_PREFLAGS})
if(DUET_MPIEXEC_IS_OPEN_MPI)
  list(APPEND DUET_MPIEXEC_FLAGS --oversubscribe)
endif()
set(DUET_MPIEXEC_ENV OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
