"""The steps of python/tests/test_array.py::test_asarray_converts_and_shares that crash the
process on the GPU machine (CUDA and NVIDIA OpenCL, not PoCL; issue 12), one print each."""
import sys
import numpy as np
import duet


def say(*a):
    print(*a, file=sys.__stderr__, flush=True)


def test_a():
    d = duet.Device()
    a = duet.asarray([[1, 2], [3, 4]], device=d, dtype="float32")
    say("made", a.native_handle)
    b0 = duet.asarray(a)
    say("same", b0.native_handle)
    del b0
    say("deleted")
    e = duet.astype(a, "float64") if hasattr(duet, "astype") else None
    say("astype fn ok", e is not None)
    b = duet.asarray(a, dtype="float64")
    say("converted")
    say(b.get())
