// `duet cache`: where the compiled-program cache is, who owns it, whether it is in use and what it
// holds, entries it will not load included (`show`), emptying it
// (`clear`), and compiling every built-in kernel source on one device while timing each program
// (`warm`): run it twice and the second run shows what a program costs when it comes from disk.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "commands.hpp"
#include "duet/duet.hpp"
#include "table.hpp"

namespace duet::tool {
namespace {

std::string octal(unsigned mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", mode);
  return text;
}

void show() {
  const CacheInfo info = cache_info();
  std::cout << "directory: " << (info.directory.empty() ? "(none)" : info.directory);
  if (!info.resolved.empty() && info.resolved != info.directory) std::cout << " (-> " << info.resolved << ")";
  std::cout << '\n';
  if (!info.owner.empty()) std::cout << "owner:     " << info.owner << ", mode " << octal(info.mode) << '\n';
  std::cout << "state:     " << (info.enabled ? "on" : "off: " + info.disabled_reason) << '\n'
            << "entries:   " << info.entries << " (" << fixed(static_cast<double>(info.bytes) / 1048576.0, 2)
            << " MiB)\n";
  if (info.ignored.empty()) return;
  std::cout << "ignored:   " << info.ignored.size() << " never loaded:\n";
  for (const std::string& entry : info.ignored) std::cout << "  " << entry << '\n';
}

int warm(const std::string& spec) {
  const Device device = spec.empty() ? Device::open() : Device::open(spec);
  // The device's context is created on first use (about 100 ms on a GPU); create it before the
  // clock starts, so the times are the programs' own.
  Buffer<char> warm_up(device, 1);
  std::cout << "compiling the built-in kernel sources on " << device.info().id() << " (" << device.info().name
            << "), program cache " << (cache_info().enabled ? "on" : "off") << '\n';
  using Align = Table::Align;
  Table table({{"program", Align::left}, {"ms", Align::right}, {"from", Align::left}});
  double total = 0.0;
  int programs = 0;
  for (const char* const* name = builtin_kernel_names(); *name; ++name) {
    const CacheStats before = cache_stats();
    const auto start = std::chrono::steady_clock::now();
    device.compile(builtin_kernel_source(*name), {}, std::string(*name) + ".duet");
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const CacheStats after = cache_stats();
    const char* from = after.hits > before.hits ? "disk cache" : "compiler";
    table.add_row({*name, fixed(ms, 2), from});
    total += ms;
    ++programs;
  }
  table.print(std::cout);
  std::cout << programs << " programs in " << fixed(total, 1) << " ms (" << fixed(total / programs, 2)
            << " ms per program)\n";
  return 0;
}

}  // namespace

int cache_command(const std::vector<std::string>& args) {
  CLI::App app{"the compiled-program cache: show (default), clear, warm", "duet cache"};
  std::string action = "show";
  std::string device;
  app.add_option("action", action, "show, clear or warm")->check(CLI::IsMember({"show", "clear", "warm"}));
  app.add_option("-d,--device", device, "device for warm (default: Device::open())");
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (action == "clear") {
    const std::size_t removed = clear_cache();
    const CacheInfo info = cache_info();
    std::cout << "removed " << removed << " entries from " << info.directory << '\n';
    if (!info.enabled) std::cout << "the cache is off here (" << info.disabled_reason << ")\n";
    return 0;
  }
  if (action == "warm") return warm(device);
  show();
  return 0;
}

}  // namespace duet::tool
