#!/usr/bin/env python3
"""The table of scripts/gpu.sh's ab phase: the baseline against this checkout.

Reads, from the phase's folder, bench-<side>-<device>-<round>.json (`duet bench`),
gemm-<side>-<round>.json (duet-gemm-bench) and cublas-<round>.json (bench/gemm/gemm_cublas.py), with
<side> baseline or current, and prints one Markdown table: each benchmark row's median over the
rounds on both sides and the speed ratio current / baseline (above 1: this checkout is faster; for
times such as us/launch the ratio is baseline / current, so it reads the same way), and the SGEMM
suite's geometric means over the float cases both sides verified: GFLOP/s, and duet / cuBLAS where
cuBLAS ran. A row that failed its check on either side is listed under the table.

Usage: scripts/gpu/ab_table.py FOLDER
"""
import glob
import json
import math
import os
import re
import statistics
import sys

SIDES = ("baseline", "current")
TIME_UNITS = ("us/launch", "us/op", "ms", "us")


def load(path):
    with open(path) as f:
        return json.load(f)


def bench_rows(folder, failures):
    """{(device, kernel, size): {side: [value per round]}} and {key: unit} of the duet bench files."""
    rows, units = {}, {}
    for path in sorted(glob.glob(os.path.join(folder, "bench-*-*.json"))):
        m = re.match(r"bench-(baseline|current)-(.+)-(\d+)\.json$", os.path.basename(path))
        if not m:
            continue
        side = m.group(1)
        for device in load(path).get("devices", []):
            for r in device.get("results", []):
                if r.get("kernel") == "copy" or r.get("kernel") == "copy_kernel" or r.get("skipped"):
                    continue  # the ceilings, not rows of duet's own
                key = (device["device"].get("id", "?"), r["kernel"], r["size"])
                if not r.get("ok") or r.get("value") is None:
                    failures.append("%s %s %s %s: %s" % ((side,) + key + (r.get("failure") or "failed",)))
                    continue
                rows.setdefault(key, {}).setdefault(side, []).append(r["value"])
                units[key] = r.get("unit", "")
    return rows, units


def gemm_cases(folder, pattern, failures, label):
    """{case: [GFLOP/s per round]} of the float rows of the files matching pattern."""
    cases = {}
    for path in sorted(glob.glob(os.path.join(folder, pattern))):
        for r in load(path).get("results", []):
            if r.get("type", "f32") != "f32" or r.get("impl") not in ("duet", "cublas") or r.get("skipped"):
                continue
            if not r.get("ok") or not r.get("value"):
                failures.append("%s GEMM %s: %s" % (label, r.get("size"), r.get("failure") or "failed"))
                continue
            cases.setdefault(r["size"], []).append(r["value"])
    return {name: statistics.median(values) for name, values in cases.items()}


def geomean(values):
    values = [v for v in values if v > 0 and math.isfinite(v)]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def main():
    folder = sys.argv[1]
    failures = []
    rows, units = bench_rows(folder, failures)
    lines = ["| row | unit | baseline | current | speed, current / baseline | rounds (baseline; current) |",
             "|---|---|---|---|---|---|"]
    for key in sorted(rows):
        sides = rows[key]
        if not all(s in sides for s in SIDES):
            continue
        b, c = statistics.median(sides["baseline"]), statistics.median(sides["current"])
        speed = (b / c if units[key] in TIME_UNITS else c / b) if b and c else float("nan")
        each = "; ".join(" ".join("%.4g" % v for v in sides[s]) for s in SIDES)
        lines.append("| %s %s %s | %s | %.4g | %.4g | %.3f | %s |" % (key + (units[key], b, c, speed, each)))

    gemm = {side: gemm_cases(folder, "gemm-%s-*.json" % side, failures, side) for side in SIDES}
    cublas = gemm_cases(folder, "cublas-*.json", failures, "cuBLAS")
    both = sorted(set(gemm["baseline"]) & set(gemm["current"]))
    if both:
        b, c = geomean([gemm["baseline"][n] for n in both]), geomean([gemm["current"][n] for n in both])
        lines.append("| SGEMM suite, geometric mean over %d cases | GFLOP/s | %.1f | %.1f | %.3f | |"
                     % (len(both), b, c, c / b))
        with_peer = [n for n in both if n in cublas]
        if with_peer:
            b, c = (geomean([gemm[s][n] / cublas[n] for n in with_peer]) for s in SIDES)
            lines.append("| SGEMM suite, geometric mean of duet / cuBLAS over %d cases | ratio | %.3f | %.3f | %.3f | |"
                         % (len(with_peer), b, c, c / b))
    print("\n".join(lines))
    if failures:
        print("\nRows that failed (left out above):\n")
        print("\n".join("- " + f for f in failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
