// LaunchLog: the kernels a queue may still be running, oldest first, the latest eight by name.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "launch_log.hpp"

using duet::detail::LaunchLog;

TEST_CASE("LaunchLog names the launches since the last completion, oldest first") {
  LaunchLog log;
  std::uint64_t older = 99;
  CHECK(log.in_flight(&older).empty());
  CHECK(older == 0);
  log.launched("a");
  CHECK(log.in_flight() == std::vector<std::string>{"a"});
  const std::uint64_t mark = log.mark();
  log.launched("b");
  log.launched("c");
  CHECK(log.in_flight() == std::vector<std::string>{"a", "b", "c"});
  log.completed(mark);
  CHECK(log.in_flight() == std::vector<std::string>{"b", "c"});
  // A completion reported late, for an older mark, takes nothing back.
  log.completed(log.mark());
  log.completed(mark);
  CHECK(log.in_flight().empty());
}

TEST_CASE("LaunchLog keeps the latest eight names and counts the older launches") {
  LaunchLog log;
  for (int i = 0; i < 11; ++i) log.launched("k" + std::to_string(i));
  std::uint64_t older = 0;
  const std::vector<std::string> names = log.in_flight(&older);
  CHECK(older == 3);
  REQUIRE(names.size() == 8);
  CHECK(names.front() == "k3");
  CHECK(names.back() == "k10");
}
