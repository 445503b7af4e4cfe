// One device per rank, chosen by the rank's place on its node, and ending the whole job when one
// rank fails.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "duet/error.hpp"
#include "grid_state.hpp"

namespace duet::mpi {
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

Device open_device(MPI_Comm comm, const DeviceOptions& options) {
  // The node's ranks first, before anything that can throw on one rank only.
  MPI_Comm node = MPI_COMM_NULL;
  check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  int local_rank = 0, local_size = 1;
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_size(node, &local_size);
  MPI_Comm_free(&node);

  const std::vector<Device> list = Device::open_all();
  const Device& picked = list.front();
  const std::size_t count = list.size();
  // A numeric DUET_DEVICE names one device for every rank: the sharing is asked for.
  const bool sharing = options.allow_sharing || Device::device_env_is_index() ||
                       env("DUET_MPI_SHARE_DEVICES") == "1" || picked.info().kind == DeviceKind::cpu;
  if (static_cast<std::size_t>(local_size) > count && !sharing)
    throw ConfigError(std::to_string(local_size) + " ranks run on this node but it has only " +
                      std::to_string(count) + " " + picked.info().backend + " " +
                      to_string(picked.info().kind) + " device(s) to give them; start at most " +
                      std::to_string(count) +
                      " ranks per node, or let ranks share devices (DeviceOptions::allow_sharing, "
                      "DUET_MPI_SHARE_DEVICES=1)");
  return list[static_cast<std::size_t>(local_rank) % count];
}

int run_or_abort(MPI_Comm comm, const std::function<int()>& body) {
  std::string message;
  try {
    return body();
  } catch (const std::exception& e) {  // a CompileError's message already ends with the log
    message = e.what();
  } catch (...) {
    message = "an exception that is not a std::exception";
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::fprintf(stderr, "duet: error on rank %d of %d: %s\n", rank, size, message.c_str());
  std::fflush(stderr);
  // The other ranks may be waiting for this one in a collective: only an abort ends them.
  MPI_Abort(comm, 1);
  return 1;
}

}  // namespace duet::mpi
