#!/usr/bin/env bash
# Renders the README's pictures of titles for video and the web:
#   materials/previews/og-cards.png     the three cards of examples/og-cards.csv, side by side at a third
#   materials/previews/lower-third.jpg  examples/lower-third.json over a busy backdrop (JPEG: a busy shot): frames at
#                                       0.3 s, 1 s and 3.7 s, stacked, at half size
# The busy backdrop is ffmpeg's Mandelbrot source tinted gold-brown (a shot that gold
# letters alone would vanish into); ffmpeg only makes it and overlays the title.
# Environment: MERCURIAL_BIN=path to use a built binary.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/release-binary.sh"
OUT="$ROOT/materials/previews"

"$BIN" batch examples/og-cards.csv --params examples/og-card.json --compression small --name '{slug}' -q \
    -o "$TMP/cards"
ffmpeg -v error -y -i "$TMP/cards/launch.png" -i "$TMP/cards/guide.png" -i "$TMP/cards/talk.png" \
    -filter_complex "[0][1][2]hstack=inputs=3,scale=1200:-1:flags=lanczos" "$OUT/og-cards.png"
ls -l "$OUT/og-cards.png"

if [[ -f examples/lower-third.json ]]; then
    ffmpeg -v error -y -f lavfi \
        -i "mandelbrot=s=1920x1080:start_scale=0.05:start_x=-0.7453:start_y=0.1127:inner=convergence:outer=normalized_iteration_count" \
        -frames:v 1 -vf "format=rgb24,colorchannelmixer=rr=0.6:rg=0.3:gr=0.45:gg=0.35:br=0.2:bb=0.15,gblur=sigma=1.5" \
        "$TMP/backdrop.png"
    "$BIN" animate examples/lower-third.json -q -o "$TMP/lt-%03d.png"
    fps=$(sed -n 's/.*"fps": *\([0-9.]*\).*/\1/p' examples/lower-third.json | head -1)
    frames=()
    for t in 0.3 1 3.7; do
        frames+=("$(printf '%s/lt-%03d.png' "$TMP" "$(awk -v t="$t" -v f="${fps:-30}" 'BEGIN { printf "%d", t * f }')")")
    done
    for i in 0 1 2; do
        ffmpeg -v error -y -i "$TMP/backdrop.png" -i "${frames[$i]}" -filter_complex "[0][1]overlay=format=auto" "$TMP/over-$i.png"
    done
    ffmpeg -v error -y -i "$TMP/over-0.png" -i "$TMP/over-1.png" -i "$TMP/over-2.png" \
        -filter_complex "vstack=inputs=3,scale=960:-1:flags=lanczos" -q:v 3 "$OUT/lower-third.jpg"
    ls -l "$OUT/lower-third.jpg"
fi
