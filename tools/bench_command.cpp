// `duet bench`: the benchmark in bench/ (to be written).
#include <iostream>

#include "commands.hpp"

namespace duet::tool {

int bench_command(const std::vector<std::string>& args) {
  (void)args;
  std::cerr << "duet bench: not implemented yet\n";
  return 1;
}

}  // namespace duet::tool
