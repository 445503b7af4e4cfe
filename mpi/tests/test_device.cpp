// duet::mpi::open_device: each rank gets a device of the backend and kind Device::open() picks,
// ranks of one node get the node's devices in order while there are enough of them
// (duet.mpi.np2.two_devices gives PoCL two), DUET_DEVICE as a number gives every rank that one
// device, and a DUET_DEVICE that names nothing fails alike on every rank, so none is left waiting.
#include <doctest/doctest.h>

#include <cstdlib>
#include <duet/device.hpp>
#include <duet/error.hpp>
#include <duet/mpi.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mpi_support.hpp"

namespace {

struct Opened {
  std::optional<duet::DeviceInfo> picked;  // what Device::open() takes on this rank
  std::optional<duet::Device> device;      // what open_device gave this rank
  std::string error;                       // why open_device threw
  bool not_found = false;                  // it threw DeviceNotFoundError
};

// Device::open() and then open_device on every rank, with DUET_DEVICE set to `value` (nullptr:
// unset) and restored afterwards; both read it on every call. Nothing escapes, so every rank comes
// back to the test.
Opened open_with_duet_device(const char* value) {
  const char* before = std::getenv("DUET_DEVICE");
  const std::optional<std::string> saved = before ? std::optional<std::string>(before) : std::nullopt;
  if (value)
    setenv("DUET_DEVICE", value, 1);
  else
    unsetenv("DUET_DEVICE");
  Opened out;
  try {
    out.picked = duet::Device::open().info();
  } catch (const duet::Error&) {
    // open_device meets the same problem and reports it.
  }
  try {
    out.device = duet::mpi::open_device(MPI_COMM_WORLD);
  } catch (const duet::DeviceNotFoundError& e) {
    out.not_found = true;
    out.error = e.what();
  } catch (const duet::Error& e) {
    out.error = std::string(duet::to_string(e.kind())) + ": " + e.what();
  }
  if (saved)
    setenv("DUET_DEVICE", saved->c_str(), 1);
  else
    unsetenv("DUET_DEVICE");
  return out;
}

}  // namespace

TEST_CASE("open_device: the backend and kind Device::open() picks, the node's devices in rank order") {
  const Opened opened = open_with_duet_device(nullptr);
  CHECK_MESSAGE(opened.device.has_value(), opened.error);
  CHECK(opened.picked.has_value());
  // The node's ranks are counted below with a collective: go on only where every rank has a device.
  if (!mpitest::all_agree(MPI_COMM_WORLD, opened.device && opened.picked)) return;
  const duet::DeviceInfo& mine = opened.device->info();
  CHECK(mine.backend == opened.picked->backend);
  CHECK(mine.kind == opened.picked->kind);

  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_rank = 0, node_size = 1;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);
  std::vector<duet::DeviceInfo> candidates;
  for (const duet::DeviceInfo& d : duet::devices())
    if (d.backend == mine.backend && d.kind == mine.kind) candidates.push_back(d);
  INFO("node rank ", node_rank, " of ", node_size, ", ", candidates.size(), " candidate device(s), got ",
       mine.id());
  if (static_cast<std::size_t>(node_rank) < candidates.size())
    CHECK(mine.id() == candidates[static_cast<std::size_t>(node_rank)].id());
}

TEST_CASE("open_device: DUET_DEVICE as a number gives every rank that device") {
  const Opened opened = open_with_duet_device("0");
  CHECK_MESSAGE(opened.device.has_value(), opened.error);
  CHECK(opened.picked.has_value());
  if (opened.device && opened.picked) CHECK(opened.device->info().id() == opened.picked->id());
}

TEST_CASE("open_device: a DUET_DEVICE that names no device is DeviceNotFoundError on every rank") {
  const Opened opened = open_with_duet_device("no-such-device-duet-mpi-test");
  CHECK_FALSE(opened.device.has_value());
  CHECK_MESSAGE(opened.not_found, "expected DeviceNotFoundError, got: " << opened.error);
  CHECK(mpitest::count_ranks(MPI_COMM_WORLD, opened.not_found) == mpitest::world_size());
}
