// One of the two libraries of the clash test (clash_main.cpp), built twice: as duet_test_clash_a
// with clash_a/step.duet and as duet_test_clash_b with clash_b/step.duet, both in the namespace
// duet_test_clash. CLASH_FUNCTION names this copy's entry point.
#include <duet/extension.hpp>

#include "duet_embedded_kernels.hpp"

const char* CLASH_FUNCTION() { return embedded_kernels.source("step"); }
