// The fast paths of the built-in kernels against their plain definitions, on every device.
// heat(steps) takes several steps per pass through shared memory (temporal blocking) and must give
// the field that stepping once at a time with heat_step gives, bit for bit, whatever the grid, the
// number of steps (also those that are not a multiple of the pass depth) and the tiles.
// vector_add and multiply handle float4 vectors and an n % 4 tail; sizes around those widths and
// around the chunk sizes check that every element is written (outputs are poisoned with NaN).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <duet/duet.hpp>
#include <duet/stencil.hpp>
#include <functional>
#include <string>
#include <vector>

#include "cpu_reference.hpp"
#include "devices.hpp"
#include "support.hpp"

namespace {

// Bitwise comparison (NaN == NaN when the bits agree), reporting the first differences.
void check_bitwise(const std::vector<float>& got, const std::vector<float>& want, std::size_t nx,
                   const std::string& what) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0;
  std::string first;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(float)) == 0) continue;
    if (bad < 5)
      first += "\n  (" + std::to_string(i % nx) + ", " + std::to_string(i / nx) + ") got " +
               std::to_string(got[i]) + " want " + std::to_string(want[i]);
    ++bad;
  }
  INFO(what, ": ", bad, " of ", got.size(), " cells differ", first);
  CHECK(bad == 0);
}

// The reference the blocked and replayed runs must equal bit for bit: one heat_step per step,
// ping-ponging by hand, from u0 (the other buffer poisoned).
std::vector<float> stepped_one_by_one(duet::Queue& q, const std::vector<float>& u0, std::size_t nx, std::size_t ny,
                                      float r, int steps) {
  duet::Buffer<float> a(q.device(), nx * ny), b(q.device(), nx * ny);
  q.write(a, u0);
  q.fill(b, kNaN);
  for (int s = 0; s < steps; ++s) {
    if (s % 2 == 0)
      duet::heat_step(q, a, b, nx, ny, r);
    else
      duet::heat_step(q, b, a, nx, ny, r);
  }
  return q.to_vector(steps % 2 == 0 ? a : b);
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("heat: blocked steps are bitwise equal to repeated heat_step") {
  struct Run {
    std::size_t nx, ny;
    int steps;
  };
  // Tiny grids (all boundary, one interior cell), odd sizes that are no multiple of any tile or
  // group size, widths that are and are not multiples of 4 (the float4 one-step kernel), tall and
  // wide grids, and step counts around the pass depths 2..8 (remainders 1, 2, 3, ...).
  const Run runs[] = {{1, 1, 5},     {2, 3, 4},      {3, 3, 6},    {37, 61, 9},    {37, 61, 1},
                      {129, 67, 13}, {129, 67, 4},   {128, 64, 8}, {100, 100, 11}, {96, 300, 7},
                      {300, 17, 10}, {257, 203, 17}, {64, 5, 3},   {5, 64, 2},     {200, 131, 0}};
  const float r = 0.23f;
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    for (const Run& run : runs) {
      const std::size_t nx = run.nx, ny = run.ny;
      const int steps = run.steps;
      CAPTURE(nx);
      CAPTURE(ny);
      CAPTURE(steps);
      auto rng = make_rng("heat blocking", nx * 100003 + ny * 101 + static_cast<std::size_t>(steps));
      const std::vector<float> u0 = random_floats(rng, nx * ny, 0.0f, 1.0f);

      const std::vector<float> want = stepped_one_by_one(q, u0, nx, ny, r, steps);

      duet::Buffer<float> u(dev, nx * ny), v(dev, nx * ny);
      q.write(u, u0);
      q.fill(v, kNaN);
      duet::heat(q, u, v, nx, ny, r, steps);
      const std::vector<float> got = q.to_vector(u);
      check_bitwise(got, want, nx, "heat vs repeated heat_step");

      // And both close to the double-precision reference (so the two are not equally wrong).
      const std::vector<double> ref = duet::reference::heat_reference(u0, nx, ny, r, steps);
      const double tol = 32 * kUnitRoundoff * (steps + 1);
      check_close(
          got, ref, [&](std::size_t) { return tol; }, "heat vs double reference");
    }
  });
}

// Every kernel of heat.duet, launched directly, so that all of them run on every device (the
// library picks some of them by device kind): heat_cells, heat_step with several row counts,
// heat_step4 where nx % 4 == 0, and heat_block with several tile shapes and depths, including tiles
// far smaller than the grid, against repeated heat_cells.
TEST_CASE("heat.duet: every kernel and tile shape gives the same bits") {
  struct Grid {
    std::size_t nx, ny;
  };
  const Grid grids[] = {{1, 1}, {2, 3}, {4, 7}, {37, 61}, {64, 33}, {129, 67}, {128, 5}};
  struct Block {
    int depth, bx, by, kx, rh;
  };
  // The GPU configuration and another large one, then small tiles that give many groups on small
  // grids.
  const Block blocks[] = {{6, 32, 12, 3, 5}, {4, 32, 16, 3, 4}, {2, 8, 4, 2, 3},
                          {3, 16, 2, 3, 5},  {1, 8, 8, 1, 4},   {5, 16, 4, 2, 6}};
  const int steps = 11;
  const float r = 0.21f;
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const char* source = duet::builtin_kernel_source("heat");
    REQUIRE(source != nullptr);
    const duet::Program plain = dev.compile(source, {}, "heat.duet");
    const duet::Kernel cells = plain.kernel("heat_cells");
    const duet::Kernel step = plain.kernel("heat_step");
    const duet::Kernel step4 = plain.kernel("heat_step4");
    const duet::Kernel row4 = plain.kernel("heat_row4");
    for (const Grid& g : grids) {
      const std::size_t nx = g.nx, ny = g.ny, n = nx * ny;
      const int inx = static_cast<int>(nx), iny = static_cast<int>(ny);
      CAPTURE(nx);
      CAPTURE(ny);
      auto rng = make_rng("heat kernels", nx * 1000 + ny);
      const std::vector<float> u0 = random_floats(rng, n, 0.0f, 1.0f);
      duet::Buffer<float> a(dev, n), b(dev, n);

      // Runs `steps` steps of `one` (a launch from a to b) and returns the field.
      auto run = [&](const std::function<void(duet::Buffer<float>&, duet::Buffer<float>&, int)>& one,
                     int depth) {
        q.write(a, u0);
        q.fill(b, kNaN);
        for (int done = 0; done < steps;) {
          const int d = std::min(depth, steps - done);
          one(a, b, d);
          std::swap(a, b);
          done += d;
        }
        return q.to_vector(a);
      };
      const std::vector<float> want =
          run([&](duet::Buffer<float>& from, duet::Buffer<float>& to,
                  int) { q.launch(cells, duet::Range(nx, ny), duet::Range(), from, to, inx, iny, r); },
              1);
      const double tol = 32 * kUnitRoundoff * (steps + 1);
      check_close(
          want, duet::reference::heat_reference(u0, nx, ny, r, steps), [&](std::size_t) { return tol; }, "heat_cells");

      for (int rows : {1, 3, 8, 64}) {
        CAPTURE(rows);
        const std::size_t segments =
            (ny + static_cast<std::size_t>(rows) - 1) / static_cast<std::size_t>(rows);
        check_bitwise(run(
                          [&](duet::Buffer<float>& from, duet::Buffer<float>& to, int) {
                            q.launch(step, duet::Range(nx, segments), duet::Range(32, 1), from, to, inx, iny,
                                     r, rows);
                          },
                          1),
                      want, nx, "heat_step");
        if (nx % 4 == 0)
          check_bitwise(run(
                            [&](duet::Buffer<float>& from, duet::Buffer<float>& to, int) {
                              q.launch(step4, duet::Range(nx / 4, segments), duet::Range(16, 1), from, to,
                                       inx, iny, r, rows);
                            },
                            1),
                        want, nx, "heat_step4");
      }
      if (nx % 4 == 0) {
        check_bitwise(run(
                          [&](duet::Buffer<float>& from, duet::Buffer<float>& to, int) {
                            q.launch(row4, duet::Range(nx / 4, ny), duet::Range(8, 2), from, to, inx, iny, r);
                          },
                          1),
                      want, nx, "heat_row4");
        // Fields one element past a 16-byte boundary: the float4 kernels' scalar accesses.
        duet::Buffer<float> wa(dev, n + 1), wb(dev, n + 1);
        for (const bool one_row : {true, false}) {
          CAPTURE(one_row);
          duet::BufferView<float> from = wa.view(1, n), to = wb.view(1, n);
          q.write(from, duet::Span<const float>(u0.data(), n));
          q.fill(to, kNaN);
          for (int s = 0; s < steps; ++s) {
            if (one_row)
              q.launch(row4, duet::Range(nx / 4, ny), duet::Range(), from, to, inx, iny, r);
            else
              q.launch(step4, duet::Range(nx / 4, (ny + 2) / 3), duet::Range(), from, to, inx, iny, r, 3);
            std::swap(from, to);
          }
          check_bitwise(q.to_vector(from), want, nx,
                        one_row ? "heat_row4, unaligned" : "heat_step4, unaligned");
        }
      }
      for (const Block& blk : blocks) {
        CAPTURE(blk.depth);
        CAPTURE(blk.bx);
        CAPTURE(blk.by);
        CAPTURE(blk.kx);
        CAPTURE(blk.rh);
        const duet::Kernel block = dev.compile(source,
                                               {{"DEPTH", std::to_string(blk.depth)},
                                                {"HB_BX", std::to_string(blk.bx)},
                                                {"HB_BY", std::to_string(blk.by)},
                                                {"HB_KX", std::to_string(blk.kx)},
                                                {"HB_RH", std::to_string(blk.rh)}},
                                               "heat.duet")
                                       .kernel("heat_block");
        const std::size_t tx = static_cast<std::size_t>(blk.bx * blk.kx - 2 * blk.depth);
        const std::size_t ty = static_cast<std::size_t>(blk.by * blk.rh - 2 * blk.depth);
        const duet::Range global((nx + tx - 1) / tx * static_cast<std::size_t>(blk.bx),
                                 (ny + ty - 1) / ty * static_cast<std::size_t>(blk.by));
        const duet::Range local(static_cast<std::size_t>(blk.bx), static_cast<std::size_t>(blk.by));
        check_bitwise(run([&](duet::Buffer<float>& from, duet::Buffer<float>& to,
                              int depth) { q.launch(block, global, local, from, to, inx, iny, r, depth); },
                          blk.depth),
                      want, nx, "heat_block");
      }
    }
  });
}

TEST_CASE("heat: a run split into several calls equals one call, bitwise") {
  const std::size_t nx = 203, ny = 149;
  const float r = 0.25f;
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("heat split");
    const std::vector<float> u0 = random_floats(rng, nx * ny, -1.0f, 1.0f);
    duet::Buffer<float> u(dev, nx * ny), v(dev, nx * ny), w(dev, nx * ny), z(dev, nx * ny);
    q.write(u, u0);
    q.write(w, u0);
    duet::heat(q, u, v, nx, ny, r, 23);
    for (int part : {5, 1, 10, 7}) duet::heat(q, w, z, nx, ny, r, part);
    check_bitwise(q.to_vector(w), q.to_vector(u), nx, "5+1+10+7 steps vs 23");
  });
}

// 419 steps on a small grid are 69 passes of 6 steps and one of 5 on GPUs, 419 one-step passes on
// CPUs: either way heat replays its graph of 32 passes at least twice and launches the rest pass
// by pass. The result must be the bits of stepping once at a time, and of the same run recorded
// into a caller's graph (where heat records its passes one by one instead).
TEST_CASE("heat: a long run on a small grid replays a graph, bitwise as launching step by step") {
  const std::size_t nx = 37, ny = 29;
  const int steps = 419;
  const float r = 0.24f;
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    auto rng = make_rng("heat graph");
    const std::vector<float> u0 = random_floats(rng, nx * ny, 0.0f, 1.0f);
    const std::vector<float> want = stepped_one_by_one(q, u0, nx, ny, r, steps);

    duet::Buffer<float> u(dev, nx * ny), v(dev, nx * ny);
    q.write(u, u0);
    q.fill(v, kNaN);
    duet::heat(q, u, v, nx, ny, r, steps);
    check_bitwise(q.to_vector(u), want, nx, "heat (graph replays) vs repeated heat_step");

    duet::Buffer<float> w(dev, nx * ny), z(dev, nx * ny);
    q.write(w, u0);
    q.fill(z, kNaN);
    q.finish();
    const duet::Graph g = q.record_graph([&] { duet::heat(q, w, z, nx, ny, r, steps); });
    CHECK(g.size() >= 70);  // every pass recorded on its own
    g.replay(q);
    check_bitwise(q.to_vector(w), want, nx, "heat recorded into a caller's graph vs repeated heat_step");
  });
}

TEST_CASE("heat_pass: a window of a larger array, only its store rectangle written, bitwise as heat") {
  struct Case {
    std::size_t pitch, rows, x0, y0, nx, ny, sx0, sy0, snx, sny;
    int steps;
  };
  // Windows at odd offsets and sizes, touching the array's edges or not, store rectangles from the
  // whole window to a thin strip, and steps from 0 to a full pass. The last five are the shapes
  // duet::mpi's rings take (a strip of a few cells along a long edge, both ways, which heat_pass runs
  // in narrow regions) and store rectangles far from the window's corner (the launch starts at
  // their first tile).
  const Case cases[] = {{53, 41, 5, 3, 40, 34, 0, 0, 40, 34, 6},       {53, 41, 0, 0, 53, 41, 7, 5, 11, 29, 4},
                        {97, 31, 13, 2, 71, 27, 0, 3, 71, 3, 5},       {64, 64, 1, 1, 62, 62, 2, 2, 58, 58, 2},
                        {17, 200, 3, 9, 9, 181, 4, 0, 1, 181, 3},      {30, 30, 2, 2, 20, 20, 0, 0, 20, 20, 0},
                        {41, 503, 0, 0, 18, 503, 6, 6, 6, 491, 6},     {307, 401, 289, 0, 18, 401, 7, 5, 5, 389, 6},
                        {509, 31, 0, 13, 509, 18, 6, 6, 497, 6, 6},    {301, 257, 3, 5, 290, 250, 150, 170, 7, 61, 5},
                        {301, 257, 0, 0, 301, 257, 200, 101, 89, 43, 6}};
  const float r = 0.21f;
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const int depth = duet::heat_pass_depth(dev);
    for (const Case& c : cases) {
      const int steps = std::min(c.steps, depth);
      CAPTURE(c.pitch);
      CAPTURE(c.x0);
      CAPTURE(c.y0);
      CAPTURE(c.nx);
      CAPTURE(c.ny);
      CAPTURE(steps);
      auto rng = make_rng("heat_pass", c.pitch * 1000 + c.x0);
      const std::vector<float> u0 = random_floats(rng, c.pitch * c.rows, 0.0f, 1.0f);
      const std::vector<float> v0 = random_floats(rng, c.pitch * c.rows, 5.0f, 6.0f);  // what stays
      duet::Buffer<float> u(dev, u0.size()), v(dev, v0.size());
      q.write(u, u0);
      q.write(v, v0);
      duet::HeatWindow w;
      w.pitch = c.pitch, w.x0 = c.x0, w.y0 = c.y0, w.nx = c.nx, w.ny = c.ny;
      w.store_x0 = c.sx0, w.store_y0 = c.sy0, w.store_nx = c.snx, w.store_ny = c.sny;
      duet::heat_pass(q, u, v, w, r, steps);

      // The window alone through heat(), on the same device.
      std::vector<float> window(c.nx * c.ny);
      for (std::size_t y = 0; y < c.ny; ++y)
        for (std::size_t x = 0; x < c.nx; ++x) window[y * c.nx + x] = u0[(c.y0 + y) * c.pitch + c.x0 + x];
      duet::Buffer<float> a(dev, window.size()), b(dev, window.size());
      q.write(a, window);
      duet::heat(q, a, b, c.nx, c.ny, r, steps);
      const std::vector<float> stepped = q.to_vector(a);
      std::vector<float> want = v0;
      if (steps > 0)
        for (std::size_t y = c.sy0; y < c.sy0 + c.sny; ++y)
          for (std::size_t x = c.sx0; x < c.sx0 + c.snx; ++x)
            want[(c.y0 + y) * c.pitch + c.x0 + x] = stepped[y * c.nx + x];
      check_bitwise(q.to_vector(v), want, c.pitch, "heat_pass");
      CHECK(q.to_vector(u) == u0);  // the source is only read
    }
    duet::HeatWindow bad;
    bad.pitch = 10, bad.x0 = 5, bad.nx = 6, bad.ny = 1;
    duet::Buffer<float> u(dev, 100), v(dev, 100);
    CHECK_THROWS_AS(duet::heat_pass(q, u, v, bad, r, 1), duet::ArgumentError);
    duet::HeatWindow fine;
    fine.pitch = 10, fine.nx = 10, fine.ny = 10, fine.store_nx = 10, fine.store_ny = 10;
    CHECK_THROWS_AS(duet::heat_pass(q, u, v, fine, r, depth + 1), duet::ArgumentError);
    CHECK_THROWS_AS(duet::heat_pass(q, u, u, fine, r, 1), duet::ArgumentError);
  });
}

TEST_CASE("heat_passes: windows of one array in fewer launches, bitwise as heat_pass on each") {
  // A 307 x 233 array; rings along its four sides as duet::mpi makes them (a strip reaching past
  // the ring, a few cells stored along a long edge), at different lengths so that paired windows
  // have different numbers of groups, and a window of another shape. Each set is stepped by
  // heat_passes and, window by window, by heat_pass; both from the same u into copies of one v.
  const std::size_t pitch = 307, rows = 233;
  const auto window = [&](std::size_t x0, std::size_t y0, std::size_t nx, std::size_t ny, std::size_t sx0,
                          std::size_t sy0, std::size_t snx, std::size_t sny) {
    duet::HeatWindow w;
    w.pitch = pitch, w.x0 = x0, w.y0 = y0, w.nx = nx, w.ny = ny;
    w.store_x0 = sx0, w.store_y0 = sy0, w.store_nx = snx, w.store_ny = sny;
    return w;
  };
  const duet::HeatWindow west = window(0, 0, 18, rows, 6, 6, 6, rows - 12);
  const duet::HeatWindow east = window(pitch - 18, 0, 18, rows - 40, 6, 6, 6, rows - 52);  // shorter
  const duet::HeatWindow south = window(0, 0, pitch, 18, 12, 6, pitch - 24, 6);
  const duet::HeatWindow north = window(30, rows - 18, pitch - 60, 18, 6, 6, pitch - 72, 6);  // narrower
  const duet::HeatWindow middle = window(40, 40, 200, 150, 10, 10, 180, 130);
  const std::vector<std::vector<duet::HeatWindow>> sets = {{west},
                                                           {west, east},
                                                           {east, west},
                                                           {south, north},
                                                           {west, south},
                                                           {west, east, south},
                                                           {west, east, south, north},
                                                           {middle, west, north, east}};
  const float r = 0.23f;
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const int steps = duet::heat_pass_depth(dev);
    auto rng = make_rng("heat_passes", pitch);
    const std::vector<float> u0 = random_floats(rng, pitch * rows, 0.0f, 1.0f);
    const std::vector<float> v0 = random_floats(rng, pitch * rows, 5.0f, 6.0f);  // what stays
    duet::Buffer<float> u(dev, u0.size()), v(dev, v0.size()), want(dev, v0.size());
    q.write(u, u0);
    for (std::size_t i = 0; i < sets.size(); ++i) {
      CAPTURE(i);
      q.write(v, v0);
      q.write(want, v0);
      duet::heat_passes(q, u, v, duet::Span<const duet::HeatWindow>(sets[i]), r, steps);
      for (const duet::HeatWindow& w : sets[i]) duet::heat_pass(q, u, want, w, r, steps);
      check_bitwise(q.to_vector(v), q.to_vector(want), pitch, "heat_passes");
    }
    CHECK(q.to_vector(u) == u0);
    duet::heat_passes(q, u, v, duet::Span<const duet::HeatWindow>(), r, steps);  // no windows: nothing
    duet::HeatWindow other = west;
    other.pitch = pitch - 1;
    const std::vector<duet::HeatWindow> widths = {west, other};
    CHECK_THROWS_WITH_AS(duet::heat_passes(q, u, v, duet::Span<const duet::HeatWindow>(widths), r, steps),
                         doctest::Contains("different widths"), duet::ArgumentError);
  });
}

namespace {

using ElementwiseFn = void (*)(duet::Queue&, const duet::Buffer<float>&, const duet::Buffer<float>&,
                               duet::Buffer<float>&);

void check_tails(const duet::Device& dev, const char* name, ElementwiseFn fn, bool add) {
  // Around the float4 width, a group's chunk (256 work-items x up to 8 vectors) and beyond.
  const std::size_t sizes[] = {1,
                               3,
                               4,
                               5,
                               8,
                               1023,
                               1024,
                               1025,
                               4095,
                               4096,
                               4097,
                               8191,
                               8193,
                               (1u << 20) + 3,
                               (1u << 20) + 4096 * 3 + 2};
  duet::Queue q = dev.queue();
  for (std::size_t n : sizes) {
    CAPTURE(n);
    auto rng = make_rng(name, n + 17);
    const std::vector<float> a = random_floats(rng, n), b = random_floats(rng, n);
    duet::Buffer<float> da(dev, n), db(dev, n), dc(dev, n);
    q.write(da, a);
    q.write(db, b);
    q.fill(dc, kNaN);  // an element the kernel never writes stays NaN and fails
    fn(q, da, db, dc);
    const std::vector<float> c = q.to_vector(dc);
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = add ? a[i] + b[i] : a[i] * b[i];
    // One correctly rounded float operation per element: equal to the host's, bit for bit.
    check_bitwise(c, want, n, name);
  }
}

}  // namespace

TEST_CASE("vector_add and multiply at sizes around the vector width and chunk sizes") {
  for_each_device([](const duet::Device& dev) {
    check_tails(dev, "vector_add", duet::vector_add, true);
    check_tails(dev, "multiply", duet::multiply, false);
  });
}

TEST_SUITE_END();
