// `duet version`: the library version and the backends this build of duet contains.
#include <iostream>

#include "commands.hpp"
#include "duet/duet.hpp"

namespace duet::tool {

int version_command() {
  std::cout << "duet " << duet::version() << '\n';
  std::cout << "backends:";
  for (const auto& backend : duet::backends()) std::cout << ' ' << backend.name;
  std::cout << '\n';
  return 0;
}

}  // namespace duet::tool
