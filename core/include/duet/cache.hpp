// The compiled-program cache on disk. Programs (CUDA cubins, OpenCL program binaries) are stored
// under $DUET_CACHE_DIR, else $XDG_CACHE_HOME/duet, else ~/.cache/duet, keyed by a hash of the
// source, compiler options, device, driver and compiler versions and duet's version. DUET_CACHE=0
// turns it off. Entries are written to a temporary file and renamed, so concurrent processes never
// read a torn entry; a damaged or foreign entry is detected and rebuilt. A failing cache (read-only
// or full disk) turns itself off for the process and never fails a compile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "duet/export.hpp"

namespace duet {

struct CacheInfo {
  std::string directory;
  bool enabled = false;
  std::string disabled_reason;  // why not, when !enabled
  std::size_t entries = 0;
  std::uint64_t bytes = 0;
};

DUET_API CacheInfo cache_info();

// What this process's compiles did: loaded from disk, compiled (not on disk or rejected), entries
// the driver rejected or that were damaged or foreign, entries written.
struct CacheStats {
  std::size_t hits = 0;
  std::size_t misses = 0;
  std::size_t rejected = 0;
  std::size_t stored = 0;
};
DUET_API CacheStats cache_stats();
// Removes every entry, and the temporary files of writers that died before renaming theirs into
// place; returns how many entries were removed.
DUET_API std::size_t clear_cache();

}  // namespace duet
