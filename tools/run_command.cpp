// `duet run`: the built-in kernels (builtins/builtins.hpp, the table `python -m duet run` also
// runs) at real sizes on one device. Each kernel runs once to warm up (the first use compiles it),
// that result is checked against a double-precision CPU reference, and then several runs are timed
// with queue events. One table: time, throughput, error and verdict per kernel.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "builtins.hpp"
#include "commands.hpp"
#include "report.hpp"
#include "table.hpp"

namespace duet::tool {
namespace {

std::string throughput(const builtins::Row& row) {
  if (row.timing.median_ms <= 0.0) return "-";
  return fixed(row.rate(), 1) + " " + row.unit();
}

}  // namespace

int run_command(const RunOptions& options) {
  const Device device = options.device.empty() ? Device::open() : Device::open(options.device);
  const DeviceInfo& info = device.info();
  const builtins::Scale scale = builtins::scale_for(info, options.quick);

  std::cout << "duet " << duet::version() << " on " << info.id() << ": " << info.name << " ("
            << to_string(info.kind) << ", " << info.platform << ")\n"
            << builtins::to_string(scale)
            << "; time is the median device time of the timed runs after a warm-up run that also "
               "compiles the kernel\n\n";

  Queue queue = device.queue();
  std::vector<builtins::Row> rows;
  std::vector<std::string> notes;
  for (const builtins::Kernel& kernel : builtins::kernels()) {
    builtins::Row row;
    try {
      builtins::run_case(kernel, device, queue, scale, options.runs, row);
    } catch (const std::exception& e) {
      // Keep going: one kernel failing should not hide how the others do. A failed queue may leave
      // work behind; a fresh queue keeps it out of the next case.
      row.failure = e.what();
      notes.push_back(std::string(kernel.name) + ": " + describe_error(e));
      queue = device.queue();
    }
    rows.push_back(row);
  }

  using Align = Table::Align;
  Table table({{"kernel", Align::left},
               {"size", Align::left},
               {"runs", Align::right},
               {"time ms", Align::right},
               {"throughput", Align::right},
               {"max error", Align::right},
               {"limit", Align::right},
               {"result", Align::left}});
  int failures = 0;
  for (const builtins::Row& row : rows) {
    failures += row.ok() ? 0 : 1;
    if (!row.failure.empty()) {
      table.add_row({row.kernel, row.size, "-", "-", "-", "-", "-", "FAIL (error)"});
      continue;
    }
    table.add_row({row.kernel, row.size, std::to_string(row.timing.runs), fixed(row.timing.median_ms, 3),
                   throughput(row), scientific(row.error), scientific(row.tolerance),
                   row.ok() ? "OK" : "FAIL"});
  }
  table.print(std::cout);
  std::cout << "\n" << builtins::error_note() << "\n";
  for (const auto& note : notes) std::cout << note << '\n';

  if (failures) {
    std::cout << failures << " of " << rows.size() << " kernels FAILED\n";
    return 1;
  }
  std::cout << "all " << rows.size() << " kernels OK\n";
  return 0;
}

}  // namespace duet::tool
