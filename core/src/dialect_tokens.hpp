// The tokens of dialect (or native) kernel source, as the signature reader and the view-offset
// rewrite see it: comments are skipped, identifiers and numbers are one token each, anything else
// is one character. Each token keeps its position in the source, so a rewrite can edit the source
// at the places the tokens came from.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace duet::detail {

struct Token {
  std::string text;
  std::size_t at = 0;  // byte position of the token's first character in the source
};

// The source with every comment character replaced by a space (line breaks kept), so that
// positions in it are positions in the source.
std::string blank_comments(const std::string& source);

// The tokens of a source whose comments are already blanked.
std::vector<Token> tokenize(const std::string& text);

bool is_identifier(const std::string& text);

}  // namespace duet::detail
