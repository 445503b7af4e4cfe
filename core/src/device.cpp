// Device: queues and compiling dialect source. Compiling first refuses what no driver should be
// given (a NUL byte, a source that cannot declare a kernel), the same way on every backend; then it
// assembles the complete source (backend marker, prelude, the caller's defines, then the caller's
// source behind a #line mark so compiler messages count the caller's lines), caches the result per
// device, and maps a failed compile to a CompileError that points at the caller's line.
#include "duet/device.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>
#include <string_view>

#include "disk_cache.hpp"
#include "duet/error.hpp"
#include "duet/program.hpp"
#include "duet/queue.hpp"
#include "duet/version.hpp"
#include "log.hpp"
#include "prelude.hpp"
#include "signature.hpp"
#include "source.hpp"
#include "state.hpp"
#include "view_offsets.hpp"

namespace duet {
detail::AssembledSource detail::assemble_source(const std::string& backend, const std::string& source,
                                                const Defines& defines, const std::string& name) {
  // The prelude picks its branch by DUET_<BACKEND> (DUET_CUDA, DUET_OPENCL).
  std::string full = "#define DUET_";
  for (char c : backend) full += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  full += " 1\n";
  full += "#line 1 \"duet/prelude.h\"\n";
  full += embedded::prelude();
  full += "\n#line 1 \"duet/defines\"\n";
  for (const auto& [key, value] : defines) {
    if (!is_identifier(key))
      throw ArgumentError("define name '" + key + "' is not an identifier (letters, digits, _)");
    if (value.find('\n') != std::string::npos || value.find('\r') != std::string::npos)
      throw ArgumentError("the value of define '" + key + "' contains a line break");
    full += "#define " + key + " " + value + "\n";
  }
  full += "#line 1 \"" + name + "\"\n";
  full += source;
  full += "\n";
  return AssembledSource(std::move(full));
}

std::uintptr_t Device::native_context() const {
  info();  // throws on an empty handle
  return core_->impl->native_context();
}

Queue Device::queue() const { return queue(QueueOptions{}); }

Queue Device::queue(const QueueOptions& options) const {
  const auto& i = info();  // throws on an empty handle
  auto state = std::make_shared<Queue::State>();
  state->device = *this;
  state->command_timing = options.command_timing;
  state->queue = std::make_shared<detail::LockedQueue>();
  state->queue->impl = core_->impl->create_queue(options.priority == QueuePriority::high);
  state->queue->label = "queue " + std::to_string(++core_->queues_made) + " of " + i.id();
  return detail::Access::make_queue(std::move(state));
}

namespace {

std::string joined(const std::vector<std::string>& options) {
  std::string s;
  for (const auto& o : options) s += (s.empty() ? "" : " ") + o;
  return s;
}

// A program compiled by another backend to PTX, which the device loads (DeviceImpl::ptx_target).
struct PtxRoute {
  const backend::Backend* compiler = nullptr;
  std::string compiler_name;  // the backend whose source `full` is ("cuda")
  std::string target;         // "compute_90a"
  std::map<std::string, std::vector<bool>> buffer_params;
};

// The program from the device's compiler, or through PTX from another backend's.
backend::BuildResult compile_program(detail::DeviceCore& core, const detail::AssembledSource& full,
                                     const std::string& name, const std::vector<std::string>& options,
                                     const PtxRoute* ptx, std::string& compiler_backend) {
  compiler_backend = core.impl->info().backend;
  if (!ptx) return core.impl->build(full, name, options);
  compiler_backend = ptx->compiler_name;
  backend::BuildResult built;
  std::string text;
  // Either step may fail where the two come from different toolkits (a driver older than the PTX
  // NVRTC writes): the log says how to leave the route.
  const std::string leave = "\n(this program went to " + core.info.id() + " as " + ptx->target +
                            " PTX from " + ptx->compiler_name +
                            "'s compiler; DUET_PTX_PROGRAMS=0 has the device's own "
                            "compiler take it, and the libraries pick kernels without these instructions)";
  if (!ptx->compiler->compile_ptx(full.text(), name, ptx->target, text, built.log, built.options)
           .value_or(false)) {
    built.log += leave;
    return built;
  }
  std::string log;
  built.program = core.impl->load_ptx(text, name, ptx->buffer_params, log);
  if (!built.program) built.log += (built.log.empty() ? "" : "\n") + log + leave;
  return built;
}

// Compiles `full` (complete source for the backend, or for ptx->compiler) once per device: from the
// in-process cache, else from the disk cache, else with the compiler (then stored on disk).
std::shared_ptr<Program::State> build_program(const Device& device, const detail::AssembledSource& full,
                                              const std::string& name,
                                              const std::vector<std::string>& options,
                                              const PtxRoute* ptx = nullptr) {
  detail::DeviceCore& core = *detail::Access::core(device);
  const DeviceInfo& info = device.info();
  std::string key =
      joined(options) + '\n' + (ptx ? "ptx " + ptx->target + '\n' : std::string()) + full.text();

  // One compile per key: a thread that finds the key being compiled waits for that compile, while
  // compiles of other sources (duet tune's candidates, other threads' programs) run in parallel.
  std::unique_lock<std::mutex> lock(core.cache_mutex);
  for (;;) {
    auto cached = core.programs.find(key);
    if (cached != core.programs.end()) return cached->second;
    if (!core.compiling.count(key)) break;
    core.compiled.wait(lock);
  }
  core.compiling.insert(key);
  lock.unlock();
  struct Finished {  // on every way out, success or CompileError: release the key, wake waiters
    detail::DeviceCore& core;
    const std::string& key;
    ~Finished() {
      std::lock_guard<std::mutex> guard(core.cache_mutex);
      core.compiling.erase(key);
      core.compiled.notify_all();
    }
  } finished{core, key};

  // Everything that decides the compiled code, so an entry is only ever loaded where it was built.
  const std::string disk_key = std::string("duet ") + version() + '\n' + info.backend + '\n' + info.name +
                               '\n' + core.impl->compiler_identity() + '\n' + key;
  std::shared_ptr<backend::ProgramImpl> program;
  if (auto binary = detail::cache_load(disk_key)) {
    program = core.impl->load_binary(*binary, name);
    if (!program) detail::cache_count_rejected();
    detail::log_debug(std::string("program cache ") + (program ? "hit" : "entry rejected by the driver") +
                      ": " + name + " on " + info.id());
  }
  // Other processes sharing the cache may be compiling the same program right now: the first to
  // take the entry's lock compiles it, the others wait for it and load what it stored.
  detail::CacheEntryLock entry_lock;
  if (!program) {
    entry_lock = detail::cache_lock(disk_key);
    if (entry_lock.held())
      if (auto binary = detail::cache_load(disk_key, true)) {
        program = core.impl->load_binary(*binary, name);
        if (!program) detail::cache_count_rejected(true);
        detail::log_debug(std::string("program cache ") +
                          (program ? "hit after another process compiled it" : "entry rejected by the driver") +
                          ": " + name + " on " + info.id());
      }
  }
  if (!program) {
    detail::log_debug("program cache miss: compiling " + name + " on " + info.id());
    std::string compiler_backend;
    backend::BuildResult built = compile_program(core, full, name, options, ptx, compiler_backend);
    if (!built.program)
      throw CompileError(compiler_backend, name, built.log, built.options,
                         full.map().error_line(built.log, name));
    if (!built.log.empty()) detail::log_debug("compiler output for " + name + " on " + info.id() + ":\n" + built.log);
    program = built.program;
    detail::cache_store(disk_key, program->binary());
  }
  auto state = std::make_shared<Program::State>();
  state->device = device;
  state->impl = program;
  lock.lock();
  core.programs.emplace(key, state);
  lock.unlock();
  return state;
}

void check_name(const std::string& name) {
  if (name.empty() || name.find_first_of(std::string("\"\n\0", 3)) != std::string::npos)
    throw ArgumentError("source name '" + name + "' must be non-empty without quotes, line breaks or NUL bytes");
}

// Compilers take C strings, so a NUL byte would silently end the text there: some drivers compile
// the part before it, others fail in ways that do not point at it.
void check_no_nul(std::string_view text, const std::string& what) {
  const std::size_t at = text.find('\0');
  if (at == std::string_view::npos) return;
  const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n');
  throw ArgumentError(what + " contains a NUL byte at offset " + std::to_string(at) + " (line " +
                      std::to_string(line) + "); kernel source and options are text, and the compiler "
                      "would stop reading at it");
}

enum class Content { nothing, no_kernel, maybe_kernel };

// What a source can give the compiler: nothing (only whitespace and comments), code in which no
// kernel can be declared, or code that may declare one. A kernel needs one of the words below, in
// the text itself or in a header it includes; a macro that hides one still spells it out in its
// definition. The scan errs towards maybe_kernel (a variable named `kernel`, `//` in a string).
Content source_content(std::string_view s) {
  auto word_at = [&](std::size_t i) {
    std::size_t j = i;
    while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
    return s.substr(i, j - i);
  };
  bool code = false;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    const char next = i + 1 < s.size() ? s[i + 1] : '\0';
    if (c == '/' && next == '/') {
      i = s.find('\n', i);
    } else if (c == '/' && next == '*') {
      i = s.find("*/", i + 2);
      if (i != std::string_view::npos) i += 2;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::string_view word = word_at(i);
      if (word == "KERNEL" || word == "__kernel" || word == "kernel" || word == "__global__")
        return Content::maybe_kernel;
      code = true;
      i += word.size();
    } else {
      if (c == '#') {
        std::size_t j = i + 1;
        while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
        if (word_at(j) == "include") return Content::maybe_kernel;
      }
      code = true;
      ++i;
    }
  }
  return code ? Content::no_kernel : Content::nothing;
}

// Refuses, before any driver sees it, a source that cannot give a program with a kernel: it could
// never be launched, and NVIDIA's OpenCL crashes building a program without kernels, where other
// drivers return an empty program. One rule on every backend, so a mistake such as a kernel file
// that was never read fails the same way everywhere. `extra` is where else the kernel may come
// from (the defines' values).
void check_source_content(std::string_view source, const std::vector<std::string_view>& extra,
                          const std::string& name) {
  const Content content = source_content(source);
  if (content == Content::maybe_kernel) return;
  for (std::string_view e : extra)
    if (source_content(e) == Content::maybe_kernel) return;
  const std::string what = "source '" + name + "' ";
  if (source.empty()) throw ArgumentError(what + "is empty: there is nothing to compile (a kernel file that was not read?)");
  if (content == Content::nothing)
    throw ArgumentError(what + "holds only whitespace and comments (" + std::to_string(source.size()) +
                        " bytes): there is nothing to compile");
  throw ArgumentError(what + "declares no kernel: it has no KERNEL (nor __kernel, kernel or __global__) "
                      "and includes nothing, so no kernel of the program could be launched; compile "
                      "helper functions together with the kernels that use them");
}

// Whether a program goes through another backend's PTX: one that asks for a single architecture's
// code (`#define DUET_CUDA_ARCH_SPECIFIC 1`, the warpgroup GEMM's instructions), on a device that
// loads PTX from another backend's compiler (registry.cpp). The source is then assembled for that
// backend, its view offsets kept as the device's launches pass them.
std::optional<PtxRoute> ptx_route(const detail::DeviceCore& core, const std::string& source,
                                  const std::map<std::string, KernelSignature>& signatures,
                                  const detail::ViewOffsetSource& rewritten) {
  if (!core.ptx_compiler) return std::nullopt;
  if (("\n" + source).find("\n#define DUET_CUDA_ARCH_SPECIFIC 1") == std::string::npos) return std::nullopt;
  PtxRoute route;
  route.target = core.info.arch_specific_target;
  route.compiler = core.ptx_compiler;
  route.compiler_name = core.ptx_compiler_name;
  for (const auto& [kernel, signature] : signatures) {
    std::vector<bool>& buffers = route.buffer_params[kernel];
    for (const KernelParam& p : signature.params) buffers.push_back(p.kind == KernelParam::Kind::buffer);
    const auto offsets = rewritten.offset_params.find(kernel);
    if (offsets != rewritten.offset_params.end())
      buffers.resize(buffers.size() + offsets->second.size(), false);
  }
  return route;
}

}  // namespace

Program Device::compile(std::string_view source_view, const Defines& defines,
                        std::string_view name_view) const {
  const auto& i = info();
  std::string source(source_view), name(name_view);
  check_name(name);
  check_no_nul(source, "source '" + name + "'");
  std::vector<std::string_view> values;
  for (const auto& [key, value] : defines) {
    check_no_nul(value, "the value of define '" + key + "'");
    values.push_back(value);
  }
  check_source_content(source, values, name);
  std::map<std::string, KernelSignature> signatures = detail::parse_kernel_signatures(source, defines);
  // Where kernels take views only from coarse boundaries, buffer parameters take an offset too.
  detail::ViewOffsetSource rewritten;
  if (i.view_alignment > 1) rewritten = detail::add_view_offsets(source, defines);
  const std::string& compiled = i.view_alignment > 1 ? rewritten.source : source;
  std::optional<PtxRoute> ptx = ptx_route(*core_, source, signatures, rewritten);
  const detail::AssembledSource full =
      detail::assemble_source(ptx ? ptx->compiler_name : i.backend, compiled, defines, name);
  auto state = build_program(*this, full, name, {}, ptx ? &*ptx : nullptr);
  // The state is shared by every later compile of the same source.
  std::call_once(state->parsed, [&] {
    state->signatures = std::move(signatures);
    state->view_offsets = std::move(rewritten.offset_params);
  });
  return detail::Access::make_program(std::move(state));
}

Program Device::compile_native(std::string_view source_view, const std::vector<std::string>& options,
                               std::string_view name_view) const {
  info();
  std::string source(source_view), name(name_view);
  check_name(name);
  check_no_nul(source, "source '" + name + "'");
  for (const auto& o : options) {
    check_no_nul(o, "compiler option '" + o.substr(0, o.find('\0')) + "...'");
    if (o.find('\n') != std::string::npos) throw ArgumentError("compiler option '" + o + "' contains a line break");
  }
  check_source_content(source, {}, name);
  // The #line mark names the source in compiler messages, so errors map to the caller's lines.
  auto state =
      build_program(*this, detail::AssembledSource("#line 1 \"" + name + "\"\n" + source), name, options);
  std::call_once(state->parsed, [&] {
    state->native_names = detail::native_kernel_names(source);
    state->native_signatures = detail::parse_native_signatures(source, core_->backend->native_kernel_markers());
  });
  return detail::Access::make_program(std::move(state));
}

}  // namespace duet
