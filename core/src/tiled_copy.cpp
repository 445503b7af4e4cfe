// Tiled-copy descriptors (duet/extension.hpp): the checks of the shape, around the backend's encoder
// (backend.hpp), so that every backend sees only shapes a descriptor can hold.
#include <string>

#include "access.hpp"
#include "backend.hpp"
#include "duet/extension.hpp"
#include "state.hpp"

namespace duet::extension {

std::string tiled_copy_descriptor(const char* call, const RawBuffer& memory, const TiledCopy& shape) {
  const backend::BufferImpl& impl = detail::Access::buffer(memory, "memory of the tiled copy");
  const auto what = [&] {
    return std::string(call) + ": a tiled copy of " + std::to_string(shape.rows) + " x " +
           std::to_string(shape.cols) + " elements of " + std::to_string(shape.element_bytes) + " bytes, " +
           std::to_string(shape.row_bytes) + " bytes a row, in boxes of " + std::to_string(shape.box_rows) +
           " x " + std::to_string(shape.box_cols);
  };
  const std::size_t e = shape.element_bytes;
  if (e != 1 && e != 2 && e != 4 && e != 8)
    throw ArgumentError(what() + ": elements must be 1, 2, 4 or 8 bytes");
  if (shape.rows == 0 || shape.cols == 0 || shape.rows >= (std::uint64_t{1} << 32) ||
      shape.cols >= (std::uint64_t{1} << 32))
    throw ArgumentError(what() + ": rows and columns must be 1 to 2^32 - 1");
  if (shape.row_bytes % 16 || shape.row_bytes < shape.cols * e || shape.row_bytes >= (std::uint64_t{1} << 40))
    throw ArgumentError(what() +
                        ": rows must be a multiple of 16 bytes apart, and no closer than a row's bytes");
  if (shape.box_rows < 1 || shape.box_rows > 256 || shape.box_cols < 1 || shape.box_cols > 256 ||
      (shape.box_cols * e) % 16)
    throw ArgumentError(what() + ": a box is 1 to 256 elements each way, its rows a multiple of 16 bytes");
  const std::uint32_t sw = shape.swizzle_bytes;
  if ((sw != 0 && sw != 32 && sw != 64 && sw != 128) || (sw != 0 && shape.box_cols * e > sw))
    throw ArgumentError(what() + ": the swizzle is 0, 32, 64 or 128 bytes, and a box row fits in it");
  if (!impl.aligned_at(memory.offset(), 16))
    throw ArgumentError(what() + ": the matrix must start 16-byte aligned");
  return detail::Access::core(memory.device())->impl->encode_tiled_copy(impl, memory.offset(), shape);
}

}  // namespace duet::extension
