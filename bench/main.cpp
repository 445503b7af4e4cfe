// duet-bench: the benchmark as its own executable; `duet bench` runs the same thing.
#include <string>
#include <vector>

#include "bench_main.hpp"

int main(int argc, char** argv) {
  return duet::bench::bench_main(std::vector<std::string>(argv + 1, argv + argc), "duet-bench");
}
