"""`python -m duet devices` and `python -m duet run`, mirroring the C++ `duet` command (tools/):

  devices   a table of every device, a line per unavailable backend with the reason, and the device
            Device() picks under the current DUET_BACKEND / DUET_DEVICE
  run       the built-in kernels (vector_add, multiply, matmul, one heat step and many) on one
            device: each run once to warm up (and compile), checked against the double-precision CPU
            reference, then timed with events (median); one table with time, throughput, error,
            limit and OK/FAIL; exit code 1 if any fails. The cases are the C++ table's (builtins/,
            the one `duet run` runs, bound as _duet._run_builtin): only the formatting is here.
"""

import argparse
import os
import sys

from . import _duet
from .errors import Error


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


def run_command(spec, quick, runs):
    device = _duet.Device(spec)
    print(f"duet {_duet.__version__} on {device.id}: {device.name} ({device.kind}, {device.backend})")
    rows, notes, failed = [], [], 0
    for name in _duet._builtin_kernels():
        row = _duet._run_builtin(name, device, quick, runs)
        failed += not row["ok"]
        if row["failure"]:
            rows.append([name, row["size"], "-", "-", "-", "-", "-", "FAIL (error)"])
            notes.append(f"{name}: {row['failure']}")
            continue
        rate = f"{row['rate']:.1f} {row['unit']}" if row["median_ms"] > 0 else "-"
        rows.append([name, row["size"], str(row["runs"]), f"{row['median_ms']:.3f}", rate, f"{row['error']:.1e}",
                     f"{row['tolerance']:.1e}", "OK" if row["ok"] else "FAIL"])

    print(_table(["kernel", "size", "runs", "time ms", "throughput", "max error", "limit", "result"], rows,
                 right={2, 3, 4, 5, 6}))
    print("\n" + _duet._builtin_error_note())
    for note in notes:
        print(note)
    print(f"{len(rows) - failed} of {len(rows)} kernels OK" if failed else f"all {len(rows)} kernels OK")
    return 1 if failed else 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m duet", description="duet's devices and built-in kernels")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("devices", help="list every device and what Device() picks")
    run = sub.add_parser("run", help="run and check the built-in kernels on one device (the default)")
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
