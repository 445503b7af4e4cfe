// `duet heat` under mpirun: the grid decomposed over the ranks (duet::mpi::Grid2D), one device per
// rank, the halo exchanged every --halo steps. Rank 0 scatters the initial field, gathers the final
// one and reports it as the one-device run does; the time is the wall time of the steps on every
// rank, exchanges included, from a barrier to a barrier.
#include <mpi.h>

#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "duet/duet.hpp"
#include "duet/mpi.hpp"
#include "heat_field.hpp"

namespace duet::tool {
namespace {

// MPI_Init and MPI_Finalize around the run, whatever way it ends.
struct MpiSession {
  MpiSession() { MPI_Init(nullptr, nullptr); }
  ~MpiSession() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
};

int run(const HeatOptions& options) {
  const GridSize size = parse_grid_size(options.size);
  const Device device = options.device.empty() ? mpi::open_device(MPI_COMM_WORLD) : Device::open(options.device);
  mpi::GridOptions grid_options;
  grid_options.halo = options.halo;
  mpi::Grid2D grid(MPI_COMM_WORLD, device, size.nx, size.ny, grid_options);
  Queue q = device.queue();
  const bool root = grid.rank() == 0;
  if (root) {
    int ranks = 1;
    MPI_Comm_size(grid.comm(), &ranks);
    std::cout << "duet heat over " << ranks << " MPI rank(s) (" << grid.dims()[0] << " x " << grid.dims()[1]
              << "), rank 0 on " << device.info().id() << ": " << device.info().name << '\n'
              << "grid " << size.nx << "x" << size.ny << ", " << options.steps << " steps, halo " << grid.halo()
              << ", r = " << options.r << ", initial field: " << options.initial << '\n';
  }
  const std::vector<float> initial = root ? initial_field(size.nx, size.ny, options.initial) : std::vector<float>();
  Buffer<float> u = grid.make_local(), v = grid.make_local();
  grid.scatter(q, initial, u);
  // One step into v compiles the kernels outside the timed region; u is left as it was.
  heat_step(q, u, v, grid.local_nx(), grid.local_ny(), options.r);
  grid.exchange_halos(q, v);
  q.finish();

  std::vector<double> times;
  for (int run = 0; run < options.repeat; ++run) {
    MPI_Barrier(grid.comm());
    const double start = MPI_Wtime();
    mpi::heat(grid, q, u, v, options.r, options.steps);
    q.finish();
    MPI_Barrier(grid.comm());
    times.push_back((MPI_Wtime() - start) * 1e3);
  }
  const std::vector<float> field = grid.gather(q, u);
  if (root) report_field(field, size.nx, size.ny, times, options);
  return 0;
}

}  // namespace

int heat_mpi_command(const HeatOptions& options) {
  MpiSession session;
  return mpi::run_or_abort(MPI_COMM_WORLD, [&] { return run(options); });
}

}  // namespace duet::tool
