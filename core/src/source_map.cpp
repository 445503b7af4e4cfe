// SourceMap (see source_map.hpp): the one reader of #line directives and of compiler positions.
#include "source_map.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <sstream>

namespace duet::detail {
namespace {

const std::string kPhysicalTag = "<kernel>:";

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The decimal number at `text[from]`, saturated at INT_MAX so no log can overflow it; `end` is
// set past its last digit. -1 (and end == from) when no digit is there.
long read_number(const std::string& text, std::size_t from, std::size_t& end) {
  long n = 0;
  for (end = from; end < text.size() && is_digit(text[end]); ++end)
    n = std::min<long>(n * 10 + (text[end] - '0'), INT_MAX);
  return end == from ? -1 : n;
}

struct Directive {
  int line = 0;
  std::optional<std::string> file;  // absent for `#line N`, which keeps the file
};

// `#line 12 "name"` or `#line 12` in text[begin, end); nothing for any other line.
std::optional<Directive> line_directive(const std::string& text, std::size_t begin, std::size_t end) {
  auto skip_blanks = [&](std::size_t i) {
    while (i < end && (text[i] == ' ' || text[i] == '\t')) ++i;
    return i;
  };
  std::size_t i = skip_blanks(begin);
  if (i == end || text[i] != '#') return std::nullopt;
  i = skip_blanks(i + 1);
  if (end - i < 4 || text.compare(i, 4, "line") != 0) return std::nullopt;
  i += 4;
  const std::size_t first_digit = skip_blanks(i);
  if (first_digit == i) return std::nullopt;  // `#line12`, `#lines`
  std::size_t after = first_digit;
  while (after < end && is_digit(text[after])) ++after;
  if (after == first_digit || after - first_digit > 9) return std::nullopt;
  Directive d;
  d.line = std::stoi(text.substr(first_digit, after - first_digit));
  i = skip_blanks(after);
  if (i < end && text[i] == '"') {
    const std::size_t close = text.find('"', i + 1);
    if (close < end) d.file = text.substr(i + 1, close - i - 1);
  }
  return d;
}

}  // namespace

SourceMap::SourceMap(const std::string& text) {
  int file = -1, line = 1;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    Line entry{file, line, false};
    if (const std::optional<Directive> d = line_directive(text, start, end)) {
      entry.directive = true;
      if (d->file && d->file->empty()) {
        file = -1;
      } else if (d->file) {
        const auto known = std::find(files_.begin(), files_.end(), *d->file);
        file = static_cast<int>(known - files_.begin());
        if (known == files_.end()) files_.push_back(*d->file);
      }
      line = d->line;
    } else {
      ++line;
    }
    lines_.push_back(entry);
    start = end + 1;
  }
}

SourcePosition SourceMap::position(const Line& l) const {
  if (l.file < 0) return {};
  return {files_[static_cast<std::size_t>(l.file)], l.line};
}

SourcePosition SourceMap::at(std::size_t physical) const {
  if (physical < 1 || physical > lines_.size()) return {};
  return position(lines_[physical - 1]);
}

SourcePosition SourceMap::before(const SourcePosition& p) const {
  const auto file = std::find(files_.begin(), files_.end(), p.file);
  if (p.file.empty() || file == files_.end()) return {};
  const int index = static_cast<int>(file - files_.begin());
  const Line* previous = nullptr;
  for (const Line& l : lines_) {
    if (l.directive) continue;
    if (l.file == index && l.line == p.line) return previous ? position(*previous) : SourcePosition{};
    previous = &l;
  }
  return {};
}

std::optional<SourcePosition> SourceMap::leftmost(const std::string& log_line,
                                                  const std::vector<std::string>& files) const {
  std::optional<SourcePosition> found;
  std::size_t column = std::string::npos;
  for (const std::string& f : files) {
    if (f.empty()) continue;
    for (std::size_t k = log_line.find(f); k < column; k = log_line.find(f, k + 1)) {
      // "f.cl" is not a position in "elf.cl:3"
      if (k > 0 && is_ident_char(log_line[k - 1])) continue;
      const std::size_t p = k + f.size();
      if (p >= log_line.size() || (log_line[p] != ':' && log_line[p] != '(')) continue;
      std::size_t end = 0;
      const long n = read_number(log_line, p + 1, end);
      if (n < 0) continue;
      found = SourcePosition{f, static_cast<int>(n)};
      column = k;
    }
  }
  for (std::size_t k = log_line.find(kPhysicalTag); k < column; k = log_line.find(kPhysicalTag, k + 1)) {
    std::size_t end = 0;
    const long n = read_number(log_line, k + kPhysicalTag.size(), end);
    SourcePosition position = n < 0 ? SourcePosition{} : at(static_cast<std::size_t>(n));
    if (position.file.empty() || std::find(files.begin(), files.end(), position.file) == files.end())
      continue;
    found = std::move(position);
    column = k;
  }
  return found;
}

std::optional<SourcePosition> SourceMap::first_error(const std::string& log,
                                                     const std::vector<std::string>& files) const {
  for (const bool need_error : {true, false}) {
    std::istringstream lines(log);
    std::string text;
    while (std::getline(lines, text)) {
      if (need_error && text.find("error") == std::string::npos) continue;
      if (std::optional<SourcePosition> found = leftmost(text, files)) return found;
    }
  }
  return std::nullopt;
}

int SourceMap::error_line(const std::string& log, const std::string& file) const {
  const std::optional<SourcePosition> found = first_error(log, {file});
  return found ? found->line : 0;
}

std::string SourceMap::with_source_positions(const std::string& log) const {
  std::string out;
  std::size_t from = 0;
  for (std::size_t k = log.find(kPhysicalTag); k != std::string::npos; k = log.find(kPhysicalTag, from)) {
    std::size_t end = 0;
    const long physical = read_number(log, k + kPhysicalTag.size(), end);
    const SourcePosition position = physical < 0 ? SourcePosition{} : at(static_cast<std::size_t>(physical));
    out.append(log, from, k - from);
    if (!position.file.empty())
      out += position.file + ":" + std::to_string(position.line);
    else
      out.append(log, k, end - k);
    from = end;
  }
  out.append(log, from, std::string::npos);
  return out;
}

}  // namespace duet::detail
