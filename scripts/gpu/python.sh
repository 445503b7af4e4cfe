# shellcheck shell=bash disable=SC2154  # build, python, out, summary, repo, start: set by scripts/gpu.sh
# python: the Python package against the module built in the build tree (<build>/python), or, with
# PIP_INSTALL=1, installed by `pip install --no-build-isolation --no-deps .` into a virtual
# environment that sees the machine's CuPy, PyTorch, NumPy, nanobind and scikit-build-core (the
# machine has no package registry). Runs pytest on the CUDA and the OpenCL backend
# (PYTEST_BACKENDS, default "cuda opencl"; empty skips pytest), `python -m duet run`, the zero-copy
# example with CuPy and PyTorch, and bench/python_launch.py (launch overhead beside CuPy's
# RawKernel; matmul and heat from Python beside `duet bench`'s C++ figures from the same call).
phase_python() {
  local dir=$1 py backend
  if [ "${PIP_INSTALL:-0}" = 1 ]; then
    local venv=$build/python-venv
    "$python" -m venv --system-site-packages "$venv"
    # Some environments (uv's) come without pip: Python's own bootstrap adds it, offline.
    "$venv/bin/python" -m pip --version > /dev/null 2>&1 || "$venv/bin/python" -m ensurepip > "$dir/ensurepip.log" 2>&1
    logged "$dir/pip-install.log" "$venv/bin/python" -m pip install --no-build-isolation --no-deps \
      --config-settings=build-dir="$build/python-wheel" . ||
      { tail -30 "$dir/pip-install.log"; fail "pip install ."; return; }
    py=$venv/bin/python
  else
    [ -d "$build/python/duet" ] || { fail "the module was not built (see build.log: Python module)"; return; }
    export PYTHONPATH=$build/python${PYTHONPATH:+:$PYTHONPATH}
    py=$(command -v "$python")
  fi
  # From $dir, so that `import duet` is the package under test, not the source folder.
  (
    cd "$dir" || exit 1
    note "- $("$py" -c 'import duet; print("duet from", duet.__file__, "DLPack", duet.HAVE_DLPACK)' 2>&1 |
      tail -1)"
    for backend in ${PYTEST_BACKENDS-cuda opencl}; do
      DUET_BACKEND=$backend "$py" -m pytest -q -rs "$repo/python/tests" > "pytest-$backend.log" 2>&1 ||
        echo "pytest on $backend" >> failed
      note "- pytest, $backend: $(tail -1 "pytest-$backend.log")"
      DUET_BACKEND=$backend "$py" -m duet run > "run-$backend.txt" 2>&1 ||
        echo "python -m duet run on $backend" >> failed
      note "- python -m duet run, $backend: $(tail -1 "run-$backend.txt")"
    done
    DUET_BACKEND=cuda "$py" "$repo/examples/python/zero_copy.py" > zero-copy.txt 2>&1 || echo "zero_copy.py" >> failed
    note "- zero copy: $(tail -1 zero-copy.txt)"
    "$build/duet" bench --device cuda:0 -k launch,matmul,heat_step,heat --json duet-bench-cuda.json \
      > duet-bench-cuda.txt 2>&1 || echo "duet bench on cuda:0" >> failed
    DUET_BACKEND=cuda "$py" "$repo/bench/python_launch.py" --cpp duet-bench-cuda.json --json python-bench-cuda.json \
      > python-bench-cuda.txt 2>&1 || echo "bench/python_launch.py" >> failed
    tail -12 python-bench-cuda.txt | sed 's/^/    /' | tee -a "$summary"
  )
  [ -s "$dir/failed" ] && fail "$(paste -sd, "$dir/failed")"
  return 0
}
