// User kernels written in the duet dialect (core/kernels/prelude.h) on every device: defines, the parsed
// signature, 1D/2D/3D launches and the index macros, an automatic local size over a global size
// that no group size divides, SHARED memory with BARRIER, ATOMIC_ADD_INT, and REQD_GROUP_SIZE.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <duet/duet.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

// T and UNROLL come from the defines; each work-item handles UNROLL consecutive elements.
const char* const kSaxpy = R"(
KERNEL void saxpy(const int n, const T alpha, GLOBAL const T* RESTRICT x, GLOBAL T* RESTRICT y) {
  const int base = (int)GLOBAL_ID(0) * UNROLL;
  for (int u = 0; u < UNROLL; ++u) {
    const int i = base + u;
    if (i < n) y[i] = alpha * x[i] + y[i];
  }
}
)";

const char* const kIds = R"(
DEVICE int consistent(int d, size_t n) {
  // GLOBAL_ID = GROUP_ID * LOCAL_SIZE + LOCAL_ID, the launch covers n, and groups tile it exactly.
  return GLOBAL_ID(d) == (size_t)GROUP_ID(d) * LOCAL_SIZE(d) + LOCAL_ID(d) &&
         GLOBAL_SIZE(d) >= n && GLOBAL_SIZE(d) == (size_t)NUM_GROUPS(d) * LOCAL_SIZE(d) &&
         LOCAL_ID(d) < LOCAL_SIZE(d);
}

KERNEL void ids2d(GLOBAL int* gx, GLOBAL int* gy, GLOBAL int* ok, const int nx, const int ny) {
  const int x = (int)GLOBAL_ID(0);
  const int y = (int)GLOBAL_ID(1);
  if (x < nx && y < ny) {
    const int i = y * nx + x;
    gx[i] = x;
    gy[i] = y;
    ok[i] = consistent(0, (size_t)nx) && consistent(1, (size_t)ny) && GLOBAL_ID(2) == 0;
  }
}

KERNEL void ids3d(GLOBAL int* gx, GLOBAL int* gy, GLOBAL int* gz, GLOBAL int* ok, const int nx,
                  const int ny, const int nz) {
  const int x = (int)GLOBAL_ID(0);
  const int y = (int)GLOBAL_ID(1);
  const int z = (int)GLOBAL_ID(2);
  if (x < nx && y < ny && z < nz) {
    const int i = (z * ny + y) * nx + x;
    gx[i] = x;
    gy[i] = y;
    gz[i] = z;
    ok[i] = consistent(0, (size_t)nx) && consistent(1, (size_t)ny) && consistent(2, (size_t)nz);
  }
}

KERNEL void mark(GLOBAL int* out, GLOBAL int* count, const int n) {
  const size_t i = GLOBAL_ID(0);
  if (i < (size_t)n) {
    out[i] = (int)i;
    ATOMIC_ADD_INT(count, 1);
  }
}
)";

// GROUP (a power of two) comes from the defines and must equal the launch's local size.
const char* const kReduce = R"(
KERNEL void block_sum(GLOBAL const int* RESTRICT in, GLOBAL int* RESTRICT partial, GLOBAL int* total,
                      const int n) {
  SHARED int tile[GROUP];
  const int lid = (int)LOCAL_ID(0);
  const int gid = (int)GLOBAL_ID(0);
  tile[lid] = gid < n ? in[gid] : 0;
  BARRIER();
  for (int s = GROUP / 2; s > 0; s >>= 1) {
    if (lid < s) tile[lid] += tile[lid + s];
    BARRIER();
  }
  if (lid == 0) {
    partial[GROUP_ID(0)] = tile[0];
    ATOMIC_ADD_INT(total, tile[0]);
  }
}
)";

const char* const kAtomics = R"(
KERNEL void tickets(GLOBAL int* counter, GLOBAL int* ticket, GLOBAL int* hist,
                    GLOBAL const int* RESTRICT keys, const int n) {
  const int i = (int)GLOBAL_ID(0);
  if (i < n) {
    ticket[i] = ATOMIC_ADD_INT(counter, 1);
    ATOMIC_ADD_INT(&hist[keys[i]], 1);
  }
}
)";

std::size_t div_up(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("user kernel with defines: saxpy with T=float, UNROLL=4 and T=int, UNROLL=3") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();

    SUBCASE("float, UNROLL=4") {
      const duet::Program p = dev.compile(kSaxpy, {{"T", "float"}, {"UNROLL", "4"}}, "saxpy.duet");
      const duet::Kernel k = p.kernel("saxpy");
      CHECK(k.name() == "saxpy");
      const auto& sig = k.signature();
      REQUIRE_MESSAGE(sig.has_value(), "the signature of saxpy was not parsed");
      REQUIRE(sig->params.size() == 4);
      CHECK(sig->params[0].kind == duet::KernelParam::Kind::scalar);
      CHECK(sig->params[0].type == duet::ScalarType::i32);
      CHECK(sig->params[0].name == "n");
      CHECK(sig->params[1].kind == duet::KernelParam::Kind::scalar);
      CHECK(sig->params[1].type == duet::ScalarType::f32);  // T substituted
      CHECK(sig->params[1].type_name == "float");
      CHECK(sig->params[2].kind == duet::KernelParam::Kind::buffer);
      CHECK(sig->params[2].type == duet::ScalarType::f32);
      CHECK(sig->params[2].is_const);
      CHECK(sig->params[3].kind == duet::KernelParam::Kind::buffer);
      CHECK_FALSE(sig->params[3].is_const);
      CHECK(sig->params[3].name == "y");

      for (const int n : {1, 5, 1001, 65537}) {
        CAPTURE(n);
        auto rng = make_rng("saxpy float", static_cast<std::uint64_t>(n));
        const std::vector<float> x = random_floats(rng, static_cast<std::size_t>(n));
        const std::vector<float> y = random_floats(rng, static_cast<std::size_t>(n));
        const float alpha = 1.75f;
        duet::Buffer<float> dx(dev, x.size()), dy(dev, y.size());
        q.write(dx, x);
        q.write(dy, y);
        q.launch(k, duet::Range(div_up(static_cast<std::size_t>(n), 4)), duet::Range(), n, alpha, dx, dy);
        const std::vector<float> got = q.to_vector(dy);
        std::vector<double> want(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) want[i] = double(alpha) * x[i] + y[i];
        // alpha*x + y: two roundings, or one with FMA.
        check_close(
            got, want,
            [&](std::size_t i) {
              return 2 * kUnitRoundoff * (std::fabs(double(alpha) * x[i]) + std::fabs(y[i]));
            },
            "saxpy<float>");
      }
    }

    SUBCASE("int, UNROLL=3") {
      const duet::Program p = dev.compile(kSaxpy, {{"T", "int"}, {"UNROLL", "3"}}, "saxpy.duet");
      const duet::Kernel k = p.kernel("saxpy");
      const int n = 10007;
      auto rng = make_rng("saxpy int");
      const std::vector<int> x = random_ints(rng, n, -1000, 1000);
      const std::vector<int> y = random_ints(rng, n, -1000, 1000);
      duet::Buffer<int> dx(dev, n), dy(dev, n);
      q.write(dx, x);
      q.write(dy, y);
      q.launch(k, duet::Range(div_up(n, 3)), duet::Range(), n, -3, dx, dy);
      std::vector<int> want(n);
      for (int i = 0; i < n; ++i) want[i] = -3 * x[i] + y[i];
      check_equal(q.to_vector(dy), want, "saxpy<int>");
    }
  });
}

TEST_CASE("the work-item macros have one type on every backend, as the prelude says") {
  // GLOBAL_ID and GLOBAL_SIZE are size_t, the others uint: the sizes, and unsigned wrap-around.
  const char* source = R"(
KERNEL void kinds(GLOBAL int* out) {
  if (GLOBAL_ID(0) != 0) return;
  out[0] = (int)sizeof(GLOBAL_ID(0));
  out[1] = (int)sizeof(GLOBAL_SIZE(0));
  out[2] = (int)sizeof(LOCAL_ID(0));
  out[3] = (int)sizeof(GROUP_ID(0));
  out[4] = (int)sizeof(LOCAL_SIZE(0));
  out[5] = (int)sizeof(NUM_GROUPS(0));
  out[6] = (LOCAL_ID(0) - 1) > 0;
  out[7] = (GROUP_ID(0) - 1) > 0;
}
)";
  for_each_device([&](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    duet::Buffer<int> out(dev, 8);
    q.fill(out, -1);
    q.launch(dev.compile(source).kernel("kinds"), duet::Range(64), duet::Range(32), out);
    CHECK(q.to_vector(out) == std::vector<int>{8, 8, 4, 4, 4, 4, 1, 1});
  });
  const std::string prelude = duet::dialect_prelude();
  CHECK(prelude.find("#define LOCAL_ID(d)") != std::string::npos);
  CHECK(prelude.find("REQD_GROUP_SIZE(x, y, z)") != std::string::npos);
}

TEST_CASE("2D launch writes GLOBAL_ID(0), GLOBAL_ID(1) everywhere") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const duet::Program p = dev.compile(kIds, {}, "ids.duet");
    const duet::Kernel k = p.kernel("ids2d");
    const int nx = 13, ny = 7;
    const std::size_t n = nx * ny;
    for (const duet::Range& local : {duet::Range(), duet::Range(4, 2), duet::Range(16, 16)}) {
      CAPTURE(local.dims);
      CAPTURE(local[0]);
      CAPTURE(local[1]);
      duet::Buffer<int> gx(dev, n), gy(dev, n), ok(dev, n);
      q.fill(gx, -1);
      q.fill(gy, -1);
      q.fill(ok, -1);
      q.launch(k, duet::Range(nx, ny), local, gx, gy, ok, nx, ny);
      std::vector<int> want_x(n), want_y(n);
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
          want_x[y * nx + x] = x;
          want_y[y * nx + x] = y;
        }
      check_equal(q.to_vector(gx), want_x, "GLOBAL_ID(0)");
      check_equal(q.to_vector(gy), want_y, "GLOBAL_ID(1)");
      check_equal(q.to_vector(ok), std::vector<int>(n, 1), "index macros consistent");
    }
  });
}

TEST_CASE("3D launch writes GLOBAL_ID(0..2) everywhere") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const duet::Program p = dev.compile(kIds, {}, "ids.duet");
    const duet::Kernel k = p.kernel("ids3d");
    const int nx = 5, ny = 3, nz = 11;
    const std::size_t n = nx * ny * nz;
    for (const duet::Range& local : {duet::Range(), duet::Range(2, 2, 2), duet::Range(4, 1, 3)}) {
      CAPTURE(local.dims);
      CAPTURE(local[0]);
      CAPTURE(local[1]);
      CAPTURE(local[2]);
      duet::Buffer<int> gx(dev, n), gy(dev, n), gz(dev, n), ok(dev, n);
      q.fill(gx, -1);
      q.fill(gy, -1);
      q.fill(gz, -1);
      q.fill(ok, -1);
      q.launch(k, duet::Range(nx, ny, nz), local, gx, gy, gz, ok, nx, ny, nz);
      std::vector<int> want_x(n), want_y(n), want_z(n);
      for (int z = 0; z < nz; ++z)
        for (int y = 0; y < ny; ++y)
          for (int x = 0; x < nx; ++x) {
            const int i = (z * ny + y) * nx + x;
            want_x[i] = x;
            want_y[i] = y;
            want_z[i] = z;
          }
      check_equal(q.to_vector(gx), want_x, "GLOBAL_ID(0)");
      check_equal(q.to_vector(gy), want_y, "GLOBAL_ID(1)");
      check_equal(q.to_vector(gz), want_z, "GLOBAL_ID(2)");
      check_equal(q.to_vector(ok), std::vector<int>(n, 1), "index macros consistent");
    }
  });
}

TEST_CASE("automatic local size with a global size no group size divides") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const duet::Program p = dev.compile(kIds, {}, "ids.duet");
    const duet::Kernel k = p.kernel("mark");
    for (const int n : {1, 3, 255, 257, 1000003}) {
      CAPTURE(n);
      const std::size_t guard = 64;  // elements past n that no work-item may touch
      duet::Buffer<int> out(dev, n + guard), count(dev, 1);
      q.fill(out, -7);
      q.fill(count, 0);
      q.launch(k, duet::Range(static_cast<std::size_t>(n)), duet::Range(), out, count, n);
      std::vector<int> want(n + guard, -7);
      std::iota(want.begin(), want.begin() + n, 0);
      check_equal(q.to_vector(out), want, "out (first n written once, guard untouched)");
      CHECK(q.to_vector(count)[0] == n);
    }
  });
}

TEST_CASE("SHARED memory and BARRIER: work-group reduction") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    for (const int group : {64, 256}) {
      if (static_cast<std::size_t>(group) > dev.info().max_group_size) {
        MESSAGE("skipped group size ", group, ": device max is ", dev.info().max_group_size);
        continue;
      }
      CAPTURE(group);
      const duet::Program p = dev.compile(kReduce, {{"GROUP", std::to_string(group)}}, "reduce.duet");
      const duet::Kernel k = p.kernel("block_sum");
      const int n = 10007;
      const std::size_t groups = div_up(n, group);
      auto rng = make_rng("reduce", group);
      const std::vector<int> in = random_ints(rng, n, -1000, 1000);
      duet::Buffer<int> din(dev, n), partial(dev, groups), total(dev, 1);
      q.write(din, in);
      q.fill(partial, 0x7fffffff);
      q.fill(total, 0);
      q.launch(k, duet::Range(groups * group), duet::Range(group), din, partial, total, n);
      std::vector<int> want(groups, 0);
      for (int i = 0; i < n; ++i) want[i / group] += in[i];
      check_equal(q.to_vector(partial), want, "per-group sums");
      CHECK(q.to_vector(total)[0] == std::accumulate(in.begin(), in.end(), 0));
    }
  });
}

TEST_CASE("ATOMIC_ADD_INT: returned old values and a histogram") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const duet::Program p = dev.compile(kAtomics, {}, "atomics.duet");
    const duet::Kernel k = p.kernel("tickets");
    const int n = 100003, bins = 17, start = 5;
    auto rng = make_rng("atomics");
    const std::vector<int> keys = random_ints(rng, n, 0, bins - 1);
    const std::vector<int> counter0{start};
    duet::Buffer<int> counter(dev, 1), ticket(dev, n), hist(dev, bins), dkeys(dev, n);
    q.write(counter, counter0);
    q.write(dkeys, keys);
    q.fill(ticket, -1);
    q.fill(hist, 0);
    q.launch(k, duet::Range(n), duet::Range(), counter, ticket, hist, dkeys, n);

    CHECK(q.to_vector(counter)[0] == start + n);
    // Every work-item saw a distinct old value: the tickets are a permutation of start..start+n-1.
    std::vector<int> t = q.to_vector(ticket);
    std::sort(t.begin(), t.end());
    std::vector<int> want_t(n);
    std::iota(want_t.begin(), want_t.end(), start);
    check_equal(t, want_t, "sorted tickets");
    std::vector<int> want_h(bins, 0);
    for (int key : keys) ++want_h[key];
    check_equal(q.to_vector(hist), want_h, "histogram");
  });
}

TEST_CASE("a program lists its kernels and built-in kernel sources compile as user programs") {
  for_each_device([](const duet::Device& dev) {
    const duet::Program p = dev.compile(kIds, {}, "ids.duet");
    std::vector<std::string> names = p.kernel_names();
    std::sort(names.begin(), names.end());
    CHECK(names == std::vector<std::string>{"ids2d", "ids3d", "mark"});
    CHECK(p.device() == dev);
    CHECK(p.kernel("mark").device() == dev);
    for (const char* const* name = duet::builtin_kernel_names(); *name; ++name) {
      INFO("kernel source ", std::string(*name));
      const duet::Program shared = dev.compile(duet::builtin_kernel_source(*name), {}, *name);
      CHECK_FALSE(shared.kernel_names().empty());
      // Every kernel's declaration reads as dialect source (CUDA lists kernels and checks launches
      // by it alone): declaring its parameters by hand is refused as it is for any dialect kernel.
      for (const std::string& kernel : shared.kernel_names()) {
        INFO("kernel ", kernel);
        const auto e = EXPECT_ERROR(duet::ArgumentError, shared.kernel(kernel, "int unread"));
        if (e) CHECK_CONTAINS(e->what(), "is dialect source");
      }
    }
  });
}

TEST_CASE("a kernel launched again takes the new arguments: other buffers, reallocated ones, other scalars") {
  // The OpenCL backend skips clSetKernelArg for arguments equal to the last launch's; buffers
  // released and allocated again between launches may get the addresses of the old ones.
  const char* source = R"(
KERNEL void put(GLOBAL float* x, const float v, const int n) {
  const int i = (int)GLOBAL_ID(0);
  if (i < n) x[i] = v;
}
)";
  for_each_device([&](const duet::Device& dev) {
    const duet::Kernel k = dev.compile(source, {}, "put.duet").kernel("put");
    duet::Queue q = dev.queue();
    const std::size_t n = 37;
    for (int round = 0; round < 12; ++round) {
      duet::Buffer<float> a(dev, n), b(dev, n);
      q.fill(a, kNaN);
      q.fill(b, kNaN);
      const float v = static_cast<float>(round);
      q.launch(k, duet::Range(n), duet::Range(), a, v, static_cast<int>(n));
      q.launch(k, duet::Range(n), duet::Range(), b, v + 0.5f, static_cast<int>(n));
      q.launch(k, duet::Range(n), duet::Range(), a, v + 0.25f, 20);  // the first 20 again
      const std::vector<float> got_a = q.to_vector(a), got_b = q.to_vector(b);
      for (std::size_t i = 0; i < n; ++i) {
        CAPTURE(round);
        CAPTURE(i);
        CHECK(got_a[i] == (i < 20 ? v + 0.25f : v));
        CHECK(got_b[i] == v + 0.5f);
      }
    }
  });
}

TEST_SUITE_END();

namespace {

// Kernels that name their group size: the output shows the local size each ran with, and the
// 1-D one shares data across its group (tile[63 - i]), which only a group of 64 can.
const char* const kRequiredGroup = R"(
KERNEL REQD_GROUP_SIZE(64, 1, 1) void row(GLOBAL float* out, const int n) {
  SHARED float tile[64];
  const int i = (int)GLOBAL_ID(0);
  tile[LOCAL_ID(0)] = (float)LOCAL_ID(0);
  BARRIER();
  if (i < n) out[i] = 2.0f * (float)i + tile[63 - LOCAL_ID(0)] + (float)LOCAL_ID(0);
}
KERNEL REQD_GROUP_SIZE(8, 4, 1) void plane(GLOBAL float* out, const int w, const int h) {
  const int x = (int)GLOBAL_ID(0), y = (int)GLOBAL_ID(1);
  if (x < w && y < h) out[y * w + x] = (float)(y * w + x) + (float)(LOCAL_SIZE(0) * 10 + LOCAL_SIZE(1));
}
KERNEL REQD_GROUP_SIZE((GROUP), 1u, 1) void by_define(GLOBAL float* out) { out[GLOBAL_ID(0)] = 1.0f; }
KERNEL REQD_GROUP_SIZE((GROUP + 16) * 2, 1, 1) void by_expression(GLOBAL float* out) { out[GLOBAL_ID(0)] = 1.0f; }
#define BOUNDS REQD_GROUP_SIZE(16, 2, 1)
KERNEL BOUNDS void by_attribute_define(GLOBAL float* out) { out[GLOBAL_ID(0)] = 1.0f; }
)";

}  // namespace

TEST_CASE("REQD_GROUP_SIZE: the default local size is the required one, any other is refused") {
  for_each_device([](const duet::Device& dev) {
    duet::Queue q = dev.queue();
    const duet::Program p = dev.compile(kRequiredGroup, {{"GROUP", "32"}}, "required_group.duet");
    const duet::Kernel row = p.kernel("row"), plane = p.kernel("plane");
    REQUIRE(row.signature());
    CHECK(row.signature()->required_group_size == std::array<std::size_t, 3>{64, 1, 1});
    CHECK(p.kernel("by_define").signature()->required_group_size == std::array<std::size_t, 3>{32, 1, 1});
    // Sizes written as expressions, and attributes behind a define, read as the compiler reads them.
    REQUIRE(p.kernel("by_expression").signature());
    CHECK(p.kernel("by_expression").signature()->required_group_size == std::array<std::size_t, 3>{96, 1, 1});
    REQUIRE(p.kernel("by_attribute_define").signature());
    CHECK(p.kernel("by_attribute_define").signature()->required_group_size == std::array<std::size_t, 3>{16, 2, 1});
    std::vector<std::string> names = p.kernel_names();
    std::sort(names.begin(), names.end());
    CHECK(names == std::vector<std::string>{"by_attribute_define", "by_define", "by_expression", "plane", "row"});

    const int n = 1009;  // prime: the last group is partial, and guarded
    duet::Buffer<float> out(dev, n);
    std::vector<float> want(n);
    for (int i = 0; i < n; ++i) want[static_cast<std::size_t>(i)] = 2.0f * static_cast<float>(i) + 63.0f;
    for (const duet::Range& local : {duet::Range(), duet::Range(64)}) {
      q.fill(out, kNaN);
      q.launch(row, duet::Range(n), local, out, n);
      check_equal(q.to_vector(out), want, "row, local " + std::to_string(local.dims ? local[0] : 0));
    }

    const int w = 37, h = 23;  // primes: partial groups in both dimensions
    duet::Buffer<float> grid(dev, w * h);
    q.fill(grid, kNaN);
    q.launch(plane, duet::Range(w, h), duet::Range(), grid, w, h);
    std::vector<float> want_grid(static_cast<std::size_t>(w * h));
    for (std::size_t i = 0; i < want_grid.size(); ++i) want_grid[i] = static_cast<float>(i) + 84.0f;
    check_equal(q.to_vector(grid), want_grid, "plane");

    q.fill(out, kNaN);
    const auto e = EXPECT_ERROR(duet::ArgumentError, q.launch(row, duet::Range(n), duet::Range(32), out, n));
    if (e) {
      CHECK_CONTAINS(e->what(), "'row'");
      CHECK_CONTAINS(e->what(), "64x1x1");
      CHECK_CONTAINS(e->what(), "local size of 32");
    }
    const auto e2 = EXPECT_ERROR(duet::ArgumentError, q.launch(plane, duet::Range(w, h), duet::Range(8, 8), grid, w, h));
    if (e2) {
      CHECK_CONTAINS(e2->what(), "'plane'");
      CHECK_CONTAINS(e2->what(), "8x4x1");
      CHECK_CONTAINS(e2->what(), "8x8");
    }
    EXPECT_ERROR(duet::ArgumentError, q.launch(plane, duet::Range(w * h), duet::Range(), grid, w, h));
    // Refused before anything ran: the poison is still there.
    const std::vector<float> untouched = q.to_vector(out);
    CHECK(std::all_of(untouched.begin(), untouched.end(), [](float x) { return x != x; }));
  });
}
