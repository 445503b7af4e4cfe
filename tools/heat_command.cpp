// `duet heat`: the 2D heat equation on an nx x ny grid, from a hot disc in the middle or a hot
// edge, for a given number of steps. Prints the device time and statistics of the final field and
// writes the field as a PNG (0 blue .. 1 red), which shows whether the device computed something
// that looks like diffusion. Started by mpirun, it runs decomposed over the ranks instead
// (heat_mpi_command.cpp).
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.hpp"
#include "duet/duet.hpp"
#include "duet/stencil.hpp"
#include "heat_field.hpp"

namespace duet::tool {

bool started_by_mpirun() {
  // Open MPI, MPICH / Hydra and PMIx-based launchers each set one of these in every rank.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(name)) return true;
  return false;
}

bool needs_mpi(const HeatOptions& options) {
  return !options.checkpoint.empty() || !options.restart.empty() || options.until > 0.0;
}

int heat_command(const HeatOptions& options) {
  if (options.steps < 0) throw std::invalid_argument("--steps must not be negative");
  if (!(options.r > 0.0f && options.r <= 0.25f)) {
    throw std::invalid_argument("--r must be in (0, 0.25] for the explicit scheme to be stable");
  }
  if (started_by_mpirun() || needs_mpi(options)) return heat_mpi_command(options);
  const GridSize size = parse_grid_size(options.size);
  const std::size_t nx = size.nx, ny = size.ny, cells = nx * ny;

  const Device device = options.device.empty() ? Device::open() : Device::open(options.device);
  Queue q = device.queue();
  std::cout << "duet heat on " << device.info().id() << ": " << device.info().name << '\n'
            << "grid " << nx << "x" << ny << ", " << options.steps << " steps, r = " << options.r
            << ", initial field: " << options.initial << '\n';

  const auto initial = initial_field(nx, ny, options.initial);
  Buffer<float> u(device, cells), v(device, cells);
  q.write(u, initial);
  heat_warm_up(q, nx);

  std::vector<double> times;
  for (int run = 0; run < options.repeat; ++run) {
    const Event start = q.record();
    heat(q, u, v, nx, ny, options.r, options.steps);
    const Event end = q.record();
    times.push_back(elapsed_ms(start, end));
  }
  const std::vector<float> field = q.to_vector(u);
  report_field(field, nx, ny, times, options.steps, options);
  return 0;
}

}  // namespace duet::tool
