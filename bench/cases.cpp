// The benchmark's cases on one device: the copy ceiling, then every built-in kernel of the table
// (builtins/builtins.hpp: their tolerances are the table's) and the two generators (an
// ElementwiseKernel z = x + y, a ReductionKernel sum) at the plan's sizes, then the launch overhead
// and the array operations; the sorting and selection cases live in sort_cases.cpp.
//
// Every case follows the same steps: allocate enough input/output sets that together they span
// twice the last-level cache (so each run reads data no earlier run left cached), fill the inputs
// with random values and poison the outputs with NaN, run once on every set (the warm-up, which also
// compiles the kernel), time the runs with queue events while rotating through the sets, then read
// every set's output back and check it against a double-precision CPU reference.
//
// Timed runs are enqueued back to back with an event between each two, behind a few large copies
// that keep the device busy while the host enqueues: the device never waits for the host, and each
// interval between two events is one run's device time.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench_main.hpp"
#include "builtins.hpp"
#include "cpu_reference.hpp"
#include "duet/array.hpp"
#include "duet/array_expr.hpp"
#include "duet/array_reduce.hpp"
#include "duet/blas.hpp"
#include "duet/duet.hpp"
#include "duet/stencil.hpp"
#include "duet/tuning.hpp"
#include "inputs.hpp"
#include "json_io.hpp"
#include "plan.hpp"
#include "sort_cases.hpp"

namespace duet::bench {
namespace {

using builtins::count_label;
using builtins::kFloatEps;
using builtins::kHeatR;

// The tolerance the table of built-in kernels gives `kernel` on `problem`.
double builtin_tolerance(const char* kernel, const builtins::Problem& problem) {
  return builtins::find(kernel)->tolerance(problem);
}

// The benchmark's own cases, beside the built-in kernels: the generators, launch overhead, arrays.
const char* const kOwnCases[] = {"elementwise",    "reduction",      "launch",        "graph_launch",
                                 "heat_graph",     "array_launch",   "array_axpy",    "array_add_row",
                                 "array_sum_rows", "array_sum_cols", "array_sum_all", "array_slice"};

// The second copy ceiling: a plain copy kernel, one float4 per work-item. A driver's copy is not
// always the fastest way to move memory (PoCL's is a single-threaded memcpy), so the ceiling is the
// better of the two.
const char* const kCopyKernel = R"(
KERNEL void bench_copy(GLOBAL const float* RESTRICT src, GLOBAL float* RESTRICT dst, const ulong n4) {
  const size_t i = GLOBAL_ID(0);
  if (i < n4) ((GLOBAL float4*)dst)[i] = ((GLOBAL const float4*)src)[i];
}
)";

// Ceilings measured by a peer (cuBLAS SGEMM through CuPy, numpy's matmul) for one device, keyed by
// kernel and size.
struct PeerCeiling {
  double value = NAN;
  std::string label;
};
using PeerCeilings = std::map<std::pair<std::string, std::string>, PeerCeiling>;

std::string simplified(const std::string& name) {
  std::string out;
  for (char c : name)
    if (!std::isspace(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The results marked role "ceiling" in peer files measured on a device of the same name.
PeerCeilings load_peer_ceilings(const std::vector<std::string>& files, const DeviceInfo& info) {
  PeerCeilings ceilings;
  for (const auto& file : files) {
    const Json root = read_json_file(file);
    if (simplified(root["device"]["name"].str()) != simplified(info.name)) continue;
    for (const Json& r : root["results"].array) {
      if (r["role"].str() != "ceiling" || !r["ok"].boolean) continue;
      const double value = r["value"].num(NAN);
      if (!(value > 0.0)) continue;
      ceilings[{r["kernel"].str(), r["size"].str()}] = {value,
                                                        r["label"].str(r["impl"].str("peer")) + " (peer)"};
    }
  }
  return ceilings;
}

struct Stats {
  double median_ms = NAN;
  double min_ms = NAN;
  int runs = 0;
};

Stats summarize(std::vector<double> ms) {
  Stats s;
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  s.runs = static_cast<int>(ms.size());
  s.min_ms = ms.front();
  const std::size_t mid = ms.size() / 2;
  s.median_ms = ms.size() % 2 ? ms[mid] : 0.5 * (ms[mid - 1] + ms[mid]);
  return s;
}

class Bench {
 public:
  Bench(const Device& device, const Options& options)
      : device_(device),
        queue_(device.queue()),
        plan_(plan_for(device.info(), options.smoke, options.runs, options.cache_mib)),
        ceilings_(load_peer_ceilings(options.peers, device.info())) {
    out_.info = device.info();
    out_.mode = plan_.mode;
    out_.cache_bytes = plan_.cache_bytes;
    out_.fp32_peak_gflops = fp32_peak_gflops_for(device.info());
    // The matmul tuning table's choice is recorded with the results.
    try {
      const GemmTileChoice choice = gemm_tile_choice(device.info());
      out_.matmul_params = to_string(choice.params);
      out_.matmul_params_source = choice.source;
    } catch (const std::exception& e) {
      out_.matmul_params_source = e.what();  // matmul itself will fail and say why
    }
    selected_ = options.kernels.empty() ? kernel_names() : options.kernels;
  }

  DeviceResults run() {
    const DeviceInfo& i = device_.info();
    std::cout << "\n== " << i.id() << ": " << i.name << " (" << to_string(i.kind) << ", " << i.platform
              << "), " << plan_.mode << " sizes, " << plan_.runs << " timed runs per case, rotating past "
              << format_fixed(plan_.cache_bytes / 1e6, 0) << " MB of cache\n"
              << std::flush;
    guarded([&] { copy_case(); });
    for (const auto& kernel : selected_) {
      if (kernel == "vector_add" || kernel == "multiply" || kernel == "elementwise") {
        for (const std::size_t n : plan_.vector_n) guarded([&] { elementwise_case(kernel, n); });
      } else if (kernel == "reduction") {
        for (const std::size_t n : plan_.vector_n) guarded([&] { reduction_case(n); });
      } else if (kernel == "matmul") {
        for (const std::size_t n : plan_.matmul) guarded([&] { matmul_case(n); });
      } else if (kernel == "heat_step") {
        for (const std::size_t side : plan_.heat_step) guarded([&] { heat_case(side, 1, plan_.runs); });
      } else if (kernel == "heat") {
        guarded([&] { heat_case(plan_.heat_side, plan_.heat_steps, plan_.heat_runs); });
      } else if (kernel == "launch") {
        guarded([&] { launch_case(); });
      } else if (kernel == "graph_launch") {
        guarded([&] { graph_launch_case(); });
      } else if (kernel == "heat_graph") {
        guarded([&] { heat_graph_case(); });
      } else if (kernel == "array_launch") {
        guarded([&] { array_launch_case(); });
      } else if (kernel == "array_axpy") {
        for (const std::size_t n : plan_.vector_n) guarded([&] { array_axpy_case(n); });
      } else if (kernel == "array_sum_rows" || kernel == "array_sum_cols" || kernel == "array_sum_all") {
        const std::optional<std::int64_t> axis =
            kernel == "array_sum_all" ? std::nullopt
                                      : std::optional<std::int64_t>(kernel == "array_sum_rows");
        for (const std::size_t n : plan_.vector_n) guarded([&] { array_sum_case(axis, n); });
      } else if (kernel == "array_add_row") {
        for (const std::size_t n : plan_.vector_n) guarded([&] { array_add_row_case(n); });
      } else if (kernel == "array_slice") {
        for (const std::size_t n : plan_.vector_n) guarded([&] { array_slice_case(n); });
      } else if (std::count(sort_case_names().begin(), sort_case_names().end(), kernel)) {
        guarded([&] { sort_case(hooks(), kernel); });
      } else if (const builtins::Kernel* builtin = builtins::find(kernel)) {
        // A built-in kernel without a rotating case of its own here: its `duet run` case, once.
        guarded([&] { builtin_case(*builtin); });
      }
    }
    return std::move(out_);
  }

 private:
  // What the cases of other files (sort_cases.cpp) use of this bench.
  CaseHooks hooks() {
    CaseHooks h;
    h.queue = &queue_;
    h.plan = &plan_;
    h.start = [this](const std::string& kernel, const std::string& size) -> Measurement& {
      return start(kernel, size);
    };
    h.sets_for = [this](Measurement& m, double set_bytes, double largest) { return sets_for(m, set_bytes, largest); };
    h.time = [this](Measurement& m, int sets, double work, const std::string& unit,
                    const std::function<void(int)>& enqueue) {
      set_timing(m, time_runs(plan_.runs, sets, 1, enqueue), work, unit, 1e9);
    };
    h.finish_checked = [this](Measurement& m, int sets, double tolerance, const std::string& check,
                              const std::function<double(int)>& error_of_set) {
      finish_checked(m, sets, tolerance, check, error_of_set);
    };
    h.seed = [this](const std::string& what, int set) { return seed(what, set); };
    return h;
  }

  // Runs one case; an exception becomes a FAIL row for it (or completes the row the case started),
  // and a fresh queue keeps whatever the failed one left behind out of the next case.
  void guarded(const std::function<void()>& body) {
    const std::size_t before = out_.rows.size();
    try {
      body();
    } catch (const std::exception& e) {
      if (out_.rows.size() == before) out_.rows.push_back(pending_);
      Measurement& m = out_.rows.back();
      m.ok = false;
      m.failure = e.what();
      report(m);
      if (const auto* compile = dynamic_cast<const CompileError*>(&e)) std::cout << compile->log() << "\n";
      queue_ = device_.queue();
    }
  }

  // Starts a row; until the case pushes it, pending_ names what failed if the case throws.
  Measurement& start(const std::string& kernel, const std::string& size) {
    pending_ = Measurement();
    pending_.kernel = kernel;
    pending_.size = size;
    return pending_;
  }

  void finish_row(Measurement& m) {
    out_.rows.push_back(m);
    report(out_.rows.back());
  }

  static void report(const Measurement& m) {
    std::cout << "  " << m.kernel << " " << m.size << ": ";
    if (m.skipped) {
      std::cout << "skipped (" << m.failure << ")\n" << std::flush;
      return;
    }
    if (std::isfinite(m.median_ms))
      std::cout << format_fixed(m.median_ms, 4) << " ms, " << format_throughput(m);
    if (std::isfinite(m.ratio)) std::cout << ", " << format_fixed(m.ratio, 3) << " of " << m.limit_name;
    if (std::isfinite(m.max_error)) std::cout << ", max error " << format_scientific(m.max_error);
    std::cout << " " << verdict(m);
    if (!m.failure.empty()) std::cout << ": " << m.failure;
    // What the row alone does not say (heat_graph's steps launched one by one, heat's identity).
    if (!m.note.empty()) std::cout << "\n    " << m.note;
    std::cout << "\n" << std::flush;
  }

  // How many sets of `set_bytes` to rotate through; 0 (and a skipped row) when one set does not fit.
  int sets_for(Measurement& m, double set_bytes, double largest_buffer_bytes) {
    const DeviceInfo& i = device_.info();
    const double memory = static_cast<double>(i.memory_bytes);
    if ((i.max_alloc_bytes && largest_buffer_bytes > static_cast<double>(i.max_alloc_bytes)) ||
        (memory > 0 && set_bytes > 0.6 * memory)) {
      m.skipped = true;
      m.failure = "needs " + format_fixed(set_bytes / 1e9, 2) + " GB, more than this device offers";
      finish_row(m);
      return 0;
    }
    int sets = std::max(plan_.min_sets, static_cast<int>(std::ceil(plan_.rotation_bytes / set_bytes)));
    sets = std::min(sets, 32);
    while (sets > 1 && memory > 0 && sets * set_bytes > 0.5 * memory) --sets;
    m.sets = sets;
    return sets;
  }

  // Device time of `runs` runs, run r on set r % sets; see the top of the file.
  Stats time_runs(int runs, int sets, int launches_per_run, const std::function<void(int)>& enqueue) {
    if (filler_src_ && filler_ms_ > 0.0) {
      // Host time per launch and event: about 4 us on CUDA, but 12 us or more for a launch on
      // NVIDIA's OpenCL, plus its marker. Copies enough to cover 25 us each, at most 8: a device
      // that runs out of queued work would time the host's enqueue rate, not the kernel.
      const double host_ms = 0.025 * runs * (launches_per_run + 1);
      const int copies = std::min(8, static_cast<int>(std::ceil(host_ms / filler_ms_)));
      for (int c = 0; c < copies; ++c) queue_.copy(*filler_src_, *filler_dst_);
    }
    std::vector<Event> marks;
    marks.reserve(static_cast<std::size_t>(runs) + 1);
    marks.push_back(queue_.record());
    for (int r = 0; r < runs; ++r) {
      enqueue(r % sets);
      marks.push_back(queue_.record());
    }
    marks.back().wait();
    std::vector<double> ms;
    for (int r = 0; r < runs; ++r) ms.push_back(elapsed_ms(marks[r], marks[r + 1]));
    return summarize(ms);
  }

  void set_timing(Measurement& m, const Stats& t, double work, const std::string& unit, double per_unit) {
    m.median_ms = t.median_ms;
    m.min_ms = t.min_ms;
    m.runs = t.runs;
    m.work = work;
    m.unit = unit;
    m.value = t.median_ms > 0.0 ? work / (t.median_ms * 1e-3) / per_unit : NAN;
  }

  static void set_limit(Measurement& m, double limit, const std::string& name) {
    if (!(limit > 0.0)) return;
    m.limit = limit;
    m.limit_name = name;
    m.ratio = m.value / limit;
  }

  // The row's verdict from each set's error (the worst counts, NaN worst of all), then the row.
  void finish_checked(Measurement& m, int sets, double tolerance, const std::string& check,
                      const std::function<double(int)>& error_of_set) {
    double worst = 0.0;
    for (int k = 0; k < sets; ++k) {
      const double e = error_of_set(k);
      worst = (std::isnan(e) || e > worst) ? e : worst;
    }
    m.max_error = worst;
    m.tolerance = tolerance;
    m.check = std::to_string(sets) + " sets, " + check;
    m.ok = m.max_error <= m.tolerance;
    finish_row(m);
  }

  std::uint64_t seed(const std::string& what, int set) const {
    std::uint64_t h = 1469598103934665603ull;
    for (char c : what) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return h ^ (static_cast<std::uint64_t>(set) << 48);
  }

  // --- the copy ceiling: device-to-device, bytes read + written ---------------------------------
  void copy_case() {
    const std::size_t n = plan_.copy_n;
    Measurement& m = start("copy", count_label(n));
    const double bytes = double(n) * sizeof(float);
    if (!sets_for(m, 2.0 * bytes, bytes)) return;
    m.sets = 1;  // each buffer is at least 4x the cache already
    std::vector<float> host(n);
    fill_random(host, -1.0f, 1.0f, seed("copy", 0));
    auto src = std::make_unique<Buffer<float>>(device_, n);
    auto dst = std::make_unique<Buffer<float>>(device_, n);
    queue_.write(*src, host);
    queue_.fill(*dst, std::numeric_limits<float>::quiet_NaN());
    for (int w = 0; w < 2; ++w) queue_.copy(*src, *dst);
    queue_.finish();
    const Stats t = time_runs(plan_.runs, 1, 1, [&](int) { queue_.copy(*src, *dst); });
    set_timing(m, t, 2.0 * bytes, "GB/s", 1e9);
    const std::vector<float> got = queue_.to_vector(*dst);
    m.max_error = reference::max_abs_error(
        n, [&](std::size_t i) { return std::fabs(double(got[i]) - double(host[i])); });
    m.tolerance = 0.0;
    m.check = "every element";
    m.ok = m.max_error <= m.tolerance;
    if (m.ok) {
      out_.copy_gbs = m.value;
      out_.copy_source = "Queue::copy";
    }
    finish_row(m);
    // Kept as the filler that keeps the device busy while later cases enqueue their runs.
    filler_ms_ = t.median_ms;
    filler_src_ = std::move(src);
    filler_dst_ = std::move(dst);

    guarded([&] { copy_kernel_case(host); });
  }

  // The same copy through a kernel, into the same buffers; the ceiling is the better of the two.
  void copy_kernel_case(const std::vector<float>& host) {
    const std::size_t n = plan_.copy_n;
    Measurement& m = start("copy_kernel", count_label(n));
    m.sets = 1;
    const Kernel copy = device_.compile(kCopyKernel, {}, "bench_copy.duet").kernel("bench_copy");
    const std::size_t group = std::min<std::size_t>(256, device_.info().max_group_size);
    const std::uint64_t n4 = n / 4;
    queue_.fill(*filler_dst_, std::numeric_limits<float>::quiet_NaN());
    auto enqueue = [&](int) { queue_.launch(copy, Range(n4), Range(group), *filler_src_, *filler_dst_, n4); };
    for (int w = 0; w < 2; ++w) enqueue(0);
    queue_.finish();
    const Stats t = time_runs(plan_.runs, 1, 1, enqueue);
    set_timing(m, t, 2.0 * double(n) * sizeof(float), "GB/s", 1e9);
    const std::vector<float> got = queue_.to_vector(*filler_dst_);
    m.max_error = reference::max_abs_error(
        n, [&](std::size_t i) { return std::fabs(double(got[i]) - double(host[i])); });
    m.tolerance = 0.0;
    m.check = "every element";
    m.ok = m.max_error <= m.tolerance;
    if (m.ok && !(m.value <= out_.copy_gbs)) {
      out_.copy_gbs = m.value;
      out_.copy_source = "copy kernel";
    }
    finish_row(m);
  }

  // --- vector_add, multiply, elementwise (a generated z = x + y): 12 bytes per element -------------
  void elementwise_case(const std::string& kernel, std::size_t n) {
    const bool add = kernel != "multiply";
    // The generated kernel is made and compiled ahead, so the warm-up runs only the kernel.
    ElementwiseKernel generated;
    if (kernel == "elementwise") {
      generated = ElementwiseKernel(device_, "float x, float y", "float z", "z = x + y", "bench_add");
      generated.compile_ahead();
    }
    Measurement& m = start(kernel, count_label(n));
    const int sets = sets_for(m, 3.0 * n * sizeof(float), double(n) * sizeof(float));
    if (!sets) return;
    struct Set {
      std::vector<float> a, b;
      Buffer<float> da, db, dc;
    };
    std::vector<Set> s(static_cast<std::size_t>(sets));
    for (int k = 0; k < sets; ++k) {
      Set& set = s[k];
      set.a.resize(n);
      set.b.resize(n);
      fill_random(set.a, -1.0f, 1.0f, seed(kernel + "a", k));
      fill_random(set.b, -1.0f, 1.0f, seed(kernel + "b", k));
      set.da = Buffer<float>(device_, n);
      set.db = Buffer<float>(device_, n);
      set.dc = Buffer<float>(device_, n);
      queue_.write(set.da, set.a);
      queue_.write(set.db, set.b);
      queue_.fill(set.dc, std::numeric_limits<float>::quiet_NaN());
    }
    auto enqueue = [&](int k) {
      if (generated.valid())
        generated(queue_, s[k].da, s[k].db, s[k].dc);
      else if (add)
        vector_add(queue_, s[k].da, s[k].db, s[k].dc);
      else
        multiply(queue_, s[k].da, s[k].db, s[k].dc);
    };
    for (int k = 0; k < sets; ++k) enqueue(k);
    queue_.finish();
    const Stats t = time_runs(plan_.runs, sets, 1, enqueue);
    set_timing(m, t, 3.0 * n * sizeof(float), "GB/s", 1e9);
    set_limit(m, out_.copy_gbs, "copy bandwidth");

    // The table's tolerance (builtins/builtins.cpp says why); the generated z = x + y has vector_add's.
    finish_checked(m, sets, builtin_tolerance(add ? "vector_add" : "multiply", {n}), "every element",
                   [&](int k) {
                     const std::vector<float> got = queue_.to_vector(s[k].dc);
                     return add ? reference::max_error_add(s[k].a, s[k].b, got)
                                : reference::max_error_multiply(s[k].a, s[k].b, got);
                   });
  }

  // --- reduction: a generated float sum, 4 bytes per element ----------------------------------------
  void reduction_case(std::size_t n) {
    Measurement& m = start("reduction", count_label(n));
    const int sets = sets_for(m, double(n) * sizeof(float), double(n) * sizeof(float));
    if (!sets) return;
    ReductionKernel sum(device_, "float", "float x", "x", "a + b", "0", "bench_sum");
    sum.compile_ahead();
    struct Set {
      std::vector<float> x;
      Buffer<float> dx, result;
    };
    std::vector<Set> s(static_cast<std::size_t>(sets));
    for (int k = 0; k < sets; ++k) {
      Set& set = s[k];
      set.x.resize(n);
      // Whole numbers in [-8, 8]: every partial sum is a float exactly, so the sum is exact in any
      // order and the check needs no rounding tolerance that a lost element could hide in.
      fill_random(set.x, -8.5f, 8.5f, seed("reduction", k));
      for (float& v : set.x) v = std::round(v);
      set.dx = Buffer<float>(device_, n);
      set.result = Buffer<float>(device_, 1);
      queue_.write(set.dx, set.x);
      queue_.fill(set.result, std::numeric_limits<float>::quiet_NaN());
    }
    auto enqueue = [&](int k) { sum.reduce_into(queue_, s[k].result, s[k].dx); };
    for (int k = 0; k < sets; ++k) enqueue(k);
    queue_.finish();
    const Stats t = time_runs(plan_.runs, sets, 1, enqueue);
    set_timing(m, t, double(n) * sizeof(float), "GB/s", 1e9);
    set_limit(m, out_.copy_gbs, "copy bandwidth");

    finish_checked(m, sets, 0.0, "the sum of whole numbers (exact in float)", [&](int k) {
      double want = 0.0;
      for (float v : s[k].x) want += v;
      return std::fabs(double(queue_.to_vector(s[k].result)[0]) - want);
    });
  }

  // --- matmul: 2 M N K flops ------------------------------------------------------------------------
  void matmul_case(std::size_t n) {
    const std::size_t M = n, N = n, K = n;
    Measurement& m = start("matmul", std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K));
    const int sets =
        sets_for(m, double(M * K + K * N + M * N) * sizeof(float), double(M * N) * sizeof(float));
    if (!sets) return;
    struct Set {
      std::vector<float> A, B;
      Buffer<float> dA, dB, dC;
    };
    std::vector<Set> s(static_cast<std::size_t>(sets));
    for (int k = 0; k < sets; ++k) {
      Set& set = s[k];
      set.A.resize(M * K);
      set.B.resize(K * N);
      fill_random(set.A, -1.0f, 1.0f, seed("matmul A", k));
      fill_random(set.B, -1.0f, 1.0f, seed("matmul B", k));
      set.dA = Buffer<float>(device_, M * K);
      set.dB = Buffer<float>(device_, K * N);
      set.dC = Buffer<float>(device_, M * N);
      queue_.write(set.dA, set.A);
      queue_.write(set.dB, set.B);
      queue_.fill(set.dC, std::numeric_limits<float>::quiet_NaN());
    }
    auto enqueue = [&](int k) { matmul(queue_, s[k].dA, s[k].dB, s[k].dC, M, N, K); };
    for (int k = 0; k < sets; ++k) enqueue(k);
    queue_.finish();
    const Stats t = time_runs(plan_.runs, sets, 1, enqueue);
    set_timing(m, t, 2.0 * double(M) * double(N) * double(K), "GFLOP/s", 1e9);
    const auto peer = ceilings_.find({m.kernel, m.size});
    if (peer != ceilings_.end())
      set_limit(m, peer->second.value, peer->second.label);
    else
      set_limit(m, out_.fp32_peak_gflops, "FP32 peak");

    const bool full = double(M) * double(N) * double(K) <= plan_.matmul_full_check;
    reference::MatmulError worst;
    std::size_t checked = 0;
    for (int k = 0; k < sets; ++k) {
      const std::vector<float> C = queue_.to_vector(s[k].dC);
      const reference::MatmulError e = reference::matmul_error(
          s[k].A, s[k].B, C, M, N, K, full ? 0 : plan_.matmul_samples, seed("matmul check", k));
      if (std::isnan(e.max_relative) || e.max_relative > worst.max_relative)
        worst.max_relative = e.max_relative;
      if (std::isnan(e.norm_relative) || e.norm_relative > worst.norm_relative)
        worst.norm_relative = e.norm_relative;
      checked = e.checked;
    }
    m.max_error = worst.max_relative;
    m.norm_error = worst.norm_relative;
    m.tolerance = builtin_tolerance("matmul", {K});
    m.check =
        std::to_string(sets) + " sets, " + (full ? "every entry" : std::to_string(checked) + " entries each");
    m.ok = m.max_error <= m.tolerance;
    finish_row(m);
  }

  // --- heat_step (steps == 1): 8 bytes per cell; heat (many steps): cells per second --------------
  void heat_case(std::size_t side, int steps, int runs) {
    const bool single = steps == 1;
    const std::size_t cells = side * side;
    const std::string grid = std::to_string(side) + "x" + std::to_string(side);
    Measurement& m =
        start(single ? "heat_step" : "heat", single ? grid : grid + ", " + std::to_string(steps) + " steps");
    const int sets = sets_for(m, 2.0 * cells * sizeof(float), double(cells) * sizeof(float));
    if (!sets) return;
    struct Set {
      std::vector<float> initial;
      Buffer<float> u, v;
    };
    std::vector<Set> s(static_cast<std::size_t>(sets));
    auto reset = [&](Set& set) {
      queue_.write(set.u, set.initial);
      queue_.fill(set.v, std::numeric_limits<float>::quiet_NaN());
    };
    for (int k = 0; k < sets; ++k) {
      Set& set = s[k];
      set.initial.resize(cells);
      fill_random(set.initial, 0.0f, 1.0f, seed(m.kernel, k));
      set.u = Buffer<float>(device_, cells);
      set.v = Buffer<float>(device_, cells);
      reset(set);
    }
    // heat_step writes v from u and leaves u alone, so its runs repeat one step; heat() leaves the
    // field in u (swapping the handles), so its runs go on stepping, which costs the same.
    auto enqueue = [&](int k) {
      if (single)
        heat_step(queue_, s[k].u, s[k].v, side, side, kHeatR);
      else
        heat(queue_, s[k].u, s[k].v, side, side, kHeatR, steps);
    };
    for (int k = 0; k < sets; ++k) enqueue(k);
    queue_.finish();
    const Stats t = time_runs(runs, sets, steps, enqueue);
    if (single) {
      set_timing(m, t, 2.0 * double(cells) * sizeof(float), "GB/s", 1e9);
      set_limit(m, out_.copy_gbs, "copy bandwidth");
    } else {
      set_timing(m, t, double(cells) * steps, "Gcell/s", 1e9);
      // One step per pass moves 8 bytes per cell: copy bandwidth / 8 cells per second at best.
      set_limit(m, out_.copy_gbs / 8.0, "one step per pass (copy / 8 B)");
      m.note = "equivalent to " + format_fixed(m.value * 8.0, 1) + " GB/s at 8 bytes per cell-step";
    }

    double worst = 0.0;
    for (int k = 0; k < sets; ++k) {
      if (!single) {
        // The timed runs stepped the field on; check one fresh run from the initial field.
        reset(s[k]);
        enqueue(k);
      }
      const std::vector<float> got = queue_.to_vector(single ? s[k].v : s[k].u);
      const double e =
          reference::max_abs_error(got, reference::heat_reference(s[k].initial, side, side, kHeatR, steps));
      worst = (std::isnan(e) || e > worst) ? e : worst;
      if (!single && k == 0) {
        // heat() may take several steps per pass; its result must be the same bits as one
        // heat_step per step. The first set's buffers are free again for that.
        reset(s[0]);
        for (int step = 0; step < steps; ++step) {
          heat_step(queue_, s[0].u, s[0].v, side, side, kHeatR);
          std::swap(s[0].u, s[0].v);
        }
        const std::vector<float> stepped = queue_.to_vector(s[0].u);
        m.identical = std::equal(got.begin(), got.end(), stepped.begin(),
                                 [](float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; })
                          ? 1
                          : 0;
        m.note += std::string(m.identical ? "; bitwise identical" : "; NOT bitwise identical") + " to " +
                  std::to_string(steps) + " single heat_step calls";
      }
    }
    m.max_error = worst;
    m.tolerance = builtin_tolerance(m.kernel.c_str(), {side, steps});
    m.check = std::to_string(sets) + " sets, every cell";
    m.ok = m.max_error <= m.tolerance;
    if (m.identical == 0) {
      m.ok = false;
      m.failure = "heat() gave other bits than " + std::to_string(steps) + " single heat_step calls";
    }
    finish_row(m);
  }

  // --- duet::Array: a fused a * x + y (12 bytes per element), a sum along either axis of a matrix
  // (4 bytes per element read), a strided slice copied to a contiguous array (8 bytes per element of
  // the slice). The matrices are (n / kArrayCols) x kArrayCols. --------------------------------------
  static constexpr std::size_t kArrayCols = 4096;

  Array array_of(const std::vector<float>& host, const Shape& shape) {
    return from_host(queue_, Span<const float>(host.data(), host.size()), shape);
  }

  void array_axpy_case(std::size_t n) {
    Measurement& m = start("array_axpy", count_label(n));
    const int sets = sets_for(m, 3.0 * n * sizeof(float), double(n) * sizeof(float));
    if (!sets) return;
    const float a = 2.5f;
    struct Set {
      std::vector<float> x, y;
      Array dx, dy, dz;
    };
    std::vector<Set> s(static_cast<std::size_t>(sets));
    for (int k = 0; k < sets; ++k) {
      Set& set = s[k];
      set.x.resize(n);
      set.y.resize(n);
      fill_random(set.x, -1.0f, 1.0f, seed("array_axpy x", k));
      fill_random(set.y, -1.0f, 1.0f, seed("array_axpy y", k));
      set.dx = array_of(set.x, {n});
      set.dy = array_of(set.y, {n});
      set.dz = full(queue_, {n}, std::numeric_limits<double>::quiet_NaN());
    }
    auto enqueue = [&](int k) { assign(queue_, s[k].dz, a * s[k].dx + s[k].dy); };
    for (int k = 0; k < sets; ++k) enqueue(k);
    queue_.finish();
    const Stats t = time_runs(plan_.runs, sets, 1, enqueue);
    set_timing(m, t, 3.0 * n * sizeof(float), "GB/s", 1e9);
    set_limit(m, out_.copy_gbs, "copy bandwidth");
    // Two roundings (or one with a fused multiply-add), relative to |a x| + |y|.
    finish_checked(m, sets, 2.0 * kFloatEps, "every element", [&](int k) {
      const std::vector<float> got = s[k].dz.to_vector<float>(queue_);
      return reference::max_abs_error(n, [&](std::size_t i) {
        const double ax = double(a) * s[k].x[i], y = s[k].y[i];
        return std::fabs(double(got[i]) - (ax + y)) / (std::fabs(ax) + std::fabs(y) + 1e-30);
      });
    });
  }

  // Sums of a height x 4096 matrix along axis 1 (rows), axis 0 (cols) or over every element (all,
  // axis nullopt: one output, the array API's sum(x)).
  // m + row over a height x 4096 matrix, the row broadcast down it: the fused kernel's strided form
  // (an index per axis for every element).
  void array_add_row_case(std::size_t n) {
    const std::size_t cols = std::min(kArrayCols, n), height = n / cols;
    Measurement& m = start("array_add_row", std::to_string(height) + "x" + std::to_string(cols) + " + row");
    const int sets = sets_for(m, 2.0 * double(height * cols) * sizeof(float), double(n) * sizeof(float));
    if (!sets) return;
    struct Set {
      std::vector<float> x, row;
      Array dx, drow, dz;
    };
    std::vector<Set> s(static_cast<std::size_t>(sets));
    for (int k = 0; k < sets; ++k) {
      Set& set = s[k];
      set.x.resize(height * cols);
      set.row.resize(cols);
      fill_random(set.x, -1.0f, 1.0f, seed("array_add_row x", k));
      fill_random(set.row, -1.0f, 1.0f, seed("array_add_row row", k));
      set.dx = array_of(set.x, {height, cols});
      set.drow = array_of(set.row, {cols});
      set.dz = full(queue_, {height, cols}, std::numeric_limits<double>::quiet_NaN());
    }
    auto enqueue = [&](int k) { assign(queue_, s[k].dz, s[k].dx + s[k].drow); };
    for (int k = 0; k < sets; ++k) enqueue(k);
    queue_.finish();
    const Stats t = time_runs(plan_.runs, sets, 1, enqueue);
    set_timing(m, t, 2.0 * double(height * cols) * sizeof(float), "GB/s", 1e9);
    set_limit(m, out_.copy_gbs, "copy bandwidth");
    finish_checked(m, sets, kFloatEps, "every element", [&](int k) {
      const std::vector<float> got = s[k].dz.to_vector<float>(queue_);
      return reference::max_abs_error(height * cols, [&](std::size_t i) {
        const double want = double(s[k].x[i]) + s[k].row[i % cols];
        return std::fabs(double(got[i]) - want) / (std::fabs(want) + 1e-30);
      });
    });
  }

  void array_sum_case(std::optional<std::int64_t> axis, std::size_t n) {
    const std::size_t cols = std::min(kArrayCols, n), height = n / cols;
    const bool rows = axis == 1, all = !axis;
    Measurement& m =
        start(all    ? "array_sum_all"
              : rows ? "array_sum_rows"
                     : "array_sum_cols",
              all ? count_label(n)
                  : std::to_string(height) + "x" + std::to_string(cols) + (rows ? ", axis 1" : ", axis 0"));
    const int sets = sets_for(m, double(n) * sizeof(float), double(n) * sizeof(float));
    if (!sets) return;
    struct Set {
      std::vector<float> x;
      Array dx;
      std::vector<Array> sums;  // every run's result, kept until the end: no free between runs
    };
    std::vector<Set> s(static_cast<std::size_t>(sets));
    for (int k = 0; k < sets; ++k) {
      Set& set = s[k];
      set.x.resize(height * cols);
      // Whole numbers: every partial sum is exact in float, in any order.
      fill_random(set.x, -8.5f, 8.5f, seed("array_sum", k));
      for (float& v : set.x) v = std::round(v);
      set.dx = array_of(set.x, {height, cols});
    }
    auto enqueue = [&](int k) {
      s[k].sums.push_back(all ? sum(queue_, s[k].dx) : sum(queue_, s[k].dx, *axis));
    };
    for (int k = 0; k < sets; ++k) enqueue(k);
    queue_.finish();
    const Stats t = time_runs(plan_.runs, sets, 1, enqueue);
    set_timing(m, t, double(height * cols) * sizeof(float), "GB/s", 1e9);
    set_limit(m, out_.copy_gbs, "copy bandwidth");
    // Whole numbers: exact in float while every partial sum stays below 2^24, which a sum over
    // every element of 2^28 values in [-8, 8] leaves only by a random walk of 2^11 deviations.
    finish_checked(m, sets, 0.0, "every sum (whole numbers: exact in float)", [&](int k) {
      const std::vector<float> got = s[k].sums.back().to_vector<float>(queue_);
      if (all) {
        double want = 0.0;
        for (const float v : s[k].x) want += v;
        return std::fabs(double(got[0]) - want);
      }
      const std::size_t outputs = rows ? height : cols, length = rows ? cols : height;
      return reference::max_abs_error(outputs, [&](std::size_t o) {
        double want = 0.0;
        for (std::size_t j = 0; j < length; ++j) want += s[k].x[rows ? o * cols + j : j * cols + o];
        return std::fabs(double(got[o]) - want);
      });
    });
  }

  void array_slice_case(std::size_t n) {
    const std::size_t cols = std::min(kArrayCols, n), height = n / cols;
    const std::size_t out_rows = height / 2, out_cols = cols - 2;  // m[::2, 1:-1]
    Measurement& m =
        start("array_slice", std::to_string(height) + "x" + std::to_string(cols) + " [::2, 1:-1]");
    const int sets = sets_for(m, double(n + out_rows * out_cols) * sizeof(float), double(n) * sizeof(float));
    if (!sets) return;
    struct Set {
      std::vector<float> x;
      Array dx, out;
    };
    std::vector<Set> s(static_cast<std::size_t>(sets));
    const std::vector<IndexEntry> key = {Slice{{}, {}, 2}, Slice{1, -1, 1}};
    for (int k = 0; k < sets; ++k) {
      Set& set = s[k];
      set.x.resize(height * cols);
      fill_random(set.x, -1.0f, 1.0f, seed("array_slice", k));
      set.dx = array_of(set.x, {height, cols});
      set.out = full(queue_, {out_rows, out_cols}, std::numeric_limits<double>::quiet_NaN());
    }
    auto enqueue = [&](int k) { copy_into(queue_, s[k].dx.index(key), s[k].out); };
    for (int k = 0; k < sets; ++k) enqueue(k);
    queue_.finish();
    const Stats t = time_runs(plan_.runs, sets, 1, enqueue);
    set_timing(m, t, 2.0 * double(out_rows * out_cols) * sizeof(float), "GB/s", 1e9);
    set_limit(m, out_.copy_gbs, "copy bandwidth");
    finish_checked(m, sets, 0.0, "every element", [&](int k) {
      const std::vector<float> got = s[k].out.to_vector<float>(queue_);
      return reference::max_abs_error(out_rows * out_cols, [&](std::size_t i) {
        const std::size_t r = i / out_cols, c = i % out_cols;
        return std::fabs(double(got[i]) - double(s[k].x[2 * r * cols + c + 1]));
      });
    });
  }

  // --- a built-in kernel through its table case: one buffer set, the table's sizes ----------------
  void builtin_case(const builtins::Kernel& kernel) {
    const builtins::Scale scale = plan_.mode == "smoke" ? builtins::Scale::quick
                                  : plan_.mode == "cpu" ? builtins::Scale::cpu
                                                        : builtins::Scale::gpu;
    Measurement& m = start(kernel.name, kernel.label(kernel.problem(scale)));
    builtins::Row row;
    builtins::run_case(kernel, device_, queue_, scale, plan_.runs, row);
    m.size = row.size;
    m.sets = 1;
    const Stats t{row.timing.median_ms, row.timing.min_ms, row.timing.runs};
    set_timing(m, t, row.work, row.unit(), 1e9);
    if (!row.flops) set_limit(m, out_.copy_gbs, "copy bandwidth");
    m.max_error = row.error;
    m.tolerance = row.tolerance;
    m.check = "one set (the duet run case)";
    m.ok = row.ok();
    finish_row(m);
  }

  // The launch-overhead cases' operands: one element each, c poisoned; vector_add writes 1.5 + 2.25
  // into c, which finish_host_row checks.
  void one_element_operands(Buffer<float>& a, Buffer<float>& b, Buffer<float>& c) {
    a = Buffer<float>(device_, 1), b = Buffer<float>(device_, 1), c = Buffer<float>(device_, 1);
    static const std::vector<float> first{1.5f}, second{2.25f};  // outlive the asynchronous writes
    queue_.write(a, first);
    queue_.write(b, second);
    queue_.fill(c, std::numeric_limits<float>::quiet_NaN());
  }

  // The end of a row the host's clock timed (`host`, over `work` items of `unit`) whose kernels all
  // write 1.5 + 2.25 into the one element of `dc`.
  void finish_host_row(Measurement& m, const Stats& host, int work, const char* unit, std::string note,
                       const Buffer<float>& dc) {
    m.median_ms = host.median_ms;
    m.min_ms = host.min_ms;
    m.runs = host.runs;
    m.work = work;
    m.unit = unit;
    m.value = host.median_ms * 1e3 / work;
    m.note = std::move(note);
    const std::vector<float> got = queue_.to_vector(dc);
    m.max_error = std::fabs(double(got[0]) - (1.5 + 2.25));
    m.tolerance = 0.0;
    m.check = "the one element";
    m.ok = m.max_error <= m.tolerance;
    finish_row(m);
  }

  // --- launch overhead: back-to-back vector_add on one element, host wall clock -------------------
  void launch_case() {
    const int launches = plan_.launches;
    Measurement& m = start("launch", std::to_string(launches) + " launches");
    m.sets = 1;
    Buffer<float> da, db, dc;
    one_element_operands(da, db, dc);
    for (int w = 0; w < std::min(launches, 100); ++w) vector_add(queue_, da, db, dc);
    queue_.finish();

    using Clock = std::chrono::steady_clock;
    std::vector<double> host_ms, device_ms;
    for (int rep = 0; rep < plan_.launch_reps; ++rep) {
      const auto begin = Clock::now();
      const Event first = queue_.record();
      for (int l = 0; l < launches; ++l) vector_add(queue_, da, db, dc);
      const Event last = queue_.record();
      queue_.finish();
      host_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - begin).count());
      device_ms.push_back(elapsed_ms(first, last));
    }
    const Stats host = summarize(host_ms), on_device = summarize(device_ms);
    finish_host_row(m, host, launches, "us/launch",
                    "device time " + format_fixed(on_device.median_ms * 1e3 / launches, 2) +
                        " us per launch; host time includes finish()",
                    dc);
  }

  // --- a graph's launch overhead: the `launch` case's vector_add recorded 100 times into one graph
  // (duet/graph.hpp) and the graph replayed, host wall clock per kernel, against the same 100
  // launched one by one in the same batches.
  void graph_launch_case() {
    constexpr int kPerGraph = 100;
    const int replays = std::max(1, plan_.launches / kPerGraph);
    const int kernels = replays * kPerGraph;
    Measurement& m =
        start("graph_launch", std::to_string(kernels) + " kernels, graphs of " + std::to_string(kPerGraph));
    m.sets = 1;
    Buffer<float> da, db, dc;
    one_element_operands(da, db, dc);
    const Graph graph = queue_.record_graph([&] {
      for (int k = 0; k < kPerGraph; ++k) vector_add(queue_, da, db, dc);
    });
    for (int w = 0; w < std::min(replays, 10); ++w) graph.replay(queue_);
    for (int w = 0; w < std::min(kernels, 100); ++w) vector_add(queue_, da, db, dc);
    queue_.finish();

    using Clock = std::chrono::steady_clock;
    std::vector<double> replayed_ms, one_by_one_ms;
    for (int rep = 0; rep < plan_.launch_reps; ++rep) {
      auto begin = Clock::now();
      for (int r = 0; r < replays; ++r) graph.replay(queue_);
      queue_.finish();
      replayed_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - begin).count());
      begin = Clock::now();
      for (int l = 0; l < kernels; ++l) vector_add(queue_, da, db, dc);
      queue_.finish();
      one_by_one_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - begin).count());
    }
    const Stats host = summarize(replayed_ms), plain = summarize(one_by_one_ms);
    finish_host_row(m, host, kernels, "us/kernel",
                    "replayed (" + graph.path() + "); launched one by one " +
                        format_fixed(plain.median_ms * 1e3 / kernels, 2) +
                        " us per kernel; host time includes finish()",
                    dc);
  }

  // --- heat steps replayed: `launches` single heat_step calls ping-ponging on a 1024^2 grid (256^2
  // in smoke runs), where a step's device time is near a launch's host cost, recorded into one
  // graph and replayed, against the same steps launched one by one; host wall clock per step. Both
  // fields take the same steps from the same start, so they must end bitwise equal.
  void heat_graph_case() {
    const int steps = std::max(2, plan_.launches - plan_.launches % 2);  // even: a replay ends in u
    const std::size_t side = plan_.mode == "smoke" ? 256 : 1024, cells = side * side;
    const std::string grid = std::to_string(side) + "x" + std::to_string(side);
    Measurement& m = start("heat_graph", grid + ", " + std::to_string(steps) + " steps");
    m.sets = 1;
    std::vector<float> initial(cells);
    fill_random(initial, 0.0f, 1.0f, seed(m.kernel, 0));
    Buffer<float> u(device_, cells), v(device_, cells), w(device_, cells), z(device_, cells);
    queue_.write(u, initial);
    queue_.write(w, initial);
    queue_.fill(v, 0.0f);
    queue_.fill(z, 0.0f);
    auto run = [&](Buffer<float>& a, Buffer<float>& b) {
      for (int k = 0; k < steps; k += 2) {
        heat_step(queue_, a, b, side, side, kHeatR);
        heat_step(queue_, b, a, side, side, kHeatR);
      }
    };
    const Graph graph = queue_.record_graph([&] { run(u, v); });
    graph.replay(queue_);
    run(w, z);
    queue_.finish();

    using Clock = std::chrono::steady_clock;
    std::vector<double> replayed_ms, one_by_one_ms;
    for (int rep = 0; rep < plan_.launch_reps; ++rep) {
      auto begin = Clock::now();
      graph.replay(queue_);
      queue_.finish();
      replayed_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - begin).count());
      begin = Clock::now();
      run(w, z);
      queue_.finish();
      one_by_one_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - begin).count());
    }
    const Stats host = summarize(replayed_ms), plain = summarize(one_by_one_ms);
    m.median_ms = host.median_ms;
    m.min_ms = host.min_ms;
    m.runs = host.runs;
    m.work = steps;
    m.unit = "us/step";
    m.value = host.median_ms * 1e3 / steps;
    m.note = "replayed (" + graph.path() + "); launched one by one " +
             format_fixed(plain.median_ms * 1e3 / steps, 2) + " us per step, " +
             format_fixed(plain.median_ms / host.median_ms, 2) + "x the replay; host time includes finish()";
    const std::vector<float> got = queue_.to_vector(u), want = queue_.to_vector(w);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < cells; ++i) differ += std::memcmp(&got[i], &want[i], sizeof(float)) != 0;
    m.max_error = static_cast<double>(differ);
    m.tolerance = 0.0;
    m.check = "cells whose bits differ from the steps launched one by one";
    m.ok = differ == 0;
    finish_row(m);
  }

  // --- array operations' overhead: back-to-back fused z = a * x + y on one element, host wall
  // clock: what an Array adds to a launch (the expression's kernel lookup, the order between
  // queues' bookkeeping), against `launch` above.
  void array_launch_case() {
    const int launches = plan_.launches;
    Measurement& m = start("array_launch", std::to_string(launches) + " operations");
    m.sets = 1;
    const std::vector<float> x{1.5f}, y{2.25f};
    const float a = 2.0f;
    Array dx = array_of(x, {1}), dy = array_of(y, {1});
    Array dz = full(queue_, {1}, std::numeric_limits<double>::quiet_NaN());
    for (int w = 0; w < std::min(launches, 100); ++w) assign(queue_, dz, a * dx + dy);
    queue_.finish();

    using Clock = std::chrono::steady_clock;
    std::vector<double> host_ms;
    for (int rep = 0; rep < plan_.launch_reps; ++rep) {
      const auto begin = Clock::now();
      for (int l = 0; l < launches; ++l) assign(queue_, dz, a * dx + dy);
      queue_.finish();
      host_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - begin).count());
    }
    const Stats host = summarize(host_ms);
    m.median_ms = host.median_ms;
    m.min_ms = host.min_ms;
    m.runs = host.runs;
    m.work = launches;
    m.unit = "us/op";
    m.value = host.median_ms * 1e3 / launches;
    m.note = "host time includes finish()";
    const std::vector<float> got = dz.to_vector<float>(queue_);
    m.max_error = std::fabs(double(got[0]) - (2.0 * 1.5 + 2.25));
    m.tolerance = 0.0;
    m.check = "the one element";
    m.ok = m.max_error <= m.tolerance;
    finish_row(m);
  }

  Device device_;
  Queue queue_;
  Plan plan_;
  PeerCeilings ceilings_;
  DeviceResults out_;
  std::vector<std::string> selected_;
  Measurement pending_;
  std::unique_ptr<Buffer<float>> filler_src_, filler_dst_;
  double filler_ms_ = 0.0;
};

}  // namespace

const std::vector<std::string>& kernel_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all{"copy"};
    for (const std::string& name : builtins::names()) all.push_back(name);
    all.insert(all.end(), std::begin(kOwnCases), std::end(kOwnCases));
    all.insert(all.end(), sort_case_names().begin(), sort_case_names().end());
    return all;
  }();
  return names;
}

DeviceResults bench_device(const Device& device, const Options& options) {
  return Bench(device, options).run();
}

}  // namespace duet::bench
