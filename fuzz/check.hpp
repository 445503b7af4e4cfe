// What every harness asserts, whatever the input: the code under test returns or throws a
// duet::Error; anything else (another exception, a failed property) is a bug, reported as a crash
// so that libFuzzer keeps the input. Sanitizer reports and timeouts are crashes of their own.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "duet/error.hpp"

namespace duet::fuzz {

[[noreturn]] inline void fail(const std::string& what) {
  std::string shown;  // inputs hold NUL bytes, which would end a C string early
  for (char c : what) shown += c == '\0' ? std::string("\\0") : std::string(1, c);
  std::fprintf(stderr, "\nduet fuzz: CONTRACT BROKEN: %s\n", shown.c_str());
  std::fflush(stderr);
  std::abort();
}

inline void check(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

// Runs `f`; true when it returned, false when it threw a duet::Error. Any other exception fails.
template <class F>
bool returns_or_duet_error(F&& f) {
  try {
    f();
    return true;
  } catch (const duet::Error&) {
    return false;
  } catch (const std::exception& e) {
    fail(std::string("an exception that is not a duet::Error: ") + e.what());
  } catch (...) {
    fail("an exception that is not a std::exception");
  }
}

// Runs `f`, which must not throw at all.
template <class F>
void never_throws(F&& f, const char* what) {
  try {
    f();
  } catch (const std::exception& e) {
    fail(std::string(what) + " threw: " + e.what());
  } catch (...) {
    fail(std::string(what) + " threw something that is not a std::exception");
  }
}

}  // namespace duet::fuzz
