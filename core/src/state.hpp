// The shared state behind the public handles: each public class is a thin handle over one of these,
// which in turn owns the backend object. Core keeps here what is backend-neutral: the program cache
// and the kernel signatures parsed from dialect source.
#pragma once

#include <condition_variable>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>
#include <unordered_map>

#include "backend.hpp"
#include "duet/program.hpp"
#include "duet/queue.hpp"

namespace duet {

namespace detail {

struct DeviceCore {
  std::shared_ptr<backend::DeviceImpl> impl;
  const backend::Backend* backend = nullptr;  // the backend the device belongs to
  std::mutex cache_mutex;
  // Programs compiled on this device, by complete source text: each is compiled once.
  std::map<std::string, std::shared_ptr<Program::State>> programs;
  std::set<std::string> compiling;      // keys some thread is compiling now
  std::condition_variable compiled;     // signalled when one of them is done
  // Built-in kernels by "file/kernel;defines" (see extension.cpp): the launch fast path.
  std::mutex shared_mutex;
  std::unordered_map<std::string, Kernel> shared_kernels;
  struct PlainKernel {
    const char* file;
    const char* kernel;
    Kernel compiled;
  };
  std::vector<PlainKernel> plain_kernels;  // those without defines, by the callers' literals
  // What modules keep per device (extension::device_slot), by key.
  std::mutex slots_mutex;
  std::map<std::string, std::shared_ptr<void>, std::less<>> slots;
};

}  // namespace detail

struct Program::State {
  Device device;
  std::shared_ptr<backend::ProgramImpl> impl;
  std::once_flag parsed;
  std::map<std::string, KernelSignature> signatures;  // parsed from the dialect source
  std::vector<std::string> native_names;              // kernels found in a native source
  std::mutex kernels_mutex;
  std::map<std::string, std::shared_ptr<const Kernel::State>> kernels;
};

struct Kernel::State {
  Device device;
  std::shared_ptr<backend::ProgramImpl> program;  // keeps the module alive
  std::shared_ptr<backend::KernelImpl> impl;
  std::string name;
  std::optional<KernelSignature> signature;
};

namespace detail {

// An Event's state. Operations hand out pending events (no driver event yet); one is recorded
// when it is first used, or just before the next operation on its queue if it is still held, so it
// always marks the point right after its own operation.
struct EventState {
  Device device;
  std::mutex mutex;
  std::shared_ptr<backend::EventImpl> impl;   // null while pending
  std::shared_ptr<backend::QueueImpl> queue;  // where a pending event is recorded

  backend::EventImpl& materialise() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!impl) {
      impl = queue->record();
      queue.reset();
    }
    return *impl;
  }
};

}  // namespace detail

struct Queue::State {
  Device device;
  std::shared_ptr<backend::QueueImpl> impl;
  std::shared_ptr<detail::EventState> last;   // the event of the latest operation, maybe pending
  std::shared_ptr<detail::EventState> spare;  // a pending event nobody kept, for reuse
  std::vector<backend::LaunchArg> launch_scratch;
};

}  // namespace duet
