# shellcheck shell=bash disable=SC2154  # build, python, out, summary, repo, start: set by scripts/gpu.sh
# bench: the benchmark of the built-in kernels (`duet bench`) on every device there is (cuda:0,
# opencl:NVIDIA, PoCL), with its peers beside it: the drivers' launch floor (duet-launch-floor) and
# CuPy (bench/compare_cupy.py; cuBLAS SGEMM with TF32 off) where there is a CUDA GPU, PyOpenCL
# (bench/compare_pyopencl.py) on PoCL where it is installed, graph replays beside CuPy's and
# PyTorch's (bench/compare_graphs.py, into $OUT/graphs.md); then bench/report.py into
# $OUT/RESULTS.md and bench/plot.py into $OUT/results.png.
# BENCH_RUNS (timed runs per case), BENCH_SMOKE=1 (tiny sizes: a dry run), BENCH_KERNELS (duet
# bench's --kernels), BENCH_ROUNDS (PoCL: rounds of duet then PyOpenCL, default 1; report.py keeps
# each row's fastest).
phase_bench() {
  local dir=$1 extra=() peer=() inputs=() floor=() round spec name
  [ -n "${BENCH_RUNS:-}" ] && extra+=(--runs "$BENCH_RUNS")
  [ "${BENCH_SMOKE:-0}" = 1 ] && extra+=(--smoke)
  local kernels=()
  [ -n "${BENCH_KERNELS:-}" ] && kernels=(--kernels "$BENCH_KERNELS")
  if has cuda; then
    "$build/duet-launch-floor" > "$dir/launch-floor.jsonl" 2> "$dir/launch-floor.log" || fail "duet-launch-floor"
    [ -s "$dir/launch-floor.jsonl" ] && floor=(--floor "$dir/launch-floor.jsonl")
    logged "$dir/cupy.log" env CUPY_TF32=0 "$python" bench/compare_cupy.py --json "$dir/cupy.json" \
      "${kernels[@]}" "${extra[@]}" ||
      fail "CuPy's side (bench/cupy.log)"
    [ -s "$dir/cupy.json" ] && peer=(--peer "$dir/cupy.json") && inputs+=("$dir/cupy.json")
    logged "$dir/graphs.log" "$python" bench/compare_graphs.py --out "$out/graphs.md" ||
      fail "graph replays beside CuPy's and PyTorch's (bench/compare_graphs.py)"
  fi
  for spec in cuda:0 opencl:NVIDIA opencl:portable; do
    case $spec in cuda:0) has cuda ;; opencl:NVIDIA) has nvidia ;; *) has pocl ;; esac || continue
    name=${spec%%:*}; [ "$spec" = opencl:portable ] && name=pocl
    for round in $(seq 1 "$([ "$name" = pocl ] && echo "${BENCH_ROUNDS:-1}" || echo 1)"); do
      logged "$dir/duet-$name-$round.log" "$build/duet" bench --device "$spec" "${peer[@]}" "${kernels[@]}" \
        "${extra[@]}" --json "$dir/duet-$name-$round.json" || fail "duet bench on $spec"
      [ -s "$dir/duet-$name-$round.json" ] && inputs+=("$dir/duet-$name-$round.json")
      if [ "$name" = pocl ] && "$python" -c 'import pyopencl' 2> /dev/null; then
        logged "$dir/pyopencl-$round.log" "$python" bench/compare_pyopencl.py --device portable \
          "${kernels[@]}" "${extra[@]}" --duet-json "$dir/duet-$name-$round.json" \
          --json "$dir/pyopencl-$round.json" || fail "PyOpenCL's side"
        [ -s "$dir/pyopencl-$round.json" ] && inputs+=("$dir/pyopencl-$round.json")
      fi
    done
  done
  [ ${#inputs[@]} -gt 0 ] || { fail "no results"; return; }
  logged "$dir/plot.log" "$python" bench/plot.py "${inputs[@]}" --out "$out/results.png" ||
    echo "plot failed (matplotlib missing?): run bench/plot.py on the JSON in logs.tar.gz"
  logged "$dir/report.log" "$python" bench/report.py "${inputs[@]}" "${floor[@]}" --out "$out/RESULTS.md" \
    --plot results.png || fail "bench/report.py"
  note "- RESULTS.md: $(grep -c PASS "$out/RESULTS.md" 2> /dev/null) targets PASS, $(
    grep -c MISS "$out/RESULTS.md" 2> /dev/null) MISS"
  grep -E 'MISS' "$out/RESULTS.md" 2> /dev/null | head -10 | sed 's/^/  /' | tee -a "$summary"
}
