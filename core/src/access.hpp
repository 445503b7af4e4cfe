// How the core's own sources reach what the public handles keep private: the shared state behind a
// Device, the backend objects behind buffers, kernels, queues and events, and handles made from
// the core's states. Each handle names Access a friend; this header lives in core/src, so modules
// and users see only the public API (duet/extension.hpp is what libraries build on).
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "duet/buffer.hpp"
#include "duet/device.hpp"
#include "duet/program.hpp"
#include "duet/queue.hpp"

namespace duet::detail {

struct Access {
  // The shared device state; null for an empty handle.
  static const std::shared_ptr<DeviceCore>& core(const Device& device) noexcept { return device.core_; }
  static Device make_device(std::shared_ptr<DeviceCore> core) { return Device(std::move(core)); }

  // The backend objects; each throws ReleasedError for an empty or released handle (a buffer's
  // message names `what`).
  static backend::BufferImpl& buffer(const RawBuffer& b, const char* what = "buffer") { return b.impl(what); }
  static backend::KernelImpl& kernel(const Kernel& k) { return k.impl(); }
  static backend::QueueImpl& queue(const Queue& q) { return q.impl(); }
  static backend::EventImpl& event(const Event& e) { return e.impl(); }

  // The declared parameters of `kernel` that take a view's byte offset (view_offsets.hpp).
  static const std::vector<std::size_t>& view_offset_params(const Kernel& kernel);

  // A buffer of `device` over all of `impl` from its first byte (a fresh allocation or import).
  static RawBuffer make_buffer(const Device& device, std::shared_ptr<backend::BufferImpl> impl, std::size_t bytes) {
    RawBuffer out;
    out.impl_ = std::move(impl);
    out.device_ = device;
    out.bytes_ = bytes;
    return out;
  }
  static Kernel make_kernel(std::shared_ptr<const Kernel::State> s) { return Kernel(std::move(s)); }
  static Program make_program(std::shared_ptr<Program::State> s) { return Program(std::move(s)); }
  static Queue make_queue(std::shared_ptr<Queue::State> s) { return Queue(std::move(s)); }
  static Event make_event(std::shared_ptr<EventState> s) { return Event(std::move(s)); }
  static const std::shared_ptr<EventState>& event_state(const Event& e) noexcept { return e.state_; }
};

}  // namespace duet::detail
