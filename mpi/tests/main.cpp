// The driver of duet_mpi_tests, run under mpirun with any number of ranks. Every rank runs the same
// doctest cases in the same order on its own device (duet::mpi::open_device). Rank 0 prints the
// usual report; the other ranks print only failures. With several ranks every line carries its
// rank, so a failure says where it happened. The failure count is summed over the ranks at the end,
// so every rank (and so mpirun) exits non-zero when any rank failed.
//
// Exit 77 (CTest's SKIP_RETURN_CODE) on every rank when a rank has no device of the backend asked
// for, with the reason; the ranks agree on that first, so none of them starts the tests alone.
// DUET_TEST_SEED=<n> repeats the random inputs of an earlier run.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <mpi.h>

#include <cstdint>
#include <cstdlib>
#include <duet/device.hpp>
#include <duet/error.hpp>
#include <duet/mpi.hpp>
#include <duet/version.hpp>
#include <iostream>
#include <random>
#include <streambuf>
#include <string>
#include <utility>
#include <vector>

#include "mpi_support.hpp"

namespace {

constexpr int kSkipped = 77;

duet::Device g_device;
std::uint64_t g_seed = 0;
int g_rank = 0, g_size = 1;

// Writes whole lines to `out`, each after `prefix`, so that lines from several ranks interleave
// as lines rather than as fragments.
class PrefixedLines : public std::streambuf {
 public:
  PrefixedLines(std::ostream& out, std::string prefix) : out_(out), prefix_(std::move(prefix)) {}
  ~PrefixedLines() override { sync(); }

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    line_ += static_cast<char>(c);
    if (c == '\n') emit();
    return c;
  }
  int sync() override {
    if (!line_.empty()) emit();
    return 0;
  }

 private:
  void emit() {
    out_ << prefix_ << line_;
    out_.flush();
    line_.clear();
  }
  std::ostream& out_;
  std::string prefix_, line_;
};

std::uint64_t choose_seed() {
  std::uint64_t seed = 0;
  if (g_rank == 0) {
    if (const char* s = std::getenv("DUET_TEST_SEED"); s && *s) {
      seed = std::strtoull(s, nullptr, 0);
    } else {
      std::random_device rd;
      seed = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    }
  }
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  return seed;
}

// Why this rank cannot run the tests (no device of the backend asked for), or "".
std::string skip_reason() {
  try {
    if (duet::devices().empty()) return "no device on any backend";
    duet::Device::open();
    return {};
  } catch (const duet::BackendUnavailableError& e) {
    return e.what();
  } catch (const duet::Error&) {
    return {};  // any other problem is open_device's to report, as a failure
  }
}

// Opens this rank's device; false on every rank when any rank failed.
bool open_devices() {
  std::string error;
  try {
    g_device = duet::mpi::open_device(MPI_COMM_WORLD);
  } catch (const duet::Error& e) {
    error = std::string(duet::to_string(e.kind())) + ": " + e.what();
  }
  const bool ok = mpitest::all_agree(MPI_COMM_WORLD, error.empty());
  if (!error.empty()) std::cerr << "rank " << g_rank << ": duet::mpi::open_device failed (" << error << ")\n";
  return ok;
}

// Every rank's device, printed by rank 0 (the others print failures only).
void print_devices() {
  const std::string mine = g_device.info().id() + " " + g_device.info().name;
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(g_size)), offsets(static_cast<std::size_t>(g_size));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (std::size_t r = 1; r < offsets.size(); ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::string all(g_rank == 0 ? static_cast<std::size_t>(offsets.back() + lengths.back()) : 0, ' ');
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  if (g_rank != 0) return;
  for (std::size_t r = 0; r < offsets.size(); ++r)
    std::cout << "  rank " << r << ": "
              << all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r]))
              << "\n";
}

int run_tests(int argc, char** argv) {
  g_seed = choose_seed();
  const std::string reason = skip_reason();
  // The lowest rank without a device says why, for all of them.
  int mine = reason.empty() ? g_size : g_rank, first = g_size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first < g_size) {
    if (first == g_rank) std::cout << "SKIPPED: rank " << g_rank << ": " << reason << "\n";
    return kSkipped;
  }
  if (!open_devices()) return 1;

  if (g_rank == 0)
    std::cout << "duet " << duet::version() << " MPI tests on " << g_size << " rank(s), seed " << g_seed
              << " (DUET_TEST_SEED=" << g_seed << " repeats this run)\n";
  print_devices();

  doctest::Context context;
  context.applyCommandLine(argc, argv);
  context.setOption("no-colors", true);
  PrefixedLines lines(std::cout, g_size > 1 ? "[rank " + std::to_string(g_rank) + "] " : "");
  std::ostream out(&lines);
  context.setCout(&out);
  if (g_rank != 0) context.setOption("minimal", true);
  const int failed = context.run() != 0 ? 1 : 0;
  out.flush();

  int ranks_failed = 0;
  MPI_Allreduce(&failed, &ranks_failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0 && ranks_failed > 0)
    std::cout << ranks_failed << " of " << g_size << " rank(s) had failures\n";
  return ranks_failed > 0 ? 1 : 0;
}

}  // namespace

namespace mpitest {
const duet::Device& device() { return g_device; }
std::uint64_t seed() { return g_seed; }
int world_rank() { return g_rank; }
int world_size() { return g_size; }
}  // namespace mpitest

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  const int code = run_tests(argc, argv);
  g_device = duet::Device();
  MPI_Finalize();
  return code;
}
