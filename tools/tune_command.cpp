// `duet tune`: searches the matmul parameters (tile sizes, work per work-item, warp layout) on one
// device. Every candidate the device can run is compiled (in parallel: compiling dominates), run
// once to warm up and timed with queue events at size N^3; the fastest that also computes a correct
// product at small awkward sizes, against a double-precision CPU reference, is printed as a tuning
// entry in the syntax of the built-in table and the tuning file (duet/tuning.hpp). --save writes it
// into the tuning file, replacing an earlier entry for the same device.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "case_inputs.hpp"
#include "case_timing.hpp"
#include "commands.hpp"
#include "cpu_reference.hpp"
#include "duet/blas.hpp"
#include "duet/duet.hpp"
#include "report.hpp"
#include "table.hpp"

namespace duet::tool {
namespace {

// The built-in kernels' fixed inputs and timing: `duet tune` checks and times with the same.
using builtins::kMatmulSampleSeed;
using builtins::random_floats;
using builtins::time_runs;
using builtins::Timing;

struct TuneOptions {
  std::string device;
  std::size_t size = 0;  // 0: 4096 on GPUs, 512 on CPUs (quick: 2048, 256)
  int runs = 0;          // 0: 5 on GPUs, 3 on CPUs
  bool save = false;
  bool quick = false;
  std::size_t max_mn = 0;  // the entry is for C of at most this many elements; 0: every size
};

struct Candidate {
  GemmTile params;
  std::string note;     // "current", "built-in"
  std::string failure;  // compile or launch error
  Timing timing;
  bool pruned = false;  // far slower than the best in a first timed run: not timed further
};

// The search space: tiles, work per work-item, slice depth and warp layout, kept to what the
// device can run and to shapes that make sense for its kind (CPUs: small tiles and groups).
std::vector<GemmTile> search_space(const DeviceInfo& info, bool quick) {
  const bool cpu = info.kind == DeviceKind::cpu;
  std::vector<int> tiles = cpu ? std::vector<int>{32, 64, 128} : std::vector<int>{64, 128, 256};
  std::vector<int> per = cpu ? std::vector<int>{4, 8} : std::vector<int>{4, 8, 16};
  std::vector<int> depths = quick || cpu ? std::vector<int>{8, 16} : std::vector<int>{8, 16, 32};
  std::vector<int> layouts = quick || cpu ? std::vector<int>{8, 16} : std::vector<int>{4, 8, 16, 32};
  if (quick && !cpu) per = {8, 16};
  // The pipelined loop suits GPUs; on CPUs it keeps more values across barriers, which costs.
  const std::vector<int> pipelines = cpu && quick ? std::vector<int>{0} : std::vector<int>{0, 1};
  std::vector<GemmTile> out;
  for (int bm : tiles)
    for (int bn : tiles)
      for (int tm : per)
        for (int tn : per)
          for (int bk : depths)
            for (int wx : layouts)
              for (int pipeline : pipelines) {
                GemmTile p;
                p.bm = bm, p.bn = bn, p.bk = bk, p.tm = tm, p.tn = tn, p.wx = wx, p.pipeline = pipeline;
                const int threads = p.threads();
                if (threads < 64 || threads > (cpu ? 1024 : 512)) continue;
                if (tm * tn > 128) continue;  // more accumulators than registers
                if (!gemm_tile_problem(p, info).empty()) continue;
                out.push_back(p);
              }
  return out;
}

// Largest error of C relative to sum |a_ik b_kj| per entry, for a product of random inputs.
double check_product(Queue& q, const GemmTile& p, std::size_t M, std::size_t N, std::size_t K,
                     unsigned seed) {
  const std::vector<float> A = random_floats(M * K, -1.0f, 1.0f, seed);
  const std::vector<float> B = random_floats(K * N, -1.0f, 1.0f, seed + 1);
  const Device& device = q.device();
  Buffer<float> dA(device, M * K), dB(device, K * N), dC(device, M * N);
  q.write(dA, A);
  q.write(dB, B);
  q.fill(dC, std::nanf(""));  // an entry the kernel does not write stays NaN and fails the check
  matmul_with(q, dA, dB, dC, M, N, K, p);
  const std::vector<float> C = q.to_vector(dC);
  return reference::matmul_error(A, B, C, M, N, K, 0, kMatmulSampleSeed).max_relative;
}

// The product every candidate is timed on, also kept on the host for checking the winner.
struct TimedProduct {
  TimedProduct(Queue& q, std::size_t size)
      : n(size),
        A(random_floats(n * n, -1.0f, 1.0f, 11)),
        B(random_floats(n * n, -1.0f, 1.0f, 12)),
        dA(q.device(), n * n),
        dB(q.device(), n * n),
        dC(q.device(), n * n) {
    q.write(dA, A);
    q.write(dB, B);
    q.finish();
  }
  void enqueue(Queue& q, const GemmTile& p) { matmul_with(q, dA, dB, dC, n, n, n, p); }
  double gflops(double ms) const {
    const double flop = 2.0 * double(n) * double(n) * double(n);
    return flop / ms * 1e-6;
  }

  std::size_t n;
  std::vector<float> A, B;
  Buffer<float> dA, dB, dC;
};

// The size timed and the runs per candidate: the options', else defaults for the device's kind.
std::size_t timed_size(const TuneOptions& options, const DeviceInfo& info) {
  if (options.size) return options.size;
  if (info.kind == DeviceKind::cpu) return options.quick ? 256 : 512;
  return options.quick ? 2048 : 4096;
}

int timed_runs(const TuneOptions& options, const DeviceInfo& info) {
  return options.runs ? options.runs : info.kind == DeviceKind::cpu ? 3 : 5;
}

// The parameters in use and the built-in entries for this device come first, so they are in the
// table even when the search space does not hold them; each parameter set is listed once.
std::vector<Candidate> list_candidates(const DeviceInfo& info, const GemmTile& in_use, bool quick) {
  std::vector<Candidate> candidates;
  auto add = [&](const GemmTile& p, const std::string& note) {
    for (Candidate& c : candidates)
      if (c.params == p) {
        if (c.note.empty()) c.note = note;
        return;
      }
    if (gemm_tile_problem(p, info).empty()) candidates.push_back({p, note, {}, {}, false});
  };
  add(in_use, "in use");
  for (const TuningEntry& e : tuning::builtin_entries())
    if (e.selector.matches(info)) add(e.params, "built-in");
  for (const GemmTile& p : search_space(info, quick)) add(p, "");
  return candidates;
}

// Several at a time: compiling dominates the search. A candidate that fails keeps its error.
void compile_all(const Device& device, std::vector<Candidate>& candidates, std::size_t n) {
  const unsigned workers = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < candidates.size(); i = next++) {
        try {
          matmul_prepare(device, candidates[i].params, n, n);
        } catch (const std::exception& e) {
          candidates[i].failure = describe_error(e);
        }
      }
    });
  for (std::thread& t : pool) t.join();
}

// Times every compiled candidate and returns the best median. One run decides first: a candidate
// far slower than the best so far is pruned, so the search spends its time on the contenders.
double time_all(Queue& q, TimedProduct& product, std::vector<Candidate>& candidates, int runs) {
  double best_ms = 0.0;
  for (Candidate& c : candidates) {
    if (!c.failure.empty()) continue;
    try {
      auto enqueue = [&] { product.enqueue(q, c.params); };
      // The first launch may finish compiling (PoCL specialises a kernel for its group size then).
      enqueue();
      q.finish();
      const Timing warm = time_runs(q, 1, enqueue);
      if (best_ms > 0.0 && warm.median_ms > 3.0 * best_ms) {
        c.timing = warm;
        c.pruned = true;
        continue;
      }
      c.timing = time_runs(q, runs, enqueue);
      if (best_ms == 0.0 || c.timing.median_ms < best_ms) best_ms = c.timing.median_ms;
    } catch (const std::exception& e) {
      c.failure = describe_error(e);
    }
  }
  return best_ms;
}

// Fastest first, then the pruned, then the failed.
void rank_candidates(std::vector<Candidate>& candidates) {
  std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    const bool ta = a.failure.empty(), tb = b.failure.empty();
    if (ta != tb) return ta;
    if (a.pruned != b.pruned) return !a.pruned;
    return a.timing.median_ms < b.timing.median_ms;
  });
}

void print_ranking(const std::vector<Candidate>& candidates, const TimedProduct& product, double best_ms) {
  Table table({{"rank", Table::Align::right},
               {"parameters"},
               {"threads", Table::Align::right},
               {"shared B", Table::Align::right},
               {"time ms", Table::Align::right},
               {"GFLOP/s", Table::Align::right},
               {"vs best", Table::Align::right},
               {"note"}});
  int rank = 0;
  for (const Candidate& c : candidates) {
    if (!c.failure.empty()) {
      table.add_row({"-", to_string(c.params), std::to_string(c.params.threads()),
                     std::to_string(c.params.shared_bytes()), "-", "-", "-", "FAILED " + c.note});
      continue;
    }
    const double ms = c.timing.median_ms;
    table.add_row({std::to_string(++rank), to_string(c.params), std::to_string(c.params.threads()),
                   std::to_string(c.params.shared_bytes()), fixed(ms, 3), fixed(product.gflops(ms), 1),
                   fixed(best_ms / ms, 2), (c.pruned ? "one run only " : "") + c.note});
  }
  std::cout << "\n";
  table.print(std::cout);
  for (const Candidate& c : candidates)
    if (!c.failure.empty()) std::cout << "\nfailed: " << to_string(c.params) << ": " << c.failure << "\n";
}

// Checks one candidate against the CPU reference and prints what it found: edge cases (sizes that
// are not multiples of the tile, with and without float4 rows) and the product that was timed
// (sampled).
bool computes_correctly(Queue& q, const GemmTile& params, TimedProduct& product) {
  const double unit = 1.0 / (1 << 24);
  struct Shape {
    std::size_t M, N, K;
  } shapes[] = {{131, 67, 93}, {260, 132, 68}, {1, 5, 3}};
  bool ok = true;
  std::string report;
  for (const Shape& s : shapes) {
    const double err = check_product(q, params, s.M, s.N, s.K, 21);
    const double limit = 2.0 * double(s.K + 1) * unit;
    report += " " + std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K) + ": " +
              scientific(err) + (err <= limit ? "" : " (limit " + scientific(limit) + ")");
    ok = ok && err <= limit;
  }
  const std::size_t n = product.n;
  product.enqueue(q, params);
  const double err =
      reference::matmul_error(product.A, product.B, q.to_vector(product.dC), n, n, n, 2000, kMatmulSampleSeed)
          .max_relative;
  const double limit = 2.0 * double(n + 1) * unit;
  report += " " + std::to_string(n) + "^3 (2000 sampled): " + scientific(err);
  ok = ok && err <= limit;
  std::cout << "\ncheck " << to_string(params) << ":" << report << (ok ? "  OK" : "  WRONG") << "\n";
  return ok;
}

// The fastest fully timed candidate that is also correct; null when there is none. Only the
// candidates that need it are checked, in ranked order.
const Candidate* fastest_correct(Queue& q, const std::vector<Candidate>& ranked, TimedProduct& product) {
  for (const Candidate& c : ranked) {
    if (!c.failure.empty() || c.pruned) break;
    if (computes_correctly(q, c.params, product)) return &c;
  }
  return nullptr;
}

void report_best(const Candidate& best, const std::vector<Candidate>& candidates, const GemmTile& in_use,
                 const TimedProduct& product, const TuningEntry& entry) {
  std::cout << "\nbest: " << fixed(product.gflops(best.timing.median_ms), 1) << " GFLOP/s";
  for (const Candidate& c : candidates)
    if (c.params == in_use && c.failure.empty() && !c.pruned)
      std::cout << ", " << fixed(c.timing.median_ms / best.timing.median_ms, 2) << "x the parameters in use";
  std::cout << "\n" << tuning::format_entry(entry) << "\n";
}

void save_to_tuning_file(const TuningEntry& entry) {
  const std::string path = tuning::tuning_file_path();
  tuning::save_entry(path, entry);
  std::cout << "saved to " << path << "\n";
}

int run(const TuneOptions& options) {
  const Device device = options.device.empty() ? Device::open() : Device::open(options.device);
  const DeviceInfo& info = device.info();
  const std::size_t n = timed_size(options, info);
  const int runs = timed_runs(options, info);
  std::cout << "duet tune: matmul on " << info.id() << ": " << info.name << " (" << to_string(info.kind)
            << ", " << info.vendor << ", " << info.arch << ")\n";
  const GemmTileChoice current = gemm_tile_choice(info);
  std::cout << "in use now: " << to_string(current.params) << " (" << current.source << ")\n";

  std::vector<Candidate> candidates = list_candidates(info, current.params, options.quick);
  std::cout << candidates.size() << " candidates at " << n << "x" << n << "x" << n << ", " << runs
            << " timed runs each\n";
  compile_all(device, candidates, n);

  Queue q = device.queue();
  TimedProduct product(q, n);
  const double best_ms = time_all(q, product, candidates, runs);
  rank_candidates(candidates);
  print_ranking(candidates, product, best_ms);

  const Candidate* best = fastest_correct(q, candidates, product);
  if (!best) {
    std::cerr << "duet tune: no candidate computed a correct product\n";
    return 1;
  }
  TuningEntry entry = tuning::entry_for_device(info, best->params);
  entry.selector.max_mn = options.max_mn;
  report_best(*best, candidates, current.params, product, entry);
  if (options.save) save_to_tuning_file(entry);
  const bool all_failed = std::all_of(candidates.begin(), candidates.end(),
                                      [](const Candidate& c) { return !c.failure.empty(); });
  return all_failed ? 1 : 0;
}

}  // namespace

int tune_command(const std::vector<std::string>& args) {
  CLI::App app{"search the matmul parameters on one device; prints the best as a tuning entry", "duet tune"};
  TuneOptions options;
  app.add_option("-d,--device", options.device,
                 "device spec for Device::open: auto, cuda, opencl, cuda:0, opencl:1 or a name substring "
                 "(default: DUET_BACKEND / DUET_DEVICE)");
  app.add_option("-n,--size", options.size, "time C = A * B at N x N x N (default 4096 on GPUs, 512 on CPUs)")
      ->check(CLI::Range(16, 32768));
  app.add_option("--runs", options.runs, "timed runs per candidate (default 5 on GPUs, 3 on CPUs)")
      ->check(CLI::Range(1, 1000));
  app.add_flag("-q,--quick", options.quick, "a smaller search at a smaller size");
  app.add_option("--max-mn", options.max_mn,
                 "make the entry a size class: for products whose C has at most this many elements "
                 "(time them with --size; e.g. --size 1024 --max-mn 2097152)")
      ->check(CLI::PositiveNumber);
  app.add_flag("--save", options.save,
               "write the best entry into the tuning file (DUET_TUNING_FILE, else "
               "$XDG_CONFIG_HOME/duet/tuning.txt, else ~/.config/duet/tuning.txt)");
  std::vector<std::string> argv_strings{"duet tune"};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<const char*> argv;
  for (const std::string& a : argv_strings) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return run(options);
}

}  // namespace duet::tool
