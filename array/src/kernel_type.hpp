// The type a generated kernel declares for an array's elements: bool (ScalarType::b8) is stored as
// uchar 0 or 1, since no backend takes bool in device memory or as a kernel parameter; every other
// type is its own. Launch arguments are typed the same way, so the launch checks pass.
#pragma once

#include "duet/scalar_type.hpp"

namespace duet::detail {

inline ScalarType kernel_type(ScalarType t) { return is_bool(t) ? ScalarType::u8 : t; }
inline const char* kernel_type_name(ScalarType t) { return to_string(kernel_type(t)); }

}  // namespace duet::detail
