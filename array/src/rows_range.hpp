// The launch of the array layer's rows forms (fused.cpp's strided kernels, array_copy.duet's
// rows): x along the innermost axis, y over the rows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "duet/queue.hpp"

namespace duet {

// Elements of a row per work-item in the GPUs' rows form, a group's width apart (array_copy.duet's
// array_copy_rows_spread writes the same 4 out).
constexpr std::uint64_t kRowLanes = 4;

// Global and local ranges for rows of `inner` elements, `rows` of them, each work-item taking a
// run of `per` elements, or with per == 1 the GPUs' form (kRowLanes elements a group's width
// apart): x in groups of up to 256 work-items (a multiple of 32); y over the rows, at most 65535
// (CUDA's limit for a grid's second dimension; the kernels loop over the rest).
inline std::pair<Range, Range> rows_ranges(std::uint64_t inner, std::uint64_t rows, std::uint64_t per,
                                           std::uint64_t max_group) {
  const std::uint64_t covered = per == 1 ? kRowLanes : per;
  const std::uint64_t items = (inner + covered - 1) / covered;
  const std::uint64_t local = std::min<std::uint64_t>({256, (items + 31) / 32 * 32, max_group});
  return {Range((items + local - 1) / local * local, std::min<std::uint64_t>(rows, 65535)), Range(local, 1)};
}

}  // namespace duet
