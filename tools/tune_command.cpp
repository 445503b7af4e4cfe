// `duet tune`: searches kernel parameters on the current device (to be written).
#include <iostream>

#include "commands.hpp"

namespace duet::tool {

int tune_command(const std::vector<std::string>& args) {
  (void)args;
  std::cerr << "duet tune: not implemented yet\n";
  return 1;
}

}  // namespace duet::tool
