// `duet bench`: the benchmark in bench/ (the same as the duet-bench executable).
#include "bench_main.hpp"
#include "commands.hpp"

namespace duet::tool {

int bench_command(const std::vector<std::string>& args) { return duet::bench::bench_main(args, "duet bench"); }

}  // namespace duet::tool
