#!/usr/bin/env bash
# Renders the README's pictures that are not material previews (those are
# scripts/contact-sheet.sh's):
#   materials/previews/profiles.png        the same size in the three loft profiles
#   materials/previews/original-scene.png  the original app's scene, liquid beside chisel
#   materials/previews/light-sweep.png     an APNG of examples/light-sweep.json at half size
#   materials/previews/gold-rise.png       first, middle and last frames of examples/gold-rise.json
#   materials/previews/sequence.png        an APNG of examples/sequence.json at 10 fps with shorter holds
#   materials/previews/maps.png            a height map and a normal map of one title
#   materials/previews/vine.png            an APNG of examples/vine.json at half size, 12 fps
#   materials/previews/text.png            Inter's weight axis at 300 and 800; the launch card
#                                          (emoji, Japanese, line breaks); examples/badge.json
#   materials/previews/runs.png            examples/runs.json: styled runs in three metals, at 900 px wide
#   materials/previews/emoji.png           colour emoji embossed in gold (emoji: emboss) above their own colours (color)
# Every title is drawn by mercurial; ffmpeg (a dependency for video anyway) only
# stacks and scales the pictures. Environment: MERCURIAL_BIN=path to use a built binary.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/release-binary.sh"
OUT="$ROOT/materials/previews"
BG="#1b1b1f"

for p in liquid chisel round; do
    "$BIN" render "${p^} profile" --profile "$p" --size 120 --width 900 --height 190 --background "$BG" -q \
        -o "$TMP/$p.png"
done
ffmpeg -v error -y -i "$TMP/liquid.png" -i "$TMP/chisel.png" -i "$TMP/round.png" \
    -filter_complex vstack=inputs=3 "$OUT/profiles.png"

"$BIN" render "Flex Monkey Mercurial Text" --width 1060 --height 765 --background black -q -o "$TMP/a.png"
"$BIN" render "Flex Monkey Mercurial Text" --width 1060 --height 765 --background black --profile chisel -q -o "$TMP/b.png"
ffmpeg -v error -y -i "$TMP/a.png" -i "$TMP/b.png" -filter_complex "hstack=inputs=2,scale=1060:-1:flags=lanczos" \
    "$OUT/original-scene.png"

# The light sweep at half size: positions and ranges halved.
sed -e 's/"width": 1280/"width": 640/; s/"height": 400/"height": 200/; s/"fps": 30/"fps": 12/' \
    -e 's/-250/-125/g; s/1530/765/g; s/"y": 170/"y": 85/; s/"y": 230/"y": 115/' \
    -e 's/"range": 420/"range": 210/; s/"range": 360/"range": 180/' examples/light-sweep.json > "$TMP/sweep.json"
"$BIN" animate "$TMP/sweep.json" -q -o "$OUT/light-sweep.png"

"$BIN" animate examples/gold-rise.json -q -o "$TMP/rise-%03d.png"
ffmpeg -v error -y -i "$TMP/rise-000.png" -i "$TMP/rise-045.png" -i "$TMP/rise-089.png" \
    -filter_complex "vstack=inputs=3,scale=640:-1:flags=lanczos" "$OUT/gold-rise.png"
# Type: a variable font's weight, an emoji and Japanese in a wrapped card, text round a circle.
INTER=/usr/share/fonts/truetype/inter-vf/Inter.var.ttf
for w in 300 800; do
    "$BIN" render "Weight $w" --font "$INTER" --set "variations.wght=$w" --width 480 --height 160 --background "$BG" -q \
        -o "$TMP/weight-$w.png"
done
"$BIN" render "Launch 🚀 día — 日本語 ✓" --width 1200 --height 630 --material chrome --background "$BG" -q -o "$TMP/card.png"
"$BIN" render examples/badge.json -q -o "$TMP/badge.png"
ffmpeg -v error -y -i "$TMP/weight-300.png" -i "$TMP/weight-800.png" -i "$TMP/card.png" -i "$TMP/badge.png" \
    -filter_complex "[0][1]hstack[top];[2]scale=610:320:flags=lanczos[card];[3]scale=320:320:flags=lanczos,pad=350:320:15:0:color=0x1b1b1f[badge];[card][badge]hstack[bottom];[top][bottom]vstack" \
    "$OUT/text.png"
ls -l "$OUT"/text.png
"$BIN" render examples/runs.json -q -o "$TMP/runs.png"
ffmpeg -v error -y -i "$TMP/runs.png" -vf "scale=900:-1:flags=lanczos" "$OUT/runs.png"
ls -l "$OUT"/runs.png
for style in emboss color; do
    "$BIN" render "Launch 🚀 🎉" --material gold --set "emoji=$style" --width 900 --height 200 --background "$BG" -q \
        -o "$TMP/emoji-$style.png"
done
ffmpeg -v error -y -i "$TMP/emoji-emboss.png" -i "$TMP/emoji-color.png" -filter_complex vstack=inputs=2 "$OUT/emoji.png"
ls -l "$OUT"/emoji.png
ls -l "$OUT"/profiles.png "$OUT"/original-scene.png "$OUT"/light-sweep.png "$OUT"/gold-rise.png

# The sequence at 10 fps, each title held 0.3 s (under 1.5 MB).
sed -e 's/"fps": 20/"fps": 10/; s/"hold": 0.8/"hold": 0.3/g; s/"hold": 0.4/"hold": 0.3/' examples/sequence.json \
    > "$TMP/sequence.json"
"$BIN" animate "$TMP/sequence.json" -q -o "$OUT/sequence.png"
ls -l "$OUT/sequence.png"

# The vine at half size and 12 fps (under 1.5 MB).
sed -e 's/"size": 200/"size": 100/; s/"width": 1200/"width": 600/; s/"height": 440/"height": 180/' \
    -e 's/"width": 7,/"width": 4,/; s/"branchSpacing": 40/"branchSpacing": 22/; s/"branchLength": \[18, 50\]/"branchLength": [9, 25]/' \
    -e 's/"leafSize": 20/"leafSize": 11/; s/"fps": 30/"fps": 12/' examples/vine.json > "$TMP/vine.json"
"$BIN" animate "$TMP/vine.json" --set radius=6 -q -o "$OUT/vine.png"
ls -l "$OUT/vine.png"

# Height and normal maps, side by side.
"$BIN" render "Maps" --size 120 --emit height,normal -q -o "$TMP/maps.png"
ffmpeg -v error -y -i "$TMP/maps-height.png" -i "$TMP/maps-normal.png" \
    -filter_complex "[0]format=rgb24[a];[1]format=rgb24[b];[a][b]hstack=inputs=2" "$OUT/maps.png"
ls -l "$OUT/maps.png"
