// A small program for the cases of the fault matrix that need a process of their own (see
// fault_matrix.sh): the environment is read when a process starts, and the program cache is shared
// between processes. It prints one line that the script reads, and says by its exit code how it
// ended:
//   open [SPEC]      opens Device::open() (DUET_BACKEND / DUET_DEVICE) or Device::open(SPEC):
//                    "ok <id>"
//   run [SALT]       compiles a kernel (SALT, default 1, makes it a program of its own), runs it
//                    and checks the result: "ok <id> exact cache=on|off (<why>) hits=H misses=M
//                    rejected=R stored=S"
//   matmul           a 33x17x9 duet::matmul against the CPU (the tuning file is read):
//                    "ok <id> matmul exact"
//   clear            duet::clear_cache(): "ok removed N"
//   forge ENTRY      rewrites a program cache entry's payload with bytes no driver loads, keeping
//                    its key and a valid checksum: "ok forged"
// Exit codes: 0 ok; 1 a duet::Error ("error <kind>: <message>"); 2 any other exception
// ("untyped <type>: <message>"), which the matrix counts as a failure; 3 a wrong result.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <duet/blas.hpp>
#include <duet/duet.hpp>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <typeinfo>
#include <vector>

namespace {

const char* const kSource = R"(
KERNEL void salted(GLOBAL const float* x, GLOBAL float* y, const uint n) {
  const size_t i = GLOBAL_ID(0);
  if (i < n) y[i] = x[i] * (float)SALT + (float)i;
}
)";

duet::Device open_device(int argc, char** argv) {
  return argc > 2 ? duet::Device::open(argv[2]) : duet::Device::open();
}

int run(const duet::Device& device, const std::string& salt) {
  const std::uint32_t n = 1000;
  const duet::Kernel k = device.compile(kSource, {{"SALT", salt}}, "salted.duet").kernel("salted");
  duet::Queue q = device.queue();
  std::vector<float> x(n);
  for (std::uint32_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 7);
  duet::Buffer<float> dx(device, n), dy(device, n);
  q.write(dx, x);
  q.launch(k, duet::Range(n), duet::Range(), dx, dy, n);
  const std::vector<float> y = q.to_vector(dy);
  const float s = std::stof(salt);
  for (std::uint32_t i = 0; i < n; ++i)
    if (y[i] != x[i] * s + static_cast<float>(i)) {
      std::cout << "wrong y[" << i << "] = " << y[i] << ", want " << x[i] * s + static_cast<float>(i) << "\n";
      return 3;
    }
  const duet::CacheInfo info = duet::cache_info();
  const duet::CacheStats stats = duet::cache_stats();
  std::cout << "ok " << device.info().id() << " exact cache="
            << (info.enabled ? std::string("on") : "off (" + info.disabled_reason + ")") << " hits=" << stats.hits
            << " misses=" << stats.misses << " rejected=" << stats.rejected << " stored=" << stats.stored << "\n";
  return 0;
}

int matmul(const duet::Device& device) {
  const std::size_t M = 33, N = 17, K = 9;
  std::vector<float> a(M * K), b(K * N);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 5) - 2.0f;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 3) - 1.0f;
  duet::Queue q = device.queue();
  duet::Buffer<float> da(device, a.size()), db(device, b.size()), dc(device, M * N);
  q.write(da, a);
  q.write(db, b);
  duet::matmul(q, da, db, dc, M, N, K);
  const std::vector<float> c = q.to_vector(dc);
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      float want = 0;  // small integers: exact in any order
      for (std::size_t k = 0; k < K; ++k) want += a[i * K + k] * b[k * N + j];
      if (c[i * N + j] != want) {
        std::cout << "wrong c[" << i << "][" << j << "] = " << c[i * N + j] << ", want " << want << "\n";
        return 3;
      }
    }
  std::cout << "ok " << device.info().id() << " matmul exact\n";
  return 0;
}

// The entry format of core/src/disk_cache.cpp: a magic line, the key's size and text, the payload's
// size and bytes, and the payload's FNV-1a checksum, sizes and checksum as little-endian u64.
std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

std::uint64_t get_u64(const std::string& in, std::size_t pos) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in.at(pos + i))) << (8 * i);
  return v;
}

int forge(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string magic = "duet-program-cache 1\n";
  if (data.compare(0, magic.size(), magic) != 0) {
    std::cout << "wrong: " << path << " is not a program cache entry\n";
    return 3;
  }
  const std::uint64_t key_size = get_u64(data, magic.size());
  const std::string key = data.substr(magic.size() + 8, key_size);
  // ELF's magic first, so that a CUDA cubin check lets it through to the driver, then junk.
  std::string payload = "\x7f" "ELF";
  for (int i = 0; i < 4096; ++i) payload += static_cast<char>((i * 131 + 17) & 0xff);
  std::string out = magic;
  put_u64(out, key.size());
  out += key;
  put_u64(out, payload.size());
  out += payload;
  put_u64(out, fnv1a(payload));
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(out.data(), static_cast<std::streamsize>(out.size()));
  std::cout << "ok forged\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  try {
    if (command == "open") {
      const duet::Device device = open_device(argc, argv);
      std::cout << "ok " << device.info().id() << "\n";
      return 0;
    }
    if (command == "run") return run(duet::Device::open(), argc > 2 ? argv[2] : "1");
    if (command == "matmul") return matmul(duet::Device::open());
    if (command == "clear") {
      std::cout << "ok removed " << duet::clear_cache() << "\n";
      return 0;
    }
    if (command == "forge" && argc > 2) return forge(argv[2]);
    std::cerr << "usage: duet_fault_driver open [SPEC] | run [SALT] | matmul | clear | forge ENTRY\n";
    return 64;
  } catch (const duet::Error& e) {
    std::cout << "error " << duet::to_string(e.kind()) << ": " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cout << "untyped " << typeid(e).name() << ": " << e.what() << "\n";
    return 2;
  }
}
