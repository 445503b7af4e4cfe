// duet-exchange-bench: what one halo exchange costs, beside what its bytes cost on each link it
// uses, all measured in the same run. Two ranks (mpirun -np 2), one strip size after another:
//   exchange rows      Grid2D::exchange_halos on a 1 x 2 grid whose strips are `bytes` of one row
//                      (halo 1): pack, staging, MPI, unpack, and the host's wait for them;
//   exchange columns   the same on a 2 x 1 grid: strips of one cell per row;
//   ..., one of 20     kBackToBack exchanges in a row, then finish(), per exchange: what each of a
//                      solver's exchanges costs its host, without the ranks' barrier skew;
//   MPI one way        half an MPI ping-pong of `bytes` of pinned host memory;
//   MPI both ways      both ranks sending `bytes` of pinned host memory to each other at once
//                      (MPI_Irecv, MPI_Isend, MPI_Waitall): the MPI leg of a host-staged exchange;
//   ... on the device  the peer path's exchange timed by device events from a release both ranks
//                      share (device_exchange_us), without the host's enqueueing: one exchange,
//                      which includes how far apart the two ranks' releases fall, and one of
//                      kBackToBack in a row, which does not (what a solver's exchanges cost when
//                      its ranks keep pace);
//   peer copy          one copy of `bytes` from rank 0's device into rank 1's memory, mapped
//                      through CUDA IPC, timed with rank 0's events (where the devices share memory);
//   device to host, host to device, device to device
//                      one copy of `bytes` on this rank's device, timed with its events;
//   staged by hand     the host-staged exchange of `bytes` written out with duet's own calls and
//                      no grid (a copy to pinned memory, the host's wait for it, MPI both ways, a
//                      copy back, finish()), from a barrier, and its three legs: what the path
//                      costs without Grid2D, and where that time goes;
//   ..., armed         the same with the copy back enqueued before MPI's wait, held on the device
//                      by a signal word in pinned memory that the host stores once the strip has
//                      come (CUDA): its enqueueing leaves the critical path, but the device's wait
//                      for host memory joins it; kept beside the plain form as the reason Grid2D
//                      enqueues its copies after MPI's wait.
// Each figure is the median of --runs after warm-up, in microseconds; an exchange is timed on the
// host from a barrier to the end of finish(), which is what a solver's step waits for. Rank 0
// prints a table and, with --json, one line per size.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <duet/duet.hpp>
#include <duet/host_buffer.hpp>
#include <duet/interprocess.hpp>
#include <duet/mpi.hpp>
#include <fstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

double microseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

constexpr int kBackToBack = 20;

struct Exchange {
  double us = 0;
  double in_a_row_us = 0;  // host wall time of kBackToBack exchanges, then finish(), per exchange
  // Peer path only, on the device from a release both ranks share: one exchange, and one of
  // kBackToBack in a row.
  double device_us = -1, device_in_a_row_us = -1;
  duet::mpi::HaloPath path = duet::mpi::HaloPath::none;
};

// The peer path's exchange as the devices see it, without the host's enqueueing: each rank's queue
// waits behind a gate word, the exchange is enqueued behind it between two events, and after a
// barrier a second queue opens both ranks' gates at once. The time from the first event to the
// second, over the `in_a_row` exchanges between them, is pack, transfer, the neighbour's signal,
// unpack and our signal back.
double device_exchange_us(const duet::Device& device, duet::mpi::Grid2D& grid, duet::Queue& q,
                          duet::Buffer<float>& local, int runs, int in_a_row) {
  duet::RawBuffer gate(device, 4);
  duet::Queue opener = device.queue();
  const std::uint32_t zero = 0;
  opener.fill_bytes(gate, 0, 4, &zero, 4);
  opener.finish();
  std::vector<double> times;
  for (int r = 1; r <= runs; ++r) {
    q.wait_signal(gate, 0, static_cast<std::uint32_t>(r));
    const duet::Event start = q.record();
    for (int k = 0; k < in_a_row; ++k) grid.exchange_halos(q, local);
    const duet::Event end = q.record();
    MPI_Barrier(MPI_COMM_WORLD);
    opener.signal(gate, 0, static_cast<std::uint32_t>(r));
    q.finish();
    times.push_back(duet::elapsed_ms(start, end) * 1e3 / in_a_row);
  }
  opener.finish();
  return median(times);
}

// The exchange on a grid of two tiles whose strips hold `cells` cells: rows (1 x 2) or columns (2 x 1).
Exchange exchange_us(const duet::Device& device, std::size_t cells, bool rows, int runs) {
  const std::size_t across = 8;  // the other extent: enough for halo 1
  const std::size_t nx = rows ? cells : 2 * across, ny = rows ? 2 * across : cells;
  duet::mpi::GridOptions options;
  options.halo = 1;
  options.dims = rows ? std::array<int, 2>{1, 2} : std::array<int, 2>{2, 1};
  duet::mpi::Grid2D grid(MPI_COMM_WORLD, device, nx, ny, options);
  duet::Queue q = device.queue();
  duet::Buffer<float> local = grid.make_local();
  q.fill(local, 1.0f);
  for (int w = 0; w < 3; ++w) grid.exchange_halos(q, local);
  q.finish();
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = Clock::now();
    grid.exchange_halos(q, local);
    q.finish();
    times.push_back(microseconds_since(start));
  }
  std::vector<double> in_a_row;
  for (int r = 0; r < runs; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = Clock::now();
    for (int k = 0; k < kBackToBack; ++k) grid.exchange_halos(q, local);
    q.finish();
    in_a_row.push_back(microseconds_since(start) / kBackToBack);
  }
  const duet::mpi::Side edge = grid.rank() == 0 ? (rows ? duet::mpi::Side::north : duet::mpi::Side::east)
                                                : (rows ? duet::mpi::Side::south : duet::mpi::Side::west);
  Exchange out{median(times), median(in_a_row), -1, -1, grid.path(edge)};
  if (out.path == duet::mpi::HaloPath::peer) {
    out.device_us = device_exchange_us(device, grid, q, local, runs, 1);
    out.device_in_a_row_us = device_exchange_us(device, grid, q, local, runs, kBackToBack);
  }
  return out;
}

// One copy of `bytes` from rank 0's device straight into rank 1's memory, by rank 0's events; -1
// where the devices cannot share memory.
double peer_copy_us(const duet::Device& device, std::size_t bytes, int runs) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int able = duet::interprocess_unavailable(device).empty() ? 1 : 0;
  int both = 0;
  MPI_Allreduce(&able, &both, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!both) return -1;
  duet::RawBuffer mine(device, bytes);
  std::string handle = rank == 1 ? duet::export_to_process(mine) : std::string();
  int length = static_cast<int>(handle.size());
  MPI_Bcast(&length, 1, MPI_INT, 1, MPI_COMM_WORLD);
  handle.resize(static_cast<std::size_t>(length));
  MPI_Bcast(&handle[0], length, MPI_CHAR, 1, MPI_COMM_WORLD);
  std::vector<double> times;
  if (rank == 0) {
    duet::RawBuffer theirs = duet::import_from_process(device, handle, bytes);
    duet::Queue q = device.queue(duet::QueueOptions{true});
    for (int r = 0; r < runs + 3; ++r) {
      const double ms = q.copy_bytes(mine, 0, theirs, 0, bytes).duration_ms();
      if (r >= 3) times.push_back(ms * 1e3);
    }
    q.finish();
  }
  MPI_Barrier(MPI_COMM_WORLD);  // rank 1's memory outlives rank 0's mapping of it
  return median(times);
}

// Half of an MPI ping-pong of `bytes` of pinned host memory between ranks 0 and 1.
double mpi_one_way_us(const duet::Device& device, std::size_t bytes, int runs) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  duet::RawHostBuffer buffer(device, bytes);
  const int count = static_cast<int>(bytes);
  std::vector<double> times;
  for (int r = 0; r < runs + 3; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = Clock::now();
    if (rank == 0) {
      MPI_Send(buffer.data(), count, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buffer.data(), count, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buffer.data(), count, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer.data(), count, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
    if (r >= 3) times.push_back(microseconds_since(start) / 2.0);
  }
  return median(times);
}

// Both ranks sending `bytes` of pinned host memory to each other at once, from a barrier.
double mpi_both_ways_us(const duet::Device& device, std::size_t bytes, int runs) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  duet::RawHostBuffer out(device, bytes), in(device, bytes);
  const int count = static_cast<int>(bytes), other = 1 - rank;
  std::vector<double> times;
  for (int r = 0; r < runs + 3; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = Clock::now();
    MPI_Request requests[2];
    MPI_Irecv(in.data(), count, MPI_BYTE, other, 1, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(out.data(), count, MPI_BYTE, other, 1, MPI_COMM_WORLD, &requests[1]);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    if (r >= 3) times.push_back(microseconds_since(start));
  }
  return median(times);
}

struct ByHand {
  double us = -1, to_host = -1, mpi = -1, back = -1;  // the whole exchange and its three legs
};

// The host-staged exchange of `bytes` without a grid: device memory to pinned memory, the host's
// wait for that copy, MPI both ways, pinned memory to device memory, finish(). `armed`: the copy
// back is enqueued before MPI's wait behind a signal word in pinned memory, which the host stores
// once MPI is done; -1 where the device cannot wait for a word of pinned memory.
ByHand staged_by_hand_us(const duet::Device& device, std::size_t bytes, int runs, bool armed) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int able = !armed || (duet::interprocess_unavailable(device).empty() &&
                              duet::RawHostBuffer(device, 4).device_view_unavailable().empty());
  int both = 0;
  MPI_Allreduce(&able, &both, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!both) return {};
  duet::Queue q = device.queue();
  duet::RawBuffer strip(device, bytes), halo(device, bytes);
  duet::RawHostBuffer out(device, bytes), in(device, bytes), word(device, 4);
  auto* flag = static_cast<volatile std::uint32_t*>(word.data());
  *flag = 0;
  duet::RawBuffer flag_view = armed ? word.device_view() : duet::RawBuffer();
  const int count = static_cast<int>(bytes), other = 1 - rank;
  std::vector<double> total, to_host, mpi, back;
  for (int r = 0; r < runs + 3; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = Clock::now();
    MPI_Request requests[2];
    MPI_Irecv(in.data(), count, MPI_BYTE, other, 1, MPI_COMM_WORLD, &requests[0]);
    q.read_bytes(strip, 0, out.data(), bytes, "staged strip").wait();
    const auto copied = Clock::now();
    MPI_Isend(out.data(), count, MPI_BYTE, other, 1, MPI_COMM_WORLD, &requests[1]);
    const std::uint32_t value = static_cast<std::uint32_t>(r + 1);
    if (armed) {
      q.wait_signal(flag_view, 0, value);
      q.write_bytes(halo, 0, in.data(), bytes, "staged halo");
    }
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    const auto arrived = Clock::now();
    if (armed) {
      std::atomic_thread_fence(std::memory_order_release);  // the strip's bytes before the word
      *flag = value;
    } else {
      q.write_bytes(halo, 0, in.data(), bytes, "staged halo");
    }
    q.finish();
    if (r < 3) continue;
    const auto us = [](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration<double, std::micro>(b - a).count();
    };
    total.push_back(microseconds_since(start));
    to_host.push_back(us(start, copied));
    mpi.push_back(us(copied, arrived));
    back.push_back(microseconds_since(arrived));
  }
  return {median(total), median(to_host), median(mpi), median(back)};
}

struct Copies {
  double to_host = 0, to_device = 0, on_device = 0;
};

// One copy of `bytes` each way through pinned memory, and one within the device, by its events.
Copies copies_us(const duet::Device& device, std::size_t bytes, int runs) {
  duet::Queue q = device.queue(duet::QueueOptions{true});
  duet::RawBuffer a(device, bytes), b(device, bytes);
  duet::RawHostBuffer host(device, bytes);
  std::vector<double> to_host, to_device, on_device;
  for (int r = 0; r < runs + 3; ++r) {
    const double d2h = q.read_bytes(a, 0, host.data(), bytes, "read").duration_ms();
    const double h2d = q.write_bytes(b, 0, host.data(), bytes, "write").duration_ms();
    const double d2d = q.copy_bytes(a, 0, b, 0, bytes).duration_ms();
    if (r < 3) continue;
    to_host.push_back(d2h * 1e3);
    to_device.push_back(h2d * 1e3);
    on_device.push_back(d2d * 1e3);
  }
  return {median(to_host), median(to_device), median(on_device)};
}

std::vector<std::size_t> default_sizes(bool smoke) {
  if (smoke) return {1024, 65536};
  std::vector<std::size_t> sizes;
  for (std::size_t b = 1024; b <= (std::size_t(4) << 20); b *= 4) sizes.push_back(b);
  return sizes;
}

int run(int argc, char** argv) {
  CLI::App app{"duet-exchange-bench: one halo exchange against the links it uses (mpirun -np 2)"};
  std::vector<std::size_t> sizes;
  int runs = 50;
  bool smoke = false;
  std::string json;
  app.add_option("--sizes", sizes,
                 "strip sizes in bytes, comma- or space-separated (default 1 KiB, 4 KiB, ... 4 MiB)")
      ->delimiter(',');
  app.add_option("--runs", runs, "timed runs per figure")->check(CLI::Range(1, 100000));
  app.add_flag("--smoke", smoke, "two small sizes and 3 runs: checks the program, measures nothing");
  app.add_option("--json", json, "write one JSON line per size here (rank 0)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  int ranks = 1, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (ranks != 2) {
    if (rank == 0)
      std::fprintf(stderr, "duet-exchange-bench needs exactly 2 ranks (mpirun -np 2), not %d\n", ranks);
    return 2;
  }
  if (smoke) runs = 3;
  if (sizes.empty()) sizes = default_sizes(smoke);
  const duet::Device device = duet::mpi::open_device(MPI_COMM_WORLD);
  std::ofstream out;
  if (rank == 0 && !json.empty()) out.open(json);
  if (rank == 0)
    std::printf(
        "%s: %s, 2 ranks, median of %d runs, microseconds\n\n| strip bytes | path | exchange rows | exchange "
        "columns | rows, one of %d | columns, one of %d | rows on the device | columns on the device | rows "
        "on "
        "the device, one of %d | columns on the device, one of %d | peer copy | MPI one way | MPI both ways "
        "| "
        "device to host | host to device | device to device | staged by hand (to host / MPI / back) | "
        "staged by hand, armed (to host / MPI / back) "
        "|\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        device.info().id().c_str(), device.info().name.c_str(), runs, kBackToBack, kBackToBack, kBackToBack,
        kBackToBack);
  for (const std::size_t bytes : sizes) {
    const std::size_t cells = std::max<std::size_t>(bytes / sizeof(float), 2);
    const Exchange rows = exchange_us(device, cells, true, runs);
    const Exchange columns = exchange_us(device, cells, false, runs);
    const double peer = peer_copy_us(device, cells * sizeof(float), runs);
    const double mpi = mpi_one_way_us(device, cells * sizeof(float), runs);
    const double mpi_both = mpi_both_ways_us(device, cells * sizeof(float), runs);
    const Copies c = copies_us(device, cells * sizeof(float), runs);
    const ByHand plain = staged_by_hand_us(device, cells * sizeof(float), runs, false);
    const ByHand armed = staged_by_hand_us(device, cells * sizeof(float), runs, true);
    if (rank != 0) continue;
    const auto text = [](double us) {
      char t[32] = "-";
      if (us >= 0) std::snprintf(t, sizeof t, "%.1f", us);
      return std::string(t);
    };
    const auto legs = [&](const ByHand& h) {
      if (h.us < 0) return std::string("-");
      return text(h.us) + " (" + text(h.to_host) + " / " + text(h.mpi) + " / " + text(h.back) + ")";
    };
    std::printf(
        "| %zu | %s | %.1f | %.1f | %.1f | %.1f | %s | %s | %s | %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f "
        "| %s | %s |\n",
        cells * sizeof(float), duet::mpi::to_string(rows.path), rows.us, columns.us, rows.in_a_row_us,
        columns.in_a_row_us, text(rows.device_us).c_str(), text(columns.device_us).c_str(),
        text(rows.device_in_a_row_us).c_str(), text(columns.device_in_a_row_us).c_str(), text(peer).c_str(),
        mpi, mpi_both, c.to_host, c.to_device, c.on_device, legs(plain).c_str(), legs(armed).c_str());
    if (out)
      out << "{\"device\": \"" << device.info().id() << "\", \"bytes\": " << cells * sizeof(float)
          << ", \"path\": \"" << duet::mpi::to_string(rows.path) << "\", \"exchange_rows_us\": " << rows.us
          << ", \"exchange_columns_us\": " << columns.us
          << ", \"exchange_rows_in_a_row_us\": " << rows.in_a_row_us
          << ", \"exchange_columns_in_a_row_us\": " << columns.in_a_row_us
          << ", \"exchange_rows_device_us\": " << rows.device_us
          << ", \"exchange_columns_device_us\": " << columns.device_us
          << ", \"exchange_rows_device_in_a_row_us\": " << rows.device_in_a_row_us
          << ", \"exchange_columns_device_in_a_row_us\": " << columns.device_in_a_row_us
          << ", \"peer_copy_us\": " << peer << ", \"mpi_one_way_us\": " << mpi
          << ", \"mpi_both_ways_us\": " << mpi_both << ", \"device_to_host_us\": " << c.to_host
          << ", \"host_to_device_us\": " << c.to_device << ", \"device_to_device_us\": " << c.on_device
          << ", \"staged_by_hand_us\": " << plain.us << ", \"staged_by_hand_legs_us\": [" << plain.to_host
          << ", " << plain.mpi << ", " << plain.back << "], \"staged_armed_us\": " << armed.us
          << ", \"staged_armed_legs_us\": [" << armed.to_host << ", " << armed.mpi << ", " << armed.back
          << "]}\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int code = duet::mpi::run_or_abort(MPI_COMM_WORLD, [&] { return run(argc, argv); });
  MPI_Finalize();
  return code;
}
