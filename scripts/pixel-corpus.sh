#!/usr/bin/env bash
# The pixel corpus: renders a fixed set of stills, masks, maps, streamed titles,
# animations, sequences, physics and vines with one mercurial binary and writes
# the MD5 of every decoded frame (ffmpeg's framemd5, so PNG bytes, compression
# and the recipe chunk do not count; only pixels do) to DIR/manifest.txt.
#
#   scripts/pixel-corpus.sh BIN DIR           render the corpus with BIN into DIR
#   scripts/pixel-corpus.sh --compare A B     compare two corpora; exit 1 on any change
#   scripts/pixel-corpus.sh --check BASE_BIN  render with BASE_BIN and with this tree's
#                                             release build, then compare
#   scripts/pixel-corpus.sh --kept [BIN]      render with BIN (default: this tree's release
#                                             build) and compare with the kept manifest,
#                                             scripts/pixel-corpus.manifest (the pixels of
#                                             babce07, before issue 20's refactor; the ProRes
#                                             frames BT.709 since issue 21; the light sweep's
#                                             hue turning as its keys say since issue 33;
#                                             the fallback still's 東京 from IPA Gothic,
#                                             fonts-ipafont-gothic, which install-deps.sh
#                                             --test installs since issue 37: this one
#                                             output depends on the installed fonts)
#
# A refactor that keeps every output pixel-identical leaves the manifests equal.
# Both binaries read this tree's fonts/ and materials/ (MERCURIAL_DATA).
{
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export MERCURIAL_DATA="$ROOT"
FIX="$ROOT/Tests/MercurialTestSupport/Fixtures"

frames() {  # frames NAME FILE: one line per decoded frame, in the file's own pixel format
    ffmpeg -v error -i "$2" -map 0:v -f framemd5 - | grep -v '^#' \
        | awk -v n="$1" -F', *' '{ print n, $2, $6 }'
}

titles() {  # titles NAME FILE: a title still's frame as RGBA (an opaque still is written as RGB since issue 36)
    ffmpeg -v error -i "$2" -map 0:v -pix_fmt rgba -f framemd5 - | grep -v '^#' \
        | awk -v n="$1" -F', *' '{ print n, $2, $6 }'
}

render_corpus() {
    local bin="$1" out="$2"
    rm -rf "$out"; mkdir -p "$out"; cd "$out"
    local m="manifest.txt"; : > "$m"
    still() {  # still NAME ARGS...: a render to NAME.png
        local name="$1"; shift
        "$bin" render -q "$@" -o "$name.png"
        titles "$name" "$name.png" >> "$m"
    }
    still default "Flex Monkey Mercurial Text"
    still gold-lines "Gold\nStandard" --material gold --size 120 --align left
    still chisel "Chisel" --profile chisel --radius 14 --size 140
    still round "Round" --profile round --material chrome --background "#203040"
    still serif "Serif ffi" --font serif --letter-spacing 6 --no-kerning
    still display "Display" --font display --scale 25 --shininess 0.1
    still dosis "Dosis" --font dosis --set light2.hue=0.6 --set ambientLightLevel=0.4
    still fitted "Wrapped into a box of lines" --width 500 --height 300 --max-lines 3 --align right
    still fallback "Grüße → 東京 ✓" --size 80
    still mask --mask "$FIX/gray8.png" --material ice
    still mask-alpha --mask "$FIX/rgba8.png" --background white
    "$bin" shading --material gold --size 256 -o sphere.png >/dev/null && frames sphere sphere.png >> "$m"
    "$bin" render -q "Shaded" --shading-image sphere.png --size 90 -o shaded-image.png
    titles shaded-image shaded-image.png >> "$m"
    "$bin" render -q "Maps" --size 100 --emit color,height,normal -o maps.png
    for f in maps maps-height maps-normal; do frames "$f" "$f.png" >> "$m"; done
    "$bin" render -q "DX" --size 100 --emit normal --normal-convention directx --normal-depth 16 -o dx.png
    frames dx16 dx.png >> "$m"
    # Scene blocks: point lights and a gradient backdrop, still.
    cat > lights.json <<'EOF'
{ "text": "Lights", "width": 900, "height": 300, "background": "#0b0b10",
  "pointLights": [ { "x": 200, "y": 120, "color": "#ff7a2a", "intensity": 1, "range": 420 },
                   { "x": 700, "y": 200, "color": "#3a8bff", "intensity": 0.8, "range": 300 } ] }
EOF
    still lights --params lights.json
    cat > gradient.json <<'EOF'
{ "text": "Gradient", "material": "gold", "width": 900, "height": 300,
  "backgroundGradient": { "colors": ["#1a0f3a", "#b4541a", "#f2c14e"], "locations": [0, 0.4, 0.9],
                          "startPoint": [0.5, 0], "endPoint": [0.5, 1] } }
EOF
    still gradient --params gradient.json
    # Streamed (banded) titles: a canvas above the in-memory threshold, text and mask.
    # (Each region drawn is over 4.19 M pixels, so each is streamed: about 70 MB of memory.)
    still streamed-text "Streamed title" --size 1000 --background "#102030"
    still streamed-lights --params lights.json --width 4800 --height 1400 --size 1000
    still streamed-gradient --params gradient.json --width 4800 --height 1400 --size 1000
    still streamed-mask --mask "$FIX/white-5000x4000.png" --radius 4
    # render --from: the recipe round trip.
    "$bin" render -q --from gold-lines.png -o from.png && titles from from.png >> "$m"
    # batch: two rows.
    printf 'text,material\nAlpha,gold\nBeta,chrome\n' > rows.csv
    mkdir -p batch && "$bin" batch -q rows.csv -o batch --name '{text}' >/dev/null
    for f in Alpha Beta; do titles "batch-$f" "batch/$f.png" >> "$m"; done
    # Animations, sequences, physics, ropes and vines: APNG, a PNG sequence and
    # lossless video (qtrle), decoded frame by frame.
    local ex="$ROOT/examples"
    "$bin" animate -q "$ex/light-sweep.json" --width 640 --height 200 -o sweep.png
    frames light-sweep-apng sweep.png >> "$m"
    mkdir -p seq && "$bin" animate -q "$ex/gold-rise.json" --width 640 --height 200 -o 'seq/f-%03d.png'
    frames gold-rise-seq 'seq/f-%03d.png' >> "$m"
    "$bin" animate -q "$ex/sequence.json" -o sequence.mov --codec qtrle
    frames sequence-qtrle sequence.mov >> "$m"
    "$bin" animate -q "$ex/drop.json" -o drop.png && frames drop drop.png >> "$m"
    "$bin" animate -q "$ex/swing.json" -o swing.png && frames swing swing.png >> "$m"
    "$bin" animate -q "$ex/vine.json" --width 600 --height 220 --size 100 -o vine.png
    frames vine vine.png >> "$m"
    "$bin" animate -q "$ex/light-sweep.json" --width 320 --height 100 -o sweep.mov
    frames light-sweep-prores sweep.mov >> "$m"
    echo "pixel-corpus: $(wc -l < "$m") frames from $(cut -d' ' -f1 "$m" | sort -u | wc -l) outputs in $out"
}

compare() {  # compare DIR_A DIR_B
    if diff -u "$1/manifest.txt" "$2/manifest.txt"; then
        echo "pixel-corpus: identical ($(wc -l < "$1/manifest.txt") frames)"
    else
        echo "pixel-corpus: the outputs above differ" >&2; exit 1
    fi
}

case "${1:-}" in
    --compare) compare "$2" "$3" ;;
    --check)
        base="$(realpath "$2")"
        (cd "$ROOT" && swift build -c release --product mercurial >/dev/null)
        # Folders of this run's own, so that runs at the same time do not delete each other's files.
        work="$(mktemp -d /tmp/pixel-corpus.XXXXXX)"
        render_corpus "$base" "$work/base"
        render_corpus "$ROOT/.build/release/mercurial" "$work/new"
        compare "$work/base" "$work/new" ;;
    --kept)
        bin="${2:-}"
        if [[ -z $bin ]]; then
            (cd "$ROOT" && swift build -c release --product mercurial >/dev/null)
            bin="$ROOT/.build/release/mercurial"
        fi
        work="$(mktemp -d /tmp/pixel-corpus.XXXXXX)"
        render_corpus "$(realpath "$bin")" "$work/new"
        mkdir -p "$work/kept" && cp "$ROOT/scripts/pixel-corpus.manifest" "$work/kept/manifest.txt"
        compare "$work/kept" "$work/new" ;;
    ""|-h|--help)
        sed -n '2,16p' "$ROOT/scripts/pixel-corpus.sh" | sed 's/^# \{0,1\}//'; exit 64 ;;
    *)
        render_corpus "$(realpath "$1")" "$(realpath -m "$2")" ;;
esac
exit
}
