// The package test: an out-of-tree program linked against an installed duet. It lists the devices,
// then adds two vectors on the device Device::open() picks and checks every element.
// Exit code 0: passed; 1: wrong result or a duet error; 77: no device to run on (skipped).
#include <cstddef>
#include <duet/duet.hpp>
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
    return wrong ? 1 : 0;
  } catch (const duet::Error& e) {
    std::cerr << "duet_consumer: error: " << e.what() << '\n';
    return 1;
  }
}
