// Device: queues and compiling dialect source. Compiling assembles the complete source (backend
// marker, prelude, the caller's defines, then the caller's source behind a #line mark so compiler
// messages count the caller's lines), caches the result per device, and maps a failed compile to a
// CompileError that points at the caller's line.
#include <cctype>
#include <sstream>

#include "duet/device.hpp"
#include "duet/error.hpp"
#include "duet/program.hpp"
#include "duet/queue.hpp"
#include "embedded_kernels.hpp"
#include "signature.hpp"
#include "source.hpp"
#include "state.hpp"

namespace duet {
namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// The first line of `source_name` that the log reports an error at, or 0.
int first_error_line(const std::string& log, const std::string& source_name) {
  std::istringstream lines(log);
  std::string line;
  int fallback = 0;
  while (std::getline(lines, line)) {
    std::size_t at = line.find(source_name);
    if (at == std::string::npos) continue;
    std::size_t p = at + source_name.size();
    if (p >= line.size() || (line[p] != '(' && line[p] != ':')) continue;
    ++p;
    int n = 0;
    bool digits = false;
    while (p < line.size() && std::isdigit(static_cast<unsigned char>(line[p]))) {
      n = n * 10 + (line[p++] - '0');
      digits = true;
    }
    if (!digits) continue;
    if (line.find("error") != std::string::npos) return n;
    if (!fallback) fallback = n;
  }
  return fallback;
}

}  // namespace

std::string detail::assemble_source(const std::string& backend, const std::string& source,
                                    const Defines& defines, const std::string& name) {
  std::string full = backend == "cuda" ? "#define DUET_CUDA 1\n" : "#define DUET_OPENCL 1\n";
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
  return full;
}

int detail::compile_error_line(const std::string& log, const std::string& name) {
  return first_error_line(log, name);
}

Queue Device::queue() const {
  const auto& i = info();  // throws on an empty handle
  (void)i;
  auto state = std::make_shared<Queue::State>();
  state->device = *this;
  state->impl = core_->impl->create_queue();
  return Queue(std::move(state));
}

Program Device::compile(std::string_view source_view, const Defines& defines,
                        std::string_view name_view) const {
  const auto& i = info();
  std::string source(source_view), name(name_view);
  if (name.empty() || name.find('"') != std::string::npos || name.find('\n') != std::string::npos)
    throw ArgumentError("source name '" + name + "' must be non-empty without quotes or line breaks");
  std::string full = detail::assemble_source(i.backend, source, defines, name);

  std::lock_guard<std::mutex> lock(core_->cache_mutex);
  auto cached = core_->programs.find(full);
  if (cached != core_->programs.end()) return Program(cached->second);

  backend::BuildResult built = core_->impl->build(full, name);
  if (!built.program)
    throw CompileError(i.backend, name, built.log, built.options,
                       detail::compile_error_line(built.log, name));
  auto state = std::make_shared<Program::State>();
  state->device = *this;
  state->impl = built.program;
  state->signatures = detail::parse_kernel_signatures(source, defines);
  core_->programs.emplace(std::move(full), state);
  return Program(std::move(state));
}

}  // namespace duet
