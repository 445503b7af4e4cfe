"""What Queue gains in Python: timing a block of work with events, and asynchronous copies.

    with queue.timer() as t:       # records an event at the start and at the end of the block
        kernel(n, None, x, queue=queue)
    print(t.ms)                    # device time between the two (waits for the end event)

    queue.write(array, host)       # asynchronous copies; `host` must stay alive and unchanged until
    queue.read(array, host)        # the returned event completes (duet.pinned_empty for overlap)
    queue.copy(src, dst)
"""

from . import _duet


class Timer:
    """Device time of the work enqueued on `queue` inside a `with` block, from two events."""

    def __init__(self, queue):
        self.queue = queue
        self.start = self.end = None

    def __enter__(self):
        self.start = self.queue.record()
        return self

    def __exit__(self, *exc):
        self.end = self.queue.record()
        return False

    @property
    def ms(self):
        """Milliseconds of device time; waits for the block's work to finish."""
        return _duet.elapsed_ms(self.start, self.end)


def _timer(queue):
    """A Timer: `with queue.timer() as t: ...`, then t.ms."""
    return Timer(queue)


def _write(queue, array, host):
    """Copy the C-contiguous host array into `array` asynchronously; returns the Event. `host` must stay
    alive and unchanged until the event completes."""
    return _duet._write_async(queue, array, host)


def _read(queue, array, host):
    """Copy `array` into the C-contiguous host array asynchronously; returns the Event. `host` must stay
    alive, and unread, until the event completes."""
    return _duet._read_async(queue, array, host)


def _copy(queue, src, dst):
    """Copy one device array into another of the same size, asynchronously; returns the Event."""
    return _duet._copy_async(queue, src, dst)


_duet.Queue.timer = _timer
_duet.Queue.write = _write
_duet.Queue.read = _read
_duet.Queue.copy = _copy
