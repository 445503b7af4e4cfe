// `duet heat` where duet was built without MPI, asked for what only duet::mpi does: say so instead
// of running the same grid once per rank, or ignoring --checkpoint, --restart or --until.
#include <string>

#include "commands.hpp"
#include "duet/error.hpp"

namespace duet::tool {

int heat_mpi_command(const HeatOptions&) {
  const char* why = started_by_mpirun() ? "was started by mpirun" : "was given --checkpoint, --restart or --until";
  throw ConfigError(std::string("duet heat ") + why +
                    ", which duet::mpi runs, but this duet was built without MPI (install libopenmpi-dev and "
                    "rebuild); without those, it runs on one device");
}

}  // namespace duet::tool
