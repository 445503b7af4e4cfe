// gemm_maps.hpp: the maps of each call's operands, encoded once per (address, shape, strides, box)
// and kept in a small cache per queue, so that repeated products on the same operands only look up.
// Each operand's batch lies in its map as one tall matrix: matrix b starts b * stride / ld rows
// under the first, so the stride must be whole rows (or 0, every matrix the first).
#include "gemm_maps.hpp"

#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace duet::blas_detail {
namespace {

using Key = std::tuple<std::uintptr_t, std::size_t, std::size_t, std::size_t, std::size_t, std::uint32_t,
                       std::uint32_t, std::uintptr_t, std::size_t, std::size_t, std::size_t, std::size_t,
                       std::uint32_t, std::uint32_t>;

// Per queue: every launch that reads an entry's buffer is on this queue. The cache is emptied when
// it grows past kMaxEntries; a buffer dropped then is freed as the queue's workspace is when it
// grows (the driver's free waits for the work still using the memory).
struct MapCache {
  std::mutex mutex;
  std::map<Key, RawBuffer> entries;  // the two maps of each key
};
constexpr std::size_t kMaxEntries = 64;

// The map's shape: the batch as one tall matrix; false where it cannot be.
bool tiled_shape(const MappedOperand& o, extension::TiledCopy& shape, int& step) {
  if (o.count > 1 && o.stride % o.ld) return false;
  const std::size_t per = o.count > 1 ? o.stride / o.ld : 0;
  const std::size_t rows = (o.count - 1) * per + o.rows;
  if (per > std::size_t(std::numeric_limits<int>::max()) ||
      rows > std::size_t(std::numeric_limits<int>::max()))
    return false;
  shape.element_bytes = o.element_bytes;
  shape.cols = o.cols, shape.rows = rows, shape.row_bytes = o.ld * o.element_bytes;
  shape.box_cols = o.box_cols, shape.box_rows = o.box_rows, shape.swizzle_bytes = 128;
  step = static_cast<int>(per);
  return true;
}

}  // namespace

WgmmaMaps wgmma_maps(const char* call, Queue& q, const MappedOperand& a, const MappedOperand& b) {
  WgmmaMaps out;
  extension::TiledCopy sa, sb;
  if (!tiled_shape(a, sa, out.a_step) || !tiled_shape(b, sb, out.b_step)) return out;
  const Key key{a.start.native_handle(),
                sa.element_bytes,
                std::size_t(sa.cols),
                std::size_t(sa.rows),
                std::size_t(sa.row_bytes),
                sa.box_cols,
                sa.box_rows,
                b.start.native_handle(),
                sb.element_bytes,
                std::size_t(sb.cols),
                std::size_t(sb.rows),
                std::size_t(sb.row_bytes),
                sb.box_cols,
                sb.box_rows};
  const std::shared_ptr<MapCache> cache =
      extension::queue_state<MapCache>(q, "duet.blas.gemm_maps", [] { return std::make_shared<MapCache>(); });
  std::lock_guard<std::mutex> lock(cache->mutex);
  auto found = cache->entries.find(key);
  if (found == cache->entries.end()) {
    const std::string ma = extension::tiled_copy_descriptor(call, a.start, sa);
    const std::string mb = ma.empty() ? std::string() : extension::tiled_copy_descriptor(call, b.start, sb);
    if (ma.size() != 128 || mb.size() != 128) return WgmmaMaps{};
    if (cache->entries.size() >= kMaxEntries) cache->entries.clear();
    std::vector<std::uint64_t> host(32);
    std::memcpy(host.data(), ma.data(), 128);
    std::memcpy(host.data() + 16, mb.data(), 128);
    // Written through a queue of its own and waited for, not through `q`: the maps are there
    // before any launch of any queue reads them, the host bytes can go at once, and a graph that
    // `q` may be capturing records no write.
    Buffer<std::uint64_t> device(q.device(), host.size());
    if (!device.raw().starts_aligned(64)) return WgmmaMaps{};  // a map must lie 64-byte aligned
    Queue writer = q.device().queue();
    writer.write(device, Span<const std::uint64_t>(host.data(), host.size()));
    writer.finish();
    found = cache->entries.emplace(key, device.raw().share()).first;
  }
  out.maps = found->second.share();
  return out;
}

}  // namespace duet::blas_detail
