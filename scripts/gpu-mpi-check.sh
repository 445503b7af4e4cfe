#!/usr/bin/env bash
# duet::mpi on the GPU machine, both GPU backends: the MPI test program on 1 to 4 ranks, the
# checkpoint test (SIGKILL, restart, damaged file) and the bitwise check of `duet heat` under
# mpirun against one device (scripts/gpu-scaling.sh CASES=bitwise). With one GPU the ranks share it
# (DUET_MPI_SHARE_DEVICES=1): that checks correctness, not speed. Logs under $OUT (gpu-mpi).
# Usage (GPU machine): source .device/setup.sh && scripts/gpu-mpi-check.sh
set -uo pipefail
out=${OUT:-gpu-mpi}
mkdir -p "$out"
build=${DUET_BUILD_DIR:-build-gpu}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 DUET_MPI_SHARE_DEVICES=1
{ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build "$build"; } > "$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }
status=0
for backend in cuda opencl; do
  filter=""
  [ "$backend" = opencl ] && filter=NVIDIA
  for np in 1 2 3 4; do
    if DUET_BACKEND=$backend DUET_DEVICE=$filter mpirun --oversubscribe -np "$np" "$build/mpi/tests/duet_mpi_tests" \
        > "$out/tests-$backend-np$np.log" 2>&1; then
      echo "duet_mpi_tests $backend np=$np: passed ($(grep -m1 -o 'test cases: .*' "$out/tests-$backend-np$np.log"))"
    else
      echo "duet_mpi_tests $backend np=$np: FAILED"; tail -20 "$out/tests-$backend-np$np.log"; status=1
    fi
  done
  if DUET_BACKEND=$backend DUET_DEVICE=$filter tests/mpi_checkpoint_test.sh "$build/duet" mpirun > "$out/checkpoint-$backend.log" 2>&1; then
    echo "checkpoint test $backend: passed"; grep -E "killed at|resuming|named" "$out/checkpoint-$backend.log"
  else
    echo "checkpoint test $backend: FAILED"; tail -20 "$out/checkpoint-$backend.log"; status=1
  fi
done
OUT="$out/bitwise" SKIP_BUILD=1 CASES=bitwise RANKS="1 2 3 4" DUET_BUILD_DIR="$build" scripts/gpu-scaling.sh ||
  status=1
exit $status
