// The fixed-seed inputs of the built-in kernels' cases (duet_builtins, builtins/case_inputs.hpp),
// under the tool's namespace for `duet tune`, which checks with the same data.
#pragma once

#include "case_inputs.hpp"

namespace duet::tool {

using builtins::kMatmulSampleSeed;
using builtins::random_floats;

}  // namespace duet::tool
