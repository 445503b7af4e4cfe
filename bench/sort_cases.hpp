// The benchmark's sorting and selection cases (duet/array_sort.hpp, duet/array_select.hpp): sort,
// argsort, unique_values and nonzero over one large array each, in keys per second of input, checked
// on the host in linear time. cases.cpp runs them through the hooks below, which give them the same
// rotation, event timing and verdict as every other case.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "duet/queue.hpp"
#include "plan.hpp"
#include "results.hpp"

namespace duet::bench {

// What a sort case needs of the benchmark that runs it.
struct CaseHooks {
  Queue* queue = nullptr;
  const Plan* plan = nullptr;
  // Starts the row of (kernel, size); a case that throws after this becomes its FAIL row.
  std::function<Measurement&(const std::string& kernel, const std::string& size)> start;
  // How many sets of set_bytes to rotate through; 0 (and a skipped row) when one does not fit.
  std::function<int(Measurement& m, double set_bytes, double largest_buffer_bytes)> sets_for;
  // Times the plan's runs of enqueue(set) (warmed up already) and writes m's timing: `work` per
  // median second / 1e9, in `unit`.
  std::function<void(Measurement& m, int sets, double work, const std::string& unit,
                     const std::function<void(int)>& enqueue)>
      time;
  // The verdict from each set's error, then the row.
  std::function<void(Measurement& m, int sets, double tolerance, const std::string& check,
                     const std::function<double(int)>& error_of_set)>
      finish_checked;
  std::function<std::uint64_t(const std::string& what, int set)> seed;
};

// sort, argsort, unique_values, nonzero: in the order they run.
const std::vector<std::string>& sort_case_names();

// Runs the case `kernel` (one of sort_case_names()) at the plan's size.
void sort_case(const CaseHooks& hooks, const std::string& kernel);

}  // namespace duet::bench
