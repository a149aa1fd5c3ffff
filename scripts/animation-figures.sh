#!/usr/bin/env bash
# End-to-end `mercurial animate` figures at 1920×1080: frames per second for each
# output form (examples/light-sweep.json scaled to 1920×1080, 120 frames), and the
# peak memory of 30 against 300 frames (WebM and APNG). Prints one line per run.
#
#   scripts/animation-figures.sh          (needs ffmpeg; builds the release binary)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/release-binary.sh"
# The sweep at 1920×1080: positions and ranges × 1.5, the title as large as fits.
scene() {   # $1 = duration in seconds
    sed -e 's/"width": 1280/"width": 1920/; s/"height": 400/"height": 1080/' \
        -e 's/-250/-375/g; s/1530/2295/g; s/"y": 170/"y": 480/; s/"y": 230/"y": 600/' \
        -e 's/"range": 420/"range": 630/; s/"range": 360/"range": 540/' \
        -e "s/\"duration\": 4/\"duration\": $1/; s/{ \"t\": 4,/{ \"t\": $1,/g" examples/light-sweep.json
}
scene 4 > "$TMP/sweep.json"
for out in null: sweep.png sweep.webm sweep.mov sweep.mp4 "frames/f-%04d.png"; do
    mkdir -p "$TMP/frames"
    target="$TMP/$out"; [[ "$out" == null: ]] && target=/dev/null
    "$BIN" animate "$TMP/sweep.json" -o "$target" | sed "s|$TMP/||"
done
for seconds in 1 10; do
    scene "$seconds" > "$TMP/m.json"
    for out in m.webm m.png; do "$BIN" animate "$TMP/m.json" -o "$TMP/$out" | sed "s|$TMP/||"; done
done
