# shellcheck shell=bash disable=SC2154  # build, python, out, summary, repo, start: set by scripts/gpu.sh
# exchange: one halo exchange against the links it uses (duet-exchange-bench, two ranks), on the
# CUDA backend and on NVIDIA's OpenCL, strips of 1 KiB to 4 MiB. One rank per GPU where there are
# two; on one GPU the ranks share it (DUET_MPI_SHARE_DEVICES=1; CUDA rows under CUDA MPS, below),
# which still compares the paths.
# EXCHANGE_ARGS: more arguments (--runs N, --sizes ...). EXCHANGE_BASELINE=<dir>: a baseline source
# tree (as for the ab phase), whose duet-exchange-bench is built in <build>-baseline and run after
# this checkout's on the host-staged rows, so that a change to that path meets the same machine.
phase_exchange() {
  local dir=$1 backend device share=0 benches=current base_build=$build-baseline
  [ -x "$build/duet-exchange-bench" ] || { fail "duet-exchange-bench was not built (no MPI found)"; return; }
  if [ -n "${EXCHANGE_BASELINE:-}" ]; then
    say "exchange: the baseline's duet-exchange-bench ($EXCHANGE_BASELINE into $base_build)"
    if build_tree "$(cd "$EXCHANGE_BASELINE" && pwd)" "$base_build" "$dir/build-baseline.log" duet_exchange_bench; then
      benches="current baseline"
    else
      tail -30 "$dir/build-baseline.log"; fail "the baseline's build"
    fi
  fi
  # The device table's rows, not the graphs list's indented lines below it.
  [ "$(grep -cE '^cuda:[0-9]+ ' <<< "$devices")" -lt 2 ] && share=1
  # The MPI leg of the host-staged path between ranks of one machine: Open MPI's shared memory moves
  # a message in one copy where the kernel lets one process read another's memory (CMA, which
  # ptrace rules and container profiles may forbid), else through its buffers, several times slower
  # at tens of kilobytes.
  local copy scope
  copy=$(ompi_info --param btl vader --level 9 2>/dev/null |
    sed -n 's/.*btl_vader_single_copy_mechanism" (current value: "\([^"]*\)".*/\1/p' | head -1)
  scope=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo unknown)
  note "- Open MPI shared-memory single copy: configured ${copy:-unknown}, ptrace_scope $scope"
  # cuda: the peer path; cuda-nodes: the same ranks acting as separate nodes (host-staged MPI), and
  # where Open MPI is not set to CMA, cuda-nodes-cma: the same with CMA asked for.
  local backends="cuda cuda-nodes opencl" mca
  [ "${copy:-}" != cma ] && backends="cuda cuda-nodes cuda-nodes-cma opencl"
  # Ranks sharing one GPU take turns on it in time slices far longer than an exchange, unless CUDA's
  # multi-process service runs their work side by side: started here for the CUDA rows (private
  # folders; the GPU's settings stay as they are) and stopped before NVIDIA's OpenCL, which does not
  # open a context under it.
  local mps=''
  if [ "$share" = 1 ] && has cuda && command -v nvidia-cuda-mps-control > /dev/null; then
    mps=$(mktemp -d)
    mkdir -p "$mps/pipe" "$mps/log"
    if CUDA_MPS_PIPE_DIRECTORY=$mps/pipe CUDA_MPS_LOG_DIRECTORY=$mps/log nvidia-cuda-mps-control -d; then
      export CUDA_MPS_PIPE_DIRECTORY=$mps/pipe CUDA_MPS_LOG_DIRECTORY=$mps/log
      note "- one GPU: the CUDA rows' two ranks share it through CUDA MPS"
    else
      mps=''
      note "- one GPU: CUDA MPS would not start; the ranks take turns on the GPU (figures of time slices)"
    fi
  fi
  for backend in $backends; do
    [ "$backend" = opencl ] && stop_mps "$mps" && mps=''
    [ "$backend" = opencl ] && [ "$share" = 1 ] &&
      note "- one GPU: NVIDIA's OpenCL rows below are its two ranks taking turns on the GPU (no MPS): time slices, not the path's cost"
    device='' separate=0 mca=''
    [ "$backend" = opencl ] && device=NVIDIA
    [ "$backend" != cuda ] && [ "$backend" != opencl ] && separate=1
    [ "$backend" = cuda-nodes-cma ] && mca=cma
    [ "$backend" != opencl ] && ! has cuda && continue
    local which name bench
    for which in $benches; do
      [ "$which" = baseline ] && [ "$separate" = 0 ] && continue
      name=$backend bench=$build/duet-exchange-bench
      [ "$which" = baseline ] && name=$backend-baseline bench=$base_build/duet-exchange-bench
      # shellcheck disable=SC2086  # EXCHANGE_ARGS: arguments, split on spaces
      env ${mca:+OMPI_MCA_btl_vader_single_copy_mechanism=$mca} \
        DUET_BACKEND=${backend%%-*} DUET_DEVICE=$device DUET_MPI_SHARE_DEVICES=$share DUET_MPI_SEPARATE_NODES=$separate \
        mpirun --oversubscribe --bind-to none -np 2 "$bench" \
        --json "$dir/exchange-$name.jsonl" ${EXCHANGE_ARGS:-} > "$dir/exchange-$name.md" 2>&1 ||
        fail "duet-exchange-bench on $name"
      { echo; echo "$name:"; cat "$dir/exchange-$name.md"; } >> "$summary"
    done
  done
  stop_mps "$mps"
}

# Stops the MPS daemon started with its folders under $1 (nothing when $1 is empty).
stop_mps() {
  [ -n "$1" ] || return 0
  echo quit | nvidia-cuda-mps-control > /dev/null 2>&1
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
  rm -rf "$1"
}
