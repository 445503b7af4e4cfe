// duet::array in one include (CMake target duet::array, part of duet::duet): the Array type and its
// makers (duet/array.hpp), with its layout rules (duet/array_layout.hpp), fused elementwise
// expressions (duet/array_expr.hpp), reductions (duet/array_reduce.hpp), cumulative sums
// (duet/array_scan.hpp), sorting and searching (duet/array_sort.hpp) and selections (take, nonzero,
// unique: duet/array_select.hpp). Products of arrays are
// duet::linalg's: duet/array_linalg.hpp.
#pragma once

#include "duet/array.hpp"
#include "duet/array_expr.hpp"
#include "duet/array_layout.hpp"
#include "duet/array_reduce.hpp"
#include "duet/array_scan.hpp"
#include "duet/array_select.hpp"
#include "duet/array_sort.hpp"
