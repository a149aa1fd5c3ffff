#!/usr/bin/env bash
# Batch against a shell loop, same 200 titles at 1920×1080 (a series: "Episode N"
# at 200 px, one material): `mercurial batch` on a 200-row CSV, then one
# `mercurial render` process per row. Prints titles per second
# for each and the ratio. Environment: MERCURIAL_BIN=path to use a built binary.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/release-binary.sh"
rows=${1:-200}
{
    echo "text,size,width,height"
    for i in $(seq 1 "$rows"); do echo "Episode $i,200,1920,1080"; done
} > "$TMP/titles.csv"
mkdir -p "$TMP/batch" "$TMP/loop"
start=$(date +%s.%N)
"$BIN" batch "$TMP/titles.csv" -o "$TMP/batch" -q
batch=$(echo "$(date +%s.%N) - $start" | bc)
start=$(date +%s.%N)
for i in $(seq 1 "$rows"); do
    "$BIN" render "Episode $i" --size 200 --width 1920 --height 1080 -q -o "$TMP/loop/$i.png"
done
loop=$(echo "$(date +%s.%N) - $start" | bc)
echo "batch: $rows titles in $batch s ($(echo "scale=1; $rows / $batch" | bc) titles/s)"
echo "shell loop: $rows titles in $loop s ($(echo "scale=1; $rows / $loop" | bc) titles/s)"
echo "batch is $(echo "scale=2; $loop / $batch" | bc)× the loop's rate"
