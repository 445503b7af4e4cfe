# shellcheck shell=bash disable=SC2154  # build, python, out, summary, repo, start: set by scripts/gpu.sh
# scaling: the distributed heat solver (`duet heat` under mpirun) on a machine with two or more GPUs,
# one rank per GPU, on the CUDA backend and on NVIDIA's OpenCL:
#   bitwise  the field after STEPS steps on one device (no mpirun) and on every rank count, compared
#            byte for byte, at an awkward size;
#   weak     16384^2 cells per GPU (NX = 16384 * ranks), overlap on and off;
#   strong   32768^2 cells, overlap on and off;
#   halo1    weak with an exchange every step (--halo 1), automatic overlap and without it;
#   dims     4 ranks only: 1 x 4, 4 x 1 and 2 x 2 forced (--dims) on 65536x16384 and 16384x65536;
# weak and halo1 also run with --skip-exchange (the compute-only bound), and weak on one device
# without mpirun.
# Each timed line is the median of REPEAT runs inside one process (`duet heat --repeat`); every
# result is a line of scaling/scaling.jsonl, and bench/scaling_report.py's table goes to the summary.
# SCALING_CASES ("bitwise weak strong"), RANKS ("1 2"), BACKENDS ("cuda opencl"), STEPS (64),
# HALO (6), REPEAT (5), OPENCL_DEVICE (NVIDIA: DUET_DEVICE for OpenCL). With fewer GPUs than ranks,
# DUET_MPI_SHARE_DEVICES=1 lets ranks share them: right for the bitwise check, meaningless for the
# timings.

# One run of `duet heat`: DIR BACKEND RANKS SIZE LABEL [duet heat arguments...]; RANKS 0 is one
# device without mpirun. Appends a line to DIR/scaling.jsonl.
heat_run() {
  local dir=$1 backend=$2 np=$3 size=$4 label=$5 steps=${STEPS:-64} halo=${HALO:-6}
  shift 5
  local log=$dir/$label-$backend-np$np.log device=
  [ "$backend" = opencl ] && device=${OPENCL_DEVICE-NVIDIA}  # keeps OpenCL on the GPUs' platform
  if [ "$np" = 0 ]; then
    DUET_BACKEND=$backend DUET_DEVICE=$device "$build/duet" heat --size "$size" --steps "$steps" "$@" > "$log" 2>&1
  else
    DUET_BACKEND=$backend DUET_DEVICE=$device mpirun --oversubscribe --bind-to none -np "$np" \
      "$build/duet" heat --size "$size" --steps "$steps" --halo "$halo" "$@" > "$log" 2>&1
  fi
  local rc=$? ms
  ms=$(sed -n 's/^time \([0-9.]*\) ms.*/\1/p' "$log")
  echo "{\"case\": \"$label\", \"backend\": \"$backend\", \"ranks\": $np, \"size\": \"$size\", \"steps\": $steps," \
    "\"halo\": $halo, \"ms\": ${ms:-null}, \"status\": $rc}" >> "$dir/scaling.jsonl"
  echo "$label $backend ranks=$np size=$size: $(grep '^time' "$log" || tail -3 "$log")"
  return $rc
}

# The cases named: DIR CASES...
heat_scaling() {
  local dir=$1 backend np case equal size dims
  shift
  grep -q duet_mpi "$build/build.ninja" || { fail "duet::mpi was not built (no MPI found)"; return; }
  for case in "$@"; do
    for backend in ${BACKENDS:-cuda opencl}; do
      for np in ${RANKS:-1 2}; do
        case $case in
          bitwise)
            [ -f "$dir/field-$backend-1dev.raw" ] ||
              heat_run "$dir" "$backend" 0 4099x3001 bitwise --field "$dir/field-$backend-1dev.raw"
            heat_run "$dir" "$backend" "$np" 4099x3001 bitwise --field "$dir/field-$backend-np$np.raw"
            equal=false
            cmp -s "$dir/field-$backend-1dev.raw" "$dir/field-$backend-np$np.raw" && equal=true
            echo "{\"case\": \"bitwise\", \"backend\": \"$backend\", \"ranks\": $np, \"equal\": $equal}" \
              >> "$dir/scaling.jsonl"
            [ $equal = true ] || fail "bitwise, $backend, $np ranks: the field differs from one device's" ;;
          weak)
            [ "$np" = 1 ] && heat_run "$dir" "$backend" 0 16384x16384 weak-one-device --repeat "${REPEAT:-5}"
            heat_run "$dir" "$backend" "$np" "$((16384 * np))x16384" weak-compute-only --repeat "${REPEAT:-5}" \
              --skip-exchange
            heat_run "$dir" "$backend" "$np" "$((16384 * np))x16384" weak --repeat "${REPEAT:-5}" --overlap on
            heat_run "$dir" "$backend" "$np" "$((16384 * np))x16384" weak-no-overlap --repeat "${REPEAT:-5}" \
              --overlap off
            # Edges through MPI (OpenCL): both overlapped schedules forced, beside the rule's choice.
            if [ "$backend" = opencl ] && [ "$np" != 1 ]; then
              DUET_MPI_OVERLAP_QUEUES=1 heat_run "$dir" "$backend" "$np" "$((16384 * np))x16384" weak-one-queue \
                --repeat "${REPEAT:-5}" --overlap on
              DUET_MPI_OVERLAP_QUEUES=2 heat_run "$dir" "$backend" "$np" "$((16384 * np))x16384" weak-two-queues \
                --repeat "${REPEAT:-5}" --overlap on
            fi ;;
          halo1)
            HALO=1 heat_run "$dir" "$backend" "$np" "$((16384 * np))x16384" weak-halo1 --repeat "${REPEAT:-5}"
            # Without overlap every step is a pass of its own; automatic overlap steps bands beside
            # full-depth passes of the tile.
            [ "$np" = 1 ] || HALO=1 heat_run "$dir" "$backend" "$np" "$((16384 * np))x16384" weak-halo1-no-overlap \
              --repeat "${REPEAT:-5}" --overlap off
            HALO=1 heat_run "$dir" "$backend" "$np" "$((16384 * np))x16384" weak-halo1-compute-only \
              --repeat "${REPEAT:-5}" --skip-exchange ;;
          dims)
            # The decomposition forced both ways on both orientations of the weak grid (4 ranks).
            [ "$np" = 4 ] || continue
            for size in 65536x16384 16384x65536; do
              for dims in 4x1 1x4 2x2; do
                heat_run "$dir" "$backend" 4 "$size" "weak-dims-$dims-$size" --repeat "${REPEAT:-5}" --dims "$dims"
              done
            done ;;
          strong)
            heat_run "$dir" "$backend" "$np" 32768x32768 strong --repeat "${REPEAT:-5}" --overlap on
            heat_run "$dir" "$backend" "$np" 32768x32768 strong-no-overlap --repeat "${REPEAT:-5}" --overlap off ;;
        esac
      done
    done
  done
  rm -f "$dir"/field-*.raw
  "$python" bench/scaling_report.py "$dir/scaling.jsonl" | tee -a "$summary"
}

phase_scaling() {
  # shellcheck disable=SC2086  # a list of cases
  heat_scaling "$1" ${SCALING_CASES:-bitwise weak strong}
}
