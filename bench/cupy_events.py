"""Device time of back-to-back runs on one CuPy stream, as duet's benchmarks measure their own
(bench/cases.cpp): an event before the first run and after each, so each interval is one run's device
time while the host keeps the stream fed. Shared by the CuPy peers (compare_cupy.py, gemm/gemm_cublas.py)."""
import cupy as cp


def event_times(stream, runs, sets, enqueue):
    """Milliseconds of each of `runs` runs, run r being enqueue(r % sets) on `stream`."""
    marks = [cp.cuda.Event()]
    marks[0].record(stream)
    for r in range(runs):
        enqueue(r % sets)
        e = cp.cuda.Event()
        e.record(stream)
        marks.append(e)
    marks[-1].synchronize()
    return [cp.cuda.get_elapsed_time(marks[r], marks[r + 1]) for r in range(runs)]
