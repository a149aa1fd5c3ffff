# Sourced by the picture and figure scripts: moves to the repository's root, sets
# BIN to the release `mercurial` (built when MERCURIAL_BIN does not name one), points
# MERCURIAL_DATA at this tree's fonts and materials, and makes TMP, removed on exit.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [[ -n "${MERCURIAL_BIN:-}" ]]; then BIN="$MERCURIAL_BIN"; else
    swift build -c release --product mercurial >/dev/null
    BIN="$(swift build -c release --show-bin-path)/mercurial"
fi
export MERCURIAL_DATA="$ROOT"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
