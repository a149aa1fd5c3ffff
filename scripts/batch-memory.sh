#!/usr/bin/env bash
# Batch memory against the number of rows: for each count (default 10000 and
# 1000000), a CSV of that many rows ("Title N" at 20 px) is read whole while one
# title is rendered (--shard 1/N), three times; prints the median peak RSS
# (/usr/bin/time's maximum resident set) and wall time. Environment:
# MERCURIAL_BIN=path to use a built binary.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/release-binary.sh"
counts=("$@")
[[ ${#counts[@]} -gt 0 ]] || counts=(10000 1000000)
for rows in "${counts[@]}"; do
    python3 -c "
import sys
rows = int(sys.argv[1])
with open(sys.argv[2], 'w') as f:
    f.write('text,size\n')
    for i in range(1, rows + 1): f.write(f'Title {i},20\n')
" "$rows" "$TMP/rows.csv"
    runs=()
    for run in 1 2 3; do
        rm -rf "$TMP/out"
        mkdir "$TMP/out"
        runs+=("$(/usr/bin/time -f '%M %e' "$BIN" batch "$TMP/rows.csv" -o "$TMP/out" --shard "1/$rows" -q 2>&1 | tail -1)")
    done
    median=$(printf '%s\n' "${runs[@]}" | sort -n | sed -n 2p)
    echo "$rows rows: peak $(( ${median% *} / 1024 )) MB, ${median#* } s (median of 3; KB and s: ${runs[*]})"
done
