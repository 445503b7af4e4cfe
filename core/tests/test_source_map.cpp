// The source map (core/src/source_map.hpp), tested directly: it is private to the library, so its
// source is compiled into this binary (see core/tests/CMakeLists.txt). Compiler logs are written by hand
// in each compiler's format, NVIDIA OpenCL's physical `<kernel>:N` positions included, so every
// format is checked on every machine, without the compiler or device that writes it.
#include <doctest/doctest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "source_map.hpp"

namespace {

using duet::detail::AssembledSource;
using duet::detail::SourceMap;
using duet::detail::SourcePosition;

// Laid out as Device::compile assembles a source: backend marker, prelude, defines, then the
// user's source behind its #line mark.
const char* const kAssembled =
    "#define DUET_OPENCL 1\n"           // 1  (no file yet)
    "#line 1 \"duet/prelude.h\"\n"      // 2
    "// the prelude\n"                  // 3  duet/prelude.h:1
    "#define KERNEL __kernel\n"         // 4  duet/prelude.h:2
    "\n"                                // 5  duet/prelude.h:3
    "#line 1 \"duet/defines\"\n"        // 6
    "#define T float\n"                 // 7  duet/defines:1
    "#line 1 \"bad.duet\"\n"            // 8
    "KERNEL void k(__global T* x) {\n"  // 9  bad.duet:1
    "  x[0] = undeclared_thing;\n"      // 10 bad.duet:2
    "}\n";                              // 11 bad.duet:3; 12 (after the last '\n') bad.duet:4

// What a SourceWriter writes: generated lines in "f.elementwise", a snippet behind its own mark.
const char* const kGenerated =
    "#line 2 \"f.elementwise\"\n"   // 1
    "KERNEL void duet_f(void) {\n"  // 2  f.elementwise:2
    "  do {\n"                      // 3  f.elementwise:3
    "#line 1 \"f.body\"\n"          // 4
    "y = x;\n"                      // 5  f.body:1
    "y = (x + 1\n"                  // 6  f.body:2
    "#line 7 \"f.elementwise\"\n"   // 7
    "    ;\n"                       // 8  f.elementwise:7
    "  } while (0);\n"              // 9  f.elementwise:8
    "}\n";                          // 10 f.elementwise:9

void check_position(const SourcePosition& p, const std::string& file, int line) {
  CHECK(p.file == file);
  CHECK(p.line == line);
}

struct Expected {
  std::size_t physical;
  const char* file;
  int line;
};

void check_lines(const SourceMap& map, std::initializer_list<Expected> expected) {
  for (const Expected& e : expected) {
    CAPTURE(e.physical);
    check_position(map.at(e.physical), e.file, e.line);
  }
}

}  // namespace


TEST_CASE("source map: each physical line has the file and line its #line directives give") {
  const SourceMap map(kAssembled);
  CHECK(map.files() == std::vector<std::string>{"duet/prelude.h", "duet/defines", "bad.duet"});
  check_lines(map, {{1, "", 0},  // the backend marker, before any file is named
                    {2, "", 0},
                    {3, "duet/prelude.h", 1},
                    {5, "duet/prelude.h", 3},
                    {6, "duet/prelude.h", 4},  // a directive keeps the position it interrupts
                    {7, "duet/defines", 1},
                    {9, "bad.duet", 1},
                    {11, "bad.duet", 3},
                    {12, "bad.duet", 4},
                    {0, "", 0},
                    {13, "", 0}});

  const AssembledSource assembled(kAssembled);
  CHECK(assembled.text() == kAssembled);
  check_position(assembled.map().at(10), "bad.duet", 2);
}

TEST_CASE("source map: #line forms") {
  const SourceMap map(
      "  #  line 10 \"a.cl\"\n"   // 1  blanks around '#' are allowed
      "a\n"                       // 2  a.cl:10
      "#line 20\n"                // 3  keeps the file
      "b\n"                       // 4  a.cl:20
      "#line12 \"x\"\n"           // 5  not a directive: a.cl:21
      "#lines 5 \"x\"\n"          // 6  not a directive: a.cl:22
      "#line \"x\"\n"             // 7  no number, not a directive: a.cl:23
      "#line 1234567890 \"x\"\n"  // 8  too many digits, not a directive: a.cl:24
      "#line 3 \"b.cl\"\r\n"      // 9  CRLF
      "c\n"                       // 10 b.cl:3
      "#line 7 \"\"\n"            // 11 an empty name: no file
      "d");                       // 12
  check_lines(
      map,
      {{2, "a.cl", 10}, {4, "a.cl", 20}, {5, "a.cl", 21}, {8, "a.cl", 24}, {10, "b.cl", 3}, {12, "", 0}});
  CHECK(map.files() == std::vector<std::string>{"a.cl", "b.cl"});
}

TEST_CASE("source map: the first error in a log, in each compiler's format") {
  const SourceMap map(kAssembled);
  const std::vector<std::string> user{"bad.duet"};

  SUBCASE("NVRTC: file(N)") {
    const auto at =
        map.first_error("bad.duet(2): error: identifier \"undeclared_thing\" is undefined\n", user);
    REQUIRE(at);
    check_position(*at, "bad.duet", 2);
  }
  SUBCASE("clang and PoCL: file:N:C") {
    CHECK(map.error_line("error: bad.duet:2:10: use of undeclared identifier\n", "bad.duet") == 2);
  }
  SUBCASE("a line that says error wins over earlier positions") {
    const std::string log =
        "bad.duet:1:5: warning: unused parameter\n"
        "bad.duet:3:1: error: expected ';'\n";
    CHECK(map.error_line(log, "bad.duet") == 3);
  }
  SUBCASE("without an error line, the first position") {
    CHECK(map.error_line("bad.duet:1:5: warning: one\nbad.duet:2:5: warning: two\n", "bad.duet") == 1);
  }
  SUBCASE("positions of other files, and names inside longer names, do not count") {
    const std::string log =
        "duet/prelude.h:2:1: error: in the prelude\n"
        "notbad.duet:2:1: error: another file\n"
        "bad.duet: error: no line number\n";
    CHECK_FALSE(map.first_error(log, user));
    CHECK(map.error_line(log, "bad.duet") == 0);
    CHECK(map.error_line("", "bad.duet") == 0);
  }
  SUBCASE("NVIDIA OpenCL: <kernel>:N is a physical line, read through the map") {
    const std::string log =
        "<kernel>:4:1: warning: in the prelude\n"
        "<kernel>:10:10: error: use of undeclared identifier 'undeclared_thing'\n";
    const auto at = map.first_error(log, user);
    REQUIRE(at);
    check_position(*at, "bad.duet", 2);
    // Written and physical positions on one log line: the leftmost counts.
    const auto written_first = map.first_error("bad.duet:1:1: error: a (<kernel>:10:1: b)\n", user);
    REQUIRE(written_first);
    check_position(*written_first, "bad.duet", 1);
    const auto physical_first = map.first_error("<kernel>:10:1: error: a (bad.duet:1:1: b)\n", user);
    REQUIRE(physical_first);
    check_position(*physical_first, "bad.duet", 2);
    // A physical line of another file, or one the map cannot place, is not the user's.
    CHECK_FALSE(
        map.first_error("<kernel>:4:1: error: x\n<kernel>:1:1: error: y\n<kernel>:99:1: error: z\n", user));
  }
}

TEST_CASE("source map: NVIDIA OpenCL's physical positions are rewritten to file:line") {
  const SourceMap map(kAssembled);
  const std::string log =
      "<kernel>:10:10: error: use of undeclared identifier 'undeclared_thing'\n"
      "  x[0] = undeclared_thing;\n"
      "<kernel>:4:9: note: expanded from macro 'KERNEL'\n"
      "<kernel>:1:1: note: the backend marker has no file\n"
      "<kernel>:99: past the end\n"
      "<kernel>: no number\n";
  const std::string rewritten = map.with_source_positions(log);
  CHECK(rewritten ==
        "bad.duet:2:10: error: use of undeclared identifier 'undeclared_thing'\n"
        "  x[0] = undeclared_thing;\n"
        "duet/prelude.h:2:9: note: expanded from macro 'KERNEL'\n"
        "<kernel>:1:1: note: the backend marker has no file\n"
        "<kernel>:99: past the end\n"
        "<kernel>: no number\n");
  CHECK(map.error_line(rewritten, "bad.duet") == 2);
  const std::string plain = "bad.duet:2:10: error: nothing physical\n";
  CHECK(map.with_source_positions(plain) == plain);
}

TEST_CASE("source map: the line before a position skips #line directives") {
  const SourceMap map(kGenerated);
  // The generated line after a snippet: the snippet's last line is before it.
  check_position(map.before({"f.elementwise", 7}), "f.body", 2);
  check_position(map.before({"f.body", 1}), "f.elementwise", 3);
  check_position(map.before({"f.elementwise", 8}), "f.elementwise", 7);
  // The first line has nothing before it; positions the map does not have give nothing.
  check_position(map.before({"f.elementwise", 2}), "", 0);
  check_position(map.before({"f.elementwise", 40}), "", 0);
  check_position(map.before({"other", 1}), "", 0);
  check_position(map.before({"", 1}), "", 0);

  // Within one log line, the leftmost position counts, whatever the order of `files`.
  const std::string log = "f.elementwise:7:5: error: expected ')' (f.body:2:5: note: to match this '(')\n";
  for (const auto& files : {std::vector<std::string>{"f.body", "f.elementwise"},
                            std::vector<std::string>{"f.elementwise", "f.body"}}) {
    const auto at = map.first_error(log, files);
    REQUIRE(at);
    check_position(*at, "f.elementwise", 7);
  }
}

