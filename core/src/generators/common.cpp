// The generators' shared parts (see common.hpp). Parameter lists are parsed by hand: they are short,
// and every way they can be wrong deserves its own message.
#include "common.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>

#include "../prelude.hpp"
#include "../source_map.hpp"
#include "duet/error.hpp"
#include "duet/scalar_convert.hpp"

namespace duet::detail::gen {
namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !is_ident_start(s[0])) return false;
  return std::all_of(s.begin(), s.end(), is_ident_char);
}

// Every name the prelude defines on either backend: its macros and its types. Read from the
// prelude itself, so the generators' reserved names cannot drift from the dialect.
std::set<std::string> prelude_names() {
  std::set<std::string> names;
  std::istringstream lines(embedded::prelude());
  std::string line;
  auto identifier_at = [&](std::size_t at) {
    std::size_t end = at;
    while (end < line.size() && is_ident_char(line[end])) ++end;
    return line.substr(at, end - at);
  };
  while (std::getline(lines, line)) {
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (line.compare(first, 1, "#") == 0) {
      const std::size_t directive = line.find_first_not_of(" \t", first + 1);
      if (directive != std::string::npos && line.compare(directive, 6, "define") == 0) {
        const std::size_t name = line.find_first_not_of(" \t", directive + 6);
        if (name != std::string::npos) names.insert(identifier_at(name));
      }
    } else if (line.compare(first, 8, "typedef ") == 0 && line.back() == ';') {
      std::size_t end = line.size() - 1, begin = end;
      while (begin > 0 && is_ident_char(line[begin - 1])) --begin;
      names.insert(line.substr(begin, end - begin));
    }
  }
  names.erase("");
  return names;
}

// Words a parameter or kernel may not be called: C, C++ (CUDA) and OpenCL C keywords and type
// names, the prelude's names, and the names the generated code itself uses.
const std::set<std::string>& reserved_words() {
  static const std::set<std::string> words = {
      // C
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
      "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
      "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
      "volatile", "while", "bool", "true", "false", "_Bool",
      // C++ (NVRTC compiles CUDA C++)
      "alignas", "alignof", "and", "asm", "catch", "class", "const_cast", "constexpr", "decltype", "delete",
      "dynamic_cast", "explicit", "export", "friend", "mutable", "namespace", "new", "noexcept", "not",
      "nullptr", "operator", "or", "private", "protected", "public", "reinterpret_cast", "static_assert",
      "static_cast", "template", "this", "throw", "try", "typeid", "typename", "using", "virtual", "xor",
      // OpenCL C
      "kernel", "global", "local", "constant", "read_only", "write_only", "read_write", "half", "uchar",
      "ushort", "uint", "ulong", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t",
      // the generated code: the element index and the length
      "i", "n"};
  static const std::set<std::string> all = [] {
    std::set<std::string> out = words;
    const std::set<std::string> dialect = prelude_names();
    out.insert(dialect.begin(), dialect.end());
    return out;
  }();
  return all;
}

// Why `name` cannot name a parameter or kernel, or empty when it can.
std::string reserved_reason(const std::string& name) {
  if (reserved_words().count(name)) {
    if (name == "i" || name == "n")
      return "'" + name + "' is reserved: the generated code names the element index i and the length n";
    return "'" + name + "' is a keyword, type or dialect name";
  }
  auto starts = [&](const char* p) { return name.compare(0, std::strlen(p), p) == 0; };
  if (starts("duet_") || starts("DUET_"))
    return "names starting with duet_ are reserved for the generated code";
  if (starts("__")) return "names starting with __ are reserved for the compilers";
  return {};
}

const char* const kTypeNames[] = {"char", "uchar", "short", "ushort", "int",
                                  "uint", "long",  "ulong", "float",  "double"};

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string type_list() {
  std::string s;
  for (const char* t : kTypeNames) s += (s.empty() ? "" : ", ") + std::string(t);
  return s;
}

// The known type closest to `word`, as " (did you mean 'float'?)", or "".
std::string suggestion(const std::string& word) {
  std::string best;
  std::size_t best_d = 3;
  for (const char* t : kTypeNames) {
    const std::size_t d = edit_distance(word, t);
    if (d < best_d) best_d = d, best = t;
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

// The type of a parameter or result, checked: known. (half is a storage type: the generators
// that accept it say where.)
ScalarType known_type(const std::string& text, const std::string& what) {
  const ScalarType t = scalar_type_from_name(text);
  if (t == ScalarType::unknown)
    throw ArgumentError(what + ": unknown type '" + text + "'" + suggestion(text) + "; use one of " +
                        type_list());
  return t;
}

std::vector<std::string> split_words(const std::string& piece, const std::string& what) {
  std::vector<std::string> words;
  for (std::size_t k = 0; k < piece.size();) {
    const char c = piece[k];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++k;
    } else if (is_ident_char(c)) {
      std::size_t j = k;
      while (j < piece.size() && is_ident_char(piece[j])) ++j;
      words.push_back(piece.substr(k, j - k));
      k = j;
    } else if (c == '*' || c == '&' || c == '[' || c == ']') {
      throw ArgumentError(what + ": '" + piece +
                          "' declares a pointer or array; declare the element type (`float x`) and pass a "
                          "Buffer<float> for it, which the kernel reads at index i");
    } else {
      throw ArgumentError(what + ": unexpected '" + std::string(1, c) + "' in '" + piece +
                          "'; a parameter is `type name`, parameters are separated by commas");
    }
  }
  return words;
}

GeneratedParam parse_param(const std::string& piece, const std::string& what) {
  std::vector<std::string> words = split_words(piece, what);
  while (!words.empty() && words.front() == "const") words.erase(words.begin());
  const std::string where = what + ": parameter '" + piece + "'";
  if (words.empty()) throw ArgumentError(where + " has neither a type nor a name");
  if (words.size() == 1) {
    if (scalar_type_from_name(words[0]) != ScalarType::unknown)
      throw ArgumentError(where + " has a type but no name; write `" + words[0] + " x`");
    throw ArgumentError(where + " has no type; write e.g. `float " + words[0] + "`");
  }
  GeneratedParam p;
  p.name = words.back();
  std::string type;
  for (std::size_t k = 0; k + 1 < words.size(); ++k) type += (k ? " " : "") + words[k];
  if (scalar_type_from_name(type) == ScalarType::unknown) {
    // "float x y": a valid type followed by more than one name.
    std::string prefix;
    for (std::size_t k = 0; k + 1 < words.size(); ++k) {
      prefix += (k ? " " : "") + words[k];
      if (scalar_type_from_name(prefix) != ScalarType::unknown && k + 2 < words.size())
        throw ArgumentError(where + " has more than one name after its type '" + prefix +
                            "'; parameters are separated by commas");
    }
  }
  p.type = known_type(type, where);
  if (!is_identifier(p.name)) throw ArgumentError(where + ": '" + p.name + "' is not a valid name");
  if (const std::string why = reserved_reason(p.name); !why.empty()) throw ArgumentError(where + ": " + why);
  return p;
}

}  // namespace

std::vector<GeneratedParam> parse_params(std::string_view list_view, const std::string& what,
                                         bool allow_empty) {
  const std::string list = trim(list_view);
  std::vector<GeneratedParam> params;
  if (list.empty()) {
    if (allow_empty) return params;
    throw ArgumentError(what + " is empty; give at least one `type name`, e.g. \"float y\"");
  }
  std::size_t start = 0;
  int position = 1;
  while (true) {
    const std::size_t comma = list.find(',', start);
    const std::string piece = trim(
        std::string_view(list).substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (piece.empty())
      throw ArgumentError(what + ": parameter " + std::to_string(position) +
                          " is empty (a stray comma in \"" + list + "\")");
    params.push_back(parse_param(piece, what));
    if (comma == std::string::npos) break;
    start = comma + 1;
    ++position;
  }
  return params;
}

ScalarType parse_type(std::string_view text_view, const std::string& what) {
  const std::string text = trim(text_view);
  if (text.empty()) throw ArgumentError(what + " is empty; give a type such as float");
  std::vector<std::string> words = split_words(text, what);
  std::string joined;
  for (const std::string& w : words) joined += (joined.empty() ? "" : " ") + w;
  return known_type(joined, what);
}

std::string check_kernel_name(std::string_view name_view, const std::string& what) {
  const std::string name = trim(name_view);
  if (!is_identifier(name))
    throw ArgumentError(what + ": the kernel name '" + name +
                        "' is not an identifier (letters, digits and _, not starting with a digit)");
  if (const std::string why = reserved_reason(name); !why.empty())
    throw ArgumentError(what + ": the kernel name " + why);
  return name;
}

void check_unique(const std::vector<const std::vector<GeneratedParam>*>& lists, const std::string& what) {
  std::set<std::string> seen;
  for (const auto* list : lists)
    for (const GeneratedParam& p : *list)
      if (!seen.insert(p.name).second)
        throw ArgumentError(what + ": the name '" + p.name + "' is used by more than one parameter");
}

std::string check_snippet(std::string_view text, const std::string& what) {
  std::string s = trim(text);
  if (s.empty()) throw ArgumentError(what + " is empty");
  return s;
}

void forbid_word(const std::string& code, const char* word, const std::string& what,
                 const std::string& hint) {
  const std::size_t len = std::strlen(word);
  for (std::size_t k = 0; k < code.size();) {
    const char c = code[k];
    if (code.compare(k, 2, "//") == 0) {
      while (k < code.size() && code[k] != '\n') ++k;
    } else if (code.compare(k, 2, "/*") == 0) {
      const std::size_t end = code.find("*/", k + 2);
      k = end == std::string::npos ? code.size() : end + 2;
    } else if (c == '"' || c == '\'') {
      for (++k; k < code.size() && code[k] != c; ++k)
        if (code[k] == '\\') ++k;
      ++k;
    } else if (is_ident_char(c)) {
      std::size_t j = k;
      while (j < code.size() && is_ident_char(code[j])) ++j;
      if (j - k == len && code.compare(k, len, word) == 0)
        throw ArgumentError(what + " uses '" + word + "': " + hint);
      k = j;
    } else {
      ++k;
    }
  }
}

const char* dialect_type(ScalarType t) { return to_string(t); }

std::string describe(const std::vector<GeneratedParam>& params) {
  std::string s;
  for (const GeneratedParam& p : params)
    s += (s.empty() ? "" : ", ") + std::string(dialect_type(p.type)) + " " + p.name;
  return s;
}

std::string kinds_key(const std::vector<ArgKind>& kinds) {
  std::string key;
  for (ArgKind k : kinds) key += k == ArgKind::array ? 'a' : 's';
  return key;
}

SourceWriter::SourceWriter(std::string file) : file_(std::move(file)) {
  // Device::compile puts `#line 1 "<file>"` in front; this keeps the count when the source is
  // compiled under another name.
  line("#line 2 \"" + file_ + "\"");
}

void SourceWriter::line(const std::string& text) {
  text_ += text;
  text_ += '\n';
  ++lines_;
}

void SourceWriter::snippet(const std::string& file, const std::string& code) {
  line("#line 1 \"" + file + "\"");
  std::string normalised;
  normalised.reserve(code.size());
  for (std::size_t k = 0; k < code.size(); ++k)
    if (!(code[k] == '\r' && k + 1 < code.size() && code[k + 1] == '\n')) normalised += code[k];
  while (!normalised.empty() && normalised.back() == '\n') normalised.pop_back();
  int count = 1;
  for (char c : normalised) count += c == '\n';
  text_ += normalised;
  text_ += '\n';
  lines_ += count;
  // The #line line itself is lines_ + 1.
  line("#line " + std::to_string(lines_ + 2) + " \"" + file_ + "\"");
}

Program compile(const Device& device, const std::string& source, const std::string& file) {
  try {
    return device.compile(source, {}, file);
  } catch (const CompileError& e) {
    // The generated text's own map, built on failure only. Physical positions in the log need the
    // assembled source's map, but the backend has already rewritten those it could place.
    const SourceMap map(source);
    std::optional<SourcePosition> at = map.first_error(e.log(), map.files());
    if (!at) throw;
    // The compiler may only notice a snippet's error on the generated line after it (an unclosed
    // parenthesis); that error is the snippet's.
    if (at->file == file) {
      SourcePosition before = map.before(*at);
      if (!before.file.empty() && before.file != file) at = std::move(before);
    }
    throw CompileError(e.backend(), at->file, e.log(), e.options(), at->line);
  }
}

void require_type_support(const DeviceInfo& info, ScalarType type, const std::string& what,
                          const std::string& subject) {
  if (type == ScalarType::f64 && !info.supports_double)
    throw ArgumentError(what + ": " + subject + " is double, but " + info.id() + " (" + info.name +
                        ") does not support double precision");
}

std::size_t group_size(const DeviceInfo& info) {
  std::size_t size = 256;
  while (size > 1 && size > info.max_group_size) size /= 2;
  return size;
}

namespace {

// A scalar argument's value, widened without loss to the widest type of its kind.
WideScalar widen(const KernelArg& a, const std::string& what) {
  return visit_scalar_type(a.type, [&](auto tag) -> WideScalar {
    using V = typename decltype(tag)::type;
    if constexpr (std::is_arithmetic_v<V>) {
      V value;
      std::memcpy(&value, a.bytes.data(), sizeof(V));
      if constexpr (std::is_floating_point_v<V>)
        return static_cast<double>(value);
      else if constexpr (std::is_signed_v<V>)
        return static_cast<std::int64_t>(value);
      else
        return static_cast<std::uint64_t>(value);
    } else {
      throw ArgumentError(what + ": a " + std::to_string(a.size) +
                          "-byte value of a type duet cannot convert was passed; pass a number (float, "
                          "double or an integer type; bool is not one)");
    }
  });
}

}  // namespace

KernelArg convert_scalar(const KernelArg& a, ScalarType to, const std::string& what) {
  const WideScalar value = widen(a, what);
  KernelArg out;
  if (is_storage_only(to)) {
    // half and bfloat16 are storage types: their parameters take arrays only. A value is still checked as a
    // 16-bit whole number first, as it always was, so its message does not change.
    duet::convert_scalar(value, a.type, ScalarType::u16, out.bytes.data(), what);
    throw ArgumentError(what + ": cannot convert to " + to_string(to));
  }
  duet::convert_scalar(value, a.type, to, out.bytes.data(), what);
  out.type = to;
  out.size = size_of(to);
  return out;
}

CheckedArgs check_generated_args(const Device& device, const Queue& q, const std::vector<GeneratedParam>& params,
                                 std::size_t outputs_from, const std::vector<KernelArg>& args,
                                 const std::string& what) {
  const Device& qdev = q.device();
  if (qdev != device)
    throw DeviceMismatchError(what + " was made for " + device.info().id() + " (" + device.info().name +
                              ") but the queue is on " + qdev.info().id() + " (" + qdev.info().name +
                              "); make the kernel for the queue's device");
  if (args.size() != params.size()) {
    std::string names;
    for (std::size_t k = 0; k < params.size(); ++k) {
      if (k == outputs_from)
        names += names.empty() ? "outputs: " : "; outputs: ";
      else if (k == 0)
        names += "inputs: ";
      else
        names += ", ";
      names += params[k].name;
    }
    throw ArgumentError(what + " takes " + std::to_string(params.size()) + " argument" +
                        (params.size() == 1 ? "" : "s") + " (" + names + ") but was called with " +
                        std::to_string(args.size()));
  }
  CheckedArgs out;
  std::size_t first_array = 0;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const GeneratedParam& p = params[k];
    const KernelArg& a = args[k];
    const std::string arg =
        what + ": argument " + std::to_string(k + 1) + " ('" + dialect_type(p.type) + " " + p.name + "')";
    if (a.kind == KernelArg::Kind::buffer) {
      a.buffer->check_live("buffer passed as argument");  // ReleasedError first
      if (a.type != p.type)
        throw ArgumentError(arg + " needs a Buffer<" + dialect_type(p.type) + "> or a value, but a Buffer<" +
                            to_string(a.type) + "> was passed");
      const std::size_t length = a.buffer->bytes() / size_of(p.type);
      if (!out.any_array) {
        out.any_array = true;
        out.length = length;
        first_array = k;
      } else if (length != out.length) {
        throw BufferSizeError(what + ": every array must have the same length, but " +
                              params[first_array].name + " has " + std::to_string(out.length) +
                              " elements and " + p.name + " has " + std::to_string(length));
      }
      out.kinds.push_back(ArgKind::array);
      out.launch.push_back(a);
    } else {
      if (k >= outputs_from)
        throw ArgumentError(arg + " is an output, so it needs a Buffer<" + std::string(dialect_type(p.type)) +
                            ">, not a value");
      out.kinds.push_back(ArgKind::scalar);
      out.launch.push_back(convert_scalar(a, p.type, arg));
    }
  }
  return out;
}

}  // namespace duet::detail::gen

namespace duet::generated {

Layout layout_for(DeviceKind kind) { return kind == DeviceKind::cpu ? Layout::blocked : Layout::grid_stride; }

std::optional<Layout> forced_layout() {
  const char* forced = std::getenv("DUET_ELEMENTWISE_LAYOUT");
  if (!forced || !*forced) return std::nullopt;
  const std::string name = forced;
  if (name == "grid_stride") return Layout::grid_stride;
  if (name == "blocked") return Layout::blocked;
  if (name == "vector4") return Layout::vector4;
  throw ArgumentError(
      "DUET_ELEMENTWISE_LAYOUT=" + name +
      " names no layout of generated kernels: use grid_stride, blocked or vector4, or unset it");
}

Forms forms_for(DeviceKind kind) {
  const std::optional<Layout> forced = forced_layout();
  Forms f;
  f.loop = forced && *forced != Layout::vector4 ? *forced : layout_for(kind);
  f.vector4 = !forced || *forced == Layout::vector4;
  f.gpu_rows = kind == DeviceKind::gpu || (forced && *forced == Layout::vector4);
  return f;
}

}  // namespace duet::generated
