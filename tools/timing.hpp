// The device-side timing of the built-in kernels' cases (duet_builtins, builtins/case_timing.hpp),
// under the tool's namespace for the commands that time kernels of their own (`duet tune`).
#pragma once

#include "case_timing.hpp"

namespace duet::tool {

using builtins::time_runs;
using builtins::Timing;

}  // namespace duet::tool
