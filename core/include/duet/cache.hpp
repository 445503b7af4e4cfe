// The compiled-program cache on disk. Programs (CUDA cubins, OpenCL program binaries) are stored
// under $DUET_CACHE_DIR, else $XDG_CACHE_HOME/duet, else ~/.cache/duet, keyed by a hash of the
// source, compiler options, device, driver and compiler versions and duet's version. DUET_CACHE=0
// turns it off. Entries are written to a temporary file and renamed, so concurrent processes never
// read a torn entry; a damaged or foreign entry is detected and rebuilt. A failing cache (read-only
// or full disk) turns itself off for the process and never fails a compile.
//
// duet runs the programs it loads from the cache, so the cache is private: duet makes its folders
// 0700 and its entries 0600, and when the cache is first used in a process it checks the folder
// (symbolic links followed) and its parents up to the user's home, else up to /: the folder must
// belong to the user, each parent to the user or root, and none may be writable by group or others
// (a sticky parent such as /tmp excepted). A folder that fails is not used for the whole process:
// one warning on stderr says which folder and what to do, and compiles go on without the cache.
// An entry that is not a regular file of the user's own, not writable by others, is never loaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "duet/export.hpp"

namespace duet {

struct CacheInfo {
  std::string directory;        // as configured (DUET_CACHE_DIR, XDG_CACHE_HOME or HOME)
  std::string resolved;         // the folder it names, symbolic links followed; empty if none
  std::string owner;            // the folder's owner: a user name, or "uid N"; empty if none
  unsigned mode = 0;            // the folder's permission bits (0700); 0 if none
  bool enabled = false;
  std::string disabled_reason;  // why not, when !enabled
  std::size_t entries = 0;      // entries that may be loaded, and their bytes
  std::uint64_t bytes = 0;
  std::vector<std::string> ignored;  // entries never loaded, each "<file name> <why>"
};

DUET_API CacheInfo cache_info();

// What this process's compiles did: loaded from disk, compiled (not on disk or rejected), entries
// the driver rejected or that were damaged or foreign, entries written, and entries not loaded
// because they could have been planted (a symbolic link, another owner, writable by others).
struct CacheStats {
  std::size_t hits = 0;
  std::size_t misses = 0;
  std::size_t rejected = 0;
  std::size_t stored = 0;
  std::size_t ignored = 0;
};
DUET_API CacheStats cache_stats();
// Removes every entry, and the temporary files of writers that died before renaming theirs into
// place; returns how many entries were removed. Nothing is removed from a folder the cache does not
// use (turned off, or refused by the check above): only the user should empty it.
DUET_API std::size_t clear_cache();

}  // namespace duet
