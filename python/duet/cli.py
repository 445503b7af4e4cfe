"""`python -m duet devices` and `python -m duet run`, mirroring the C++ `duet` command (tools/):

  devices   a table of every device, a line per unavailable backend with the reason, and the device
            Device() picks under the current DUET_BACKEND / DUET_DEVICE
  run       vector_add, multiply, matmul, one heat step and many, on one device: each run once to
            warm up (and compile), checked against NumPy in double precision, then timed with
            events (median); one table with time, throughput, error, limit and OK/FAIL; exit code 1
            if any fails
"""

import argparse
import os
import statistics
import sys

import numpy as np

from . import _duet, reference
from .errors import Error

FLOAT_EPS = 2.0 ** -24  # float32 unit roundoff


def _table(headers, rows, right):
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    def line(cells):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    out = [line(headers), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out)


def devices_command():
    infos = _duet.devices()
    rows = []
    for i in infos:
        vendor = i.vendor if not i.platform or i.platform == i.vendor else f"{i.vendor} / {i.platform}"
        rows.append([i.id, i.kind, i.name, vendor, f"{i.memory_bytes / 2**30:.1f}", str(i.compute_units),
                     str(i.max_group_size), "yes" if i.supports_double else "no"])
    if rows:
        print(_table(["id", "kind", "name", "vendor / platform", "memory GiB", "units", "max group", "double"],
                     rows, right={4, 5, 6}))
    else:
        print("No devices found.")
    unavailable = [b for b in _duet.backends() if not b.available]
    if unavailable:
        print()
    for b in unavailable:
        print(f"{b.name}: unavailable: {b.reason}")
    env = ", ".join(f"{n}={os.environ[n]}" if n in os.environ else f"{n} unset" for n in ("DUET_BACKEND", "DUET_DEVICE"))
    try:
        d = _duet.Device()
        picked = f"{d.id} ({d.name})"
    except Error as e:
        picked = f"nothing: {e}"
    print(f"\nDevice() with {env} picks {picked}")
    return 0


def _time(queue, runs, enqueue):
    times = []
    for _ in range(runs):
        start = queue.record()
        enqueue()
        end = queue.record()
        times.append(_duet.elapsed_ms(start, end))
    return statistics.median(times)


def run_command(spec, quick, runs):
    device = _duet.Device(spec)
    q = device.queue()
    cpu = device.kind == "cpu"
    n, mm, side, steps = ((1 << 20, 256, 512, 20) if quick else
                          (1 << 22, 512, 1024, 100) if cpu else (1 << 24, 2048, 4096, 100))
    runs = runs or (3 if quick else 5 if cpu else 10)
    rng = np.random.default_rng(1)
    print(f"duet {_duet.__version__} on {device.id}: {device.name} ({device.kind}, {device.backend})")
    rows, failed = [], 0

    def add(name, size, ms, work, flops, error, limit):
        nonlocal failed
        ok = bool(error <= limit)
        failed += not ok
        rate = f"{work / ms / 1e6:.1f} GFLOP/s" if flops else f"{work / ms / 1e6:.1f} GB/s"
        rows.append([name, size, str(runs), f"{ms:.3f}", rate, f"{error:.1e}", f"{limit:.1e}", "OK" if ok else "FAIL"])

    a = rng.uniform(-1, 1, n).astype(np.float32)
    b = rng.uniform(-1, 1, n).astype(np.float32)
    da, db = _duet.asarray(a, device=device, queue=q), _duet.asarray(b, device=device, queue=q)
    dc = _duet.empty(n, "float32", device)
    for name, fn, ref, limit in (("vector_add", _duet.vector_add, a.astype(np.float64) + b, 4 * FLOAT_EPS),
                                 ("multiply", _duet.multiply, a.astype(np.float64) * b, 2 * FLOAT_EPS)):
        fn(da, db, dc, queue=q)
        err = float(np.max(np.abs(dc.get(queue=q) - ref)))
        ms = _time(q, runs, lambda: fn(da, db, dc, queue=q))
        add(name, f"n={n}", ms, 3 * 4 * n, False, err, limit)

    A = rng.uniform(-1, 1, (mm, mm)).astype(np.float32)
    B = rng.uniform(-1, 1, (mm, mm)).astype(np.float32)
    dA, dB = _duet.asarray(A, device=device, queue=q), _duet.asarray(B, device=device, queue=q)
    dC = _duet._matmul_into(dA, dB, queue=q)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    scale = np.abs(A).astype(np.float64) @ np.abs(B)
    err = float(np.max(np.abs(dC.get(queue=q) - ref) / scale))
    ms = _time(q, runs, lambda: _duet._matmul_into(dA, dB, out=dC, queue=q))
    add("matmul", f"{mm}x{mm}x{mm}", ms, 2.0 * mm ** 3, True, err, 1.2e-4)

    u0 = np.zeros((side, side), np.float32)
    yy, xx = np.mgrid[0:side, 0:side]
    u0[(xx - side / 2) ** 2 + (yy - side / 2) ** 2 < (side / 4) ** 2] = 1.0
    du, dv = _duet.asarray(u0, device=device, queue=q), _duet.empty((side, side), "float32", device)
    _duet.heat_step(du, dv, 0.24, queue=q)
    err = float(np.max(np.abs(dv.get(queue=q) - reference.heat(u0, 0.24, 1))))
    ms = _time(q, runs, lambda: _duet.heat_step(du, dv, 0.24, queue=q))
    add("heat_step", f"{side}x{side}", ms, 2 * 4 * side * side, False, err, 8 * FLOAT_EPS)
    _duet.heat(du, steps, 0.24, scratch=dv, queue=q)
    err = float(np.max(np.abs(du.get(queue=q) - reference.heat(u0, 0.24, steps))))
    du.set(u0, queue=q)
    ms = _time(q, max(1, runs // 2), lambda: _duet.heat(du, steps, 0.24, scratch=dv, queue=q))
    add("heat", f"{side}x{side}, {steps} steps", ms, 2 * 4 * side * side * steps, False, err, steps * 8 * FLOAT_EPS)

    print(_table(["kernel", "size", "runs", "time ms", "throughput", "max error", "limit", "result"], rows,
                 right={2, 3, 4, 5, 6}))
    print("\nmax error: absolute, except matmul: relative to sum |a_ik b_kj| per entry")
    print(f"{len(rows) - failed} of {len(rows)} kernels OK" if failed else f"all {len(rows)} kernels OK")
    return 1 if failed else 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m duet", description="duet's devices and shared kernels")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("devices", help="list every device and what Device() picks")
    run = sub.add_parser("run", help="run and check the shared kernels on one device (the default)")
    for p in (parser, run):
        p.add_argument("--device", default=None, help="a device spec: cuda:0, opencl:1, ... (default: Device())")
        p.add_argument("--quick", action="store_true", help="small sizes")
        p.add_argument("--runs", type=int, default=0, help="timed runs per kernel")
    args = parser.parse_args(argv)
    try:
        if args.command == "devices":
            return devices_command()
        return run_command(args.device, args.quick, args.runs)
    except Error as e:
        print(f"duet: error: {e}", file=sys.stderr)
        if getattr(e, "log", ""):
            print(e.log, file=sys.stderr)
        return 1
