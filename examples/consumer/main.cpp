// The package test: an out-of-tree program linked against an installed duet. It lists the devices,
// then on the device Device::open() picks adds two vectors (the core), multiplies two small
// matrices (duet::blas) and runs its own embedded kernel (duet_embed_kernels), checking each result.
// Exit code 0: passed; 1: wrong result or a duet error; 77: no device to run on (skipped).
#include <cstddef>
#include <cstdint>
#include <duet/blas.hpp>
#include <duet/duet.hpp>
#include <duet/extension.hpp>
#include <iostream>
#include <vector>

int main() {
  try {
    std::cout << "duet " << duet::version() << '\n';
    for (const duet::BackendStatus& backend : duet::backends()) {
      std::cout << "backend " << backend.name << ": "
                << (backend.available ? std::to_string(backend.device_count) + " device(s)"
                                      : "unavailable (" + backend.reason + ")")
                << '\n';
    }
    const std::vector<duet::DeviceInfo> devices = duet::devices();
    for (const duet::DeviceInfo& info : devices) {
      std::cout << "  " << info.id() << "  " << info.name << '\n';
    }
    if (devices.empty()) {
      std::cout << "SKIPPED: no device to run vector_add on\n";
      return 77;
    }

    const duet::Device device = duet::Device::open();
    duet::Queue queue = device.queue();
    const std::size_t n = std::size_t{1} << 20;
    std::vector<float> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = static_cast<float>(i % 1000) * 0.5f;
      b[i] = static_cast<float>(i % 7) - 3.0f;
    }
    duet::Buffer<float> da(device, n), db(device, n), dc(device, n);
    queue.write(da, a);
    queue.write(db, b);
    duet::vector_add(queue, da, db, dc);
    const std::vector<float> c = queue.to_vector(dc);  // waits for the queue

    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += c[i] == a[i] + b[i] ? 0 : 1;
    std::cout << "vector_add of " << n << " floats on " << device.info().id() << ": "
              << (wrong ? std::to_string(wrong) + " wrong" : std::string("OK")) << '\n';

    // 3 x 5 times 5 x 2 of small integers: exact in float.
    const std::size_t M = 3, K = 5, N = 2;
    std::vector<float> A(M * K), B(K * N);
    for (std::size_t i = 0; i < A.size(); ++i) A[i] = static_cast<float>(i % 5) - 2.0f;
    for (std::size_t i = 0; i < B.size(); ++i) B[i] = static_cast<float>(i % 3);
    duet::Buffer<float> dA(device, M * K), dB(device, K * N), dC(device, M * N);
    queue.write(dA, A);
    queue.write(dB, B);
    duet::matmul(queue, dA, dB, dC, M, N, K);
    const std::vector<float> C = queue.to_vector(dC);
    std::size_t wrong_products = 0;
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        float want = 0.0f;
        for (std::size_t k = 0; k < K; ++k) want += A[i * K + k] * B[k * N + j];
        wrong_products += C[i * N + j] == want ? 0 : 1;
      }
    std::cout << "matmul " << M << "x" << N << "x" << K << ": "
              << (wrong_products ? std::to_string(wrong_products) + " wrong" : std::string("OK")) << '\n';

    // The project's own kernel: c = 2 * a + c, in place on the vector_add result.
    duet::Kernel axpy = duet::extension::builtin_kernel(device, "axpy", "axpy");
    queue.launch(axpy, duet::Range(n), duet::Range(), 2.0f, da, dc, static_cast<std::uint32_t>(n));
    const std::vector<float> y = queue.to_vector(dc);
    std::size_t wrong_axpy = 0;
    for (std::size_t i = 0; i < n; ++i) wrong_axpy += y[i] == 2.0f * a[i] + c[i] ? 0 : 1;
    std::cout << "embedded axpy: " << (wrong_axpy ? std::to_string(wrong_axpy) + " wrong" : std::string("OK"))
              << '\n';
    return wrong || wrong_products || wrong_axpy ? 1 : 0;
  } catch (const duet::Error& e) {
    std::cerr << "duet_consumer: error: " << e.what() << '\n';
    return 1;
  }
}
