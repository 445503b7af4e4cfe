// Reads dialect source (dialect_tokens.hpp): enough to find `KERNEL void name(params)` (or with
// attributes before `void`: `KERNEL REQD_GROUP_SIZE(x, y, z) void name(params)`) and classify each
// parameter as a buffer (a pointer) or a scalar, with its type after define substitution.
#include "signature.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <set>
#include <vector>

#include "dialect_tokens.hpp"

namespace duet::detail {
namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }

// The tokens' texts: the reader below works on words alone.
std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  for (Token& t : tokenize(text)) out.push_back(std::move(t.text));
  return out;
}

// Object-like #defines written in the source itself, after the caller's. A name the caller defined
// keeps the caller's value: a source defines it again only as a default under #ifndef (anything
// else would be a redefinition the compiler warns about), which the caller's define skips.
Defines collect_defines(const std::string& source, const Defines& given) {
  Defines all = given;
  std::size_t pos = 0;
  while (pos < source.size()) {
    std::size_t end = source.find('\n', pos);
    if (end == std::string::npos) end = source.size();
    std::string line = source.substr(pos, end - pos);
    pos = end + 1;
    auto tokens = words(line);
    if (tokens.size() >= 3 && tokens[0] == "#" && tokens[1] == "define") {
      std::size_t name_at = line.find(tokens[2], line.find("define") + 6);
      std::size_t after = name_at + tokens[2].size();
      if (after < line.size() && line[after] == '(') continue;  // function-like macro
      std::string value = line.substr(after);
      const bool caller_defined =
          std::any_of(given.begin(), given.end(), [&](const auto& d) { return d.first == tokens[2]; });
      if (!caller_defined) all.emplace_back(tokens[2], value);
    }
  }
  return all;
}

// The longest a parameter's type may grow to by substitution; longer is not a type the dialect
// checks, and defines that expand into themselves would otherwise grow it exponentially.
constexpr std::size_t kMaxTypeTokens = 64;

// `tokens` with defines substituted (eight rounds at most); nothing when they grow too long.
std::optional<std::vector<std::string>> substitute(std::vector<std::string> tokens, const Defines& defines) {
  for (int round = 0; round < 8; ++round) {
    bool changed = false;
    std::vector<std::string> out;
    for (const auto& t : tokens) {
      const std::string* value = nullptr;
      for (auto it = defines.rbegin(); it != defines.rend(); ++it)
        if (it->first == t) {
          value = &it->second;
          break;
        }
      if (value) {
        for (auto& v : words(*value)) out.push_back(v);
        changed = true;
      } else {
        out.push_back(t);
      }
      if (out.size() > kMaxTypeTokens) return std::nullopt;
    }
    tokens = std::move(out);
    if (!changed) break;
  }
  return tokens;
}

bool parse_param(std::vector<std::string> tokens, const Defines& defines, KernelParam& param) {
  static const std::set<std::string> qualifiers = {"GLOBAL",   "CONSTANT",   "RESTRICT",     "const",
                                                   "volatile", "restrict",   "__restrict__", "__global",
                                                   "global",   "__constant", "constant",     "__restrict"};
  if (tokens.empty() || !is_ident_start(tokens.back()[0])) return false;
  param.name = tokens.back();
  tokens.pop_back();
  bool pointer = false;
  // One token of the declaration, as written or as a define expands; false for a form the dialect
  // does not check (shared memory, arrays, references, anything but words and '*').
  auto take = [&](const std::string& t, std::vector<std::string>& type) {
    if (t == "*") {
      if (pointer) return false;  // a pointer to pointers is not a buffer of elements
      pointer = true;
    } else if (t == "const" || t == "CONSTANT" || t == "__constant" || t == "constant") {
      param.is_const = true;
    } else if (t == "SHARED" || t == "__local" || t == "local" || !is_identifier(t)) {
      return false;
    } else if (!qualifiers.count(t)) {
      type.push_back(t);
    }
    return true;
  };
  std::vector<std::string> type;
  for (auto& t : tokens)
    if (!take(t, type)) return false;
  // Defines are substituted in the type only: a define may expand to "unsigned int" or to "const".
  const std::optional<std::vector<std::string>> expanded = substitute(type, defines);
  if (!expanded) return false;
  std::vector<std::string> resolved;
  for (auto& t : *expanded)
    if (!take(t, resolved)) return false;
  if (resolved.empty()) return false;
  std::string name;
  for (auto& t : resolved) name += (name.empty() ? "" : " ") + t;
  param.kind = pointer ? KernelParam::Kind::buffer : KernelParam::Kind::scalar;
  param.type_name = name;
  param.type = scalar_type_from_name(name);
  return true;
}

// The value of tokens[i, end) as a constant expression of decimal integers (u suffix allowed) with
// + - * / and parentheses, as group sizes are written (`TILE * 8`); nothing for anything else, and
// nothing whose size passes kMaxExtent on the way, so that neither a step nor the product of three
// sizes can overflow.
constexpr long long kMaxExtent = 1 << 20;

std::optional<long long> evaluate(const std::vector<std::string>& t, std::size_t& i, int depth, int level);

std::optional<long long> evaluate_factor(const std::vector<std::string>& t, std::size_t& i, int depth) {
  if (i >= t.size() || depth > 16) return std::nullopt;
  if (t[i] == "(") {
    const auto inner = evaluate(t, ++i, depth + 1, 0);
    if (!inner || i >= t.size() || t[i] != ")") return std::nullopt;
    ++i;
    return inner;
  }
  std::string digits = t[i++];
  if (!digits.empty() && (digits.back() == 'u' || digits.back() == 'U')) digits.pop_back();
  if (digits.empty() || digits.size() > 7 || (digits[0] == '0' && digits.size() > 1) ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  const long long value = std::stoll(digits);
  if (value > kMaxExtent) return std::nullopt;
  return value;
}

// Level 0 adds and subtracts terms, level 1 multiplies and divides factors.
std::optional<long long> evaluate(const std::vector<std::string>& t, std::size_t& i, int depth, int level) {
  const auto operand = [&] { return level == 0 ? evaluate(t, i, depth, 1) : evaluate_factor(t, i, depth); };
  const std::string ops = level == 0 ? "+-" : "*/";
  auto value = operand();
  while (value && i < t.size() && t[i].size() == 1 && ops.find(t[i][0]) != std::string::npos) {
    const char op = t[i++][0];
    const auto rhs = operand();
    if (!rhs || (op == '/' && *rhs == 0)) return std::nullopt;
    value = op == '+' ? *value + *rhs : op == '-' ? *value - *rhs : op == '*' ? *value * *rhs : *value / *rhs;
    if (*value > kMaxExtent || *value < -kMaxExtent) return std::nullopt;
  }
  return value;
}

// A group size as REQD_GROUP_SIZE takes it: a constant expression of integers (above), written or
// expanded from defines; 0 for anything else or for a size below 1.
std::size_t group_extent(const std::vector<std::string>& written, const Defines& defines) {
  const std::optional<std::vector<std::string>> expanded = substitute(written, defines);
  if (!expanded || expanded->empty()) return 0;
  std::size_t i = 0;
  const std::optional<long long> value = evaluate(*expanded, i, 0, 0);
  if (!value || i != expanded->size() || *value < 1) return 0;
  return static_cast<std::size_t>(*value);
}

// Reads `REQD_GROUP_SIZE(x, y, z)` starting at tokens[at] into `size`; returns the index after it,
// or 0 when it is not three group sizes.
std::size_t parse_required_group_size(const std::vector<std::string>& tokens, std::size_t at,
                                      const Defines& defines, std::array<std::size_t, 3>& size) {
  if (at + 1 >= tokens.size() || tokens[at + 1] != "(") return 0;
  std::vector<std::vector<std::string>> args(1);
  int depth = 0;
  for (std::size_t j = at + 2; j < tokens.size(); ++j) {
    const std::string& t = tokens[j];
    if (t == "(") ++depth;
    if (t == ")" && depth-- == 0) {
      if (args.size() != 3) return 0;
      for (std::size_t d = 0; d < 3; ++d)
        if ((size[d] = group_extent(args[d], defines)) == 0) return 0;
      return j + 1;
    }
    if (t == "," && depth == 0)
      args.emplace_back();
    else
      args.back().push_back(t);
  }
  return 0;
}

// The parameter at tokens[first, end), read into `sig`; false when it is not one duet can check.
bool add_param(const std::vector<Token>& tokens, std::size_t first, std::size_t end, const Defines& defines,
               KernelDeclaration& decl) {
  std::vector<std::string> texts;
  for (std::size_t k = first; k < end; ++k) texts.push_back(tokens[k].text);
  KernelParam p;
  const bool ok = parse_param(texts, defines, p);
  decl.signature.params.push_back(p);
  decl.params.emplace_back(first, end);
  return ok;
}

// The attributes between KERNEL and the return type, from tokens[at]: REQD_GROUP_SIZE(x, y, z) is
// read into `size` where its sizes are constant expressions duet can work out (else the compiler
// alone holds launches to it); a define is expanded first (a source may pick its kernel's bounds
// per backend: `#define BOUNDS REQD_GROUP_SIZE(...)` or `__launch_bounds__(...)`); any other
// attribute, with its arguments in parentheses, is passed over. Returns the index of the return
// type, or 0 when an attribute cannot be read.
std::size_t read_kernel_attributes(const std::vector<std::string>& tokens, std::size_t at,
                                   const Defines& defines, std::array<std::size_t, 3>& size) {
  for (int attributes = 0; at < tokens.size() && tokens[at] != "void"; ++attributes) {
    if (attributes == 8 || !is_identifier(tokens[at])) return 0;
    if (tokens[at] == "REQD_GROUP_SIZE" && parse_required_group_size(tokens, at, defines, size) == 0)
      size = {0, 0, 0};  // a size only the compiler can work out: the parameters are still checked
    const std::optional<std::vector<std::string>> expanded = substitute({tokens[at]}, defines);
    if (!expanded) return 0;
    if (*expanded != std::vector<std::string>{tokens[at]}) {
      if (!expanded->empty() && read_kernel_attributes(*expanded, 0, defines, size) != expanded->size())
        return 0;
      ++at;
      continue;
    }
    if (++at < tokens.size() && tokens[at] == "(") {
      for (int depth = 0; at < tokens.size(); ++at) {
        if (tokens[at] == "(") ++depth;
        if (tokens[at] == ")" && --depth == 0) break;
      }
      if (at++ == tokens.size()) return 0;
    }
  }
  return at;
}

}  // namespace

std::vector<KernelDeclaration> kernel_declarations(const std::vector<Token>& tokens, const std::string& text,
                                                   const Defines& defines,
                                                   const std::set<std::string>& markers) {
  const Defines all = collect_defines(text, defines);
  std::vector<std::string> texts;
  for (const Token& t : tokens) texts.push_back(t.text);
  std::vector<KernelDeclaration> found;
  for (std::size_t i = 0; i + 3 < tokens.size(); ++i) {
    if (!markers.count(texts[i])) continue;
    KernelDeclaration decl;
    KernelSignature& sig = decl.signature;
    std::size_t at = i + 1;  // the return type
    if (texts[i] == "KERNEL" && texts[at] != "void") {
      at = read_kernel_attributes(texts, at, all, sig.required_group_size);
      if (at == 0) continue;  // not an attribute duet can read: the kernel goes unchecked
    }
    if (at + 2 >= texts.size() || texts[at] != "void" || !is_identifier(texts[at + 1]) ||
        texts[at + 2] != "(")
      continue;
    sig.name = texts[at + 1];
    std::size_t j = at + 3, first = j;
    int depth = 0;
    bool closed = false;
    decl.readable = true;
    for (; j < texts.size(); ++j) {
      const std::string& t = texts[j];
      if (t == "(") ++depth;
      if (t == ")" && depth-- == 0) {
        closed = true;
        break;
      }
      if (t == "," && depth == 0) {
        if (!add_param(tokens, first, j, all, decl)) decl.readable = false;
        first = j + 1;
      }
    }
    if (!closed) break;
    if (j > first && !(j == first + 1 && texts[first] == "void") && !add_param(tokens, first, j, all, decl))
      decl.readable = false;
    decl.close = j;
    decl.brace = j + 1 < texts.size() && texts[j + 1] == "{" ? j + 1 : 0;
    found.push_back(std::move(decl));
    i = j;
  }
  return found;
}

namespace {

// The kernels declared with one of `markers` (KERNEL in dialect source) that read in full.
std::map<std::string, KernelSignature> parse_signatures(const std::string& source, const Defines& defines,
                                                        const std::set<std::string>& markers) {
  const std::string text = blank_comments(source);
  std::map<std::string, KernelSignature> result;
  for (KernelDeclaration& decl : kernel_declarations(tokenize(text), text, defines, markers))
    if (decl.readable) result[decl.signature.name] = std::move(decl.signature);
  return result;
}

}  // namespace

std::map<std::string, KernelSignature> parse_kernel_signatures(const std::string& source,
                                                               const Defines& defines) {
  return parse_signatures(source, defines, {"KERNEL"});
}

std::map<std::string, KernelSignature> parse_native_signatures(const std::string& source,
                                                               const std::vector<std::string>& markers) {
  return parse_signatures(source, {}, std::set<std::string>(markers.begin(), markers.end()));
}

std::vector<std::string> native_kernel_names(const std::string& source) {
  auto tokens = words(blank_comments(source));
  std::vector<std::string> names;
  for (std::size_t i = 0; i + 2 < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    if ((t == "__global__" || t == "__kernel" || t == "kernel") && tokens[i + 1] == "void" &&
        is_ident_start(tokens[i + 2][0]))
      names.push_back(tokens[i + 2]);
  }
  return names;
}

}  // namespace duet::detail
