"""duet's errors as Python exceptions: one class per duet::ErrorKind, all under duet.Error.

The C++ module raises these (registered at import, see errors.cpp) with the C++ error's details as
attributes: every error has .kind; CompileError has .log (the compiler's whole log), .line (the first
line of your source the log points at, 0 if none), .backend, .source_name, .options; DriverError has
.native_code, .native_name, .call, .backend; KernelFaultError has .fault ('device_fault',
'out_of_bounds', 'timeout'), .kernels, .argument, .device_usable; OutOfMemoryError has
.requested_bytes. Where Python has a matching built-in, the class derives from it too, so
`except TypeError` catches a wrong kernel argument.
"""


class Error(Exception):
    """Every failure duet reports."""

    kind = "unknown"


class ConfigError(Error, ValueError):
    """A bad DUET_BACKEND / DUET_DEVICE value or device spec."""


class BackendUnavailableError(Error):
    """The asked-for backend did not load (no driver, no platform, ...)."""


class DeviceNotFoundError(Error, LookupError):
    """No device of that index or name."""


class CompileError(Error):
    """The kernel source did not compile: .log, .line."""

    log = ""
    line = 0


class KernelNotFoundError(Error, LookupError):
    """No kernel of that name in the program."""


class ArgumentError(Error, TypeError):
    """A wrong argument count, kind, type or value (an int out of the parameter's range, say)."""


class BufferSizeError(Error, ValueError):
    """A transfer or launch needs more elements than the buffer holds."""


class OutOfMemoryError(Error, MemoryError):
    """The device could not allocate: .requested_bytes."""


class DeviceMismatchError(Error, ValueError):
    """An object of one device handed to another device."""


class ReleasedError(Error):
    """Use of a released or moved-from object."""


class DriverError(Error):
    """Any other failure the driver reports: .native_name, .native_code, .call."""


class KernelFaultError(Error):
    """A kernel faulted, wrote out of bounds (DUET_CHECK=1) or never ended: .fault, .kernels."""


class UnorderedAccessError(Error):
    """DUET_CHECK=1: two queues use the same bytes of a buffer with nothing ordering them."""


BY_KIND = {
    "config": ConfigError,
    "backend_unavailable": BackendUnavailableError,
    "device_not_found": DeviceNotFoundError,
    "compile": CompileError,
    "kernel_not_found": KernelNotFoundError,
    "argument": ArgumentError,
    "buffer_size": BufferSizeError,
    "out_of_memory": OutOfMemoryError,
    "device_mismatch": DeviceMismatchError,
    "released": ReleasedError,
    "driver": DriverError,
    "kernel_fault": KernelFaultError,
    "unordered_access": UnorderedAccessError,
}
for _kind, _cls in BY_KIND.items():
    _cls.kind = _kind
