// The rule that picks a kernel and its parameters for each duet::gemm call (blas/src/gemm_plan.cpp):
// a pure function of the call's shape, ops and types, a few facts about the device (kind, compute
// units, group and local memory limits) and the tile parameters of the tuning table's size classes,
// so it is unit-tested without a device (tests/test_gemm_plan.cpp) and a benchmark can print it.
//
// The kernels (blas/kernels/):
//   matmul     duet::matmul's kernel (matmul.duet): op none/none, alpha 1, beta 0, compact rows.
//   tiled      gemm.duet: the same register-tiled kernel with any ops (a transposed operand is read
//              along its rows and stored into shared memory in the layout the plain one has, so the
//              arithmetic is the same), leading dimensions, offsets, alpha/beta and batches; with
//              splits > 1 each group sums one slice of K into a workspace instead (split-K).
//   tiled_cpu  gemm_cpu.duet: what tiled and matmul plans of float and double run on CPU devices,
//              with the same tiles and slices, computed in vectors of a work-item's columns.
//   gemv_dot   gemv.duet: M == 1 or N == 1 where the matrix's rows run along K (A none, B
//              transpose): a run of work-items per output walks its row with vector loads.
//   gemv_axpy  gemv.duet: M == 1 or N == 1 where the matrix's rows run along the outputs (A
//              transpose, B none): each work-item owns 4 adjacent outputs and walks down K.
//   scale      gemm_reduce.duet: C = beta C (K == 0 or alpha == 0).
//   tensor     gemm_tc.duet: matrix instructions (NVIDIA sm_80 and later, CUDA or OpenCL through
//              inline PTX: mma.sync m16n8k16 on half
//              and on bfloat16, m16n8k8 TF32 on float) from warp tiles in shared memory, fed by cp.async and
//              ldmatrix; every op, leading dimension, alpha/beta and batch, one slice of K. On
//              other devices the same kernel runs its portable form (float arithmetic from the
//              same shared tiles): for a forced GemmPath::tensor and for half or bfloat16 inputs into a float
//              C, which no other kernel takes.
//   wgmma      gemm_wgmma.duet: Hopper's warpgroup matrix instructions (CUDA sm_90, compiled for
//              sm_90a: wgmma.mma_async m64nNk16 from swizzled shared memory, fed by cp.async
//              through a multi-stage pipeline), whole tiles of 128 x BN x 64 only (wgmma_problem());
//              any op pair, alpha/beta, batches, half or bfloat16 into itself or float; float as
//              TF32 (m64nNk8, tiles of 128 x BN x 32) with A as stored and B transposed.
// With splits > 1, gemm_reduce.duet sums the slices in a fixed order (reduce_lanes() work-items an
// output, each over every lanes-th slice; deterministic) and applies alpha/beta.
//
// The rule, in order:
//   1. M, N or batch 0: nothing. K == 0 or alpha == 0: scale.
//   2. A forced path (GemmOptions::path) is taken as asked (gemv needs M == 1 or N == 1; tensor
//      needs half or bfloat16 inputs, or float with TF32 allowed).
//   2a'. Warpgroup matrix instructions (wgmma_cores(device): CUDA sm_90, or NVIDIA's OpenCL on
//      sm_90 with DUET_PTX_PROGRAMS=1, and wgmma_by_rule():
//      unless DUET_GEMM_WGMMA=0): half and bfloat16 products, and float ones with TF32 allowed
//      and A as stored, B transposed (TF32 is read K-major only), that wgmma_problem() accepts (M
//      a multiple of 128, N of 128, K of 64 (32 for float), A and B in whole aligned 16-byte runs,
//      M and N above 1) run wgmma, path not forced, parameters not forced; the tiles:
//      wgmma_tile(). Everything else goes on to 2a (mma.sync), which takes any shape.
//   2a. Tensor cores (tensor_cores(device): NVIDIA devices of sm_80 and later, through CUDA or
//      NVIDIA's OpenCL with inline PTX, unless DUET_OPENCL_PTX=0): half and bfloat16
//      inputs, and float where TF32 is allowed (GemmOptions::allow_tf32 or DUET_ALLOW_TF32=1), run
//      tensor unless M == 1 or N == 1 (memory-bound: gemv). So do half and bfloat16 inputs on
//      OpenCL devices with Intel's subgroup matrix multiply-accumulate (intel_matrix_form(device):
//      the kernel's Intel form, TensorTile::intel). Half or bfloat16 inputs into a float C
//      run tensor on every device. The tiles: tensor_tile(type, device) (CUDA sm_80+: 128 x 256,
//      warps of 64 x 64, 3 stages; elsewhere 128 x 128, warps of 64 x 32, 2 stages within 48 KiB),
//      or tensor_small_tile() (64 x 64, warps of 32 x 32, 3 stages) where the large tiles would
//      number fewer than the device's compute units. DUET_GEMM_TC_TILE="BMxBNxBK:WMxWN:STAGES"
//      replaces either (checked against the device's shared memory: ArgumentError).
//   3. M == 1 or N == 1: gemv. The matrix is A when N == 1, else B; gemv_dot when its stored rows
//      run along K, gemv_axpy otherwise. When the groups over the outputs (and the batch) are fewer
//      than the device's compute units, K is split: into 4 * units / groups slices, but for
//      gemv_axpy on GPUs kGemvAxpyGroupsPerUnit * units / groups (rounded down), or slices of
//      kGemvAxpySliceRows where that makes more; slices of at least kGemvDotMinChunk (dot) or
//      kGemvAxpyMinChunk (axpy) elements, at most kMaxSplits. gemv_axpy's slices are whole steps
//      of its runs (kGemvAxpyRows * kGemvAxpyRuns rows).
//   4. Otherwise tiled, with the tile parameters of the size class of M * N (gemm_size_classes:
//      the tuning table's max_mn entries; GemmOptions::params overrides) for float and the 16-bit
//      types, and double_params() for double. Where C would fill less than kTileFill of those tiles (64 x
//      65536 in 128 x 256 tiles: half), the largest of the device's other classes' tiles and
//      GemmTile{} (32 x 32) that C fills that well, else the fullest. A set the device cannot
//      run for this variant (op_b transpose pads B's shared rows) falls back to GemmTile{}.
//      Split-K, to fill the device: with tiles = ceil(M/BM) ceil(N/BN) batch, a split into S slices
//      of K (each a multiple of BK, at least split_min_chunk() long, S <= kMaxSplits) is estimated
//      to take ceil(tiles S / units) groups per compute unit, one after another, of ceil(K / S)
//      steps each, plus kGroupOverheadSteps per group and kReduceLaunchSteps for the launch that adds
//      the slices. The S with the fewest steps is taken when it beats S = 1 by kSplitGain and the
//      workspace (S * batch * M * N accumulators) stays within kMaxWorkspaceBytes (a 64 x 64 C with
//      a long K; 192 tiles for 132 units, 1.45 waves, split in 2 make 2.9). A CPU's compute units
//      are its cores.
//      Split-K, for occupancy (GPUs): where the groups of a unit hold fewer than kOccupancyThreads
//      work-items between them (128-work-item groups, one per unit), enough slices for that many
//      (up to resident_groups() groups a unit, kMaxSplits slices) while the slices stay at least
//      kOccupancyMinChunk long, or split_min_chunk() where K is split already.
//      Few tiles: where the tiles number fewer than half the compute units (a 256 x 256 C: 8
//      tiles of 64 x 128 for 132 SMs), the smallest of the classes' tiles that C fills well is
//      planned too, with its own split, and taken when its estimate is at most kSplitGain of the
//      first: waves * (steps per slice + the overheads above) * BM * BN, the work of one unit.
//      Small tiles in many slices keep every unit busy where large ones leave most idle, on GPUs
//      and on many-core CPUs alike.
//      Paced tiles (GPUs, float, M N K batch >= kPacedProblemFlops): each of the classes' other
//      tiles that C fills well is planned with its own split and taken where its estimated time is
//      below kPaceGain of the best so far: unit work (above) over the unit's speed, which is the
//      tiles' pace, kTilePaceBase + kTilePacePerReuse TM TN / (TM + TN) (at most 1: 8 x 16 is 1,
//      8 x 8 0.9, 4 x 8 0.8), times the share of kOccupancyAccumulators its resident groups hold
//      (one group of 64 x 128 tiles of 8 x 8: half); tiles of kTransposedTilesAccumulators or more
//      per work-item are also planned turned on their side (256 x 128 for 128 x 256), for tall
//      C whose N they would fill only partly; on OpenCL, smaller tiles only where M, N
//      and K are multiples of 4 (NVIDIA's OpenCL runs element-wise loads slowly).
//      Tiny products (OpenCL GPUs, float and half, parameters and path not forced): at most
//      kTinyProductFlops (M N K batch) run in tiny_params()'s 32 x 32 x 32 tiles in one slice. Such a
//      launch takes a few microseconds, most of it the launch: NVIDIA's OpenCL adds a few
//      microseconds to each, so split-K's second launch costs more than it saves, and short
//      chains of slices in many small groups finish first. Past the bound the split larger tiles
//      are faster again.
//   5. A plain float call (GemmProblem::plain) that stays tiled with one slice runs duet::matmul's
//      kernel. On CPU devices (uses_cpu_form) float and double tiled and matmul plans run
//      tiled_cpu instead. The tiled kernel runs unpipelined (PIPELINE=0) where a work-item holds
//      kUnpipelinedAccumulators or more (GPUs, parameters not forced). The plan's vector flags:
//      an operand whose rows start 16-byte aligned (GemmProblem::aligned_*) is read in float4s
//      (float only); on CPU devices only runs that arrive whole along the slice's rows (A
//      transpose, B none): PoCL 5.0 computes wrong products when a float4 read along k is
//      scattered into shared memory one element at a time, and CPUs read those runs element by
//      element anyway, which PoCL vectorises across work-items. gemv reads its vector in float4s
//      only where it is contiguous and the kernel is gemv_dot.
//   6. Thin edges (GPUs, parameters and path not forced): where C runs past its last whole tile by
//      an eighth of a tile or less (kThinEdgeDivisor) along M or N and the whole tiles hold at least
//      kEdgesApartFlops, the plan covers only those whole tiles (bulk_m x bulk_n) and each thin
//      edge is a product of its own (a strip of C, planned by this rule: 1 row or column is a
//      matrix-vector product): the bulk keeps the large tiles an edge would otherwise cost it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "duet/device.hpp"
#include "duet/export.hpp"
#include "duet/scalar_type.hpp"
#include "duet/tuning.hpp"

namespace duet {

// How an operand enters the product: as stored, or transposed.
enum class Op { none, transpose };
DUET_API const char* to_string(Op op);  // "none", "transpose"

// Which kernel a gemm call may use: automatic (the rule), or one forced for tests and tuning.
enum class GemmPath { automatic, tiled, split_k, gemv, tensor, wgmma };
DUET_API const char* to_string(GemmPath path);

// The kernel a plan runs (see the top of the file).
enum class GemmKernel { none, scale, matmul, tiled, tiled_cpu, gemv_dot, gemv_axpy, tensor, wgmma };
DUET_API const char* to_string(GemmKernel kernel);  // "none", "scale", "matmul", "tiled", "tiled_cpu", ...

// What the rule looks at in a call.
struct DUET_API GemmProblem {
  ScalarType type = ScalarType::f32;  // A's and B's element: f32, f64, f16 or bf16
  // C's element where it differs from A's and B's (f32 for half or bfloat16 inputs into a float
  // C); unknown: the same.
  ScalarType c_type = ScalarType::unknown;
  Op op_a = Op::none, op_b = Op::none;
  std::size_t M = 0, N = 0, K = 0, batch = 1;
  bool alpha_zero = false;
  bool beta_zero = false;  // C is only written (beta == 0)
  // Whether each operand's rows start 16-byte aligned: the view starts so, and its leading
  // dimension and batch stride are multiples of 4 elements. The plan's float4 accesses need it.
  bool aligned_a = false, aligned_b = false, aligned_c = false;
  // The same in 16-byte runs of any element (the tensor kernel's cp.async): the view starts
  // 16-byte aligned, and its leading dimension and batch stride are whole runs (8 halves).
  bool runs_a = false, runs_b = false;
  // Op none/none, alpha 1, beta 0, lda == K, ldb == N, ldc == N, one matrix, float, and every
  // operand 16-byte aligned and passable to a kernel as it is: what duet::matmul's kernel takes.
  bool plain = false;
};

// Thin edges of C computed apart (rule step 6): as the rule says, always (wherever C runs past
// its last whole tile, along each dimension that holds a whole tile), or never.
enum class GemmEdges { automatic, apart, whole };

// Forcing a kernel (tests, benchmarks, tuning); the default lets the rule choose.
struct DUET_API GemmOptions {
  GemmPath path = GemmPath::automatic;
  // GemmPath::split_k: the number of K slices (0: the rule's count, at least 2 where K allows).
  // The count may come out lower where K is short: slices are whole multiples of BK.
  int splits = 0;
  // The tiled kernels' parameters instead of the tuning table's (ArgumentError when the device
  // cannot run them).
  std::optional<GemmTile> params;
  GemmEdges edges = GemmEdges::automatic;
  // float products may run on tensor cores in TF32 (10-bit mantissas in, float sums: about 1e-3
  // relative error per product instead of 1e-7), like PyTorch's allow_tf32 and CuPy's CUPY_TF32.
  // Off by default; the environment variable DUET_ALLOW_TF32=1 turns it on for every call.
  bool allow_tf32 = false;
};

// Whether `options` or the environment (DUET_ALLOW_TF32=1) allow TF32 for float products.
DUET_API bool tf32_allowed(const GemmOptions& options);

// The tensor kernel's tiles (gemm_tc.duet): BM x BN per block in slices of BK, warps of WM x WN,
// `stages` slices in flight (a ring of cp.async copies); `swizzle`: shared rows unpadded, their
// 16-byte chunks permuted instead (half and bfloat16 only), so that more stages fit.
struct DUET_API TensorTile {
  int bm = 128, bn = 128, bk = 32, wm = 64, wn = 32, stages = 2;
  bool swizzle = false;
  // 8 or 16: the products go through Intel's subgroup matrix multiply-accumulate with sub-groups of
  // that size (half and bfloat16 on OpenCL; emulated where the device lacks it); 0: NVIDIA's
  // instructions or the portable form. Set by the plan from the device (intel_matrix_form()).
  int intel = 0;
  int threads() const { return wm > 0 && wn > 0 ? (bm / wm) * (bn / wn) * 32 : 0; }
  bool operator==(const TensorTile& o) const {
    return bm == o.bm && bn == o.bn && bk == o.bk && wm == o.wm && wn == o.wn && stages == o.stages &&
           swizzle == o.swizzle && intel == o.intel;
  }
};
// "BMxBNxBK:WMxWN:STAGES", with ":1" after it when swizzled, as DUET_GEMM_TC_TILE takes it.
DUET_API std::string to_string(const TensorTile& t);
// Whether `device` has the matrix instructions gemm_tc.duet uses: NVIDIA, sm_80 or later, through
// CUDA or through NVIDIA's OpenCL (inline PTX; not where DUET_OPENCL_PTX=0).
DUET_API bool tensor_cores(const DeviceInfo& device);
// The sub-group size of the tensor kernel's Intel form for half and bfloat16 on `device`: the
// device's (DeviceInfo::intel_matrix_subgroup) on OpenCL, 0 elsewhere. DUET_GEMM_TC_INTEL=0 turns
// it off; =8 or =16 forces that form on any OpenCL device, emulated where the device lacks the
// built-ins (how the tests run it on PoCL); any other value is an ArgumentError.
DUET_API int intel_matrix_form(const DeviceInfo& device);
// The tiles for elements of `type` (f16 or bf16, or f32 for TF32, whose slices are half as deep),
// in two stages within 48 KiB of shared memory (what every device has), and the smaller ones for
// few tiles.
DUET_API TensorTile tensor_tile(ScalarType type);
DUET_API TensorTile tensor_small_tile(ScalarType type);
// The large tiles on `device`: on CUDA devices with tensor cores, 128 x 256 in warps of 64 x 64
// and 3 stages (dynamic shared memory, within every sm_80+ device's limit); elsewhere (OpenCL's
// static local memory) tensor_tile(type).
DUET_API TensorTile tensor_tile(ScalarType type, const DeviceInfo& device);
// Bytes of shared memory gemm_tc.duet takes with `t` for elements of `type` and these ops.
DUET_API std::size_t tensor_shared_bytes(const TensorTile& t, ScalarType type, Op op_a, Op op_b);
// Bytes of local memory the Intel form of gemm_tc.duet takes on `device` besides the tiles: where
// `t` asks for the form and the device lacks its built-ins, the emulation exchanges 8 ints a
// work-item; 0 otherwise.
DUET_API std::size_t tensor_exchange_bytes(const TensorTile& t, const DeviceInfo& device);
// The most shared memory gemm_tc.duet may take on `device`: on CUDA devices of sm_80 and later
// what a block may opt into (dynamic shared memory), elsewhere the device's local memory.
DUET_API std::size_t tensor_shared_limit(const DeviceInfo& device);
// Empty when gemm_tc.duet runs `t` (its tiles and, for the Intel form, its exchange) for this type
// and ops on `device`; otherwise what is wrong.
DUET_API std::string tensor_tile_problem(const TensorTile& t, ScalarType type, Op op_a, Op op_b,
                                         const DeviceInfo& device);
// "BMxBNxBK:WMxWN:STAGES[:SWIZZLE]" (e.g. "128x256x32:64x64:3", "128x128x32:64x32:3:1") as a
// TensorTile; ArgumentError for anything else, or for numbers gemm_tc.duet cannot take (BM, BN
// multiples of WM, WN; WM, WN, BK of 16; 2 to 8 stages; at most 1024 threads; SWIZZLE 0 or 1).
DUET_API TensorTile parse_tensor_tile(const std::string& text);
// DUET_GEMM_TC_TILE from the environment, parsed (ArgumentError when set to nonsense); nullopt
// when unset or empty. It replaces the tensor plan's tiles, large or small, for tuning.
DUET_API std::optional<TensorTile> tensor_tile_from_env();

// gemm_wgmma.duet's tiles: 128 x BN per block of two warpgroups (256 threads), slices of 128 bytes
// along K (bk: 64 half or bfloat16, bk_of(f32): 32 float as TF32) in `stages` buffers of shared
// memory; blocks numbered down bands of `group_rows` tile rows.
// `mma_first`: each step issues its matrix instructions before the copies of a later slice (else
// after them, the faster order on an H100). `blocks_per_sm` > 1 caps the registers (CUDA's launch
// bounds) so that many blocks share a multiprocessor, for the narrow tiles with few stages. `ws`:
// warp-specialized, a third warpgroup copies while two multiply (384 threads a block). `tma` 1:
// the same split, the copies made by the tensor memory accelerator from tensor maps; 2: that with
// persistent blocks, one per multiprocessor, each taking tile after tile (CUDA sm_90 only;
// elsewhere, and where the operands cannot be mapped, the plan runs the cp.async form).
struct DUET_API WgmmaTile {
  static constexpr int bm = 128, bk_bytes = 128;
  static constexpr int bk_of(ScalarType t) { return t == ScalarType::f32 ? 32 : 64; }
  int bn = 256, stages = 4, group_rows = 8, blocks_per_sm = 1;
  bool mma_first = false, ws = false;
  int tma = 0;
  int threads() const { return ws || tma != 0 ? 384 : 256; }
  bool operator==(const WgmmaTile& o) const {
    return bn == o.bn && stages == o.stages && group_rows == o.group_rows && mma_first == o.mma_first &&
           blocks_per_sm == o.blocks_per_sm && ws == o.ws && tma == o.tma;
  }
};
// Whether `device` has the warpgroup matrix instructions gemm_wgmma.duet uses: CUDA, sm_90; and
// NVIDIA's OpenCL on sm_90 where DUET_PTX_PROGRAMS=1 (the kernel compiled by NVRTC, loaded as PTX).
DUET_API bool wgmma_cores(const DeviceInfo& device);
// Whether the automatic rule may take the warpgroup kernel (step 2a'): yes unless DUET_GEMM_WGMMA=0
// turns it off (then such calls run the mma.sync kernel); GemmPath::wgmma forces it regardless.
DUET_API bool wgmma_by_rule();
// Empty when gemm_wgmma.duet takes `problem` (half or bfloat16 inputs, or float ones where `tf32`
// allows TF32, read K-major only: op_a none, op_b transpose; M a multiple of 128, N of 128, K of
// 64, 32 for float; A and B in whole 16-byte runs, GemmProblem::runs_a and runs_b); otherwise what
// it breaks, in words.
DUET_API std::string wgmma_problem(const GemmProblem& problem, bool tf32 = false);
// The tiles for `problem` on `device`: 128 x 256 in 4 stages where N allows and the tiles number
// at least the device's compute units, else 128 x 128 in 6 stages. DUET_GEMM_WGMMA_TILE =
// "BN:STAGES[:GROUP_ROWS[:MMA_FIRST[:BLOCKS_PER_SM[:WS[:TMA]]]]]" (e.g. "128:3:8:0:2",
// "256:4:8:0:1:1", "128:6:8:0:1:0:1") replaces them for every problem whose N the BN divides, for
// comparing tiles on a GPU; ArgumentError for a value the kernel cannot take. Tiles that do not
// name TMA take wgmma_tma_by_rule()'s where they run one block per multiprocessor without WS 1;
// `tma` is set only on a CUDA device with wgmma_cores().
DUET_API WgmmaTile wgmma_tile(const GemmProblem& problem, const DeviceInfo& device);
// The tensor memory accelerator's copies (WgmmaTile::tma): 1 unless DUET_GEMM_WGMMA_TMA says 0
// (the cp.async form) or 2 (persistent blocks).
DUET_API int wgmma_tma_by_rule();
// Whether the rule copies 16-bit MN-major operands K-major before the warpgroup kernel
// (DUET_GEMM_WGMMA_KMAJOR=1); TF32 ones always are, while the copies fit kWgmmaCopyLimit bytes.
DUET_API bool wgmma_kmajor_by_rule();
constexpr std::size_t kWgmmaCopyLimit = std::size_t{2} << 30;
// Bytes of dynamic shared memory gemm_wgmma.duet asks for with `t` (stages, and 1 KiB to align them).
DUET_API std::size_t wgmma_shared_bytes(const WgmmaTile& t);

struct DUET_API GemmPlan {
  GemmKernel kernel = GemmKernel::none;
  GemmTile params;      // matmul and tiled: the tile parameters
  int splits = 1;           // slices of K (tiled and gemv); > 1: a workspace and gemm_reduce
  std::size_t k_chunk = 0;  // K per slice (the last one may be shorter); K itself when splits == 1
  std::string source;       // where the parameters came from ("built-in entry: ...", a file line)
  std::string reason;       // why this kernel and split, in a few words
  // Accumulators of the workspace (splits * batch * outputs) when splits > 1, else 0.
  std::size_t workspace_elements = 0;
  // The rows and columns of C the kernel computes where thin edges go apart (rule step 6): the
  // rest, C[bulk_m:M, :] and C[:bulk_m, bulk_n:N], are products of their own. M and N for other
  // tiled plans, 0 for the rest.
  std::size_t bulk_m = 0, bulk_n = 0;
  // The operands the kernel reads (and C, writes) in float4 vectors: gemm.duet's VEC_A, VEC_B,
  // VEC_C; gemm_tc.duet's ALIGNED_A and ALIGNED_B (copies of whole 16-byte runs, runs_a/b); matmul.duet's VEC_A and VEC_B (B and C); for gemv the matrix's (VEC_W) and the
  // vector's (VEC_X) flags, on the operand each one is.
  bool vec_a = false, vec_b = false, vec_c = false;
  // tiled_cpu: C is never read (beta 0, or split K, whose sum applies beta): BETA_ZERO.
  bool beta_zero = false;
  // tensor: its tiles, and whether it multiplies float in TF32.
  TensorTile tensor;
  bool tf32 = false;
  // wgmma: its tiles, and whether op(A), op(B) are first copied K-major into the workspace
  // (gemm_transpose.duet) where stored MN-major: TF32 operands must be K-major, and 16-bit ones
  // where DUET_GEMM_WGMMA_KMAJOR=1 asks.
  WgmmaTile wgmma;
  bool kmajor_a = false, kmajor_b = false;
};

// The rule's constants (see the top of the file); what to change after measuring. The
// measurements that set them are in bench/RESULTS.md, under each constant's name.
constexpr int kMaxSplits = 256;
constexpr std::size_t kSplitMinChunk = 256;    // tiled split-K on CPUs: K per slice at least
constexpr std::size_t kSplitMinChunkGpu = 32;  // the same on GPUs (two BK=16 steps)
constexpr double kTileFill = 0.75;             // C fills at least this of its tiles, or smaller ones
// A group's start and end, and the launch that adds a split's slices, in BK steps, for the
// estimates: on CPUs 3 and 4; on GPUs 0 and 3, fitted to the H100's timings of split and whole
// products (a 64^3 product stays whole: 4 steps against 2 + 3).
constexpr double kGroupOverheadSteps = 3, kReduceLaunchSteps = 4;
constexpr double kGroupOverheadStepsGpu = 0, kReduceLaunchStepsGpu = 3;
constexpr double kSplitGain = 0.85;  // a split must cost at most this of no split
constexpr std::size_t kMaxWorkspaceBytes = std::size_t{64} << 20;
constexpr int kOccupancyThreads = 256;                  // work-items per GPU unit that hide latency
constexpr double kPacedProblemFlops = double(1 << 28);  // M N K batch from which tiles are compared by time
constexpr double kTilePaceBase = 0.6, kTilePacePerReuse = 0.075;  // unit_speed: pace of TM TN / (TM + TN)
constexpr double kOccupancyAccumulators = 16384;       // unit_speed: accumulators per unit for full pace
constexpr double kPaceGain = 0.97;                     // other tiles must take at most this of the time
constexpr double kTinyProductFlops = double(1 << 21);  // M N K batch: tiny products (OpenCL GPUs)
// The paced comparison also turns tiles of this many accumulators a work-item or more on their
// side (BM x BN as BN x BM): a tall C fills large tiles turned; smaller tiles turned lose to
// smaller tiles, so they keep their side.
constexpr int kTransposedTilesAccumulators = 128;
constexpr std::size_t kThinEdgeDivisor = 8;            // an edge of at most BM / 8 rows (BN / 8 columns)
constexpr double kEdgesApartFlops = double(1u << 31);  // M N K batch of the whole tiles, at least
constexpr int kUnpipelinedAccumulators = 128;          // the tiled kernel runs unpipelined from here
constexpr std::size_t kOccupancyMinChunk = 2048;       // K per slice at least, for occupancy splits
constexpr std::size_t kGemvDotMinChunk = 2048;         // gemv_dot: K per slice at least
constexpr std::size_t kGemvAxpyMinChunk = 128;         // gemv_axpy: K per slice at least
constexpr int kGemvDotRows = 8, kGemvDotLanes = 32;    // gemv_dot: outputs per group, items per output
// gemv_dot: float4 loads in flight per work-item (a multiple of 4): enough to cover the memory's
// latency; more gain nothing.
constexpr int kGemvDotRuns = 8;
constexpr int kGemvAxpyCols = 64, kGemvAxpyRows = 4;  // gemv_axpy: items along the outputs (4 each), along K
// gemv_axpy: rows in flight per work-item (a multiple of 4), likewise; more ran slower.
constexpr int kGemvAxpyRuns = 8;
// gemv_axpy's split (rule step 3): fewer, longer slices than gemv_dot's, since each slice's
// partial sums cost a pass over the outputs; long K gets slices of kGemvAxpySliceRows rows.
constexpr std::size_t kGemvAxpyGroupsPerUnit = 2;
constexpr std::size_t kGemvAxpySliceRows = 1024;

// gemm_reduce.duet (the sum of a split's slices): work-items per group, and how many may share
// one output: with one work-item an output, a small C in many slices takes as long to add up as
// the products themselves.
constexpr int kReduceGroupSize = 256;
constexpr int kReduceMaxLanes = 32;
constexpr std::size_t kReduceItemsPerUnit = 1024;  // work-items per GPU unit the lanes aim for

// The work-items that share each of `outputs` sums of `splits` slices in gemm_reduce.duet: 1 on
// CPUs and where the outputs alone give every GPU unit kReduceItemsPerUnit; else the power of two
// that comes closest without going over, at most kReduceMaxLanes and `splits`.
DUET_API int reduce_lanes(const DeviceInfo& device, std::size_t outputs, int splits);

// Whether float and double tiled products on `device` run gemm_cpu.duet (GemmKernel::tiled_cpu),
// where a work-item computes in vectors of its contiguous columns: devices of kind cpu.
DUET_API bool uses_cpu_form(const DeviceInfo& device);

// Whether gemm.duet XOR-swizzles its B slice in shared memory (B_SWIZZLE) instead of padding it:
// where B is transposed (its runs along k are scattered into the slice) and each row of the slice
// holds whole multiples of 8 vectors of the work-items' reads (TX a multiple of 8). The one home of
// that rule: gemm_defines() hands it to the kernel, gemm_shared_bytes() counts its layout.
DUET_API bool gemm_swizzles_b(const GemmTile& p, Op op_b);

// K per slice at least, for the tiled kernels' split-K on `device`.
DUET_API std::size_t split_min_chunk(const DeviceInfo& device);

// Tiles for tiny float products on OpenCL GPUs (rule step 4, kTinyProductFlops): 32 x 32 x 32 of
// 4 x 4, pipelined; one slice of K.
DUET_API GemmTile tiny_params();

// Tile parameters for double: on GPUs 64 x 64 tiles of 4 x 4 (a quarter of the float tiles'
// accumulators, each of which takes two registers); on CPUs the float CPU entry's 64 x 64 x 16, 4 x 8.
DUET_API GemmTile double_params(const DeviceInfo& device);

// How many groups of the tiled kernel with `p` one compute unit is estimated to run at once: 1 on
// CPUs; on GPUs 64 Ki registers shared by the groups' work-items at 2 TM TN + 32 registers each
// (accumulators and fragments, addresses), twice the accumulators' share for 8-byte arithmetic,
// between 1 and 4 (ptxas reports 255 for 8 x 16 and 167 for 8 x 8 floats on sm_90).
DUET_API int resident_groups(const GemmTile& p, const DeviceInfo& device, std::size_t element_bytes = 4);

// Empty when the tiled kernel (gemm.duet) compiles and launches with `p` for elements of
// `element_bytes` bytes of arithmetic (4: float, half and bfloat16, 8: double) and this op_b; otherwise
// the rule p breaks. gemm_tile_problem's rules, with gemm.duet's shared memory.
DUET_API std::string gemm_params_problem(const GemmTile& p, std::size_t element_bytes, Op op_b,
                                const DeviceInfo& device);
// Bytes of shared memory gemm.duet declares with p.
DUET_API std::size_t gemm_shared_bytes(const GemmTile& p, std::size_t element_bytes, Op op_b);

// The plan for `problem` on `device`, with the tile parameters of `classes` (gemm_size_classes
// of the device: ascending max_mn, the last with max_mn 0 for every other size). ArgumentError for a
// forced path that cannot serve the problem (gemv without M == 1 or N == 1) or forced parameters
// the device cannot run.
DUET_API GemmPlan plan_gemm(const DeviceInfo& device, const std::vector<GemmSizeClass>& classes,
                   const GemmProblem& problem, const GemmOptions& options = {});

// The plan of duet::matmul_with, which runs duet::matmul's kernel with tiles `p` on a plain
// product (`problem`) in one slice: matmul.duet, or gemm_cpu.duet where the device takes the CPU
// form (the plan gemm makes for GemmPath::tiled with `p`).
DUET_API GemmPlan plan_matmul_with(const DeviceInfo& device, const GemmProblem& problem, const GemmTile& p);

}  // namespace duet
