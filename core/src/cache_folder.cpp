// The program cache's folder check (see cache_folder.hpp).
#include "cache_folder.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <pwd.h>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace duet::detail {
namespace {

constexpr mode_t kOthersWrite = S_IWGRP | S_IWOTH;

const char* who_can_write(mode_t mode) {
  const bool group = (mode & S_IWGRP) != 0, others = (mode & S_IWOTH) != 0;
  return group && others ? "its group and others" : group ? "its group" : "others";
}

std::string about(const struct stat& st) {
  return "(owner " + owner_name(st.st_uid) + ", mode " + octal_mode(st.st_mode) + ")";
}

// "/a/b" -> "/a", "/a" -> "/".
std::string parent_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

// One folder of the chain; `cache`: the cache folder itself, which must be the user's own and
// gets no sticky-bit exception (in a sticky folder others still add files under new names).
FolderProblem check_one(const std::string& path, const struct stat& st, bool cache) {
  const std::string elsewhere = "point DUET_CACHE_DIR at a folder of your own";
  const uid_t me = geteuid();
  if (!S_ISDIR(st.st_mode)) return {path + " is not a folder " + about(st), elsewhere};
  if (st.st_uid != me && (cache || st.st_uid != 0))
    return {path + " belongs to " + owner_name(st.st_uid) + " (mode " + octal_mode(st.st_mode) + "), not to you (" +
                owner_name(me) + ")",
            elsewhere};
  if ((st.st_mode & kOthersWrite) != 0 && (cache || (st.st_mode & S_ISVTX) == 0))
    return {path + " is writable by " + who_can_write(st.st_mode) + " " + about(st),
            std::string("chmod ") + (cache ? "700 " : "go-w ") + path + ", or " + elsewhere};
  return {};
}

}  // namespace

bool make_private_directories(const std::string& path) {
  std::string partial;
  std::stringstream parts(path);
  std::string part;
  if (!path.empty() && path[0] == '/') partial = "/";
  while (std::getline(parts, part, '/')) {
    if (part.empty()) continue;
    partial += part + "/";
    if (mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  return true;
}

FolderProblem check_cache_folder(const std::string& real, const struct stat& st, const std::string& home) {
  FolderProblem problem = check_one(real, st, true);
  // Whoever may write to a parent may rename the cache folder away and put a folder of their own
  // in its place, so the parents count as much as the folder.
  for (std::string path = real; problem.problem.empty() && path != "/" && path != home;) {
    path = parent_of(path);
    struct stat parent;
    if (lstat(path.c_str(), &parent) != 0)
      return {"cannot check " + path + ": " + std::strerror(errno), "point DUET_CACHE_DIR at a folder of your own"};
    problem = check_one(path, parent, false);
  }
  return problem;
}

std::string untrusted_entry(const struct stat& st) {
  if (S_ISLNK(st.st_mode)) return "is a symbolic link";
  if (!S_ISREG(st.st_mode)) return "is not a regular file";
  if (st.st_uid != geteuid()) return "belongs to " + owner_name(st.st_uid) + ", not to you";
  if ((st.st_mode & kOthersWrite) != 0)
    return std::string("is writable by ") + who_can_write(st.st_mode) + " (mode " + octal_mode(st.st_mode) + ")";
  return {};
}

std::string owner_name(uid_t uid) {
  long size = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(size > 0 ? static_cast<std::size_t>(size) : 16384);
  struct passwd entry;
  struct passwd* found = nullptr;
  if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) == 0 && found && found->pw_name)
    return found->pw_name;
  return "uid " + std::to_string(uid);
}

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

}  // namespace duet::detail
