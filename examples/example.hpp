// What the examples share: opening the device that Device::open() picks (DUET_BACKEND and
// DUET_DEVICE choose it), with exit code 77, which CTest reports as skipped, when there is none;
// and reporting a duet error the same way in every example (exit code 1).
#pragma once

#include <duet/duet.hpp>
#include <exception>
#include <iostream>

namespace example {

constexpr int kSkipped = 77;

// Opens the device and returns body(device), an exit code. Without any device, or when the backend
// asked for in DUET_BACKEND is unavailable, prints why and returns 77.
template <class Body>
int run(const char* name, Body&& body) {
  duet::Device device;
  try {
    if (duet::devices().empty()) {
      std::cout << "SKIPPED: no device on any backend\n";
      return kSkipped;
    }
    device = duet::Device::open();
  } catch (const duet::BackendUnavailableError& e) {
    std::cout << "SKIPPED: " << e.what() << "\n";
    return kSkipped;
  } catch (const duet::Error& e) {
    std::cerr << name << ": cannot open a device (" << duet::to_string(e.kind()) << "): " << e.what() << "\n";
    return 1;
  }
  try {
    std::cout << name << " on " << device.info().id() << ": " << device.info().name << "\n";
    return body(device);
  } catch (const duet::Error& e) {  // a CompileError's message includes the compiler's log
    std::cerr << name << ": error (" << duet::to_string(e.kind()) << "): " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << name << ": error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace example
