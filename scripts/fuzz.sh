#!/usr/bin/env bash
# Builds one libFuzzer target (scripts/fuzz/targets/TARGET.swift) with
# AddressSanitizer and LeakSanitizer and runs it for SECONDS on a copy of its
# seed corpus (scripts/fuzz/corpus/TARGET).
#
#   bash scripts/fuzz.sh scene|png|font|cli|batch|editor|card SECONDS [extra libFuzzer flags...]
#   bash scripts/fuzz.sh TARGET build          only build it
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
# The whole script is one block, read before it runs: editing it during a run changes nothing.
{

usage() { echo "usage: bash scripts/fuzz.sh scene|png|font|cli|batch|editor|card SECONDS [libFuzzer flags...]" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
target=$1 seconds=$2
shift 2
[[ $seconds =~ ^[0-9]+$ || $seconds == build ]] || usage

# Per target: the largest input, and how often to print the heap (about once a
# minute at the target's speed); a dictionary is used if there is one.
case $target in
    scene) max_len=8192 sample=100000 ;;
    png) max_len=16384 sample=500000 ;;
    font) max_len=32768 sample=100000 ;;
    cli) max_len=4096 sample=2000 ;;
    batch) max_len=16384 sample=20000 ;;
    editor) max_len=8192 sample=200000 ;;
    card) max_len=8192 sample=100000 ;;
    *) usage ;;
esac
export MERCURIAL_FUZZ_SAMPLE=${MERCURIAL_FUZZ_SAMPLE:-$sample}

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
build=.build-fuzz
out=$build/$target
mkdir -p "$out/obj" "$out/modules" "$out/corpus"

for tool in swiftc clang pkg-config flock; do
    command -v "$tool" >/dev/null || { echo "error: $tool is not on PATH" >&2; exit 1; }
done

# --- build --------------------------------------------------------------------
# The library is built once for every target (.build-fuzz/kit/): MercurialKit as
# a module of its own with -enable-testing, so the targets reach its internal API
# (TitleRenderer.validate) through `@testable import`, the C shim and feedback.c.
# Each target is then its own small module linked against it. A snapshot of the
# sources is compiled, so that an editor saving a file during the build cannot
# break it; debug info maps the snapshot's paths back to the tree.
kit=$build/kit
mapfile -d '' kit_sources < <(find Sources/MercurialKit -name '*.swift' -print0 | sort -z)
# Every C file and header of CKernels (the blur's kernel, malloc's settings, spawning ffmpeg).
mapfile -d '' kernel_sources < <(find Sources/CKernels -maxdepth 1 -name '*.c' -print0 | sort -z)
mapfile -d '' kernel_headers < <(find Sources/CKernels/include -name '*.h' -print0 | sort -z)
kit_inputs=("${kit_sources[@]}" Sources/CPNGWriter/png_writer.c Sources/CPNGWriter/include/png_writer.h
            Sources/CPNGWriter/fast_deflate.c Sources/CPNGWriter/include/fast_deflate.h
            "${kernel_sources[@]}" "${kernel_headers[@]}" scripts/fuzz/targets/feedback.c scripts/fuzz.sh)

# stale OUTPUT INPUTS...: true when OUTPUT is missing or older than an input.
stale() {
    local output=$1 f; shift
    [[ -e $output ]] || return 0
    for f in "$@"; do [[ $f -nt $output ]] && return 0; done
    return 1
}

read -r -a pkg_cflags <<< "$(pkg-config --cflags freetype2 harfbuzz fontconfig libpng nettle libturbojpeg libwebp libwebpmux libunibreak)"
xcc=()
for flag in "${pkg_cflags[@]}"; do xcc+=(-Xcc "$flag"); done
swift_flags=(-sanitize=fuzzer,address -parse-as-library -O -g
             -I Sources/CFreeType -I Sources/CHarfBuzz -I Sources/CFontconfig -I Sources/CPNG
             -I Sources/CNettle -I Sources/CChipmunk -I Sources/CTurboJPEG -I Sources/CWebP -I Sources/CUniBreak "${xcc[@]}")
# WebP, TurboJPEG, Nettle and Chipmunk come from their module maps' links ("mercurial-NAME"),
# linker scripts in scripts/link that name Debian's static archives, as in Package.swift.
libraries=(-L "$root/scripts/link" -lfreetype -lharfbuzz -lfontconfig -lpng16 -lz -lmercurial-deflate -lunibreak)

# snapshot DIR FILES...: copies FILES (paths in the tree) under DIR.
snapshot() {
    local dir=$1; shift
    rm -rf "$dir"
    mkdir -p "$dir"
    cp --parents "$@" "$dir/"
}

# Two runs may build at once (the smoke builds every target in turn): the kit is
# built under a lock, into a temporary folder moved into place.
mkdir -p "$build"
exec 9>"$build/kit.lock"
flock 9
if stale "$kit/MercurialKit.o" "${kit_inputs[@]}"; then
    echo "fuzz.sh: building the library for the targets ($kit)" >&2
    next=$build/kit.next
    rm -rf "$next"
    mkdir -p "$next/modules/CPNGWriter" "$next/modules/CKernels"
    snapshot "$next/src" "${kit_inputs[@]}"
    src=$root/$next/src
    # SwiftPM makes a module map for a C target's include/ folder; do the same.
    printf 'module CPNGWriter {\n    header "%s"\n    header "%s"\n    export *\n}\n' \
        "$root/Sources/CPNGWriter/include/png_writer.h" "$root/Sources/CPNGWriter/include/fast_deflate.h" \
        > "$next/modules/CPNGWriter/module.modulemap"
    { echo 'module CKernels {'
      for header in "${kernel_headers[@]}"; do printf '    header "%s"\n' "$root/$header"; done
      printf '    export *\n}\n'; } > "$next/modules/CKernels/module.modulemap"
    # The C shim, instrumented for ASan and libFuzzer's coverage, not linked with libFuzzer's main.
    clang -fsanitize=address,fuzzer-no-link -O1 -g -fno-omit-frame-pointer -fdebug-prefix-map="$src=$root" \
        -I "$src/Sources/CPNGWriter/include" "${pkg_cflags[@]}" \
        -c "$src/Sources/CPNGWriter/png_writer.c" -o "$next/png_writer.o"
    clang -fsanitize=address,fuzzer-no-link -O1 -g -fno-omit-frame-pointer -fdebug-prefix-map="$src=$root" \
        -I "$src/Sources/CPNGWriter/include" -c "$src/Sources/CPNGWriter/fast_deflate.c" -o "$next/fast_deflate.o"
    for c in "${kernel_sources[@]}"; do
        clang -fsanitize=address,fuzzer-no-link -O2 -g -fno-omit-frame-pointer -fdebug-prefix-map="$src=$root" \
            -I "$src/Sources/CKernels/include" -c "$src/$c" -o "$next/kernel-$(basename "$c" .c).o"
    done
    # libFuzzer's extra counters, fed by the targets (see the file).
    clang -O1 -g -c "$src/scripts/fuzz/targets/feedback.c" -o "$next/feedback.o"
    swiftc "${swift_flags[@]}" -debug-prefix-map "$src=$root" -I "$next/modules" -swift-version 6 \
        -module-name MercurialKit -enable-testing -wmo -emit-module -emit-module-path "$next/modules/MercurialKit.swiftmodule" \
        -c "${kit_sources[@]/#/$src/}" -o "$next/MercurialKit.o"
    rm -rf "$kit"
    mv "$next" "$kit"
fi
flock -u 9

binary=$out/fuzz-$target
target_sources=(scripts/fuzz/targets/common.swift "scripts/fuzz/targets/$target.swift")
if [[ $target == cli ]]; then
    parser=${ARGUMENT_PARSER_DIR:-$root/.build/checkouts/swift-argument-parser}
    [[ -d $parser/Sources/ArgumentParser ]] || {
        echo "error: no swift-argument-parser sources in $parser; run 'swift package resolve' or set ARGUMENT_PARSER_DIR" >&2; exit 1; }
    # (Its folders have spaces in their names.)
    mapfile -d '' parser_sources < <(find "$parser/Sources/ArgumentParser" -name '*.swift' -print0 | sort -z)
    target_sources=(Sources/mercurial/*.swift "${target_sources[@]}")
    # `serve`'s options, a module of their own as in Package.swift (the front end imports it).
    extra_inputs=(Sources/ServeOptions/*.swift)
elif [[ $target == editor ]]; then
    # The server's message decoding and the session's Change, without the server (SwiftNIO).
    # (FrameDelta writes NIO's ByteBuffer, and none of these needs it.)
    # (The session's files: EditorSession.swift and its extensions by concern, and what they use.)
    target_sources=(Sources/MercurialEditor/EditorMessage.swift Sources/MercurialEditor/EditorSession.swift
                    Sources/MercurialEditor/EditorSession+*.swift Sources/MercurialEditor/RenderCache.swift
                    Sources/MercurialEditor/EditorReplies.swift
                    Sources/MercurialEditor/SceneDocument.swift Sources/MercurialEditor/QueueExecutor.swift
                    "${target_sources[@]}")
fi

if stale "$binary" "$kit/MercurialKit.o" "${target_sources[@]}" ${extra_inputs[@]+"${extra_inputs[@]}"}; then
    echo "fuzz.sh: building $binary" >&2
    rm -rf "$out/modules" && mkdir -p "$out/modules"
    snapshot "$out/src" "${target_sources[@]}"
    src=$root/$out/src
    flags=("${swift_flags[@]}" -debug-prefix-map "$src=$root" -I "$kit/modules" -I "$out/modules" -swift-version 6)
    objects=("$kit/MercurialKit.o" "$kit/png_writer.o" "$kit/fast_deflate.o" "$kit"/kernel-*.o "$kit/feedback.o")
    if [[ $target == cli ]]; then
        # swift-argument-parser as SwiftPM builds it (ArgumentParserToolInfo, then
        # ArgumentParser), instrumented too. The front end's @main becomes
        # `mercurial_main` (as SwiftPM does for tests), so libFuzzer's main runs.
        module() {  # NAME SOURCES...
            local name=$1; shift
            swiftc "${swift_flags[@]}" -swift-version 5 -module-name "$name" -wmo -I "$out/modules" \
                -emit-module -emit-module-path "$out/modules/$name.swiftmodule" -c "$@" -o "$out/obj/$name.o"
        }
        module ArgumentParserToolInfo "$parser"/Sources/ArgumentParserToolInfo/*.swift
        module ArgumentParser "${parser_sources[@]}"
        swiftc "${swift_flags[@]}" -swift-version 6 -module-name ServeOptions -wmo -I "$kit/modules" -I "$out/modules" \
            -emit-module -emit-module-path "$out/modules/ServeOptions.swiftmodule" -c "${extra_inputs[@]}" -o "$out/obj/ServeOptions.o"
        objects+=("$out/obj/ArgumentParserToolInfo.o" "$out/obj/ArgumentParser.o" "$out/obj/ServeOptions.o")
        flags+=(-Xfrontend -entry-point-function-name -Xfrontend mercurial_main)
    fi
    swiftc "${flags[@]}" -module-name "MercurialFuzz_$target" "${target_sources[@]/#/$src/}" "${objects[@]}" \
        "${libraries[@]}" -o "$binary.tmp"
    mv "$binary.tmp" "$binary"
fi
[[ $seconds == build ]] && exit 0

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
# ASan keeps freed blocks in a quarantine to catch uses after free: 256 MB by
# default, which alone took a 4-minute scene run past the 512 MB limit while the
# program held 62 MB. 32 MB still catches a use soon after a free, and freed
# pages go back to the system, so the RSS that the limit sees is the program's.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:symbolize=1:quarantine_size_mb=32:allocator_release_to_os_interval_ms=500${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# Let the library find fonts/ and materials/ (bundled material names in scene files).
export MERCURIAL_DATA="$root"

echo "fuzz.sh: running $target for $seconds s (artifacts in $out/)" >&2
marker=$out/.run-started
touch "$marker"
# No standard input: a scene naming /dev/stdin as its material must not block.
status=0
"$binary" "${flags[@]}" "$@" "$out/corpus" < /dev/null || status=$?

# A memory stop is a finding only if its input alone goes over the limit; else it
# is growth over the run (the sanitizer's bookkeeping, or a slow leak: see the
# fuzz-sample lines for the live heap), which is said as such.
for oom in "$out"/oom-*; do
    [[ -f $oom && $oom -nt $marker ]] || continue
    echo "fuzz.sh: the run stopped on memory; running $oom alone under the same limits" >&2
    alone=$out/alone.log
    if "$binary" -rss_limit_mb=512 -malloc_limit_mb=512 -timeout=10 -print_final_stats=1 "$oom" < /dev/null >"$alone" 2>&1; then
        peak=$(sed -n 's/.*peak_rss_mb: *\([0-9]*\).*/\1/p' "$alone" | tail -n 1)
        echo "fuzz.sh: not reproducible: $oom alone ran within the limits (peak RSS ${peak:-?} MB); the run's memory grew over its inputs (see the fuzz-sample lines above: live heap against RSS)" >&2
        status=3
    else
        echo "fuzz.sh: finding: $oom alone goes over the memory limit (its report: $alone)" >&2
    fi
done
exit "$status"
}
