#!/usr/bin/env bash
# Whole-process time and peak memory of one title, median of N runs, for one or more
# binaries (e.g. a release build of main and of this branch), the binaries' runs interleaved
# so that the machine's load falls on each alike:
#   bash scripts/bench-title-time.sh 21 BINARY [BINARY…] -- render ARGS…
# Prints, per binary: the median wall time in ms (with /usr/bin/time's own start) and peak RSS.
set -euo pipefail
runs=$1; shift
binaries=()
while [ "$1" != "--" ]; do binaries+=("$1"); shift; done
shift
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for _ in $(seq "$runs"); do
  for i in "${!binaries[@]}"; do
    start=$(date +%s%N)
    rss=$( { /usr/bin/time -f "%M" "${binaries[$i]}" "$@" -o "$out/t.png" -q 2>&1 >/dev/null; } | tail -1)
    echo "$i $(( ($(date +%s%N) - start) / 1000000 )) $rss" >> "$out/runs"
  done
done
for i in "${!binaries[@]}"; do
  mapfile -t ms < <(awk -v i="$i" '$1 == i {print $2}' "$out/runs")
  mapfile -t kb < <(awk -v i="$i" '$1 == i {print $3}' "$out/runs")
  printf '%s: median %s ms, peak RSS %s MB (%s runs)\n' "${binaries[$i]}" "$(median "${ms[@]}")" \
    "$(( $(median "${kb[@]}") / 1024 ))" "$runs"
done
