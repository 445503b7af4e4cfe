// The benchmark's command line and its run over the chosen devices: options, device selection,
// the results files, and the exit code.
#include "bench_main.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

#include "duet/duet.hpp"
#include "json_io.hpp"

namespace duet::bench {
namespace {

// "a, b, c".
std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

// The devices to measure: every --device, every device with --all, else Device::open(). Devices
// that cannot be opened are reported on stderr and counted in `failures`. Throws NoDevice when
// nothing was asked for and no device exists at all.
struct NoDevice {
  std::string reason;
};

std::vector<Device> choose_devices(const Options& options, int& failures) {
  std::vector<Device> chosen;
  if (options.all) {
    for (const DeviceInfo& info : duet::devices()) chosen.push_back(Device::open(info.id()));
    if (chosen.empty()) {
      std::string reasons;
      for (const auto& b : duet::backends())
        if (!b.available) reasons += (reasons.empty() ? "" : "; ") + b.name + ": " + b.reason;
      throw NoDevice{"no device in any backend" + (reasons.empty() ? std::string() : " (" + reasons + ")")};
    }
    return chosen;
  }
  if (options.devices.empty()) {
    try {
      chosen.push_back(Device::open());
    } catch (const duet::Error& e) {
      const bool missing = e.kind() == ErrorKind::backend_unavailable || e.kind() == ErrorKind::device_not_found;
      if (missing && duet::devices().empty()) throw NoDevice{e.what()};
      throw;
    }
    return chosen;
  }
  for (const auto& spec : options.devices) {
    try {
      chosen.push_back(Device::open(spec));
    } catch (const duet::Error& e) {
      std::cerr << "duet-bench: error: --device " << spec << ": " << e.what() << "\n";
      ++failures;
    }
  }
  return chosen;
}

void write_file(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
  write(out);
  out.close();
  if (!out) throw std::runtime_error("error writing '" + path + "'");
}

}  // namespace

int run_bench(const Options& options) {
  RunResults run;
  run.date = utc_now();
  run.commit = options.commit;
  if (run.commit.empty()) {
    const char* env = std::getenv("DUET_COMMIT");
    run.commit = env && *env ? env : "unknown";
  }
  run.host = host_name();
  run.command = options.command;
  run.peer_files = options.peers;
  // Read the peer files up front, so a bad one stops the run before any device time is spent.
  for (const auto& file : options.peers) read_json_file(file);

  int failures = 0;
  std::vector<Device> devices;
  try {
    devices = choose_devices(options, failures);
  } catch (const NoDevice& none) {
    std::cout << "SKIPPED: no device to benchmark: " << none.reason << "\n";
    return 77;
  }

  std::cout << "duet " << duet::version() << " benchmark, " << run.date << ", commit " << run.commit << "\n";
  for (const Device& device : devices) run.devices.push_back(bench_device(device, options));

  std::cout << "\n";
  write_markdown(std::cout, run);
  if (!options.json.empty()) write_file(options.json, [&](std::ostream& out) { write_json(out, run); });
  if (!options.markdown.empty()) write_file(options.markdown, [&](std::ostream& out) { write_markdown(out, run); });

  int rows = 0, failed = 0, skipped = 0;
  for (const auto& device : run.devices)
    for (const auto& m : device.rows) {
      ++rows;
      if (m.skipped)
        ++skipped;
      else if (verdict(m) != "OK")
        ++failed;
    }
  std::cout << "\n"
            << rows << " rows on " << run.devices.size() << " device(s): " << rows - failed - skipped << " OK, "
            << failed << " FAILED, " << skipped << " skipped";
  if (failures) std::cout << "; " << failures << " device(s) could not be opened";
  std::cout << "\n";
  return failed || failures || run.devices.empty() ? 1 : 0;
}

int bench_main(const std::vector<std::string>& args, const std::string& program) {
  Options options;
  CLI::App app{"Benchmark duet's built-in kernels against ceilings measured in the same run (copy bandwidth; "
               "peer libraries given with --peer), verifying every result against a CPU reference.",
               program};
  app.add_option("-d,--device", options.devices,
                 "device spec for Device::open (cuda:0, opencl:NVIDIA, opencl:portable, ...); repeatable; "
                 "default: Device::open() (DUET_BACKEND / DUET_DEVICE)");
  app.add_flag("--all", options.all, "every device of every backend");
  app.add_option("-k,--kernels", options.kernels,
                 "comma-separated kernels to run (copy always runs: it is the bandwidth ceiling): " +
                     join(kernel_names()))
      ->delimiter(',')
      ->check(CLI::IsMember(kernel_names()));
  app.add_flag("--smoke", options.smoke, "tiny sizes and few runs: checks the pipeline, measures nothing useful");
  app.add_option("--runs", options.runs, "timed runs per case (default 30 on GPUs, 7 on CPUs, 3 with --smoke)")
      ->check(CLI::Range(1, 100000));
  app.add_option("--cache-mib", options.cache_mib,
                 "last-level cache to rotate buffer sets past, MiB (default: from the device; 50 MB on an H100)")
      ->check(CLI::PositiveNumber);
  app.add_option("--json", options.json, "write every measurement as JSON to this file");
  app.add_option("--markdown", options.markdown, "write the Markdown table to this file");
  app.add_option("--peer", options.peers,
                 "peer results (bench/compare_cupy.py, compare_pyopencl.py); their ceilings (cuBLAS SGEMM, "
                 "numpy matmul) become matmul's limit on a device of the same name; repeatable")
      ->check(CLI::ExistingFile);
  app.add_option("--commit", options.commit, "the source commit to record (default: $DUET_COMMIT)");

  std::vector<std::string> argv_strings{program};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<const char*> argv;
  for (const auto& a : argv_strings) argv.push_back(a.c_str());
  std::ostringstream command;
  for (std::size_t i = 0; i < argv_strings.size(); ++i) command << (i ? " " : "") << argv_strings[i];
  options.command = command.str();
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    return run_bench(options);
  } catch (const CompileError& e) {
    std::cerr << program << ": error: " << e.what() << "\n" << e.log() << "\n";
  } catch (const std::exception& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
  }
  return 1;
}

}  // namespace duet::bench
