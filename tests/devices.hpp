// The devices the test run covers, chosen once by main.cpp from DUET_TEST_BACKEND, and the loop
// every device test uses. for_each_device runs its body once per device inside a doctest SUBCASE
// named after the device ("opencl:0 pthread-..."), with the device and the random seed attached as
// INFO context, so every failure names the device it happened on. A duet::Error escaping the body
// fails that device's subcase and lets the other devices run.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <duet/duet.hpp>
#include <exception>
#include <string>
#include <vector>

// Every device of the backend under test, or the shard's (DUET_TEST_DEVICE_INDEX; main.cpp); empty
// for DUET_TEST_BACKEND=none or nvrtc.
const std::vector<duet::Device>& test_devices();

// The seed of this run's random inputs (DUET_TEST_SEED repeats a run).
std::uint64_t test_seed();

// Two devices for the cross-device tests: the first two under test, else the first two of the
// backend under test (a run sharded by device, DUET_TEST_DEVICE_INDEX, tests one of them), else any
// two this process can open (another backend's included), else none. POCL_DEVICES="pthread pthread"
// gives PoCL two.
inline std::vector<duet::Device> two_devices() {
  const std::vector<duet::Device>& tested = test_devices();
  if (tested.size() >= 2) return {tested[0], tested[1]};
  const std::vector<duet::DeviceInfo> all = duet::devices();
  std::vector<duet::DeviceInfo> pick;
  for (const duet::DeviceInfo& info : all)
    if (!tested.empty() && info.backend == tested[0].info().backend) pick.push_back(info);
  if (pick.size() < 2) pick = all;
  if (pick.size() >= 2) return {duet::Device::open(pick[0].id()), duet::Device::open(pick[1].id())};
  return {};
}

inline std::string device_label(const duet::Device& device) {
  const duet::DeviceInfo& info = device.info();
  return info.id() + " " + info.name;
}

template <class Body>
void for_each_device(Body&& body) {
  const std::vector<duet::Device>& devices = test_devices();
  if (devices.empty()) {
    FAIL_CHECK("no device to test: run with DUET_TEST_BACKEND=cuda or DUET_TEST_BACKEND=opencl");
    return;
  }
  for (const duet::Device& device : devices) {
    const std::string label = device_label(device);
    SUBCASE(label.c_str()) {
      INFO("device ", label, ", seed ", test_seed());
      try {
        body(device);
      } catch (const duet::Error& e) {
        FAIL_CHECK("unexpected duet error (" << std::string(duet::to_string(e.kind()))
                                             << "): " << std::string(e.what()));
      } catch (const std::exception& e) {
        FAIL_CHECK("unexpected exception: " << std::string(e.what()));
      }
    }
  }
}
