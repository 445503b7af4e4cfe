// The duet benchmark: every built-in kernel at several sizes on every chosen device, held against
// ceilings measured in the same run, each result verified against a CPU reference. Both the
// `duet-bench` executable and `duet bench` call bench_main.
//
// Exit codes: 0 when every row verified, 1 when one failed or an error stopped the run, 2 for a bad
// command line, 77 when no device exists at all and none was asked for (CTest's skip code).
#pragma once

#include <string>
#include <vector>

#include "results.hpp"

namespace duet::bench {

struct Options {
  std::vector<std::string> devices;  // Device::open specs; empty: Device::open() (or every device with all)
  bool all = false;
  std::vector<std::string> kernels;  // empty: all of them
  bool smoke = false;                // tiny sizes, few runs: a CI check that the pipeline works
  int runs = 0;                      // timed runs per case; 0: the plan's default
  double cache_mib = 0.0;            // last-level cache to rotate past; 0: from the device
  std::string json;                  // write the results as JSON here
  std::string markdown;              // write the Markdown table here
  std::vector<std::string> peers;    // peer JSON files (compare_cupy.py, compare_pyopencl.py)
  std::string commit;                // recorded as is; empty: DUET_COMMIT, else "unknown"
  std::string command;               // the command line, recorded in the JSON
};

// The kernels the benchmark knows, in the order it runs them.
const std::vector<std::string>& kernel_names();

// Parses `args` (without the program name) and runs. `program` names the command in --help.
int bench_main(const std::vector<std::string>& args, const std::string& program = "duet-bench");

// Runs the benchmark; progress goes to stdout, the table too. Returns the exit code.
int run_bench(const Options& options);

// Measures every selected kernel on one device (the copy ceiling always); never throws for a
// failing case, which becomes a FAIL row.
DeviceResults bench_device(const Device& device, const Options& options);

}  // namespace duet::bench
