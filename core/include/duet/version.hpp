// duet's version.
#pragma once

#include "duet/export.hpp"

#define DUET_VERSION_MAJOR 0
#define DUET_VERSION_MINOR 1
#define DUET_VERSION_PATCH 0

namespace duet {
DUET_API const char* version();  // "0.1.0"
}
