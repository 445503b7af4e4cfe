#include "view_offsets.hpp"

#include <algorithm>
#include <set>

#include "dialect_tokens.hpp"
#include "signature.hpp"

namespace duet::detail {
namespace {

bool is_address_space(const std::string& t) {
  static const std::set<std::string> spaces = {"GLOBAL", "CONSTANT",   "__global",
                                               "global", "__constant", "constant"};
  return spaces.count(t) != 0;
}

bool is_restrict(const std::string& t) {
  return t == "RESTRICT" || t == "restrict" || t == "__restrict" || t == "__restrict__";
}

// text[from, to) on one line: a rewrite adds no line breaks (escaped ones inside a macro included).
std::string one_line(const std::string& text, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) {
    if (text[i] == '\\' && i + 1 < to && (text[i + 1] == '\n' || text[i + 1] == '\r')) continue;
    out += text[i] == '\n' || text[i] == '\r' ? ' ' : text[i];
  }
  return out;
}

struct Edit {
  std::size_t at;
  std::size_t erase;
  std::string insert;
};

}  // namespace

ViewOffsetSource add_view_offsets(const std::string& source, const Defines& defines) {
  const std::string text = blank_comments(source);
  const std::vector<Token> tokens = tokenize(text);
  const std::vector<KernelDeclaration> decls = kernel_declarations(tokens, text, defines, {"KERNEL"});
  std::map<std::string, int> seen;
  for (const KernelDeclaration& d : decls) ++seen[d.signature.name];

  ViewOffsetSource result;
  std::vector<Edit> edits;
  for (const KernelDeclaration& d : decls) {
    const std::string& kernel = d.signature.name;
    const std::vector<KernelParam>& params = d.signature.params;
    if (!d.readable || seen[kernel] != 1 || d.brace == 0 || tokens[d.close - 1].text == ",") continue;
    std::vector<Edit> kernel_edits;
    std::vector<std::size_t> offsets;
    std::string appended, prologue;
    bool sure = true;
    for (std::size_t k = 0; k < d.params.size() && sure; ++k) {
      if (params[k].kind != KernelParam::Kind::buffer) continue;
      const auto [first, end] = d.params[k];
      const Token& name = tokens[end - 1];
      std::size_t star = end, space = end;
      for (std::size_t j = first; j + 1 < end; ++j) {
        if (tokens[j].text == "*") star = j;
        if (is_address_space(tokens[j].text) && space == end) space = j;
      }
      sure = name.text == params[k].name && star != end && space < star;
      if (!sure) break;
      std::string pointer;  // the parameter's pointer type, without restrict, for the cast
      for (std::size_t j = first; j <= star; ++j)
        if (!is_restrict(tokens[j].text)) pointer += (pointer.empty() ? "" : " ") + tokens[j].text;
      const std::string base = "duet_view_" + name.text, offset = "duet_view_offset_" + name.text;
      kernel_edits.push_back({name.at, name.text.size(), base});
      appended += ", const ulong " + offset;
      prologue += " " + one_line(text, tokens[first].at, name.at + name.text.size()) + " = (" + pointer +
                  ")((" + tokens[space].text + " char*)" + base + " + " + offset + ");";
      offsets.push_back(k);
    }
    if (!sure || offsets.empty()) continue;
    kernel_edits.push_back({tokens[d.close].at, 0, appended});
    kernel_edits.push_back({tokens[d.brace].at + 1, 0, prologue});
    edits.insert(edits.end(), kernel_edits.begin(), kernel_edits.end());
    result.offset_params[kernel] = std::move(offsets);
  }
  // Back to front, so each edit's position still holds.
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.at > b.at; });
  result.source = source;
  for (const Edit& e : edits) result.source.replace(e.at, e.erase, e.insert);
  return result;
}

}  // namespace duet::detail
