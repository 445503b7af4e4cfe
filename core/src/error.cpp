// Messages of duet's error classes: built once here so every backend reports failures alike.
#include "duet/error.hpp"
#include "duet/version.hpp"

#include <sstream>

namespace duet {

const char* to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::config: return "config";
    case ErrorKind::backend_unavailable: return "backend_unavailable";
    case ErrorKind::device_not_found: return "device_not_found";
    case ErrorKind::compile: return "compile";
    case ErrorKind::kernel_not_found: return "kernel_not_found";
    case ErrorKind::argument: return "argument";
    case ErrorKind::buffer_size: return "buffer_size";
    case ErrorKind::out_of_memory: return "out_of_memory";
    case ErrorKind::device_mismatch: return "device_mismatch";
    case ErrorKind::released: return "released";
    case ErrorKind::driver: return "driver";
    case ErrorKind::kernel_fault: return "kernel_fault";
    case ErrorKind::unordered_access: return "unordered_access";
  }
  return "unknown";
}

Error::Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}

namespace {

std::string driver_message(const std::string& backend, const std::string& call, long code,
                           const std::string& name, const std::string& detail) {
  std::ostringstream s;
  s << backend << ": " << call << " failed with " << name << " (" << code << ")";
  if (!detail.empty()) s << ": " << detail;
  return s.str();
}

std::string compile_message(const std::string& backend, const std::string& source_name,
                            const std::string& log, int line) {
  std::ostringstream s;
  s << backend << ": kernel source '" << source_name << "' did not compile";
  if (line > 0) s << " (first error at line " << line << ")";
  s << ". Compiler log:\n" << log;
  return s.str();
}

}  // namespace

DriverError::DriverError(const std::string& backend, const std::string& call, long native_code,
                         const std::string& native_name, const std::string& detail)
    : Error(ErrorKind::driver, driver_message(backend, call, native_code, native_name, detail)),
      backend_(backend),
      call_(call),
      native_code_(native_code),
      native_name_(native_name) {}

CompileError::CompileError(const std::string& backend, const std::string& source_name,
                           const std::string& log, std::vector<std::string> options, int line)
    : Error(ErrorKind::compile, compile_message(backend, source_name, log, line)),
      backend_(backend),
      source_name_(source_name),
      log_(log),
      options_(std::move(options)),
      line_(line) {}

const char* version() { return "0.1.0"; }

}  // namespace duet
