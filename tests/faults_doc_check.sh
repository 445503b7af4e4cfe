#!/usr/bin/env bash
# tests/FAULTS.md documents exactly the cases of the fault matrix: every id of fault_matrix.cpp
# (a row `{"category.name", ...`) and fault_matrix.sh (a line `fault_case category.name ...`) is one
# row of its table (`| `category.name` | cpp or sh | ...`), and no id is there twice or missing; the
# table of categories counts them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
id='[a-z]+\.[a-z0-9_]+'
code=$( {
  grep -oE "^\s*\{\"$id\"," "$here/fault_matrix.cpp" | grep -oE "$id" | sed 's/$/ cpp/'
  grep -oE "^fault_case $id" "$here/fault_matrix.sh" | cut -d' ' -f2 | sed 's/$/ sh/'
} | sort)
doc=$(grep -oE "^\| \`$id\` \| (cpp|sh) " "$here/FAULTS.md" | tr -d '|`' | tr -s ' ' | sed 's/^ //; s/ $//' | sort)
status=0
for list in code doc; do
  dups=$(cut -d' ' -f1 <<<"${!list}" | uniq -d)
  if [[ -n $dups ]]; then
    echo "ids listed twice in the $list: $dups"
    status=1
  fi
done
if ! diff <(echo "$code") <(echo "$doc") >/dev/null; then
  echo "FAULTS.md and the fault matrix differ ('<' only in the code, '>' only in FAULTS.md):"
  diff <(echo "$code") <(echo "$doc") | grep -E '^[<>]' || true
  status=1
fi
# The table of categories counts them right.
counts=$(cut -d. -f1 <<<"$code" | sort | uniq -c | awk '{print $2, $1}')
listed=$(grep -oE '^\| `[a-z]+` \| [0-9]+ \|' "$here/FAULTS.md" | tr -d '|`' | tr -s ' ' | sed 's/^ //; s/ $//' | sort)
if [[ $counts != "$listed" ]]; then
  echo "FAULTS.md's cases per category are not the code's ('<' the code, '>' FAULTS.md):"
  diff <(echo "$counts") <(echo "$listed") | grep -E '^[<>]' || true
  status=1
fi
[[ $status -eq 0 ]] && echo "FAULTS.md lists the $(wc -l <<<"$code") cases of the fault matrix"
exit $status
