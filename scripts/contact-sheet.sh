#!/usr/bin/env bash
# Renders the material previews shown in materials/README.md:
#   materials/previews/NAME.png  one per materials/*.json: the name capitalised,
#                                default font, --size 96, on #1b1b1f
#   materials/previews/hero.png  "MercurialText" in the default material, --size 180
# Every picture is drawn by mercurial itself, with --compression small.
#
# Builds the release binary first (`swift build -c release`; a no-op when it is
# up to date). Environment:
#   MERCURIAL_BIN=path  use this mercurial binary and skip the build
#   SCRATCH_PATH=dir    build with --scratch-path dir (default: SwiftPM's .build)
# Previews of materials that no longer exist are removed. Add a row to
# materials/README.md for a new material; the script warns when one is missing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

if [[ -n "${MERCURIAL_BIN:-}" ]]; then
    BIN="$MERCURIAL_BIN"
else
    BUILD=(swift build -c release)
    [[ -n "${SCRATCH_PATH:-}" ]] && BUILD+=(--scratch-path "$SCRATCH_PATH")
    "${BUILD[@]}"
    BIN="$("${BUILD[@]}" --show-bin-path)/mercurial"
fi
[[ -x "$BIN" ]] || { echo "contact-sheet: no mercurial binary at $BIN" >&2; exit 1; }
# Use this tree's fonts/ and materials/, wherever the binary was built.
export MERCURIAL_DATA="$ROOT"

BACKGROUND="#1b1b1f"   # dark grey: reads on GitHub's light and dark themes
OUT="$ROOT/materials/previews"
mkdir -p "$OUT"

# "rose-gold" -> "Rose Gold"
title() {
    local words=() word
    IFS='-_' read -r -a words <<< "$1"
    local result=""
    for word in "${words[@]}"; do result+="${result:+ }${word^}"; done
    printf '%s' "$result"
}

shopt -s nullglob
files=("$ROOT"/materials/*.json)
[[ ${#files[@]} -gt 0 ]] || { echo "contact-sheet: no materials/*.json" >&2; exit 1; }

names=()
for file in "${files[@]}"; do
    name="$(basename "$file" .json)"
    names+=("$name")
    "$BIN" render "$(title "$name")" --material "$name" --size 96 --background "$BACKGROUND" \
        --compression small --quiet -o "$OUT/$name.png"
done
"$BIN" render "MercurialText" --size 180 --background "$BACKGROUND" --compression small --quiet \
    -o "$OUT/hero.png"

# Drop previews whose material is gone.
for png in "$OUT"/*.png; do
    base="$(basename "$png" .png)"
    [[ "$base" == hero ]] && continue
    keep=false
    for name in "${names[@]}"; do [[ "$name" == "$base" ]] && keep=true && break; done
    $keep || { echo "removing stale $png"; rm -f "$png"; }
done

for name in hero "${names[@]}"; do
    printf '%-10s %6d bytes  %s\n' "$name" "$(wc -c < "$OUT/$name.png")" "materials/previews/$name.png"
    if [[ "$name" != hero ]] && ! grep -qF "previews/$name.png" "$ROOT/materials/README.md" 2>/dev/null; then
        echo "warning: materials/README.md has no row for '$name'" >&2
    fi
done
