#!/usr/bin/env bash
# One call on the GPU machine for issue 12 (duet for Python): build duet (build-gpu/) with the
# module, install the package into a virtual environment that sees the machine's CuPy, PyTorch,
# NumPy, nanobind and scikit-build-core (pip install --no-build-isolation --no-deps: no internet
# there), run the pytest suite with DUET_BACKEND=cuda and =opencl, the zero-copy example with CuPy
# and PyTorch, and bench/python_launch.py (launch overhead against CuPy's RawKernel; matmul and heat
# from Python against `duet bench`'s C++ figures from the same run). Logs under $OUT (gpu-logs).
# DLPack's header: Debian's where installed, else the copy PyTorch or CuPy ships.
# PIP_INSTALL=0 skips the install and imports the package from <build>/python.
# Usage (GPU machine): source .device/setup.sh && scripts/gpu-python.sh
set -uo pipefail
out=${OUT:-gpu-logs}
mkdir -p "$out"
out=$(cd "$out" && pwd)
repo=$(pwd)
build=${DUET_BUILD_DIR:-build-gpu}
[[ $build == /* ]] || build=$repo/$build
python=${PYTHON:-python3}
status=0

dlpack_args=()
if [ ! -f /usr/include/dlpack/dlpack.h ]; then
  header=$("$python" - <<'PY'
import glob, os
for mod in ("torch", "cupy"):
    try:
        base = os.path.dirname(__import__(mod).__file__)
    except Exception:
        continue
    found = glob.glob(os.path.join(base, "**", "dlpack.h"), recursive=True)
    if found:
        print(sorted(found, key=len)[0])
        break
PY
)
  if [ -n "$header" ]; then
    mkdir -p "$build/dlpack-include/dlpack"
    cp "$header" "$build/dlpack-include/dlpack/dlpack.h"
    dlpack_args=(-DDUET_DLPACK_INCLUDE_DIR="$build/dlpack-include")
    echo "DLPack header: $header"
  else
    echo "no DLPack header found: the module is built without zero copy"
  fi
fi

{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  "$python" -c "import sys, numpy, nanobind; print(sys.version); print('numpy', numpy.__version__, 'nanobind', nanobind.__version__)"
  # shellcheck disable=SC2086  # DUET_CMAKE_ARGS: extra configure arguments, split on spaces
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE="$(command -v "$python")" \
    "${dlpack_args[@]}" ${DUET_CMAKE_ARGS:-} && cmake --build "$build" --target duet_tool duet_python  # the duet command and the module
} > "$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }
tail -3 "$out/build.log"

if [ "${PIP_INSTALL:-1}" = 0 ]; then
  # The package as built in the tree (the wheel's build would compile the library a second time).
  export PYTHONPATH=$build/python${PYTHONPATH:+:$PYTHONPATH}
  py=$(command -v "$python")
  "$py" -c "import duet; print('build tree', duet.__file__, 'DLPack', duet.HAVE_DLPACK)"
else
  # A virtual environment that sees the machine's packages; when $python already runs in one, that one.
  if "$python" -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)'; then
    venv=$("$python" -c 'import sys; print(sys.prefix)')
  else
    venv="$build/python-venv"
    "$python" -m venv --system-site-packages "$venv"
  fi
  # Some environments (uv's) come without pip: Python's own bootstrap adds it, offline.
  "$venv/bin/python" -m pip --version > /dev/null 2>&1 || "$venv/bin/python" -m ensurepip > "$out/ensurepip.log" 2>&1
  {
    "$venv/bin/python" -m pip install --no-build-isolation --no-deps --config-settings=build-dir="$build/python-wheel" \
        ${dlpack_args:+--config-settings=cmake.define.DUET_DLPACK_INCLUDE_DIR="$build/dlpack-include"} . &&
      "$venv/bin/python" -c "import duet; print('installed', duet.__file__, 'DLPack', duet.HAVE_DLPACK)"
  } > "$out/pip-install.log" 2>&1 || { tail -40 "$out/pip-install.log"; exit 1; }
  tail -1 "$out/pip-install.log"
  py="$venv/bin/python"
fi

cd "$out"  # so that `import duet` is the installed package, not a source folder
"$py" -m duet devices 2>&1 | tee "$out/devices.txt"
for backend in ${PYTEST_BACKENDS-cuda opencl}; do  # PYTEST_BACKENDS= skips pytest
  echo "=== DUET_BACKEND=$backend: pytest"
  DUET_BACKEND=$backend "$py" -m pytest -q -rs "$repo/python/tests" > "$out/pytest-$backend.log" 2>&1 || status=1
  grep -E "passed|failed|SKIPPED|Error" "$out/pytest-$backend.log" | tail -12
  DUET_BACKEND=$backend "$py" -m duet run 2>&1 | tee "$out/run-$backend.txt" | tail -3 || status=1
done

echo "=== zero copy with CuPy and PyTorch"
DUET_BACKEND=cuda "$py" "$repo/examples/python/zero_copy.py" 2>&1 | tee "$out/zero-copy.txt" || status=1

echo "=== benchmark: duet bench (C++), then the same from Python"
"$build/duet" bench --device cuda:0 -k launch,matmul,heat_step,heat --json "$out/duet-bench-cuda.json" \
  > "$out/duet-bench-cuda.txt" 2>&1 || status=1
DUET_BACKEND=cuda "$py" "$repo/bench/python_launch.py" --cpp "$out/duet-bench-cuda.json" \
  --json "$out/python-bench-cuda.json" 2>&1 | tee "$out/python-bench-cuda.txt" || status=1
exit $status
