#!/usr/bin/env bash
# The fault matrix's cases that need processes of their own (tests/FAULTS.md lists every case;
# fault_matrix.cpp holds the in-process ones): environment variables, read when a process starts,
# and the on-disk program cache shared by processes: several filling one empty cache at once, a
# process killed with SIGKILL in the middle of writing an entry or at any moment, garbled, empty,
# unloadable and read-only entries, a read-only directory, a cache directory that is a file. Each
# case runs fault_driver (one line of output, see fault_driver.cpp) and states the typed error or the
# result it expects; a program cache is a cache, so every cache case must still give a working,
# correct program. A hang is caught by timeout, a crash or an untyped exception by the exit code.
# Runs on the device Device::open() picks under DUET_BACKEND (ctest sets it); exits 77 (skipped)
# when there is none. Running as root, the read-only directory case runs the driver as the user
# nobody (setpriv), since root may write anywhere.
# Usage: fault_matrix.sh <fault_driver> <fault_preload.so>
set -uo pipefail
driver=$(realpath "$1")
preload=$(realpath "$2")
# The cases set what they test; nothing of the caller's own choices may change their outcome.
unset DUET_DEVICE DUET_CACHE DUET_LOG DUET_TUNING_FILE XDG_CACHE_HOME
work=$(mktemp -d)
chmod 755 "$work"  # the read-only directory case runs the driver as another user
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  chmod -R u+w "$work" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

cases=0
failures=()
id=""
dir=""
out=""
err=""
rc=0

# fault_case ID DOES EXPECTED: starts a case with a cache directory of its own.
fault_case() {
  id=$1
  cases=$((cases + 1))
  dir=$work/$id
  mkdir -p "$dir"
  export DUET_CACHE_DIR=$dir/cache
  echo "case $id: $2"
  echo "  expected: $3"
}

fail() {
  echo "  FAIL: $*"
  failures+=("$id: $*")
}

# drive [-u NAME | NAME=VALUE]... COMMAND [ARGS]: runs the driver in that environment; sets out,
# err and rc (124: it hung).
drive() {
  local env_args=()
  while [[ $# -gt 0 && ($1 == -u || $1 == *=*) ]]; do
    if [[ $1 == -u ]]; then
      env_args+=(-u "$2")
      shift 2
    else
      env_args+=("$1")
      shift
    fi
  done
  out=$(timeout 120 env "${env_args[@]}" "$driver" "$@" 2>"$dir/stderr")
  rc=$?
  err=$(cat "$dir/stderr")
  echo "  $* -> $out"
  [[ $rc -eq 124 ]] && fail "the driver hung (killed after 120 s)"
}

has() { grep -qF -- "$2" <<<"$1"; }

# expect_ok PATTERN...: the run worked, its output holding every pattern.
expect_ok() {
  [[ $rc -eq 0 ]] || { fail "exit code $rc, expected 0: $out"; return; }
  local p
  for p in "$@"; do has "$out" "$p" || fail "expected '$p' in: $out"; done
}

# expect_error KIND PATTERN...: a duet::Error of that kind whose message holds every pattern.
expect_error() {
  local kind=$1
  shift
  [[ $rc -eq 1 ]] || { fail "exit code $rc, expected 1 (a duet::Error): $out"; return; }
  has "$out" "error $kind:" || fail "expected a $kind error: $out"
  local p
  for p in "$@"; do has "$out" "$p" || fail "expected '$p' in: $out"; done
}

want() {  # want DESCRIPTION COMMAND...: fails the case with DESCRIPTION unless COMMAND succeeds
  local what=$1
  shift
  "$@" || fail "$what"
}

entries() { find "$DUET_CACHE_DIR" -maxdepth 1 -name '*.duetbin' 2>/dev/null | wc -l; }
temps() { find "$DUET_CACHE_DIR" -maxdepth 1 -name '*.duetbin.tmp.*' 2>/dev/null | wc -l; }
entry() { find "$DUET_CACHE_DIR" -maxdepth 1 -name '*.duetbin' | head -n 1; }

# The device under test.
dir=$work/probe
mkdir -p "$dir"
drive open
if [[ $rc -ne 0 ]]; then
  echo "SKIPPED: no device for DUET_BACKEND=${DUET_BACKEND:-auto}: $out"
  exit 77
fi
failures=()
device=${out#ok }
backend=${device%%:*}
echo "device under test: $device"

# ---------------------------------------------------------------- environment variables

fault_case env.backend_unknown "DUET_BACKEND=vulkan" \
  "ConfigError naming 'vulkan' and the valid values 'cuda', 'opencl', 'auto'"
drive DUET_BACKEND=vulkan open
expect_error config "'vulkan'" "'cuda'" "'opencl'" "'auto'"

fault_case env.backend_spelling "DUET_BACKEND=' ${backend^^} ' (capitals, blanks around)" \
  "works: the same device as DUET_BACKEND=$backend"
drive "DUET_BACKEND= ${backend^^} " open
expect_ok "ok $device"

fault_case env.backend_unavailable "DUET_BACKEND=cuda on a machine whose CUDA did not load (else: cuda works)" \
  "BackendUnavailableError with the reason and the available devices; never another backend"
drive DUET_BACKEND=cuda open
if [[ $rc -eq 0 ]]; then
  expect_ok "ok cuda:"
else
  expect_error backend_unavailable "the cuda backend is not available:" "available devices:"
fi

fault_case env.device_out_of_range "DUET_DEVICE=999" \
  "DeviceNotFoundError naming 999 and the available devices"
drive DUET_BACKEND="$backend" DUET_DEVICE=999 open
expect_error device_not_found "index 999" "available devices:" "$device ("

fault_case env.device_huge_index "DUET_DEVICE=99999999999999999999999 (more digits than an unsigned long holds)" \
  "DeviceNotFoundError naming the index (was std::out_of_range from std::stoul)"
drive DUET_BACKEND="$backend" DUET_DEVICE=99999999999999999999999 open
expect_error device_not_found "99999999999999999999999" "available devices:"

fault_case env.device_no_match "DUET_DEVICE=no-such-device-zz9, and DUET_DEVICE=-1" \
  "DeviceNotFoundError naming what did not match and the available devices"
drive DUET_BACKEND="$backend" DUET_DEVICE=no-such-device-zz9 open
expect_error device_not_found "'no-such-device-zz9'" "available devices:"
drive DUET_BACKEND="$backend" DUET_DEVICE=-1 open
expect_error device_not_found "'-1'"

fault_case env.device_blank "DUET_DEVICE='  ' (only blanks)" "works: the backend's default device"
drive DUET_BACKEND="$backend" "DUET_DEVICE=  " open
expect_ok "ok $device"

fault_case env.spec_malformed "Device::open(\"$backend:0:1\") and open(\"vulkan:0\")" \
  "DeviceNotFoundError naming '0:1'; ConfigError naming 'vulkan'"
drive open "$backend:0:1"
expect_error device_not_found "'0:1'"
drive open "vulkan:0"
expect_error config "'vulkan'"

fault_case env.log_values "DUET_LOG=verbose (not a level), then DUET_LOG=debug" \
  "works; verbose prints nothing, debug prints the program cache miss on stderr"
drive DUET_LOG=verbose run 3
expect_ok "exact"
want "DUET_LOG=verbose printed: $err" test -z "$err"
drive DUET_LOG=debug DUET_CACHE_DIR="$dir/cache2" run 3
expect_ok "exact"
want "DUET_LOG=debug did not report the cache miss: $err" has "$err" "duet: program cache miss: compiling salted.duet"

fault_case env.cache_off "DUET_CACHE=0, then DUET_CACHE=off" \
  "works, cache off with the reason; nothing written"
drive DUET_CACHE=0 run 3
expect_ok "exact" "cache=off (DUET_CACHE=0)" "stored=0"
drive DUET_CACHE=off run 3
expect_ok "exact" "cache=off (DUET_CACHE=off)"
want "a cache that is off created $DUET_CACHE_DIR" test ! -e "$DUET_CACHE_DIR"

fault_case env.cache_no_home "no DUET_CACHE_DIR, XDG_CACHE_HOME or HOME" \
  "works, cache off: 'no DUET_CACHE_DIR, XDG_CACHE_HOME or HOME'"
# PoCL keeps its own cache under HOME and finds no device without one it may write (as nobody).
drive -u DUET_CACHE_DIR -u XDG_CACHE_HOME -u HOME POCL_CACHE_DIR="$dir/pocl" run 3
expect_ok "exact" "cache=off (no DUET_CACHE_DIR, XDG_CACHE_HOME or HOME"

fault_case env.cache_dir_empty "DUET_CACHE_DIR='' with XDG_CACHE_HOME set; then DUET_CACHE_DIR=a relative path" \
  "works: the entry goes to \$XDG_CACHE_HOME/duet, then under the working directory"
drive DUET_CACHE_DIR= XDG_CACHE_HOME="$dir/xdg" run 3
expect_ok "exact" "stored=1"
want "no entry in \$XDG_CACHE_HOME/duet" compgen -G "$dir/xdg/duet/*.duetbin" >/dev/null
(cd "$dir" && DUET_CACHE_DIR=relative/cache "$driver" run 3) >"$dir/relative.out" 2>&1
want "a relative DUET_CACHE_DIR failed: $(cat "$dir/relative.out")" has "$(cat "$dir/relative.out")" "stored=1"
want "no entry under the working directory" compgen -G "$dir/relative/cache/*.duetbin" >/dev/null

fault_case env.tuning_file_bad "DUET_TUNING_FILE naming a directory, then a file that does not exist" \
  "works: matmul exact with the built-in parameter table"
drive DUET_TUNING_FILE="$dir" matmul
expect_ok "matmul exact"
drive DUET_TUNING_FILE="$dir/no-such-file" matmul
expect_ok "matmul exact"

fault_case env.check_bad "DUET_CHECK=yes (neither 0 nor 1)" \
  "ConfigError naming DUET_CHECK='yes' and the values 0 and 1, from Device::open"
drive DUET_CHECK=yes open
expect_error config "DUET_CHECK='yes'" "not 0 or 1"

fault_case env.kernel_timeout_bad "DUET_KERNEL_TIMEOUT=soon, then DUET_KERNEL_TIMEOUT=-1" \
  "ConfigError naming the value and that it takes seconds above 0, from Device::open"
drive DUET_KERNEL_TIMEOUT=soon open
expect_error config "DUET_KERNEL_TIMEOUT='soon'" "seconds above 0"
drive DUET_KERNEL_TIMEOUT=-1 open
expect_error config "DUET_KERNEL_TIMEOUT='-1'" "seconds above 0"

# ---------------------------------------------------------------- the program cache

fault_case cache.concurrent_fill "6 processes at once on one empty cache directory, two programs (3 each)" \
  "works: every process exact; afterwards 2 whole entries, no temporary files, and both load"
run_pids=()
for i in 1 2 3 4 5 6; do
  salt=$((5 + i % 2))
  timeout 120 "$driver" run "$salt" >"$dir/out.$i" 2>&1 &
  run_pids+=($!)
done
for i in 1 2 3 4 5 6; do
  wait "${run_pids[$((i - 1))]}"
  code=$?
  echo "  process $i -> $(cat "$dir/out.$i")"
  [[ $code -eq 0 ]] || fail "process $i exited with $code: $(cat "$dir/out.$i")"
  has "$(cat "$dir/out.$i")" "exact" || fail "process $i: $(cat "$dir/out.$i")"
done
want "expected 2 entries, found $(entries)" test "$(entries)" -eq 2
want "temporary files left: $(temps)" test "$(temps)" -eq 0
drive run 5
expect_ok "exact" "hits=1" "rejected=0"
drive run 6
expect_ok "exact" "hits=1" "rejected=0"

fault_case cache.kill_during_write "a process stopped half-way through writing its entry, then kill -9" \
  "works: the killed writer leaves only its temporary file, never an entry; the next process compiles (rejected=0) and stores a whole entry; clear_cache removes the dead writer's temporary file"
# Under AddressSanitizer (the CI's ASan build) the preloaded library would come before ASan's
# runtime, which ASan refuses at start; that order check concerns the two libraries, not duet.
preload_asan_options=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
ASAN_OPTIONS=$preload_asan_options DUET_FAULT_STALL_WRITE=$dir/stalled LD_PRELOAD=$preload "$driver" run 3 \
  >"$dir/killed.out" 2>&1 &
writer=$!
pids+=("$writer")
for _ in $(seq 600); do
  [[ -e $dir/stalled ]] && break
  kill -0 "$writer" 2>/dev/null || break
  sleep 0.1
done
if [[ -e $dir/stalled ]]; then
  kill -9 "$writer"
  wait "$writer" 2>/dev/null
  want "the killed writer left an entry" test "$(entries)" -eq 0
  want "the killed writer left no temporary file" test "$(temps)" -eq 1
  drive run 3
  expect_ok "exact" "misses=1" "rejected=0" "stored=1"
  drive run 3
  expect_ok "exact" "hits=1" "rejected=0"
  drive clear
  expect_ok "removed 1"
  want "clear left $(temps) temporary file(s) of the dead writer" test "$(temps)" -eq 0
else
  fail "the writer never reached its entry: $(cat "$dir/killed.out")"
fi

fault_case cache.kill_anytime "6 processes filling one cache, each killed with kill -9 at another moment of its run" \
  "works: the next processes never load a torn entry (rejected=0), then load the whole one"
# How long a whole run takes here (compile and store included), in a cache of its own; the kills
# are spread over that time, so that some land while the entry is written.
start=$(date +%s%N)
DUET_CACHE_DIR=$dir/timing "$driver" run 8 >/dev/null 2>&1
run_ms=$((($(date +%s%N) - start) / 1000000))
echo "  a whole run takes $run_ms ms"
for i in 1 2 3 4 5 6; do
  "$driver" run 8 >/dev/null 2>&1 &
  victim=$!
  pids+=("$victim")
  sleep "$(printf '%d.%03d' $((run_ms * i / 6 / 1000)) $((run_ms * i / 6 % 1000)))"
  kill -9 "$victim" 2>/dev/null
  wait "$victim" 2>/dev/null
done
echo "  after the kills: $(entries) entr(y/ies), $(temps) temporary file(s)"
drive run 8
expect_ok "exact" "rejected=0"
drive run 8
expect_ok "exact" "hits=1" "rejected=0"

fault_case cache.garbled_entry "an entry overwritten with random bytes of its own size" \
  "works: rejected=1, compiled and stored again; the next process loads it"
drive run 3
victim=$(entry)
head -c "$(stat -c %s "$victim")" /dev/urandom >"$victim"
drive run 3
expect_ok "exact" "rejected=1" "stored=1"
drive run 3
expect_ok "exact" "hits=1" "rejected=0"

fault_case cache.empty_entry "an entry truncated to 0 bytes" \
  "works: rejected=1, compiled and stored again; the next process loads it"
drive run 3
: >"$(entry)"
drive run 3
expect_ok "exact" "rejected=1" "stored=1"
drive run 3
expect_ok "exact" "hits=1"

fault_case cache.unloadable_entry "an entry whose key and checksum are right but whose binary no driver loads" \
  "works: the driver refuses it, rejected=1, compiled and stored again; the next process loads it"
drive run 3
drive forge "$(entry)"
expect_ok "forged"
drive run 3
expect_ok "exact" "rejected=1" "stored=1"
drive run 3
expect_ok "exact" "hits=1" "rejected=0"

fault_case cache.readonly_entry "a read-only (0444) entry, whole, then garbled" \
  "works: the whole one loads; the garbled one is rebuilt and replaced by rename"
drive run 3
victim=$(entry)
chmod 444 "$victim"
drive run 3
expect_ok "exact" "hits=1"
chmod u+w "$victim"
head -c 100 /dev/urandom >"$victim"
chmod 444 "$victim"
drive run 3
expect_ok "exact" "rejected=1" "stored=1"
drive run 3
expect_ok "exact" "hits=1" "rejected=0"

fault_case cache.readonly_dir "a read-only (0555) cache directory holding one entry; a second program compiled there" \
  "works: the entry loads; the new program compiles, the cache turns itself off naming the reason (Permission denied)"
drive run 3
chmod 555 "$DUET_CACHE_DIR"
as_user=()
if [[ $(id -u) -eq 0 ]]; then
  # root writes anywhere: run as nobody, whose home is somewhere it may write (PoCL caches there).
  # The cache folder and its entry become nobody's, since the cache uses no folder of another user.
  mkdir -p "$dir/home"
  chown 65534:65534 "$dir/home"
  chown -R 65534:65534 "$DUET_CACHE_DIR"
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$dir/home")
fi
if [[ ${#as_user[@]} -gt 0 ]] && ! "${as_user[@]}" "$driver" open >/dev/null 2>&1; then
  echo "  skipped: running as root, and the user nobody cannot run the driver (setpriv, or the build's permissions)"
else
  out=$("${as_user[@]}" "$driver" run 3 2>&1)
  rc=$?
  echo "  run 3 -> $out"
  expect_ok "exact" "hits=1"
  out=$("${as_user[@]}" "$driver" run 4 2>&1)
  rc=$?
  echo "  run 4 -> $out"
  expect_ok "exact" "cache=off (cannot write" "Permission denied" "stored=0"
fi
chmod 755 "$DUET_CACHE_DIR"

fault_case cache.dir_is_file "DUET_CACHE_DIR naming a regular file, then a path under that file" \
  "works, the cache off naming the reason (Not a directory); the file untouched"
echo "not a directory" >"$dir/file"
drive DUET_CACHE_DIR="$dir/file" run 3
expect_ok "exact" "cache=off (cannot open" "Not a directory"
drive DUET_CACHE_DIR="$dir/file/sub" run 3
expect_ok "exact" "cache=off (cannot create" "Not a directory"
want "the file was changed" test "$(cat "$dir/file")" = "not a directory"

fault_case cache.entry_is_directory "a directory where the program's entry belongs" \
  "works: rejected=1 (was std::ios_base::failure out of compile), the cache off: 'Is a directory'"
drive run 3
victim=$(entry)
rm "$victim"
mkdir "$victim"
drive run 3
expect_ok "exact" "rejected=1" "Is a directory"

# ---------------------------------------------------------------- summary

echo
if [[ ${#failures[@]} -gt 0 ]]; then
  echo "fault matrix (processes): ${#failures[@]} failure(s) in $cases cases on $device:"
  printf '  %s\n' "${failures[@]}"
  exit 1
fi
echo "fault matrix (processes): $cases cases passed on $device"
