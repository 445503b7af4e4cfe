#!/usr/bin/env python3
"""The GEMM suite's report: duet beside cuBLAS and CLBlast, with the suite's targets.

Reads the JSON files of duet-gemm-bench (one per device: duet rows, and CLBlast rows on OpenCL) and
bench/gemm/gemm_cublas.py, matches rows by case name, and writes a Markdown report: one table of
GFLOP/s and ratios per case (float cases, then the double ones beside cuBLAS DGEMM), the geometric
means, and the targets with PASS / MISS and their figures:
  - float32 cases, CUDA: geomean duet / cuBLAS >= 1.0, no case below 0.80;
  - float32 cases, OpenCL on the NVIDIA GPU: geomean duet / cuBLAS >= 0.95, no case below 0.80;
  - tensor-core classes (half, bfloat16, TF32; cuBLAS TF32 rows from bench/gemm/torch_tf32.py --json):
    CUDA every 8192^3 case >= 0.8 of cuBLAS and geomean >= 0.7; NVIDIA's OpenCL 8192^3 >= 0.5;
  - each transposed case (<plain>-nt, -tn, -tt) within 10% of its plain case, on the GPU (CUDA,
    NVIDIA's OpenCL; the targets are the H100's); on PoCL the same figures, report only;
  - on every OpenCL device with CLBlast rows (NVIDIA, PoCL): geomean duet / CLBlast >= 1.5, none below 1.0;
  - every row verified.
--plot writes a bar chart of the ratios (matplotlib).

Usage: bench/gemm/gemm_report.py FILES... [--out report.md] [--plot gemm.png]
"""
import argparse
import json
import math
import sys


def load(path):
    with open(path) as f:
        doc = json.load(f)
    dev = doc.get("device", {})
    return doc, dev


def geomean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def fmt(x, digits=1):
    return "-" if x is None or not isinstance(x, (int, float)) or not math.isfinite(x) else "%.*f" % (digits, x)


# The classes that run on tensor cores, whose targets are their own: cuBLAS on tensor cores is the
# peer, and NVIDIA's OpenCL reaches them through inline PTX only.
TENSOR_CLASSES = ("half", "bfloat16", "tf32")


def plain_of(name):
    for suffix in ("-nt", "-tn", "-tt"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return None


class Sources:
    """Rows by (column, case name): columns are cublas, duet-cuda, duet-opencl, clblast-opencl,
    duet-pocl, clblast-pocl (OpenCL devices other than NVIDIA's GPU count as 'pocl' when they are CPUs,
    else under their platform name)."""

    def __init__(self, files):
        self.rows, self.order, self.meta, self.cases = {}, [], [], {}
        for path in files:
            doc, dev = load(path)
            backend = dev.get("backend", "")
            if doc.get("tool") == "gemm_cublas":
                where = "cuda"
            elif backend == "cuda":
                where = "cuda"
            elif dev.get("kind", "").lower() == "cpu":
                where = "pocl"
            else:
                where = "opencl"
            self.meta.append("%s: %s %s (%s), %s mode%s, commit %s" % (
                path.split("/")[-1], dev.get("id", "?"), dev.get("name", "?"), dev.get("platform", backend),
                doc.get("mode", "?"), ", sizes / %d" % doc["scale"] if doc.get("scale", 1) > 1 else "",
                doc.get("commit", "?")))
            for r in doc.get("results", []):
                col = "%s-%s" % (r.get("impl"), where)
                if r.get("impl") == "cublas":
                    col = "cublas"
                self.rows[(col, r["size"])] = r
                if r["size"] not in self.cases:
                    self.cases[r["size"]] = r
                    self.order.append(r["size"])

    def value(self, col, name):
        r = self.rows.get((col, name))
        if not r or not r.get("ok") or r.get("skipped"):
            return float("nan")
        return r.get("value", float("nan"))

    def has(self, col):
        return any(k[0] == col for k in self.rows)


def ratio(a, b):
    return a / b if a and b and math.isfinite(a) and math.isfinite(b) and b > 0 else float("nan")


def report(src, out):
    header = ["# duet GEMM suite", ""] + ["- " + m for m in src.meta]
    header += ["", "GFLOP/s = 2 M N K batch / median device time. Ratios: duet / peer, above 1 = duet faster.", ""]
    lines = []
    cols = [c for c in ("cublas", "duet-cuda", "duet-opencl", "clblast-opencl", "duet-pocl", "clblast-pocl")
            if src.has(c)]
    heads = {"cublas": "cuBLAS", "duet-cuda": "duet CUDA", "duet-opencl": "duet OpenCL",
             "clblast-opencl": "CLBlast (GPU)", "duet-pocl": "duet PoCL", "clblast-pocl": "CLBlast PoCL"}
    ratios = []  # (title, numerator column, denominator column)
    if "cublas" in cols:
        ratios += [("CUDA/cuBLAS", "duet-cuda", "cublas"), ("OpenCL/cuBLAS", "duet-opencl", "cublas")]
    ratios += [("OpenCL/CLBlast", "duet-opencl", "clblast-opencl"), ("PoCL/CLBlast", "duet-pocl", "clblast-pocl")]
    ratios = [t for t in ratios if t[1] in cols and t[2] in cols]
    failures = []
    for f64 in (False, True):
        names = [n for n in src.order if (src.cases[n].get("type") == "f64") == f64]
        if not names:
            continue
        lines += ["## %s" % ("Double (reported beside cuBLAS DGEMM)" if f64 else "Float"), ""]
        head = ["case", "class", "shape", "ops", "alpha, beta"] + [heads[c] for c in cols] + [t[0] for t in ratios]
        head += ["duet plan (CUDA or first)"]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for n in names:
            c = src.cases[n]
            cells = [n, c.get("class", ""), c.get("shape", ""), c.get("ops", ""),
                     "%g, %g" % (c.get("alpha", 1), c.get("beta", 0))]
            cells += [fmt(src.value(col, n)) for col in cols]
            cells += [fmt(ratio(src.value(a, n), src.value(b, n)), 2) for _, a, b in ratios]
            plan = next((src.rows[(col, n)].get("plan", "") for col in ("duet-cuda", "duet-opencl", "duet-pocl")
                         if (col, n) in src.rows), "")
            cells.append(plan)
            lines.append("| " + " | ".join(cells) + " |")
            for col in cols:
                r = src.rows.get((col, n))
                if r and not r.get("ok"):
                    failures.append("%s %s: %s" % (heads[col], n, r.get("failure", "failed")))
        lines.append("")
        for title, a, b in ratios:
            rs = [(ratio(src.value(a, n), src.value(b, n)), n) for n in names]
            rs = [x for x in rs if math.isfinite(x[0])]
            if rs:
                lo = min(rs)
                lines.append("- %s: geometric mean %.3f over %d cases, lowest %.3f (%s)" % (
                    title, geomean([x[0] for x in rs]), len(rs), lo[0], lo[1]))
        lines.append("")

    # Targets (float cases): the float32 suite's against cuBLAS SGEMM and CLBlast; the tensor classes'
    # (half, bfloat16, TF32) against cuBLAS on tensor cores.
    names = [n for n in src.order if src.cases[n].get("type") != "f64"]
    tensor = [n for n in names if src.cases[n].get("class") in TENSOR_CLASSES]
    targets = []

    def target(what, where, ok, figures, status=None):
        targets.append("| %s | %s | %s | **%s** |" % (what, where, figures, status or ("PASS" if ok else "MISS")))

    def finite_ratios(col, peer, cases):
        """(col / peer, case) for the cases both measured."""
        rs = [(ratio(src.value(col, n), src.value(peer, n)), n) for n in cases]
        return [x for x in rs if math.isfinite(x[0])]

    simt = [n for n in names if n not in tensor]
    for col, title, goal in (("duet-cuda", "CUDA", 1.0), ("duet-opencl", "OpenCL (NVIDIA)", 0.95)):
        if col not in cols or "cublas" not in cols:
            continue
        rs = finite_ratios(col, "cublas", simt)
        if not rs:
            continue
        g = geomean([x[0] for x in rs])
        target("geomean duet / cuBLAS >= %.2f" % goal, title, g >= goal, "%.3f over %d cases" % (g, len(rs)))
        low = [x for x in rs if x[0] < 0.80]
        target("no case below 0.80 of cuBLAS", title, not low,
               "lowest %.3f (%s)%s" % (min(rs)[0], min(rs)[1],
                                       "; below: " + ", ".join("%s %.2f" % (n, r) for r, n in sorted(low)) if low else ""))
    for col, title, largest_goal, mean_goal in (("duet-cuda", "CUDA", 0.8, 0.7), ("duet-opencl", "OpenCL (NVIDIA)", 0.5, None)):
        if col not in cols or "cublas" not in cols:
            continue
        rs = finite_ratios(col, "cublas", tensor)
        if not rs:
            continue
        largest = [x for x in rs if src.cases[x[1]].get("shape") == "8192x8192x8192"]
        if largest:
            target("tensor cores, 8192^3: every case >= %.2f of cuBLAS" % largest_goal, title,
                   min(largest)[0] >= largest_goal, ", ".join("%s %.2f" % (n, r) for r, n in largest))
        if mean_goal:
            g = geomean([x[0] for x in rs])
            target("tensor cores: geomean duet / cuBLAS >= %.2f" % mean_goal, title, g >= mean_goal,
                   "%.3f over %d cases, lowest %.3f (%s)" % (g, len(rs), min(rs)[0], min(rs)[1]))
    for col, title in (("duet-cuda", "CUDA"), ("duet-opencl", "OpenCL (NVIDIA)"), ("duet-pocl", "PoCL")):
        if col not in cols:
            continue
        pairs = []
        for n in names:
            p = plain_of(n)
            if p and p in src.cases:
                pairs.append((ratio(src.value(col, n), src.value(col, p)), n, p))
        pairs = [x for x in pairs if math.isfinite(x[0])]
        if pairs:
            bad = [x for x in pairs if x[0] < 0.90]
            target("transposed variants within 10% of the plain case", title, not bad,
                   ", ".join("%s %.2f" % (n, r) for r, n, _ in pairs),
                   "report only" if col == "duet-pocl" else None)
    for col, peer, title in (("duet-opencl", "clblast-opencl", "OpenCL (NVIDIA)"), ("duet-pocl", "clblast-pocl", "PoCL")):
        if col not in cols or peer not in cols:
            continue
        rs = finite_ratios(col, peer, simt)
        if not rs:
            continue
        g = geomean([x[0] for x in rs])
        target("geomean duet / CLBlast >= 1.5", title, g >= 1.5, "%.3f over %d cases" % (g, len(rs)))
        low = [x for x in rs if x[0] < 1.0]
        target("no case below 1.0 of CLBlast", title, not low,
               "lowest %.3f (%s)%s" % (min(rs)[0], min(rs)[1],
                                       "; below: " + ", ".join("%s %.2f" % (n, r) for r, n in sorted(low)) if low else ""))
    target("every row ran and verified", "all", not failures, "; ".join(failures) if failures else "%d rows" % len(src.rows))
    lines = header + ["## Targets", "", "| target | where | measured | status |", "|---|---|---|---|"] + targets + \
        [""] + lines
    text = "\n".join(lines) + "\n"
    if out:
        with open(out, "w") as f:
            f.write(text)
    return text, failures


def plot(src, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    series = [("duet CUDA / cuBLAS", "duet-cuda", "cublas"), ("duet OpenCL / cuBLAS", "duet-opencl", "cublas"),
              ("duet OpenCL / CLBlast", "duet-opencl", "clblast-opencl"), ("duet PoCL / CLBlast", "duet-pocl", "clblast-pocl")]
    series = [s for s in series if src.has(s[1]) and src.has(s[2])]
    names = [n for n in src.order]
    if not series or not names:
        print("nothing to plot")
        return
    fig, ax = plt.subplots(figsize=(10, 0.28 * len(names) * max(1, len(series)) / 2 + 2))
    h = 0.8 / len(series)
    for k, (label, a, b) in enumerate(series):
        ys = [i + k * h for i in range(len(names))]
        xs = [ratio(src.value(a, n), src.value(b, n)) for n in names]
        ax.barh(ys, [x if math.isfinite(x) else 0 for x in xs], height=h, label=label)
    ax.set_yticks([i + 0.4 - h / 2 for i in range(len(names))])
    ax.set_yticklabels(names, fontsize=7)
    ax.invert_yaxis()
    for x, style in ((1.0, "-"), (0.8, "--"), (0.5, "-."), (1.5, ":")):
        ax.axvline(x, color="black", linestyle=style, linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("speed ratio (duet / peer), log scale; lines at 0.5, 0.8, 1 and 1.5")
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title("duet GEMM suite")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print("wrote", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out", help="write the Markdown report here")
    ap.add_argument("--plot", help="write the plot here (PNG, matplotlib)")
    args = ap.parse_args()
    src = Sources(args.files)
    text, failures = report(src, args.out)
    print(text)
    if args.plot:
        try:
            plot(src, args.plot)
        except ImportError as e:
            print("no plot (%s): install matplotlib" % e)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
