// The duet kernel dialect. Kernels are written once with these macros and compiled as CUDA C++ by
// NVRTC (DUET_CUDA defined) or as OpenCL C 1.2 (DUET_OPENCL defined). duet prepends this file, the
// caller's defines and a #line mark to every source, so compiler messages point at the caller's lines.
//
//   KERNEL void name(GLOBAL const float* RESTRICT x, GLOBAL float* y, const int n)
//   GLOBAL / CONSTANT        pointer to device memory / to read-only constant memory
//   SHARED float tile[16];   memory shared by a work-group (CUDA block), declared in kernel scope
//   DEVICE float f(...)      a helper function callable from kernels
//   KERNEL REQD_GROUP_SIZE(x, y, z) void name(...)
//                            the kernel runs only in work-groups of x*y*z work-items, x by y by z,
//                            which lets the compiler size registers for it (CUDA __launch_bounds__,
//                            OpenCL reqd_work_group_size). x, y, z: integer constants, or defines
//                            of one. A launch with Range() as its local size gets this size; any
//                            other local size is an ArgumentError before anything runs.
//   BARRIER()                work-group barrier that also orders SHARED and GLOBAL memory
//   GLOBAL_ID(d) LOCAL_ID(d) GROUP_ID(d) LOCAL_SIZE(d) NUM_GROUPS(d) GLOBAL_SIZE(d), d = 0, 1, 2:
//                            GLOBAL_ID and GLOBAL_SIZE are size_t, the other four uint, on both
//                            backends (CUDA's threadIdx and blockIdx are unsigned int; OpenCL's
//                            get_local_id and friends return size_t, narrowed here), so the same
//                            arithmetic wraps and promotes the same way everywhere
//   ATOMIC_ADD_INT(p, v) ATOMIC_ADD_UINT(p, v)  atomic add on 32-bit integers, returns the old value
//   ATOMIC_MAX_INT(p, v) ATOMIC_MIN_INT(p, v)
//   types: uint, ulong, uchar, ushort are available on both backends; double where the device
//   supports it (DeviceInfo::supports_double).
//   SHARED_MEM               address space of a pointer into SHARED memory, for reinterpreting a
//                            shared array: (SHARED_MEM float*)&tile4[i] or (SHARED_MEM float4*)p.
//                            float4 (members .x .y .z .w) exists on both backends; a float4 access
//                            through GLOBAL or SHARED_MEM pointers must be 16-byte aligned.
//   half                     IEEE binary16 as a storage type on both backends (duet::half on the
//                            host): LOAD_HALF(p) reads *p as a float, STORE_HALF(p, v) stores the
//                            float v rounded to nearest even. Compute in float; arithmetic on half
//                            values themselves does not compile, on either backend.
//   bfloat16                 the upper half of an IEEE binary32, a storage type on both backends
//                            (duet::bfloat16 on the host): LOAD_BFLOAT16(p) reads *p as a float,
//                            STORE_BFLOAT16(p, v) stores the float v rounded to nearest even (NaN
//                            stays a quiet NaN). Like half, compute in float.
//   LOAD(T, p) STORE(T, p, v) for kernels templated over an element type T (a define): a plain
//                            *p for every type but half and bfloat16, their LOAD_ / STORE_ macros
//                            for those, so one source serves T = float, double, int, ..., half and
//                            bfloat16.
//   INFINITY NAN             float infinity and quiet NaN, on both backends.
//   DUET_NV_PTX DUET_NV_ARCH DUET_NV_PTX is defined where inline PTX (`asm volatile("..." : outputs
//                            : inputs)`, constraints "r", "l", "f", "h") compiles: CUDA, and
//                            NVIDIA's OpenCL devices (the backend passes their compute capability;
//                            DUET_OPENCL_PTX=0 in the environment leaves it out there); DUET_NV_ARCH
//                            is then the compute capability as major * 10 + minor (90 for sm_90).
//                            Shared-memory addresses differ: CUDA pointers are generic (cvta them
//                            into the shared window), an OpenCL __local pointer's value already is
//                            one. Kernels that use PTX keep a portable form for everywhere else.
//   cfloat cdouble           complex numbers (members .re .im) of two floats / two doubles, laid out
//                            as std::complex<float> / <double> (cdouble where the device has
//                            double). Structs, so + - * / do not compile on them: call the
//                            functions, named after the type (C is cfloat or cdouble, R its part
//                            type): C_make(re, im), C_add, C_sub, C_mul, C_div (scaled, so no
//                            intermediate overflows for large magnitudes), C_neg, C_conj, C_eq,
//                            C_ne (give int), R C_real, R C_imag, R C_abs (hypot), C_exp, C_log,
//                            C_sqrt, C_sin, C_cos, C_tan, C_sinh, C_cosh, C_tanh, C_asin, C_acos,
//                            C_atan, C_asinh, C_acosh, C_atanh, C_expm1, C_log1p, C_log2, C_log10
//                            (principal branches, as C99's cexp ...), C_pow(a, b) (NumPy's
//                            special cases), C_sign (z / |z|, 0 for 0), C_rint (both parts).
//
// duet's generators reserve every name this file defines (they read it from here), and names
// starting with duet_ or DUET_.

#if defined(DUET_CUDA)

typedef unsigned int uint;
typedef unsigned long long ulong;
typedef unsigned char uchar;
typedef unsigned short ushort;

#if defined(__CUDA_ARCH__)
#define DUET_NV_PTX 1
#define DUET_NV_ARCH (__CUDA_ARCH__ / 10)
#endif

#define KERNEL extern "C" __global__
#define REQD_GROUP_SIZE(x, y, z) __launch_bounds__((x) * (y) * (z))
#define DEVICE static __device__ __forceinline__
#define GLOBAL
#define CONSTANT const
#define SHARED __shared__
#define SHARED_MEM
#define RESTRICT __restrict__
#define BARRIER() __syncthreads()

// half as bits, converted by the hardware's cvt instructions: no cuda_fp16.h, which NVRTC only
// finds where the CUDA toolkit's headers are installed. A struct, so `a + b` on halves is an error
// rather than integer arithmetic.
struct duet_half {
  unsigned short bits;
};
typedef struct duet_half half;
inline __device__ float duet_load_half(const half* p) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(p->bits));
  return f;
}
inline __device__ void duet_store_half(half* p, float v) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
  p->bits = h;
}
#define LOAD_HALF(p) duet_load_half(p)
#define STORE_HALF(p, v) duet_store_half((p), (v))

#define DUET_AS_UINT(f) __float_as_uint(f)
#define DUET_AS_FLOAT(u) __uint_as_float(u)

// OpenCL C has both; NVRTC, without the host's math headers, has neither.
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif

#define DUET_PICK(d, v) ((d) == 0 ? (v).x : ((d) == 1 ? (v).y : (v).z))
#define LOCAL_ID(d) DUET_PICK(d, threadIdx)
#define GROUP_ID(d) DUET_PICK(d, blockIdx)
#define LOCAL_SIZE(d) DUET_PICK(d, blockDim)
#define NUM_GROUPS(d) DUET_PICK(d, gridDim)
#define GLOBAL_ID(d) ((size_t)GROUP_ID(d) * LOCAL_SIZE(d) + LOCAL_ID(d))
#define GLOBAL_SIZE(d) ((size_t)NUM_GROUPS(d) * LOCAL_SIZE(d))

#define ATOMIC_ADD_INT(p, v) atomicAdd((int*)(p), (int)(v))
#define ATOMIC_ADD_UINT(p, v) atomicAdd((unsigned int*)(p), (unsigned int)(v))
#define ATOMIC_MAX_INT(p, v) atomicMax((int*)(p), (int)(v))
#define ATOMIC_MIN_INT(p, v) atomicMin((int*)(p), (int)(v))

#elif defined(DUET_OPENCL)

// double is optional in OpenCL C 1.2; where the device has it, kernels may use it without asking.
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

// NVIDIA's OpenCL compiler takes inline PTX; the backend passes -D DUET_NV_ARCH=<major minor> for
// its devices only.
#if defined(DUET_NV_ARCH)
#define DUET_NV_PTX 1
#endif

#define KERNEL __kernel
#define REQD_GROUP_SIZE(x, y, z) __attribute__((reqd_work_group_size(x, y, z)))
#define DEVICE static inline
#define GLOBAL __global
#define CONSTANT __constant
#define SHARED __local
#define SHARED_MEM __local
#define RESTRICT restrict
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)

// half pointers need no extension for vload_half / vstore_half (the default rounding is to
// nearest even).
#define LOAD_HALF(p) vload_half(0, (p))
#define STORE_HALF(p, v) vstore_half((v), 0, (p))

#define DUET_AS_UINT(f) as_uint(f)
#define DUET_AS_FLOAT(u) as_float(u)

#define LOCAL_ID(d) ((uint)get_local_id(d))
#define GROUP_ID(d) ((uint)get_group_id(d))
#define LOCAL_SIZE(d) ((uint)get_local_size(d))
#define NUM_GROUPS(d) ((uint)get_num_groups(d))
#define GLOBAL_ID(d) get_global_id(d)
#define GLOBAL_SIZE(d) get_global_size(d)

#define ATOMIC_ADD_INT(p, v) atomic_add((volatile __global int*)(p), (int)(v))
#define ATOMIC_ADD_UINT(p, v) atomic_add((volatile __global uint*)(p), (uint)(v))
#define ATOMIC_MAX_INT(p, v) atomic_max((volatile __global int*)(p), (int)(v))
#define ATOMIC_MIN_INT(p, v) atomic_min((volatile __global int*)(p), (int)(v))

#else
#error "duet: compile dialect sources through duet, which defines DUET_CUDA or DUET_OPENCL"
#endif

// bfloat16 as bits on both backends, converted by integer arithmetic: neither needs a header or an
// extension, and the result is the same bits everywhere. A struct, so `a + b` on bfloat16 values is
// an error rather than integer arithmetic. The macros take any address space's pointer (OpenCL C
// 1.2 has no generic one).
struct duet_bfloat16 {
  ushort bits;
};
typedef struct duet_bfloat16 bfloat16;
DEVICE float duet_bfloat16_to_float(const ushort b) { return DUET_AS_FLOAT((uint)b << 16); }
// Round to nearest even by adding just under half a unit of the last kept place, plus its lowest
// bit; a carry runs into the exponent and past the largest value into infinity, as it should. NaN
// keeps its sign and top mantissa bits and is made quiet, so no dropped bit can make it infinity.
DEVICE ushort duet_float_to_bfloat16(const float v) {
  const uint u = DUET_AS_UINT(v);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
  return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
#define LOAD_BFLOAT16(p) duet_bfloat16_to_float((p)->bits)
#define STORE_BFLOAT16(p, v) ((p)->bits = duet_float_to_bfloat16((float)(v)))

// Complex numbers (see the header comment), written once for both precisions: DUET_COMPLEX(C, R)
// defines the functions of C, whose parts are R. Only the C99 math functions both backends have
// for R are used.
#define DUET_COMPLEX(C, R)                                                                           \
  DEVICE C C##_make(const R re, const R im) {                                                        \
    C z;                                                                                             \
    z.re = re;                                                                                       \
    z.im = im;                                                                                       \
    return z;                                                                                        \
  }                                                                                                  \
  DEVICE R C##_real(const C a) { return a.re; }                                                      \
  DEVICE R C##_imag(const C a) { return a.im; }                                                      \
  DEVICE C C##_add(const C a, const C b) { return C##_make(a.re + b.re, a.im + b.im); }              \
  DEVICE C C##_sub(const C a, const C b) { return C##_make(a.re - b.re, a.im - b.im); }              \
  DEVICE C C##_neg(const C a) { return C##_make(-a.re, -a.im); }                                     \
  DEVICE C C##_conj(const C a) { return C##_make(a.re, -a.im); }                                     \
  DEVICE int C##_eq(const C a, const C b) { return a.re == b.re && a.im == b.im; }                   \
  DEVICE int C##_ne(const C a, const C b) { return a.re != b.re || a.im != b.im; }                   \
  DEVICE C C##_mul(const C a, const C b) {                                                           \
    return C##_make(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);                           \
  }                                                                                                  \
  /* Smith's division: the divisor's smaller part is divided by its larger first, so neither         \
     |b|^2 nor any product of two large parts is formed. A zero divisor divides by |b.re| (0),       \
     giving infinities or NaN as the real division would. */                                         \
  DEVICE C C##_div(const C a, const C b) {                                                           \
    const R ar = fabs(b.re), ai = fabs(b.im);                                                        \
    if (ar >= ai) {                                                                                  \
      if (ar == 0 && ai == 0) return C##_make(a.re / ar, a.im / ar);                                 \
      const R r = b.im / b.re, d = b.re + b.im * r;                                                  \
      return C##_make((a.re + a.im * r) / d, (a.im - a.re * r) / d);                                 \
    }                                                                                                \
    const R r = b.re / b.im, d = b.im + b.re * r;                                                    \
    return C##_make((a.re * r + a.im) / d, (a.im * r - a.re) / d);                                   \
  }                                                                                                  \
  DEVICE R C##_abs(const C a) { return hypot(a.re, a.im); }                                          \
  /* A real argument keeps its exact result (and no inf * 0 makes a NaN of it). */                   \
  DEVICE C C##_exp(const C a) {                                                                      \
    const R m = exp(a.re);                                                                           \
    if (a.im == 0) return C##_make(m, a.im);                                                         \
    return C##_make(m * cos(a.im), m * sin(a.im));                                                   \
  }                                                                                                  \
  DEVICE C C##_log(const C a) { return C##_make(log(C##_abs(a)), atan2(a.im, a.re)); }               \
  /* From the larger of |a.re| and |a|, so the root of a negative real is exact; the sign of the     \
     imaginary part picks the branch, as C99's csqrt. */                                             \
  DEVICE C C##_sqrt(const C a) {                                                                     \
    if (a.re == 0 && a.im == 0) return C##_make((R)0, a.im);                                         \
    if (fabs(a.im) == (R)INFINITY) return C##_make((R)INFINITY, a.im);                               \
    const R t = sqrt((fabs(a.re) + C##_abs(a)) * (R)0.5);                                            \
    if (a.re >= 0) return C##_make(t, a.im / (2 * t));                                               \
    return C##_make(fabs(a.im) / (2 * t), copysign(t, a.im));                                        \
  }                                                                                                  \
  DEVICE C C##_sin(const C a) { return C##_make(sin(a.re) * cosh(a.im), cos(a.re) * sinh(a.im)); }   \
  DEVICE C C##_cos(const C a) { return C##_make(cos(a.re) * cosh(a.im), -(sin(a.re) * sinh(a.im))); }\
  /* A real argument keeps its real result (cosh(x) * 0 would be NaN for an infinite x). */          \
  DEVICE C C##_sinh(const C a) {                                                                     \
    if (a.im == 0) return C##_make(sinh(a.re), a.im);                                                \
    return C##_make(sinh(a.re) * cos(a.im), cosh(a.re) * sin(a.im));                                 \
  }                                                                                                  \
  DEVICE C C##_cosh(const C a) {                                                                     \
    if (a.im == 0) return C##_make(cosh(a.re), copysign((R)0, a.re) * a.im);                         \
    return C##_make(cosh(a.re) * cos(a.im), sinh(a.re) * sin(a.im));                                 \
  }                                                                                                  \
  /* Kahan's form (t = tan(y), s = sinh(x)): no difference of near-equal values; past |x| = 22       \
     tanh(x) is 1 in double precision and the imaginary part decays as exp(-2|x|), formed so         \
     that nothing overflows. */                                                                      \
  DEVICE C C##_tanh(const C a) {                                                                     \
    if (a.im == 0) return C##_make(tanh(a.re), a.im);                                                \
    if (fabs(a.re) > (R)22) {                                                                        \
      const R e = exp(-2 * fabs(a.re));                                                              \
      return C##_make(copysign((R)1, a.re), 4 * sin(a.im) * cos(a.im) * e);                          \
    }                                                                                                \
    const R t = tan(a.im), b = 1 + t * t, s = sinh(a.re), d = 1 + b * s * s;                         \
    return C##_make(b * sqrt(1 + s * s) * s / d, t / d);                                             \
  }                                                                                                  \
  /* tan(z) = -i tanh(iz). */                                                                        \
  DEVICE C C##_tan(const C a) {                                                                      \
    const C t = C##_tanh(C##_make(-a.im, a.re));                                                     \
    return C##_make(t.im, -t.re);                                                                    \
  }                                                                                                  \
  /* exp(z) - 1 with cos(y) - 1 as -2 sin^2(y/2), so small arguments keep their digits. */           \
  DEVICE C C##_expm1(const C a) {                                                                    \
    if (a.im == 0) return C##_make(expm1(a.re), a.im);                                               \
    const R h = sin(a.im / 2);                                                                       \
    return C##_make(expm1(a.re) * cos(a.im) - 2 * h * h, exp(a.re) * sin(a.im));                     \
  }                                                                                                  \
  /* log(1 + z): |1 + z|^2 - 1 = 2x + x^2 + y^2 goes to log1p while z is small. */                   \
  DEVICE C C##_log1p(const C a) {                                                                    \
    const R x = a.re, y = a.im;                                                                      \
    if (fabs(x) < (R)0.5 && fabs(y) < (R)0.5)                                                        \
      return C##_make(log1p(x * (2 + x) + y * y) / 2, atan2(y, 1 + x));                              \
    return C##_make(log(hypot(1 + x, y)), atan2(y, 1 + x));                                          \
  }                                                                                                  \
  DEVICE C C##_log2(const C a) {                                                                     \
    const C l = C##_log(a);                                                                          \
    return C##_make(l.re * (R)1.4426950408889634, l.im * (R)1.4426950408889634);                     \
  }                                                                                                  \
  DEVICE C C##_log10(const C a) {                                                                    \
    const C l = C##_log(a);                                                                          \
    return C##_make(l.re * (R)0.4342944819032518, l.im * (R)0.4342944819032518);                     \
  }                                                                                                  \
  /* asinh is odd and commutes with conj: computed for w = |x| + i|y| and the signs put back.        \
     asinh(w) = log1p(w + w^2 / (sqrt(w^2 + 1) + 1)), with w^2 + 1 = x^2 + (1 - y)(1 + y) + 2ixy     \
     (no cancellation near +-i); past 1e8, log(2w). The real axis and the imaginary one up to        \
     +-i, exactly as the real functions give them. */                                                \
  DEVICE C C##_asinh(const C a) {                                                                    \
    if (a.im == 0) return C##_make(asinh(a.re), a.im);                                               \
    if (a.re == 0 && fabs(a.im) <= 1) return C##_make(a.re, asin(a.im));                             \
    const R x = fabs(a.re), y = fabs(a.im);                                                          \
    C r;                                                                                             \
    if (x > (R)1e8 || y > (R)1e8) {                                                                  \
      r = C##_log(C##_make(x, y));                                                                   \
      r.re += (R)0.6931471805599453;                                                                 \
    } else {                                                                                         \
      const C w = C##_make(x, y), w2 = C##_make((x - y) * (x + y), 2 * x * y);                       \
      const C s = C##_sqrt(C##_make(x * x + (1 - y) * (1 + y), 2 * x * y));                          \
      r = C##_log1p(C##_add(w, C##_div(w2, C##_make(s.re + 1, s.im))));                              \
    }                                                                                                \
    return C##_make(copysign(r.re, a.re), copysign(r.im, a.im));                                     \
  }                                                                                                  \
  /* asin(z) = -i asinh(iz). */                                                                      \
  DEVICE C C##_asin(const C a) {                                                                     \
    const C t = C##_asinh(C##_make(-a.im, a.re));                                                    \
    return C##_make(t.im, -t.re);                                                                    \
  }                                                                                                  \
  DEVICE C C##_acos(const C a) {                                                                     \
    if (a.im == 0 && fabs(a.re) <= 1) return C##_make(acos(a.re), -a.im);                            \
    const C t = C##_asin(a);                                                                         \
    return C##_make((R)1.5707963267948966 - t.re, -t.im);                                            \
  }                                                                                                  \
  /* acosh(z) = +-i acos(z), the sign that makes the real part >= 0; the imaginary part takes y's. */\
  DEVICE C C##_acosh(const C a) {                                                                    \
    const C t = C##_acos(a);                                                                         \
    return C##_make(fabs(t.im), copysign(t.re, a.im));                                               \
  }                                                                                                  \
  /* atanh is odd: the real part for |x|, 0.25 log1p(4|x| / ((1 - |x|)^2 + y^2)); the imaginary      \
     0.5 atan2(2y, (1 - |x|)(1 + |x|) - y^2). Past 1e8: 1/z and +-pi/2. */                           \
  DEVICE C C##_atanh(const C a) {                                                                    \
    if (a.im == 0 && fabs(a.re) <= 1) return C##_make(atanh(a.re), a.im);                            \
    if (a.re == 0) return C##_make(a.re, atan(a.im));                                                \
    const R x = fabs(a.re), y = a.im;                                                                \
    if (x > (R)1e8 || fabs(y) > (R)1e8) {                                                            \
      const C r = C##_div(C##_make((R)1, (R)0), C##_make(x, y));                                     \
      return C##_make(copysign(r.re, a.re), copysign((R)1.5707963267948966, y));                     \
    }                                                                                                \
    const R re = log1p(4 * x / ((1 - x) * (1 - x) + y * y)) / 4;                                     \
    return C##_make(copysign(re, a.re), atan2(2 * y, (1 - x) * (1 + x) - y * y) / 2);                \
  }                                                                                                  \
  /* atan(z) = -i atanh(iz). */                                                                      \
  DEVICE C C##_atan(const C a) {                                                                     \
    const C t = C##_atanh(C##_make(-a.im, a.re));                                                    \
    return C##_make(t.im, -t.re);                                                                    \
  }                                                                                                  \
  /* z / |z|; 0 for 0, NaN for a NaN part (the array API's sign). */                                 \
  DEVICE C C##_sign(const C a) {                                                                     \
    if (a.re != a.re || a.im != a.im) return C##_make((R)NAN, (R)NAN);                               \
    const R m = C##_abs(a);                                                                          \
    if (m == 0) return C##_make((R)0, (R)0);                                                         \
    return C##_make(a.re / m, a.im / m);                                                             \
  }                                                                                                  \
  DEVICE C C##_rint(const C a) { return C##_make(rint(a.re), rint(a.im)); }                          \
  /* a^b as NumPy's: b = 0 gives 1; 0 to a positive real power 0, to any other NaN; an integer       \
     power below 100 by repeated squaring (exact where the products are); else exp(b log a). */      \
  DEVICE C C##_pow(const C a, const C b) {                                                           \
    if (b.re == 0 && b.im == 0) return C##_make((R)1, (R)0);                                         \
    if (a.re == 0 && a.im == 0) {                                                                    \
      if (b.re > 0 && b.im == 0) return C##_make((R)0, (R)0);                                        \
      return C##_make((R)NAN, (R)NAN);                                                               \
    }                                                                                                \
    if (b.im == 0 && b.re == rint(b.re) && fabs(b.re) < 100) {                                       \
      int n = (int)fabs(b.re);                                                                       \
      C r = C##_make((R)1, (R)0), x = a;                                                             \
      for (; n != 0; n >>= 1) {                                                                      \
        if (n & 1) r = C##_mul(r, x);                                                                \
        x = C##_mul(x, x);                                                                           \
      }                                                                                              \
      return b.re < 0 ? C##_div(C##_make((R)1, (R)0), r) : r;                                        \
    }                                                                                                \
    return C##_exp(C##_mul(b, C##_log(a)));                                                          \
  }

struct duet_cfloat {
  float re;
  float im;
};
typedef struct duet_cfloat cfloat;
DUET_COMPLEX(cfloat, float)
#if defined(DUET_CUDA) || defined(cl_khr_fp64)
struct duet_cdouble {
  double re;
  double im;
};
typedef struct duet_cdouble cdouble;
DUET_COMPLEX(cdouble, double)
#endif

// Type-generic element access (see the header comment). DUET_CAT expands T before pasting.
#define DUET_CAT2(a, b) a##b
#define DUET_CAT(a, b) DUET_CAT2(a, b)
#define LOAD(T, p) DUET_CAT(DUET_LOAD_, T)(p)
#define STORE(T, p, v) DUET_CAT(DUET_STORE_, T)((p), (v))
#define DUET_LOAD_half(p) LOAD_HALF(p)
#define DUET_STORE_half(p, v) STORE_HALF(p, v)
#define DUET_LOAD_bfloat16(p) LOAD_BFLOAT16(p)
#define DUET_STORE_bfloat16(p, v) STORE_BFLOAT16(p, v)
#define DUET_LOAD_float(p) (*(p))
#define DUET_STORE_float(p, v) (*(p) = (float)(v))
#define DUET_LOAD_cfloat(p) (*(p))
#define DUET_STORE_cfloat(p, v) (*(p) = (v))
#define DUET_LOAD_cdouble(p) (*(p))
#define DUET_STORE_cdouble(p, v) (*(p) = (v))
#define DUET_LOAD_double(p) (*(p))
#define DUET_STORE_double(p, v) (*(p) = (double)(v))
#define DUET_LOAD_int(p) (*(p))
#define DUET_STORE_int(p, v) (*(p) = (int)(v))
#define DUET_LOAD_uint(p) (*(p))
#define DUET_STORE_uint(p, v) (*(p) = (uint)(v))
#define DUET_LOAD_long(p) (*(p))
#define DUET_STORE_long(p, v) (*(p) = (long)(v))
#define DUET_LOAD_ulong(p) (*(p))
#define DUET_STORE_ulong(p, v) (*(p) = (ulong)(v))
#define DUET_LOAD_short(p) (*(p))
#define DUET_STORE_short(p, v) (*(p) = (short)(v))
#define DUET_LOAD_ushort(p) (*(p))
#define DUET_STORE_ushort(p, v) (*(p) = (ushort)(v))
#define DUET_LOAD_char(p) (*(p))
#define DUET_STORE_char(p, v) (*(p) = (char)(v))
#define DUET_LOAD_uchar(p) (*(p))
#define DUET_STORE_uchar(p, v) (*(p) = (uchar)(v))
