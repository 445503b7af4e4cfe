// The duet tool's subcommands, free of any command-line parsing: main.cpp maps the command line onto
// these option structs and calls one function, whose return value is the process exit code.
// duet::Error and other exceptions propagate to main, which prints them.
#pragma once

#include <string>
#include <vector>

namespace duet::tool {

// `duet devices`: every device, the backends that did not load and the device open() would pick.
int devices_command();

struct RunOptions {
  std::string device;  // a Device::open spec; empty: Device::open() (DUET_BACKEND / DUET_DEVICE)
  bool quick = false;  // small sizes, fewer runs: a smoke test rather than a benchmark
  int runs = 0;        // timed runs per kernel after the warm-up; 0: the default for the mode
};
// `duet run`: times and checks every built-in kernel (builtins/builtins.hpp); nonzero when any check fails.
int run_command(const RunOptions& options);

struct HeatOptions {
  std::string device;
  std::string size = "512";  // "N" (N x N cells) or "NXxNY"
  int halo = 6;              // under mpirun: ghost cells exchanged every `halo` steps
  std::string dims;          // under mpirun: "PXxPY", ranks along x and y; empty: duet chooses
  std::string overlap = "auto";  // under mpirun: step the tiles while halos travel (auto: on GPUs)
  bool skip_exchange = false;    // under mpirun, for benchmarks: the same rounds without exchanges
  int steps = 1000;
  int repeat = 1;                // timed runs of `steps` steps, one after the other; the median is reported
  float r = 0.24f;               // diffusion number, (0, 0.25]
  std::string initial = "disc";  // "disc": a hot disc in the middle; "edge": one hot side
  std::string png;               // output path; empty: no image
  std::string field;             // raw float32 output of the final field (row-major); empty: none
  // Through duet::mpi (under mpirun, or as one rank without it):
  std::string checkpoint;        // directory to write checkpoints into; empty: none
  long long every = 0;           // a checkpoint every this many steps (with checkpoint)
  std::string restart;           // directory to resume from (its newest good checkpoint); empty: a fresh run
  double until = 0.0;            // stop once max |u_new - u| of one step falls below this; 0: run every step
  int check_every = 100;         // steps between the checks of `until`
  bool size_given = false, r_given = false;  // whether --size / --r were on the command line
};
// `duet heat`: runs the heat equation, prints statistics of the field and writes a PNG of it.
int heat_command(const HeatOptions& options);
// Whether mpirun (or another MPI launcher) started this process.
bool started_by_mpirun();
// Whether the options need duet::mpi even on one device (checkpoints, restart, --until).
bool needs_mpi(const HeatOptions& options);
// `duet heat` over the ranks of MPI_COMM_WORLD (a ConfigError where duet was built without MPI).
int heat_mpi_command(const HeatOptions& options);

// `duet bench ARGS...` and `duet tune ARGS...`: they parse their own arguments.
int bench_command(const std::vector<std::string>& args);
int tune_command(const std::vector<std::string>& args);
// `duet cache [show|clear|warm]`.
int cache_command(const std::vector<std::string>& args);

// `duet version`.
int version_command();

}  // namespace duet::tool
