#!/usr/bin/env bash
# Scaling of the distributed heat solver (`duet heat` under mpirun, duet::mpi) on a GPU machine with
# two or more GPUs, one rank per GPU, on the CUDA backend and on NVIDIA's OpenCL:
#   - bitwise: the field after STEPS steps on 1 device (no mpirun) and on every rank count, compared
#     byte for byte (cmp), at an awkward size;
#   - weak scaling: 16384^2 cells per GPU (NX = 16384 * ranks), STEPS steps, temporal blocking;
#   - strong scaling: 32768^2 cells, STEPS steps.
# Each timed line is the median of REPEAT runs inside one process (`duet heat --repeat`). Every
# result goes to $OUT/scaling.jsonl; bench/scaling_report.py turns it into the table.
#
# Usage (GPU machine): source .device/setup.sh && scripts/gpu-scaling.sh
# Environment: OUT (scaling-out), DUET_BUILD_DIR (build-gpu), STEPS (64), HALO (6), REPEAT (5),
# RANKS ("1 2"), BACKENDS ("cuda opencl"), OPENCL_DEVICE (NVIDIA: DUET_DEVICE for OpenCL), SKIP_BUILD=1,
# CASES ("bitwise weak strong"). With fewer GPUs than ranks, DUET_MPI_SHARE_DEVICES=1 lets ranks share
# them: right for the bitwise check, meaningless for the timings.
set -uo pipefail
out=${OUT:-scaling-out}
mkdir -p "$out"
build=${DUET_BUILD_DIR:-build-gpu}
steps=${STEPS:-64}
halo=${HALO:-6}
repeat=${REPEAT:-5}
ranks=${RANKS:-1 2}
backends=${BACKENDS:-cuda opencl}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
results="$out/scaling.jsonl"
: > "$results"

if [ "${SKIP_BUILD:-0}" != 1 ]; then
  { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DDUET_BUILD_EXAMPLES=OFF &&
      cmake --build "$build" --target duet_tool; } > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
fi
grep -q "building duet::mpi" "$out/build.log" 2>/dev/null || grep -q "duet_mpi" "$build/build.ninja" ||
  { echo "duet::mpi was not built (no MPI found)"; exit 1; }

device_filter() {  # backend -> DUET_DEVICE that keeps OpenCL on the GPUs' platform
  [ "$1" = opencl ] && echo "${OPENCL_DEVICE-NVIDIA}" || echo ""
}

heat() {  # backend ranks size label extra...
  local backend=$1 np=$2 size=$3 label=$4
  shift 4
  local log="$out/$label-$backend-np$np.log"
  if [ "$np" = 0 ]; then  # one device, no MPI
    DUET_BACKEND=$backend DUET_DEVICE=$(device_filter "$backend") "$build/duet" heat --size "$size" \
      --steps "$steps" "$@" > "$log" 2>&1
  else
    DUET_BACKEND=$backend DUET_DEVICE=$(device_filter "$backend") mpirun --bind-to none -np "$np" \
      "$build/duet" heat --size "$size" --steps "$steps" --halo "$halo" "$@" > "$log" 2>&1
  fi
  local status=$?
  local ms
  ms=$(sed -n 's/^time \([0-9.]*\) ms.*/\1/p' "$log")
  echo "{\"case\": \"$label\", \"backend\": \"$backend\", \"ranks\": $np, \"size\": \"$size\", \"steps\": $steps," \
       "\"halo\": $halo, \"ms\": ${ms:-null}, \"status\": $status}" >> "$results"
  echo "$label $backend ranks=$np size=$size: $(grep '^time' "$log" || tail -3 "$log")"
}

status=0
cases=${CASES:-bitwise weak strong}
for backend in $backends; do
  case " $cases " in *" bitwise "*) ;; *) continue ;; esac
  echo "=== $backend: bitwise, 4099x3001, $steps steps"
  heat "$backend" 0 4099x3001 bitwise --field "$out/field-$backend-1dev.raw"
  for np in $ranks; do
    heat "$backend" "$np" 4099x3001 bitwise --field "$out/field-$backend-np$np.raw"
    if cmp -s "$out/field-$backend-1dev.raw" "$out/field-$backend-np$np.raw"; then
      echo "{\"case\": \"bitwise\", \"backend\": \"$backend\", \"ranks\": $np, \"equal\": true}" >> "$results"
      echo "bitwise $backend ranks=$np: identical to one device"
    else
      echo "{\"case\": \"bitwise\", \"backend\": \"$backend\", \"ranks\": $np, \"equal\": false}" >> "$results"
      echo "bitwise $backend ranks=$np: DIFFERENT from one device"
      status=1
    fi
  done
  rm -f "$out"/field-"$backend"-*.raw
done
for backend in $backends; do
  case " $cases " in *" weak "*) ;; *) continue ;; esac
  echo "=== $backend: weak scaling, 16384^2 per GPU (overlap on, and off: what the overlap hides)"
  for np in $ranks; do
    heat "$backend" "$np" "$((16384 * np))x16384" weak --repeat "$repeat" --overlap on
    heat "$backend" "$np" "$((16384 * np))x16384" weak-no-overlap --repeat "$repeat" --overlap off
  done
done
for backend in $backends; do
  case " $cases " in *" strong "*) ;; *) continue ;; esac
  echo "=== $backend: strong scaling, 32768^2 (overlap on, and off)"
  for np in $ranks; do
    heat "$backend" "$np" 32768x32768 strong --repeat "$repeat" --overlap on
    heat "$backend" "$np" 32768x32768 strong-no-overlap --repeat "$repeat" --overlap off
  done
done
python3 bench/scaling_report.py "$results" | tee "$out/scaling.md"
exit $status
