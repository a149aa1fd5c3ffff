#!/usr/bin/env bash
# Renders the pipeline's intermediate images shown in docs/design.md, each made by
# mercurial itself from one title ("Hg", 120 px, on a 320×200 canvas):
#   docs/pipeline/mask.png      the coverage mask: the alpha of the transparent title
#   docs/pipeline/height.png    the height field (`--emit height`, 16-bit grey)
#   docs/pipeline/normal.png    its normals (`--emit normal`, OpenGL convention)
#   docs/pipeline/sphere.png    the shading sphere (`mercurial shading --size 200`)
#   docs/pipeline/shaded.png    the shaded material: the title, transparent
#   docs/pipeline/composed.png  the compositor's output: two point lights over a gradient
#   docs/pipeline/pipeline.png  all six side by side, in that order
# ffmpeg (a dependency for video anyway) only pulls out the alpha, flattens onto
# grey and stacks. Environment: MERCURIAL_BIN=path to use a built binary.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/release-binary.sh"
OUT="$ROOT/docs/pipeline"
mkdir -p "$OUT"
TITLE=(render "Hg" --size 120 --width 320 --height 200 -q --no-metadata)

"$BIN" "${TITLE[@]}" --emit color,height,normal -o "$TMP/hg.png"
"$BIN" shading --size 200 -o "$TMP/sphere.png" >/dev/null
cat > "$TMP/composed.json" <<'EOF'
{
  "text": "Hg", "size": 120, "width": 320, "height": 200, "ambientLightLevel": 0.35,
  "pointLights": [
    { "x": 70, "y": 60, "color": "#ff7a2a", "intensity": 1, "range": 170 },
    { "x": 260, "y": 150, "color": "#3a8bff", "intensity": 1, "range": 170 }
  ],
  "backgroundGradient": { "colors": ["#1a0f3a", "#0b0b10"] }
}
EOF
"$BIN" render --params "$TMP/composed.json" -q --no-metadata -o "$TMP/composed.png"

ffmpeg -v error -y -i "$TMP/hg.png" -vf "alphaextract,format=gray" "$OUT/mask.png"
ffmpeg -v error -y -i "$TMP/hg-height.png" -vf "format=gray" "$OUT/height.png"
cp "$TMP/hg-normal.png" "$OUT/normal.png"
# The transparent pictures on the README's dark grey, so they read on any page.
flatten() {   # $1 = input, $2 = output, $3 = size (WxH)
    ffmpeg -v error -y -f lavfi -i "color=c=0x1b1b1f:s=$3" -i "$1" \
        -filter_complex "[0][1]overlay=format=auto:shortest=1,format=rgb24" -frames:v 1 "$2"
}
flatten "$TMP/sphere.png" "$OUT/sphere.png" 200x200
flatten "$TMP/hg.png" "$OUT/shaded.png" 320x200
cp "$TMP/composed.png" "$OUT/composed.png"

# One strip: every stage 200 px high, the sphere padded to the titles' width.
ffmpeg -v error -y -i "$OUT/mask.png" -i "$OUT/height.png" -i "$OUT/normal.png" -i "$OUT/sphere.png" \
    -i "$OUT/shaded.png" -i "$OUT/composed.png" -filter_complex \
    "[0]format=rgb24[a];[1]format=rgb24[b];[2]format=rgb24[c];[3]pad=320:200:60:0:0x1b1b1f,format=rgb24[d];[4]format=rgb24[e];[5]format=rgb24[f];[a][b][c][d][e][f]hstack=inputs=6" \
    "$OUT/pipeline.png"
ls -l "$OUT"
