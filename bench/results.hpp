// What the benchmark measured, and how it is written: one JSON document for every device of a run
// (read by bench/report.py and bench/plot.py) and a Markdown table for people.
//
// A measurement is keyed by (kernel, size), and the peer scripts (compare_cupy.py,
// compare_pyopencl.py) write the same keys, so report.py can put duet beside its peers row by row.
#pragma once

#include <cmath>
#include <iosfwd>
#include <string>
#include <vector>

#include "duet/device.hpp"

namespace duet::bench {

struct Measurement {
  std::string kernel;  // copy, copy_kernel, vector_add, multiply, matmul, heat_step, heat, launch
  std::string size;    // "n=2^24", "4096x4096x4096", "8192x8192", "8192x8192, 64 steps", "1000 launches"
  int sets = 0;        // input/output buffer sets rotated through, so runs read no cached data

  // Timing: device time per run from queue events, except for launch (host wall clock).
  double median_ms = NAN;
  double min_ms = NAN;
  int runs = 0;

  // Throughput: `work` per median time, in `unit`. GB/s counts bytes read and written (1e9 bytes);
  // GFLOP/s counts 2 M N K; Gcell/s counts cell updates; us/launch is per launch, lower is better.
  double work = NAN;
  std::string unit;
  double value = NAN;

  // The ceiling this row is held against, in the same unit, and value / limit.
  double limit = NAN;
  std::string limit_name;  // "copy bandwidth", "cuBLAS SGEMM (peer)", "FP32 peak", ...
  double ratio = NAN;

  // Verification against the double-precision CPU reference.
  double max_error = NAN;  // absolute, except matmul: relative to sum |a_ik b_kj| per entry
  double tolerance = NAN;
  double norm_error = NAN;  // matmul only: ||C - ref|| / ||ref|| over the checked entries
  std::string check;        // what was checked: "all 3 sets, every element", "2 sets x 2004 entries"
  int identical = -1;       // heat only: 1 when heat(steps) equals `steps` heat_step calls bit for bit
  bool ok = false;
  std::string failure;  // why the row failed or did not run, empty when it ran and verified
  bool skipped = false;  // not run (too large for this device); not a failure
  std::string note;      // anything else worth saying, such as device time per launch

  double gbs() const { return unit == "GB/s" ? value : NAN; }
};

struct DeviceResults {
  DeviceInfo info;
  std::string mode;  // "gpu", "cpu" or "smoke": which size plan ran
  double cache_bytes = NAN;        // last-level cache size assumed for rotation
  double copy_gbs = NAN;           // the copy bandwidth ceiling: the better of the two copies measured
  std::string copy_source;         // which one: "Queue::copy" or "copy kernel"
  double fp32_peak_gflops = NAN;   // from a table of known devices; NaN when unknown
  std::string matmul_params;         // the tile parameters duet::matmul uses here (duet/tuning.hpp)
  std::string matmul_params_source;  // where they came from: a built-in entry or a tuning file
  std::vector<Measurement> rows;
};

struct RunResults {
  std::string date;    // UTC, ISO 8601
  std::string commit;  // --commit or DUET_COMMIT; "unknown" without either
  std::string host;
  std::string command;  // the command line
  std::vector<std::string> peer_files;
  std::vector<DeviceResults> devices;
};

void write_json(std::ostream& out, const RunResults& run);
// One table of every device's rows: device, kernel, size, time, throughput, ratio to the limit,
// max error and OK/FAIL; a legend of the devices and limits above it.
void write_markdown(std::ostream& out, const RunResults& run);

// Formatting shared with the progress lines.
std::string format_fixed(double value, int decimals);
std::string format_scientific(double value);
std::string format_throughput(const Measurement& m);
std::string verdict(const Measurement& m);

}  // namespace duet::bench
