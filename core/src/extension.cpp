// The module interface (duet/extension.hpp): the registry of embedded kernel sources (which
// builtin_kernel_source() and builtin_kernel_names() read), keyed by library namespace and stem, with
// the clashes it found; the per-device cache of built-in kernels, and per-device slots.
#include "duet/extension.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <vector>

#include "duet/kernels.hpp"
#include "prelude.hpp"
#include "state.hpp"

namespace duet {
namespace {

struct Registered {
  const extension::KernelSourceRegistration* owner;
  const char* library;
  const char* target;
  extension::KernelSource source;
};

struct Clash {
  const extension::KernelSourceRegistration* first;
  const extension::KernelSourceRegistration* second;
  std::string message;
};

struct SourceRegistry {
  std::mutex mutex;
  std::vector<Registered> sources;  // in the order registered; a name twice only with one text
  std::vector<Clash> clashes;
  // Set while `clashes` is not empty: read without the lock by builtin kernels' fast path.
  std::atomic<bool> clashed{false};
  // builtin_kernel_names(): each source by its shortest name, null-terminated; rebuilt when stale.
  bool names_stale = true;
  std::vector<std::string> name_texts;
  std::vector<const char*> names;
};

// Never destroyed: libraries register from their static initialisers and may be unloaded after us.
SourceRegistry& source_registry() {
  static auto* registry = new SourceRegistry;
  return *registry;
}

// The object file (shared library or program) that holds `address`, for messages.
std::string origin(const void* address) {
  Dl_info info{};
  if (dladdr(address, &info) != 0 && info.dli_fname && *info.dli_fname) return info.dli_fname;
  return "an unknown file";
}

std::string qualified(const Registered& r) { return std::string(r.library) + "/" + r.source.name; }

std::string describe(const Registered& r) {
  return "target " + std::string(r.target) + " (in " + origin(r.source.source) + ")";
}

void throw_if_clashed(const SourceRegistry& r) {
  if (r.clashes.empty()) return;
  std::string message = r.clashes.front().message;
  if (r.clashes.size() > 1) message += " (and " + std::to_string(r.clashes.size() - 1) + " more clashes)";
  throw ConfigError(message);
}

// Which group an unqualified name is looked for in first: the core's, duet's modules', the rest.
int group(const char* library) {
  if (std::strcmp(library, "duet") == 0) return 0;
  return std::strncmp(library, "duet.", 5) == 0 ? 1 : 2;
}

const Registered* find_exact(const SourceRegistry& r, std::string_view library, std::string_view stem) {
  for (const Registered& s : r.sources)
    if (library == s.library && stem == s.source.name) return &s;
  return nullptr;
}

// The sources a bare stem may mean: those of the first group (see group()) that has it, one per
// library.
std::vector<const Registered*> candidates(const SourceRegistry& r, std::string_view stem) {
  std::vector<const Registered*> found;
  int best = 3;
  for (const Registered& s : r.sources) {
    if (stem != s.source.name) continue;
    const int g = group(s.library);
    if (g > best) continue;
    if (g < best) {
      found.clear();
      best = g;
    }
    const bool seen = std::any_of(found.begin(), found.end(),
                                  [&](const Registered* f) { return std::strcmp(f->library, s.library) == 0; });
    if (!seen) found.push_back(&s);
  }
  return found;
}

// `name` resolved as duet/extension.hpp says, or nullptr; ArgumentError when it is ambiguous.
const Registered* resolve(const SourceRegistry& r, std::string_view name) {
  const std::size_t slash = name.find('/');
  if (slash != std::string_view::npos) return find_exact(r, name.substr(0, slash), name.substr(slash + 1));
  const std::vector<const Registered*> found = candidates(r, name);
  if (found.size() <= 1) return found.empty() ? nullptr : found.front();
  std::string message = "kernel source name '" + std::string(name) + "' is ambiguous: it is embedded as ";
  for (std::size_t k = 0; k < found.size(); ++k)
    message += (k == 0 ? "'" : k + 1 == found.size() ? " and '" : ", '") + qualified(*found[k]) + "'";
  throw ArgumentError(message + "; ask for one of these by its qualified name");
}

void rebuild_names(SourceRegistry& r) {
  r.name_texts.clear();
  for (const Registered& s : r.sources) {
    if (find_exact(r, s.library, s.source.name) != &s) continue;  // the same source registered again
    const std::vector<const Registered*> found = candidates(r, s.source.name);
    const bool bare = found.size() == 1 && std::strcmp(found.front()->library, s.library) == 0;
    r.name_texts.push_back(bare ? std::string(s.source.name) : qualified(s));
  }
  r.names.clear();
  for (const std::string& n : r.name_texts) r.names.push_back(n.c_str());
  r.names.push_back(nullptr);
  r.names_stale = false;
}

Kernel library_kernel(const Device& device, const char* library, const char* file, const char* kernel,
                      const Defines& defines) {
  SourceRegistry& r = source_registry();
  detail::DeviceCore& core = *detail::Access::core(device);
  const bool clashed = r.clashed.load(std::memory_order_acquire);
  if (defines.empty() && !clashed) {
    // The launch fast path: callers pass string literals, so their addresses identify the kernel
    // without building a key.
    std::lock_guard<std::mutex> lock(core.builtin_mutex);
    for (const auto& entry : core.plain_kernels)
      if (entry.library == library && entry.file == file && entry.kernel == kernel &&
          std::strcmp(entry.file_name.c_str(), file) == 0 && std::strcmp(entry.kernel_name.c_str(), kernel) == 0)
        return entry.compiled;
  }
  // The library is part of the key: two libraries' files of one name are two sources.
  std::string key = std::string(library) + "/" + file + "/" + kernel;
  for (const auto& [name, value] : defines) key += ";" + name + "=" + value;
  if (!clashed) {
    std::lock_guard<std::mutex> lock(core.builtin_mutex);
    auto found = core.builtin_kernels.find(key);
    if (found != core.builtin_kernels.end()) return found->second;
  }
  const char* source = nullptr;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    throw_if_clashed(r);
    const Registered* s = find_exact(r, library, file);
    if (!s)
      throw ArgumentError(std::string("no kernel source '") + file + "' is registered in namespace '" + library +
                          "'; embed it with duet_embed_kernels() in CMake and link that library");
    source = s->source.source;
  }
  Kernel k = device.compile(source, defines, std::string(file) + ".duet").kernel(kernel);
  std::lock_guard<std::mutex> lock(core.builtin_mutex);
  core.builtin_kernels.emplace(std::move(key), k);
  if (defines.empty()) core.plain_kernels.push_back({library, file, kernel, file, kernel, k});
  return k;
}

}  // namespace

namespace extension {

KernelSourceRegistration::KernelSourceRegistration(KernelLibrary library, const char* target,
                                                   const KernelSource* sources, std::size_t count) noexcept {
  SourceRegistry& r = source_registry();
  try {
    std::lock_guard<std::mutex> lock(r.mutex);
    for (std::size_t k = 0; k < count; ++k) {
      const Registered added{this, library.name(), target, sources[k]};
      const Registered* known = find_exact(r, added.library, added.source.name);
      if (known && std::strcmp(known->source.source, added.source.source) != 0) {
        std::string message = "kernel source '" + qualified(added) + "' is embedded twice with different texts, by " +
                              describe(*known) + " and by " + describe(added) +
                              "; a namespace belongs to one library: give one of them another NAMESPACE in "
                              "duet_embed_kernels(). duet uses no embedded source until then";
        // Nothing can be thrown from a static initialiser: say it now, and throw at every lookup.
        std::fprintf(stderr, "duet: error: %s\n", message.c_str());
        r.clashes.push_back({known->owner, this, std::move(message)});
        r.clashed.store(true, std::memory_order_release);
      }
      r.sources.push_back(added);
    }
    r.names_stale = true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "duet: error: cannot register the kernel sources of %s: %s\n", target, e.what());
  }
}

KernelSourceRegistration::~KernelSourceRegistration() {
  SourceRegistry& r = source_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.sources.erase(std::remove_if(r.sources.begin(), r.sources.end(), [&](const Registered& s) { return s.owner == this; }),
                  r.sources.end());
  r.clashes.erase(std::remove_if(r.clashes.begin(), r.clashes.end(),
                                 [&](const Clash& c) { return c.first == this || c.second == this; }),
                  r.clashes.end());
  r.clashed.store(!r.clashes.empty(), std::memory_order_release);
  r.names_stale = true;
}

const char* KernelLibrary::source(const char* file) const {
  SourceRegistry& r = source_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  throw_if_clashed(r);
  const Registered* s = file ? find_exact(r, name_, file) : nullptr;
  return s ? s->source.source : nullptr;
}

Kernel KernelLibrary::kernel(const Device& device, const char* file, const char* kernel, const Defines& defines) const {
  return library_kernel(device, name_, file, kernel, defines);
}

const char* kernel_source(std::string_view name) {
  SourceRegistry& r = source_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  throw_if_clashed(r);
  const Registered* s = resolve(r, name);
  return s ? s->source.source : nullptr;
}

Kernel builtin_kernel(const Device& device, const char* file, const char* kernel, const Defines& defines) {
  const char* library = nullptr;
  const char* stem = nullptr;
  {
    SourceRegistry& r = source_registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    throw_if_clashed(r);
    const Registered* s = resolve(r, file);
    if (!s)
      throw ArgumentError(std::string("no kernel source '") + file +
                          "' is registered; embed it with duet_embed_kernels() in CMake and link that library");
    // The registered strings: the same addresses on every call, so the fast path finds them.
    library = s->library;
    stem = s->source.name;
  }
  return library_kernel(device, library, stem, kernel, defines);
}

std::shared_ptr<void> device_slot(const Device& device, std::string_view key,
                                  const std::function<std::shared_ptr<void>()>& make) {
  device.info();  // ReleasedError for an empty handle
  detail::DeviceCore& core = *detail::Access::core(device);
  // Made under the lock, so two threads never both make one; slots are few and made once.
  std::lock_guard<std::mutex> lock(core.slots_mutex);
  auto found = core.slots.find(key);
  if (found != core.slots.end()) return found->second;
  std::shared_ptr<void> value = make();
  core.slots.emplace(std::string(key), value);
  return value;
}

std::shared_ptr<void> queue_slot(const Queue& queue, std::string_view key,
                                 const std::function<std::shared_ptr<void>()>& make) {
  Queue::State& state = queue.state();  // ReleasedError for an empty handle
  std::lock_guard<std::mutex> lock(state.slots_mutex);
  auto found = state.slots.find(key);
  if (found != state.slots.end()) return found->second;
  std::shared_ptr<void> value = make();
  state.slots.emplace(std::string(key), value);
  return value;
}

int as_int(const char* call, const char* what, std::size_t value) {
  if (value > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw ArgumentError(std::string(call) + ": " + what + " = " + std::to_string(value) +
                        " is larger than the kernel supports (2^31 - 1)");
  return static_cast<int>(value);
}

}  // namespace extension

const char* builtin_kernel_source(const char* name) { return name ? extension::kernel_source(name) : nullptr; }

const char* dialect_prelude() { return embedded::prelude(); }

const char* const* builtin_kernel_names() {
  SourceRegistry& r = source_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  throw_if_clashed(r);
  if (r.names_stale) rebuild_names(r);
  return r.names.data();
}

}  // namespace duet
