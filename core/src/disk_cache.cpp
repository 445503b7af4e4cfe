// On-disk program cache (see disk_cache.hpp and duet/cache.hpp). Files are named by a 64-bit FNV-1a
// hash of the key; the key itself is inside, so equal hashes of different keys are only misses.
#include "disk_cache.hpp"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <signal.h>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>

#include "duet/cache.hpp"
#include "log.hpp"

namespace duet {
namespace detail {
namespace {

constexpr char kMagic[] = "duet-program-cache 1\n";
constexpr const char* kSuffix = ".duetbin";

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

struct State {
  std::mutex mutex;
  CacheStats stats;
  bool resolved = false;
  bool enabled = false;
  std::string directory;
  std::string disabled_reason;
};

State& state() {
  static State s;
  return s;
}

bool make_directories(const std::string& path) {
  std::string partial;
  std::stringstream parts(path);
  std::string part;
  if (!path.empty() && path[0] == '/') partial = "/";
  while (std::getline(parts, part, '/')) {
    if (part.empty()) continue;
    partial += part + "/";
    if (mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

// Reads the environment once: where the cache lives and whether it is on.
void resolve(State& s) {
  if (s.resolved) return;
  s.resolved = true;
  const char* off = std::getenv("DUET_CACHE");
  if (off && (std::strcmp(off, "0") == 0 || std::strcmp(off, "off") == 0)) {
    s.disabled_reason = "DUET_CACHE=" + std::string(off);
    return;
  }
  if (const char* dir = std::getenv("DUET_CACHE_DIR"); dir && *dir) {
    s.directory = dir;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    s.directory = std::string(xdg) + "/duet";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    s.directory = std::string(home) + "/.cache/duet";
  } else {
    s.disabled_reason = "no DUET_CACHE_DIR, XDG_CACHE_HOME or HOME to put it in";
    return;
  }
  s.enabled = true;
}

void disable(State& s, const std::string& why) {
  if (!s.enabled) return;
  s.enabled = false;
  s.disabled_reason = why;
  log_debug("program cache turned off: " + why);
}

std::string path_for(const State& s, const std::string& key) {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(fnv1a(key)));
  return s.directory + "/" + name + kSuffix;
}

void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

bool get_u64(const std::string& in, std::size_t& pos, std::uint64_t& v) {
  if (pos > in.size() || in.size() - pos < 8) return false;
  v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[pos + i])) << (8 * i);
  pos += 8;
  return true;
}

}  // namespace

std::string cache_encode(const std::string& key, const std::string& payload) {
  std::string data = kMagic;
  put_u64(data, key.size());
  data += key;
  put_u64(data, payload.size());
  data += payload;
  put_u64(data, fnv1a(payload));
  return data;
}

std::optional<std::string> cache_decode(const std::string& data, const std::string& key, std::string& problem) {
  const std::size_t magic = sizeof kMagic - 1;
  std::size_t pos = magic;
  std::uint64_t key_size = 0, payload_size = 0, checksum = 0;
  if (data.compare(0, magic, kMagic) != 0 || !get_u64(data, pos, key_size) || data.size() - pos < key_size ||
      data.compare(pos, key_size, key) != 0) {
    problem = "holds another key or is not a duet cache file";
    return std::nullopt;
  }
  pos += key_size;
  if (!get_u64(data, pos, payload_size) || payload_size > data.size() - pos ||
      data.size() - pos - payload_size < 8) {
    problem = "is truncated";
    return std::nullopt;
  }
  std::string payload = data.substr(pos, payload_size);
  pos += payload_size;
  if (!get_u64(data, pos, checksum) || checksum != fnv1a(payload)) {
    problem = "fails its checksum";
    return std::nullopt;
  }
  // An entry is written whole, so anything after the checksum means it is not what was written.
  if (pos != data.size()) {
    problem = "has bytes after its checksum";
    return std::nullopt;
  }
  return payload;
}

std::optional<std::string> cache_load(const std::string& key, bool again) {
  State& s = state();
  std::string path;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    resolve(s);
    if (!s.enabled) return std::nullopt;
    path = path_for(s, key);
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!again) ++s.stats.misses;
    return std::nullopt;
  }
  std::string data;
  // Only a regular file can be an entry: something else under the name (a directory, a FIFO) is
  // rebuilt like a damaged entry, and a read that fails (libstdc++ throws for a directory) too.
  if (S_ISREG(st.st_mode)) {
    try {
      std::ifstream in(path, std::ios::binary);
      if (in) data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } catch (const std::exception&) {
      data.clear();
    }
  }
  std::string problem;
  std::optional<std::string> payload = cache_decode(data, key, problem);
  if (!payload) log_debug("program cache: " + path + " " + problem + "; rebuilding");
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!payload) {
    // A second look counts nothing new: the first one counted this miss and this entry already.
    if (!again) {
      ++s.stats.misses;
      ++s.stats.rejected;
    }
    return std::nullopt;
  }
  ++s.stats.hits;
  if (again) --s.stats.misses;
  return payload;
}

void cache_store(const std::string& key, const std::string& payload) {
  if (payload.empty()) return;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  resolve(s);
  if (!s.enabled) return;
  if (!make_directories(s.directory)) {
    disable(s, "cannot create " + s.directory + ": " + std::strerror(errno));
    return;
  }
  const std::string data = cache_encode(key, payload);
  const std::string path = path_for(s, key);
  static std::atomic<unsigned> counter{0};
  const std::string temp = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.close();
    if (!out) {
      const std::string why = std::strerror(errno);  // from the call that failed: open or write
      std::remove(temp.c_str());
      disable(s, "cannot write " + temp + ": " + why);
      return;
    }
  }
  // rename() replaces atomically: a reader sees the old file or the new one, never half of one.
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    disable(s, "cannot rename into " + path + ": " + std::strerror(errno));
    return;
  }
  ++s.stats.stored;
  log_debug("program cache: stored " + path);
}

CacheEntryLock::~CacheEntryLock() {
  if (fd_ >= 0) close(fd_);  // closing the descriptor releases the flock
}

CacheEntryLock& CacheEntryLock::operator=(CacheEntryLock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

CacheEntryLock cache_lock(const std::string& key) {
  State& s = state();
  std::string path;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    resolve(s);
    if (!s.enabled || !make_directories(s.directory)) return CacheEntryLock();
    path = path_for(s, key) + ".lock";
  }
  // Never through a symbolic link someone put under the name; only the owner may open it.
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return CacheEntryLock();
  int locked;
  do {
    locked = flock(fd, LOCK_EX);
  } while (locked != 0 && errno == EINTR);
  if (locked != 0) {
    close(fd);
    return CacheEntryLock();
  }
  return CacheEntryLock(fd);
}

void cache_count_rejected(bool again) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  --s.stats.hits;
  ++s.stats.misses;
  if (!again) ++s.stats.rejected;
}

}  // namespace detail

namespace {

template <class F>
void for_each_entry(const std::string& dir, F&& f) {
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    const std::string suffix = detail::kSuffix;
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      f(dir + "/" + name);
  }
  closedir(d);
}

}  // namespace

CacheStats cache_stats() {
  auto& s = detail::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.stats;
}

CacheInfo cache_info() {
  auto& s = detail::state();
  CacheInfo info;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    detail::resolve(s);
    info.directory = s.directory;
    info.enabled = s.enabled;
    info.disabled_reason = s.disabled_reason;
  }
  for_each_entry(info.directory, [&](const std::string& path) {
    struct stat st;
    if (stat(path.c_str(), &st) == 0) {
      ++info.entries;
      info.bytes += static_cast<std::uint64_t>(st.st_size);
    }
  });
  return info;
}

std::size_t clear_cache() {
  auto& s = detail::state();
  std::string dir;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    detail::resolve(s);
    dir = s.directory;
  }
  std::size_t removed = 0;
  for_each_entry(dir, [&](const std::string& path) { removed += std::remove(path.c_str()) == 0; });
  // The temporary files of writers that died before their rename (<entry>.tmp.<pid>.<n>) are no
  // entries, but nothing else would ever remove them; those of live writers are theirs to rename.
  // The entries' lock files go too: one still held only lets a waiter compile again.
  if (DIR* d = opendir(dir.c_str())) {
    const std::string marker = std::string(detail::kSuffix) + ".tmp.";
    const std::string lock = std::string(detail::kSuffix) + ".lock";
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > lock.size() && name.compare(name.size() - lock.size(), lock.size(), lock) == 0) {
        std::remove((dir + "/" + name).c_str());
        continue;
      }
      const std::size_t at = name.find(marker);
      if (at == std::string::npos) continue;
      const long pid = std::strtol(name.c_str() + at + marker.size(), nullptr, 10);
      if (pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
        std::remove((dir + "/" + name).c_str());
    }
    closedir(d);
  }
  return removed;
}

}  // namespace duet
