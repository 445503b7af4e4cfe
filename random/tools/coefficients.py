"""Prints the polynomial coefficients of duet's portable log and sin/cos (random/kernels/random.duet,
random/src/philox_host.cpp). Run once by hand; its output is pasted into both files, so the device and
the host reference use the same constants. Needs mpmath (pip install mpmath).

Why our own functions: the normal generator (Box-Muller) needs log, sqrt, sin and cos, whose library
versions differ in their last bits between NVRTC, each OpenCL driver and glibc. These polynomials,
evaluated with correctly rounded operations only (fma, add, multiply), give the same bits everywhere.

  log1p(f) / f   on [sqrt(1/2) - 1, sqrt(2) - 1]: Chebyshev interpolant, degree 10 (float), 22 (double)
  sin(pi/2 t)/t  and cos(pi/2 t) as polynomials in t^2 on [-1/2, 1/2]: Taylor series, enough terms
"""
import mpmath as mp

mp.mp.dps = 60


def chebyshev_monomial(g, a, b, degree):
    """Coefficients c0..cd (lowest first) of the Chebyshev interpolant of g on [a, b] in powers of x."""
    n = degree + 1
    nodes = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / n) for k in range(n)]
    xs = [(b - a) / 2 * t + (b + a) / 2 for t in nodes]
    # Solve the Vandermonde system in high precision: exact enough at this size and precision.
    A = mp.matrix([[x ** j for j in range(n)] for x in xs])
    y = mp.matrix([g(x) for x in xs])
    return list(mp.lu_solve(A, y))


def log_ratio(x):
    return mp.log1p(x) / x if x != 0 else mp.mpf(1)


a, b = mp.sqrt(mp.mpf(1) / 2) - 1, mp.sqrt(2) - 1
half_pi = mp.pi / 2
for name, degree, digits in (("float", 10, 9), ("double", 22, 17)):
    log_c = chebyshev_monomial(log_ratio, a, b, degree)
    sin_terms, cos_terms = (6, 7) if name == "float" else (10, 10)
    sin_c = [(-1) ** k * half_pi ** (2 * k + 1) / mp.factorial(2 * k + 1) for k in range(sin_terms)]
    cos_c = [(-1) ** k * half_pi ** (2 * k) / mp.factorial(2 * k) for k in range(cos_terms)]
    worst = max(abs(sum(c * x ** j for j, c in enumerate(log_c)) - log_ratio(x))
                for x in [a + (b - a) * i / 2000 for i in range(2001)])
    print(f"// {name}: log1p(f)/f interpolation error {mp.nstr(worst, 3)}")
    for label, coeffs in (("LOG", log_c), ("SIN", sin_c), ("COS", cos_c)):
        # Highest power first, the order Horner's scheme uses.
        print(f"{label} ({name}):", ", ".join(mp.nstr(c, digits + 3, strip_zeros=False) for c in reversed(coeffs)))
