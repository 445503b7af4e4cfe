// heat_step and heat: the explicit 5-point scheme in kernels/heat.duet.
#include <utility>

#include "duet/kernels.hpp"
#include "support.hpp"

namespace duet {

void heat_step(Queue& q, const Buffer<float>& u, Buffer<float>& v, std::size_t nx, std::size_t ny,
               float r) {
  if (nx == 0 || ny == 0) throw ArgumentError("heat_step: nx and ny must be at least 1");
  if (!(r > 0.0f && r <= 0.25f))
    throw ArgumentError("heat_step: r = " + std::to_string(r) +
                        " is outside (0, 0.25], where the explicit scheme is stable");
  const int nxi = detail::as_int("heat_step", "nx", nx), nyi = detail::as_int("heat_step", "ny", ny);
  detail::need("heat_step", "u", u, nx * ny);
  detail::need("heat_step", "v", v, nx * ny);
  if (&u.raw().impl() == &v.raw().impl())
    throw ArgumentError("heat_step: u and v must be different buffers");
  q.launch(detail::shared_kernel(q.device(), "heat", "heat_step"), Range(nx, ny), Range(32, 8), u, v,
           nxi, nyi, r);
}

void heat(Queue& q, Buffer<float>& u, Buffer<float>& v, std::size_t nx, std::size_t ny, float r,
          int steps) {
  if (steps < 0) throw ArgumentError("heat: steps must be >= 0, not " + std::to_string(steps));
  for (int s = 0; s < steps; ++s) {
    heat_step(q, u, v, nx, ny, r);
    std::swap(u, v);
  }
}

}  // namespace duet
