#!/usr/bin/env bash
# The Debian package, end to end: builds it (make deb: a static release build when
# the stage is stale), installs it with apt as a user would, and checks the installed
# copy with no Swift toolchain in reach (PATH without it, LD_LIBRARY_PATH unset,
# nothing else in the environment):
#   - ldd of /usr/bin/mercurial, mercurial-edit-server and mercurial-serve-server: no
#     Swift runtime library
#     (libswiftCore, libFoundation, libdispatch, …) and nothing "not found";
#   - --version is the source tree's;
#   - a title renders from /usr/share/mercurial's data (a material only there) to a
#     valid PNG (every chunk's CRC, the image data inflates to its size), which
#     inspect reads back;
#   - mercurial edit starts its server, which serves the page;
#   - mercurial serve --port 0 starts the card server, which names its URL on its first
#     line, answers /healthz with ok and /v1/render?text=Packaged&size=40 with a PNG,
#     and exits 0 on SIGTERM;
# then removes the package again (also when a check fails) and checks nothing of it
# is left. Needs root, or sudo, for apt. CI runs it after swift test (.ci/run).
#
#   bash scripts/deb-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { printf 'error: %s\n' "$*" >&2; exit 1; }
step() { printf '== %s (%ss)\n' "$*" "$SECONDS"; }

package="${DEB_PACKAGE:-mercurial-text}"
version="$(bash scripts/install.sh version)"
deb="$PWD/${package}_${version}_$(dpkg --print-architecture).deb"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
owner="$(dpkg-query -S /usr/bin/mercurial 2>/dev/null | cut -d: -f1 || true)"
if [ -e /usr/bin/mercurial ] && [ "$owner" != "$package" ]; then
    fail "/usr/bin/mercurial exists and is not from the $package package (${owner:-no package}); remove it (make uninstall PREFIX=/usr) before testing the package"
fi

step "make deb"
make deb DEB_PACKAGE="$package"
[ -f "$deb" ] || fail "make deb wrote no $deb"
echo "package: $(du -h "$deb" | cut -f1) ($(stat -c %s "$deb") bytes), installed $(dpkg-deb -f "$deb" Installed-Size) KiB"
echo "Depends: $(dpkg-deb -f "$deb" Depends)"

tmp="$(mktemp -d)"
editor=""
server=""
cleanup() {
    [ -z "$editor" ] || kill "$editor" 2>/dev/null || true
    [ -z "$server" ] || kill -KILL "$server" 2>/dev/null || true
    rm -f /usr/share/mercurial/materials/zz-deb-test.json 2>/dev/null || $sudo rm -f /usr/share/mercurial/materials/zz-deb-test.json
    if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed"; then
        DEBIAN_FRONTEND=noninteractive $sudo apt-get remove --purge -y -qq "$package" >/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

step "apt-get install $deb"
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$deb" >"$tmp/apt.log" 2>&1 \
    || fail "apt-get install $deb failed: $(tail -5 "$tmp/apt.log" | tr '\n' ' ')"
for binary in /usr/bin/mercurial /usr/bin/mercurial-edit-server /usr/bin/mercurial-serve-server; do
    [ -x "$binary" ] || fail "the package installed no $binary"
done

step "ldd"
for binary in /usr/bin/mercurial /usr/bin/mercurial-edit-server /usr/bin/mercurial-serve-server; do
    env -u LD_LIBRARY_PATH ldd "$binary" >"$tmp/ldd.txt"
    echo "ldd $binary:"
    sed 's/^/    /' "$tmp/ldd.txt"
    ! grep -Eq 'libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|libXCTest|libTesting|/opt/swift' "$tmp/ldd.txt" \
        || fail "$binary loads the Swift runtime: $(grep -E 'swift|Foundation|dispatch|Blocks' "$tmp/ldd.txt" | tr '\n' ' ')"
    ! grep -q 'not found' "$tmp/ldd.txt" || fail "$binary needs a library that is not installed: $(grep 'not found' "$tmp/ldd.txt" | tr '\n' ' ')"
done

# The installed copy as a user without Swift runs it: a plain PATH, nothing else set.
clean_path=/usr/local/bin:/usr/bin:/bin
run() { (cd "$tmp" && env -i HOME="$tmp" PATH="$clean_path" LANG=C.UTF-8 "$@"); }
case ":$clean_path:" in *swift*) fail "the clean PATH $clean_path reaches Swift";; esac

step "render from /usr/bin/mercurial"
[ "$(run /usr/bin/mercurial --version)" = "$version" ] || fail "/usr/bin/mercurial --version is not $version"
# A material only /usr/share/mercurial has: the data comes from the package, not this
# source tree (the binary's last fallback).
$sudo cp /usr/share/mercurial/materials/gold.json /usr/share/mercurial/materials/zz-deb-test.json
run /usr/bin/mercurial render "Debian" --material zz-deb-test -o title.png
python3 - "$tmp/title.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
at, chunks, idat = 8, [], b""
while at < len(data):
    length, kind = struct.unpack(">I4s", data[at:at + 8])
    body = data[at + 8:at + 8 + length]
    crc, = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
    assert zlib.crc32(kind + body) == crc, f"bad CRC in {kind}"
    chunks.append(kind)
    if kind == b"IHDR":
        width, height, depth, colour = struct.unpack(">IIBB", body[:10])
    if kind == b"IDAT":
        idat += body
    at += 12 + length
assert chunks[0] == b"IHDR" and chunks[-1] == b"IEND", f"chunks {chunks}"
channels = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
rows = zlib.decompress(idat)
assert len(rows) == height * (1 + width * channels * depth // 8), "image data of the wrong size"
assert width > 100 and height > 20, f"{width}x{height} is too small for a title"
print(f"title.png: valid PNG, {width}x{height}, {depth}-bit, colour type {colour}, {len(data)} bytes")
PY
run /usr/bin/mercurial inspect title.png | grep -q '"zz-deb-test"\|Debian' || fail "mercurial inspect title.png does not show the recipe"
# As root, again with the toolchain's folder hidden (an empty folder mounted over it in
# a mount namespace of its own), as on a machine that never had Swift.
swift_binary="$(command -v swift || true)"
if [ "$(id -u)" -eq 0 ] && [ -n "$swift_binary" ] && unshare -m true 2>/dev/null; then
    toolchain="$(dirname "$(dirname "$(readlink -f "$swift_binary")")")"
    run unshare -m sh -c 'mount -t tmpfs none "$1" && [ ! -e "$1/bin/swift" ] && shift && exec "$@"' \
        sh "$toolchain" /usr/bin/mercurial render "No Swift" -o hidden.png \
        || fail "/usr/bin/mercurial did not render with the toolchain $toolchain hidden"
    [ -s "$tmp/hidden.png" ] || fail "/usr/bin/mercurial wrote no title with the toolchain $toolchain hidden"
    echo "rendered with $toolchain hidden"
fi

step "mercurial edit from /usr/bin/mercurial"
(cd "$tmp" && exec env -i HOME="$tmp" PATH="$clean_path" LANG=C.UTF-8 /usr/bin/mercurial edit scene.json --port 0 >edit.log 2>&1) &
editor=$!
url=""
for _ in $(seq 1 300); do   # 30 s at most
    url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/?token=[0-9A-Za-z_-]*' "$tmp/edit.log" | head -1 || true)"
    [ -n "$url" ] || ! kill -0 "$editor" 2>/dev/null || { sleep 0.1; continue; }
    break
done
[ -n "$url" ] || fail "mercurial edit printed no URL within 30 s: $(tr '\n' ' ' <"$tmp/edit.log")"
python3 -c 'import sys, urllib.request; page = urllib.request.urlopen(sys.argv[1], timeout=10).read(); assert b"<html" in page.lower(), page[:200]' "$url" \
    || fail "the editor at $url did not serve its page"
kill -INT "$editor"
for _ in $(seq 1 100); do kill -0 "$editor" 2>/dev/null || break; sleep 0.1; done
kill -0 "$editor" 2>/dev/null && fail "mercurial edit did not stop within 10 s of Ctrl-C"
wait "$editor" || true
editor=""
echo "editor served $url"

step "mercurial serve from /usr/bin/mercurial"
# exec all the way down: $server is the card server itself (mercurial serve execs it).
# A generous --deadline: the first render on a busy machine may take more than 2 s.
(cd "$tmp" && exec env -i HOME="$tmp" PATH="$clean_path" LANG=C.UTF-8 /usr/bin/mercurial serve --port 0 --deadline 60 >serve.log 2>serve.err) &
server=$!
# The first line, whole, within 30 s (or as soon as the server has exited).
timeout 30 sh -c 'until [ "$(wc -l <"$1")" -ge 1 ] || ! kill -0 "$2" 2>/dev/null; do sleep 0.1; done' sh "$tmp/serve.log" "$server" || true
first="$(head -1 "$tmp/serve.log")"
[[ "$first" =~ ^mercurial\ serve:\ (http://127\.0\.0\.1:[0-9]+/)$ ]] \
    || fail "mercurial serve's first line within 30 s is not its URL: '$first' (stderr: $(tr '\n' ' ' <"$tmp/serve.err"))"
base="${BASH_REMATCH[1]}"
python3 - "$base" "$tmp/card.png" <<'PY' || fail "the card server at $base failed (stderr: $(tr '\n' ' ' <"$tmp/serve.err"))"
import sys, urllib.request
base, out = sys.argv[1], sys.argv[2]
with urllib.request.urlopen(base + "healthz", timeout=30) as answer:
    body = answer.read()
    assert answer.status == 200 and body.strip() == b"ok", f"/healthz: {answer.status} {body[:200]!r}"
with urllib.request.urlopen(base + "v1/render?text=Packaged&size=40", timeout=120) as answer:
    card = answer.read()
    kind = answer.headers.get("Content-Type", "")
    assert answer.status == 200, f"/v1/render: {answer.status}"
assert card[:8] == b"\x89PNG\r\n\x1a\n", f"/v1/render is not a PNG ({kind}): {card[:200]!r}"
open(out, "wb").write(card)
print(f"healthz ok; card {kind}, {len(card)} bytes")
PY
kill -TERM "$server"
timeout 30 sh -c 'while kill -0 "$1" 2>/dev/null; do sleep 0.1; done' sh "$server" \
    || fail "mercurial serve did not stop within 30 s of SIGTERM"
status=0
wait "$server" || status=$?
server=""
[ "$status" -eq 0 ] || fail "mercurial serve exited $status on SIGTERM, not 0 (stderr: $(tr '\n' ' ' <"$tmp/serve.err"))"
echo "card server served $base and stopped on SIGTERM with status 0"

step "apt-get remove --purge $package"
rm -f /usr/share/mercurial/materials/zz-deb-test.json 2>/dev/null || $sudo rm -f /usr/share/mercurial/materials/zz-deb-test.json
DEBIAN_FRONTEND=noninteractive $sudo apt-get remove --purge -y -qq "$package" >"$tmp/apt.log" 2>&1 \
    || fail "apt-get remove $package failed: $(tail -5 "$tmp/apt.log" | tr '\n' ' ')"
for left in /usr/bin/mercurial /usr/bin/mercurial-edit-server /usr/bin/mercurial-serve-server /usr/share/man/man1/mercurial.1.gz /usr/share/mercurial/fonts; do
    [ ! -e "$left" ] || fail "removing the package left $left"
done
step "deb test passed"
