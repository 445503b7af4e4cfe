// DLPack export and import (duet/dlpack.hpp): the exported tensor describes the buffer (device,
// dtype, shape, strides, data) and its deleter frees the buffer; an imported tensor is used without
// copying and its deleter runs exactly once, when the duet buffer and its views are gone; every
// refused tensor stays the caller's (deleter not called). Compiled when CMake found DLPack
// (DUET_HAVE_DLPACK).
#ifdef DUET_HAVE_DLPACK

#include <duet/dlpack.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <duet/duet.hpp>
#include <string>
#include <vector>

#include "devices.hpp"
#include "support.hpp"

namespace {

// A tensor as another framework would hand it over: it describes memory the framework owns (here,
// a duet buffer's native memory) and counts the calls of its deleter.
struct Foreign {
  DLManagedTensor managed{};
  std::vector<std::int64_t> shape, strides;
  int deleted = 0;

  Foreign(const duet::Device& dev, const duet::RawBuffer& memory, DLDataType dtype, std::vector<std::int64_t> extents) {
    shape = std::move(extents);
    DLTensor& t = managed.dl_tensor;
    t.data = reinterpret_cast<void*>(memory.native_handle());
    t.device = duet::detail::dlpack_device_of(dev);
    t.ndim = static_cast<int>(shape.size());
    t.dtype = dtype;
    t.shape = shape.data();
    t.strides = nullptr;
    t.byte_offset = 0;
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* self) { ++static_cast<Foreign*>(self->manager_ctx)->deleted; };
  }
};

DLDataType dtype(std::uint8_t code, std::uint8_t bits, std::uint16_t lanes = 1) {
  DLDataType t;
  t.code = code;
  t.bits = bits;
  t.lanes = lanes;
  return t;
}

}  // namespace

TEST_SUITE_BEGIN("device");

TEST_CASE("to_dlpack describes the buffer and its deleter frees it") {
  for_each_device([](const duet::Device& dev) {
    auto rng = make_rng("dlpack export");
    duet::Queue q = dev.queue();
    const std::vector<float> data = random_floats(rng, 6 * 7);
    duet::Buffer<float> b(dev, 6 * 7);
    q.write(b, data);
    q.finish();
    const std::uintptr_t handle = b.native_handle();

    DLManagedTensor* t = duet::to_dlpack(std::move(b), {6, 7});
    CHECK_FALSE(b.valid());  // the buffer moved into the tensor
    REQUIRE(t != nullptr);
    const DLTensor& d = t->dl_tensor;
    if (dev.info().backend == "cuda") {
      CHECK(d.device.device_type == kDLCUDA);
      CHECK(d.device.device_id == dev.info().native_index);
    } else {
      CHECK(d.device.device_type == kDLOpenCL);
      CHECK(d.device.device_id == dev.info().index);
    }
    CHECK(reinterpret_cast<std::uintptr_t>(d.data) == handle);
    CHECK(d.byte_offset == 0);
    CHECK(d.ndim == 2);
    CHECK(d.shape[0] == 6);
    CHECK(d.shape[1] == 7);
    CHECK(d.strides[0] == 7);
    CHECK(d.strides[1] == 1);
    CHECK(d.dtype.code == kDLFloat);
    CHECK(d.dtype.bits == 32);
    CHECK(d.dtype.lanes == 1);

    // Imported back: the same memory, no copy; the export's deleter runs when the import goes.
    {
      duet::Buffer<float> back = duet::from_dlpack<float>(dev, t);
      CHECK(back.size() == 42);
      CHECK_FALSE(back.owns_memory());
      CHECK(back.native_handle() == handle);
      check_equal(q.to_vector(back), data, "exported then imported");
    }  // deleter called here: the exported buffer is freed

    // Other element types get their DLPack codes; a 1-D default shape.
    duet::Buffer<std::uint8_t> bytes(dev, 5);
    DLManagedTensor* tb = duet::to_dlpack(std::move(bytes));
    CHECK(tb->dl_tensor.dtype.code == kDLUInt);
    CHECK(tb->dl_tensor.dtype.bits == 8);
    CHECK(tb->dl_tensor.ndim == 1);
    CHECK(tb->dl_tensor.shape[0] == 5);
    tb->deleter(tb);
    duet::Buffer<std::int64_t> longs(dev, 3);
    DLManagedTensor* tl = duet::to_dlpack(std::move(longs));
    CHECK(tl->dl_tensor.dtype.code == kDLInt);
    CHECK(tl->dl_tensor.dtype.bits == 64);
    tl->deleter(tl);

    // The deleter is what frees the buffer: an exported wrap calls its owner back then.
    duet::Buffer<float> owner(dev, 16);
    int released = 0;
    duet::Buffer<float> w = duet::Buffer<float>::wrap(dev, owner.native_handle(), 16, 0, [&released] { ++released; });
    DLManagedTensor* tw = duet::to_dlpack(std::move(w));
    CHECK(released == 0);
    tw->deleter(tw);
    CHECK(released == 1);

    // Errors of export.
    duet::Buffer<float> small(dev, 10);
    auto e = EXPECT_ERROR(duet::BufferSizeError, duet::to_dlpack(std::move(small), {3, 4}));
    if (e) CHECK_CONTAINS(e->what(), "12 elements");
    CHECK(small.valid());  // a refused export leaves the buffer where it was
    EXPECT_ERROR(duet::ArgumentError, duet::to_dlpack(std::move(small), {-1}));
    duet::Buffer<float> gone;
    EXPECT_ERROR(duet::ReleasedError, duet::to_dlpack(std::move(gone)));
  });
}

TEST_CASE("from_dlpack shares memory and calls the deleter exactly once") {
  for_each_device([](const duet::Device& dev) {
    auto rng = make_rng("dlpack import");
    duet::Queue q = dev.queue();
    duet::Buffer<int> memory(dev, 24);
    const std::vector<int> data = random_ints(rng, 24, -9, 9);
    q.write(memory, data);

    Foreign f(dev, memory.raw(), dtype(kDLInt, 32), {2, 3, 4});
    {
      duet::Buffer<int> b = duet::from_dlpack<int>(dev, &f.managed);
      CHECK(b.size() == 24);
      check_equal(q.to_vector(b), data, "imported tensor");
      q.fill(b.view(20, 4), 100);  // writes reach the framework's memory
      std::vector<int> want = data;
      std::fill(want.begin() + 20, want.end(), 100);
      check_equal(q.to_vector(memory), want, "framework memory after a write through the import");
      EXPECT_ERROR(duet::ArgumentError, b.free_now());
      duet::BufferView<int> keep = b.view(0, 4);
      b.release();
      CHECK(f.deleted == 0);  // the view still uses the memory
      check_equal(q.to_vector(keep), std::vector<int>(data.begin(), data.begin() + 4), "view of the import");
    }
    CHECK(f.deleted == 1);

    // Explicit compact strides and extents of 1 with any stride are accepted; a byte_offset that
    // is a multiple of the view alignment too.
    Foreign g(dev, memory.raw(), dtype(kDLInt, 32), {4, 1, 6});
    std::vector<std::int64_t> strides = {6, 999, 1};
    g.managed.dl_tensor.strides = strides.data();
    { duet::Buffer<int> b = duet::from_dlpack<int>(dev, &g.managed); CHECK(b.size() == 24); }
    CHECK(g.deleted == 1);

    const std::size_t skip = std::max<std::size_t>(dev.info().view_alignment, sizeof(int));  // bytes
    duet::Buffer<int> larger(dev, skip / sizeof(int) + 16);
    std::vector<int> seq(larger.size());
    for (std::size_t i = 0; i < seq.size(); ++i) seq[i] = static_cast<int>(i);
    q.write(larger, seq);
    Foreign h(dev, larger.raw(), dtype(kDLInt, 32), {5});
    h.managed.dl_tensor.byte_offset = skip;
    {
      duet::Buffer<int> b = duet::from_dlpack<int>(dev, &h.managed);
      const std::size_t first = skip / sizeof(int);
      check_equal(q.to_vector(b), std::vector<int>(seq.begin() + static_cast<long>(first), seq.begin() + static_cast<long>(first) + 5),
                  "import with a byte_offset");
    }
    CHECK(h.deleted == 1);

    // One element in: a view at an odd offset, which dialect kernels take on every backend (OpenCL
    // through the byte offset duet adds to each buffer parameter).
    Foreign odd(dev, larger.raw(), dtype(kDLInt, 32), {7});
    odd.managed.dl_tensor.byte_offset = sizeof(int);
    {
      duet::Buffer<int> b = duet::from_dlpack<int>(dev, &odd.managed);
      const duet::Kernel twice =
          dev.compile("KERNEL void twice(GLOBAL int* x, const uint n) { if (GLOBAL_ID(0) < n) x[GLOBAL_ID(0)] *= 2; }",
                      {}, "twice.duet")
              .kernel("twice");
      q.launch(twice, duet::Range(7), duet::Range(), b, 7u);
      std::vector<int> want = seq;
      for (std::size_t i = 1; i < 8; ++i) want[i] *= 2;
      check_equal(q.to_vector(larger), want, "a kernel on an import one element in");
    }
    CHECK(odd.deleted == 1);

    // Zero elements with no data: an empty buffer, and the tensor is done with at once.
    Foreign z(dev, memory.raw(), dtype(kDLInt, 32), {0});
    z.managed.dl_tensor.data = nullptr;
    CHECK(duet::from_dlpack<int>(dev, &z.managed).size() == 0);
    CHECK(z.deleted == 1);
  });
}

TEST_CASE("from_dlpack refuses unsupported tensors and leaves them with the caller") {
  for_each_device([](const duet::Device& dev) {
    duet::Buffer<float> memory(dev, 64);

    auto null = EXPECT_ERROR(duet::ArgumentError, duet::from_dlpack<float>(dev, nullptr));
    if (null) CHECK_CONTAINS(null->what(), "null");

    Foreign complex(dev, memory.raw(), dtype(kDLComplex, 64), {32});
    auto e = EXPECT_ERROR(duet::ArgumentError, duet::from_dlpack<float>(dev, &complex.managed));
    if (e) {
      CHECK_CONTAINS(e->what(), "complex64");
      CHECK_CONTAINS(e->what(), "float32");
    }
    Foreign wide(dev, memory.raw(), dtype(kDLFloat, 64), {32});
    EXPECT_ERROR(duet::ArgumentError, duet::from_dlpack<float>(dev, &wide.managed));
    Foreign lanes(dev, memory.raw(), dtype(kDLFloat, 32, 4), {16});
    auto l = EXPECT_ERROR(duet::ArgumentError, duet::from_dlpack<float>(dev, &lanes.managed));
    if (l) CHECK_CONTAINS(l->what(), "float32x4");
    Foreign sign(dev, memory.raw(), dtype(kDLUInt, 32), {64});
    EXPECT_ERROR(duet::ArgumentError, duet::from_dlpack<int>(dev, &sign.managed));

    Foreign transposed(dev, memory.raw(), dtype(kDLFloat, 32), {8, 8});
    std::vector<std::int64_t> column_major = {1, 8};
    transposed.managed.dl_tensor.strides = column_major.data();
    auto s = EXPECT_ERROR(duet::ArgumentError, duet::from_dlpack<float>(dev, &transposed.managed));
    if (s) {
      CHECK_CONTAINS(s->what(), "not compact");
      CHECK_CONTAINS(s->what(), "{1, 8}");
      CHECK_CONTAINS(s->what(), "{8, 1}");
    }
    Foreign strided(dev, memory.raw(), dtype(kDLFloat, 32), {16});
    std::vector<std::int64_t> every_other = {2};
    strided.managed.dl_tensor.strides = every_other.data();
    EXPECT_ERROR(duet::ArgumentError, duet::from_dlpack<float>(dev, &strided.managed));

    Foreign odd(dev, memory.raw(), dtype(kDLFloat, 32), {8});
    odd.managed.dl_tensor.byte_offset = 2;
    auto o = EXPECT_ERROR(duet::ArgumentError, duet::from_dlpack<float>(dev, &odd.managed));
    if (o) CHECK_CONTAINS(o->what(), "byte_offset 2");
    Foreign too_big(dev, memory.raw(), dtype(kDLFloat, 32), {65});
    EXPECT_ERROR(duet::BufferSizeError, duet::from_dlpack<float>(dev, &too_big.managed));

    Foreign cpu(dev, memory.raw(), dtype(kDLFloat, 32), {8});
    cpu.managed.dl_tensor.device.device_type = kDLCPU;
    auto c = EXPECT_ERROR(duet::DeviceMismatchError, duet::from_dlpack<float>(dev, &cpu.managed));
    if (c) {
      CHECK_CONTAINS(c->what(), "kDLCPU");
      CHECK_CONTAINS(c->what(), dev.info().id());
    }
    Foreign other_id(dev, memory.raw(), dtype(kDLFloat, 32), {8});
    other_id.managed.dl_tensor.device.device_id += 7;
    EXPECT_ERROR(duet::DeviceMismatchError, duet::from_dlpack<float>(dev, &other_id.managed));
    Foreign other_type(dev, memory.raw(), dtype(kDLFloat, 32), {8});
    other_type.managed.dl_tensor.device.device_type = dev.info().backend == "cuda" ? kDLOpenCL : kDLCUDA;
    EXPECT_ERROR(duet::DeviceMismatchError, duet::from_dlpack<float>(dev, &other_type.managed));

    for (const Foreign* f : {&complex, &wide, &lanes, &sign, &transposed, &strided, &odd, &too_big, &cpu,
                             &other_id, &other_type})
      CHECK(f->deleted == 0);  // refused tensors stay the caller's
  });
}

TEST_SUITE_END();

#endif  // DUET_HAVE_DLPACK
