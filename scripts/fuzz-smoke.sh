#!/usr/bin/env bash
# The fuzz smoke that CI runs on every submission: builds every libFuzzer target
# (scripts/fuzz.sh), runs each past finding (Tests/MercurialTestSupport/Fixtures/fuzz/
# TARGET-*) once under ASan, then fuzzes each target for SECONDS (default 60) from
# its committed seeds, under the same 512 MB limits as a long run.
#
#   bash scripts/fuzz-smoke.sh [SECONDS]
#
# Fails (exit 1) on a crash, a leak, a hang, or a memory stop whose input alone goes
# over the limit; a memory stop that the input alone does not repeat is reported
# (see scripts/fuzz.sh) but does not fail a one-minute smoke. Each run starts from
# the seeds only (a fresh working corpus), so a result depends on the commit, not
# on what an earlier run on this machine found.
set -uo pipefail
# The whole script is one block, read before it runs: editing it during a run changes nothing.
{
seconds=${1:-60}
[[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] || { echo "usage: bash scripts/fuzz-smoke.sh [SECONDS]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
targets=(scene png font cli batch editor card)
log=.build-fuzz/smoke
rm -rf "$log" && mkdir -p "$log"

# The cli target compiles swift-argument-parser from the checkout a normal build leaves.
[[ -d .build/checkouts/swift-argument-parser ]] || swift package resolve >/dev/null

failed=()
for target in "${targets[@]}"; do
    if ! bash scripts/fuzz.sh "$target" build >"$log/$target-build.log" 2>&1; then
        echo "fuzz smoke: $target does not build:" >&2
        grep -m 5 "error:" "$log/$target-build.log" >&2
        failed+=("$target (build)")
    fi
done
[[ ${#failed[@]} -eq 0 ]] || { echo "fuzz smoke: FAILED: ${failed[*]}" >&2; exit 1; }

for target in "${targets[@]}"; do
    rm -rf ".build-fuzz/$target/corpus"
    # Past findings, once each, with the run's sanitizers and limits.
    findings=(Tests/MercurialTestSupport/Fixtures/fuzz/"$target"-*)
    if [[ -e ${findings[0]} ]]; then
        if ! MERCURIAL_DATA=$root ASAN_OPTIONS=quarantine_size_mb=32 ".build-fuzz/$target/fuzz-$target" \
                -rss_limit_mb=512 -malloc_limit_mb=512 -timeout=10 "${findings[@]}" \
                </dev/null >"$log/$target-findings.log" 2>&1; then
            echo "fuzz smoke: a past $target finding fails again (see $log/$target-findings.log)" >&2
            failed+=("$target (past finding)")
        fi
    fi
    start=$(date +%s)
    bash scripts/fuzz.sh "$target" "$seconds" >"$log/$target.log" 2>&1
    status=$?
    stats=$(sed -n 's/^stat::\(number_of_executed_units\|peak_rss_mb\): *\([0-9]*\)/\1=\2/p' "$log/$target.log" | tr '\n' ' ')
    cov=$(grep -o 'cov: [0-9]*' "$log/$target.log" | tail -n 1)
    echo "fuzz smoke: $target $(( $(date +%s) - start )) s, ${stats}${cov:+$cov }exit $status"
    case $status in
        0|3) ;;   # clean, or a memory stop not repeated by its input alone (said in the log)
        *) grep -m 3 -E "ERROR|finding|SUMMARY" "$log/$target.log" >&2
           failed+=("$target") ;;
    esac
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "fuzz smoke: FAILED: ${failed[*]} (logs in $log/; artifacts in .build-fuzz/TARGET/)" >&2
    exit 1
fi
echo "fuzz smoke: ${#targets[@]} targets clean"
}
