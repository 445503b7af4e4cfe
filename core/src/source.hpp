// Assembling complete kernel source for a backend, and reading compiler logs back.
#pragma once

#include <string>

#include "duet/device.hpp"

namespace duet::detail {

// Backend marker + prelude + defines + `#line 1 "name"` + source. Throws ArgumentError on a define
// that is not an identifier or a value with a line break.
std::string assemble_source(const std::string& backend, const std::string& source,
                            const Defines& defines, const std::string& name);

// The first line of the caller's source `name` that a compiler log reports an error at, or 0.
int compile_error_line(const std::string& log, const std::string& name);

}  // namespace duet::detail
