// A stencil of your own on a grid spread over MPI ranks (duet::mpi): a 9-point blur written in the
// kernel dialect, run on each rank's part of the grid with the halo exchanged between rounds of
// steps. The kernel never sees MPI: it works on one rank's local array, and the grid keeps the
// array's border (the halo) filled from the neighbouring ranks.
//
// With a halo of width h, h steps can run between two exchanges: a cell on the local array's edge
// has no neighbours there and keeps its value, which goes stale; the staleness moves inward one cell
// per step, so after h steps it has just reached the edge of the cells this rank owns. Rank 0
// gathers the result and checks it against the same blur computed on the whole grid on the CPU.
//
// Run: mpirun -np 3 build/examples/mpi_stencil   (any number of ranks; exit 0 when the result is
// right, 1 when it is wrong or a rank fails, 77 when there is no device)
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <duet/device.hpp>
#include <duet/error.hpp>
#include <duet/mpi.hpp>
#include <duet/program.hpp>
#include <duet/queue.hpp>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr int kSkipped = 77;

// One blur step on a local array of lnx x lny cells. Only the array's edge is held fixed: where the
// grid ends it is the grid's fixed boundary, and elsewhere it is the halo's outer ring (see above).
const char* const kBlur = R"(
KERNEL void blur9(GLOBAL const float* RESTRICT u, GLOBAL float* RESTRICT v, const int lnx, const int lny) {
  const int i = (int)GLOBAL_ID(0), j = (int)GLOBAL_ID(1);
  if (i >= lnx || j >= lny) return;
  const int c = j * lnx + i;
  if (i == 0 || j == 0 || i == lnx - 1 || j == lny - 1) {
    v[c] = u[c];
    return;
  }
  const int s = c - lnx, n = c + lnx;
  const float sides = (u[c - 1] + u[c + 1]) + (u[s] + u[n]);
  const float corners = (u[s - 1] + u[s + 1]) + (u[n - 1] + u[n + 1]);
  v[c] = (4.0f * u[c] + 2.0f * sides + corners) * (1.0f / 16.0f);
}
)";

// The same step on the whole grid, in double, with the grid's edge fixed.
void cpu_blur(const std::vector<double>& u, std::vector<double>& v, std::size_t nx, std::size_t ny) {
  for (std::size_t y = 0; y < ny; ++y)
    for (std::size_t x = 0; x < nx; ++x) {
      const std::size_t c = y * nx + x;
      if (x == 0 || y == 0 || x + 1 == nx || y + 1 == ny) {
        v[c] = u[c];
        continue;
      }
      const std::size_t s = c - nx, n = c + nx;
      v[c] =
          (4 * u[c] + 2 * (u[c - 1] + u[c + 1] + u[s] + u[n]) + u[s - 1] + u[s + 1] + u[n - 1] + u[n + 1]) /
          16;
    }
}

// Why this rank cannot open the device Device::open() picks, or "".
std::string no_device() {
  try {
    if (duet::devices().empty()) return "no device on any backend";
    duet::Device::open();
  } catch (const duet::BackendUnavailableError& e) {
    return e.what();
  } catch (const duet::Error&) {
    // Anything else is open_device's to report, and a failure.
  }
  return {};
}

int blur(MPI_Comm comm) {
  const std::size_t nx = 83, ny = 59;  // primes: no rank count splits them evenly
  const int halo = 2, steps = 11;      // 11 steps: rounds of 2, 2, 2, 2, 2 and 1

  const duet::Device device = duet::mpi::open_device(comm);
  duet::mpi::Grid2D grid(comm, device, nx, ny, duet::mpi::GridOptions{halo, {0, 0}});
  const bool root = grid.rank() == 0;
  if (root)
    std::cout << "mpi_stencil: " << nx << " x " << ny << " grid over " << grid.dims()[0] << " x "
              << grid.dims()[1] << " ranks, halo " << halo << ", " << steps << " blur steps, rank 0 on "
              << device.info().id() << ": " << device.info().name << "\n";

  // Squares of 1 and 0: sharp edges for the blur to soften.
  std::vector<float> initial;
  if (root) {
    initial.resize(nx * ny);
    for (std::size_t y = 0; y < ny; ++y)
      for (std::size_t x = 0; x < nx; ++x) initial[y * nx + x] = (x / 8 + y / 8) % 2 ? 1.0f : 0.0f;
  }

  duet::Queue q = device.queue();
  const duet::Kernel step = device.compile(kBlur, {}, "blur9.duet").kernel("blur9");
  duet::Buffer<float> u = grid.make_local(), v = grid.make_local();
  grid.scatter(q, initial, u);
  const duet::Range cells(grid.local_nx(), grid.local_ny());
  const int lnx = static_cast<int>(grid.local_nx()), lny = static_cast<int>(grid.local_ny());
  for (int done = 0; done < steps;) {
    grid.exchange_halos(q, u);
    const int round = std::min(halo, steps - done);
    for (int k = 0; k < round; ++k) {
      q.launch(step, cells, duet::Range(), u, v, lnx, lny);
      std::swap(u, v);
    }
    done += round;
  }
  const std::vector<float> result = grid.gather(q, u);

  int ok = 1;
  if (root) {
    std::vector<double> want(initial.begin(), initial.end()), next(nx * ny);
    for (int s = 0; s < steps; ++s) {
      cpu_blur(want, next, nx, ny);
      want.swap(next);
    }
    double worst = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      const double err = std::fabs(result[i] - want[i]);
      if (err > worst || std::isnan(err)) worst = err;  // a NaN stays
    }
    // A few roundings per step at values below 1; a wrong stencil or a stale halo is off by far more.
    const double tolerance = 16.0 * steps / (1 << 24);
    ok = worst <= tolerance;
    std::cout << "largest difference from the CPU: " << worst << " (tolerance " << tolerance << ")\n"
              << (ok ? "OK" : "FAILED: the distributed blur differs from the CPU") << "\n";
  }
  // Every rank exits with the root's verdict, so mpirun reports it whichever rank it looks at.
  MPI_Bcast(&ok, 1, MPI_INT, 0, grid.comm());
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // Every rank must take the same way out, so they agree on skipping before anything else; the
  // lowest rank without a device says why.
  const std::string why = no_device();
  int mine = why.empty() ? size : rank, first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == rank) std::cout << "SKIPPED: rank " << rank << ": " << why << "\n";
  const int code =
      first < size ? kSkipped : duet::mpi::run_or_abort(MPI_COMM_WORLD, [] { return blur(MPI_COMM_WORLD); });
  MPI_Finalize();
  return code;
}
