// duet's error hierarchy. Every failure the library reports is a duet::Error subclass carrying a
// portable kind; driver failures also carry the native code, its name and the call that failed.
// Messages say what was wrong and what to do about it. Nothing in duet aborts the process.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "duet/export.hpp"

namespace duet {

enum class ErrorKind {
  config,               // bad DUET_BACKEND / DUET_DEVICE value or device spec
  backend_unavailable,  // asked-for backend did not load (no driver, no platform, ...)
  device_not_found,     // index out of range or no name match
  compile,              // the kernel source did not compile
  kernel_not_found,     // no kernel of that name in the program
  argument,             // wrong argument count, kind or type for a launch or call
  buffer_size,          // a transfer or launch needs more elements than the buffer holds
  out_of_memory,        // the device could not allocate
  device_mismatch,      // an object of one device handed to another device
  released,             // use of a released or moved-from object
  driver,               // any other failure reported by the driver
  kernel_fault,         // a kernel faulted, wrote past a buffer (DUET_CHECK) or never ended
  unordered_access,     // DUET_CHECK: two queues use the same bytes with nothing ordering them
};

DUET_API const char* to_string(ErrorKind kind);

class DUET_API Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message);
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

struct DUET_API ConfigError : Error {
  explicit ConfigError(const std::string& m) : Error(ErrorKind::config, m) {}
};
struct DUET_API BackendUnavailableError : Error {
  explicit BackendUnavailableError(const std::string& m) : Error(ErrorKind::backend_unavailable, m) {}
};
struct DUET_API DeviceNotFoundError : Error {
  explicit DeviceNotFoundError(const std::string& m) : Error(ErrorKind::device_not_found, m) {}
};
struct DUET_API KernelNotFoundError : Error {
  explicit KernelNotFoundError(const std::string& m) : Error(ErrorKind::kernel_not_found, m) {}
};
struct DUET_API ArgumentError : Error {
  explicit ArgumentError(const std::string& m) : Error(ErrorKind::argument, m) {}
};
// Event::duration_ms of an event that has no duration: one of Queue::record() (a point, not an
// operation), or of a queue made without QueueOptions::command_timing. An ArgumentError, so its
// kind is ErrorKind::argument.
struct DUET_API TimingUnavailableError : ArgumentError {
  explicit TimingUnavailableError(const std::string& m) : ArgumentError(m) {}
};
// A queue operation that a graph cannot record, made while the queue captures one (duet/graph.hpp),
// or a capture call out of turn; the message names the call. An ArgumentError, like
// TimingUnavailableError, so its kind is ErrorKind::argument. The capture goes on unchanged.
struct DUET_API CaptureError : ArgumentError {
  explicit CaptureError(const std::string& m) : ArgumentError(m) {}
};
struct DUET_API BufferSizeError : Error {
  explicit BufferSizeError(const std::string& m) : Error(ErrorKind::buffer_size, m) {}
};
struct DUET_API DeviceMismatchError : Error {
  explicit DeviceMismatchError(const std::string& m) : Error(ErrorKind::device_mismatch, m) {}
};
struct DUET_API ReleasedError : Error {
  explicit ReleasedError(const std::string& m) : Error(ErrorKind::released, m) {}
};
// Under DUET_CHECK=1: an operation on one queue uses bytes of a buffer that an operation on another
// queue writes (or, for a write, reads or writes), and nothing orders the two (no Queue::wait for its
// event, no finish or wait on the host in between). The message names the buffer's size, both
// queues and both operations. Memory that orders itself (Array, RawBuffer::order_between_queues)
// never raises it.
struct DUET_API UnorderedAccessError : Error {
  explicit UnorderedAccessError(const std::string& m) : Error(ErrorKind::unordered_access, m) {}
};

class DUET_API OutOfMemoryError : public Error {
 public:
  OutOfMemoryError(const std::string& m, std::uint64_t requested, std::uint64_t device_memory)
      : Error(ErrorKind::out_of_memory, m), requested_(requested), device_memory_(device_memory) {}
  std::uint64_t requested_bytes() const noexcept { return requested_; }
  std::uint64_t device_memory_bytes() const noexcept { return device_memory_; }

 private:
  std::uint64_t requested_;
  std::uint64_t device_memory_;
};

// A driver call failed. native_name is e.g. "CUDA_ERROR_LAUNCH_FAILED" or "CL_OUT_OF_RESOURCES".
class DUET_API DriverError : public Error {
 public:
  DriverError(const std::string& backend, const std::string& call, long native_code,
              const std::string& native_name, const std::string& detail = {});
  const std::string& backend() const noexcept { return backend_; }
  const std::string& call() const noexcept { return call_; }
  long native_code() const noexcept { return native_code_; }
  const std::string& native_name() const noexcept { return native_name_; }

 private:
  std::string backend_, call_;
  long native_code_;
  std::string native_name_;
};

// The kernel source did not compile. what() names the source and the line and ends with the
// compiler's whole log, once, so printing what() alone shows everything; log() is that same log on
// its own, for programs that show it apart. line() is the first line of the user's own source (not
// the prelude) that the log points at, or 0 when it names none.
class DUET_API CompileError : public Error {
 public:
  CompileError(const std::string& backend, const std::string& source_name, const std::string& log,
               std::vector<std::string> options, int line);
  const std::string& backend() const noexcept { return backend_; }
  const std::string& source_name() const noexcept { return source_name_; }
  const std::string& log() const noexcept { return log_; }
  const std::vector<std::string>& options() const noexcept { return options_; }
  int line() const noexcept { return line_; }

 private:
  std::string backend_, source_name_, log_;
  std::vector<std::string> options_;
  int line_;
};

// A kernel went wrong while it ran, found at the next call that waits for the device (finish, an
// event's wait, a map) or, under DUET_CHECK=1, right after its launch:
//   device_fault   the driver reports a fault (an illegal address, a trap): native_name() says
//                  which. On CUDA the context is lost: device_usable() is false, and every later
//                  call on the device fails; report it and end the process.
//   out_of_bounds  DUET_CHECK=1 found the guard zone before or after a buffer argument changed:
//                  argument() is its 1-based position. The zone is restored; the device goes on.
//   timeout        the queue's work did not finish within DUET_KERNEL_TIMEOUT seconds. The device
//                  is given up (device_usable() false): duet waits for it no more, leaks what it
//                  holds rather than hang when freeing it, and the process can report and exit.
// kernels() names the kernel at fault when duet knows it (DUET_CHECK=1, or one launch since the
// queue last finished); otherwise the kernels launched since then, oldest first.
class DUET_API KernelFaultError : public Error {
 public:
  enum class Fault { device_fault, out_of_bounds, timeout };
  KernelFaultError(Fault fault, const std::string& message, std::vector<std::string> kernels,
                   std::string native_name, int argument, bool device_usable)
      : Error(ErrorKind::kernel_fault, message),
        fault_(fault),
        kernels_(std::move(kernels)),
        native_name_(std::move(native_name)),
        argument_(argument),
        device_usable_(device_usable) {}
  Fault fault() const noexcept { return fault_; }
  const std::vector<std::string>& kernels() const noexcept { return kernels_; }
  const std::string& native_name() const noexcept { return native_name_; }
  int argument() const noexcept { return argument_; }
  bool device_usable() const noexcept { return device_usable_; }

 private:
  Fault fault_;
  std::vector<std::string> kernels_;
  std::string native_name_;
  int argument_;
  bool device_usable_;
};

}  // namespace duet
