"""DLPack: duet arrays round-trip through __dlpack__ / from_dlpack sharing memory (on every
backend: OpenCL exports its cl_mem), NumPy arrays are copied to the device, and CuPy and PyTorch
share memory with a CUDA device (skipped where they or a CUDA device are missing)."""

import numpy as np
import pytest

import duet

pytestmark = pytest.mark.skipif(not duet.HAVE_DLPACK, reason="the module was built without DLPack's header")


def test_duet_roundtrip_shares_memory(device):
    a = duet.asarray(np.arange(12, dtype=np.float32).reshape(3, 4), device)
    capsule_holder = type("Producer", (), {})()
    capsule_holder.__dlpack__ = a.__dlpack__
    capsule_holder.__dlpack_device__ = a.__dlpack_device__
    b = duet.from_dlpack(capsule_holder)
    assert b.shape == (3, 4) and b.dtype == np.float32
    b.fill(5.0)
    assert a.get().tolist() == [[5.0] * 4] * 3  # one memory
    kind, index = a.__dlpack_device__()
    assert kind == (2 if device.backend == "cuda" else 4)
    assert duet.from_dlpack(a).native_handle == a.native_handle


def test_numpy_is_copied_to_the_device(device):
    host = np.arange(6, dtype=np.int64).reshape(2, 3)
    a = duet.from_dlpack(host, device=device)
    assert a.shape == (2, 3) and a.dtype == np.int64
    host[0, 0] = 100
    assert a.get()[0, 0] == 0


def test_unconsumed_capsules_free_their_tensor(device):
    a = duet.zeros(4, device=device)
    for _ in range(3):
        capsule = a.__dlpack__()
        del capsule  # the destructor calls the tensor's deleter: nothing leaks, nothing crashes
    a.fill(1.0)
    assert a.get().tolist() == [1.0] * 4


def _cuda_device():
    cuda = [i for i in duet.devices() if i.backend == "cuda"]
    if not cuda:
        pytest.skip("no CUDA device")
    return duet.Device(cuda[0].id)


def test_cupy_shares_memory():
    cp = pytest.importorskip("cupy")
    dev = _cuda_device()
    x = cp.arange(10, dtype=cp.float32)
    a = duet.from_dlpack(x, device=dev)
    assert a.native_handle == x.data.ptr
    a.fill(3.0)
    dev.default_queue.finish()
    assert float(x.sum()) == 30.0
    y = cp.from_dlpack(a)  # and back: duet's memory in CuPy
    assert y.data.ptr == a.native_handle
    y += 1
    cp.cuda.Stream.null.synchronize()
    assert a.get().tolist() == [4.0] * 10


def test_torch_shares_memory():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA device")
    dev = _cuda_device()
    t = torch.arange(8, dtype=torch.float32, device="cuda")
    a = duet.from_dlpack(t, device=dev)
    assert a.native_handle == t.data_ptr()
    a.fill(2.0)
    dev.default_queue.finish()
    assert float(t.sum()) == 16.0
    back = torch.from_dlpack(a)
    assert back.data_ptr() == a.native_handle
    back.mul_(3)
    torch.cuda.synchronize()
    assert a.get().tolist() == [6.0] * 8
