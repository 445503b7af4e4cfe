#!/usr/bin/env bash
# The on-disk program cache across processes, through `duet cache`: a second process loads every
# built-in kernel program from disk; damaged and foreign entries are rebuilt; an unusable cache
# directory and DUET_CACHE=0 never fail a compile. Usage: cache_test.sh <path to duet>
set -euo pipefail
duet=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export DUET_CACHE_DIR=$dir/cache
unset DUET_CACHE

fail() { echo "FAIL: $*"; exit 1; }
count() { grep -c "$1" <<<"$2" || true; }

"$duet" devices >/dev/null 2>&1 || { echo "SKIPPED: no device"; exit 77; }
programs=$(DUET_CACHE=0 "$duet" cache warm | grep -c -E 'compiler|disk cache')

first=$("$duet" cache warm)
echo "$first"
[ "$(count 'compiler' "$first")" -eq "$programs" ] || fail "an empty cache must compile every program"

second=$("$duet" cache warm)
echo "$second"
[ "$(count 'disk cache' "$second")" -eq "$programs" ] || fail "a second process must load every program from disk"

# Damaged entries: one truncated, one with a flipped byte in the payload, one holding another key.
mapfile -t entries < <(ls "$DUET_CACHE_DIR"/*.duetbin)
[ "${#entries[@]}" -eq "$programs" ] || fail "expected $programs entries, found ${#entries[@]}"
if [ "${#entries[@]}" -ge 3 ]; then
  cp "${entries[0]}" "${entries[2]}"  # a valid entry of another program under this name
  size=$(stat -c %s "${entries[1]}")
  printf '\xff' | dd of="${entries[1]}" bs=1 seek=$((size - 20)) conv=notrunc status=none
fi
truncate -s 100 "${entries[0]}"
third=$("$duet" cache warm)
echo "$third"
damaged=$([ "${#entries[@]}" -ge 3 ] && echo 3 || echo 1)
[ "$(count 'compiler' "$third")" -eq "$damaged" ] || fail "damaged entries must be rebuilt"
fourth=$("$duet" cache warm)
[ "$(count 'disk cache' "$fourth")" -eq "$programs" ] || fail "rebuilt entries must be stored again"

# A cache that cannot be written, and a cache turned off: compiles still work.
DUET_CACHE_DIR=/proc/duet-cache-cannot-exist "$duet" cache warm >/dev/null || fail "an unwritable cache failed a compile"
off=$(DUET_CACHE=0 "$duet" cache)
grep -q "off: DUET_CACHE=0" <<<"$off" || fail "DUET_CACHE=0 must turn the cache off: $off"
DUET_CACHE=0 "$duet" cache warm | grep -q "program cache off" || fail "warm must say the cache is off"

"$duet" cache clear | grep -q "removed $programs entries" || fail "clear must remove every entry"
echo "cache test: passed"
