// Splitting a fuzz input into the fields a harness hands to duet: one per line, the last field
// taking the rest of the input (line breaks included).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace duet::fuzz {

// `count` fields; missing ones are empty.
inline std::vector<std::string> fields(const std::uint8_t* data, std::size_t size, std::size_t count) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> out;
  std::size_t at = 0;
  while (out.size() + 1 < count && at <= text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  out.push_back(at < text.size() ? text.substr(at) : std::string());
  out.resize(count);
  return out;
}

}  // namespace duet::fuzz
