#!/usr/bin/env bash
# Before and after a change, on the GPU machine: builds the duet command from a second source tree
# (BEFORE_SRC: the older commit, e.g. unpacked from `git archive`) beside this checkout's, then runs
# `duet bench` with both, round by round (before, after, before, ...) so that any drift of the
# machine falls on both alike, and prints bench/ab_summary.py's table (median over rounds).
#
# Usage (GPU machine): source .device/setup.sh && BEFORE_SRC=<dir> scripts/gpu-ab.sh
# Environment: ROUNDS (3), KERNELS (launch; any of duet bench's --kernels list), DEVICES ("cuda:0
# opencl:NVIDIA"), RUNS (timed runs per case; default: the benchmark's), AFTER_BUILD (build-gpu),
# BEFORE_BUILD (build-before), BUILD_ONLY=1 (build, no runs).
set -uo pipefail
out=${OUT:-ab-out}
mkdir -p "$out"
rounds=${ROUNDS:-3}
kernels=${KERNELS:-launch}
devices=${DEVICES:-cuda:0 opencl:NVIDIA}
after=${AFTER_BUILD:-build-gpu}
before=${BEFORE_BUILD:-build-before}
: "${BEFORE_SRC:?set BEFORE_SRC to the source tree of the commit to compare with}"

build() {  # source_dir build_dir log
  { cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DDUET_BUILD_EXAMPLES=OFF &&
      cmake --build "$2" --target duet_tool; } > "$3" 2>&1 || { tail -30 "$3"; exit 1; }
}
build "$BEFORE_SRC" "$before" "$out/build-before.log"
build . "$after" "$out/build-after.log"
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0

runs=()
[ -n "${RUNS:-}" ] && runs=(--runs "$RUNS")
status=0
for round in $(seq 1 "$rounds"); do
  for side in before after; do
    dir=$before
    [ "$side" = after ] && dir=$after
    for device in $devices; do
      name=$(echo "$device" | tr ':' '-')
      "$dir/duet" bench --device "$device" --kernels "$kernels" "${runs[@]}" --json "$out/$side-$name-$round.json" \
        > "$out/$side-$name-$round.log" 2>&1 || { status=1; tail -5 "$out/$side-$name-$round.log"; }
    done
  done
done
python3 bench/ab_summary.py "$out" | tee "$out/summary.md"
exit $status
