"""duet.fuse: a function's elementwise arithmetic on duet arrays as one kernel.

    @duet.fuse
    def leaky_axpy(a, x, y):
        z = a * x + y
        return duet.where(z > 0, z, 0.1 * z)

    out = leaky_axpy(2.0, x, y)             # one kernel (eagerly, a * x + y alone runs two)
    out = leaky_axpy(2.0, x, y, queue=q)    # on another queue than the default one

The function is called with a duet.Expression in place of each duet.Array argument (other arguments
pass as they are): operators and duet's elementwise functions (duet.sqrt, duet.where, astype, ...)
on Expressions build one duet::Expr, and what the function returns (an Expression, or a tuple or
list of them) is evaluated when it returns, each as one kernel that reads every array once. The
arrays are read then, so the result is what the eager code would give. Inside, the arrays can be
indexed (x[1:] - x[:-1]); the expressions made from them cannot, and reductions and matmul take
arrays, not expressions (call them on the fused function's result).
"""

import functools

from . import _duet


def _leaf(v):
    return _duet._leaf(v) if isinstance(v, _duet.Array) else v


def _value(v, queue):
    if isinstance(v, _duet.Expression):
        return v.evaluate(queue=queue)
    if isinstance(v, tuple):
        return tuple(_value(e, queue) for e in v)
    if isinstance(v, list):
        return [_value(e, queue) for e in v]
    return v


def fuse(function):
    """The function with its elementwise arithmetic fused into one kernel per result (see the module's
    documentation); the wrapper takes queue= besides the function's arguments."""
    @functools.wraps(function)
    def fused(*args, queue=None, **kwargs):
        result = function(*(_leaf(a) for a in args), **{k: _leaf(v) for k, v in kwargs.items()})
        return _value(result, queue)
    return fused
