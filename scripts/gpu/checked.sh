# shellcheck shell=bash disable=SC2154  # build, python, out, summary, repo, start: set by scripts/gpu.sh
# checked: the suite in checked mode (DUET_CHECK=1: guard zones around every buffer, each launch
# waited for) on CUDA, NVIDIA's OpenCL and PoCL at once, one process each (PoCL alone takes
# minutes), then ctest's fault entries (duet.faults.*, the kernel-fault children).
phase_checked() {
  local dir=$1 run
  # Cases that hand duet memory it did not allocate, which has no guard zones to check.
  local exclude="-tce=*dlpack*,*native handles*,*wrap*,*wrapped*"
  DUET_TEST_BACKEND=cuda DUET_CHECK=1 timeout 420 "$build/tests/duet_tests" "$exclude" > "$dir/cuda.log" 2>&1 &
  DUET_TEST_DEVICE_KIND=gpu DUET_TEST_BACKEND=opencl DUET_CHECK=1 timeout 420 \
    "$build/tests/duet_tests" "$exclude" > "$dir/opencl-gpu.log" 2>&1 &
  DUET_TEST_DEVICE_KIND=cpu DUET_TEST_BACKEND=opencl DUET_CHECK=1 timeout 420 \
    "$build/tests/duet_tests" "$exclude" > "$dir/opencl-cpu.log" 2>&1 &
  wait
  for run in cuda opencl-gpu opencl-cpu; do
    note "- checked, $run: $(grep -E '^\[doctest\] (test cases|assertions)' "$dir/$run.log" | tr -s ' ' | tr '\n' ' ')$(
      grep -m1 -o 'SKIPPED.*' "$dir/$run.log")"
    grep -q 'Status: SUCCESS' "$dir/$run.log" || grep -q SKIPPED "$dir/$run.log" || {
      fail "checked suite on $run"; grep -E -A3 'ERROR|FATAL' "$dir/$run.log" | head -20; }
  done
  timeout 200 ctest --test-dir "$build" -R faults -j4 > "$dir/ctest-faults.log" 2>&1 || fail "ctest -R faults"
  note "- ctest -R faults: $(grep -E 'tests passed' "$dir/ctest-faults.log")"
}
