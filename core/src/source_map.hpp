// Where each line of a kernel source came from, and reading compiler logs back through that. A
// source reaches the compiler as one text (prelude, defines, the user's source, generated code with
// snippets) whose #line directives say which file and line each part is; the map follows those
// directives once, when the source is assembled, and every place that turns a compiler position into
// the user's file and line asks it: CompileError's line, the generators' snippet errors, and the
// rewrite of NVIDIA OpenCL's physical positions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace duet::detail {

struct SourcePosition {
  std::string file;  // empty where no #line directive has named a file yet
  int line = 0;
};

class SourceMap {
 public:
  // Follows the #line directives of `text` (`#line N "file"`, or `#line N` keeping the file). A
  // directive's own line keeps the position it would have had without it.
  explicit SourceMap(const std::string& text);

  // The position of physical line `physical` (1-based): empty before the first directive that
  // names a file and outside the text.
  SourcePosition at(std::size_t physical) const;

  // The position of the source line physically before the one at `position` (#line directives
  // skipped); empty when there is none or `position` is not in the map.
  SourcePosition before(const SourcePosition& position) const;

  // The files the directives name, in the order they first appear.
  const std::vector<std::string>& files() const { return files_; }

  // The first position in `log` that lies in one of `files`: the leftmost of the first log line
  // that says "error" and has one, else of the first log line that has one. Positions are written
  // `file(N)` (NVRTC), `file:N` (clang, PoCL) or `<kernel>:N`, a physical line read through this
  // map (NVIDIA OpenCL).
  std::optional<SourcePosition> first_error(const std::string& log,
                                            const std::vector<std::string>& files) const;
  // first_error's line in `file`, or 0.
  int error_line(const std::string& log, const std::string& file) const;

  // NVIDIA's OpenCL compiler ignores #line: it calls every source "<kernel>" and counts physical
  // lines, which would point users into duet's prelude. This rewrites each such position this map
  // can place to `file:line`, so logs from every driver name the user's file and line alike.
  std::string with_source_positions(const std::string& log) const;

 private:
  struct Line {
    int file = -1;  // index into files_, -1 for none
    int line = 0;
    bool directive = false;
  };
  SourcePosition position(const Line& l) const;
  std::optional<SourcePosition> leftmost(const std::string& log_line,
                                         const std::vector<std::string>& files) const;

  std::vector<std::string> files_;
  std::vector<Line> lines_;  // one per physical line, the text after the last '\n' included
};

// A complete source as the compiler receives it, with the map of its lines (built here, so the two
// always agree).
class AssembledSource {
 public:
  explicit AssembledSource(std::string text) : text_(std::move(text)), map_(text_) {}
  const std::string& text() const { return text_; }
  const SourceMap& map() const { return map_; }

 private:
  std::string text_;
  SourceMap map_;
};

}  // namespace duet::detail
