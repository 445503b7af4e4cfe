// `duet heat` under mpirun (or with checkpoints, a restart or --until, as one rank without it): the
// grid decomposed over the ranks (duet::mpi::Grid2D), one device per rank, the halo exchanged every
// --halo steps. Rank 0 scatters the initial field, gathers the final one and reports it as the
// one-device run does; the time is the wall time of the steps on every rank, exchanges (and
// checkpoints) included, from a barrier to a barrier.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "duet/duet.hpp"
#include "duet/mpi.hpp"
#include "duet/stencil.hpp"
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

// Ranks started with different arguments would decompose different grids and hang in the first
// exchange: compare a hash of the options first.
void check_same_options(const HeatOptions& o) {
  std::ostringstream text;
  text << o.size << ' ' << o.steps << ' ' << o.repeat << ' ' << o.halo << ' ' << o.dims << ' ' << o.overlap << ' ' << o.r << ' ' << o.initial << ' '
       << o.checkpoint << ' ' << o.every << ' ' << o.restart << ' ' << o.until << ' ' << o.check_every;
  const unsigned long long mine = std::hash<std::string>()(text.str());
  unsigned long long low = 0, high = 0;
  MPI_Allreduce(&mine, &low, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &high, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (low != high)
    throw ConfigError("the ranks were started with different duet heat arguments; start every rank with the same ones");
}

// One line, written at once: stdout and stderr often share a log, and a line written in pieces can
// be cut by the other stream's output.
void report_refused(const std::string& why) {
  const std::string line = "duet: passing over checkpoint " + why + "\n";
  std::cout.flush();
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

// What a run starts from: a fresh field, or a checkpoint's sizes, r and step.
struct Start {
  GridSize size;
  float r = 0.24f;
  long long step = 0;
};

Start starting_point(const HeatOptions& options, bool root) {
  Start start;
  if (options.restart.empty()) {
    start.size = parse_grid_size(options.size);
    start.r = options.r;
    return start;
  }
  std::vector<std::string> refused;
  const auto header = mpi::newest_checkpoint(MPI_COMM_WORLD, options.restart, &refused);
  if (root)
    for (const std::string& r : refused) report_refused(r);
  if (!header) throw ConfigError("--restart " + options.restart + ": the directory holds no readable checkpoint");
  start.size = {header->nx, header->ny};
  start.r = header->r;
  if (options.size_given) {
    const GridSize asked = parse_grid_size(options.size);
    if (asked.nx != header->nx || asked.ny != header->ny)
      throw ConfigError("--size " + options.size + " differs from the checkpoint's " + std::to_string(header->nx) +
                        "x" + std::to_string(header->ny) + "; leave --size out to resume");
  }
  if (options.r_given && options.r != header->r)
    throw ConfigError("--r " + std::to_string(options.r) + " differs from the checkpoint's " +
                      std::to_string(header->r) + "; leave --r out to resume");
  return start;
}

mpi::Overlap overlap_of(const HeatOptions& options) {
  return options.overlap == "on" ? mpi::Overlap::on : options.overlap == "off" ? mpi::Overlap::off : mpi::Overlap::automatic;
}

// The steps from `from` to options.steps, with checkpoints and convergence checks where they fall.
// Returns the step reached.
// How each edge of the grid carries its halo, one line per pair of neighbours (from the rank on
// its west or south side), gathered on rank 0; empty elsewhere.
std::string halo_paths(const mpi::Grid2D& grid) {
  std::ostringstream mine;
  for (mpi::Side side : {mpi::Side::east, mpi::Side::north}) {
    if (grid.neighbour(side) == MPI_PROC_NULL) continue;
    mine << "  ranks " << grid.rank() << " - " << grid.neighbour(side) << " ("
         << (side == mpi::Side::east ? "x" : "y") << "): " << mpi::to_string(grid.path(side)) << '\n';
  }
  const std::string text = mine.str();
  int ranks = 1;
  MPI_Comm_size(grid.comm(), &ranks);
  const int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, grid.comm());
  int total = 0;
  for (int r = 0; r < ranks; ++r) offsets[static_cast<std::size_t>(r)] = total, total += lengths[static_cast<std::size_t>(r)];
  std::string all(static_cast<std::size_t>(grid.rank() == 0 ? total : 0), '\0');
  MPI_Gatherv(text.data(), length, MPI_CHAR, &all[0], lengths.data(), offsets.data(), MPI_CHAR, 0, grid.comm());
  return all;
}

// --skip-exchange: the rounds mpi::heat runs without overlap, each `halo` steps of duet::heat on the
// local array, with no exchange between them. The compute-only bound a scaling run is held against;
// its field is wrong.
void heat_without_exchanges(const mpi::Grid2D& grid, Queue& q, Buffer<float>& u, Buffer<float>& v, float r,
                            int steps) {
  for (int done = 0; done < steps;) {
    const int run = std::min(grid.halo(), steps - done);
    duet::heat(q, u, v, grid.local_nx(), grid.local_ny(), r, run);
    done += run;
  }
}

long long run_managed(const HeatOptions& options, mpi::Grid2D& grid, Queue& q, Buffer<float>& u, Buffer<float>& v,
                      float r, long long from, bool root) {
  long long step = from;
  const long long every = options.checkpoint.empty() ? 0 : options.every;
  const long long check = options.until > 0.0 ? options.check_every : 0;
  auto next_multiple = [](long long s, long long m) { return m ? (s / m + 1) * m : -1; };
  while (step < options.steps) {
    long long next = options.steps;
    if (every) next = std::min(next, next_multiple(step, every));
    if (check) next = std::min(next, next_multiple(step, check));
    const bool checking = check && next % check == 0;
    // The last step of a checked stretch runs alone, so the change of one step can be measured.
    const long long bulk = next - step - (checking ? 1 : 0);
    mpi::heat(grid, q, u, v, r, static_cast<int>(bulk), overlap_of(options));
    float change = 0.0f;
    if (checking) {
      mpi::heat(grid, q, u, v, r, 1, overlap_of(options));  // u is the new field, v the one before
      change = mpi::max_change(grid, q, v, u);
    }
    step = next;
    if (every && step % every == 0) {
      const std::string path = mpi::save_checkpoint(grid, q, u, options.checkpoint, step, r);
      if (root) std::cout << "checkpoint " << path << " (step " << step << ")\n" << std::flush;
    }
    if (checking) {
      if (root) std::cout << "step " << step << ": max change " << change << '\n' << std::flush;
      if (change < options.until) {
        if (root) std::cout << "converged: below --until " << options.until << " after " << step << " steps\n";
        break;
      }
    }
  }
  return step;
}

int run(const HeatOptions& options) {
  check_same_options(options);
  if (!options.checkpoint.empty() && options.every <= 0)
    throw ConfigError("--checkpoint needs --every S, the steps between checkpoints");
  int world_rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  Start start = starting_point(options, world_rank == 0);
  const Device device = options.device.empty() ? mpi::open_device(MPI_COMM_WORLD) : Device::open(options.device);
  mpi::GridOptions grid_options;
  grid_options.halo = options.halo;
  if (!options.dims.empty()) std::sscanf(options.dims.c_str(), "%dx%d", &grid_options.dims[0], &grid_options.dims[1]);
  mpi::Grid2D grid(MPI_COMM_WORLD, device, start.size.nx, start.size.ny, grid_options);
  Queue q = device.queue();
  const bool root = grid.rank() == 0;
  const std::string paths = halo_paths(grid);
  if (root) {
    int ranks = 1;
    MPI_Comm_size(grid.comm(), &ranks);
    std::cout << "duet heat over " << ranks << " MPI rank(s) (" << grid.dims()[0] << " x " << grid.dims()[1]
              << "), rank 0 on " << device.info().id() << ": " << device.info().name << '\n'
              << "grid " << start.size.nx << "x" << start.size.ny << ", " << options.steps << " steps, halo "
              << grid.halo() << ", overlap " << options.overlap << ", r = " << start.r << ", initial field: "
              << (options.restart.empty() ? options.initial : "checkpoint") << '\n';
    if (!paths.empty()) std::cout << "halo paths:\n" << paths;
  }
  Buffer<float> u = grid.make_local(), v = grid.make_local();
  if (options.restart.empty()) {
    const std::vector<float> initial = root ? initial_field(start.size.nx, start.size.ny, options.initial)
                                            : std::vector<float>();
    grid.scatter(q, initial, u);
  } else {
    std::vector<std::string> refused;
    const mpi::CheckpointHeader loaded = mpi::load_checkpoint(grid, q, u, options.restart, &refused);
    if (root) {
      for (const std::string& r : refused) report_refused(r);
      std::cout << "resuming at step " << loaded.step << " from " << options.restart << '\n';
    }
    start.step = loaded.step;
  }
  heat_warm_up(q, grid.local_nx());
  grid.exchange_halos(q, u);  // compiles the halo kernels; the halo is refreshed before every use anyway

  const bool managed = !options.checkpoint.empty() || !options.restart.empty() || options.until > 0.0;
  std::vector<double> times;
  long long reached = options.steps;
  for (int run = 0; run < (managed ? 1 : options.repeat); ++run) {
    MPI_Barrier(grid.comm());
    const double began = MPI_Wtime();
    if (managed)
      reached = run_managed(options, grid, q, u, v, start.r, start.step, root);
    else if (options.skip_exchange)
      heat_without_exchanges(grid, q, u, v, start.r, options.steps);
    else
      mpi::heat(grid, q, u, v, start.r, options.steps, overlap_of(options));
    q.finish();
    MPI_Barrier(grid.comm());
    times.push_back((MPI_Wtime() - began) * 1e3);
  }
  const std::vector<float> field = grid.gather(q, u);
  if (root) report_field(field, start.size.nx, start.size.ny, times, std::max(0LL, reached - start.step), options);
  return 0;
}

}  // namespace

int heat_mpi_command(const HeatOptions& options) {
  MpiSession session;
  return mpi::run_or_abort(MPI_COMM_WORLD, [&] { return run(options); });
}

}  // namespace duet::tool
