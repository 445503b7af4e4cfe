# Included by the top CMakeLists.txt when DUET_BUILD_FUZZERS is on, before any target: checks that
# the compiler is Clang with libFuzzer, then instruments everything that follows (the library too,
# so that libFuzzer's coverage and the sanitizers see into the parsers). Any undefined behaviour
# aborts, so that libFuzzer keeps the input.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR
    "DUET_BUILD_FUZZERS needs Clang (libFuzzer), but the C++ compiler is ${CMAKE_CXX_COMPILER_ID} "
    "(${CMAKE_CXX_COMPILER}). Configure a build directory of its own with clang, e.g. "
    "CXX=clang++ cmake -S . -B build-fuzz -DDUET_BUILD_FUZZERS=ON (Debian: clang libclang-rt-14-dev).")
endif()
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer,address,undefined")
set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=fuzzer,address,undefined")
check_cxx_source_compiles([[
#include <cstddef>
#include <cstdint>
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }
]] DUET_HAVE_LIBFUZZER)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(NOT DUET_HAVE_LIBFUZZER)
  unset(DUET_HAVE_LIBFUZZER CACHE)  # checked again at the next configure
  message(FATAL_ERROR
    "DUET_BUILD_FUZZERS: ${CMAKE_CXX_COMPILER} cannot link -fsanitize=fuzzer,address,undefined; "
    "install Clang's runtime libraries (Debian: libclang-rt-14-dev for clang 14)")
endif()
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
add_link_options(-fsanitize=address,undefined)
# The fuzzers are ctest entries even when BUILD_TESTING (the doctest suite) is off.
enable_testing()
