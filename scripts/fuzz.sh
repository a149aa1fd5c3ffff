#!/usr/bin/env bash
# Builds one libFuzzer target (scripts/fuzz/targets/TARGET.swift) with
# AddressSanitizer and LeakSanitizer and runs it for SECONDS on a copy of its
# seed corpus (scripts/fuzz/corpus/TARGET).
#
#   bash scripts/fuzz.sh scene|png|font SECONDS [extra libFuzzer flags...]
#
# Everything goes to .build-fuzz/ (ignored by git): the binary and the corpus
# it grows in .build-fuzz/TARGET/, and crash-*, leak-*, timeout-*, oom-* files
# there too. Exit status: 0 when the run ended clean, libFuzzer's (non-zero)
# when it found something. See scripts/fuzz/README.md.
set -euo pipefail

usage() { echo "usage: bash scripts/fuzz.sh scene|png|font SECONDS [libFuzzer flags...]" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
target=$1 seconds=$2
shift 2
[[ $seconds =~ ^[0-9]+$ ]] || usage

# Per target: the largest input, and a dictionary if there is one.
case $target in
    scene) max_len=8192 ;;
    png) max_len=16384 ;;
    font) max_len=32768 ;;
    *) usage ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=.build-fuzz
out=$build/$target
mkdir -p "$out/obj" "$out/corpus"

for tool in swiftc clang pkg-config; do
    command -v "$tool" >/dev/null || { echo "error: $tool is not on PATH" >&2; exit 1; }
done

# --- build --------------------------------------------------------------------
binary=$out/fuzz-$target
sources=(Sources/MercurialKit/*.swift scripts/fuzz/targets/common.swift "scripts/fuzz/targets/$target.swift")
inputs=("${sources[@]}" Sources/CPNGWriter/png_writer.c Sources/CPNGWriter/include/png_writer.h
        scripts/fuzz/targets/feedback.c scripts/fuzz.sh)

# Rebuild when the binary is missing or older than any input.
stale=0
if [[ ! -x $binary ]]; then
    stale=1
else
    for f in "${inputs[@]}"; do
        if [[ $f -nt $binary ]]; then stale=1; break; fi
    done
fi

if [[ $stale == 1 ]]; then
    read -r -a pkg_cflags <<< "$(pkg-config --cflags freetype2 harfbuzz fontconfig libpng)"
    xcc=()
    for flag in "${pkg_cflags[@]}"; do xcc+=(-Xcc "$flag"); done

    echo "fuzz.sh: building $binary" >&2
    # Compile a snapshot of the sources, so that an editor saving a file during the
    # build cannot break it; debug info maps the snapshot's paths back to the tree.
    # Everything a build writes is under $out, so two targets can build at once.
    snapshot=$root/$out/src
    rm -rf "$snapshot"
    mkdir -p "$snapshot"
    cp --parents "${inputs[@]}" "$snapshot/"
    # SwiftPM makes a module map for a C target's include/ folder; do the same.
    mkdir -p "$out/modules/CPNGWriter"
    printf 'module CPNGWriter {\n    header "%s"\n    export *\n}\n' \
        "$snapshot/Sources/CPNGWriter/include/png_writer.h" > "$out/modules/CPNGWriter/module.modulemap"

    # The C shim, instrumented for ASan and libFuzzer's coverage, not linked with libFuzzer's main.
    clang -fsanitize=address,fuzzer-no-link -O1 -g -fno-omit-frame-pointer \
        -fdebug-prefix-map="$snapshot=$root" \
        -I "$snapshot/Sources/CPNGWriter/include" "${pkg_cflags[@]}" \
        -c "$snapshot/Sources/CPNGWriter/png_writer.c" -o "$out/obj/png_writer.o"
    # libFuzzer's extra counters, fed by the targets (see the file).
    clang -O1 -g -c "$snapshot/scripts/fuzz/targets/feedback.c" -o "$out/obj/feedback.o"
    # The library's sources and the target in one module, so the target can use
    # internal API (TitleRenderer.validate) without @testable.
    swiftc -sanitize=fuzzer,address -parse-as-library -swift-version 6 -O -g \
        -module-name MercurialFuzz -debug-prefix-map "$snapshot=$root" \
        -I Sources/CFreeType -I Sources/CHarfBuzz -I Sources/CFontconfig -I Sources/CPNG \
        -I "$out/modules/CPNGWriter" "${xcc[@]}" \
        "${sources[@]/#/$snapshot/}" "$out/obj/png_writer.o" "$out/obj/feedback.o" \
        -lfreetype -lharfbuzz -lfontconfig -lpng16 -lz \
        -o "$binary.tmp"
    mv "$binary.tmp" "$binary"
fi

# --- run ----------------------------------------------------------------------
# The working corpus starts as a copy of the seeds (kept between runs; seeds
# already there are not overwritten) and grows with what the run finds.
cp -n "scripts/fuzz/corpus/$target"/* "$out/corpus/" 2>/dev/null || true

flags=(
    -max_total_time="$seconds"
    -rss_limit_mb=2048
    -timeout=10
    -max_len="$max_len"
    -print_final_stats=1
    -artifact_prefix="$out/"
)
[[ -f scripts/fuzz/$target.dict ]] && flags+=(-dict="scripts/fuzz/$target.dict")

# LeakSanitizer suppressions for what is kept on purpose until exit (see the file).
export LSAN_OPTIONS="suppressions=$root/scripts/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:symbolize=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# Let the library find fonts/ and materials/ (bundled material names in scene files).
export MERCURIAL_DATA="$root"

echo "fuzz.sh: running $target for $seconds s (artifacts in $out/)" >&2
# No standard input: a scene naming /dev/stdin as its material must not block.
exec "$binary" "${flags[@]}" "$@" "$out/corpus" < /dev/null
