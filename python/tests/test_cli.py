"""python -m duet devices / run, as the duet command."""

import subprocess
import sys

from duet import _duet


def test_devices():
    out = subprocess.run([sys.executable, "-m", "duet", "devices"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "Device() with DUET_BACKEND" in out.stdout


def test_run_quick(device):
    out = subprocess.run([sys.executable, "-m", "duet", "run", "--quick", "--device", device.id],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    kernels = _duet._builtin_kernels()
    assert f"all {len(kernels)} kernels OK" in out.stdout
    for name in kernels:
        assert name in out.stdout
