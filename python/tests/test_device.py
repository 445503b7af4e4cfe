"""Devices: listing, opening by environment and by spec, and the facts a Device reports."""

import os
import subprocess
import sys

import pytest

import duet


def test_devices_and_backends_list_what_loaded():
    infos = duet.devices()
    names = [b.name for b in duet.backends()]
    assert "opencl" in names or "cuda" in names
    for info in infos:
        assert info.id == f"{info.backend}:{info.index}"
        assert info.kind in ("gpu", "cpu", "other")
        assert info.memory_bytes > 0
        assert repr(info).startswith("<duet.DeviceInfo")
        # What programs asking for the architecture's own instructions compile for: sm_90a on CUDA
        # devices of 9.0 and later, compute_90a PTX on NVIDIA's OpenCL ones, nothing elsewhere (PoCL).
        target = info.arch_specific_target
        assert target == "" or target.endswith("a"), target
        if info.kind == "cpu":
            assert target == ""
        # The sub-group size of Intel's matrix built-ins where the device has them.
        assert info.intel_matrix_subgroup in (0, 8, 16)
    for b in duet.backends():
        assert b.available or b.reason


def test_device_open_and_spec(device):
    again = duet.Device(device.id)
    assert again == device
    assert hash(again) == hash(device)
    assert device.info.name == device.name
    assert device.id in repr(device)
    assert duet.default_device() == duet.Device()


def test_bad_specs_raise_duet_errors():
    with pytest.raises(duet.ConfigError):
        duet.Device("nonsense:0")
    with pytest.raises(duet.DeviceNotFoundError):
        duet.Device("opencl:999")
    with pytest.raises(duet.Error) as info:
        duet.Device("opencl:999")
    assert info.value.kind == "device_not_found"


def _device_chosen_with(env):
    code = "import duet; print(duet.Device().id)"
    full = dict(os.environ, **env)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full)
    return out.returncode, out.stdout.strip(), out.stderr


def test_duet_backend_and_duet_device_are_honoured(device):
    code, chosen, _ = _device_chosen_with({"DUET_BACKEND": device.backend, "DUET_DEVICE": str(device.info.index)})
    assert code == 0 and chosen == device.id
    code, _, err = _device_chosen_with({"DUET_BACKEND": "nonsense"})
    assert code != 0 and "ConfigError" in err


def test_default_queue_is_kept_and_queues_are_new(device):
    assert device.default_queue == device.default_queue
    assert device.queue() != device.queue()
    assert device.queue().device == device


def test_a_missing_backend_asked_for_is_an_error():
    missing = [b.name for b in duet.backends() if not b.available]
    if not missing:
        pytest.skip("every backend is available here")
    code, _, err = _device_chosen_with({"DUET_BACKEND": missing[0]})
    assert code != 0 and "BackendUnavailableError" in err
    with pytest.raises(duet.BackendUnavailableError):
        duet.Device(missing[0])
