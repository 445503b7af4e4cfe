#!/usr/bin/env bash
# ctest duet.mpi.checkpoint: `duet heat`'s checkpoints across processes, as a user meets them.
#   1. a reference run on one device, without MPI;
#   2. the same run on 3 ranks with a checkpoint every 100 steps, killed with SIGKILL (mpirun and
#      every rank: Open MPI gives ranks process groups of their own, so they are found by their
#      command line, which names the test's own directory) once a checkpoint past step 500 exists;
#   3. a restart on 2 ranks must pass over no file and end bitwise equal to the reference;
#   4. the newest checkpoint damaged (bytes of its field changed): a restart on 4 ranks must name
#      it, fall back to the one before, and still end bitwise equal;
#   5. --until on one device and on 3 ranks: both stop at the same step with the same field.
# Usage: mpi_checkpoint_test.sh <duet command> <mpiexec> [mpiexec flags...] (the flags come after the
# rank count: mpi/tests/mpiexec.cmake's). Exit 77 (skipped) without a device.
set -u
duet=$1
mpiexec=$2
shift 2
flags=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
size=157x101
steps=6000
fail() { echo "FAILED: $*"; for f in "$work"/*.log; do echo "--- $f"; tail -20 "$f"; done; exit 1; }

if ! "$duet" heat --size "$size" --steps "$steps" --field "$work/reference.raw" > "$work/reference.log" 2>&1; then
  grep -qi "no device" "$work/reference.log" && { echo "SKIPPED: no device"; cat "$work/reference.log"; exit 77; }
  fail "the reference run failed"
fi

# 2. Killed mid-way.
"$mpiexec" -np 3 "${flags[@]}" "$duet" heat --size "$size" --steps "$steps" --halo 3 \
  --checkpoint "$work/ck" --every 100 > "$work/killed.log" 2>&1 &
leader=$!
killed=0
for _ in $(seq 1 1200); do
  newest=$(ls "$work/ck" 2>/dev/null | grep -E '^checkpoint-[0-9]+\.duet$' | sort | tail -1)
  if [ -n "$newest" ] && [ "$((10#${newest//[!0-9]/}))" -ge 500 ]; then
    pkill -9 -f -- "$work/ck" && killed=1
    break
  fi
  kill -0 "$leader" 2>/dev/null || break
  sleep 0.05
done
wait "$leader" 2>/dev/null
for _ in $(seq 1 100); do pgrep -f -- "$work/ck" > /dev/null || break; sleep 0.05; done
pgrep -f -- "$work/ck" > /dev/null && fail "ranks of the killed run are still alive"
[ "$killed" = 1 ] || fail "the run ended before a checkpoint past step 500 could be killed"
grep -q "^time" "$work/killed.log" && fail "the killed run finished"
echo "killed once $newest existed; left: $(ls -a "$work/ck" | tr '\n' ' ')"

# 3. Restart on another rank count.
"$mpiexec" -np 2 "${flags[@]}" "$duet" heat --steps "$steps" --halo 3 --restart "$work/ck" \
  --field "$work/restarted.raw" > "$work/restart.log" 2>&1 || fail "the restart failed"
grep -q "passing over" "$work/restart.log" && fail "a checkpoint left by the killed run was not whole"
cmp -s "$work/reference.raw" "$work/restarted.raw" || fail "the restarted run differs from the reference"
echo "restart on 2 ranks: $(grep resuming "$work/restart.log"), bitwise equal to the reference"

# 4. Damage the newest checkpoint's field, keep its length.
newest=$(ls "$work/ck" | grep -E '^checkpoint-[0-9]+\.duet$' | sort | tail -1)
printf 'duet' | dd of="$work/ck/$newest" bs=1 seek=4000 conv=notrunc status=none
"$mpiexec" -np 4 "${flags[@]}" "$duet" heat --steps "$steps" --halo 3 --restart "$work/ck" \
  --field "$work/fallback.raw" > "$work/fallback.log" 2>&1 || fail "the restart after damage failed"
grep -q "passing over checkpoint" "$work/fallback.log" && grep -q "$work/ck/$newest: .*checksum" "$work/fallback.log" ||
  fail "the damaged checkpoint $newest was not named"
cmp -s "$work/reference.raw" "$work/fallback.raw" || fail "the run resumed from the previous checkpoint differs"
echo "damaged $newest: named, passed over; $(grep resuming "$work/fallback.log"), bitwise equal"

# 5. Convergence: the change of one step, reduced on each device and over the ranks.
"$duet" heat --size 61x47 --steps 100000 --until 1e-4 --check-every 50 --field "$work/until-1.raw" \
  > "$work/until-1.log" 2>&1 || fail "--until on one device failed"
"$mpiexec" -np 3 "${flags[@]}" "$duet" heat --size 61x47 --steps 100000 --halo 2 --until 1e-4 --check-every 50 \
  --field "$work/until-3.raw" > "$work/until-3.log" 2>&1 || fail "--until on 3 ranks failed"
stop_1=$(grep -o "after [0-9]* steps" "$work/until-1.log")
stop_3=$(grep -o "after [0-9]* steps" "$work/until-3.log")
[ -n "$stop_1" ] && [ "$stop_1" = "$stop_3" ] || fail "--until stopped '$stop_1' on one device, '$stop_3' on 3 ranks"
cmp -s "$work/until-1.raw" "$work/until-3.raw" || fail "--until's fields differ between one device and 3 ranks"
echo "--until 1e-4: converged $stop_1 on one device and on 3 ranks, bitwise equal"
echo "passed"
