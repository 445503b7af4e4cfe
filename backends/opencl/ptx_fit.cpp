// NVRTC's PTX made fit for NVIDIA's OpenCL (ptx_program.hpp): text only, no driver, so that
// core/tests checks it on every machine.
#include <algorithm>
#include <cctype>
#include <sstream>

#include "ptx_program.hpp"

namespace duet::backend::opencl {

namespace {

std::string trim(const std::string& s) {
  const std::size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return {};
  const std::size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

// Whether a trimmed line starts with `prefix`.
bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// The largest `duet_dynamic_shared_bytes_<kernel> = N` of the module; 0 when none is declared.
std::size_t declared_shared_bytes(const std::string& ptx) {
  std::size_t most = 0;
  const std::string marker = "duet_dynamic_shared_bytes_";
  for (std::size_t at = ptx.find(marker); at != std::string::npos; at = ptx.find(marker, at + 1)) {
    const std::size_t eq = ptx.find('=', at), end = ptx.find('\n', at);
    if (eq == std::string::npos || eq > end) continue;
    std::size_t i = eq + 1;
    while (i < ptx.size() && ptx[i] == ' ') ++i;
    std::size_t value = 0;
    bool digits = false;
    for (; i < ptx.size() && std::isdigit(static_cast<unsigned char>(ptx[i])); ++i, digits = true)
      value = value * 10 + static_cast<std::size_t>(ptx[i] - '0');
    if (digits) most = std::max(most, value);
  }
  return most;
}

}  // namespace

std::string opencl_ptx(const std::string& ptx, const std::map<std::string, std::vector<bool>>& buffer_params,
                       std::string& problem) {
  const std::size_t shared_bytes = declared_shared_bytes(ptx);
  std::istringstream in(ptx);
  std::ostringstream out;
  std::string line, kernel;
  const std::vector<bool>* buffers = nullptr;  // the current kernel's, inside its parameter list
  std::size_t index = 0;
  while (std::getline(in, line)) {
    const std::string t = trim(line);
    const std::size_t entry = t.find(".entry ");
    if (entry != std::string::npos && t.back() == '(') {
      kernel = trim(t.substr(entry + 7, t.size() - entry - 8));
      const auto found = buffer_params.find(kernel);
      buffers = found == buffer_params.end() ? nullptr : &found->second;
      index = 0;
    } else if (buffers && starts_with(t, ".param")) {
      const bool buffer = index < buffers->size() && (*buffers)[index];
      ++index;
      if (buffer) {
        if (!starts_with(t, ".param .u64") && !starts_with(t, ".param .b64")) {
          problem = "parameter " + std::to_string(index - 1) + " of kernel " + kernel +
                    " is a buffer but its PTX parameter is not 64 bits: " + t;
          return {};
        }
        // The parameter's name is its last word; a trailing comma stays.
        const bool comma = t.back() == ',';
        const std::string body = comma ? t.substr(0, t.size() - 1) : t;
        const std::string name = body.substr(body.find_last_of(" \t") + 1);
        line = "\t.param .u64 .ptr .global .align 16 " + name + (comma ? "," : "");
      }
    } else if (buffers && starts_with(t, ")")) {
      buffers = nullptr;
    } else if (starts_with(t, ".extern .shared")) {
      if (shared_bytes == 0) {
        problem = "the module uses dynamic shared memory (" + t +
                  ") but declares no duet_dynamic_shared_bytes_<kernel>, its size";
        return {};
      }
      const std::size_t open = t.rfind("[]");
      if (open == std::string::npos) {
        problem = "cannot read the dynamic shared array: " + t;
        return {};
      }
      line = t.substr(std::string(".extern ").size(), open - std::string(".extern ").size()) + "[" +
             std::to_string(shared_bytes) + "]" + t.substr(open + 2);
    }
    out << line << '\n';
  }
  return out.str();
}

}  // namespace duet::backend::opencl
