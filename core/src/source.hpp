// Assembling complete kernel source for a backend, with the map that reads compiler logs back.
#pragma once

#include <string>

#include "duet/device.hpp"
#include "source_map.hpp"

namespace duet::detail {

// Backend marker + prelude + defines + `#line 1 "name"` + source. Throws ArgumentError on a define
// that is not an identifier or a value with a line break.
AssembledSource assemble_source(const std::string& backend, const std::string& source, const Defines& defines,
                                const std::string& name);

}  // namespace duet::detail
