// Device memory shared between processes of one machine, and signals between them: what lets
// processes (MPI ranks of a node, say) move data device to device, over NVLink or PCIe peer paths,
// without the host. CUDA only (CUDA IPC and stream memory operations); on other devices
// interprocess_unavailable() says why not and the calls throw ArgumentError.
//
// A process exports a buffer (export_to_process), hands the bytes to another process by any means
// (MPI, a pipe), which imports them (import_from_process) as a buffer of its own device: kernels and
// copies of that device then read and write the exporter's memory directly. Queue::signal and
// Queue::wait_signal order the two processes' work on the devices: one stores a 32-bit value once
// its earlier work is visible, the other's queue waits until the word holds it.
#pragma once

#include <cstddef>
#include <string>

#include "duet/buffer.hpp"
#include "duet/device.hpp"
#include "duet/export.hpp"

namespace duet {

// Empty where `device` can share memory and signal between processes; otherwise why it cannot.
DUET_API std::string interprocess_unavailable(const Device& device);

// The range of `buffer` as bytes another process of this machine passes to import_from_process.
// The memory stays this process's: keep `buffer` alive until every importer has let go of it.
// ArgumentError where the device cannot share memory, or for wrapped memory (which duet did not
// allocate, so it cannot vouch that the driver can share it).
DUET_API std::string export_to_process(const RawBuffer& buffer);

// Memory another process exported, as a buffer of `device` of `bytes` bytes (no more than the
// exported range), which unmaps it when its last handle goes and never frees it. DriverError where
// the driver refuses: no peer path between the exporter's device and `device`, or a handle of
// this same process.
DUET_API RawBuffer import_from_process(const Device& device, const std::string& handle, std::size_t bytes);

}  // namespace duet
