// How the duet tool reports failures: the exception's message, and for a kernel that did not
// compile the options and the compiler's whole log, since the message alone rarely says enough.
#pragma once

#include <exception>
#include <iosfwd>
#include <string>

namespace duet::tool {

// what(), followed for a duet::CompileError by the compiler options and, unless the message
// already quotes it, the compiler log.
std::string describe_error(const std::exception& e);

// "duet: error: <describe_error(e)>" on `out`.
void print_error(std::ostream& out, const std::exception& e);

}  // namespace duet::tool
