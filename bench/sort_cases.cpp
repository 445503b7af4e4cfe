// The sorting and selection cases of the benchmark (see sort_cases.hpp). Each follows cases.cpp's
// steps: sets rotated past the cache, one warm-up run per set, the plan's runs timed with events,
// then every set's last result checked on the host.
//
// The checks are linear in n, so they stay quick at 2^28 elements: sort's output must be ascending
// and hold the same multiset as the input (a sum of a 64-bit mix of every element's bits, which a
// lost, duplicated or altered element changes); argsort's must be a permutation that orders the
// input with equal values in increasing index (the one stable order); unique_values' and nonzero's
// must equal the host's exactly. The error of a row counts the elements that break a rule.
//
// Rates are input keys per second (Gkey/s), as the sorting literature and CuPy's users quote them.
#include "sort_cases.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "builtins.hpp"
#include "duet/array.hpp"
#include "duet/array_select.hpp"
#include "duet/array_sort.hpp"
#include "inputs.hpp"

namespace duet::bench {
namespace {

// Integers of the unique case: drawn from [-kUniqueRange / 2, kUniqueRange / 2), so every value
// occurs about n / kUniqueRange times (1024 times at 2^26).
constexpr std::int64_t kUniqueRange = 1 << 16;

std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::uint64_t multiset_hash(const std::vector<float>& v) {
  std::uint64_t h = 0;
  for (const float f : v) {
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    h += mix(bits);
  }
  return h;
}

std::size_t size_of_case(const Plan& p, const std::string& kernel) {
  if (kernel == "sort") return p.sort_n;
  if (kernel == "argsort") return p.argsort_n;
  if (kernel == "unique_values") return p.unique_n;
  return p.nonzero_n;
}

// Keeps each run's result until the case ends, so no run frees memory (a wait on CUDA) that the
// next one then allocates again, while they fit in a quarter of the device's memory; past that,
// each set keeps only its latest.
class Kept {
 public:
  Kept(int sets, double result_bytes, double memory)
      : per_set_(static_cast<std::size_t>(sets)),
        keep_all_(memory <= 0 || result_bytes * 64.0 <= 0.25 * memory) {}
  void add(int set, std::vector<Array> result) {
    auto& list = per_set_[static_cast<std::size_t>(set)];
    if (!keep_all_) list.clear();
    list.push_back(std::move(result));
  }
  const std::vector<Array>& last(int set) const { return per_set_[static_cast<std::size_t>(set)].back(); }

 private:
  std::vector<std::vector<std::vector<Array>>> per_set_;
  bool keep_all_;
};

Array device_copy(Queue& q, const std::vector<float>& host) {
  return from_host(q, Span<const float>(host.data(), host.size()), {host.size()});
}

void sort_like_case(const CaseHooks& h, const std::string& kernel, std::size_t n) {
  Queue& q = *h.queue;
  const bool indices = kernel == "argsort";
  Measurement& m = h.start(kernel, builtins::count_label(n));
  const double in_bytes = double(n) * sizeof(float), out_bytes = double(n) * (indices ? 8 : 4);
  const int sets = h.sets_for(m, in_bytes + out_bytes, out_bytes);
  if (!sets) return;
  std::vector<std::vector<float>> x(static_cast<std::size_t>(sets));
  std::vector<Array> dx;
  for (int k = 0; k < sets; ++k) {
    x[k].resize(n);
    fill_random(x[k], -1.0f, 1.0f, h.seed(kernel, k));  // 24 random bits: many equal values at 2^26
    dx.push_back(device_copy(q, x[k]));
  }
  Kept kept(sets, out_bytes, double(q.device().info().memory_bytes));
  auto enqueue = [&](int k) { kept.add(k, {indices ? argsort(q, dx[k]) : sort(q, dx[k])}); };
  for (int k = 0; k < sets; ++k) enqueue(k);
  q.finish();
  h.time(m, sets, double(n), "Gkey/s", enqueue);
  if (indices) {
    h.finish_checked(m, sets, 0.0, "a permutation, ordered, equal values by index (stable)", [&](int k) {
      const std::vector<std::int64_t> got = kept.last(k)[0].to_vector<std::int64_t>(q);
      std::vector<char> seen(n, 0);
      double bad = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t j = got[i];
        if (j < 0 || std::size_t(j) >= n || seen[std::size_t(j)]) {
          ++bad;
          continue;
        }
        seen[std::size_t(j)] = 1;
        if (i == 0) continue;
        const std::int64_t p = got[i - 1];
        if (p < 0 || std::size_t(p) >= n) continue;
        const float a = x[k][std::size_t(p)], b = x[k][std::size_t(j)];
        if (a > b || (a == b && p > j)) ++bad;
      }
      return bad;
    });
  } else {
    h.finish_checked(m, sets, 0.0, "ascending, the input's multiset (hash of every element)", [&](int k) {
      const std::vector<float> got = kept.last(k)[0].to_vector<float>(q);
      double bad = multiset_hash(got) == multiset_hash(x[k]) ? 0 : 1;
      for (std::size_t i = 1; i < n; ++i) bad += !(got[i - 1] <= got[i]);
      return bad;
    });
  }
}

void unique_case(const CaseHooks& h, std::size_t n) {
  Queue& q = *h.queue;
  Measurement& m = h.start("unique_values", builtins::count_label(n) + " int32");
  const double in_bytes = double(n) * sizeof(std::int32_t);
  const int sets = h.sets_for(m, in_bytes, in_bytes);
  if (!sets) return;
  std::vector<std::vector<std::int32_t>> x(static_cast<std::size_t>(sets));
  std::vector<Array> dx;
  for (int k = 0; k < sets; ++k) {
    std::vector<float> u(n);
    fill_random(u, -0.5f * kUniqueRange, 0.5f * kUniqueRange, h.seed("unique_values", k));
    x[k].resize(n);
    for (std::size_t i = 0; i < n; ++i) x[k][i] = static_cast<std::int32_t>(std::floor(u[i]));
    dx.push_back(from_host(q, Span<const std::int32_t>(x[k].data(), n), {n}));
  }
  Kept kept(sets, double(kUniqueRange) * 4, double(q.device().info().memory_bytes));
  auto enqueue = [&](int k) { kept.add(k, {unique_values(q, dx[k])}); };
  for (int k = 0; k < sets; ++k) enqueue(k);
  q.finish();
  h.time(m, sets, double(n), "Gkey/s", enqueue);
  h.finish_checked(m, sets, 0.0, "the distinct values, ascending, exactly", [&](int k) {
    std::vector<char> present(kUniqueRange, 0);
    for (const std::int32_t v : x[k]) present[std::size_t(v + kUniqueRange / 2)] = 1;
    std::vector<std::int32_t> want;
    for (std::int64_t v = 0; v < kUniqueRange; ++v)
      if (present[std::size_t(v)]) want.push_back(std::int32_t(v - kUniqueRange / 2));
    const std::vector<std::int32_t> got = kept.last(k)[0].to_vector<std::int32_t>(q);
    double bad = std::fabs(double(got.size()) - double(want.size()));
    for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) bad += got[i] != want[i];
    return bad;
  });
}

void nonzero_case(const CaseHooks& h, std::size_t n) {
  Queue& q = *h.queue;
  Measurement& m = h.start("nonzero", builtins::count_label(n));
  const double in_bytes = double(n) * sizeof(float);
  const int sets = h.sets_for(m, in_bytes + 0.5 * n * 8, in_bytes);
  if (!sets) return;
  std::vector<std::vector<float>> x(static_cast<std::size_t>(sets));
  std::vector<Array> dx;
  for (int k = 0; k < sets; ++k) {
    x[k].resize(n);
    fill_random(x[k], -1.0f, 1.0f, h.seed("nonzero", k));
    for (float& v : x[k]) v = v < 0.0f ? 0.0f : v;  // about half zero
    dx.push_back(device_copy(q, x[k]));
  }
  Kept kept(sets, 0.5 * n * 8, double(q.device().info().memory_bytes));
  auto enqueue = [&](int k) { kept.add(k, nonzero(q, dx[k])); };
  for (int k = 0; k < sets; ++k) enqueue(k);
  q.finish();
  h.time(m, sets, double(n), "Gkey/s", enqueue);
  h.finish_checked(m, sets, 0.0, "the nonzero positions, exactly", [&](int k) {
    const std::vector<std::int64_t> got = kept.last(k)[0].to_vector<std::int64_t>(q);
    std::size_t at = 0;
    double bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (x[k][i] == 0.0f) continue;
      bad += at >= got.size() || got[at] != std::int64_t(i);
      ++at;
    }
    return bad + std::fabs(double(got.size()) - double(at));
  });
}

}  // namespace

const std::vector<std::string>& sort_case_names() {
  static const std::vector<std::string> names{"sort", "argsort", "unique_values", "nonzero"};
  return names;
}

void sort_case(const CaseHooks& hooks, const std::string& kernel) {
  const std::size_t n = size_of_case(*hooks.plan, kernel);
  if (kernel == "sort" || kernel == "argsort")
    sort_like_case(hooks, kernel, n);
  else if (kernel == "unique_values")
    unique_case(hooks, n);
  else
    nonzero_case(hooks, n);
}

}  // namespace duet::bench
