#!/usr/bin/env bash
# Run by ArgumentParser's generate-manual (from scripts/install.sh) in place of the
# binary: it runs $MERCURIAL_MANUAL_BINARY with the same arguments
# (--experimental-dump-help) and spells the help's non-ASCII characters in ASCII.
# generate-manual drops them otherwise ("range 1…4096" would read "range 14096").
# Only JSON string contents can hold non-ASCII here, so quotes become \".
set -euo pipefail
[ -n "${MERCURIAL_MANUAL_BINARY:-}" ] || { echo "error: MERCURIAL_MANUAL_BINARY is not set" >&2; exit 1; }
"$MERCURIAL_MANUAL_BINARY" "$@" \
    | LC_ALL=C.UTF-8 sed -e 's/…/.../g' -e 's/×/x/g' -e 's/–/-/g' -e 's/—/--/g' \
        -e 's/→/->/g' -e 's/←/<-/g' -e "s/[‘’]/'/g" -e 's/[“”]/\\"/g' -e 's/°/ deg/g' \
    | LC_ALL=C.UTF-8 iconv -f UTF-8 -t ASCII//TRANSLIT
