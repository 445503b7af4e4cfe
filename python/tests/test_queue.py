"""Queues and events: ordering across queues with events, with-blocks, timing, waiting without the GIL."""

import threading
import time

import numpy as np
import pytest

import duet

BUSY = """
KERNEL void busy(GLOBAL float* x, const uint n, const int rounds) {
  const size_t i = GLOBAL_ID(0);
  if (i >= n) return;
  float v = x[i];
  for (int r = 0; r < rounds; ++r) v = v * 0.999f + 0.001f;
  x[i] = v + 1.0f;
}"""


def test_events_order_two_queues_and_time(device):
    k = device.compile(BUSY).busy
    q1, q2 = device.queue(), device.queue()
    x = duet.zeros(4096, device=device, queue=q1)
    with q1.timer() as t:
        k(4096, None, x, 4096, 100, queue=q1)
    done = q1.record()
    q2.wait(done)
    k(4096, None, x, 4096, 0, queue=q2)
    q2.finish()
    assert done.done
    assert t.ms >= 0.0
    assert duet.elapsed_ms(t.start, t.end) == t.ms
    assert t.end.time_since(t.start) == t.ms and t.start.time_till(t.end) == t.ms
    assert np.all(x.get(queue=q2) > 1.0)


def test_with_block_finishes(device):
    k = device.compile(BUSY).busy
    x = duet.zeros(1024, device=device)
    device.default_queue.finish()
    with device.queue() as q:
        event = k(1024, None, x, 1024, 10, queue=q)
        event.done  # an event is made lazily; asking makes it here, before the block's end
    assert event.done


def test_waits_release_the_gil(device):
    # Another Python thread keeps running while this one waits in finish().
    k = device.compile(BUSY).busy
    q = device.queue()
    x = duet.zeros(1 << 16, device=device, queue=q)
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)

    t = threading.Thread(target=count)
    t.start()
    time.sleep(0.01)
    k(1 << 16, None, x, 1 << 16, 20000, queue=q)
    before = len(ticks)
    start = time.perf_counter()
    q.finish()
    waited = time.perf_counter() - start
    during = len(ticks) - before
    stop.set()
    t.join()
    if waited > 0.05:  # long enough for Python to switch threads (every 5 ms) many times
        assert during > 0, f"the other thread did not run during a {waited:.3f} s finish()"


def test_command_timing(device):
    k = device.compile(BUSY).busy
    timed = device.queue(command_timing=True)
    x = duet.zeros(4096, device=device, queue=timed)
    start = timed.record()
    event = k(4096, None, x, 4096, 2000, queue=timed)
    end = timed.record()
    assert 0.0 < event.duration_ms() <= duet.elapsed_ms(start, end) + 0.01
    with pytest.raises(duet.ArgumentError, match="command timing"):
        k(4096, None, x, 4096, 1).duration_ms()  # the default queue is not timed
    with pytest.raises(duet.ArgumentError, match="two queues|different queues|another queue"):
        duet.elapsed_ms(start, device.queue().record())


def test_high_priority_queue_orders_by_events(device):
    """A queue of either priority that waits for the other's event sees its writes."""
    k = device.compile(BUSY).busy
    n = 1 << 15
    want = 0.0
    for _ in range(3000):
        want = want * 0.999 + 0.001
    want = (want + 1.0) * 0.999 + 0.001 + 1.0  # busy with 3000 rounds, then with 1
    for first, second in (("normal", "high"), ("high", "normal")):
        producer, consumer = device.queue(priority=first), device.queue(priority=second)
        x = duet.zeros(n, device=device, queue=producer)
        k(n, None, x, n, 3000, queue=producer)
        consumer.wait(producer.record())
        k(n, None, x, n, 1, queue=consumer)
        np.testing.assert_allclose(x.get(queue=consumer), np.full(n, want), rtol=1e-5)
    with pytest.raises(duet.ArgumentError, match="priority"):
        device.queue(priority="urgent")
