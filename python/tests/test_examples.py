"""Every example in examples/python runs (small sizes, --quick) and checks its own results."""

import importlib.util

import pytest

from conftest import run_example


@pytest.mark.parametrize("name", ["unroll_block.py", "elementwise.py", "vector_norm.py", "monte_carlo_pi.py",
                                  "tiled_matmul.py", "overlap.py", "graph.py"])
def test_example(device, name):
    out = run_example(name, "--quick")
    assert out.strip()


def test_heat_example(device, tmp_path):
    png = tmp_path / "heat.png"
    out = run_example("heat.py", "--quick", "--png", str(png))
    if importlib.util.find_spec("matplotlib") is None:
        assert "no picture" in out
    else:
        assert png.stat().st_size > 1000


def test_zero_copy_example():
    if importlib.util.find_spec("cupy") is None and importlib.util.find_spec("torch") is None:
        pytest.skip("neither CuPy nor PyTorch is installed")
    out = run_example("zero_copy.py")
    assert "CuPy" in out or "PyTorch" in out or "skipped" in out
