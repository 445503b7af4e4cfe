"""The pytest suite of duet's Python module, run on the device Device() picks (DUET_BACKEND /
DUET_DEVICE). Where no device can be opened every test that needs one is skipped, with the reason;
when DUET_BACKEND names a backend that is not available here, the run's exit code is 77, which CTest
reports as skipped (python/CMakeLists.txt), never as passed."""

import os
import pathlib
import subprocess
import sys

import pytest

import duet

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "python"


def _open_device():
    try:
        return duet.Device(), None
    except duet.Error as e:
        return None, str(e)


_DEVICE, _WHY = _open_device()


@pytest.fixture(scope="session")
def device():
    if _DEVICE is None:
        pytest.skip(f"no device: {_WHY}")
    return _DEVICE


@pytest.fixture
def queue(device):
    return device.queue()


def pytest_report_header(config):
    if _DEVICE is None:
        return f"duet: no device ({_WHY})"
    return f"duet {duet.__version__}: {_DEVICE.id} {_DEVICE.name}; DLPack {'on' if duet.HAVE_DLPACK else 'off'}"


def pytest_sessionfinish(session, exitstatus):
    backend = os.environ.get("DUET_BACKEND", "auto")
    if _DEVICE is None and backend not in ("", "auto") and exitstatus == 0:
        session.exitstatus = 77


def run_example(name, *args, env=None, timeout=600):
    """Runs examples/python/<name> in a fresh interpreter; returns its output (fails on non-zero exit)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    result = subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True, text=True,
                            env=full_env, timeout=timeout)
    assert result.returncode == 0, f"{name} exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
    return result.stdout
