#!/usr/bin/env python3
"""Graph replay against launching one by one, beside CuPy's and PyTorch's graphs of the same work.

100 small vector_add kernels (c = a + b on one float32 element, so that the launch, not the device,
sets the pace) are recorded once and replayed, and the same kernels are launched one by one; the
figure is host wall time per kernel, synchronisation included, the median of several batches:

- CuPy: cupy.add(a, b, out=c) captured with cupy.cuda.Stream.begin_capture() / end_capture(), the
  graph replayed with Graph.launch(stream);
- PyTorch: torch.add(a, b, out=c) captured into a torch.cuda.CUDAGraph, replayed with g.replay();
- duet through its Python module, on every device it finds: duet.vector_add recorded with
  `with duet.graph(q) as g:`, replayed with g.replay() (the path, cuda-graph, cl_khr_command_buffer
  or re-enqueue, is in the table).

Each peer that is not installed (or has no CUDA device) is a row that says so; the script still
prints its table and exits 0. `duet bench -k graph_launch` times duet's graphs from C++.

Usage (GPU machine): python3 bench/compare_graphs.py [--kernels 100] [--replays 10] [--reps 7]
                     [--out graphs.md]
"""
import argparse
import statistics
import sys
import time


def median_us_per_kernel(batch, kernels, reps):
    """Runs batch() (which enqueues `kernels` kernels and waits for them) reps times after one
    warm-up; the median host time per kernel in microseconds."""
    batch()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        batch()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6 / kernels


def cupy_rows(args):
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # not installed, or no CUDA device: one row that says so
        return [("CuPy", "stream capture", None, None, f"skipped: {e}")]
    a = cp.full(1, 1.5, dtype=cp.float32)
    b = cp.full(1, 2.25, dtype=cp.float32)
    c = cp.empty(1, dtype=cp.float32)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        cp.add(a, b, out=c)  # compiles the kernel before the capture
        stream.synchronize()
        stream.begin_capture()
        for _ in range(args.kernels):
            cp.add(a, b, out=c)
        graph = stream.end_capture()
        if hasattr(graph, "upload"):
            graph.upload(stream)

        def replayed():
            for _ in range(args.replays):
                graph.launch(stream)
            stream.synchronize()

        def launched():
            for _ in range(args.replays * args.kernels):
                cp.add(a, b, out=c)
            stream.synchronize()

        total = args.replays * args.kernels
        r = median_us_per_kernel(replayed, total, args.reps)
        l = median_us_per_kernel(launched, total, args.reps)
    ok = float(c.get()[0]) == 3.75
    return [("CuPy " + cp.__version__, "stream capture", r, l, "" if ok else "WRONG RESULT")]


def torch_rows(args):
    try:
        import torch
    except Exception as e:
        return [("PyTorch", "torch.cuda.CUDAGraph", None, None, f"skipped: {e}")]
    if not torch.cuda.is_available():
        return [("PyTorch " + torch.__version__, "torch.cuda.CUDAGraph", None, None, "skipped: no CUDA device")]
    a = torch.full((1,), 1.5, dtype=torch.float32, device="cuda")
    b = torch.full((1,), 2.25, dtype=torch.float32, device="cuda")
    c = torch.empty(1, dtype=torch.float32, device="cuda")
    # Warm-up on a side stream before capturing, as PyTorch's documentation asks.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            torch.add(a, b, out=c)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(args.kernels):
            torch.add(a, b, out=c)

    def replayed():
        for _ in range(args.replays):
            graph.replay()
        torch.cuda.synchronize()

    def launched():
        for _ in range(args.replays * args.kernels):
            torch.add(a, b, out=c)
        torch.cuda.synchronize()

    total = args.replays * args.kernels
    r = median_us_per_kernel(replayed, total, args.reps)
    l = median_us_per_kernel(launched, total, args.reps)
    ok = float(c.cpu()[0]) == 3.75
    return [("PyTorch " + torch.__version__, "torch.cuda.CUDAGraph", r, l, "" if ok else "WRONG RESULT")]


def duet_rows(args):
    try:
        import numpy as np
        import duet
    except Exception as e:
        return [("duet (Python)", "duet.graph", None, None, f"skipped: {e}")]
    rows = []
    for info in duet.devices():
        device = duet.Device(info.id)
        q = device.queue()
        a = duet.asarray(np.full(1, 1.5, np.float32), device=device)
        b = duet.asarray(np.full(1, 2.25, np.float32), device=device)
        c = duet.asarray(np.zeros(1, np.float32), device=device)
        duet.vector_add(a, b, c, queue=q)  # compiles the kernel before the capture
        q.finish()
        with duet.graph(q) as g:
            for _ in range(args.kernels):
                duet.vector_add(a, b, c, queue=q)

        def replayed():
            for _ in range(args.replays):
                g.replay()
            q.finish()

        def launched():
            for _ in range(args.replays * args.kernels):
                duet.vector_add(a, b, c, queue=q)
            q.finish()

        total = args.replays * args.kernels
        r = median_us_per_kernel(replayed, total, args.reps)
        l = median_us_per_kernel(launched, total, args.reps)
        ok = float(c.get(queue=q)[0]) == 3.75
        rows.append((f"duet {info.id} ({info.name})", g.path, r, l, "" if ok else "WRONG RESULT"))
    if not rows:
        rows.append(("duet (Python)", "duet.graph", None, None, "skipped: no device"))
    return rows


def table(rows, args):
    def us(v):
        return "-" if v is None else f"{v:.3f}"

    lines = [f"Host wall time per kernel (us), {args.kernels} vector_add kernels on one element per graph, "
             f"{args.replays} replays per batch, median of {args.reps} batches; synchronisation included.",
             "",
             "| library | graph | replayed | launched one by one | speed-up | note |",
             "|---|---|--:|--:|--:|---|"]
    for name, kind, r, l, note in rows:
        speedup = "-" if r is None or l is None or r <= 0 else f"{l / r:.2f}x"
        lines.append(f"| {name} | {kind} | {us(r)} | {us(l)} | {speedup} | {note} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", type=int, default=100, help="kernels per graph")
    parser.add_argument("--replays", type=int, default=10, help="replays per timed batch")
    parser.add_argument("--reps", type=int, default=7, help="timed batches; the median is reported")
    parser.add_argument("--out", help="also write the table to this file")
    args = parser.parse_args()
    rows = duet_rows(args) + cupy_rows(args) + torch_rows(args)
    text = table(rows, args)
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    return 1 if any(note == "WRONG RESULT" for *_, note in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
