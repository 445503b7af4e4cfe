// Plain-text tables for the duet tool: a header row, a dashed rule and rows whose columns are padded
// to the widest cell, left- or right-aligned per column. Also the few number formatters the commands
// share, so every table prints numbers the same way.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

namespace duet::tool {

class Table {
 public:
  enum class Align { left, right };

  struct Column {
    std::string title;
    Align align = Align::left;
  };

  explicit Table(std::vector<Column> columns);

  // A row with fewer cells than columns is padded with empty cells; extra cells are an error.
  void add_row(std::vector<std::string> cells);
  std::size_t rows() const noexcept { return rows_.size(); }
  // Writes the header, a rule and every row; each line starts with `indent`.
  void print(std::ostream& out, const std::string& indent = "") const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// `value` with `decimals` digits after the point: fixed(3.14159, 2) == "3.14".
std::string fixed(double value, int decimals);
// `value` in scientific notation with two significant decimals: "1.2e-07"; "0" for zero.
std::string scientific(double value);
// A power of two as "2^24", anything else as its decimal digits.
std::string count_label(std::size_t n);

}  // namespace duet::tool
