#!/usr/bin/env bash
# Builds one libFuzzer target (scripts/fuzz/targets/TARGET.swift) with
# AddressSanitizer and LeakSanitizer and runs it for SECONDS on a copy of its
# seed corpus (scripts/fuzz/corpus/TARGET).
#
#   bash scripts/fuzz.sh scene|png|font|cli SECONDS [extra libFuzzer flags...]
#
# The cli target also compiles the front end (Sources/mercurial) and
# swift-argument-parser: its sources are taken from $ARGUMENT_PARSER_DIR, else
# from .build/checkouts/swift-argument-parser (run `swift package resolve` once).
#
# Everything goes to .build-fuzz/ (ignored by git): the binary and the corpus
# it grows in .build-fuzz/TARGET/, and crash-*, leak-*, timeout-*, oom-* files
# there too. Exit status: 0 when the run ended clean, libFuzzer's (non-zero)
# when it found something. See scripts/fuzz/README.md.
set -euo pipefail

usage() { echo "usage: bash scripts/fuzz.sh scene|png|font|cli SECONDS [libFuzzer flags...]" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
target=$1 seconds=$2
shift 2
[[ $seconds =~ ^[0-9]+$ ]] || usage

# Per target: the largest input, and a dictionary if there is one.
case $target in
    scene) max_len=8192 ;;
    png) max_len=16384 ;;
    font) max_len=32768 ;;
    cli) max_len=4096 ;;
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
if [[ $target == cli ]]; then
    parser=${ARGUMENT_PARSER_DIR:-$root/.build/checkouts/swift-argument-parser}
    [[ -d $parser/Sources/ArgumentParser ]] || {
        echo "error: no swift-argument-parser sources in $parser; run 'swift package resolve' or set ARGUMENT_PARSER_DIR" >&2; exit 1; }
    # (Its folders have spaces in their names.)
    mapfile -d '' parser_sources < <(find "$parser/Sources/ArgumentParser" -name '*.swift' -print0 | sort -z)
    kit_sources=(Sources/MercurialKit/*.swift)
    sources=(Sources/mercurial/*.swift scripts/fuzz/targets/common.swift scripts/fuzz/targets/cli.swift)
    inputs=("${kit_sources[@]}" "${sources[@]}" Sources/CPNGWriter/png_writer.c Sources/CPNGWriter/include/png_writer.h
            scripts/fuzz/targets/feedback.c scripts/fuzz.sh)
else
    sources=(Sources/MercurialKit/*.swift scripts/fuzz/targets/common.swift "scripts/fuzz/targets/$target.swift")
    inputs=("${sources[@]}" Sources/CPNGWriter/png_writer.c Sources/CPNGWriter/include/png_writer.h
            scripts/fuzz/targets/feedback.c scripts/fuzz.sh)
fi

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
    read -r -a pkg_cflags <<< "$(pkg-config --cflags freetype2 harfbuzz fontconfig libpng libcrypto)"
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
    swift_flags=(-sanitize=fuzzer,address -parse-as-library -O -g -debug-prefix-map "$snapshot=$root"
                 -I Sources/CFreeType -I Sources/CHarfBuzz -I Sources/CFontconfig -I Sources/CPNG
                 -I Sources/COpenSSL -I Sources/CChipmunk
                 -I "$out/modules/CPNGWriter" -I "$out/modules" "${xcc[@]}")
    if [[ $target == cli ]]; then
        # Three modules as SwiftPM builds them: ArgumentParser (with its
        # ArgumentParserToolInfo), MercurialKit, and the front end with the target.
        # The front end's @main becomes `mercurial_main` (as SwiftPM does for
        # tests), so libFuzzer's main runs. All of it instrumented.
        module() {  # NAME SWIFT_VERSION [FLAGS] SOURCES...
            local name=$1 version=$2; shift 2
            swiftc "${swift_flags[@]}" -swift-version "$version" -module-name "$name" -wmo \
                -emit-module -emit-module-path "$out/modules/$name.swiftmodule" -c "$@" -o "$out/obj/$name.o"
        }
        module ArgumentParserToolInfo 5 "$parser"/Sources/ArgumentParserToolInfo/*.swift
        module ArgumentParser 5 "${parser_sources[@]}"
        # -enable-testing: the target reaches TitleRenderer.validate with @testable.
        module MercurialKit 6 -enable-testing "${kit_sources[@]/#/$snapshot/}"
        swiftc "${swift_flags[@]}" -swift-version 6 -module-name MercurialFuzzCLI \
            -Xfrontend -entry-point-function-name -Xfrontend mercurial_main \
            "${sources[@]/#/$snapshot/}" "$out/obj/ArgumentParserToolInfo.o" "$out/obj/ArgumentParser.o" \
            "$out/obj/MercurialKit.o" "$out/obj/png_writer.o" "$out/obj/feedback.o" \
            -lfreetype -lharfbuzz -lfontconfig -lpng16 -lz -lcrypto -lchipmunk \
            -o "$binary.tmp"
    else
        # The library's sources and the target in one module, so the target can use
        # internal API (TitleRenderer.validate) without @testable.
        swiftc "${swift_flags[@]}" -swift-version 6 -module-name MercurialFuzz \
            "${sources[@]/#/$snapshot/}" "$out/obj/png_writer.o" "$out/obj/feedback.o" \
            -lfreetype -lharfbuzz -lfontconfig -lpng16 -lz -lcrypto -lchipmunk \
            -o "$binary.tmp"
    fi
    mv "$binary.tmp" "$binary"
fi

# --- run ----------------------------------------------------------------------
# The working corpus starts as a copy of the seeds (kept between runs; seeds
# already there are not overwritten) and grows with what the run finds.
cp -n "scripts/fuzz/corpus/$target"/* "$out/corpus/" 2>/dev/null || true

flags=(
    -max_total_time="$seconds"
    -rss_limit_mb=512
    -malloc_limit_mb=512
    -timeout=10
    -max_len="$max_len"
    -print_final_stats=1
    -artifact_prefix="$out/"
)
[[ -f scripts/fuzz/$target.dict ]] && flags+=(-dict="scripts/fuzz/$target.dict")

# LeakSanitizer suppressions for what is kept on purpose until exit (see the file).
export LSAN_OPTIONS="suppressions=$root/scripts/fuzz/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:symbolize=1:allocator_release_to_os_interval_ms=500${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# Let the library find fonts/ and materials/ (bundled material names in scene files).
export MERCURIAL_DATA="$root"

echo "fuzz.sh: running $target for $seconds s (artifacts in $out/)" >&2
# No standard input: a scene naming /dev/stdin as its material must not block.
exec "$binary" "${flags[@]}" "$@" "$out/corpus" < /dev/null
