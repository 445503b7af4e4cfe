# shellcheck shell=bash disable=SC2154  # build, python, out, summary, repo, start: set by scripts/gpu.sh
# mpi: duet::mpi on both GPU backends: the MPI test program on 1 to 4 ranks, the checkpoint test
# (SIGKILL, restart, a damaged file: tests/mpi_checkpoint_test.sh) and the bitwise check of
# `duet heat` under mpirun against one device (the scaling phase's bitwise case, on 1 to 4 ranks).
# With fewer GPUs than ranks the ranks share them (DUET_MPI_SHARE_DEVICES=1): this checks
# correctness, not speed.
phase_mpi() {
  local dir=$1 backend np filter
  export DUET_MPI_SHARE_DEVICES=1
  for backend in cuda opencl; do
    filter=
    [ "$backend" = opencl ] && filter=NVIDIA
    for np in 1 2 3 4; do
      if DUET_BACKEND=$backend DUET_DEVICE=$filter mpirun --oversubscribe -np "$np" "$build/mpi/tests/duet_mpi_tests" \
          > "$dir/tests-$backend-np$np.log" 2>&1; then
        note "- duet_mpi_tests, $backend, $np ranks: passed ($(
          grep -m1 -o 'test cases: .*' "$dir/tests-$backend-np$np.log"))"
      else
        fail "duet_mpi_tests, $backend, $np ranks"; tail -20 "$dir/tests-$backend-np$np.log"
      fi
    done
    # The paths between nodes, with every rank acting as a node of its own.
    if DUET_MPI_SEPARATE_NODES=1 DUET_BACKEND=$backend DUET_DEVICE=$filter mpirun --oversubscribe -np 4 \
        "$build/mpi/tests/duet_mpi_tests" > "$dir/tests-$backend-np4-nodes.log" 2>&1; then
      note "- duet_mpi_tests, $backend, 4 ranks as separate nodes: passed"
    else
      fail "duet_mpi_tests, $backend, 4 ranks as separate nodes"; tail -20 "$dir/tests-$backend-np4-nodes.log"
    fi
    if DUET_BACKEND=$backend DUET_DEVICE=$filter tests/mpi_checkpoint_test.sh "$build/duet" mpirun \
        > "$dir/checkpoint-$backend.log" 2>&1; then
      note "- checkpoint test, $backend: passed"
    else
      fail "checkpoint test, $backend"; tail -20 "$dir/checkpoint-$backend.log"
    fi
  done
  RANKS="1 2 3 4" heat_scaling "$dir" bitwise
  unset DUET_MPI_SHARE_DEVICES
}
