// LD_PRELOAD'ed into a fault_driver process by fault_matrix.sh to catch it in the middle of writing
// a program cache entry, so that the script can kill -9 it right there. With
// DUET_FAULT_STALL_WRITE=<marker> set, the first write(2) or writev(2) to a cache entry's temporary
// file (a name holding ".duetbin.tmp.") writes half of its bytes, creates <marker>, and then waits
// forever for the signal. Every other write passes straight through.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

using WriteFn = ssize_t (*)(int, const void*, size_t);

WriteFn real_write() {
  static const auto fn = reinterpret_cast<WriteFn>(dlsym(RTLD_NEXT, "write"));
  return fn;
}

std::atomic<bool> stalled{false};

// Whether fd is a cache entry's temporary file, and this process should stall in it.
bool stall_here(int fd) {
  if (stalled.load() || std::getenv("DUET_FAULT_STALL_WRITE") == nullptr) return false;
  char link[64], path[4096];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return false;
  path[n] = '\0';
  return std::strstr(path, ".duetbin.tmp.") != nullptr && !stalled.exchange(true);
}

[[noreturn]] void stall() {
  const int marker = open(std::getenv("DUET_FAULT_STALL_WRITE"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (marker >= 0) close(marker);
  for (;;) pause();
}

}  // namespace

extern "C" ssize_t write(int fd, const void* data, size_t count) {
  if (count > 1 && stall_here(fd)) {
    real_write()(fd, data, count / 2);
    stall();
  }
  return real_write()(fd, data, count);
}

extern "C" ssize_t writev(int fd, const struct iovec* iov, int iovcnt) {
  static const auto real_writev =
      reinterpret_cast<ssize_t (*)(int, const struct iovec*, int)>(dlsym(RTLD_NEXT, "writev"));
  if (stall_here(fd)) {
    std::size_t total = 0;
    for (int i = 0; i < iovcnt; ++i) total += iov[i].iov_len;
    std::size_t left = total / 2;
    for (int i = 0; i < iovcnt && left > 0; ++i) {
      const std::size_t part = iov[i].iov_len < left ? iov[i].iov_len : left;
      real_write()(fd, iov[i].iov_base, part);
      left -= part;
    }
    stall();
  }
  return real_writev(fd, iov, iovcnt);
}
