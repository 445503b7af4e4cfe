#!/usr/bin/env python3
"""The table of a before/after run (scripts/gpu-ab.sh): for every device, kernel and size, the median
over rounds of each side's figure (GB/s, GFLOP/s, or microseconds per launch) and after / before.

Usage: bench/ab_summary.py <folder with before-<device>-<round>.json and after-...json>
"""
import glob
import json
import os
import statistics
import sys


def figures(folder, side):
    """{(device id, kernel, size): [value per round]} of one side, with the unit of each row."""
    out, units = {}, {}
    for path in sorted(glob.glob(os.path.join(folder, side + "-*.json"))):
        with open(path) as f:
            data = json.load(f)
        for device in data["devices"]:
            for r in device["results"]:
                if r.get("skipped") or r.get("value") is None:
                    continue
                key = (device["device"]["id"] if "id" in device["device"] else
                       "%s:%s" % (device["device"]["backend"], device["device"]["index"]), r["kernel"], r["size"])
                out.setdefault(key, []).append(r["value"])
                units[key] = r["unit"]
    return out, units


def main():
    folder = sys.argv[1]
    before, units = figures(folder, "before")
    after, _ = figures(folder, "after")
    print("| device | kernel | size | unit | before (median) | after (median) | after / before | before, each round | after, each round |")
    print("|---|---|---|---|---|---|---|---|---|")
    for key in sorted(set(before) & set(after)):
        b, a = statistics.median(before[key]), statistics.median(after[key])
        rounds = lambda values: " ".join("%.4g" % v for v in values)
        print("| %s | %s | %s | %s | %.3f | %.3f | %.3f | %s | %s |"
              % (key + (units[key], b, a, a / b if b else float("nan"), rounds(before[key]), rounds(after[key]))))


if __name__ == "__main__":
    main()
