// The gemm selection rule (duet/gemm_plan.hpp, where the rule is written out): which kernel, which
// tiles, how many slices of K. Pure arithmetic on the problem and a few device facts, so the tests
// drive it with made-up devices.
#include "duet/gemm_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "duet/error.hpp"

namespace duet {
namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
std::size_t round_up(std::size_t a, std::size_t b) { return ceil_div(a, b) * b; }

std::string shape_text(const GemmProblem& p) {
  std::ostringstream s;
  s << p.M << "x" << p.N << "x" << p.K;
  if (p.batch != 1) s << " x" << p.batch;
  return s.str();
}

// The compute units the rule counts with (at least 1: a device that reports none).
std::size_t units_of(const DeviceInfo& device) { return std::max<std::size_t>(1, device.compute_units); }

double group_overhead_steps(const DeviceInfo& device) {
  return device.kind == DeviceKind::gpu ? kGroupOverheadStepsGpu : kGroupOverheadSteps;
}
double reduce_launch_steps(const DeviceInfo& device) {
  return device.kind == DeviceKind::gpu ? kReduceLaunchStepsGpu : kReduceLaunchSteps;
}

GemmPlan plan_gemv(const DeviceInfo& device, const GemmProblem& p, const GemmOptions& options) {
  GemmPlan plan;
  const bool on_a = p.N == 1;  // the matrix is A (y = op(A) x) or B (y^T = x^T op(B))
  const bool dot = on_a ? p.op_a == Op::none : p.op_b == Op::transpose;
  plan.kernel = dot ? GemmKernel::gemv_dot : GemmKernel::gemv_axpy;
  const std::size_t outputs = on_a ? p.M : p.N;
  const std::size_t per_group = dot ? kGemvDotRows : std::size_t{kGemvAxpyCols} * 4;
  const std::size_t groups = ceil_div(outputs, per_group) * p.batch;
  const std::size_t min_chunk = dot ? kGemvDotMinChunk : kGemvAxpyMinChunk;
  // Slices stay whole steps of the kernel's loop: 4 elements per work-item along K (dot); for axpy
  // whole steps of the runs in flight, AX_RUNS rows per work-item, so only the last slice meets the
  // one-row tail loop.
  const std::size_t align = dot ? std::size_t{4} * kGemvDotLanes : std::size_t{kGemvAxpyRows} * kGemvAxpyRuns;
  std::size_t splits = 1;
  std::ostringstream why;
  why << (on_a ? "N == 1: y = op(A) x" : "M == 1: y = x op(B)") << ", the matrix's rows run along "
      << (dot ? "K" : "the outputs");
  const std::size_t units = units_of(device);
  if (options.splits > 0) {
    splits = static_cast<std::size_t>(options.splits);
    why << "; " << options.splits << " slices of K asked for";
  } else if (groups < units) {
    const std::size_t wanted =
        dot || device.kind != DeviceKind::gpu
            ? ceil_div(4 * units, groups)
            : std::max(kGemvAxpyGroupsPerUnit * units / groups, ceil_div(p.K, kGemvAxpySliceRows));
    splits =
        std::min({wanted, std::max<std::size_t>(1, p.K / min_chunk), static_cast<std::size_t>(kMaxSplits)});
    if (splits > 1) why << "; " << groups << " groups for " << units << " compute units: K split";
  }
  plan.k_chunk = round_up(ceil_div(p.K, splits), align);
  plan.splits = static_cast<int>(ceil_div(p.K, plan.k_chunk));
  if (plan.splits == 1) plan.k_chunk = p.K;
  if (plan.splits > 1) plan.workspace_elements = static_cast<std::size_t>(plan.splits) * p.batch * outputs;
  plan.source = "gemv.duet";
  plan.reason = why.str();
  return plan;
}

// The split of K with the fewest estimated wave-steps (see the rule): ceil(tiles S / units)
// groups per compute unit, one after another, of ceil(K / S) steps each. `force`: the best split
// into at least 2 slices of at least BK, without asking it to beat no split or the workspace limit.
std::size_t best_split(const GemmProblem& p, const GemmTile& params, std::size_t element_bytes,
                       const DeviceInfo& device, bool force) {
  const double tiles = double(ceil_div(p.M, params.bm)) * double(ceil_div(p.N, params.bn)) * double(p.batch);
  const double units = double(units_of(device));
  const std::size_t bk = static_cast<std::size_t>(params.bk);
  const std::size_t min_chunk = force ? bk : std::max(split_min_chunk(device), bk);
  const double outputs = double(p.M) * double(p.N) * double(p.batch);
  // In elements of K: a group's start and end, and the launch that adds the slices, cost steps too
  // (a 64^3 product on a GPU: 4 steps, faster whole than in 2 slices and a second launch).
  const double group_cost = group_overhead_steps(device) * double(bk),
               reduce_cost = reduce_launch_steps(device) * double(bk);
  const double no_split = std::ceil(tiles / units) * (double(p.K) + group_cost);
  std::size_t best = 1;
  double best_cost = force ? HUGE_VAL : no_split;
  for (std::size_t s = 2; s <= static_cast<std::size_t>(kMaxSplits); ++s) {
    const std::size_t chunk = round_up(ceil_div(p.K, s), bk);
    if (chunk < min_chunk) break;                             // chunks only get shorter from here
    if (chunk >= p.K || ceil_div(p.K, chunk) != s) continue;  // no split, or met at a smaller s
    if (!force && outputs * double(s) * double(element_bytes) > double(kMaxWorkspaceBytes)) break;
    const double cost = std::ceil(tiles * double(s) / units) * (double(chunk) + group_cost) + reduce_cost;
    if (cost < best_cost) {
      best = s;
      best_cost = cost;
    }
  }
  if (!force && best_cost > kSplitGain * no_split) best = 1;
  if (force || device.kind != DeviceKind::gpu) return best;
  // Occupancy: a GPU unit hides latency with kOccupancyThreads work-items or more; where its groups
  // have fewer between them and K is long enough that the partial sums cost little, more slices.
  const double threads = double(std::max(1, params.threads()));
  const double wanted = std::min(std::ceil(double(kOccupancyThreads) / threads),
                                 double(resident_groups(params, device, element_bytes)));
  if (std::ceil(tiles * double(best) / units) >= wanted) return best;
  // Where K is split already, more slices cost only a larger workspace; otherwise the partial sums
  // must be worth it: long slices only.
  const std::size_t s = std::min(static_cast<std::size_t>(std::ceil(wanted * units / tiles)),
                                 static_cast<std::size_t>(kMaxSplits));
  const std::size_t chunk = round_up(ceil_div(p.K, std::max<std::size_t>(s, 1)), bk);
  if (s <= best || chunk < (best > 1 ? std::max(split_min_chunk(device), bk) : kOccupancyMinChunk) ||
      outputs * double(s) * double(element_bytes) > double(kMaxWorkspaceBytes))
    return best;
  return ceil_div(p.K, chunk);
}

// The share of its tiles that C fills.
double filled(const GemmProblem& p, const GemmTile& t) {
  return double(p.M) * double(p.N) /
         (double(round_up(p.M, static_cast<std::size_t>(t.bm))) *
          double(round_up(p.N, static_cast<std::size_t>(t.bn))));
}

// The tiles for C: the size class's, unless C would fill less than kTileFill of them; then the
// largest of the device's other size classes' tiles and GemmTile{} that C fills that well,
// else the one it fills most.
const GemmTileChoice* tile_choice(const std::vector<GemmSizeClass>& classes, const GemmProblem& p,
                                const DeviceInfo& device, const GemmTileChoice& fallback) {
  auto runs = [&](const GemmTileChoice& c) {
    return gemm_params_problem(c.params, 4, p.op_b, device).empty();
  };
  const std::size_t mn = p.M * p.N;
  const GemmTileChoice* chosen = nullptr;
  for (const GemmSizeClass& c : classes)
    if (c.max_mn == 0 || mn <= c.max_mn) {
      chosen = &c.choice;
      break;
    }
  if (chosen && runs(*chosen) && filled(p, chosen->params) >= kTileFill) return chosen;
  std::vector<const GemmTileChoice*> all;
  for (const GemmSizeClass& c : classes)
    if (runs(c.choice)) all.push_back(&c.choice);
  if (runs(fallback)) all.push_back(&fallback);
  const GemmTileChoice* best = nullptr;
  for (const GemmTileChoice* c : all) {
    const double f = filled(p, c->params), area = double(c->params.bm) * c->params.bn;
    if (!best) {
      best = c;
      continue;
    }
    const double bf = filled(p, best->params), barea = double(best->params.bm) * best->params.bn;
    const bool good = f >= kTileFill, bgood = bf >= kTileFill;
    if (good != bgood ? good : good ? area > barea : f > bf) best = c;
  }
  return best ? best : chosen;
}

std::size_t tile_count(const GemmProblem& p, const GemmTile& t) {
  return ceil_div(p.M, static_cast<std::size_t>(t.bm)) * ceil_div(p.N, static_cast<std::size_t>(t.bn)) *
         p.batch;
}

// The smallest of the size classes' tiles (GemmTile{} aside) that C fills well and that are
// smaller than `than`; nullptr when there are none.
const GemmTileChoice* smallest_tiles(const std::vector<GemmSizeClass>& classes, const GemmProblem& p,
                                   const DeviceInfo& device, const GemmTile& than) {
  const GemmTileChoice* best = nullptr;
  auto area = [](const GemmTile& t) { return t.bm * t.bn; };
  for (const GemmSizeClass& c : classes) {
    const GemmTile& t = c.choice.params;
    if (area(t) >= area(than) || filled(p, t) < kTileFill ||
        !gemm_params_problem(t, 4, p.op_b, device).empty())
      continue;
    if (!best || area(t) < area(best->params)) best = &c.choice;
  }
  return best;
}

// The work of one compute unit for tiles `t` and `splits` slices of K (see the rule: few tiles).
// The groups of tiles `t` in `splits` slices one compute unit runs, one after another.
double groups_per_unit(const GemmProblem& p, const GemmTile& t, std::size_t splits,
                       const DeviceInfo& device) {
  return std::ceil(double(tile_count(p, t)) * double(splits) / double(units_of(device)));
}

double unit_work(const GemmProblem& p, const GemmTile& t, std::size_t splits, const DeviceInfo& device) {
  const std::size_t bk = static_cast<std::size_t>(t.bk);
  const std::size_t chunk = round_up(ceil_div(p.K, splits), bk);
  const double waves = groups_per_unit(p, t, splits, device);
  const double steps = double(ceil_div(chunk, bk)) + group_overhead_steps(device) +
                       (splits > 1 ? reduce_launch_steps(device) : 0.0);
  return waves * steps * double(t.bm) * double(t.bn);
}

// How fast one GPU compute unit runs tiles `t` when `groups` of them are its share, relative to
// the largest tiles with enough work in flight: the multiply-adds per shared-memory value a
// work-item reads (TM TN / (TM + TN)) set the kernel's pace, and a unit whose resident groups hold
// fewer than kOccupancyAccumulators accumulators between them (independent multiply-adds per step
// of k) runs that much slower (kOccupancyAccumulators).
double unit_speed(const GemmTile& t, double groups, const DeviceInfo& device) {
  const double reuse = double(t.tm) * double(t.tn) / double(std::max(1, t.tm + t.tn));
  const double pace = std::min(1.0, kTilePaceBase + kTilePacePerReuse * reuse);
  const double resident = std::min(groups, double(resident_groups(t, device, 4)));
  const double accumulators = double(std::max(1, t.threads())) * double(t.tm) * double(t.tn);
  return pace * std::min(1.0, resident * accumulators / kOccupancyAccumulators);
}

// Tiles `t` turned on their side: BM and BN, TM and TN swapped, WX at most the new row of
// work-items. A class's 128 x 256 tiles fill an 8192 x 128 C only half; as 256 x 128 they fill it
// (kTransposedTilesAccumulators has the measurements).
GemmTile transposed_tiles(const GemmTile& t) {
  GemmTile r = t;
  std::swap(r.bm, r.bn);
  std::swap(r.tm, r.tn);
  r.wx = std::min(r.wx, std::max(1, r.bn / std::max(1, r.tn)));
  return r;
}

// The estimated time of one unit for tiles `t` in `splits` slices: unit_work over unit_speed.
double unit_time(const GemmProblem& p, const GemmTile& t, std::size_t splits, const DeviceInfo& device) {
  return unit_work(p, t, splits, device) / unit_speed(t, groups_per_unit(p, t, splits, device), device);
}

// The kernel that carries out `plan` on `device`, and its flags (rule step 5): matmul and tiled
// plans of float and double become tiled_cpu on CPU devices; the vector flags from the operands'
// alignment.
void set_kernel_flags(GemmPlan& plan, const DeviceInfo& device, const GemmProblem& p) {
  const bool ta = p.op_a == Op::transpose, tb = p.op_b == Op::transpose;
  const bool f32 = p.type == ScalarType::f32;
  const bool cpu = device.kind == DeviceKind::cpu;
  // Runs along k (A none, B transpose) are read element by element on CPUs (see the rule).
  const bool vec_a = f32 && p.aligned_a && (!cpu || ta);
  const bool vec_b = f32 && p.aligned_b && (!cpu || !tb);
  const bool vec_c = f32 && p.aligned_c;
  switch (plan.kernel) {
    case GemmKernel::matmul:
    case GemmKernel::tiled:
      if (!is_storage_only(p.type) && uses_cpu_form(device)) {
        plan.kernel = GemmKernel::tiled_cpu;
        plan.beta_zero = p.beta_zero || plan.splits > 1;
      } else if (plan.kernel == GemmKernel::matmul) {
        // matmul.duet reads in float4s whatever rows hold whole ones (a plain product's are compact).
        plan.vec_a = p.K % 4 == 0;
        plan.vec_b = plan.vec_c = p.N % 4 == 0;
      } else {
        plan.vec_a = vec_a, plan.vec_b = vec_b, plan.vec_c = vec_c;
      }
      break;
    case GemmKernel::gemv_dot:
    case GemmKernel::gemv_axpy: {
      // The matrix is A when N == 1, else B; the vector, the other, is read in float4s by gemv_dot
      // where its elements are adjacent (B transposed, A not).
      const bool on_a = p.N == 1;
      const bool dot = plan.kernel == GemmKernel::gemv_dot;
      (on_a ? plan.vec_a : plan.vec_b) = on_a ? vec_a : vec_b;
      (on_a ? plan.vec_b : plan.vec_a) = dot && (on_a ? tb && vec_b : !ta && vec_a);
      break;
    }
    default:
      break;
  }
}

// The tensor kernel's plan (rule step 2a): one slice, the large tiles unless they would leave
// compute units idle.
GemmPlan plan_tensor(const DeviceInfo& device, const GemmProblem& p, const std::string& why) {
  GemmPlan plan;
  plan.kernel = GemmKernel::tensor;
  plan.tf32 = p.type == ScalarType::f32;
  plan.tensor = tensor_tile(p.type, device);
  plan.source = "tensor_tile()";
  const auto tiles = [&](const TensorTile& t) {
    return ceil_div(p.M, std::size_t(t.bm)) * ceil_div(p.N, std::size_t(t.bn)) * p.batch;
  };
  // The Intel form first: emulated, it takes local memory of its own, which the tiles must leave.
  const int intel = is_storage_only(p.type) ? intel_matrix_form(device) : 0;
  plan.tensor.intel = intel;
  if (tiles(plan.tensor) < units_of(device) ||
      !tensor_tile_problem(plan.tensor, p.type, p.op_a, p.op_b, device).empty()) {
    plan.tensor = tensor_small_tile(p.type);
    plan.tensor.intel = intel;
    plan.source = "tensor_small_tile()";
  }
  if (std::optional<TensorTile> asked = tensor_tile_from_env()) {
    asked->intel = intel;
    const std::string problem = tensor_tile_problem(*asked, p.type, p.op_a, p.op_b, device);
    if (!problem.empty())
      throw ArgumentError("gemm: DUET_GEMM_TC_TILE=" + to_string(*asked) + " cannot run here: " + problem +
                          "; unset it, or give tiles that fit");
    plan.tensor = *asked;
    plan.source = "DUET_GEMM_TC_TILE";
  }
  plan.k_chunk = p.K;
  plan.bulk_m = p.M, plan.bulk_n = p.N;
  plan.vec_a = p.runs_a, plan.vec_b = p.runs_b;  // cp.async of whole 16-byte runs
  std::ostringstream reason;
  reason << why << ": " << tiles(plan.tensor) << " tiles of " << plan.tensor.bm << "x" << plan.tensor.bn
         << "x" << plan.tensor.bk << ", warps of " << plan.tensor.wm << "x" << plan.tensor.wn << ", "
         << plan.tensor.stages << " stages, " << (plan.tf32 ? "TF32" : to_string(p.type));
  if (plan.tensor.intel != 0)
    reason << " through Intel's subgroup matrix multiply-accumulate, sub-groups of " << plan.tensor.intel
           << (static_cast<int>(device.intel_matrix_subgroup) == plan.tensor.intel ? "" : " (emulated)");
  else
    reason << (!tensor_cores(device)      ? " in the portable form"
               : device.backend == "cuda" ? " on tensor cores"
                                          : " on tensor cores through inline PTX");
  plan.reason = reason.str();
  return plan;
}

// The problem the warpgroup kernel would see: `p` with its MN-major operands made K-major where
// they are to be copied so first (TF32, which the instructions read K-major only, or
// DUET_GEMM_WGMMA_KMAJOR=1 for 16-bit inputs), the copies in whole tiles and within
// kWgmmaCopyLimit bytes.
struct WgmmaOperands {
  GemmProblem problem;
  bool copy_a = false, copy_b = false;
};

WgmmaOperands wgmma_operands(const GemmProblem& p, bool tf32) {
  WgmmaOperands w{p};
  const bool tf32_float = p.type == ScalarType::f32 && tf32;
  if (!(tf32_float || (is_storage_only(p.type) && wgmma_kmajor_by_rule()))) return w;
  const std::size_t bk = std::size_t(WgmmaTile::bk_of(p.type)), bytes = size_of(p.type);
  if (p.M % WgmmaTile::bm || p.N % 128 || p.K % bk) return w;  // not whole tiles: no wgmma anyway
  const std::size_t a_bytes = p.op_a == Op::transpose ? p.batch * p.M * p.K * bytes : 0;
  const std::size_t b_bytes = p.op_b == Op::none ? p.batch * p.N * p.K * bytes : 0;
  if (a_bytes + b_bytes == 0 || a_bytes + b_bytes > kWgmmaCopyLimit) return w;
  if (a_bytes) w.problem.op_a = Op::none, w.problem.runs_a = true, w.copy_a = true;
  if (b_bytes) w.problem.op_b = Op::transpose, w.problem.runs_b = true, w.copy_b = true;
  return w;
}

// The warpgroup kernel's plan (rule step 2a'): one slice, whole tiles.
GemmPlan plan_wgmma(const DeviceInfo& device, const WgmmaOperands& w, const std::string& why) {
  const GemmProblem& p = w.problem;
  GemmPlan plan;
  plan.kernel = GemmKernel::wgmma;
  plan.kmajor_a = w.copy_a, plan.kmajor_b = w.copy_b;
  plan.wgmma = wgmma_tile(p, device);
  plan.source = "wgmma_tile()";
  plan.k_chunk = p.K;
  plan.bulk_m = p.M, plan.bulk_n = p.N;
  plan.vec_a = plan.vec_b = true;
  const std::size_t tiles = (p.M / WgmmaTile::bm) * (p.N / std::size_t(plan.wgmma.bn)) * p.batch;
  std::ostringstream reason;
  plan.tf32 = p.type == ScalarType::f32;
  reason << why << ": " << tiles << " tiles of " << WgmmaTile::bm << "x" << plan.wgmma.bn << "x"
         << WgmmaTile::bk_of(p.type) << " in " << plan.wgmma.stages << " stages, " << (plan.tf32 ? "float as TF32" : to_string(p.type))
         << (wgmma_cores(device) ? " on wgmma (sm_90a)" : " in the wgmma kernel's portable form")
         << (plan.wgmma.tma == 0   ? ""
             : plan.wgmma.tma == 1 ? ", copies by TMA where the batch strides are whole rows"
                                   : ", copies by TMA in persistent blocks where the batch strides are whole rows")
         << (w.copy_a || w.copy_b
                 ? std::string(", ") + (w.copy_a && w.copy_b ? "A and B" : w.copy_a ? "A" : "B") + " copied K-major first"
                 : std::string());
  plan.reason = reason.str();
  return plan;
}

}  // namespace

// sm_90 devices that compile the kernel for sm_90a: CUDA's, and NVIDIA's OpenCL ones where NVRTC
// gives them PTX (their own OpenCL C compiler targets plain sm_90, without these instructions).
bool wgmma_cores(const DeviceInfo& device) {
  return device.arch == "sm_90" && !device.arch_specific_target.empty();
}

// On by default since the kernel has passed the device tests on an sm_90 device; the switch is there
// to compare against the mma.sync kernel.
bool wgmma_by_rule() {
  const char* env = std::getenv("DUET_GEMM_WGMMA");
  return env == nullptr || std::string(env) != "0";
}

// The TMA form (1) by default since it passed the device tests on an sm_90 device and ran faster
// than the cp.async form at every size measured (bench/RESULTS.md); 0 takes the cp.async form, 2
// persistent blocks.
int wgmma_tma_by_rule() {
  const char* env = std::getenv("DUET_GEMM_WGMMA_TMA");
  if (env == nullptr) return 1;
  return std::string(env) == "0" ? 0 : std::string(env) == "2" ? 2 : 1;
}

bool wgmma_kmajor_by_rule() {
  const char* env = std::getenv("DUET_GEMM_WGMMA_KMAJOR");
  return env != nullptr && std::string(env) == "1";
}

std::string wgmma_problem(const GemmProblem& p, bool tf32) {
  std::ostringstream why;
  const bool tf32_float = p.type == ScalarType::f32 && tf32;
  const std::size_t bk = std::size_t(WgmmaTile::bk_of(p.type));
  if (!is_storage_only(p.type) && !tf32_float)
    why << to_string(p.type) << " inputs (half or bfloat16, or float with TF32 allowed)";
  else if (tf32_float && (p.op_a != Op::none || p.op_b != Op::transpose))
    why << "float (TF32) with op_a " << to_string(p.op_a) << " and op_b " << to_string(p.op_b)
        << " (the instructions read TF32 operands K-major only: op_a none, op_b transpose)";
  else if (p.M % WgmmaTile::bm || p.N % 128 || p.K % bk)
    why << shape_text(p) << " is not in whole tiles (M a multiple of 128, N of 128, K of " << bk << ")";
  else if (!p.runs_a || !p.runs_b)
    why << (!p.runs_a ? "A" : "B")
        << " is not in whole 16-byte runs (its start, leading dimension and batch stride 16-byte aligned)";
  return why.str();
}

namespace {

// The most shared memory one block may ask for on sm_90 (227 KiB, with the opt-in attribute).
constexpr std::size_t kWgmmaSharedLimit = 227 * 1024;

// DUET_GEMM_WGMMA_TILE's tiles, or none where it is unset; `tma_given` says whether the string
// names the TMA field (its seventh) or leaves it to the rule.
bool wgmma_tile_from_env(WgmmaTile& t, bool& tma_given) {
  const char* env = std::getenv("DUET_GEMM_WGMMA_TILE");
  if (env == nullptr || *env == '\0') return false;
  const std::string text(env);
  int fields[7] = {t.bn, t.stages, t.group_rows, t.mma_first ? 1 : 0, t.blocks_per_sm, t.ws ? 1 : 0, t.tma};
  std::istringstream in(text);
  int count = 0;
  for (std::string part; count < 7 && std::getline(in, part, ':'); ++count) {
    std::size_t used = 0;
    try {
      fields[count] = std::stoi(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != part.size())
      throw ArgumentError("DUET_GEMM_WGMMA_TILE='" + text + "': '" + part +
                          "' is not a whole number; write BN:STAGES[:GROUP_ROWS[:MMA_FIRST[:BLOCKS_PER_SM[:WS[:TMA]]]]], "
                          "e.g. 128:3:8:0:2");
  }
  std::string rest;
  if (count < 2 || std::getline(in, rest))
    throw ArgumentError("DUET_GEMM_WGMMA_TILE='" + text +
                        "' needs two to seven fields: BN:STAGES[:GROUP_ROWS[:MMA_FIRST[:BLOCKS_PER_SM[:WS[:TMA]]]]], "
                        "e.g. 128:3:8:0:2");
  WgmmaTile w;
  w.bn = fields[0], w.stages = fields[1], w.group_rows = fields[2], w.mma_first = fields[3] != 0;
  w.blocks_per_sm = fields[4], w.ws = fields[5] != 0, w.tma = fields[6];
  if ((w.bn != 128 && w.bn != 256) || w.stages < 3 || w.group_rows < 1 || fields[3] < 0 || fields[3] > 1 ||
      w.blocks_per_sm < 1 || w.blocks_per_sm > 2 || fields[5] < 0 || fields[5] > 1 || fields[6] < 0 ||
      fields[6] > 2)
    throw ArgumentError("DUET_GEMM_WGMMA_TILE='" + text +
                        "': BN must be 128 or 256, STAGES 3 or more, GROUP_ROWS 1 or more, MMA_FIRST 0 or 1, "
                        "BLOCKS_PER_SM 1 or 2, WS 0 or 1, TMA 0, 1 or 2");
  if (w.ws && w.tma)
    throw ArgumentError("DUET_GEMM_WGMMA_TILE='" + text +
                        "': TMA 1 or 2 is warp-specialized itself (its copies issued by one thread); WS must be 0");
  if ((w.ws || w.tma) && w.blocks_per_sm > 1)
    throw ArgumentError("DUET_GEMM_WGMMA_TILE='" + text + "': a warp-specialized block (WS 1 or TMA 1, 2) fills a "
                        "multiprocessor's registers alone; BLOCKS_PER_SM must be 1");
  if (w.blocks_per_sm > 1 && w.bn != 128)
    throw ArgumentError("DUET_GEMM_WGMMA_TILE='" + text +
                        "': two blocks per multiprocessor need BN 128 (BN 256 holds 128 accumulators a thread)");
  if (wgmma_shared_bytes(w) * std::size_t(w.blocks_per_sm) > kWgmmaSharedLimit)
    throw ArgumentError("DUET_GEMM_WGMMA_TILE='" + text + "' needs " +
                        std::to_string(wgmma_shared_bytes(w) * std::size_t(w.blocks_per_sm)) +
                        " bytes of shared memory per multiprocessor, more than the " +
                        std::to_string(kWgmmaSharedLimit) + " an sm_90 one offers a block; use fewer stages");
  t = w;
  tma_given = count == 7;
  return true;
}

}  // namespace

WgmmaTile wgmma_tile(const GemmProblem& p, const DeviceInfo& device) {
  WgmmaTile t;
  const std::size_t wide_tiles = (p.M / WgmmaTile::bm) * (p.N / 256) * p.batch;
  if (p.N % 256 || wide_tiles < units_of(device)) t.bn = 128, t.stages = 6;
  WgmmaTile forced;
  bool tma_given = false;
  if (wgmma_tile_from_env(forced, tma_given) && p.N % static_cast<std::size_t>(forced.bn) == 0)
    t = forced;
  else
    tma_given = false;
  // The tensor maps' copies exist on CUDA sm_90 alone; elsewhere the knob changes nothing. Tiles
  // that leave the TMA field out take the rule's, unless they ask for what TMA excludes (WS 1, two
  // blocks per multiprocessor).
  if (!wgmma_cores(device) || device.backend != "cuda")  // tensor maps come from CUDA's driver
    t.tma = 0;
  else if (!tma_given && !t.ws && t.blocks_per_sm == 1)
    t.tma = wgmma_tma_by_rule();
  return t;
}

std::size_t wgmma_shared_bytes(const WgmmaTile& t) {
  const std::size_t stage = (std::size_t(WgmmaTile::bm) + std::size_t(t.bn)) * WgmmaTile::bk_bytes;
  return std::size_t(t.stages) * stage + 1024;
}

bool tf32_allowed(const GemmOptions& options) {
  if (options.allow_tf32) return true;
  const char* env = std::getenv("DUET_ALLOW_TF32");
  return env && std::strcmp(env, "1") == 0;
}

namespace {

// The compute capability of an NVIDIA device (80 for "sm_80"), 0 for any other arch.
int nv_arch(const DeviceInfo& device) {
  if (device.arch.rfind("sm_", 0) != 0) return 0;
  return std::atoi(device.arch.c_str() + 3);
}

// Whether gemm_tc.duet's inline PTX compiles on an OpenCL device: the OpenCL backend defines
// DUET_NV_ARCH for NVIDIA's devices unless DUET_OPENCL_PTX=0 (backends/opencl/device.cpp); the
// plan follows the same switch, so the kernel it picks is the one that compiles.
bool opencl_ptx() {
  const char* env = std::getenv("DUET_OPENCL_PTX");
  return !(env && std::strcmp(env, "0") == 0);
}

}  // namespace

bool tensor_cores(const DeviceInfo& device) {
  if (nv_arch(device) < 80) return false;
  if (device.backend == "cuda") return true;
  // The arch says sm_ only from NVIDIA's attribute query; the vendor too, to be sure.
  return device.backend == "opencl" && device.vendor.find("NVIDIA") != std::string::npos && opencl_ptx();
}

int intel_matrix_form(const DeviceInfo& device) {
  if (device.backend != "opencl") return 0;
  const char* env = std::getenv("DUET_GEMM_TC_INTEL");
  if (!env || !*env) return static_cast<int>(device.intel_matrix_subgroup);
  const std::string asked = env;
  if (asked == "0") return 0;
  if (asked == "8" || asked == "16") return std::stoi(asked);
  throw ArgumentError(
      "DUET_GEMM_TC_INTEL='" + asked +
      "': give 8 or 16 (the tensor kernel's Intel form with sub-groups of that size, emulated "
      "where the device lacks it), 0 (off), or leave it unset (the device's)");
}

std::string to_string(const TensorTile& t) {
  std::ostringstream s;
  s << t.bm << "x" << t.bn << "x" << t.bk << ":" << t.wm << "x" << t.wn << ":" << t.stages;
  if (t.swizzle) s << ":1";
  return s.str();
}

TensorTile tensor_tile(ScalarType type) {
  TensorTile t;
  if (type == ScalarType::f32) t.bk = 16;
  return t;
}

TensorTile tensor_tile(ScalarType type, const DeviceInfo& device) {
  if (device.backend != "cuda" || !tensor_cores(device)) return tensor_tile(type);
  // Warps of 64 x 64 read 8 fragments through ldmatrix for 32 instructions (64 x 32: 6 for 16),
  // and a 128 x 256 block reads each slice's bytes for twice the products of 128 x 128; 3 stages
  // keep two slices in flight behind the one multiplied (79.5 KiB, within the 99 KiB an sm_86 or
  // sm_89 block may have).
  TensorTile t;
  t.bm = 128, t.bn = 256, t.wm = 64, t.wn = 64, t.stages = 3;
  t.bk = type == ScalarType::f32 ? 16 : 32;
  return t;
}

TensorTile tensor_small_tile(ScalarType type) {
  TensorTile t;
  t.bm = 64, t.bn = 64, t.wm = 32, t.wn = 32, t.stages = 3;
  if (type == ScalarType::f32) t.bk = 16;
  return t;
}

std::size_t tensor_shared_bytes(const TensorTile& t, ScalarType type, Op op_a, Op op_b) {
  const std::size_t elem = type == ScalarType::f32 ? 4 : 2, run = 16 / elem;
  const std::size_t bm = std::size_t(t.bm), bn = std::size_t(t.bn), bk = std::size_t(t.bk);
  const std::size_t pad_k = t.swizzle ? 0 : run, pad_mn = t.swizzle ? 0 : 8;  // per row (gemm_tc.duet)
  const std::size_t a = op_a == Op::transpose ? bk * (bm + pad_mn) : bm * (bk + pad_k);
  const std::size_t b = op_b == Op::transpose ? bn * (bk + pad_k) : bk * (bn + pad_mn);
  return std::size_t(std::max(t.stages, 0)) * (a + b) * elem;
}

std::size_t tensor_shared_limit(const DeviceInfo& device) {
  if (device.backend == "cuda" && nv_arch(device) >= 80) {
    // What one block may opt into: sm_80 and sm_87 163 KiB, sm_90 227 KiB, the rest of sm_8x 99.
    const int arch = nv_arch(device);
    if (arch == 80 || arch == 87) return 163 * 1024;
    if (arch >= 90) return 227 * 1024;
    return 99 * 1024;
  }
  return device.local_memory_bytes > 0 ? device.local_memory_bytes : 48 * 1024;
}

std::size_t tensor_exchange_bytes(const TensorTile& t, const DeviceInfo& device) {
  const bool emulated = t.intel != 0 && static_cast<int>(device.intel_matrix_subgroup) != t.intel;
  return emulated ? std::size_t(t.threads()) * 8 * sizeof(int) : 0;
}

std::string tensor_tile_problem(const TensorTile& t, ScalarType type, Op op_a, Op op_b,
                                const DeviceInfo& device) {
  std::ostringstream why;
  const std::size_t bytes = tensor_shared_bytes(t, type, op_a, op_b) + tensor_exchange_bytes(t, device);
  const std::size_t limit = tensor_shared_limit(device);
  if (t.swizzle && type == ScalarType::f32)
    why << to_string(t) << " is swizzled, which is for half and bfloat16; TF32 reads float from padded rows";
  else if (bytes > limit)
    why << to_string(t) << " takes " << bytes << " bytes of shared memory for " << to_string(type)
        << " (op_a " << to_string(op_a) << ", op_b " << to_string(op_b) << "), but " << device.name << " ("
        << device.backend << ") has " << limit;
  else if (device.max_group_size > 0 && std::size_t(t.threads()) > device.max_group_size)
    why << to_string(t) << " has " << t.threads() << " threads a block, but " << device.name
        << " takes at most " << device.max_group_size;
  return why.str();
}

TensorTile parse_tensor_tile(const std::string& text) {
  TensorTile t;
  char x1 = 0, x2 = 0, c1 = 0, x3 = 0, c2 = 0, c3 = 0;
  int used = 0, swizzle = 0;
  const int fields = std::sscanf(text.c_str(), "%d%c%d%c%d%c%d%c%d%c%d%n", &t.bm, &x1, &t.bn, &x2, &t.bk, &c1,
                                 &t.wm, &x3, &t.wn, &c2, &t.stages, &used);
  bool read = fields == 11 && x1 == 'x' && x2 == 'x' && c1 == ':' && x3 == 'x' && c2 == ':';
  if (read && used != static_cast<int>(text.size())) {  // ":SWIZZLE" after the stages
    int more = 0;
    read = std::sscanf(text.c_str() + used, "%c%d%n", &c3, &swizzle, &more) == 2 && c3 == ':' &&
           used + more == static_cast<int>(text.size());
  }
  const std::string form = "'" + text + "' as tensor tiles: ";
  if (!read)
    throw ArgumentError(
        form + "give BMxBNxBK:WMxWN:STAGES[:SWIZZLE], e.g. 128x256x32:64x64:3 or 128x128x32:64x32:3:1");
  if (swizzle != 0 && swizzle != 1) throw ArgumentError(form + "SWIZZLE must be 0 or 1");
  t.swizzle = swizzle == 1;
  if (t.bm <= 0 || t.bn <= 0 || t.bk <= 0 || t.wm <= 0 || t.wn <= 0)
    throw ArgumentError(form + "every size must be positive");
  if (t.wm % 16 || t.wn % 16 || t.bk % 16)
    throw ArgumentError(form + "WM, WN and BK must be multiples of 16 (the instructions' fragments)");
  if (t.bm % t.wm || t.bn % t.wn)
    throw ArgumentError(form + "BM and BN must be multiples of WM and WN (whole warps)");
  if (t.stages < 2 || t.stages > 8) throw ArgumentError(form + "STAGES must be 2 to 8");
  if (t.threads() > 1024)
    throw ArgumentError(form + std::to_string(t.threads()) +
                        " threads a block ((BM/WM) (BN/WN) warps of 32); at most 1024");
  return t;
}

std::optional<TensorTile> tensor_tile_from_env() {
  const char* env = std::getenv("DUET_GEMM_TC_TILE");
  if (!env || !*env) return std::nullopt;
  try {
    return parse_tensor_tile(env);
  } catch (const ArgumentError& e) {
    throw ArgumentError(std::string("DUET_GEMM_TC_TILE: ") + e.what());
  }
}

bool uses_cpu_form(const DeviceInfo& device) { return device.kind == DeviceKind::cpu; }

bool gemm_swizzles_b(const GemmTile& p, Op op_b) {
  return op_b == Op::transpose && p.bn % 32 == 0 && p.tn > 0 && (p.bn / p.tn) % 8 == 0;
}

std::size_t split_min_chunk(const DeviceInfo& device) {
  return device.kind == DeviceKind::gpu ? kSplitMinChunkGpu : kSplitMinChunk;
}

int reduce_lanes(const DeviceInfo& device, std::size_t outputs, int splits) {
  if (device.kind != DeviceKind::gpu || splits < 2) return 1;
  const std::size_t wanted = units_of(device) * kReduceItemsPerUnit;
  int lanes = 1;
  while (lanes * 2 <= std::min(kReduceMaxLanes, splits) && outputs * std::size_t(lanes * 2) <= wanted)
    lanes *= 2;
  return lanes;
}

const char* to_string(Op op) { return op == Op::none ? "none" : "transpose"; }

const char* to_string(GemmPath path) {
  switch (path) {
    case GemmPath::automatic:
      return "automatic";
    case GemmPath::tiled:
      return "tiled";
    case GemmPath::split_k:
      return "split_k";
    case GemmPath::gemv:
      return "gemv";
    case GemmPath::tensor:
      return "tensor";
    case GemmPath::wgmma:
      return "wgmma";
  }
  return "?";
}

const char* to_string(GemmKernel kernel) {
  switch (kernel) {
    case GemmKernel::none:
      return "none";
    case GemmKernel::scale:
      return "scale";
    case GemmKernel::matmul:
      return "matmul";
    case GemmKernel::tiled:
      return "tiled";
    case GemmKernel::tiled_cpu:
      return "tiled_cpu";
    case GemmKernel::gemv_dot:
      return "gemv_dot";
    case GemmKernel::gemv_axpy:
      return "gemv_axpy";
    case GemmKernel::tensor:
      return "tensor";
    case GemmKernel::wgmma:
      return "wgmma";
  }
  return "?";
}

GemmTile tiny_params() {
  GemmTile p;
  p.bm = 32, p.bn = 32, p.bk = 32, p.tm = 4, p.tn = 4, p.wx = 8, p.pipeline = 1;
  return p;
}

GemmTile double_params(const DeviceInfo& device) {
  GemmTile p;
  if (device.kind == DeviceKind::gpu) {
    p.bm = 64, p.bn = 64, p.bk = 8, p.tm = 4, p.tn = 4, p.wx = 16, p.pipeline = 1;
  } else {
    // gemm_cpu.duet: 4 rows of one double8 a work-item.
    p.bm = 64, p.bn = 64, p.bk = 16, p.tm = 4, p.tn = 8, p.wx = 8, p.pipeline = 0;
  }
  return p;
}

int resident_groups(const GemmTile& p, const DeviceInfo& device, std::size_t element_bytes) {
  if (device.kind != DeviceKind::gpu) return 1;
  const long registers = 2L * p.tm * p.tn * long(std::max<std::size_t>(element_bytes, 4) / 4) + 32;
  const long threads = std::max(1, p.threads());
  return static_cast<int>(std::clamp(65536L / (threads * registers), 1L, 4L));
}

std::size_t gemm_shared_bytes(const GemmTile& p, std::size_t element_bytes, Op op_b) {
  if (p.bm <= 0 || p.bn <= 0 || p.bk <= 0 || p.tn <= 0) return 0;
  // gemm.duet: two buffers of the A slice (BM/4 vectors of 4 per k, one more where not swizzled)
  // and of the B slice (BN/4 per k; one more where B is transposed and not swizzled).
  const std::size_t a_row = static_cast<std::size_t>(p.bm) / 4 + (p.swizzles_a() ? 0 : 1);
  const std::size_t b_row =
      static_cast<std::size_t>(p.bn) / 4 + (op_b == Op::transpose && !gemm_swizzles_b(p, op_b) ? 1 : 0);
  return 2 * static_cast<std::size_t>(p.bk) * (a_row + b_row) * 4 * element_bytes;
}

std::string gemm_params_problem(const GemmTile& p, std::size_t element_bytes, Op op_b,
                                const DeviceInfo& device) {
  DeviceInfo no_memory_limit = device;
  no_memory_limit.local_memory_bytes = 0;  // checked below with gemm.duet's layout
  std::string problem = gemm_tile_problem(p, no_memory_limit);
  if (!problem.empty()) return problem;
  const std::size_t bytes = gemm_shared_bytes(p, element_bytes, op_b);
  if (device.local_memory_bytes > 0 && bytes > device.local_memory_bytes)
    return to_string(p) + ": " + std::to_string(bytes) + " bytes of shared memory for gemm (" +
           std::to_string(element_bytes) + "-byte arithmetic, op_b " + to_string(op_b) + "), but " +
           device.name + " has " + std::to_string(device.local_memory_bytes);
  return {};
}

GemmPlan plan_gemm(const DeviceInfo& device, const std::vector<GemmSizeClass>& classes,
                   const GemmProblem& p, const GemmOptions& options) {
  GemmPlan plan;
  if (p.M == 0 || p.N == 0 || p.batch == 0) {
    plan.reason = "nothing to compute (" + shape_text(p) + ")";
    return plan;
  }
  if (p.K == 0 || p.alpha_zero) {
    plan.kernel = GemmKernel::scale;
    plan.reason = p.K == 0 ? "K == 0: C = beta C" : "alpha == 0: C = beta C";
    return plan;
  }
  if (options.splits < 0 || options.splits > kMaxSplits)
    throw ArgumentError("gemm: GemmOptions::splits = " + std::to_string(options.splits) + " is not in [0, " +
                        std::to_string(kMaxSplits) + "]");
  const bool vector = p.M == 1 || p.N == 1;
  // Tensor cores (step 2a): half and bfloat16 inputs, float with TF32 allowed; half or bfloat16
  // into a float C only there.
  const bool mixed = p.c_type != ScalarType::unknown && p.c_type != p.type;
  if (mixed && !(is_storage_only(p.type) && p.c_type == ScalarType::f32))
    throw ArgumentError(std::string("gemm: ") + to_string(p.type) + " inputs into a " + to_string(p.c_type) +
                        " C: only half or bfloat16 inputs may have a C of another type (float)");
  const bool tensor_type = is_storage_only(p.type) || (p.type == ScalarType::f32 && options.allow_tf32);
  if (options.path == GemmPath::tensor && !tensor_type)
    throw ArgumentError(std::string("gemm: GemmPath::tensor takes half or bfloat16 inputs, or float with "
                                    "GemmOptions::allow_tf32 (or DUET_ALLOW_TF32=1), not ") +
                        to_string(p.type));
  if (mixed && options.path != GemmPath::automatic && options.path != GemmPath::tensor &&
      options.path != GemmPath::wgmma)
    throw ArgumentError(std::string("gemm: ") + to_string(p.type) +
                        " inputs into a float C run only the tensor kernels; GemmPath::" +
                        to_string(options.path) + " cannot");
  // What the warpgroup kernel would read: MN-major operands copied K-major first where TF32 needs
  // it (or DUET_GEMM_WGMMA_KMAJOR asks) and the copies fit.
  const WgmmaOperands w = wgmma_operands(p, options.allow_tf32);
  if (options.path == GemmPath::wgmma) {
    const std::string problem = wgmma_problem(w.problem, options.allow_tf32);
    if (!problem.empty())
      throw ArgumentError("gemm: GemmPath::wgmma cannot take this call: " + problem +
                          "; leave the path automatic, and such calls run the tensor kernel");
    return plan_wgmma(device, w, "wgmma asked for");
  }
  if (options.path == GemmPath::tensor) return plan_tensor(device, p, "tensor asked for");
  // Warpgroup instructions (step 2a'): whole tiles of half or bfloat16 (or float as TF32, read
  // K-major) on sm_90.
  const bool wgmma = options.path == GemmPath::automatic && !options.params && wgmma_cores(device) &&
                     wgmma_by_rule() && !vector && wgmma_problem(w.problem, options.allow_tf32).empty();
  if (wgmma) return plan_wgmma(device, w, device.arch + " has warpgroup matrix instructions");
  if (mixed) return plan_tensor(device, p, std::string(to_string(p.type)) + " inputs into a float C");
  if (options.path == GemmPath::automatic && tensor_type && !vector && !options.params &&
      tensor_cores(device))
    return plan_tensor(device, p,
                       device.arch + (device.backend == "cuda" ? " has tensor cores"
                                                               : " has tensor cores (inline PTX in OpenCL)"));
  if (options.path == GemmPath::automatic && is_storage_only(p.type) && !vector && !options.params &&
      intel_matrix_form(device) != 0)
    return plan_tensor(device, p, "Intel's subgroup matrix multiply-accumulate");
  if (options.path == GemmPath::gemv && !vector)
    throw ArgumentError("gemm: GemmPath::gemv needs M == 1 or N == 1, not " + shape_text(p));
  if (options.path == GemmPath::gemv || (options.path == GemmPath::automatic && vector)) {
    plan = plan_gemv(device, p, options);
    set_kernel_flags(plan, device, p);
    return plan;
  }

  // Tiled: parameters from the size class of M * N, forced ones, or the double tiles.
  const std::size_t element_bytes = p.type == ScalarType::f64 ? 8 : 4;
  if (options.params) {
    const std::string problem = gemm_params_problem(*options.params, element_bytes, p.op_b, device);
    if (!problem.empty()) throw ArgumentError("gemm: parameters not usable: " + problem);
    plan.params = *options.params;
    plan.source = "GemmOptions::params";
  } else if (p.type == ScalarType::f64) {
    plan.params = double_params(device);
    plan.source = "double_params()";
  } else {
    static const GemmTileChoice fallback{GemmTile{}, "GemmTile{} (small tiles)"};
    if (const GemmTileChoice* chosen = tile_choice(classes, p, device, fallback)) {
      plan.params = chosen->params;
      plan.source = chosen->source;
    } else {
      plan.source = "default";
    }
  }
  if (!options.params && !gemm_params_problem(plan.params, element_bytes, p.op_b, device).empty()) {
    plan.source = "default (" + gemm_params_problem(plan.params, element_bytes, p.op_b, device) + ")";
    plan.params = GemmTile{};
  }

  std::ostringstream why;
  std::size_t splits = 1;
  // Tiny products on OpenCL GPUs: the launch is most of their time (see the rule).
  const bool tiny = options.path == GemmPath::automatic && !options.params && p.type != ScalarType::f64 &&
                    device.kind == DeviceKind::gpu && device.backend == "opencl" &&
                    double(p.M) * double(p.N) * double(p.K) * double(p.batch) <= kTinyProductFlops &&
                    gemm_params_problem(tiny_params(), element_bytes, p.op_b, device).empty();
  if (tiny) {
    plan.params = tiny_params();
    plan.source = "tiny_params()";
    why << "tiny product: " << tile_count(p, plan.params) << " tiles of 32x32x32, one slice";
  } else if (options.path == GemmPath::split_k) {
    splits = options.splits > 0 ? static_cast<std::size_t>(options.splits)
                                : best_split(p, plan.params, element_bytes, device, true);
    why << "split-K asked for";
  } else if (options.path == GemmPath::automatic) {
    splits = best_split(p, plan.params, element_bytes, device, false);
    const std::size_t tiles = tile_count(p, plan.params);
    why << tiles << " tiles of " << plan.params.bm << "x" << plan.params.bn << " for "
        << units_of(device) * resident_groups(plan.params, device, element_bytes) << " group slots";
    // Few tiles: smaller ones, with their own split, where the estimate says they fill the device
    // better.
    const GemmTileChoice* smaller = nullptr;
    if (!options.params && p.type != ScalarType::f64 && 2 * tiles < units_of(device))
      smaller = smallest_tiles(classes, p, device, plan.params);
    if (smaller) {
      const std::size_t smaller_splits = best_split(p, smaller->params, element_bytes, device, false);
      const double work = unit_work(p, plan.params, splits, device);
      const double smaller_work = unit_work(p, smaller->params, smaller_splits, device);
      if (smaller_work <= kSplitGain * work) {
        why << "; few tiles: " << tile_count(p, smaller->params) << " of " << smaller->params.bm << "x"
            << smaller->params.bn << " instead (estimate " << smaller_work / work << " of theirs)";
        plan.params = smaller->params;
        plan.source = smaller->source;
        splits = smaller_splits;
      }
    }
    // Large float products (GPUs): every class's tiles that C fills well, each with its own split,
    // by estimated time (unit_time), which counts the tiles' pace and the unit's occupancy.
    if (!options.params && p.type != ScalarType::f64 && device.kind == DeviceKind::gpu &&
        double(p.M) * double(p.N) * double(p.K) * double(p.batch) >= kPacedProblemFlops) {
      double best = unit_time(p, plan.params, splits, device);
      std::vector<std::pair<GemmTile, std::string>> candidates;
      // Largest classes first: a later candidate must beat the best by kPaceGain, so near ties
      // keep the larger tiles (1000^3: 128 x 256 in 4 slices, not 128 x 128 in 2).
      for (auto it = classes.rbegin(); it != classes.rend(); ++it) {
        const GemmSizeClass& c = *it;
        candidates.emplace_back(c.choice.params, c.choice.source);
        const GemmTile& t = c.choice.params;
        if ((t.bm != t.bn || t.tm != t.tn) && t.tm * t.tn >= kTransposedTilesAccumulators)
          candidates.emplace_back(transposed_tiles(t), c.choice.source + ", transposed");
      }
      for (const auto& [t, source] : candidates) {
        if (t == plan.params || filled(p, t) < kTileFill ||
            !gemm_params_problem(t, element_bytes, p.op_b, device).empty())
          continue;
        // NVIDIA's OpenCL runs smaller tiles of element-wise loads (rows not in whole vectors of
        // 4) far below their pace. There, smaller tiles only where every row holds whole vectors.
        const bool whole_vectors = p.M % 4 == 0 && p.N % 4 == 0 && p.K % 4 == 0;
        if (device.backend == "opencl" && !whole_vectors && t.bm * t.bn < plan.params.bm * plan.params.bn)
          continue;
        const std::size_t s = best_split(p, t, element_bytes, device, false);
        const double time = unit_time(p, t, s, device);
        if (time < kPaceGain * best) {
          why << "; " << tile_count(p, t) * s << " groups of " << t.bm << "x" << t.bn
              << " instead (estimated time " << time / best << " of the others)";
          best = time;
          plan.params = t;
          plan.source = source;
          splits = s;
        }
      }
    }
    if (splits > 1) why << ", K split";
  } else {
    why << (options.path == GemmPath::tiled ? "tiled asked for" : "tiled");
  }
  plan.k_chunk = round_up(ceil_div(p.K, splits), static_cast<std::size_t>(plan.params.bk));
  plan.splits = static_cast<int>(ceil_div(p.K, plan.k_chunk));
  if (plan.splits == 1) plan.k_chunk = p.K;
  if (plan.splits > 1) plan.workspace_elements = static_cast<std::size_t>(plan.splits) * p.batch * p.M * p.N;
  plan.kernel = plan.splits == 1 && p.plain && options.path == GemmPath::automatic ? GemmKernel::matmul
                                                                                   : GemmKernel::tiled;
  set_kernel_flags(plan, device, p);
  if (plan.kernel == GemmKernel::matmul) why << "; plain product: duet::matmul's kernel";
  if (plan.kernel == GemmKernel::tiled_cpu) why << "; CPU device: gemm_cpu.duet";
  // gemm.duet's software pipeline loses to plain double buffering where a work-item holds
  // kUnpipelinedAccumulators or more (its registers run out); duet::matmul's kernel, with fewer
  // live values, keeps it.
  if (plan.kernel == GemmKernel::tiled && !options.params && device.kind == DeviceKind::gpu &&
      plan.params.pipeline && plan.params.tm * plan.params.tn >= kUnpipelinedAccumulators) {
    plan.params.pipeline = 0;
    why << "; unpipelined (" << plan.params.tm * plan.params.tn << " accumulators per work-item)";
  }
  // Thin edges apart (step 6), measured against the tiles the plan took.
  plan.bulk_m = p.M, plan.bulk_n = p.N;
  const std::size_t bm = static_cast<std::size_t>(plan.params.bm),
                    bn = static_cast<std::size_t>(plan.params.bn);
  const std::size_t edge_m = p.M % bm, edge_n = p.N % bn;
  const bool forced = options.params || options.path != GemmPath::automatic;
  const bool thin_m =
      edge_m > 0 && p.M > bm && (options.edges == GemmEdges::apart || edge_m * kThinEdgeDivisor <= bm);
  const bool thin_n =
      edge_n > 0 && p.N > bn && (options.edges == GemmEdges::apart || edge_n * kThinEdgeDivisor <= bn);
  const std::size_t bulk_m = thin_m ? p.M - edge_m : p.M, bulk_n = thin_n ? p.N - edge_n : p.N;
  const bool rule = !forced && device.kind == DeviceKind::gpu &&
                    double(bulk_m) * double(bulk_n) * double(p.K) * double(p.batch) >= kEdgesApartFlops;
  if ((thin_m || thin_n) &&
      (options.edges == GemmEdges::apart || (options.edges == GemmEdges::automatic && rule))) {
    plan.bulk_m = bulk_m, plan.bulk_n = bulk_n;
    why << "; thin edges apart: " << bulk_m << "x" << bulk_n << " in whole tiles";
    if (thin_m) why << ", " << edge_m << " row(s)";
    if (thin_n) why << ", " << edge_n << " column(s)";
    why << " on their own";
  }
  plan.reason = why.str();
  return plan;
}

GemmPlan plan_matmul_with(const DeviceInfo& device, const GemmProblem& problem, const GemmTile& p) {
  GemmPlan plan;
  plan.kernel = GemmKernel::matmul;
  plan.params = p;
  plan.k_chunk = problem.K;
  plan.bulk_m = problem.M, plan.bulk_n = problem.N;
  plan.source = "matmul_with";
  plan.reason = "tiles asked for, one slice";
  set_kernel_flags(plan, device, problem);
  return plan;
}

}  // namespace duet
