#!/usr/bin/env bash
# Installs the Debian packages MercurialText needs, when missing.
#
#   bash scripts/install-deps.sh          what building and rendering need
#   bash scripts/install-deps.sh --test   that, and what the test suite, the live
#                                         editor's browser tests and scripts/deb-test.sh need
set -euo pipefail
case "${1:-}" in
    "")     test=0 ;;
    --test) test=1 ;;
    *)      echo "error: unknown option '$1'; give --test for the test suite's packages too, or nothing" >&2; exit 2 ;;
esac
# Building (the C libraries' headers) and rendering; ffmpeg encodes animate's video.
packages=(make pkg-config libfreetype-dev libharfbuzz-dev libfontconfig-dev libpng-dev nettle-dev libchipmunk-dev
          libturbojpeg0-dev libwebp-dev libunibreak-dev libdeflate-dev ffmpeg)
if [ "$test" = 1 ]; then
    packages+=(fonts-dejavu-core fonts-lohit-deva strace time   # time: /usr/bin/time measures peaks in tests
               fonts-noto-core   # font fallback's tests: Cyrillic and Greek from an installed face
               fonts-inter-variable   # variable-font tests: Inter's weight and slant axes
               fonts-noto-color-emoji fonts-ipafont-gothic   # emoji (CBDT) and Japanese line breaking tests
               man-db   # the install test shows the man page with man(1), which reports what troff drops
               chromium chromium-driver   # the live editor's browser test (Selenium below)
               dpkg-dev   # make deb: dpkg-shlibdeps reads the package's Depends from the binaries
               slurm-wlm munge   # the batch test's real Slurm array (scripts/slurm-cluster.sh)
               parallel   # GNU parallel splitting a batch (--shard {}/N, --shard auto/N)
               openssl)   # the card server's test signs a body with openssl dgst -hmac, as a user would
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# Selenium (PyPI) drives Chromium in scripts/editor-browser-test.py.
if [ "$test" = 1 ] && ! python3 -c "import selenium" 2>/dev/null; then
  echo "installing: selenium (PyPI)" >&2
  python3 -m pip install -q --disable-pip-version-check selenium >/dev/null
fi
