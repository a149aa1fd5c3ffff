#!/usr/bin/env bash
# Physics cost against the glyph count with lively settings (push 100, elasticity 1,
# friction 0, 2,000 steps/s): a 1920×1080 title of N glyphs (words of nine letters,
# wrapped into up to 100 lines) animated to the null sink at 10 frames/s for SECONDS
# of animation. Prints one line per run: glyphs, wall seconds, CPU seconds, peak MB
# (from /usr/bin/time -v), and the error line when the scene is refused.
#
#   scripts/physics-growth.sh [SECONDS] [RUNS] [GLYPHS…]     (default: 10 1 250 500 1000 2000)
# SETTINGS=default uses an empty "dynamics" block (the defaults) instead.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/release-binary.sh"
seconds="${1:-10}"; runs="${2:-1}"; shift $(( $# > 2 ? 2 : $# ))
counts=("$@"); [[ ${#counts[@]} -gt 0 ]] || counts=(250 500 1000 2000)
for n in "${counts[@]}"; do
    text="$(python3 -c "import sys; n=int(sys.argv[1]); w=['mercurial']*(n//9); r=n%9; w+= ['mercurial'[:r]] if r else []; print(' '.join(w))" "$n")"
    dynamics='{ "elasticity": 1, "friction": 0, "stepsPerSecond": 2000, "push": { "direction": [1, -1], "magnitude": 100 } }'
    [[ "${SETTINGS:-lively}" == default ]] && dynamics='{}'
    cat > "$TMP/s$n.json" <<JSON
{ "text": "$text", "width": 1920, "height": 1080, "maxLines": 100, "background": "#101014",
  "animation": { "duration": $seconds, "fps": ${FPS:-10} },
  "dynamics": $dynamics }
JSON
    for run in $(seq "$runs"); do
        if /usr/bin/time -v -o "$TMP/time" "$BIN" animate "$TMP/s$n.json" -o /dev/null --quiet 2> "$TMP/err"; then
            outcome=ok
        else
            outcome="$(head -c 300 "$TMP/err")"
        fi
        wall="$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$TMP/time")"
        user="$(awk -F': ' '/User time/ { print $2 }' "$TMP/time")"
        sys="$(awk -F': ' '/System time/ { print $2 }' "$TMP/time")"
        peak="$(awk -F': ' '/Maximum resident/ { printf "%.0f", $2 / 1024 }' "$TMP/time")"
        printf '%5d glyphs, %s, %s s animation: %7.2f s wall, %7.2f s CPU, %4d MB peak — %s\n' \
            "$n" "${SETTINGS:-lively}" "$seconds" "$wall" "$(echo "$user + $sys" | bc)" "$peak" "$outcome"
    done
done
