#!/usr/bin/env bash
# Regenerates the PNG test fixtures in Tests/MercurialTestSupport/Fixtures/.
#
# Every valid fixture shows the same 24x16 picture:
#   left half  (x < 12): white (255 / 65535), fully opaque
#   right half (x >= 12): black (0); in formats with alpha (or tRNS) also
#                         fully transparent (alpha 0)
# Each file is forced to the PNG colour type / bit depth its name says.
#
# Needs ImageMagick 6 (`convert`, Debian package imagemagick); pngcheck
# (Debian package pngcheck) is used to check the results when present.
# Idempotent: ancillary chunks that carry dates or vary are left out, so a
# rerun writes byte-identical files.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/Tests/MercurialTestSupport/Fixtures"
mkdir -p "$OUT"
cd "$OUT"

command -v convert >/dev/null || { echo "convert (ImageMagick) not found: apt-get install -y imagemagick" >&2; exit 1; }

# Opaque picture: white left half on black.
OPAQUE=(-size 24x16 xc:black -fill white -draw 'rectangle 0,0 11,15')
# Transparent picture: white opaque left half, right half black with alpha 0.
ALPHA=(-size 24x16 xc:none -fill white -draw 'rectangle 0,0 11,15')
# No date/time/text/colour-management chunks: keeps the files small and the
# output reproducible. (tRNS is not in this list, so it is kept when needed.)
CLEAN=(-strip -define png:exclude-chunk=bKGD,cHRM,gAMA,iCCP,sRGB,tEXt,zTXt,iTXt,tIME,pHYs,vpAg,oFFs,date)

mk() { # mk FILE COLOUR_TYPE BIT_DEPTH PICTURE... [extra convert options]
    local file=$1 ct=$2 bd=$3; shift 3
    convert "$@" "${CLEAN[@]}" \
        -define png:color-type="$ct" -define png:bit-depth="$bd" \
        "$file"
}

mk gray8.png       0 8  "${OPAQUE[@]}" -colorspace Gray -depth 8
mk gray16.png      0 16 "${OPAQUE[@]}" -colorspace Gray -depth 16
mk gray1.png       0 1  "${OPAQUE[@]}" -colorspace Gray -depth 1
mk grayalpha8.png  4 8  "${ALPHA[@]}"  -colorspace Gray -depth 8
mk grayalpha16.png 4 16 "${ALPHA[@]}"  -colorspace Gray -depth 16
mk rgb8.png        2 8  "${OPAQUE[@]}" -depth 8
mk rgb16.png       2 16 "${OPAQUE[@]}" -depth 16
mk rgba8.png       6 8  "${ALPHA[@]}"  -depth 8
mk rgba16.png      6 16 "${ALPHA[@]}"  -depth 16
# PNG8: is needed besides color-type=3, or the alpha is dropped (no tRNS).
mk PNG8:palette.png      3 8 "${OPAQUE[@]}" -depth 8
mk PNG8:palette-trns.png 3 8 "${ALPHA[@]}"  -depth 8
mk interlaced.png   2 8 "${OPAQUE[@]}" -depth 8 -interlace PNG

# --- bad inputs --------------------------------------------------------------

# truncated.png: the first 40 bytes of rgb8.png (signature, IHDR, part of the next chunk).
head -c 40 rgb8.png > truncated.png

# badcrc.png: rgb8.png with one byte in the middle of the IDAT data inverted,
# so the IDAT CRC no longer matches (the zlib header is left intact).
cp rgb8.png badcrc.png
idat=$(grep -obUa 'IDAT' badcrc.png | head -n1 | cut -d: -f1)
[ -n "$idat" ] || { echo "no IDAT in rgb8.png" >&2; exit 1; }
len=$(od -An -tu1 -j $((idat - 4)) -N4 badcrc.png | awk '{print ($1*16777216)+($2*65536)+($3*256)+$4}')
pos=$((idat + 4 + len / 2))   # a data byte halfway through the IDAT data
byte=$(od -An -tu1 -j "$pos" -N1 badcrc.png | tr -d ' ')
printf "\\$(printf '%03o' $((byte ^ 0xFF)))" |
    dd of=badcrc.png bs=1 seek="$pos" conv=notrunc status=none

# notpng.png: a text file with a .png name.
printf 'This is a plain text file, not a PNG image.\n' > notpng.png

# empty.png: zero bytes.
: > empty.png

# --- check -------------------------------------------------------------------
if command -v pngcheck >/dev/null; then
    for f in gray8 gray16 gray1 grayalpha8 grayalpha16 rgb8 rgb16 rgba8 rgba16 \
             palette palette-trns interlaced; do
        pngcheck -q "$f.png" || { echo "pngcheck failed on $f.png" >&2; exit 1; }
    done
    for f in truncated badcrc notpng empty; do
        if pngcheck -q "$f.png" >/dev/null 2>&1; then
            echo "pngcheck unexpectedly accepted $f.png" >&2; exit 1
        fi
    done
fi
echo "fixtures written to $OUT"
