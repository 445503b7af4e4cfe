// The `duet` command: maps the command line onto the subcommands in commands.hpp and turns every
// failure into "duet: error: ..." and exit code 1. With no subcommand, `duet` means `duet run`, and
// options given without one (`duet --quick`) are run's.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "duet/duet.hpp"
#include "report.hpp"

namespace {

using namespace duet::tool;

const char* const kDeviceHelp =
    "device spec for Device::open: auto, cuda, opencl, cuda:0, opencl:1 or a name substring such as "
    "opencl:NVIDIA (default: DUET_BACKEND / DUET_DEVICE)";

// `duet --quick` is `duet run --quick`: insert "run" when the first argument is an option that is
// not one of the top-level ones, or when there are no arguments at all.
std::vector<std::string> with_default_command(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  const bool top_level_option =
      argc > 1 && (args[1] == "-h" || args[1] == "--help" || args[1] == "--version");
  if (argc == 1 || (args[1].rfind("-", 0) == 0 && !top_level_option)) {
    args.insert(args.begin() + 1, "run");
  }
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"duet: one interface over CUDA and OpenCL devices. Without a subcommand, runs `duet run`.",
               "duet"};
  app.set_version_flag("--version", std::string("duet ") + duet::version());
  app.require_subcommand(1);

  std::function<int()> command;

  CLI::App* devices =
      app.add_subcommand("devices", "list devices, unavailable backends and the default device");
  devices->callback([&] { command = devices_command; });

  RunOptions run;
  CLI::App* run_app = app.add_subcommand(
      "run", "time every built-in kernel on one device and check it against a CPU reference");
  run_app->add_option("-d,--device", run.device, kDeviceHelp);
  run_app->add_flag("-q,--quick", run.quick, "small sizes and few runs: a smoke test");
  run_app->add_option("--runs", run.runs, "timed runs per kernel (default 10 on GPUs, 5 on CPUs, 3 quick)")
      ->check(CLI::Range(1, 1000));
  run_app->callback([&] { command = [&run] { return run_command(run); }; });

  HeatOptions heat;
  CLI::App* heat_app = app.add_subcommand("heat", "run the 2D heat equation and write the field as a PNG");
  heat_app->add_option("-d,--device", heat.device, kDeviceHelp);
  heat_app->add_option("-n,--size", heat.size, "grid size in cells: N (N x N) or NXxNY")->capture_default_str();
  heat_app->add_option("--overlap", heat.overlap,
                       "under mpirun: step each tile while its halo travels (auto: on GPUs, off on CPUs)")
      ->check(CLI::IsMember({"auto", "on", "off"}))
      ->capture_default_str();
  heat_app->add_flag("--skip-exchange", heat.skip_exchange,
                     "under mpirun, for benchmarks: run the same rounds with no halo exchange (what the "
                     "compute alone costs; the field is wrong)");
  heat_app->add_option("--dims", heat.dims, "under mpirun: ranks along x and y, PXxPY (e.g. 1x4; 0 lets duet "
                       "choose that one); default: duet chooses")
      ->check([](const std::string& v) {
        int px = 0, py = 0;
        char x = 0, extra = 0;
        return std::sscanf(v.c_str(), "%d%c%d%c", &px, &x, &py, &extra) == 3 && x == 'x' && px >= 0 && py >= 0
                   ? std::string()
                   : "--dims takes PXxPY, two counts of ranks (0: chosen by duet), e.g. 2x2";
      });
  heat_app->add_option("--halo", heat.halo, "under mpirun: ghost cells exchanged every this many steps")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  heat_app->add_option("-s,--steps", heat.steps, "number of time steps")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  heat_app->add_option("--repeat", heat.repeat, "timed runs of --steps steps, each going on from the last; "
                       "the median time is reported")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  heat_app->add_option("-r,--r", heat.r, "diffusion number r, in (0, 0.25]")->capture_default_str();
  heat_app->add_option("--checkpoint", heat.checkpoint,
                       "write a checkpoint of the field into this directory every --every steps (MPI-IO, one file)");
  heat_app->add_option("--every", heat.every, "steps between checkpoints")->check(CLI::PositiveNumber);
  heat_app->add_option("--restart", heat.restart,
                       "resume from the newest good checkpoint in this directory (any number of ranks); "
                       "--steps is the total step count");
  heat_app->add_option("--until", heat.until,
                       "stop once the largest change of a cell in one step falls below this")
      ->check(CLI::PositiveNumber);
  heat_app->add_option("--check-every", heat.check_every, "steps between the checks of --until")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  heat_app
      ->add_option("--initial", heat.initial,
                   "initial field: disc (hot disc in the middle) or edge (hot top side)")
      ->check(CLI::IsMember({"disc", "edge"}))
      ->capture_default_str();
  heat_app->add_option("-o,--png", heat.png, "write the final field to this PNG file");
  heat_app->add_option("--field", heat.field,
                       "write the final field to this file as raw float32, row-major (to compare runs bit for bit)");
  heat_app->callback([&] {
    heat.size_given = heat_app->count("--size") > 0;
    heat.r_given = heat_app->count("--r") > 0;
    command = [&heat] { return heat_command(heat); };
  });

  // bench and tune parse their own options (bench/bench_main.hpp, tools/tune_command.hpp).
  std::vector<std::string> passthrough;
  CLI::App* bench_app = app.add_subcommand("bench", "benchmark the built-in kernels (see duet bench --help)");
  bench_app->prefix_command();
  bench_app->set_help_flag();
  bench_app->callback([&] {
    passthrough = bench_app->remaining();
    command = [&passthrough] { return bench_command(passthrough); };
  });
  CLI::App* tune_app = app.add_subcommand("tune", "search kernel parameters for this device (see duet tune --help)");
  tune_app->prefix_command();
  tune_app->set_help_flag();
  tune_app->callback([&] {
    passthrough = tune_app->remaining();
    command = [&passthrough] { return tune_command(passthrough); };
  });

  CLI::App* cache_app = app.add_subcommand("cache", "show, clear or warm the compiled-program cache");
  cache_app->prefix_command();
  cache_app->set_help_flag();
  cache_app->callback([&] {
    passthrough = cache_app->remaining();
    command = [&passthrough] { return cache_command(passthrough); };
  });

  CLI::App* version = app.add_subcommand("version", "print the version and the backends built in");
  version->callback([&] { command = version_command; });

  const std::vector<std::string> args = with_default_command(argc, argv);
  if (args.size() > 1 && args[1].rfind("-", 0) != 0) {
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) known = known || sub->get_name() == args[1];
    if (!known) {
      std::cerr << "duet: error: unknown command '" << args[1]
                << "' (commands: devices, run, heat, bench, tune, cache, version; see duet --help)\n";
      return 1;
    }
  }
  std::vector<const char*> arg_pointers;
  for (const auto& arg : args) arg_pointers.push_back(arg.c_str());
  try {
    app.parse(static_cast<int>(arg_pointers.size()), arg_pointers.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    return command ? command() : 1;
  } catch (const std::exception& e) {
    // duet::Error (CompileError with its log), bad arguments, an unwritable PNG file.
    print_error(std::cerr, e);
    return 1;
  }
}
