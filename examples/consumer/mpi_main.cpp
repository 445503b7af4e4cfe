// The package test of duet::mpi: an out-of-tree program linked against an installed duet with the
// mpi component. Under mpirun, every rank opens its device, a 67 x 41 grid is spread over the ranks,
// and 20 heat steps on it must give bitwise the field duet::heat gives on rank 0's device alone.
// Exit code 0: passed; 1: a difference or an error; 77: no device to run on (skipped).
#include <mpi.h>

#include <cstring>
#include <duet/duet.hpp>
#include <duet/mpi.hpp>
#include <duet/stencil.hpp>
#include <iostream>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (duet::devices().empty()) {
    std::cout << "SKIPPED: no device\n";
    MPI_Finalize();
    return 77;
  }
  const int status = duet::mpi::run_or_abort(MPI_COMM_WORLD, [] {
    const std::size_t nx = 67, ny = 41;
    const float r = 0.2f;
    const int steps = 20;
    const duet::Device device = duet::mpi::open_device(MPI_COMM_WORLD);
    duet::mpi::Grid2D grid(MPI_COMM_WORLD, device, nx, ny, {3});
    duet::Queue q = device.queue();
    const bool root = grid.rank() == 0;
    std::vector<float> initial;
    if (root)
      for (std::size_t i = 0; i < nx * ny; ++i) initial.push_back(static_cast<float>((i * 7919) % 1000) / 1000.0f);
    duet::Buffer<float> u = grid.make_local(), v = grid.make_local();
    grid.scatter(q, initial, u);
    duet::mpi::heat(grid, q, u, v, r, steps);
    const std::vector<float> spread = grid.gather(q, u);
    if (!root) return 0;
    duet::Buffer<float> a(device, nx * ny), b(device, nx * ny);
    q.write(a, initial);
    duet::heat(q, a, b, nx, ny, r, steps);
    const std::vector<float> alone = q.to_vector(a);
    const bool same = std::memcmp(alone.data(), spread.data(), alone.size() * sizeof(float)) == 0;
    std::cout << "duet::mpi heat over " << grid.dims()[0] << " x " << grid.dims()[1] << " ranks: "
              << (same ? "bitwise equal to one device" : "DIFFERENT from one device") << '\n';
    return same ? 0 : 1;
  });
  int worst = 0;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
