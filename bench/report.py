#!/usr/bin/env python3
"""Merges duet benchmark JSON (duet bench --json) and peer JSON (compare_cupy.py,
compare_pyopencl.py) into one Markdown report, bench/RESULTS.md by default:

- for every device and backend duet ran on: each kernel and size with duet's time and throughput,
  its ratio to the limit, and the peers measured on a device of the same name beside it (duet
  CUDA and duet OpenCL vs CuPy on the GPU; duet on PoCL vs the same kernels through PyOpenCL, and
  matmul vs numpy);
- OpenCL vs CUDA on the same GPU;
- the benchmark's targets, each PASS or MISS with the figures (n/a where nothing was measured).

Ratios "duet/peer" are speed ratios: above 1, duet is faster (for launches: fewer microseconds).
Several files for one device and backend (or one device and peer) are repeated runs: each row keeps
its fastest median, for duet and peers alike.

The part of an existing report from the line KEPT_MARK on is hand-kept (the measurements behind the
code's constants, keyed by the constant) and is carried over when the file is written again.

Usage: python3 bench/report.py FILE.json... [--out bench/RESULTS.md] [--plot results.png]
Only the standard library is needed.
"""
import argparse
import json
import math
import os
import re
import sys

KEPT_MARK = "<!-- kept: report.py carries what follows over when it writes this file again -->"

KERNEL_ORDER = ["copy", "copy_kernel", "vector_add", "multiply", "elementwise", "reduction", "matmul", "heat_step", "heat",
                "launch", "graph_launch", "heat_graph", "array_launch", "array_axpy", "array_add_row", "array_sum_rows", "array_sum_cols", "array_sum_all",
                "array_slice"]
PEER_NAMES = {"cupy": "CuPy", "pyopencl": "PyOpenCL", "numpy": "numpy"}


def simplified(name):
    return re.sub(r"\s+", "", (name or "").lower())


def finite(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def fmt(x, digits=None):
    if not finite(x):
        return "-"
    if digits is None:
        digits = 1 if abs(x) >= 100 else (2 if abs(x) >= 1 else 3)
    return "%.*f" % (digits, x)


def fmt_err(x):
    return "-" if not finite(x) else ("0" if x == 0 else "%.1e" % x)


def speed_ratio(a, b):
    """How much faster row a is than row b (>1: a faster)."""
    if not a or not b or not finite(a.get("value")) or not finite(b.get("value")) or b["value"] == 0:
        return float("nan")
    if a.get("unit") in ("us/launch", "us/op"):
        return b["value"] / a["value"] if a["value"] else float("nan")
    return a["value"] / b["value"]


def size_order(size):
    numbers = [int(x) for x in re.findall(r"\d+", size)]
    if size.startswith("n=2^"):
        return [2 ** numbers[1]] if len(numbers) > 1 else numbers
    return numbers


def row_order(row):
    k = row["kernel"]
    return (KERNEL_ORDER.index(k) if k in KERNEL_ORDER else 99, size_order(row["size"]))


def result_ok(row):
    return bool(row.get("ok")) and not row.get("failure")


class Data:
    def __init__(self, files):
        self.duet = []   # (file, doc, device entry)
        self.peers = []  # (file, doc)
        self.floors = []  # duet-launch-floor's rows (read_floors), when given
        for path in files:
            with open(path) as f:
                doc = json.load(f)
            tool = doc.get("tool", "")
            if tool == "duet-bench":
                for device in doc.get("devices", []):
                    self.duet.append((path, doc, device))
            elif tool.startswith("compare_"):
                self.peers.append((path, doc))
            else:
                raise SystemExit("%s: not a duet-bench or compare_* JSON file (tool=%r)" % (path, tool))
        self.merge_repeats()

    def merge_repeats(self):
        """Repeated runs (several files for one device and backend, or one device and peer tool):
        one entry each, every row the fastest of its medians, the same rule for duet and its peers.
        On a shared machine noise only slows a run down. A row keeps the ratio of the run it came
        from."""
        def faster(a, b):
            return b if (result_ok(b) and (not result_ok(a) or speed_ratio(b, a) > 1.0)) else a

        def merge_rows(groups):
            best = {}
            for rows in groups:
                for r in rows:
                    key = (r.get("impl", ""), r["kernel"], r["size"])
                    best[key] = faster(best[key], r) if key in best else r
            return list(best.values())

        merged, index = [], {}
        for path, doc, device in self.duet:
            key = (simplified(device["device"]["name"]), device["device"]["backend"])
            if key in index:
                first = merged[index[key]][2]
                first["results"] = merge_rows([first["results"], device["results"]])
                first["copy_gbs"] = max(first.get("copy_gbs") or 0, device.get("copy_gbs") or 0)
                first["repeats"] = first.get("repeats", 1) + 1
            else:
                index[key] = len(merged)
                merged.append((path, doc, dict(device)))
        self.duet = merged
        peers, index = [], {}
        for path, doc in self.peers:
            key = (simplified(doc.get("device", {}).get("name")), doc.get("tool"))
            if key in index:
                first = peers[index[key]][1]
                first["results"] = merge_rows([first["results"], doc.get("results", [])])
                first["repeats"] = first.get("repeats", 1) + 1
            else:
                index[key] = len(peers)
                peers.append((path, dict(doc)))
        self.peers = peers

    def peer_rows(self, device_name):
        """{impl: {(kernel, size): row}} for peers measured on a device of this name."""
        out = {}
        for _, doc in self.peers:
            if simplified(doc.get("device", {}).get("name")) != simplified(device_name):
                continue
            for row in doc.get("results", []):
                out.setdefault(row.get("impl", "peer"), {})[(row["kernel"], row["size"])] = row
        return out

    def duet_device(self, name, backend):
        for _, _, device in self.duet:
            info = device["device"]
            if simplified(info["name"]) == simplified(name) and info["backend"] == backend:
                return device
        return None


def label_of(device):
    info = device["device"]
    return "%s (%s, %s)" % (info["id"], info["backend"].upper() if info["backend"] == "cuda" else "OpenCL",
                            info["platform"])


def device_table(data, device, out):
    info = device["device"]
    peers = data.peer_rows(info["name"])
    impls = [i for i in ("cupy", "pyopencl", "numpy") if i in peers] + sorted(
        i for i in peers if i not in ("cupy", "pyopencl", "numpy"))
    out.append("### %s: %s\n" % (label_of(device), info["name"]))
    facts = ["%s sizes" % device.get("mode", "?"),
             "copy bandwidth %s GB/s (%s)" % (fmt(device.get("copy_gbs")), device.get("copy_source", "?"))]
    if finite(device.get("fp32_peak_gflops")):
        facts.append("FP32 peak %s GFLOP/s (datasheet)" % fmt(device["fp32_peak_gflops"], 0))
    if device.get("matmul_params"):
        facts.append("matmul %s" % device["matmul_params"])
    facts.append("driver %s" % info.get("driver", "?"))
    if device.get("repeats"):
        facts.append("best of %d runs per row" % device["repeats"])
    out.append(", ".join(facts) + "\n")
    head = ["kernel", "size", "time ms", "duet", "limit", "duet/limit"]
    for impl in impls:
        head += [PEER_NAMES.get(impl, impl), "duet/" + PEER_NAMES.get(impl, impl)]
    head += ["max error", "result"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "|".join("---" if h in ("kernel", "size", "limit", "result") else "--:" for h in head) + "|")
    rows = sorted(device.get("results", []), key=row_order)
    keys = {(r["kernel"], r["size"]) for r in rows}
    for row in rows:
        key = (row["kernel"], row["size"])
        value = "%s %s" % (fmt(row.get("value")), row.get("unit", "")) if finite(row.get("value")) else "-"
        limit = "%s %s" % (row.get("limit_name", ""), fmt(row.get("limit"))) if finite(row.get("limit")) else "-"
        cells = [row["kernel"], row["size"], fmt(row.get("median_ms"), 4 if (row.get("median_ms") or 0) < 10 else 2),
                 value, limit, fmt(row.get("ratio"), 3)]
        for impl in impls:
            peer = peers[impl].get(key)
            if peer and finite(peer.get("value")):
                cells += [fmt(peer["value"]) + ("" if result_ok(peer) else " (FAIL)"), fmt(speed_ratio(row, peer), 2)]
            elif peer:
                cells += ["FAIL", "-"]
            else:
                cells += ["", ""]
        result = "skipped" if row.get("skipped") else ("OK" if result_ok(row) else "FAIL")
        if row.get("failure"):
            result += ": " + row["failure"][:120].replace("|", "/").replace("\n", " ")
        cells += [fmt_err(row.get("max_error")), result]
        out.append("| " + " | ".join(cells) + " |")
    # Peer rows with no duet row (a size duet skipped or did not run).
    for impl in impls:
        for key, peer in sorted(peers[impl].items(), key=lambda kv: row_order(kv[1])):
            if key not in keys:
                out.append("| %s | %s | | (no duet row) | | | %s: %s %s |" % (
                    key[0], key[1], PEER_NAMES.get(impl, impl), fmt(peer.get("value")), peer.get("unit", "")))
    notes = [r for r in rows if r.get("note")]
    if notes:
        out.append("")
        for r in notes:
            out.append("- %s %s: %s" % (r["kernel"], r["size"], r["note"]))
    out.append("")


def cross_backend(data, out):
    names = []
    for _, _, device in data.duet:
        name = device["device"]["name"]
        if name not in names:
            names.append(name)
    for name in names:
        cuda, opencl = data.duet_device(name, "cuda"), data.duet_device(name, "opencl")
        if not cuda or not opencl:
            continue
        out.append("### OpenCL vs CUDA on %s\n" % name)
        out.append("| kernel | size | CUDA | OpenCL | OpenCL/CUDA |")
        out.append("|---|---|--:|--:|--:|")
        c_rows = {(r["kernel"], r["size"]): r for r in cuda["results"]}
        for row in sorted(opencl["results"], key=row_order):
            c = c_rows.get((row["kernel"], row["size"]))
            if not c:
                continue
            out.append("| %s | %s | %s %s | %s %s | %s |" % (
                row["kernel"], row["size"], fmt(c.get("value")), c.get("unit", ""), fmt(row.get("value")),
                row.get("unit", ""), fmt(speed_ratio(row, c), 3)))
        out.append("")


def n_of(size):
    m = re.match(r"n=2\^(\d+)$", size)
    return 2 ** int(m.group(1)) if m else None


def targets(data):
    """[(target, where, figure, status)] for the benchmark's targets."""
    checks = []

    def add(target, where, figure, ok):
        status = ok if isinstance(ok, str) else ("n/a" if ok is None else ("PASS" if ok else "MISS"))
        checks.append((target, where, figure, status))

    gpus = []
    for _, _, device in data.duet:
        if device["device"].get("kind", "").lower() == "gpu" and device.get("mode") != "smoke":
            gpus.append(device)
    for device in gpus:
        info = device["device"]
        where = "%s %s" % (info["id"], info["name"])
        rows = {(r["kernel"], r["size"]): r for r in device["results"]}
        peers = data.peer_rows(info["name"])
        # 1. vector_add, multiply at n >= 2^26: >= 95% of copy bandwidth.
        for kernel in ("vector_add", "multiply"):
            big = [r for r in device["results"] if r["kernel"] == kernel and (n_of(r["size"]) or 0) >= 2 ** 26]
            if not big:
                add("%s n>=2^26 >= 95%% of copy" % kernel, where, "not measured", None)
            for r in big:
                add("%s %s >= 95%% of copy" % (kernel, r["size"]), where,
                    "%s GB/s = %s of %s GB/s" % (fmt(r.get("value")), fmt(r.get("ratio"), 3), fmt(r.get("limit"))),
                    result_ok(r) and finite(r.get("ratio")) and r["ratio"] >= 0.95)
        # 2. matmul 4096^3, 8192^3 vs cuBLAS: >= 90% (CUDA), >= 85% (OpenCL); error < 1e-5.
        need = 0.90 if info["backend"] == "cuda" else 0.85
        for n in (4096, 8192):
            key = ("matmul", "%dx%dx%d" % (n, n, n))
            r, peer = rows.get(key), peers.get("cupy", {}).get(key)
            if not r:
                add("matmul %d^3 >= %d%% of cuBLAS" % (n, need * 100), where, "not measured", None)
                continue
            ratio = speed_ratio(r, peer) if peer else float("nan")
            add("matmul %d^3 >= %d%% of cuBLAS SGEMM" % (n, need * 100), where,
                "%s GFLOP/s = %s of cuBLAS %s" % (fmt(r.get("value")), fmt(ratio, 3),
                                                  fmt(peer.get("value")) if peer else "(no CuPy JSON)"),
                (result_ok(r) and ratio >= need) if finite(ratio) else None)
            add("matmul %d^3 relative error < 1e-5" % n, where,
                "norm-wise %s, max per entry %s (%s)" % (fmt_err(r.get("norm_error")), fmt_err(r.get("max_error")),
                                                         r.get("check", "")),
                finite(r.get("norm_error")) and r["norm_error"] < 1e-5 and result_ok(r))
        # 3. heat_step 8192^2 >= 90% of copy bandwidth.
        r = rows.get(("heat_step", "8192x8192"))
        add("heat_step 8192^2 >= 90% of copy", where,
            "%s GB/s = %s of copy" % (fmt(r.get("value")), fmt(r.get("ratio"), 3)) if r else "not measured",
            (result_ok(r) and finite(r.get("ratio")) and r["ratio"] >= 0.90) if r else None)
        # 4. heat with many steps >= 1.5x the one-step-per-pass limit, identical to single steps.
        many = [r for r in device["results"] if r["kernel"] == "heat"]
        for r in many:
            add("heat %s >= 1.5x one-step-per-pass" % r["size"], where,
                "%s Gcell/s = %sx of %s Gcell/s (copy/8)" % (fmt(r.get("value")), fmt(r.get("ratio"), 2),
                                                             fmt(r.get("limit"))),
                result_ok(r) and finite(r.get("ratio")) and r["ratio"] >= 1.5)
            same = r.get("identical_to_single_steps")
            add("heat %s identical to single steps" % r["size"], where,
                {True: "bitwise identical", False: "differs", None: "not checked"}[same], same)
        # 6. launch overhead <= 3 us on CUDA.
        if info["backend"] == "cuda":
            launch = [r for r in device["results"] if r["kernel"] == "launch"]
            floors = [f for f in data.floors if f.get("api") == "cuda"]
            floor_text = "".join("; driver floor %s us (block %s)" % (fmt(f.get("host_us_per_launch"), 2), f.get("block"))
                                 for f in floors)
            for r in launch:
                add("launch overhead <= 3 us (CUDA)", where,
                    "%s us per launch (%s%s)" % (fmt(r.get("value"), 2), r.get("note", ""), floor_text),
                    result_ok(r) and finite(r.get("value")) and r["value"] <= 3.0)
    # 5. OpenCL >= 90% of CUDA on every kernel on the same GPU.
    for device in gpus:
        info = device["device"]
        if info["backend"] != "opencl":
            continue
        cuda = data.duet_device(info["name"], "cuda")
        if not cuda:
            continue
        c_rows = {(r["kernel"], r["size"]): r for r in cuda["results"]}
        ratios = []
        for r in device["results"]:
            c = c_rows.get((r["kernel"], r["size"]))
            if c and r["kernel"] not in ("copy", "copy_kernel"):  # the built-in kernels
                ratios.append((speed_ratio(r, c), r["kernel"] + " " + r["size"]))
        bad = [(x, k) for x, k in ratios if not (finite(x) and x >= 0.90)]
        worst = min(ratios) if ratios else None
        figure = "worst %s (%s); %d of %d rows below 0.90%s" % (
            fmt(worst[0], 3) if worst else "-", worst[1] if worst else "-", len(bad), len(ratios),
            (": " + ", ".join("%s %s" % (k, fmt(x, 2)) for x, k in bad[:8])) if bad else "")
        add("OpenCL >= 90% of CUDA, every kernel", info["name"], figure, (not bad) if ratios else None)
    # 7. PoCL: the same kernels through PyOpenCL no faster than duet; matmul beside numpy.
    for _, _, device in data.duet:
        info = device["device"]
        if info.get("kind", "").lower() != "cpu" or device.get("mode") == "smoke":
            continue
        peers = data.peer_rows(info["name"])
        if "pyopencl" not in peers and "numpy" not in peers:
            continue  # a CPU measured without its peers (the GPU host's PoCL): nothing to check
        where = "%s %s" % (info["id"], info["name"])
        pyocl = peers.get("pyopencl", {})
        compared = []
        for r in device["results"]:
            p = pyocl.get((r["kernel"], r["size"]))
            if p and r["kernel"] != "copy" and result_ok(p):
                compared.append((speed_ratio(r, p), r["kernel"] + " " + r["size"]))
        slower = [(x, k) for x, k in compared if not (finite(x) and x >= 0.95)]
        add("PoCL: PyOpenCL no faster than duet (duet/PyOpenCL >= 0.95)", where,
            ("%d rows, worst %s (%s)" % (len(compared), fmt(min(compared)[0], 3), min(compared)[1]) if compared
             else "no PyOpenCL JSON") + ("; below: " + ", ".join("%s %s" % (k, fmt(x, 2)) for x, k in slower)
                                         if slower else ""),
            (not slower) if compared else None)
        numpy_rows = peers.get("numpy", {})
        parts = []
        for r in device["results"]:
            p = numpy_rows.get((r["kernel"], r["size"]))
            if p:
                parts.append("%s: %s vs %s GFLOP/s = %s" % (r["size"], fmt(r.get("value")), fmt(p.get("value")),
                                                             fmt(speed_ratio(r, p), 3)))
        add("PoCL: matmul beside numpy (duet/numpy)", where, "; ".join(parts) if parts else "no numpy rows",
            "reported" if parts else None)
    return checks


def cupy_summary(data):
    """One line per GPU backend: duet vs CuPy, geometric mean and range over the shared rows."""
    lines = []
    for _, _, device in data.duet:
        info = device["device"]
        cupy = data.peer_rows(info["name"]).get("cupy")
        if not cupy:
            continue
        ratios = []
        for r in device["results"]:
            p = cupy.get((r["kernel"], r["size"]))
            if p and r["kernel"] != "copy":
                x = speed_ratio(r, p)
                if finite(x) and x > 0:
                    ratios.append((x, r["kernel"] + " " + r["size"]))
        if ratios:
            geo = math.exp(sum(math.log(x) for x, _ in ratios) / len(ratios))
            lo, hi = min(ratios), max(ratios)
            lines.append("- duet %s vs CuPy on %s: geometric mean %s over %d rows; lowest %s (%s), highest %s (%s)"
                         % (info["backend"].upper() if info["backend"] == "cuda" else "OpenCL", info["name"],
                            fmt(geo, 3), len(ratios), fmt(lo[0], 3), lo[1], fmt(hi[0], 3), hi[1]))
    return lines


def read_floors(path):
    """The rows of duet-launch-floor's output; none without a file."""
    if not path or not os.path.exists(path):
        return []
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", help="duet-bench and compare_*.py JSON files")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS.md"))
    ap.add_argument("--plot", help="a PNG to link from the report (path relative to the report)")
    ap.add_argument("--note", action="append", default=[], help="a sentence for the top of the report; repeatable")
    ap.add_argument("--floor", help="duet-launch-floor's output (JSON lines): the drivers' own launch cost")
    args = ap.parse_args()
    data = Data(args.files)
    data.floors = read_floors(args.floor)

    out = ["# duet benchmark results", ""]
    dates = sorted({doc.get("date", "?") for _, doc, _ in data.duet} | {doc.get("date", "?") for _, doc in data.peers})
    commits = sorted({doc.get("commit", "?") for _, doc, _ in data.duet})
    hosts = sorted({doc.get("host", "?") for _, doc, _ in data.duet})
    out.append("- date: %s" % ", ".join(dates))
    out.append("- commit: %s" % ", ".join(commits))
    out.append("- hosts: %s" % ", ".join(hosts))
    for _, doc, device in data.duet:
        out.append("- device %s: %s (duet %s, %s sizes%s)" % (
            label_of(device), device["device"]["name"], doc.get("duet_version", "?"), device.get("mode"),
            (", best of %d runs per row" % device["repeats"]) if device.get("repeats") else ""))
    for path, doc in data.peers:
        v = doc.get("versions", {})
        out.append("- peer %s on %s: %s%s" % (doc["tool"], doc.get("device", {}).get("name"),
                                              ", ".join("%s %s" % kv for kv in sorted(v.items())),
                                              ("; best of %d runs per row" % doc["repeats"]) if doc.get("repeats") else ""))
        if doc.get("settings"):
            out.append("  (settings: %s)" % ", ".join("%s=%s" % kv for kv in sorted(doc["settings"].items())))
    out.append("- files: %s" % ", ".join(os.path.basename(f) for f in args.files))
    out.append("")
    for note in args.note:
        out.append("> %s\n" % note)
    out.append("Time: median of the timed runs (device events; launch: host wall clock for the batch). "
               "Throughput in GB/s counts bytes read + written; matmul 2MNK flops; heat cell-steps per second. "
               "duet/limit: the limit is the copy bandwidth measured in the same run (memory-bound kernels; the "
               "better of Queue::copy and a plain copy kernel, bytes read + written), "
               "cuBLAS SGEMM or numpy when a peer file was given to duet bench (matmul; else the FP32 "
               "datasheet peak), and copy bandwidth / 8 bytes for `heat` (the one-step-per-pass rate). "
               "duet/peer: speed ratio, above 1 = duet faster. Max error: absolute, except matmul "
               "(relative to sum |a_ik b_kj| per entry).")
    out.append("")

    checks = targets(data)
    out.append("## Targets\n")
    if checks:
        out.append("| target | where | measured | status |")
        out.append("|---|---|---|---|")
        for target, where, figure, status in checks:
            out.append("| %s | %s | %s | **%s** |" % (target, where, figure.replace("|", "/"), status))
    else:
        out.append("No GPU or full-size CPU results in these files.")
    out.append("")
    if data.floors:
        out.append("Launch floors measured in the same call by `duet-launch-floor` (an empty kernel with "
                   "vector_add's parameters, 1000 launches back to back, straight through the driver):\n")
        out.append("| API | device | launch | host us/launch | device us/launch |")
        out.append("|---|---|---|---|---|")
        for f in data.floors:
            how = ("block of %s threads" % f.get("block")) if f.get("api") == "cuda" else (
                "with an event per launch" if f.get("event_per_launch") else "no event")
            out.append("| %s | %s | %s | %s | %s |" % (f.get("api"), f.get("device", f.get("platform", "cuda:0")), how,
                                                      fmt(f.get("host_us_per_launch"), 2),
                                                      fmt(f.get("device_us_per_launch"), 2)))
        out.append("")
    summary = cupy_summary(data)
    if summary:
        out += summary + [""]
    if args.plot:
        out.append("![achieved vs limit](%s)\n" % args.plot)

    out.append("## Results per device\n")
    for _, _, device in data.duet:
        device_table(data, device, out)
    cross_backend(data, out)

    text = "\n".join(out).rstrip() + "\n"
    if os.path.exists(args.out):
        with open(args.out) as f:
            old = f.read()
        if KEPT_MARK in old:
            text += "\n" + old[old.index(KEPT_MARK):]
    # Written to a temporary name and renamed, so a killed run never leaves half a report.
    with open(args.out + ".tmp", "w") as f:
        f.write(text)
    os.replace(args.out + ".tmp", args.out)
    print("wrote %s" % args.out)
    for target, where, figure, status in checks:
        print("%-5s %s [%s]: %s" % (status, target, where, figure))
    return 0


if __name__ == "__main__":
    sys.exit(main())
