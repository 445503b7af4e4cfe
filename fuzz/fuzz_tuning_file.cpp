// Fuzzes the tuning-file reader (blas/src/tuning_file.cpp): the input is a file's text.
// parse_file_text must never throw (a malformed line is a warning); each line parses to an entry,
// to nothing (blank, comment) or to a ConfigError, and gives exactly one entry or one warning;
// every entry read must read back the same from format_entry. Then an entry for a device named by
// the first line, of the architecture the rest of the input names, is written and read back: format_entry
// writes what parse_entry reads back as the same entry, or refuses with a ConfigError.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "check.hpp"
#include "duet/tuning.hpp"
#include "lines.hpp"

namespace {

using duet::TuningEntry;

// The lines std::getline gives.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

// format_entry(e) reads back as e (or format_entry refuses it with a ConfigError).
void check_written(const TuningEntry& e) {
  std::string line;
  try {
    line = duet::tuning::format_entry(e);
  } catch (const duet::ConfigError&) {
    return;
  }
  duet::fuzz::check(line.find('\n') == std::string::npos, "format_entry wrote more than one line: " + line);
  std::optional<TuningEntry> again;
  duet::fuzz::check(duet::fuzz::returns_or_duet_error([&] { again = duet::tuning::parse_entry(line); }) && again &&
                        again->selector == e.selector && again->params == e.params,
                    "the entry written as `" + line + "` does not read back the same");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> warnings;
  std::vector<TuningEntry> entries;
  duet::fuzz::never_throws([&] { entries = duet::tuning::parse_file_text(text, "fuzz", warnings); },
                           "parse_file_text");
  std::size_t meaningful = 0;
  for (const std::string& line : lines_of(text)) {
    std::optional<TuningEntry> e;
    try {
      e = duet::tuning::parse_entry(line);
    } catch (const duet::ConfigError&) {
      ++meaningful;
      continue;
    }
    if (!e) continue;
    ++meaningful;
    check_written(*e);
  }
  duet::fuzz::check(entries.size() + warnings.size() == meaningful,
                    "parse_file_text's entries and warnings do not match its lines");

  const std::vector<std::string> f = duet::fuzz::fields(data, size, 2);
  TuningEntry e;
  e.selector.device = f[0];
  e.selector.arch = f[1];  // the rest of the input, line breaks included
  check_written(e);
  return 0;
}
