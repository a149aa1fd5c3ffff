#!/usr/bin/env bash
# Letters with physics at 1920×1080: frames per second to the null sink for a drop
# ("Mercurial Text", 260 px, 13 glyph bodies) and a swing (the title at 200 px as one
# body on a rope of 20 links, 16 px wide), 120 frames each, five runs of each; then
# whether two APNG runs of the drop are byte-identical. Prints one line per run.
#
#   scripts/dynamics-figures.sh          (builds the release binary)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/release-binary.sh"
cat > "$TMP/drop.json" <<'JSON'
{ "text": "Mercurial Text", "width": 1920, "height": 1080, "size": 260, "background": "#101014",
  "animation": { "duration": 4, "fps": 30 },
  "dynamics": { "elasticity": 0.4, "push": { "direction": [1, -1], "magnitude": 0.3 }, "spin": 4,
                "delay": 0.2, "stagger": 0.1 } }
JSON
cat > "$TMP/swing.json" <<'JSON'
{ "material": "gold", "text": "Mercurial Text", "width": 1920, "height": 1080, "size": 200, "background": "#101014",
  "animation": { "duration": 4, "fps": 30 },
  "dynamics": { "bodies": "title", "floor": false, "push": { "direction": [1, 0], "magnitude": 1.5, "at": 0.2 },
                "ropes": [ { "body": 0, "anchor": [960, 0], "segments": 20, "width": 16 } ] } }
JSON
for scene in drop swing; do
    for run in 1 2 3 4 5; do "$BIN" animate "$TMP/$scene.json" -o /dev/null | sed "s|^/dev/null|$scene|"; done
done
"$BIN" animate "$TMP/drop.json" -o "$TMP/a.png" --quiet
"$BIN" animate "$TMP/drop.json" -o "$TMP/b.png" --quiet
if cmp -s "$TMP/a.png" "$TMP/b.png"; then echo "two APNG runs: identical ($(sha256sum < "$TMP/a.png" | cut -c1-16)…)"; else echo "two APNG runs: DIFFER"; fi
