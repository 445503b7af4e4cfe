// heat_step and heat: the explicit 5-point scheme in stencil/kernels/heat.duet. On GPUs one step
// runs heat_step4 (float4 rows) when nx % 4 == 0 and heat_step otherwise, and many steps run
// heat_block, which takes up to DEPTH steps per pass through shared memory; on CPUs every step runs
// heat_cells. All of them update a cell with the same heat_cell(), so on one device the result is
// bitwise the same however the steps were grouped. heat_pass runs heat_block over a window of a
// larger array, on every device.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "duet/extension.hpp"
#include "duet/graph.hpp"
#include "duet/stencil.hpp"
#include "duet_embedded_kernels.hpp"

namespace duet {
namespace {

struct HeatParams {
  // One step. cells: heat_cells, one cell per work-item in groups of group_x x group_y. Otherwise
  // heat_step4 (nx % 4 == 0) or heat_step, each work-item walking rows4 or rows1 rows (fewer on
  // small grids, so that the launch keeps at least `min_items` work-items), in groups of
  // group_x x 1; where that leaves one row of float4 columns a work-item, heat_row4 in groups of
  // row_group_x x 1.
  bool cells;
  std::size_t group_x, group_y;
  int rows4, rows1;
  std::size_t min_items;
  std::size_t row_group_x;
  // Many steps: heat_block with these defines, or depth 0 to run the one-step kernel per step.
  int depth;
  int bx, by, kx, rh;  // groups of HB_BX x HB_BY work-items, each HB_KX columns and HB_RH rows
};

// Chosen with device events on a large NVIDIA GPU (both backends) and on PoCL's CPU device, where
// the one-cell kernel vectorises best and temporal blocking does not pay. On GPUs: heat_step4 with 4
// rows per work-item (fewer rows lose bandwidth to index work, more lose occupancy); heat_block
// over a region of 96 x 60 cells (45 KiB of shared memory for its two buffers) with 6 steps per
// pass, the fastest region and depth on both backends, its neighbours within 10%. The current
// figures against the copy bandwidth are in bench/RESULTS.md (heat_step, heat). Small grids split
// rows until a launch has 2048 work-items per compute unit, what a large GPU keeps resident; at one
// row a work-item heat_row4 takes over from heat_step4, whose row loop needs 48 registers where
// heat_row4 needs 32 (sm_90): 8 groups of 256 resident a multiprocessor instead of 5, so a step of
// 1024^2 runs in one wave. Its groups of 128 follow a plain CUDA kernel of the same form, which
// stepped 1024^2 faster in groups of 128 than of 256 (bench/results/gpu-h100-1077b72-session.md).
HeatParams params_for(const DeviceInfo& info) {
  if (info.kind == DeviceKind::cpu) return {true, 32, 8, 1, 1, 1, 0, 0, 32, 8, 3, 7};
  const std::size_t units = std::max<unsigned>(info.compute_units, 1);
  return {false, 256, 1, 4, 16, units * 2048, 128, 6, 32, 12, 3, 5};
}

// heat_block's shape for heat_pass: the device's own where it blocks, else the GPUs' (a CPU runs it
// correctly, if not fast; heat_pass is there to update parts of a grid separately).
HeatParams block_params_for(const DeviceInfo& info) {
  HeatParams p = params_for(info);
  if (p.depth < 2) p.depth = 6, p.bx = 32, p.by = 12, p.kx = 3, p.rh = 5;
  return p;
}

bool block_fits(const HeatParams& p, const DeviceInfo& info) {
  const std::size_t threads = static_cast<std::size_t>(p.bx) * static_cast<std::size_t>(p.by);
  const std::size_t shared_bytes = 2 * threads * static_cast<std::size_t>(p.kx * p.rh) * sizeof(float);
  return p.depth >= 2 && threads <= info.max_group_size && shared_bytes <= info.local_memory_bytes;
}

// heat_pass's shape for a window whose stored rectangle is store_nx x store_ny cells. A pass computes
// whole regions, so a rectangle a few cells wide (the ring along an edge that duet::mpi recomputes
// beside a tile's pass) in the 96-cell-wide regions of the grid's shape would compute 16 times the
// cells it keeps: such rectangles take regions 24 cells across the ring and long along it. A ring
// pass is a single wave of groups whose time is the latency of one group's steps, so a column ring
// gives each work-item one column of the region (groups of 24 x 32), where three columns a
// work-item (8 x 32, for devices that take no group of 768) walk three times the cells per step.
HeatParams pass_params_for(const DeviceInfo& info, std::size_t store_nx, std::size_t store_ny) {
  HeatParams p = block_params_for(info);
  const auto ring = static_cast<std::size_t>(2 * p.depth);
  if (store_nx <= ring && store_ny > store_nx) {
    p.bx = 24, p.kx = 1, p.by = 32, p.rh = 5;  // 24 x 160 cells
    if (!block_fits(p, info)) p.bx = 8, p.kx = 3;
  } else if (store_ny <= ring && store_nx > store_ny) {
    p.bx = 32, p.kx = 3, p.by = 8, p.rh = 3;  // 96 x 24 cells
  }
  return p;
}

// heat_block (`name`) or heat_block_window with p's shape: its defines built and looked up once per
// call of heat or heat_pass, not per pass.
Kernel block_kernel(const Device& device, const HeatParams& p, const char* name) {
  const Defines defines{{"DEPTH", std::to_string(p.depth)},
                        {"HB_BX", std::to_string(p.bx)},
                        {"HB_BY", std::to_string(p.by)},
                        {"HB_KX", std::to_string(p.kx)},
                        {"HB_RH", std::to_string(p.rh)}};
  return embedded_kernels.kernel(device, "heat", name, defines);
}

// The launch shape of heat_block over an nx x ny grid: one group per tile of the region's inner part.
struct BlockLaunch {
  Range global, local;
};
BlockLaunch block_launch(const HeatParams& p, std::size_t nx, std::size_t ny) {
  const std::size_t tile_x = static_cast<std::size_t>(p.bx * p.kx - 2 * p.depth);
  const std::size_t tile_y = static_cast<std::size_t>(p.by * p.rh - 2 * p.depth);
  return {Range((nx + tile_x - 1) / tile_x * static_cast<std::size_t>(p.bx),
                (ny + tile_y - 1) / tile_y * static_cast<std::size_t>(p.by)),
          Range(static_cast<std::size_t>(p.bx), static_cast<std::size_t>(p.by))};
}

void check_grid(const char* call, const Buffer<float>& u, const Buffer<float>& v, std::size_t nx,
                std::size_t ny, float r) {
  if (nx == 0 || ny == 0) throw ArgumentError(std::string(call) + ": nx and ny must be at least 1");
  if (!(r > 0.0f && r <= 0.25f))
    throw ArgumentError(std::string(call) + ": r = " + std::to_string(r) +
                        " is outside (0, 0.25], where the explicit scheme is stable");
  extension::as_int(call, "nx", nx);
  extension::as_int(call, "ny", ny);
  extension::require_elements(call, "u", u, nx * ny);
  extension::require_elements(call, "v", v, nx * ny);
  if (u.raw().same_allocation(v.raw()))
    throw ArgumentError(std::string(call) + ": u and v must be different buffers");
}

void launch_step(Queue& q, const HeatParams& p, const Buffer<float>& u, Buffer<float>& v, std::size_t nx,
                 std::size_t ny, float r) {
  const std::size_t max_group = q.device().info().max_group_size;
  if (p.cells) {
    const std::size_t gx = std::min(p.group_x, max_group);
    const std::size_t gy = std::max<std::size_t>(std::min(p.group_y, max_group / gx), 1);
    q.launch(embedded_kernels.kernel(q.device(), "heat", "heat_cells"), Range(nx, ny), Range(gx, gy), u, v,
             static_cast<int>(nx), static_cast<int>(ny), r);
    return;
  }
  const bool vec4 = nx % 4 == 0;
  const std::size_t columns = vec4 ? nx / 4 : nx;
  // A launch has at most 65535 groups along y on CUDA (a group is one row of work-items here), so
  // a taller grid gives each work-item more rows.
  constexpr std::size_t kMaxGroupsY = 65535;
  const std::size_t fewest_rows = (ny + kMaxGroupsY - 1) / kMaxGroupsY;
  std::size_t rows = static_cast<std::size_t>(vec4 ? p.rows4 : p.rows1);
  while (rows / 2 >= fewest_rows && rows > 1 && columns * ((ny + rows - 1) / rows) < p.min_items) rows /= 2;
  rows = std::max(rows, fewest_rows);
  if (vec4 && rows == 1) {
    q.launch(embedded_kernels.kernel(q.device(), "heat", "heat_row4"), Range(columns, ny),
             Range(std::min(p.row_group_x, max_group), 1), u, v, static_cast<int>(nx),
             static_cast<int>(ny), r);
    return;
  }
  const std::size_t segments = (ny + rows - 1) / rows;
  q.launch(embedded_kernels.kernel(q.device(), "heat", vec4 ? "heat_step4" : "heat_step"),
           Range(columns, segments), Range(std::min(p.group_x, max_group), 1), u, v, static_cast<int>(nx),
           static_cast<int>(ny), r, static_cast<int>(rows));
}

}  // namespace

void heat_step(Queue& q, const Buffer<float>& u, Buffer<float>& v, std::size_t nx, std::size_t ny, float r) {
  check_grid("heat_step", u, v, nx, ny, r);
  launch_step(q, params_for(q.device().info()), u, v, nx, ny, r);
}

// Long runs on small grids replay a graph of kGraphPasses passes. A pass moves about 8 bytes a cell
// through memory: up to kGraphMaxCells cells (8 MiB, a few microseconds at a large GPU's bandwidth)
// that takes no longer than the host takes to launch it (several microseconds through either
// driver), so the launches, not the device, set the pace, and one submission per kGraphPasses passes
// goes below them. The count is even so that a replay leaves u and v where it found them; a run
// takes a graph only from two replays on, so that recording and instantiating it (tens of
// microseconds) are paid back. Larger grids, shorter runs, and runs recorded into a caller's own
// graph launch pass by pass. Either way the same kernels run with the same arguments in the same
// order, so the result is bitwise the same.
constexpr std::size_t kGraphMaxCells = std::size_t(1) << 20;
constexpr int kGraphPasses = 32;

void heat(Queue& q, Buffer<float>& u, Buffer<float>& v, std::size_t nx, std::size_t ny, float r, int steps) {
  if (steps < 0) throw ArgumentError("heat: steps must be >= 0, not " + std::to_string(steps));
  check_grid("heat", u, v, nx, ny, r);
  const HeatParams p = params_for(q.device().info());
  const bool blocked = block_fits(p, q.device().info());
  const Kernel block = blocked ? block_kernel(q.device(), p, "heat_block") : Kernel();
  const BlockLaunch shape = blocked ? block_launch(p, nx, ny) : BlockLaunch{};
  // One pass of `depth` steps from *a into *b, then b is the latest. A pass of one step runs the
  // plain kernel, which is cheaper than a blocked pass of one step.
  auto pass = [&](Buffer<float>*& a, Buffer<float>*& b, int depth) {
    if (!blocked || depth == 1)
      launch_step(q, p, *a, *b, nx, ny, r);
    else
      q.launch(block, shape.global, shape.local, *a, *b, static_cast<int>(nx), static_cast<int>(ny), r,
               depth);
    std::swap(a, b);
  };
  Buffer<float>* a = &u;
  Buffer<float>* b = &v;
  const int depth = blocked ? p.depth : 1;
  int full = steps / depth;
  if (full >= 2 * kGraphPasses && nx * ny <= kGraphMaxCells && !q.capturing()) {
    const Graph g = q.record_graph([&] {
      Buffer<float>*ra = a, *rb = b;  // an even number of passes: a replay ends where it began
      for (int i = 0; i < kGraphPasses; ++i) pass(ra, rb, depth);
    });
    for (int i = full / kGraphPasses; i > 0; --i) g.replay(q);
    full %= kGraphPasses;
  }
  for (int i = 0; i < full; ++i) pass(a, b, depth);
  if (steps % depth) pass(a, b, steps % depth);
  if (a != &u) std::swap(u, v);
}

void heat_warm_up(Queue& q, std::size_t nx) {
  const std::size_t wx = 64 + nx % 4, wy = 64;  // the same float4 case as nx
  Buffer<float> a(q.device(), wx * wy), b(q.device(), wx * wy);
  q.fill(a, 0.0f);
  q.fill(b, 0.0f);
  heat(q, a, b, wx, wy, 0.25f, 7);  // a blocked pass and a single step
  q.finish();
}

int heat_pass_depth(const Device& device) {
  const HeatParams p = block_params_for(device.info());
  return block_fits(p, device.info()) ? p.depth : 1;
}

namespace {

// A window's pass as heat_block_window launches it: its shape, and the tiles that hold stored cells
// (the launch starts at the first of them).
struct WindowPass {
  HeatWindow w;
  HeatParams p;
  std::size_t gx0, gy0, groups_x, groups_y;
};

bool same_shape(const HeatParams& a, const HeatParams& b) {
  return a.depth == b.depth && a.bx == b.bx && a.by == b.by && a.kx == b.kx && a.rh == b.rh;
}

// Checks one window of a heat_pass or heat_passes call; false when it stores nothing.
bool window_pass(const char* call, const Queue& q, const Buffer<float>& u, const Buffer<float>& v,
                 const HeatWindow& w, float r, int steps, WindowPass& out) {
  if (!(r > 0.0f && r <= 0.25f))
    throw ArgumentError(std::string(call) + ": r = " + std::to_string(r) +
                        " is outside (0, 0.25], where the explicit scheme is stable");
  if (w.nx == 0 || w.ny == 0) throw ArgumentError(std::string(call) + ": the window must be at least 1 x 1 cells");
  if (w.x0 + w.nx > w.pitch)
    throw ArgumentError(std::string(call) + ": the window's columns [" + std::to_string(w.x0) + ", " +
                        std::to_string(w.x0 + w.nx) + ") go past the array's width " + std::to_string(w.pitch));
  if (w.store_x0 + w.store_nx > w.nx || w.store_y0 + w.store_ny > w.ny)
    throw ArgumentError(std::string(call) + ": the stored rectangle goes past the window");
  const int depth_limit = heat_pass_depth(q.device());
  if (steps < 0 || steps > depth_limit)
    throw ArgumentError(std::string(call) + ": " + std::to_string(steps) + " steps; one pass takes 0 to " +
                        std::to_string(depth_limit) + " on " + q.device().info().id());
  extension::as_int(call, "the array's width", w.pitch);
  extension::as_int(call, "the window's height", w.ny);
  const std::size_t cells = (w.y0 + w.ny) * w.pitch;
  extension::require_elements(call, "u", u, cells);
  extension::require_elements(call, "v", v, cells);
  if (u.raw().same_allocation(v.raw())) throw ArgumentError(std::string(call) + ": u and v must be different buffers");
  if (steps == 0 || w.store_nx == 0 || w.store_ny == 0) return false;
  const DeviceInfo& info = q.device().info();
  if (!block_fits(block_params_for(info), info))
    throw ArgumentError(std::string(call) + ": " + info.id() + " cannot run heat_block");
  HeatParams p = pass_params_for(info, w.store_nx, w.store_ny);
  if (!block_fits(p, info)) p = block_params_for(info);
  const std::size_t tile_x = static_cast<std::size_t>(p.bx * p.kx - 2 * p.depth);
  const std::size_t tile_y = static_cast<std::size_t>(p.by * p.rh - 2 * p.depth);
  out.w = w;
  out.p = p;
  out.gx0 = w.store_x0 / tile_x, out.gy0 = w.store_y0 / tile_y;
  out.groups_x = (w.store_x0 + w.store_nx - 1) / tile_x - out.gx0 + 1;
  out.groups_y = (w.store_y0 + w.store_ny - 1) / tile_y - out.gy0 + 1;
  return true;
}

int as_int(std::size_t v) { return static_cast<int>(v); }
std::uint64_t origin_of(const HeatWindow& w) { return static_cast<std::uint64_t>(w.y0 * w.pitch + w.x0); }

void launch_window(Queue& q, const Buffer<float>& u, Buffer<float>& v, const WindowPass& a, float r,
                   int steps) {
  const HeatParams& p = a.p;
  const HeatWindow& w = a.w;
  q.launch(block_kernel(q.device(), p, "heat_block_window"),
           Range(a.groups_x * static_cast<std::size_t>(p.bx), a.groups_y * static_cast<std::size_t>(p.by)),
           Range(static_cast<std::size_t>(p.bx), static_cast<std::size_t>(p.by)), u, v, as_int(w.nx),
           as_int(w.ny), r, steps, as_int(w.pitch), origin_of(w), as_int(w.store_x0), as_int(w.store_y0),
           as_int(w.store_x0 + w.store_nx), as_int(w.store_y0 + w.store_ny), as_int(a.gx0), as_int(a.gy0));
}

// Two windows of one shape in one launch (heat_block_window2): a's groups first along y, then b's.
void launch_windows(Queue& q, const Buffer<float>& u, Buffer<float>& v, const WindowPass& a,
                    const WindowPass& b, float r, int steps) {
  const HeatParams& p = a.p;
  const std::size_t groups_x = std::max(a.groups_x, b.groups_x);
  q.launch(block_kernel(q.device(), p, "heat_block_window2"),
           Range(groups_x * static_cast<std::size_t>(p.bx),
                 (a.groups_y + b.groups_y) * static_cast<std::size_t>(p.by)),
           Range(static_cast<std::size_t>(p.bx), static_cast<std::size_t>(p.by)), u, v, r, steps,
           as_int(a.w.pitch), as_int(a.groups_y), as_int(a.w.nx), as_int(a.w.ny), origin_of(a.w),
           as_int(a.w.store_x0), as_int(a.w.store_y0), as_int(a.w.store_x0 + a.w.store_nx),
           as_int(a.w.store_y0 + a.w.store_ny), as_int(a.gx0), as_int(a.gy0), as_int(a.groups_x),
           as_int(b.w.nx), as_int(b.w.ny), origin_of(b.w), as_int(b.w.store_x0), as_int(b.w.store_y0),
           as_int(b.w.store_x0 + b.w.store_nx), as_int(b.w.store_y0 + b.w.store_ny), as_int(b.gx0),
           as_int(b.gy0), as_int(b.groups_x));
}

}  // namespace

void heat_pass(Queue& q, const Buffer<float>& u, Buffer<float>& v, const HeatWindow& w, float r, int steps) {
  WindowPass pass;
  if (window_pass("heat_pass", q, u, v, w, r, steps, pass)) launch_window(q, u, v, pass, r, steps);
}

void heat_passes(Queue& q, const Buffer<float>& u, Buffer<float>& v, Span<const HeatWindow> windows, float r,
                 int steps) {
  std::vector<WindowPass> passes;
  for (const HeatWindow& w : windows) {
    WindowPass pass;
    if (window_pass("heat_passes", q, u, v, w, r, steps, pass)) {
      if (w.pitch != windows[0].pitch)
        throw ArgumentError("heat_passes: the windows lie in arrays of different widths (" +
                            std::to_string(windows[0].pitch) + " and " + std::to_string(w.pitch) +
                            "); give the windows of one array");
      passes.push_back(pass);
    }
  }
  // Pairs of one shape share a launch; the rest go alone, in the order given.
  std::vector<bool> done(passes.size(), false);
  for (std::size_t i = 0; i < passes.size(); ++i) {
    if (done[i]) continue;
    done[i] = true;
    std::size_t j = i + 1;
    while (j < passes.size() && (done[j] || !same_shape(passes[i].p, passes[j].p))) ++j;
    if (j < passes.size()) {
      done[j] = true;
      launch_windows(q, u, v, passes[i], passes[j], r, steps);
    } else {
      launch_window(q, u, v, passes[i], r, steps);
    }
  }
}

}  // namespace duet
