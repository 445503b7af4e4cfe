// duet_mpi_fail: run_or_abort must end the whole job when one rank fails while the others wait for
// it. Rank 1 throws; every other rank enters a barrier that rank 1 never reaches, so the job ends
// only if run_or_abort aborts it. fail_check.cmake (ctest duet.mpi.failure) runs this with 3 ranks
// and checks the exit code, the message and that the job ended at all. Needs no device.
#include <mpi.h>

#include <duet/error.hpp>
#include <duet/mpi.hpp>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int code = duet::mpi::run_or_abort(MPI_COMM_WORLD, [] {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) throw duet::ArgumentError("deliberate failure for the run_or_abort test");
    MPI_Barrier(MPI_COMM_WORLD);
    return 0;
  });
  MPI_Finalize();
  return code;
}
