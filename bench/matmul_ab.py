#!/usr/bin/env python3
"""The table of scripts/gpu.sh's matmul-ab phase: each matmul candidate's GFLOP/s per size, as a ratio to
the mean of the cuBLAS runs just before and just after it (cupy-R.json and cupy-(R+1).json around
duet-R-I.json), and over rounds the median ratio. Usage: matmul_ab.py OUT_DIR"""
import glob
import json
import os
import re
import statistics
import sys


def rows(path, impl):
    """{size: GFLOP/s} of the matmul rows of one JSON file."""
    with open(path) as f:
        doc = json.load(f)
    found = doc.get("results", [])
    for d in doc.get("devices", []):
        found += d.get("results", [])
    return {r["size"]: r["value"] for r in found
            if r.get("kernel") == "matmul" and r.get("impl") == impl and r.get("ok") and r.get("value")}


def main():
    out = sys.argv[1]
    with open(os.path.join(out, "candidates.txt")) as f:
        candidates = [line.strip() for line in f if line.strip()]
    cublas = {}
    for path in glob.glob(os.path.join(out, "cupy-*.json")):
        cublas[int(re.search(r"cupy-(\d+)\.json", path).group(1))] = rows(path, "cupy")
    ratios = {}  # (candidate, size) -> [ratio per round]
    flops = {}
    for path in glob.glob(os.path.join(out, "duet-*-*.json")):
        rnd, i = map(int, re.search(r"duet-(\d+)-(\d+)\.json", path).groups())
        for size, value in rows(path, "duet").items():
            around = [cublas[r][size] for r in (rnd, rnd + 1) if size in cublas.get(r, {})]
            if not around:
                continue
            ratios.setdefault((i, size), []).append(value / statistics.mean(around))
            flops.setdefault((i, size), []).append(value)
    sizes = sorted({s for (_, s) in ratios}, key=lambda s: int(s.split("x")[0]))
    print("cuBLAS GFLOP/s per round: " + "; ".join(
        "round %d: " % r + ", ".join("%s %.0f" % (s, cublas[r][s]) for s in sizes if s in cublas[r])
        for r in sorted(cublas)))
    print()
    print("| # | candidate | " + " | ".join(sizes) + " |")
    print("|---|---|" + "---|" * len(sizes))
    for i, c in enumerate(candidates, 1):
        cells = []
        for s in sizes:
            r = ratios.get((i, s))
            cells.append("%.0f GFLOP/s = %.3f" % (statistics.median(flops[(i, s)]), statistics.median(r)) if r else "-")
        print("| %d | %s | %s |" % (i, c, " | ".join(cells)))


if __name__ == "__main__":
    main()
