#!/usr/bin/env bash
# The program cache is private, through `duet cache`: what duet creates is 0700 (folders) and 0600
# (entries, lock files) whatever the umask; a folder others can write (itself or a parent), a
# folder of another user, and entries that could have been planted (a symbolic link, another
# owner's file, a file others can write) are never loaded, even when they hold a valid entry; a
# refused folder gives one warning and compiles go on. Run as root, the cases that need another
# user run as nobody (setpriv), and are skipped with a message where that cannot work.
# Usage: cache_private_test.sh <path to duet> <path to duet_fault_driver>
set -euo pipefail
duet=$(realpath "$1")
driver=$(realpath "$2")  # compiles one small program: quick where PoCL has no cache yet (nobody)
dir=$(mktemp -d)
chmod 755 "$dir"  # the cases run as nobody reach their folders through it
trap 'rm -rf "$dir"' EXIT
unset DUET_CACHE DUET_LOG XDG_CACHE_HOME

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
count() { grep -c -- "$1" <<<"$2" || true; }
mode() { stat -c %a "$1"; }

"$duet" devices >/dev/null 2>&1 || { echo "SKIPPED: no device"; exit 77; }

# warm FOLDER: `duet cache warm` with the cache in FOLDER; sets out (stdout), err (stderr) and
# loaded (how many programs came from disk).
warm() {
  out=$(DUET_CACHE_DIR=$1 "$duet" cache warm 2>"$dir/stderr")
  err=$(cat "$dir/stderr")
  loaded=$(count 'disk cache' "$out")
}
show() { DUET_CACHE_DIR=$1 "$duet" cache 2>/dev/null; }

# ---- what duet creates: folders 0700, entries and lock files 0600, even under umask 000
good=$dir/home/a/b/good
(umask 000 && DUET_CACHE_DIR=$good "$duet" cache warm >/dev/null)
for folder in "$dir/home/a" "$dir/home/a/b" "$good"; do
  [ "$(mode "$folder")" = 700 ] || fail "duet made $folder with mode $(mode "$folder"), not 700"
done
mapfile -t entries < <(ls "$good"/*.duetbin)
programs=${#entries[@]}
[ "$programs" -gt 0 ] || fail "no entries in $good"
for file in "$good"/*.duetbin "$good"/*.duetbin.lock; do
  [ "$(mode "$file")" = 600 ] || fail "duet made $file with mode $(mode "$file"), not 600"
done
[ -z "$(ls "$good" | grep '\.tmp\.' || true)" ] || fail "temporary files left in $good"
warm "$good"
[ "$loaded" -eq "$programs" ] || fail "a private folder must be used: $loaded of $programs loaded"
show "$good" | grep -q "owner:     $(id -un), mode 0700" || fail "show must print the owner and mode: $(show "$good")"

# plant FOLDER: FOLDER holds copies of every valid entry (made by the real program above).
plant() {
  mkdir -p "$1"
  cp "$good"/*.duetbin "$1"/
}

# refused CASE FOLDER WHAT: nothing planted in FOLDER is loaded; one warning names WHAT; show says off.
refused() {
  warm "$2"
  [ "$loaded" -eq 0 ] || fail "$1: $loaded programs loaded from $2"
  [ "$(count 'program cache off' "$out")" -eq 1 ] || fail "$1: warm must say the cache is off"
  [ "$(count 'warning' "$err")" -eq 1 ] || fail "$1: expected one warning, got: $err"
  grep -qF -- "$3" <<<"$err" || fail "$1: the warning must name '$3': $err"
  grep -q "DUET_CACHE_DIR" <<<"$err" || fail "$1: the warning must say what to do: $err"
  show "$2" | grep -q "state:     off: not private" || fail "$1: show must say why it is off: $(show "$2")"
  echo "$1: refused: $err"
}

# ---- folders others can write, holding valid entries
plant "$dir/world"
chmod 777 "$dir/world"
refused "a world-writable folder" "$dir/world" "$dir/world is writable by its group and others (owner $(id -un), mode 0777)"
[ "$(ls "$dir/world" | wc -l)" -eq "$programs" ] || fail "duet wrote into a refused folder"

plant "$dir/group"
chmod 770 "$dir/group"
refused "a group-writable folder" "$dir/group" "mode 0770"

plant "$dir/open-parent/cache"
chmod 700 "$dir/open-parent/cache"
chmod 777 "$dir/open-parent"
refused "a private folder in a world-writable one" "$dir/open-parent/cache" "$dir/open-parent is writable"

# A sticky parent (as /tmp): nobody else may rename or remove the folder, so it is used.
plant "$dir/sticky/cache"
chmod 700 "$dir/sticky/cache"
chmod 1777 "$dir/sticky"
warm "$dir/sticky/cache"
[ "$loaded" -eq "$programs" ] || fail "a private folder in a sticky one must be used: $loaded loaded; $err"

# A symbolic link to the cache folder: the folder it leads to is checked and used.
ln -s "$good" "$dir/link"
warm "$dir/link"
[ "$loaded" -eq "$programs" ] || fail "a link to a private folder must be used: $loaded loaded; $err"
show "$dir/link" | grep -qF "(-> $good)" || fail "show must say where the link leads: $(show "$dir/link")"
ln -s "$dir/world" "$dir/link-world"
refused "a link to a world-writable folder" "$dir/link-world" "$dir/world is writable"

# ---- entries that could have been planted, in a private folder
copy=$dir/copy
plant "$copy"
chmod 700 "$copy"
target=$dir/outside.duetbin
cp "${entries[0]}" "$target"
before=$(md5sum <"$target")
name=$(basename "${entries[0]}")
ln -sf "$target" "$copy/$name"
chmod 664 "$copy/$(basename "${entries[1]}")"
show "$copy" | grep -q "$name is a symbolic link" || fail "show must list the linked entry: $(show "$copy")"
show "$copy" | grep -q "is writable by its group" || fail "show must list the group-writable entry: $(show "$copy")"
out=$(DUET_LOG=debug DUET_CACHE_DIR=$copy "$duet" cache warm 2>"$dir/stderr")
err=$(cat "$dir/stderr")
[ "$(count 'disk cache' "$out")" -eq $((programs - 2)) ] || fail "a linked or group-writable entry was loaded: $out"
[ "$(count 'ignoring' "$err")" -eq 2 ] || fail "DUET_LOG=debug must say which entries it ignores: $err"
[ -f "$copy/$name" ] && [ ! -L "$copy/$name" ] || fail "the linked entry must be replaced by a file of duet's own"
[ "$(md5sum <"$target")" = "$before" ] || fail "duet wrote through the planted link"
[ "$(mode "$copy/$(basename "${entries[1]}")")" = 600 ] || fail "the group-writable entry must be rebuilt 0600"

# ---- another user: as root, folders and entries of nobody; else a folder of root's
as_nobody=()
if [ "$(id -u)" -eq 0 ]; then
  plant "$dir/nobodys"
  chmod 700 "$dir/nobodys"
  chown -R 65534:65534 "$dir/nobodys"
  refused "a folder of another user" "$dir/nobodys" "belongs to $(id -un 65534 2>/dev/null || echo 'uid 65534')"
  plant "$dir/foreign-entry"
  chmod 700 "$dir/foreign-entry"
  chown 65534:65534 "$dir/foreign-entry/$name"
  warm "$dir/foreign-entry"
  [ "$loaded" -eq $((programs - 1)) ] || fail "an entry of another user was loaded: $loaded of $programs"
  # PoCL keeps its own cache under HOME, which nobody must be able to write.
  mkdir -p "$dir/nobody-home"
  chown 65534:65534 "$dir/nobody-home"
  as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$dir/nobody-home")
  if ! "${as_nobody[@]}" "$driver" open >/dev/null 2>&1; then
    echo "skipped: the cases as the user nobody (setpriv, or the build's permissions)"
    as_nobody=()
  fi
else
  refused "a folder of another user (root)" / "belongs to root"
fi
if [ ${#as_nobody[@]} -gt 0 ]; then
  # As nobody: root's private folder is another user's; a new folder in nobody's home is made 0700.
  # A program of root's in root's sticky/cache, then the same program as nobody.
  DUET_CACHE_DIR=$dir/sticky/cache "$driver" run 3 >/dev/null
  out=$("${as_nobody[@]}" DUET_CACHE_DIR="$dir/sticky/cache" "$driver" run 3 2>"$dir/stderr")
  err=$(cat "$dir/stderr")
  grep -q "exact cache=off (not private: .* belongs to root (mode 0700), not to you (.*) hits=0" <<<"$out" ||
    fail "nobody must not use root's folder: $out"
  [ "$(count 'warning' "$err")" -eq 1 ] || fail "nobody must be warned once of root's folder: $err"
  own=$dir/nobody-home/.cache/duet
  out=$("${as_nobody[@]}" DUET_CACHE_DIR="$own" "$driver" run 3 2>&1)
  grep -q "exact cache=on .* stored=1" <<<"$out" || fail "nobody's own folder must be used: $out"
  for folder in "$dir/nobody-home/.cache" "$own"; do
    [ "$(stat -c '%a %u' "$folder")" = "700 65534" ] || fail "nobody's new $folder: $(stat -c '%a %u' "$folder")"
  done
  [ "$(stat -c '%a %u' "$own"/*.duetbin)" = "600 65534" ] || fail "nobody's entry: $(stat -c '%a %u' "$own"/*.duetbin)"
  out=$("${as_nobody[@]}" DUET_CACHE_DIR="$own" "$driver" run 3 2>&1)
  grep -q "exact cache=on hits=1" <<<"$out" || fail "nobody must load from its own folder: $out"
  echo "as nobody: done"
fi

[ "$failures" -eq 0 ] || { echo "cache privacy test: $failures failure(s)"; exit 1; }
echo "cache privacy test: passed"
