// Error reporting for the duet tool.
#include "report.hpp"

#include <ostream>

#include "duet/error.hpp"

namespace duet::tool {

std::string describe_error(const std::exception& e) {
  std::string text = e.what();
  if (const auto* compile = dynamic_cast<const CompileError*>(&e)) {
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += "compiler options:";
    for (const auto& option : compile->options()) text += " " + option;
    // The message usually quotes the log already; print it only when it does not.
    if (!compile->log().empty() && text.find(compile->log()) == std::string::npos) {
      text += "\ncompiler log of " + compile->source_name() + " (" + compile->backend() + "):\n";
      text += compile->log();
    }
  }
  return text;
}

void print_error(std::ostream& out, const std::exception& e) {
  const std::string text = describe_error(e);
  out << "duet: error: " << text;
  if (text.empty() || text.back() != '\n') out << '\n';
}

}  // namespace duet::tool
