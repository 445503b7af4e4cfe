// `duet heat` under mpirun where duet was built without MPI: say so instead of running the same
// grid once per rank.
#include "commands.hpp"
#include "duet/error.hpp"

namespace duet::tool {

int heat_mpi_command(const HeatOptions&) {
  throw ConfigError("duet heat was started by mpirun, but this duet was built without MPI (install libopenmpi-dev "
                    "and rebuild for duet::mpi); run it without mpirun for one device");
}

}  // namespace duet::tool
