// The tensor maps of gemm_wgmma.duet's TMA form (WgmmaTile::tma): one 2D map per operand, as the
// kernel reads it, encoded by the device (extension::tiled_copy_descriptor) and kept per queue.
#pragma once

#include <cstddef>
#include <cstdint>

#include "duet/buffer.hpp"
#include "duet/extension.hpp"
#include "duet/queue.hpp"

namespace duet::blas_detail {

// One operand of the warpgroup kernel as its map sees it: `rows` x `cols` elements of
// `element_bytes` per matrix, `ld` elements a row, the batch's `count` matrices `stride` elements
// apart (0: one matrix for all), in boxes of box_rows x box_cols.
struct MappedOperand {
  RawBuffer start;  // from the operand's first element
  std::size_t element_bytes = 2, rows = 0, cols = 0, ld = 0, stride = 0, count = 1;
  std::uint32_t box_rows = 0, box_cols = 0;
};

// The two maps, A's then B's, in one device buffer of 256 bytes (each 64-byte aligned), and each
// matrix's first row in its map: matrix b's at b * a_step (b * b_step). Empty `maps` where they
// cannot be made: a batch stride that is not whole rows, more rows than a map holds, or a device
// without tiled copies; the caller then runs the cp.async form.
struct WgmmaMaps {
  RawBuffer maps;
  int a_step = 0, b_step = 0;
};

WgmmaMaps wgmma_maps(const char* call, Queue& q, const MappedOperand& a, const MappedOperand& b);

}  // namespace duet::blas_detail
