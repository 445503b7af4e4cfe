// Whether a folder is private enough to hold the program cache. duet runs the programs it loads
// from there on the user's device, and an entry's checksum finds damage, not intent: whoever can
// write to the folder, or replace it or one of its parents, can plant a program under the right
// name. So, as ssh and GnuPG do for their own files, the cache refuses a folder that others can
// write, and any entry that is not a regular file of the user's own.
#pragma once

#include <string>
#include <sys/stat.h>
#include <sys/types.h>

namespace duet::detail {

// Creates `path` and its missing parents, each with mode 0700: only the user can list, add or
// replace what is inside. Folders that exist already are left as they are (and checked later).
// false with errno set when a folder cannot be made.
bool make_private_directories(const std::string& path);

// What is wrong with a folder as a cache folder, and what to do about it; `problem` is empty
// when nothing is.
struct FolderProblem {
  std::string problem;  // "/tmp/x is writable by group and others (owner alice, mode 0777)"
  std::string advice;   // "chmod go-w /tmp/x, or point DUET_CACHE_DIR at a folder of your own"
};

// Checks the cache folder `real` (absolute, symbolic links resolved; `st` is its fstat) and its
// parents: the folder itself must belong to the effective user; each parent to that user or to
// root (system folders such as / and /home). None may be writable by group or others, except a
// parent with the sticky bit (/tmp), where nobody can rename or remove what is not theirs. The walk
// stops after the user's home (`home`, resolved; may be empty), whose own parents are the
// system's business, else at /.
FolderProblem check_cache_folder(const std::string& real, const struct stat& st, const std::string& home);

// Why an entry (lstat or fstat of what is under its name) must not be loaded: a symbolic link,
// not a regular file, another owner, or writable by group or others. Empty when it may be loaded.
std::string untrusted_entry(const struct stat& st);

// "alice", or "uid 1234" for a uid without a name.
std::string owner_name(uid_t uid);
// "0755": the permission bits (sticky, setuid and setgid included) in octal.
std::string octal_mode(mode_t mode);

}  // namespace duet::detail
