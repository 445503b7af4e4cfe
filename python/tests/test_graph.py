"""Graphs: `with duet.graph(q) as g:` records the block's launches on q, g.replay() replays them, bit
for bit what the same launches do one by one; what a capture cannot record is refused at once."""

import numpy as np
import pytest

import duet

SOURCE = """
KERNEL void smooth(GLOBAL const float* x, GLOBAL float* y, const uint n) {
  const uint i = (uint)GLOBAL_ID(0);
  if (i >= n) return;
  const float left = x[i == 0u ? 0u : i - 1u];
  const float right = x[i + 1u == n ? i : i + 1u];
  y[i] = (left + x[i] + right) / 3.0f;
}"""


@pytest.mark.parametrize("n", [1, 37, 1037])
def test_replay_equals_launches_one_by_one(device, n):
    smooth = device.compile(SOURCE).smooth
    q = device.queue()
    start = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    a, b = duet.asarray(start, device=device), duet.full(n, np.nan, device=device)
    c, d = duet.asarray(start, device=device), duet.full(n, np.nan, device=device)
    with duet.graph(q) as g:
        smooth(n, None, a, b, n, queue=q)
        smooth(n, None, b, a, n, queue=q)
    assert not q.capturing
    assert len(g) == 2 and g.node_kind(0) == "launch" and g.path
    np.testing.assert_array_equal(a.get(queue=q), start)  # nothing ran while recording
    for _ in range(5):
        g.replay()
        smooth(n, None, c, d, n, queue=q)
        smooth(n, None, d, c, n, queue=q)
    np.testing.assert_array_equal(a.get(queue=q), c.get(queue=q))
    np.testing.assert_array_equal(b.get(queue=q), d.get(queue=q))
    other = device.queue()
    g.replay(other).wait()


def test_capture_refuses_what_it_cannot_record(device):
    q = device.queue()
    x = duet.zeros(16, device=device, queue=q)
    q.finish()
    with duet.graph(q) as g:
        with pytest.raises(duet.ArgumentError, match="Queue::finish during a graph capture"):
            q.finish()
        with pytest.raises(duet.ArgumentError, match="Queue::record during a graph capture"):
            q.record()
        assert q.capturing
    assert len(g) == 0
    with pytest.raises(RuntimeError, match="stop"):
        with duet.graph(q):
            raise RuntimeError("stop")
    assert not q.capturing
    with pytest.raises(duet.ArgumentError, match="not been recorded"):
        duet.graph(q).replay()
    x.get(queue=q)


def test_set_arg_changes_a_recorded_launch(device):
    """A heat-style ping-pong through set_arg, with the argument conversion and checks of a launch."""
    n = 37
    smooth = device.compile(SOURCE).smooth
    q = device.queue()
    start = np.random.default_rng(7).standard_normal(n).astype(np.float32)
    a, b = duet.asarray(start, device=device), duet.full(n, np.nan, device=device)
    c, d = duet.asarray(start, device=device), duet.full(n, np.nan, device=device)
    with duet.graph(q) as g:
        smooth(n, None, a, b, n, queue=q)
    for i in range(4):
        g.replay()
        g.set_arg(0, 0, b if i % 2 == 0 else a)
        g.set_arg(0, 1, a if i % 2 == 0 else b)
        g.set_arg(0, 2, np.uint32(n))
        src, dst = (c, d) if i % 2 == 0 else (d, c)
        smooth(n, None, src, dst, n, queue=q)
    np.testing.assert_array_equal(a.get(queue=q), c.get(queue=q))
    np.testing.assert_array_equal(b.get(queue=q), d.get(queue=q))
    with pytest.raises(duet.ArgumentError):
        g.set_arg(0, 2, -1)  # outside uint's range
    with pytest.raises(duet.ArgumentError, match="is a buffer"):
        g.set_arg(0, 0, 1.5)
    with pytest.raises(duet.ArgumentError, match="no argument 3"):
        g.set_arg(0, 3, a)
    with pytest.raises(duet.ArgumentError, match="node 1 does not exist"):
        g.set_arg(1, 0, a)
    # The refused values changed nothing: one more replay is the next step.
    g.replay()
    smooth(n, None, c, d, n, queue=q)
    np.testing.assert_array_equal(b.get(queue=q), d.get(queue=q))
