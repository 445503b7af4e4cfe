// The core's own unit tests: private parts of libduet, compiled into this binary from core/src
// (the library does not export them), tested without a device.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
