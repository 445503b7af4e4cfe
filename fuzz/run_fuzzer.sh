#!/usr/bin/env bash
# ctest's fuzz.<harness>: replays every input in fuzz/regressions/<harness>/ (each one crashed duet
# once), then fuzzes for a fixed time from a copy of fuzz/corpus/<harness>/ in <work dir>, so that the
# inputs libFuzzer adds, and any crash it finds, are written under the build directory, never into
# the repository. A crash fails the test and names the file that reproduces it: fix the bug, then
# keep the file in fuzz/regressions/<harness>/.
# Usage: run_fuzzer.sh <fuzzer> <harness> <fuzz source dir> <work dir> <seconds> <max input bytes>
set -euo pipefail
fuzzer=$1 harness=$2 source=$3 work=$4 seconds=$5 max_len=$6

options=(-rss_limit_mb=2048 -timeout=10 -max_len="$max_len")
if [[ -f $source/$harness.dict ]]; then
  options+=(-dict="$source/$harness.dict")
fi

shopt -s nullglob
regressions=("$source/regressions/$harness"/*)
if ((${#regressions[@]})); then
  echo "=== fuzz.$harness: replaying ${#regressions[@]} regression inputs"
  "$fuzzer" "${options[@]}" "${regressions[@]}"
fi

rm -rf "$work"
mkdir -p "$work/corpus"
cp "$source/corpus/$harness"/* "$work/corpus/"
echo "=== fuzz.$harness: fuzzing for $seconds s from $(ls "$work/corpus" | wc -l) seed inputs"
"$fuzzer" "${options[@]}" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/" \
  "$work/corpus"
