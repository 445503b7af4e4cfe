# shellcheck shell=bash disable=SC2154  # build, python, out, summary, repo, start: set by scripts/gpu.sh
# extras: the program cache's timings (a first process compiling every built-in kernel source, then
# a second one reading them from the cache, per backend), the copy/compute overlap benchmark
# (duet-overlap), how soon a queue goes on after another queue's event (duet-queue-waits, its
# table into the summary) and the zero-copy round trip with the CUDA runtime (tests/cuda_interop.cpp).
phase_extras() {
  local dir=$1 spec
  for spec in cuda:0 opencl:NVIDIA; do
    { echo "=== $spec: first process, then a second one"
      DUET_CACHE_DIR=$dir/cache-${spec%%:*} "$build/duet" cache warm --device "$spec" &&
        DUET_CACHE_DIR=$dir/cache-${spec%%:*} "$build/duet" cache warm --device "$spec"
    } >> "$dir/cache.txt" 2>&1 || fail "duet cache warm on $spec"
    rm -rf "$dir/cache-${spec%%:*}"  # the programs, not the log beside them
    "$build/duet-overlap" --device "$spec" > "$dir/overlap-${spec%%:*}.txt" 2>&1 || fail "duet-overlap on $spec"
    note "- overlap, $spec: $(grep -i speedup "$dir/overlap-${spec%%:*}.txt" | tail -1)"
    "$build/duet-queue-waits" --device "$spec" > "$dir/queue-waits-${spec%%:*}.md" 2>&1 ||
      fail "duet-queue-waits on $spec"
    note "$(cat "$dir/queue-waits-${spec%%:*}.md")"
  done
  tail -8 "$dir/cache.txt"
  "$build/tests/duet_cuda_interop" > "$dir/cuda-interop.txt" 2>&1 || fail "duet_cuda_interop"
  note "- CUDA runtime interop: $(tail -1 "$dir/cuda-interop.txt")"
}
