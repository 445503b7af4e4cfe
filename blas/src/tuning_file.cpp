// The tuning-file format (see duet/tuning.hpp): parsing and formatting entries, matching them to
// devices, finding, reading and rewriting the file. Reading never fails the program: a file that
// cannot be read or a malformed line becomes a warning and is left out.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "duet/error.hpp"
#include "duet/tuning.hpp"

namespace duet::tuning {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Splits "matmul device="a b" BM=4" into words; a double-quoted part may hold spaces. Stops at an
// unquoted '#'. Throws ConfigError for an unterminated quote.
std::vector<std::string> split_words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false, quoted = false;
  for (char c : line) {
    if (quoted) {
      if (c == '"')
        quoted = false;
      else
        word += c;
    } else if (c == '"') {
      quoted = true;
      in_word = true;
    } else if (c == '#') {
      break;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quoted) throw ConfigError("a double quote is not closed");
  if (in_word) words.push_back(word);
  return words;
}

int parse_int(const std::string& key, const std::string& value) {
  if (value.empty() || value.size() > 6 || !std::all_of(value.begin(), value.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      }))
    throw ConfigError(key + "=" + value + " is not a whole number");
  return std::stoi(value);
}

// A selector value as written back: quoted when it holds anything but name characters. The format
// has no escapes, so a double quote or a line break cannot be written (it would read back as
// another value, or break the line).
std::string quote(const std::string& key, const std::string& v) {
  if (v.find_first_of("\"\n") != std::string::npos)
    throw ConfigError(key + "=" + v +
                      " cannot be written to a tuning file: the value holds a double quote or a line break");
  const bool plain = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
  return plain ? v : "\"" + v + "\"";
}

}  // namespace


std::optional<TuningEntry> parse_entry(const std::string& line) {
  const std::vector<std::string> words = split_words(line);
  if (words.empty()) return std::nullopt;
  if (words[0] != "matmul")
    throw ConfigError("an entry starts with the kernel name `matmul`, not `" + words[0] + "`");
  TuningEntry entry;
  TuningSelector& s = entry.selector;
  GemmTile& p = entry.params;
  bool max_mn_seen = false;
  // Selectors are optional; parameters are required, but for GROUP_ROWS (GemmTile's 8).
  struct Field {
    const char* key;
    std::string* text;
    int* number;
    bool required;
    bool seen;
  } fields[] = {{"device", &s.device, nullptr, false, false},
                {"arch", &s.arch, nullptr, false, false},
                {"vendor", &s.vendor, nullptr, false, false},
                {"kind", &s.kind, nullptr, false, false},
                {"backend", &s.backend, nullptr, false, false},
                {"BM", nullptr, &p.bm, true, false},
                {"BN", nullptr, &p.bn, true, false},
                {"BK", nullptr, &p.bk, true, false},
                {"TM", nullptr, &p.tm, true, false},
                {"TN", nullptr, &p.tn, true, false},
                {"WX", nullptr, &p.wx, true, false},
                {"PIPELINE", nullptr, &p.pipeline, true, false},
                {"GROUP_ROWS", nullptr, &p.group_rows, false, false}};
  for (std::size_t i = 1; i < words.size(); ++i) {
    const std::size_t eq = words[i].find('=');
    if (eq == std::string::npos || eq == 0) throw ConfigError("`" + words[i] + "` is not key=value");
    const std::string key = words[i].substr(0, eq), value = words[i].substr(eq + 1);
    if (key == "max_mn") {
      if (max_mn_seen) throw ConfigError("`max_mn` is given twice");
      max_mn_seen = true;
      const bool digits = !value.empty() && value.size() <= 15 &&
                          std::all_of(value.begin(), value.end(),
                                      [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
      if (!digits || std::stoull(value) == 0)
        throw ConfigError("max_mn=" + value +
                          " is not a positive whole number (the largest M * N the entry is for)");
      s.max_mn = static_cast<std::size_t>(std::stoull(value));
      continue;
    }
    Field* field = nullptr;
    for (Field& f : fields)
      if (key == f.key) field = &f;
    if (!field)
      throw ConfigError(
          "unknown key `" + key +
          "` (selectors: device, arch, vendor, kind, backend, max_mn; parameters: BM, BN, BK, TM, TN, WX, "
          "PIPELINE, GROUP_ROWS)");
    if (field->seen) throw ConfigError("`" + key + "` is given twice");
    field->seen = true;
    if (field->number) {
      *field->number = parse_int(key, value);
    } else {
      if (value.empty()) throw ConfigError("`" + key + "` has an empty value");
      *field->text = value;
    }
  }
  std::string missing;
  for (const Field& f : fields)
    if (f.required && !f.seen) missing += std::string(missing.empty() ? "" : ", ") + f.key;
  if (!missing.empty()) throw ConfigError("missing " + missing);
  if (!s.kind.empty() && s.kind != "gpu" && s.kind != "cpu" && s.kind != "other")
    throw ConfigError("kind=" + s.kind + " is not gpu, cpu or other");
  if (!s.backend.empty()) {
    // Any backend duet knows, built into this library or not: a file may serve several builds.
    std::string names;
    bool known = false;
    for (const std::string& name : backend_names()) {
      known = known || name == s.backend;
      names += (names.empty() ? "" : " or ") + name;
    }
    if (!known) throw ConfigError("backend=" + s.backend + " is not " + names);
  }
  // The rules that hold on every device (a device's own limits are checked when it is chosen).
  const std::string problem = gemm_tile_problem(p, DeviceInfo{});
  if (!problem.empty()) throw ConfigError(problem);
  return entry;
}

std::string format_entry(const TuningEntry& e) {
  std::string line = "matmul";
  const TuningSelector& s = e.selector;
  if (!s.device.empty()) line += " device=" + quote("device", s.device);
  if (!s.arch.empty()) line += " arch=" + quote("arch", s.arch);
  if (!s.vendor.empty()) line += " vendor=" + quote("vendor", s.vendor);
  if (!s.kind.empty()) line += " kind=" + quote("kind", s.kind);
  if (!s.backend.empty()) line += " backend=" + quote("backend", s.backend);
  if (s.max_mn != 0) line += " max_mn=" + std::to_string(s.max_mn);
  return line + " " + to_string(e.params);
}

std::vector<TuningEntry> parse_file_text(const std::string& text, const std::string& name,
                                   std::vector<std::string>& warnings) {
  std::vector<TuningEntry> entries;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = name + ":" + std::to_string(number);
    try {
      if (std::optional<TuningEntry> e = parse_entry(line)) {
        e->origin = where;
        entries.push_back(*e);
      }
    } catch (const ConfigError& error) {
      warnings.push_back(where + ": " + error.what() + "; line ignored");
    }
  }
  return entries;
}

std::string tuning_file_path() {
  if (const char* file = std::getenv("DUET_TUNING_FILE")) return file;
  if (const char* config = std::getenv("XDG_CONFIG_HOME"); config && *config)
    return std::string(config) + "/duet/tuning.txt";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.config/duet/tuning.txt";
  return {};
}

std::vector<TuningEntry> read_file(const std::string& path, std::vector<std::string>& warnings) {
  if (path.empty()) return {};
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT && errno != ENOTDIR)
      warnings.push_back(path + ": cannot be read (" + std::strerror(errno) + "); ignored");
    return {};
  }
  if (!S_ISREG(st.st_mode)) {
    warnings.push_back(path + ": not a regular file; ignored");
    return {};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    warnings.push_back(path + ": cannot be opened; ignored");
    return {};
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    warnings.push_back(path + ": reading failed; ignored");
    return {};
  }
  return parse_file_text(text.str(), path, warnings);
}

const TuningEntry* best_entry(const std::vector<TuningEntry>& entries, const DeviceInfo& device) {
  return best_entry(entries, device, 0);
}

const TuningEntry* best_entry(const std::vector<TuningEntry>& entries, const DeviceInfo& device,
                              std::size_t mn) {
  // Ranked by device specificity, then by size: a covering max_mn beats none, a smaller one a
  // larger one; the later of equal entries wins (a file's later lines override earlier ones).
  auto better_or_equal = [](const TuningSelector& a, const TuningSelector& b) {
    if (a.specificity() != b.specificity()) return a.specificity() > b.specificity();
    if ((a.max_mn == 0) != (b.max_mn == 0)) return a.max_mn != 0;
    return a.max_mn <= b.max_mn;
  };
  const TuningEntry* best = nullptr;
  for (const TuningEntry& e : entries) {
    if (!e.selector.matches(device) || !e.selector.covers(mn) ||
        !gemm_tile_problem(e.params, device).empty())
      continue;
    if (!best || better_or_equal(e.selector, best->selector)) best = &e;
  }
  return best;
}

TuningEntry entry_for_device(const DeviceInfo& device, const GemmTile& params) {
  TuningEntry e;
  e.selector.device = trim(device.name);
  e.selector.backend = device.backend;
  e.params = params;
  return e;
}

void save_entry(const std::string& path, const TuningEntry& entry) {
  if (path.empty())
    throw ConfigError("no tuning file to save to: set DUET_TUNING_FILE, XDG_CONFIG_HOME or HOME");
  // Create missing directories, one level at a time.
  for (std::size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
    const std::string dir = path.substr(0, slash);
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
      throw ConfigError("cannot create the directory " + dir +
                        " for the tuning file: " + std::strerror(errno));
  }
  std::string kept;
  bool replaced = false;
  if (std::ifstream in{path, std::ios::binary}) {
    std::string line;
    while (std::getline(in, line)) {
      std::optional<TuningEntry> old;
      try {
        old = parse_entry(line);
      } catch (const ConfigError&) {
        // A malformed line is the user's: keep it as it is.
      }
      if (old && old->selector == entry.selector) {
        if (!replaced) kept += format_entry(entry) + "\n";
        replaced = true;
      } else {
        kept += line + "\n";
      }
    }
  }
  if (!replaced) kept += format_entry(entry) + "\n";
  const std::string temp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << kept;
    out.flush();
    if (!out) {
      std::remove(temp.c_str());
      throw ConfigError("cannot write " + temp + ": " + std::strerror(errno));
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(temp.c_str());
    throw ConfigError("cannot replace " + path + ": " + why);
  }
}

}  // namespace duet::tuning

namespace duet {

bool TuningSelector::matches(const DeviceInfo& info) const {
  using tuning::lower;
  using tuning::trim;
  if (!device.empty() && lower(trim(info.name)) != lower(device)) return false;
  if (!arch.empty() && lower(info.arch) != lower(arch)) return false;
  if (!vendor.empty() && lower(info.vendor).find(lower(vendor)) == std::string::npos) return false;
  if (!kind.empty() && lower(kind) != lower(to_string(info.kind))) return false;
  if (!backend.empty() && lower(backend) != info.backend) return false;
  return true;
}

double TuningSelector::specificity() const {
  const double level = !device.empty() ? 4 : !arch.empty() ? 3 : !vendor.empty() ? 2 : !kind.empty() ? 1 : 0;
  return level + (backend.empty() ? 0.0 : 0.5);
}

}  // namespace duet
