// matmul: C = A * B with the register-blocked dialect kernel in blas/kernels/matmul.duet, its tile
// sizes taken from the tuning table (matmul_params.cpp, tuning_file.cpp), by device and by the size
// of C. The parameters
// are looked up once per device and kept, so a launch is a small cache lookup and no file is read
// on the launch path.
#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "duet/blas.hpp"
#include "duet/extension.hpp"

namespace duet {

Defines matmul_defines(const MatmulParams& p, std::size_t N, std::size_t K) {
  // float4 accesses need rows that start 16-byte aligned: K % 4 for A, N % 4 for B and C.
  // A_SWIZZLE: the layout of the A slice in shared memory, which shared_bytes() counts.
  return {{"BM", std::to_string(p.bm)},
          {"BN", std::to_string(p.bn)},
          {"BK", std::to_string(p.bk)},
          {"TM", std::to_string(p.tm)},
          {"TN", std::to_string(p.tn)},
          {"WX", std::to_string(p.wx)},
          {"PIPELINE", std::to_string(p.pipeline)},
          {"A_SWIZZLE", p.swizzles_a() ? "1" : "0"},
          {"VEC_A", K % 4 ? "0" : "1"},
          {"VEC_B", N % 4 ? "0" : "1"}};
}

namespace {

// What matmul() needs per device and size class, worked out once: the parameters and the kernel's
// defines for each combination of float4 rows (index: 2 * (K % 4 == 0) + (N % 4 == 0)).
struct SizeChoice {
  std::size_t max_mn = 0;  // for C of at most this many elements; 0: any size
  MatmulParams params;
  std::string problem;  // empty when the device can run params
  Defines defines[4];
};

// Per device: the choices for small products (ascending max_mn, from the table's max_mn entries),
// then the one for every other size.
struct Choice {
  std::vector<SizeChoice> small;
  SizeChoice any;

  const SizeChoice& for_size(std::size_t mn) const {
    for (const SizeChoice& c : small)
      if (mn <= c.max_mn) return c;
    return any;
  }
};

SizeChoice size_choice(const DeviceInfo& info, const MatmulSizeClass& size_class) {
  SizeChoice c;
  c.max_mn = size_class.max_mn;
  c.params = size_class.choice.params;
  c.problem = matmul_params_problem(c.params, info);
  for (int vec = 0; vec < 4; ++vec) c.defines[vec] = matmul_defines(c.params, vec & 1 ? 4 : 1, vec & 2 ? 4 : 1);
  return c;
}

// The choice per device, worked out on the device's first matmul and kept in its slot.
std::shared_ptr<const Choice> choice_for(const Device& device) {
  return extension::device_state<const Choice>(device, "duet.blas.matmul", [&] {
    auto choice = std::make_shared<Choice>();
    for (const MatmulSizeClass& size_class : matmul_size_classes(device.info())) {  // reads the tuning file
      if (size_class.max_mn != 0)
        choice->small.push_back(size_choice(device.info(), size_class));
      else
        choice->any = size_choice(device.info(), size_class);
    }
    return choice;
  });
}

void check_params(const char* call, const Device& device, const MatmulParams& p) {
  const std::string problem = matmul_params_problem(p, device.info());
  if (!problem.empty()) throw ArgumentError(std::string(call) + ": parameters not usable: " + problem);
}

void launch(const char* call, Queue& q, const Buffer<float>& A, const Buffer<float>& B, Buffer<float>& C,
            std::size_t M, std::size_t N, std::size_t K, const MatmulParams& p, const Defines& defines) {
  if (M == 0 || N == 0 || K == 0) throw ArgumentError(std::string(call) + ": M, N and K must be at least 1");
  const int m = extension::as_int(call, "M", M), n = extension::as_int(call, "N", N),
            k = extension::as_int(call, "K", K);
  extension::require_elements(call, "A (M x K)", A, M * K);
  extension::require_elements(call, "B (K x N)", B, K * N);
  extension::require_elements(call, "C (M x N)", C, M * N);
  // The kernel numbers its groups with int.
  const std::size_t groups = ((M + p.bm - 1) / p.bm) * ((N + p.bn - 1) / p.bn);
  extension::as_int(call, "the number of tiles of C", groups);
  const std::size_t threads = static_cast<std::size_t>(p.threads());
  q.launch(extension::builtin_kernel(q.device(), "matmul", "matmul", defines), Range(groups * threads),
           Range(threads), A, B, C, m, n, k);
}

}  // namespace

void matmul(Queue& q, const Buffer<float>& A, const Buffer<float>& B, Buffer<float>& C, std::size_t M,
            std::size_t N, std::size_t K) {
  const std::shared_ptr<const Choice> choice = choice_for(q.device());
  const SizeChoice& c = choice->for_size(M * N);
  if (!c.problem.empty())
    throw ArgumentError("matmul: " + q.device().info().name + " cannot run any matmul parameters: " + c.problem);
  launch("matmul", q, A, B, C, M, N, K, c.params, c.defines[2 * (K % 4 == 0) + (N % 4 == 0)]);
}

void matmul_with(Queue& q, const Buffer<float>& A, const Buffer<float>& B, Buffer<float>& C, std::size_t M,
                 std::size_t N, std::size_t K, const MatmulParams& p) {
  check_params("matmul_with", q.device(), p);
  launch("matmul_with", q, A, B, C, M, N, K, p, matmul_defines(p, N, K));
}

void matmul_prepare(const Device& device, const MatmulParams& p, std::size_t N, std::size_t K) {
  check_params("matmul_prepare", device, p);
  extension::builtin_kernel(device, "matmul", "matmul", matmul_defines(p, N, K));
}

}  // namespace duet
