// duet-gemm-bench: the GEMM suite (bench/gemm/suite.txt) on one device, duet::gemm and,
// on OpenCL devices where CLBlast was found at build time, CLBlast's GEMM on the same buffers and
// queue. bench/gemm/gemm_cublas.py measures cuBLAS on the same cases; bench/gemm/gemm_report.py puts
// them side by side (`scripts/gpu.sh gemm` runs all of it).
//
// Every case follows bench/cases.cpp's method: enough buffer sets that together they span twice
// the last-level cache (so no run reads what an earlier one left there), inputs from a counter
// hash filled on the device, C poisoned with NaN when beta == 0; a warm-up run on every set
// (which also compiles); timed runs back to back behind filler copies, with a queue event between
// each two, median and minimum of the intervals; then a fresh run on set 0 whose C is checked at
// sampled entries (corners included) against a double-precision sum on the host, with the error
// relative to |alpha| sum_k |a b| + |beta c|. CLBlast runs through its C API on duet's cl_mem and
// cl_command_queue (Buffer::native_handle, Queue::native_handle), timed by the same events.
//
// Exit code: 0 when every row ran and verified, 1 otherwise, 2 for a bad command line.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "duet/blas.hpp"
#include "duet/duet.hpp"
#include "duet/extension.hpp"
#include "json_io.hpp"
#include "plan.hpp"

#ifdef DUET_HAVE_CLBLAST
#define CL_TARGET_OPENCL_VERSION 120
#include <clblast_c.h>
#endif

#ifndef DUET_GEMM_SUITE
#define DUET_GEMM_SUITE "bench/gemm/suite.txt"
#endif

namespace {

using duet::Op;

struct Case {
  std::string name, cls;
  std::size_t M = 0, N = 0, K = 0, batch = 1;
  Op op_a = Op::none, op_b = Op::none;
  double alpha = 1, beta = 0;
  bool f64 = false;
  // f32, f64, f16 or bf16 (half or bfloat16 inputs and C, float sums: tensor cores where the device
  // has them) or tf32 (float with GemmOptions::allow_tf32).
  std::string type = "f32";

  std::string ops() const {
    return std::string(op_a == Op::none ? "N" : "T") + (op_b == Op::none ? "N" : "T");
  }
  double flops() const { return 2.0 * double(M) * double(N) * double(K) * double(batch); }
  std::string shape() const {
    std::string s = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
    if (batch > 1) s += " x" + std::to_string(batch);
    return s;
  }
};

std::vector<Case> read_suite(const std::string& path, int scale) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the case list " + path);
  std::vector<Case> cases;
  std::string line;
  int number = 0;
  auto scaled = [&](std::size_t v, std::size_t from) {
    return scale > 1 && v >= from ? std::max<std::size_t>(1, v / static_cast<std::size_t>(scale)) : v;
  };
  while (std::getline(in, line)) {
    ++number;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    Case c;
    std::string ops, type;
    if (!(words >> c.name)) continue;
    if (!(words >> c.cls >> c.M >> c.N >> c.K >> ops >> c.alpha >> c.beta >> c.batch >> type) ||
        ops.size() != 2 ||
        (type != "f32" && type != "f64" && type != "f16" && type != "bf16" && type != "tf32") || c.batch == 0)
      throw std::runtime_error(path + ":" + std::to_string(number) +
                               ": not `name class M N K ops alpha beta batch type`");
    c.op_a = ops[0] == 'T' ? Op::transpose : Op::none;
    c.op_b = ops[1] == 'T' ? Op::transpose : Op::none;
    c.f64 = type == "f64";
    c.type = type;
    c.M = scaled(c.M, 512), c.N = scaled(c.N, 512), c.K = scaled(c.K, 512), c.batch = scaled(c.batch, 64);
    cases.push_back(c);
  }
  return cases;
}

// bench/inputs.cpp's counter hash, here and in the fill kernel: value i of a buffer filled with
// `base` (= mix(seed)) is exactly the same float on the device and on the host.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
float hashed(std::uint64_t base, std::uint64_t i) {
  const float unit = static_cast<float>(mix(base ^ i) >> 40) * (1.0f / 16777216.0f);
  return -1.0f + 2.0f * unit;
}

const char* const kFill = R"(
KERNEL void bench_fill(GLOBAL T* x, const ulong n, const ulong base) {
  for (size_t i = GLOBAL_ID(0); i < n; i += GLOBAL_SIZE(0)) {
    ulong z = base ^ (ulong)i;
    z += 0x9E3779B97F4A7C15UL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
    z = z ^ (z >> 31);
    const float unit = (float)(z >> 40) * (1.0f / 16777216.0f);
    STORE(T, x + i, -1.0f + 2.0f * unit);
  }
}
)";

struct Options {
  std::string device, cases_file = DUET_GEMM_SUITE, json, only, commit;
  bool smoke = false, clblast = true, duet = true;
  int runs = 0, scale = 0;
  duet::GemmOptions gemm;  // --params, --splits, --path: a forced plan, for tuning sweeps
};

struct Row {
  Case c;
  std::string impl, label, plan, failure;
  int sets = 0, runs = 0;
  double median_ms = NAN, min_ms = NAN, gflops = NAN, max_error = NAN, tolerance = NAN;
  std::size_t checked = 0;
  bool ok = false, skipped = false;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? NAN : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// NaN of each element type (C's poison where beta == 0).
template <class T>
T nan_of() {
  if constexpr (std::is_same_v<T, duet::half>)
    return duet::half{0x7e00};
  else if constexpr (std::is_same_v<T, duet::bfloat16>)
    return duet::bfloat16{0x7fc0};
  else
    return std::numeric_limits<T>::quiet_NaN();
}

// A value as the device holds it in T (half, bfloat16: rounded to nearest even), as a double.
template <class T>
double stored(float v) {
  if constexpr (std::is_same_v<T, duet::half> || std::is_same_v<T, duet::bfloat16>)
    return T::from_float(v).to_float();
  else
    return static_cast<T>(v);
}
template <class T>
double stored_value(T v) {
  if constexpr (std::is_same_v<T, duet::half> || std::is_same_v<T, duet::bfloat16>)
    return v.to_float();
  else
    return static_cast<double>(v);
}

std::string plan_text(const duet::GemmPlan& p) {
  std::ostringstream s;
  s << duet::to_string(p.kernel);
  if (p.kernel == duet::GemmKernel::tensor)
    s << " " << p.tensor.bm << "x" << p.tensor.bn << "x" << p.tensor.bk << " warps " << p.tensor.wm << "x"
      << p.tensor.wn << " stages " << p.tensor.stages << (p.tf32 ? " tf32" : "");
  if (p.kernel == duet::GemmKernel::wgmma)
    s << " " << duet::WgmmaTile::bm << "x" << p.wgmma.bn << "x"
      << duet::WgmmaTile::bk_of(p.tf32 ? duet::ScalarType::f32 : duet::ScalarType::f16) << " stages "
      << p.wgmma.stages << (p.tf32 ? " tf32" : "") << (p.kmajor_a || p.kmajor_b ? " copied" : "");
  if (p.kernel == duet::GemmKernel::tiled || p.kernel == duet::GemmKernel::tiled_cpu ||
      p.kernel == duet::GemmKernel::matmul)
    s << " " << p.params.bm << "x" << p.params.bn << "x" << p.params.bk << " " << p.params.tm << "x"
      << p.params.tn;
  if (p.splits > 1) s << " split " << p.splits << "x" << p.k_chunk;
  return s.str();
}

class Bench {
 public:
  Bench(const duet::Device& device, const Options& o) : device_(device), q_(device.queue()), o_(o) {
    const duet::DeviceInfo& info = device.info();
    gpu_ = info.kind == duet::DeviceKind::gpu;
    rotation_bytes_ = o.smoke ? 0.0 : 2.0 * duet::bench::cache_bytes_for(info);
    default_runs_ = o.runs > 0 ? o.runs : o.smoke ? 3 : gpu_ ? 20 : 5;
    // A copy that keeps the device busy while the host enqueues the timed runs.
    const std::size_t filler = o.smoke ? (1u << 18) : gpu_ ? (std::size_t{1} << 26) : (std::size_t{1} << 22);
    filler_src_ = duet::Buffer<float>(device, filler);
    filler_dst_ = duet::Buffer<float>(device, filler);
    q_.fill(filler_src_, 0.0f);
  }

  std::vector<Row> run(const Case& c) {
    std::vector<Row> rows;
    if (c.f64) {
      if (!device_.info().supports_double) {
        Row r;
        r.c = c, r.impl = "duet", r.failure = "skipped: the device has no double";
        r.ok = r.skipped = true;
        rows.push_back(r);
        return rows;
      }
      run_typed<double>(c, rows);
    } else if (c.type == "f16") {
      run_typed<duet::half>(c, rows);
    } else if (c.type == "bf16") {
      run_typed<duet::bfloat16>(c, rows);
    } else {
      run_typed<float>(c, rows);
    }
    return rows;
  }

 private:
  template <class T>
  struct Set {
    duet::Buffer<T> A, B, C;
  };

  template <class T>
  duet::Kernel fill_kernel() {
    return device_.compile(kFill, {{"T", duet::to_string(duet::scalar_type_of<T>())}}, "bench_fill.duet")
        .kernel("bench_fill");
  }

  template <class T>
  void fill(duet::Buffer<T>& b, std::uint64_t seed) {
    const std::size_t groups = std::min<std::size_t>((b.size() + 255) / 256, 4096);
    q_.launch(fill_kernel<T>(), duet::Range(groups * 256), duet::Range(256), b, std::uint64_t(b.size()),
              mix(seed));
  }

  static std::uint64_t seed_of(const Case& c, int set, int which) {
    std::uint64_t h = 1469598103934665603ull;
    for (char ch : c.name) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
    return h ^ (std::uint64_t(set) << 8) ^ std::uint64_t(which);
  }

  template <class T>
  void run_typed(const Case& c, std::vector<Row>& rows) {
    const bool ta = c.op_a == Op::transpose, tb = c.op_b == Op::transpose;
    const std::size_t lda = ta ? c.M : c.K, ldb = tb ? c.K : c.N, ldc = c.N;
    const std::size_t sa = c.M * c.K, sb = c.K * c.N, sc = c.M * c.N;
    const double set_bytes = double(sa + sb + sc) * double(c.batch) * sizeof(T);
    int sets = static_cast<int>(std::clamp(std::ceil(rotation_bytes_ / set_bytes), 1.0, 32.0));
    while (sets > 1 && double(sets) * set_bytes > 0.4 * double(device_.info().memory_bytes)) --sets;
    std::vector<Set<T>> s;
    for (int k = 0; k < sets; ++k) {
      s.push_back({duet::Buffer<T>(device_, sa * c.batch), duet::Buffer<T>(device_, sb * c.batch),
                   duet::Buffer<T>(device_, sc * c.batch)});
      fill(s.back().A, seed_of(c, k, 1));
      fill(s.back().B, seed_of(c, k, 2));
    }
    using S = duet::compute_type_t<T>;
    const S alpha = static_cast<S>(c.alpha), beta = static_cast<S>(c.beta);
    duet::GemmOptions options = o_.gemm;
    if (c.type == "tf32") options.allow_tf32 = true;
    auto reset_c = [&](int k) {
      if (c.beta == 0)
        q_.fill(s[k].C, nan_of<T>());
      else
        fill(s[k].C, seed_of(c, k, 3));
    };
    for (int k = 0; k < sets; ++k) reset_c(k);

    struct Impl {
      std::string name, label;
      std::function<void(int)> enqueue;
    };
    std::vector<Impl> impls;
    if (o_.duet) {
      impls.push_back({"duet", "duet::gemm", [&, ta, tb](int k) {
                         if (c.batch == 1)
                           duet::gemm(q_, c.op_a, c.op_b, c.M, c.N, c.K, alpha, s[k].A, lda, s[k].B, ldb,
                                      beta, s[k].C, ldc, options);
                         else
                           duet::gemm_strided_batched(q_, c.op_a, c.op_b, c.M, c.N, c.K, alpha, s[k].A, lda,
                                                      sa, s[k].B, ldb, sb, beta, s[k].C, ldc, sc, c.batch,
                                                      options);
                         (void)ta, (void)tb;
                       }});
    }
#ifdef DUET_HAVE_CLBLAST
    if (o_.clblast && device_.info().backend == "opencl" &&
        !duet::is_storage_only(duet::scalar_type_of<T>()) && c.type != "tf32") {
      impls.push_back(
          {"clblast", "CLBlast " + std::string(c.f64 ? "DGEMM" : "SGEMM"), [&, ta, tb](int k) {
             cl_command_queue queue = reinterpret_cast<cl_command_queue>(q_.native_handle());
             const cl_mem a = reinterpret_cast<cl_mem>(s[k].A.native_handle());
             const cl_mem b = reinterpret_cast<cl_mem>(s[k].B.native_handle());
             const cl_mem cm = reinterpret_cast<cl_mem>(s[k].C.native_handle());
             const CLBlastTranspose ta_ = ta ? CLBlastTransposeYes : CLBlastTransposeNo;
             const CLBlastTranspose tb_ = tb ? CLBlastTransposeYes : CLBlastTransposeNo;
             CLBlastStatusCode st;
             if constexpr (std::is_same_v<T, double>) {
               st = c.batch == 1 ? CLBlastDgemm(CLBlastLayoutRowMajor, ta_, tb_, c.M, c.N, c.K, alpha, a, 0,
                                                lda, b, 0, ldb, beta, cm, 0, ldc, &queue, nullptr)
                                 : CLBlastDgemmStridedBatched(CLBlastLayoutRowMajor, ta_, tb_, c.M, c.N, c.K,
                                                              alpha, a, 0, lda, sa, b, 0, ldb, sb, beta, cm,
                                                              0, ldc, sc, c.batch, &queue, nullptr);
             } else {
               st = c.batch == 1 ? CLBlastSgemm(CLBlastLayoutRowMajor, ta_, tb_, c.M, c.N, c.K, alpha, a, 0,
                                                lda, b, 0, ldb, beta, cm, 0, ldc, &queue, nullptr)
                                 : CLBlastSgemmStridedBatched(CLBlastLayoutRowMajor, ta_, tb_, c.M, c.N, c.K,
                                                              alpha, a, 0, lda, sa, b, 0, ldb, sb, beta, cm,
                                                              0, ldc, sc, c.batch, &queue, nullptr);
             }
             if (st != CLBlastSuccess)
               throw std::runtime_error("CLBlast returned status " + std::to_string(st));
           }});
    }
#endif

    for (const Impl& impl : impls) {
      Row r;
      r.c = c, r.impl = impl.name, r.label = impl.label, r.sets = sets;
      try {
        if (impl.name == "duet") {
          duet::GemmProblem p;
          p.type = duet::scalar_type_of<T>();
          p.op_a = c.op_a, p.op_b = c.op_b, p.M = c.M, p.N = c.N, p.K = c.K, p.batch = c.batch;
          p.alpha_zero = c.alpha == 0;
          p.beta_zero = c.beta == 0;
          // Buffers of their own: aligned where leading dimensions and strides are whole float4s.
          p.aligned_a = lda % 4 == 0 && (c.batch == 1 || sa % 4 == 0);
          p.aligned_b = ldb % 4 == 0 && (c.batch == 1 || sb % 4 == 0);
          p.aligned_c = ldc % 4 == 0 && (c.batch == 1 || sc % 4 == 0);
          p.plain = std::is_same_v<T, float> && !ta && !tb && c.alpha == 1 && c.beta == 0 && c.batch == 1;
          p.runs_a = lda % (16 / sizeof(T)) == 0 && (c.batch == 1 || sa % (16 / sizeof(T)) == 0);
          p.runs_b = ldb % (16 / sizeof(T)) == 0 && (c.batch == 1 || sb % (16 / sizeof(T)) == 0);
          r.plan = plan_text(duet::gemm_plan_for(device_, p, options));
        }
        for (int k = 0; k < sets; ++k) impl.enqueue(k);  // warm-up: compiles, touches every buffer
        q_.finish();
        // Fewer runs where one run is long: 20 TFLOP per case is plenty (3 runs at least). On CPUs
        // without --runs, short cases take up to 50 runs (100 GFLOP per case): a product of 125^3
        // takes 0.1 to 0.3 ms there, and the median of 5 moved by a third between two runs.
        const bool cpu_default = !gpu_ && o_.runs == 0 && !o_.smoke;
        const int runs =
            cpu_default
                ? std::clamp(static_cast<int>(std::ceil(1e11 / c.flops())), default_runs_, 50)
                : std::clamp(static_cast<int>(std::ceil(2e13 / c.flops())), 3, std::max(3, default_runs_));
        for (int f = 0; f < 2; ++f) q_.copy(filler_src_, filler_dst_);
        std::vector<duet::Event> marks{q_.record()};
        for (int i = 0; i < runs; ++i) {
          impl.enqueue(i % sets);
          marks.push_back(q_.record());
        }
        std::vector<double> ms;
        for (int i = 0; i < runs; ++i) ms.push_back(duet::elapsed_ms(marks[i], marks[i + 1]));
        r.runs = runs;
        r.median_ms = median(ms);
        r.min_ms = *std::min_element(ms.begin(), ms.end());
        r.gflops = c.flops() / (r.median_ms * 1e-3) / 1e9;
        // A fresh run on set 0 for the check (beta != 0 accumulated over the timed runs).
        reset_c(0);
        impl.enqueue(0);
        verify<T>(c, s[0].C, seed_of(c, 0, 1), seed_of(c, 0, 2), seed_of(c, 0, 3), r);
      } catch (const std::exception& e) {
        r.failure = e.what();
        r.ok = false;
        q_.finish();
      }
      rows.push_back(r);
      for (int k = 0; k < sets; ++k) reset_c(k);
    }
  }

  // Sampled entries of C (batch, row, column), the corners of the first and last matrix among them,
  // against sums in double from the hashed inputs.
  template <class T>
  void verify(const Case& c, duet::Buffer<T>& C, std::uint64_t seed_a, std::uint64_t seed_b,
              std::uint64_t seed_c, Row& r) {
    const bool ta = c.op_a == Op::transpose, tb = c.op_b == Op::transpose;
    struct Entry {
      std::size_t b, i, j;
      T got;
    };
    std::vector<Entry> entries;
    for (std::size_t b : {std::size_t{0}, c.batch - 1})
      for (std::size_t i : {std::size_t{0}, c.M - 1})
        for (std::size_t j : {std::size_t{0}, c.N - 1}) entries.push_back({b, i, j, T{}});
    std::uint64_t state = mix(seed_a ^ 0x5eed);
    const std::size_t samples = c.K > 100000 ? 16 : 40;
    for (std::size_t n = 0; n < samples; ++n) {
      state = mix(state);
      entries.push_back({state % c.batch, (state >> 20) % c.M, (state >> 40) % c.N, T{}});
    }
    for (Entry& e : entries) q_.read(C, duet::Span<T>(&e.got, 1), e.b * c.M * c.N + e.i * c.N + e.j);
    q_.finish();
    const std::uint64_t ba = mix(seed_a), bb = mix(seed_b), bc = mix(seed_c);
    const double u = c.f64 ? 1.0 / 9007199254740992.0 : 1.0 / 16777216.0;
    double worst = 0;
    for (const Entry& e : entries) {
      double sum = 0, mag = 0;
      for (std::size_t k = 0; k < c.K; ++k) {
        const std::uint64_t ia = e.b * c.M * c.K + (ta ? k * c.M + e.i : e.i * c.K + k);
        const std::uint64_t ib = e.b * c.K * c.N + (tb ? e.j * c.K + k : k * c.N + e.j);
        const double p = stored<T>(hashed(ba, ia)) * stored<T>(hashed(bb, ib));
        sum += p;
        mag += std::fabs(p);
      }
      const double old = c.beta != 0 ? stored<T>(hashed(bc, e.b * c.M * c.N + e.i * c.N + e.j)) : 0.0;
      const double want = c.alpha * sum + c.beta * old;
      const double scale = std::fabs(c.alpha) * mag + std::fabs(c.beta * old) + 1e-300;
      const double err = std::fabs(stored_value<T>(e.got) - want) / scale;
      if (err > worst || err != err) worst = err;
    }
    r.max_error = worst;
    // half, bfloat16: one rounding of C to 11 or 8 bits; TF32: each input cut to a 10-bit mantissa
    // (rounded by the mma.sync kernel, truncated by the warpgroup instructions: within 2^-10 each).
    const double store_u = std::is_same_v<T, duet::half>       ? 1.0 / 2048
                           : std::is_same_v<T, duet::bfloat16> ? 1.0 / 256
                                                               : 0.0;
    r.tolerance = 2.0 * double(c.K + 2) * u + store_u + (c.type == "tf32" ? 4.0 / 2048 : 0.0);
    r.checked = entries.size();
    r.ok = worst <= r.tolerance;
    if (!r.ok) r.failure = "wrong result: relative error " + std::to_string(worst);
  }

  duet::Device device_;
  duet::Queue q_;
  Options o_;
  bool gpu_ = false;
  double rotation_bytes_ = 0;
  int default_runs_ = 20;
  duet::Buffer<float> filler_src_, filler_dst_;
};

void write_json(const std::string& path, const duet::DeviceInfo& info, const Options& o,
                const std::vector<Row>& rows) {
  std::ofstream out(path);
  duet::bench::JsonWriter w(out);
  w.begin_object();
  w.field("tool", "duet-gemm-bench");
  w.field("commit", o.commit);
  w.field("mode", o.smoke ? "smoke" : info.kind == duet::DeviceKind::gpu ? "gpu" : "cpu");
  w.field("scale", o.scale > 1 ? o.scale : 1);
  w.key("device");
  w.begin_object();
  w.field("id", info.id());
  w.field("name", info.name);
  w.field("backend", info.backend);
  w.field("platform", info.platform);
  w.field("driver", info.driver);
  w.field("kind", duet::to_string(info.kind));
  w.end_object();
  w.key("results");
  w.begin_array();
  for (const Row& r : rows) {
    w.begin_object();
    w.field("kernel", "gemm");
    w.field("size", r.c.name);
    w.field("class", r.c.cls);
    w.field("shape", r.c.shape());
    w.field("ops", r.c.ops());
    w.field("alpha", r.c.alpha);
    w.field("beta", r.c.beta);
    w.field("type", r.c.type);
    w.field("impl", r.impl);
    w.field("backend", info.backend);
    w.field("label", r.label);
    w.field("plan", r.plan);
    w.field("sets", r.sets);
    w.field("runs", r.runs);
    w.field("median_ms", r.median_ms);
    w.field("min_ms", r.min_ms);
    w.field("value", r.gflops);
    w.field("unit", "GFLOP/s");
    w.field("max_error", r.max_error);
    w.field("tolerance", r.tolerance);
    w.field("checked", r.checked);
    w.field("ok", r.ok);
    w.field("skipped", r.skipped);
    w.field("failure", r.failure);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  out << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("duet-gemm-bench: the GEMM suite on one device, duet and CLBlast (OpenCL)");
  Options o;
  app.add_option("--device", o.device, "device spec (Device::open); default: Device::open()");
  app.add_option("--cases", o.cases_file, "case list (default: the source tree's bench/gemm/suite.txt)");
  app.add_option("--only", o.only, "comma-separated case names to run (default: all)");
  app.add_option("--json", o.json, "write the rows here");
  app.add_option("--runs", o.runs,
                 "timed runs per case (default: 20 on GPUs, 5 to 50 on CPUs, fewer for long cases)");
  app.add_option("--commit", o.commit, "recorded as is (default: $DUET_COMMIT)");
  app.add_option("--scale", o.scale,
                 "divide dimensions of 512 and more, and batches of 64 and more, by this");
  app.add_flag("--smoke", o.smoke,
               "--scale 8 (unless given), 3 runs, no cache rotation: a check that it all works");
  bool no_clblast = false, no_duet = false;
  app.add_flag("--no-clblast", no_clblast, "skip CLBlast");
  app.add_flag("--no-duet", no_duet, "skip duet (CLBlast alone)");
  std::string params;
  app.add_option("--params", params,
                 "duet's tiles for every case, as a tuning entry's fields (\"BM=64 BN=256 BK=16 TM=8 TN=16 "
                 "WX=8 PIPELINE=1\"): a sweep, not the rule's choice");
  app.add_option("--splits", o.gemm.splits, "duet: this many slices of K (split-K) for every case");
  std::string path;
  app.add_option("--path", path,
                 "duet: the kernel for every case: tiled, split_k, gemv, tensor or wgmma (default: the rule's; --splits "
                 "alone means split_k, with gemv it splits the matrix-vector kernel)")
      ->check(CLI::IsMember({"tiled", "split_k", "gemv", "tensor", "wgmma"}));
  CLI11_PARSE(app, argc, argv);
  if (o.gemm.splits > 0) o.gemm.path = duet::GemmPath::split_k;
  if (path == "tiled") o.gemm.path = duet::GemmPath::tiled;
  if (path == "split_k") o.gemm.path = duet::GemmPath::split_k;
  if (path == "gemv") o.gemm.path = duet::GemmPath::gemv;
  if (path == "tensor") o.gemm.path = duet::GemmPath::tensor;
  if (path == "wgmma") o.gemm.path = duet::GemmPath::wgmma;
  o.clblast = !no_clblast;
  o.duet = !no_duet;
  if (o.commit.empty()) o.commit = std::getenv("DUET_COMMIT") ? std::getenv("DUET_COMMIT") : "unknown";
  try {
    // (Inside the try: parse_entry throws ConfigError for fields out of range.)
    if (!params.empty()) {
      const std::optional<duet::TuningEntry> entry = duet::tuning::parse_entry("matmul " + params);
      if (!entry) {
        std::cerr << "--params \"" << params << "\" is not a tuning entry's fields\n";
        return 2;
      }
      o.gemm.params = entry->params;
    }
    if (o.smoke && o.scale == 0) o.scale = 8;
    std::vector<Case> cases = read_suite(o.cases_file, o.scale);
    if (!o.only.empty()) {
      std::vector<Case> chosen;
      std::stringstream names(o.only);
      for (std::string name; std::getline(names, name, ',');) {
        auto it = std::find_if(cases.begin(), cases.end(), [&](const Case& c) { return c.name == name; });
        if (it == cases.end()) throw std::runtime_error("no case named " + name + " in " + o.cases_file);
        chosen.push_back(*it);
      }
      cases = chosen;
    }
    const duet::Device device = o.device.empty() ? duet::Device::open() : duet::Device::open(o.device);
    const duet::DeviceInfo& info = device.info();
#ifdef DUET_HAVE_CLBLAST
    const char* clblast = info.backend == "opencl" && o.clblast ? "with CLBlast" : "without CLBlast";
#else
    const char* clblast = "CLBlast not built in";
#endif
    std::cout << "duet-gemm-bench on " << info.id() << ": " << info.name << " (" << info.platform << "), "
              << cases.size() << " cases"
              << (o.scale > 1 ? ", sizes divided by " + std::to_string(o.scale) : "") << ", " << clblast
              << "\n";
    std::cout << std::left << std::setw(20) << "case" << std::setw(20) << "shape" << std::setw(4) << "ops"
              << std::setw(9) << "impl" << std::right << std::setw(11) << "ms" << std::setw(12) << "GFLOP/s"
              << std::setw(10) << "error"
              << "  result  plan\n";
    Bench bench(device, o);
    std::vector<Row> rows;
    int failures = 0;
    for (const Case& c : cases) {
      for (const Row& r : bench.run(c)) {
        std::cout << std::left << std::setw(20) << c.name << std::setw(20) << c.shape() << std::setw(4)
                  << c.ops() << std::setw(9) << r.impl << std::right << std::fixed << std::setprecision(4)
                  << std::setw(11) << r.median_ms << std::setprecision(1) << std::setw(12) << r.gflops
                  << std::scientific << std::setprecision(1) << std::setw(10) << r.max_error
                  << std::defaultfloat << "  " << (r.ok ? "OK    " : "FAIL  ")
                  << (r.failure.empty() ? r.plan : r.failure) << "\n"
                  << std::flush;
        failures += r.ok ? 0 : 1;
        rows.push_back(r);
        if (!o.json.empty()) write_json(o.json, info, o, rows);
      }
    }
    std::cout << rows.size() << " rows, " << failures << " failed\n";
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::cerr << "duet-gemm-bench: error: " << e.what() << "\n";
    return 1;
  }
}
