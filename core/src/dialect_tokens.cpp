#include "dialect_tokens.hpp"

#include <algorithm>
#include <cctype>

namespace duet::detail {
namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

std::string blank_comments(const std::string& s) {
  std::string out = s;
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::size_t end = i;
    if (s.compare(i, 2, "//") == 0) {
      end = s.find('\n', i);
      if (end == std::string::npos) end = s.size();
    } else if (s.compare(i, 2, "/*") == 0) {
      end = s.find("*/", i + 2);
      end = end == std::string::npos ? s.size() : end + 2;
    } else {
      continue;
    }
    for (std::size_t j = i; j < end; ++j)
      if (out[j] != '\n') out[j] = ' ';
    i = end - 1;
  }
  return out;
}

std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> tokens;
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    std::size_t j = i + 1;
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (is_ident_start(c)) {
      while (j < s.size() && is_ident(s[j])) ++j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      while (j < s.size() && (is_ident(s[j]) || s[j] == '.')) ++j;
    }
    tokens.push_back(Token{s.substr(i, j - i), i});
    i = j;
  }
  return tokens;
}

bool is_identifier(const std::string& t) {
  return !t.empty() && is_ident_start(t[0]) && std::all_of(t.begin(), t.end(), is_ident);
}

}  // namespace duet::detail
