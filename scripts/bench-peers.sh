#!/usr/bin/env bash
# Whole-process comparison at 1920×1080 ("Mercurial", DejaVu Sans Bold, 260 px):
# mercurial render vs ImageMagick's emboss recipe vs a libvips pipeline, run in
# turn (A B C A B C …) so that drift on a shared machine hits all three alike.
# Prints each one's median wall time and the ratios of the medians.
#
#   scripts/bench-peers.sh [rounds]     (default 15)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-15}

need=()
convert -version 2>/dev/null | grep -q ImageMagick || need+=(imagemagick)
command -v vips >/dev/null || need+=(libvips-tools)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf ] || need+=(fonts-dejavu-core)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
bash scripts/install-deps.sh
swift build -c release --product mercurial >/dev/null
mercurial="$(swift build -c release --show-bin-path)/mercurial"
font=/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '3 3 1 0\n-1 -1 0\n-1 1 1\n0 1 1\n' > "$work/emboss.mat"

run_mercurial() {
  "$mercurial" render Mercurial --font "$font" --size 260 --width 1920 --height 1080 --quiet -o "$work/mercurial.png"
}
run_imagemagick() {
  convert -size 1920x1080 xc:black -font "$font" -pointsize 260 -fill white -gravity center \
    -annotate +0+0 Mercurial -blur 0x10 -shade 120x30 "$work/imagemagick.png"
}
run_vips() {
  vips text "$work/t.v" Mercurial --fontfile "$font" --font "DejaVu Sans Bold 260" --dpi 72
  local w h
  w=$(vipsheader -f width "$work/t.v"); h=$(vipsheader -f height "$work/t.v")
  vips embed "$work/t.v" "$work/e.v" $(((1920 - w) / 2)) $(((1080 - h) / 2)) 1920 1080
  vips gaussblur "$work/e.v" "$work/b.v" 10
  vips conv "$work/b.v" "$work/c.v" "$work/emboss.mat"
  vips pngsave "$work/c.v" "$work/vips.png"
}

# Microseconds from bash's own clock: timing with `$(date +%s%N)` counted a `date` process's
# exit and the next one's start in every run (about 2 ms, a tenth of mercurial's time).
declare -A times
for name in mercurial imagemagick vips; do "run_$name"; done   # warm-up
for ((i = 0; i < rounds; i++)); do
  for name in mercurial imagemagick vips; do
    start=${EPOCHREALTIME/./}; "run_$name"; end=${EPOCHREALTIME/./}
    times[$name]+="$((10#$end - 10#$start)) "
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
m=$(echo "${times[mercurial]}" | median)
im=$(echo "${times[imagemagick]}" | median)
v=$(echo "${times[vips]}" | median)
echo "$(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $rounds rounds"
printf '%-44s %12s %10s\n' "whole process, 1920×1080" "median ms" "vs mercurial"
awk -v m="$m" -v im="$im" -v v="$v" 'BEGIN {
  printf "%-44s %12.1f %10s\n", "mercurial render (four lights, loft)", m / 1000, "1×"
  printf "%-44s %12.1f %9.1f×\n", "ImageMagick convert … -blur 0x10 -shade", im / 1000, im / m
  printf "%-44s %12.1f %9.1f×\n", "libvips text+embed+gaussblur+conv+pngsave", v / 1000, v / m
}'
