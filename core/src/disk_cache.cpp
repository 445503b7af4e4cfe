// On-disk program cache (see disk_cache.hpp and duet/cache.hpp). Files are named by a 64-bit FNV-1a
// hash of the key; the key itself is inside, so equal hashes of different keys are only misses.
// The folder is checked once per process (cache_folder.hpp) and then held open: every entry is
// reached through that descriptor (openat, renameat), so a folder or parent replaced later changes
// nothing for this process.
#include "disk_cache.hpp"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>

#include "cache_folder.hpp"
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
  std::string real;  // the folder, symbolic links followed
  struct stat folder {};  // its lstat, when there was something to look at
  bool have_folder = false;
  int dir_fd = -1;  // the folder, open once it passed the check; never closed after that
};

State& state() {
  static State s;
  return s;
}

// The user's home, symbolic links followed: the check of the cache folder's parents stops there.
std::string home_folder() {
  const char* home = std::getenv("HOME");
  if (!home || !*home) return {};
  char* real = realpath(home, nullptr);
  if (!real) return {};
  std::string path = real;
  std::free(real);
  return path;
}

void refuse(State& s, const std::string& why) {
  s.disabled_reason = why;
  log_debug("program cache off: " + why);
}

// Whether `a` and `b` describe the same folder, with the same owner and mode.
bool same_folder(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino && a.st_uid == b.st_uid && a.st_mode == b.st_mode;
}

// Creates the folder if it is missing, checks it and opens it (see cache_folder.hpp); the cache is
// on only when all of that works. A folder others could write is worth a warning that is always
// printed: the user meant to have a cache and must act to get it back.
void open_folder(State& s) {
  if (!make_private_directories(s.directory)) return refuse(s, "cannot create " + s.directory + ": " + std::strerror(errno));
  // Checked where a symbolic link points: the link's target is the folder that will be read.
  char* real = realpath(s.directory.c_str(), nullptr);
  if (!real) return refuse(s, "cannot open " + s.directory + ": " + std::strerror(errno));
  s.real = real;
  std::free(real);
  // Checked before it is opened, so that a folder of another user that we may not even read is
  // reported as such.
  if (lstat(s.real.c_str(), &s.folder) != 0) return refuse(s, "cannot open " + s.directory + ": " + std::strerror(errno));
  s.have_folder = true;
  if (!S_ISDIR(s.folder.st_mode)) return refuse(s, "cannot open " + s.directory + ": " + std::strerror(ENOTDIR));
  const FolderProblem problem = check_cache_folder(s.real, s.folder, home_folder());
  if (!problem.problem.empty()) {
    refuse(s, "not private: " + problem.problem);
    log_warning("not using the program cache in " + s.directory + ": " + problem.problem +
                "; whoever can write there could plant a program that duet would run. To use it, " +
                problem.advice + ". Compiles go on without the cache.");
    return;
  }
  // O_NOFOLLOW: the resolved path holds no symbolic link, unless one was planted since; and what
  // was opened must be what was checked.
  const int fd = open(s.real.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return refuse(s, "cannot open " + s.directory + ": " + std::strerror(errno));
  struct stat opened;
  if (fstat(fd, &opened) != 0 || !same_folder(opened, s.folder)) {
    close(fd);
    return refuse(s, "cannot open " + s.directory + ": it changed while it was checked");
  }
  s.dir_fd = fd;
  s.enabled = true;
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
  open_folder(s);
}

void disable(State& s, const std::string& why) {
  if (!s.enabled) return;
  s.enabled = false;
  s.disabled_reason = why;
  log_debug("program cache turned off: " + why);
}

// The entry's file name in the cache folder.
std::string entry_name(const std::string& key) {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(fnv1a(key)));
  return name + std::string(kSuffix);
}

// Why the entry `name` must not be loaded, from what is under the name itself (never through a
// symbolic link); empty when it may be, or when there is nothing.
std::string untrusted_name(int dir, const std::string& name) {
  struct stat st;
  if (fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return {};
  return untrusted_entry(st);
}

// The whole file; empty when a read fails (then it is rebuilt like a damaged entry).
std::string read_all(int fd) {
  std::string data;
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n == 0) return data;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return {};
    data.append(buffer, static_cast<std::size_t>(n));
  }
}

bool write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Creates the temporary file "<entry>.tmp.<pid>.<n>" for an entry. O_EXCL never opens what is
// there already, a planted symbolic link included; on a name that a dead writer left behind (pids
// come round again, in containers soon) the next n is tried.
int create_temp(int dir, const std::string& name, std::string& temp) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    temp = name + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
    const int fd = openat(dir, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
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

namespace {

// What is under the entry's name: its bytes, or why it must not be loaded, or nothing at all.
struct Found {
  bool exists = false;
  std::string data;
  std::string untrusted;
};

Found open_entry(int dir, const std::string& name) {
  Found found;
  // O_NOFOLLOW: never through a planted symbolic link; O_NONBLOCK: a FIFO under the name must not
  // hang the open. The opened file's own fstat decides, so what is checked is what is read.
  const int fd = openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    // Absent, or unreadable: a link or a file of another owner is reported as such, else a miss.
    found.untrusted = errno == ENOENT ? std::string() : untrusted_name(dir, name);
    found.exists = !found.untrusted.empty();
    return found;
  }
  found.exists = true;
  struct stat st;
  // Only a regular file can be an entry: something else under the name (a directory, a FIFO) is
  // rebuilt like a damaged entry.
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    found.untrusted = untrusted_entry(st);
    if (found.untrusted.empty()) found.data = read_all(fd);
  }
  close(fd);
  return found;
}

}  // namespace

std::optional<std::string> cache_load(const std::string& key, bool again) {
  State& s = state();
  int dir;
  std::string name, path;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    resolve(s);
    if (!s.enabled) return std::nullopt;
    dir = s.dir_fd;
    name = entry_name(key);
    path = s.directory + "/" + name;
  }
  const Found found = open_entry(dir, name);
  std::string problem;
  std::optional<std::string> payload;
  if (found.exists && found.untrusted.empty()) {
    payload = cache_decode(found.data, key, problem);
    if (!payload) log_debug("program cache: " + path + " " + problem + "; rebuilding");
  } else if (!found.untrusted.empty() && !again) {
    log_debug("program cache: ignoring " + path + ", which " + found.untrusted + "; compiling");
  }
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!payload) {
    // A second look counts nothing new: the first one counted this miss and this entry already.
    if (!again) {
      ++s.stats.misses;
      s.stats.ignored += !found.untrusted.empty();
      s.stats.rejected += found.exists && found.untrusted.empty();
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
  const std::string data = cache_encode(key, payload);
  const std::string name = entry_name(key);
  const std::string path = s.directory + "/" + name;
  std::string temp;
  const int fd = create_temp(s.dir_fd, name, temp);
  if (fd < 0) {
    disable(s, "cannot write " + s.directory + "/" + temp + ": " + std::strerror(errno));
    return;
  }
  bool written = write_all(fd, data);
  int error = errno;  // from the call that failed: write, or else close
  if (close(fd) != 0 && written) {
    written = false;
    error = errno;
  }
  if (!written) {
    unlinkat(s.dir_fd, temp.c_str(), 0);
    disable(s, "cannot write " + s.directory + "/" + temp + ": " + std::strerror(error));
    return;
  }
  // rename() replaces atomically: a reader sees the old file or the new one, never half of one. It
  // replaces a symbolic link or another's file under the name too, and never writes through it.
  if (renameat(s.dir_fd, temp.c_str(), s.dir_fd, name.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    unlinkat(s.dir_fd, temp.c_str(), 0);
    disable(s, "cannot rename into " + path + ": " + why);
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
  int dir;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    resolve(s);
    if (!s.enabled) return CacheEntryLock();
    dir = s.dir_fd;
  }
  // Never through a symbolic link someone put under the name; only the owner may open it.
  const std::string name = entry_name(key) + ".lock";
  const int fd = openat(dir, name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
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

bool ends_with(const std::string& name, const std::string& suffix) {
  return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Calls f(name) for each file name in the folder `dir`, read through a descriptor of its own.
template <class F>
void for_each_name(int dir, F&& f) {
  if (dir < 0) return;
  const int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* d = fd >= 0 ? fdopendir(fd) : nullptr;
  if (!d) {
    if (fd >= 0) close(fd);
    return;
  }
  while (dirent* e = readdir(d)) f(std::string(e->d_name));
  closedir(d);
}

// Entries that may be loaded, their bytes, and those that may not be (each "<name> <why>").
void count_entries(int dir, CacheInfo& info) {
  for_each_name(dir, [&](const std::string& name) {
    struct stat st;
    if (!ends_with(name, detail::kSuffix) || fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;
    const std::string why = detail::untrusted_entry(st);
    if (!why.empty()) {
      info.ignored.push_back(name + " " + why);
      return;
    }
    ++info.entries;
    info.bytes += static_cast<std::uint64_t>(st.st_size);
  });
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
  int dir = -1;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    detail::resolve(s);
    info.directory = s.directory;
    info.resolved = s.real;
    info.enabled = s.enabled;
    info.disabled_reason = s.disabled_reason;
    if (s.have_folder) {
      info.owner = detail::owner_name(s.folder.st_uid);
      info.mode = static_cast<unsigned>(s.folder.st_mode & 07777);
    }
    // A folder that failed the check is only read here, to say what is in it.
    dir = s.dir_fd >= 0 ? dup(s.dir_fd)
          : s.have_folder ? open(s.real.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                          : -1;
  }
  count_entries(dir, info);
  if (dir >= 0) close(dir);
  return info;
}

std::size_t clear_cache() {
  auto& s = detail::state();
  int dir;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    detail::resolve(s);
    dir = s.dir_fd;
  }
  std::size_t removed = 0;
  const std::string marker = std::string(detail::kSuffix) + ".tmp.";
  const std::string lock = std::string(detail::kSuffix) + ".lock";
  for_each_name(dir, [&](const std::string& name) {
    if (ends_with(name, detail::kSuffix)) {
      removed += unlinkat(dir, name.c_str(), 0) == 0;
      return;
    }
    // The entries' lock files go too: one still held only lets a waiter compile again.
    if (ends_with(name, lock)) {
      unlinkat(dir, name.c_str(), 0);
      return;
    }
    // The temporary files of writers that died before their rename (<entry>.tmp.<pid>.<n>) are no
    // entries, but nothing else would ever remove them; those of live writers are theirs to rename.
    const std::size_t at = name.find(marker);
    if (at == std::string::npos) return;
    const long pid = std::strtol(name.c_str() + at + marker.size(), nullptr, 10);
    if (pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) unlinkat(dir, name.c_str(), 0);
  });
  return removed;
}

}  // namespace duet
