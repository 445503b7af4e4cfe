#!/usr/bin/env python3
"""A PNG of duet's benchmark: achieved throughput as a fraction of the limit, per kernel, size and
backend, with the peers beside duet, one panel per device; and the launch overhead in microseconds.

The limit of a row is the one duet measured on that device in the same run: copy bandwidth for the
memory-bound kernels (and for the copy itself), copy / 8 bytes per cell for many-step heat, and for
matmul the peer ceiling (cuBLAS SGEMM through CuPy, numpy on a CPU) when one was measured, else
duet's own limit (the FP32 datasheet peak). Peers are held against the same limits.

Usage: python3 bench/plot.py FILE.json... --out bench/results.png   (needs matplotlib)
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402  (same directory: file loading, ordering and ratios)

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"duet cuda": "#1f77b4", "duet opencl": "#ff7f0e", "cupy": "#2ca02c", "pyopencl": "#9467bd",
          "numpy": "#8c564b"}


def panels(data):
    """[(title, keys, {series: {key: fraction}}, {series: us per launch})] per device name."""
    out = []
    names = []
    for _, _, device in data.duet:
        if device["device"]["name"] not in names:
            names.append(device["device"]["name"])
    for name in names:
        devices = [d for _, _, d in data.duet if report.simplified(d["device"]["name"]) == report.simplified(name)]
        devices.sort(key=lambda d: d["device"]["backend"] != "cuda")  # CUDA's limits first
        peers = data.peer_rows(name)
        limits = {}
        for d in devices:
            for r in d["results"]:
                key = (r["kernel"], r["size"])
                if key in limits:
                    continue
                if r["kernel"] in ("copy", "copy_kernel"):
                    limits[key] = d.get("copy_gbs")
                elif r["kernel"] == "matmul":
                    ceilings = [p[key]["value"] for p in peers.values()
                                if key in p and p[key].get("role") == "ceiling" and report.finite(p[key].get("value"))]
                    limits[key] = max(ceilings) if ceilings else r.get("limit")
                elif r["kernel"] != "launch":
                    limits[key] = r.get("limit")
        series, launch = {}, {}
        for d in devices:
            label = "duet " + d["device"]["backend"]
            for r in d["results"]:
                key = (r["kernel"], r["size"])
                if r["kernel"] == "launch":
                    if report.finite(r.get("value")):
                        launch[label] = r["value"]
                elif report.finite(r.get("value")) and report.finite(limits.get(key)) and limits[key] > 0:
                    series.setdefault(label, {})[key] = r["value"] / limits[key]
        for impl, rows in peers.items():
            for key, r in rows.items():
                if r["kernel"] == "launch":
                    if report.finite(r.get("value")):
                        launch[impl] = r["value"]
                elif report.finite(r.get("value")) and report.finite(limits.get(key)) and limits[key] > 0:
                    series.setdefault(impl, {})[key] = r["value"] / limits[key]
        keys = sorted({k for s in series.values() for k in s}, key=lambda k: report.row_order(
            {"kernel": k[0], "size": k[1]}))
        out.append((name, keys, series, launch))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results.png"))
    args = ap.parse_args()
    data = report.Data(args.files)
    groups = panels(data)
    if not groups:
        raise SystemExit("no duet results to plot")
    heights = [max(3.0, 0.22 * len(keys) * max(1, len(series)) + 1.2) for _, keys, series, _ in groups]
    fig, axes = plt.subplots(len(groups), 2, figsize=(14, sum(heights)),
                             gridspec_kw={"width_ratios": [4, 1], "height_ratios": heights}, squeeze=False)
    for (name, keys, series, launch), (ax, ax_launch) in zip(groups, axes):
        labels = sorted(series, key=lambda s: list(COLORS).index(s) if s in COLORS else 99)
        bar = 0.8 / max(1, len(labels))
        for i, label in enumerate(labels):
            ys = [k + i * bar for k in range(len(keys))]
            xs = [series[label].get(key, 0.0) for key in keys]
            ax.barh(ys, xs, height=bar, label=label, color=COLORS.get(label))
        ax.set_yticks([k + 0.4 - bar / 2 for k in range(len(keys))])
        ax.set_yticklabels(["%s %s" % key for key in keys], fontsize=8)
        ax.invert_yaxis()
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel("achieved / limit (copy bandwidth; matmul: cuBLAS or numpy; heat: copy / 8 B per cell)")
        ax.set_title(name, fontsize=10)
        ax.legend(fontsize=8, loc="lower right")
        ax.grid(axis="x", alpha=0.3)
        if launch:
            names = sorted(launch, key=lambda s: list(COLORS).index(s) if s in COLORS else 99)
            ax_launch.bar(range(len(names)), [launch[n] for n in names], color=[COLORS.get(n) for n in names])
            ax_launch.set_xticks(range(len(names)))
            ax_launch.set_xticklabels(names, rotation=45, ha="right", fontsize=8)
            ax_launch.set_ylabel("us per small launch (host)")
            ax_launch.set_title("launch overhead", fontsize=10)
        else:
            ax_launch.axis("off")
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print("wrote %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
