"""Installs segv_backtrace.so, then runs steps.py: a crash prints its native backtrace."""
import ctypes, sys
lib = ctypes.CDLL("/tmp/segv_backtrace.so")
lib.install()
print("handler installed", flush=True)
import os; sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import steps
steps.test_a()
