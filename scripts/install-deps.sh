#!/usr/bin/env bash
# Installs the Debian packages MercurialText builds and tests with, when missing.
set -euo pipefail
packages=(make pkg-config libfreetype-dev libharfbuzz-dev libfontconfig-dev libpng-dev libssl-dev libchipmunk-dev
          fonts-dejavu-core fonts-lohit-deva strace ffmpeg time   # time: /usr/bin/time measures peaks in tests
          fonts-noto-core   # font fallback's tests: Cyrillic and Greek from an installed face
          man-db   # the install test shows the man page with man(1), which reports what troff drops
          chromium chromium-driver)   # the live editor's browser test
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
if ! python3 -c "import selenium" 2>/dev/null; then
  echo "installing: selenium (PyPI)" >&2
  python3 -m pip install -q --disable-pip-version-check selenium >/dev/null
fi
