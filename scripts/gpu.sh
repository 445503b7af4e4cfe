#!/usr/bin/env bash
# shellcheck disable=SC2317  # the helpers below are called by the phases
# The GPU machine's one entry: sources scripts/gpu-env.sh, configures and builds duet once
# (Release, Ninja, every core, build-gpu/), then runs the phases named, in order, each from
# scripts/gpu/<phase>.sh. docs/gpu-machine.md describes every phase and its variables.
#
# Usage (in the checkout's copy on the GPU machine): scripts/gpu.sh PHASE...
#   e.g. scripts/gpu.sh test bench        BASELINE=.baseline scripts/gpu.sh ab
# Files under $OUT (default gpu-out), few so that they all come back:
#   gpu.log       everything printed
#   summary.md    a section per phase: its verdict and its figures
#   logs.tar.gz   each phase's own logs and JSON, packed again after every phase
#   and the reports some phases write (RESULTS.md, gemm-report.md, ab.md, ...).
# Environment: DUET_BUILD_DIR (build-gpu), DUET_COMMIT (the commit to record: the machine's copy may
# carry an older .git), PYTHON (python3), BUDGET_S (540: no phase starts after that many seconds),
# SKIP_BUILD=1 (use the build folder as it is), BUILD_TARGETS (build only these, e.g. "duet_tool
# duet_gemm_bench" for the ab phase), DUET_CMAKE_ARGS (more configure arguments).
# Exit code: 0 when every phase passed, 1 otherwise, 2 for an unknown phase.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
repo=$PWD

phases_dir=$repo/scripts/gpu
known=$(cd "$phases_dir" && for f in *.sh; do printf '%s ' "${f%.sh}"; done)
if [ $# = 0 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
  sed -n '3,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  echo "Phases: $known"
  [ $# = 0 ] && exit 2 || exit 0
fi
for phase in "$@"; do
  [ -f "$phases_dir/$phase.sh" ] || { echo "gpu.sh: unknown phase '$phase' (phases: $known)" >&2; exit 2; }
done

out=${OUT:-gpu-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
exec > >(tee -a "$out/gpu.log") 2>&1
tee_pid=$!
summary=$out/summary.md
logs=$(mktemp -d)  # each phase's own files, packed into $out/logs.tar.gz after every phase
build=${DUET_BUILD_DIR:-build-gpu}
[[ $build == /* ]] || build=$repo/$build
python=${PYTHON:-python3}
# Where the commit is not given, the checkout's HEAD, marked "+changes" where the tracked files differ
# from it: a copy whose .git is older than its files then says so instead of naming the wrong commit.
if [ -z "${DUET_COMMIT:-}" ]; then
  DUET_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  [ "$DUET_COMMIT" != unknown ] && ! git diff --quiet HEAD -- 2>/dev/null && DUET_COMMIT+="+changes"
fi
export DUET_COMMIT
export PYTHONUNBUFFERED=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
start=$SECONDS
status=0

# What phases use.
say() { echo "=== [$((SECONDS - start)) s] $*"; }
note() { echo "$*" | tee -a "$summary"; }                  # a line of the summary, printed too
fail() { status=1; phase_status=1; [ $# = 0 ] || note "- FAILED: $*"; }
logged() { local log=$1; shift; "$@" > "$log" 2>&1; }      # LOG COMMAND...: its output into LOG
pack() { tar -C "$logs" -czf "$out/logs.tar.gz" . 2>/dev/null; }
nvidia_cl() { OCL_ICD_FILENAMES=$ocl_nvidia "$@"; }        # COMMAND...: NVIDIA's OpenCL alone
has() {  # cuda | nvidia | pocl: whether this machine has that device
  case $1 in
    cuda) grep -qE '^ *cuda:0' <<< "$devices" ;;
    nvidia) grep -E '^ *opencl:' <<< "$devices" | grep -qi nvidia ;;
    pocl) grep -qi 'portable computing language' <<< "$devices" ;;
  esac
}
# The CMake configure and build of a source tree: SOURCE BUILD LOG [TARGET...] (default: all).
build_tree() {
  local source=$1 dir=$2 log=$3
  shift 3
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  # shellcheck disable=SC2086  # DUET_CMAKE_ARGS: extra configure arguments, split on spaces
  { cmake -S "$source" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DPython_EXECUTABLE="$(command -v "$python")" ${DUET_CMAKE_ARGS:-} &&
    cmake --build "$dir" -j "$(nproc)" "${targets[@]}"; } > "$log" 2>&1
}

# shellcheck source=scripts/gpu-env.sh
DUET_ENV_BUILD_DIRS="$build $build-baseline" source scripts/gpu-env.sh
for f in "$phases_dir"/*.sh; do
  # shellcheck source=/dev/null
  source "$f"
done

{
  echo "# scripts/gpu.sh $*"
  echo
  echo "commit $DUET_COMMIT, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nvidia-smi --query-gpu=name,driver_version \
    --format=csv,noheader 2>/dev/null | head -1 || echo 'no NVIDIA GPU')"
} > "$summary"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  say "build ($build, $(nproc) cores)"
  mkdir -p "$logs/build"
  # shellcheck disable=SC2086  # BUILD_TARGETS: a list of targets
  build_tree . "$build" "$logs/build/build.log" ${BUILD_TARGETS:-} ||
    { tail -40 "$logs/build/build.log"; note "build FAILED"; pack; exec > /dev/null 2>&1; wait "$tee_pid"; exit 1; }
  grep -E "CLBlast|CUDA backend|Python module|DLPack" "$logs/build/build.log" | head -8
  echo "libduet's C++ runtime: $(readelf -d "$build"/core/libduet.so 2>/dev/null | grep -o 'libstdc++[^]]*' ||
    echo 'none linked (a private copy)')"
fi
devices=$("$build/duet" devices 2>&1)
echo "$devices"

for phase in "$@"; do
  if [ $((SECONDS - start)) -gt "${BUDGET_S:-540}" ]; then
    say "$phase skipped: past ${BUDGET_S:-540} s (BUDGET_S)"
    printf '\n## %s\n\nskipped: past %s s (BUDGET_S)\n' "$phase" "${BUDGET_S:-540}" >> "$summary"
    continue
  fi
  say "$phase"
  printf '\n## %s\n\n' "$phase" >> "$summary"
  mkdir -p "$logs/$phase"
  phase_status=0
  "phase_${phase//-/_}" "$logs/$phase"
  note "$phase: $([ $phase_status = 0 ] && echo passed || echo FAILED) ($((SECONDS - start)) s)"
  pack
done
say "done, status $status"
pack
rm -rf "$logs"
exec > /dev/null 2>&1
wait "$tee_pid"  # gpu.log whole before the call ends
exit $status
