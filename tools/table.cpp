// Column-aligned table printing and number formatting for the duet tool.
#include "table.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <stdexcept>
#include <utility>

namespace duet::tool {

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

void Table::add_row(std::vector<std::string> cells) {
  if (cells.size() > columns_.size()) {
    throw std::logic_error("table row has " + std::to_string(cells.size()) + " cells for " +
                           std::to_string(columns_.size()) + " columns");
  }
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

void Table::print(std::ostream& out, const std::string& indent) const {
  std::vector<std::size_t> width(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    width[c] = columns_[c].title.size();
    for (const auto& row : rows_) width[c] = std::max(width[c], row[c].size());
  }

  auto line = [&](const std::vector<std::string>& cells) {
    std::string text = indent;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(width[c] - cells[c].size(), ' ');
      const bool last = c + 1 == cells.size();
      if (columns_[c].align == Align::right) {
        text += pad + cells[c];
      } else {
        text += cells[c];
        if (!last) text += pad;  // no trailing blanks after a left-aligned last column
      }
      if (!last) text += "  ";
    }
    out << text << '\n';
  };

  std::vector<std::string> titles;
  std::vector<std::string> rule;
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    titles.push_back(columns_[c].title);
    rule.emplace_back(width[c], '-');
  }
  line(titles);
  line(rule);
  for (const auto& row : rows_) line(row);
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string scientific(double value) {
  if (value == 0.0) return "0";
  char text[64];
  std::snprintf(text, sizeof text, "%.1e", value);
  return text;
}

std::string count_label(std::size_t n) {
  if (n >= 1024 && (n & (n - 1)) == 0) {
    int exponent = 0;
    while ((std::size_t{1} << exponent) < n) ++exponent;
    return "2^" + std::to_string(exponent);
  }
  return std::to_string(n);
}

}  // namespace duet::tool
