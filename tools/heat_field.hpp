// What `duet heat` does around the solver, on one device or on many ranks: the grid size from
// --size, the initial field, and the report of the final field (statistics and the PNG).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "commands.hpp"

namespace duet::tool {

struct GridSize {
  std::size_t nx = 0, ny = 0;
};
// "512" (512 x 512) or "1024x768" (nx x ny); std::invalid_argument naming --size otherwise.
GridSize parse_grid_size(const std::string& text);

// "disc": a hot disc in the middle; "edge": the top row (boundary, so held) hot.
std::vector<float> initial_field(std::size_t nx, std::size_t ny, const std::string& kind);

// Prints the time of a run of `steps` steps (the median of `ms`, one per timed run; with ms per
// step and GB/s counting one read and one write of every cell per step), the field's min, max and
// mean, and writes the raw field and the PNG where options ask for them.
void report_field(const std::vector<float>& field, std::size_t nx, std::size_t ny, std::vector<double> ms,
                  long long steps, const HeatOptions& options);

}  // namespace duet::tool
