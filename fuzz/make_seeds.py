#!/usr/bin/env python3
"""Writes the binary seed inputs of fuzz.disk_cache and fuzz.dlpack into corpus/ (the text seeds of
the other harnesses are written by hand). Run from anywhere: python3 fuzz/make_seeds.py"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(harness, name, data):
    path = os.path.join(HERE, "corpus", harness, name)
    with open(path, "wb") as f:
        f.write(data)


# --- disk_cache: the format of core/src/disk_cache.cpp --------------------------------------------
MAGIC = b"duet-program-cache 1\n"


def fnv1a(data):
    h = 14695981039346656037
    for c in data:
        h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def entry(key, payload):
    return (MAGIC + struct.pack("<Q", len(key)) + key + struct.pack("<Q", len(payload)) + payload +
            struct.pack("<Q", fnv1a(payload)))


KEY = (b"duet 0.1.0\nopencl\npthread-skylake-avx512-x\nPoCL 3.1 (OpenCL C 1.2)\n"
       b"vector_add.duet\n#define DUET_BACKEND_OPENCL 1\n")
PAYLOAD = b"\x7fELF\x02\x01\x01" + bytes(range(64))
valid = entry(KEY, PAYLOAD)
write("disk_cache", "valid", valid)
write("disk_cache", "valid_empty_key", entry(b"", b"payload"))
write("disk_cache", "truncated", valid[:100])
write("disk_cache", "no_checksum", valid[:-8])
bad = bytearray(valid)
bad[-20] ^= 0xFF
write("disk_cache", "bad_checksum", bytes(bad))
write("disk_cache", "bad_magic", b"duet-program-cache 2\n" + valid[len(MAGIC):])
write("disk_cache", "huge_key_size", MAGIC + struct.pack("<Q", 2**63) + KEY)
write("disk_cache", "huge_payload_size",
      MAGIC + struct.pack("<Q", len(KEY)) + KEY + struct.pack("<Q", 2**64 - 1) + PAYLOAD)


# --- dlpack: the values fuzz_dlpack.cpp takes, in its order, through FuzzedDataProvider ----------
class Provider:
    """Encodes values for FuzzedDataProvider::ConsumeIntegralInRange, which reads them from the end
    of the input, most significant byte first."""

    def __init__(self):
        self.consumed = []

    def integral(self, value, lo, hi, bits):
        span = hi - lo
        count = 0
        while count * 8 < bits and (span >> (count * 8)) > 0:
            count += 1
        result = (value - lo) % (1 << bits)
        for i in reversed(range(count)):
            self.consumed.append((result >> (8 * i)) & 0xFF)

    def int_(self, value, lo, hi):
        self.integral(value, lo, hi, 32)

    def u8(self, v): self.integral(v, 0, 255, 8)
    def u16(self, v): self.integral(v, 0, 65535, 16)
    def i32(self, v): self.integral(v, -2**31, 2**31 - 1, 32)
    def i64(self, v): self.integral(v, -2**63, 2**63 - 1, 64)
    def u64(self, v): self.integral(v, 0, 2**64 - 1, 64)
    def boolean(self, v): self.u8(1 if v else 0)

    def data(self):
        return bytes(reversed(self.consumed))


TYPES = ["float", "double", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
DTYPE = {"float": (2, 32), "double": (2, 64), "int8": (0, 8), "int16": (0, 16), "int32": (0, 32),
         "int64": (0, 64), "uint8": (1, 8), "uint16": (1, 16), "uint32": (1, 32), "uint64": (1, 64)}
KDLCUDA, KDLOPENCL = 2, 4


def tensor(name, type_, backend="opencl", index=0, native_index=0, align_log2=7, dtype=None,
           device=None, ndim=1, shape=(4,), strides=None, byte_offset=0, data=0x10000, has_shape=True):
    p = Provider()
    p.int_(TYPES.index(type_), 0, 9)
    p.boolean(backend == "cuda")
    p.int_(index, 0, 3)
    p.int_(native_index, 0, 3)
    p.int_(align_log2, 0, 12)
    code, bits = dtype[:2] if dtype else DTYPE[type_]
    lanes = dtype[2] if dtype and len(dtype) > 2 else 1
    p.u8(code)
    p.u8(bits)
    p.u16(lanes)
    if device is None:
        device = (KDLCUDA, native_index) if backend == "cuda" else (KDLOPENCL, index)
    p.int_(device[0], 0, 15)
    p.i32(device[1])
    p.int_(ndim, -2, 40)
    if ndim > 0:
        p.boolean(has_shape)
    p.boolean(strides is not None)
    for d in range(max(ndim, 0)):
        extent = shape[d]
        small = 0 <= extent <= 8
        p.boolean(small)
        if small:
            p.integral(extent, 0, 8, 64)
        else:
            p.i64(extent)
        p.i64(strides[d] if strides is not None else 0)
    p.u64(byte_offset)
    p.u64(data)
    write("dlpack", name, p.data())


tensor("float_2d", "float", ndim=2, shape=(3, 4), strides=(4, 1))
tensor("double_cuda", "double", backend="cuda", native_index=1, ndim=1, shape=(1000,), byte_offset=8,
       data=0x7F0000000000)
tensor("int32_strided", "int32", ndim=2, shape=(3, 4), strides=(1, 3))
tensor("uint8_scalar", "uint8", ndim=0, shape=())
tensor("float_empty_null", "float", ndim=2, shape=(0, 5), data=0)
tensor("float_null_data", "float", ndim=1, shape=(5,), data=0)
tensor("float_as_double", "float", dtype=(2, 64))
tensor("float_lanes", "float", dtype=(2, 32, 4))
tensor("other_device", "int64", device=(KDLCUDA, 0))
tensor("negative_extent", "int16", ndim=3, shape=(2, -1, 2))
tensor("misaligned_offset", "uint32", byte_offset=6)
tensor("opencl_offset", "uint16", byte_offset=64, align_log2=7)
tensor("no_shape", "uint64", ndim=2, shape=(1, 1), has_shape=False)
tensor("ones_any_stride", "int8", ndim=3, shape=(1, 5, 1), strides=(99, 1, -7))
