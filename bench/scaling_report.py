#!/usr/bin/env python3
"""The scaling table of scripts/gpu.sh's scaling phase: weak-scaling efficiency (time on 1 rank / time on
N ranks, the work per rank fixed), strong-scaling speed-up (time on 1 rank / time on N ranks, the
grid fixed), the time with the halo overlapped over the time without, and whether every rank count
gave the one-device field bit for bit.

Usage: bench/scaling_report.py scaling.jsonl
"""
import json
import sys


def main():
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    timed = [r for r in rows if r.get("ms") is not None and r["case"].split("-")[0] in ("weak", "strong")]
    print("| backend | case | ranks | grid | steps | halo | ms (median) | Gcell-steps/s | efficiency / speed-up "
          "| vs one device | vs compute only |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")

    def find(backend, case, ranks):
        hits = [b for b in timed if b["backend"] == backend and b["case"] == case and b["ranks"] == ranks]
        return hits[0] if hits else None

    for r in sorted(timed, key=lambda r: (r["backend"], r["case"], r["ranks"])):
        base = find(r["backend"], r["case"], 1)
        nx, ny = (int(v) for v in r["size"].split("x"))
        rate = nx * ny * r["steps"] / (r["ms"] * 1e-3) / 1e9
        weak = r["case"].startswith("weak")
        figure = "-"
        if base:
            ratio = base["ms"] / r["ms"]
            figure = ("%.3f" % ratio) if weak else ("%.2fx" % ratio)
        # Weak rows against one device without mpirun, and every exchanging row against the same
        # decomposition with its exchanges skipped (duet heat --skip-exchange).
        one = find(r["backend"], "weak-one-device", 0) if weak and r["ranks"] > 0 else None
        bound_case = ("weak-halo1" if r["case"].startswith("weak-halo1") else r["case"].split("-")[0]) + "-compute-only"
        bound = None if r["case"].endswith("compute-only") else find(r["backend"], bound_case, r["ranks"])
        print("| %s | %s | %d | %s | %d | %d | %.2f | %.1f | %s | %s | %s |"
              % (r["backend"], r["case"], r["ranks"], r["size"], r["steps"], r["halo"], r["ms"], rate, figure,
                 "%.3f" % (one["ms"] / r["ms"]) if one else "-", "%.3f" % (bound["ms"] / r["ms"]) if bound else "-"))
    # What the overlap hides: time with it over time without, per backend, case and rank count.
    hidden = []
    for r in timed:
        if r["case"] in ("weak", "strong"):
            off = [o for o in timed if o["case"] == r["case"] + "-no-overlap" and o["backend"] == r["backend"]
                   and o["ranks"] == r["ranks"]]
            if off:
                hidden.append("| %s | %s | %d | %.3f |"
                              % (r["backend"], r["case"], r["ranks"], r["ms"] / off[0]["ms"]))
    if hidden:
        print("\n| backend | case | ranks | time with overlap / without |\n|---|---|---|---|")
        print("\n".join(sorted(hidden)))
    for r in rows:
        if r["case"] == "bitwise" and "equal" in r:
            print("\nbitwise %s, %d rank(s): %s" % (r["backend"], r["ranks"],
                                                     "identical to one device" if r["equal"] else "DIFFERENT"))


if __name__ == "__main__":
    main()
