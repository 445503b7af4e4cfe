// The on-disk program cache behind duet/cache.hpp. A file holds a magic line, the full key text (so a
// hash collision is a miss, never a wrong program), the payload and a checksum of the payload.
#pragma once

#include <optional>
#include <string>

namespace duet::detail {

// The payload stored under `key`, or nothing (absent, damaged, another key, cache off). `again`: a
// second look after a miss counted already (see CacheEntryLock), so only a hit changes the stats.
// An entry that could have been planted (a symbolic link, another owner's file, writable by others)
// is never read: a miss, counted in CacheStats::ignored.
std::optional<std::string> cache_load(const std::string& key, bool again = false);
// Stores `payload` under `key`; failures turn the cache off for this process.
void cache_store(const std::string& key, const std::string& payload);

// Counts a program the driver refused to load from a cache entry; `again` as for cache_load: the
// entry a second look finds is, all but always, the one the first look counted already.
void cache_count_rejected(bool again = false);

// An exclusive lock, across processes, on the entry for one key (flock on "<entry>.lock" in the
// cache folder), so that processes sharing the cache compile a program once: MPI ranks of a node,
// or test runs side by side, all miss an empty cache at once. The first to hold the lock compiles
// and stores the program; the others wait for it and then load the entry. Not held (no waiting,
// each process compiles) when the cache is off or the lock file cannot be made. The kernel drops
// the lock with the process, so one that dies while compiling blocks nobody.
class CacheEntryLock {
 public:
  CacheEntryLock() = default;
  explicit CacheEntryLock(int fd) : fd_(fd) {}
  CacheEntryLock(CacheEntryLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  CacheEntryLock& operator=(CacheEntryLock&& o) noexcept;
  CacheEntryLock(const CacheEntryLock&) = delete;
  ~CacheEntryLock();
  bool held() const noexcept { return fd_ >= 0; }

 private:
  int fd_ = -1;
};
CacheEntryLock cache_lock(const std::string& key);

// The file format itself, without files (cache_store and cache_load use these; the fuzzer calls them
// directly). cache_encode: the bytes of an entry holding `payload` under `key`. cache_decode: the
// payload of the entry `data` when it is exactly what cache_encode writes for `key`; nothing when it
// is not, with what is wrong in `problem` ("is truncated").
std::string cache_encode(const std::string& key, const std::string& payload);
std::optional<std::string> cache_decode(const std::string& data, const std::string& key, std::string& problem);

}  // namespace duet::detail
