#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Issue 24, finding 12: on a fresh 2-core machine the first window waited 25.6 min because the main
# command (packaging/run-main.sh) built every test suite and the benchmarks before it opened the GUI.
# This check reads the command's `cmake --build` lines and asks Ninja for every command those
# targets need from scratch: none may compile or link a test or a benchmark.
#   check-main-command.sh RUN_MAIN_SH BUILD_DIR
set -euo pipefail
script=$1
build=$2
[ -f "$build/build.ninja" ] || { echo "no Ninja build in $build"; exit 77; }

# One logical line per command (backslash continuations joined), only the `cmake --build` ones.
builds=$(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$script" | grep -E '^[^#]*cmake[[:space:]]+--build' || true)
[ -n "$builds" ] || { echo "FAIL: $script has no 'cmake --build' line"; exit 1; }

status=0
while IFS= read -r line; do
    targets=$(awk '{ on = 0; for (i = 1; i <= NF; ++i) { if ($i == "--target" || $i == "-t") { on = 1; continue }
                     if ($i ~ /^-/ || $i ~ /^[|&;]/) on = 0; else if (on) printf "%s ", $i } }' <<<"$line")
    [ -n "$targets" ] || targets=all
    commands=$(ninja -C "$build" -t commands $targets)
    compiles=$(grep -c -E ' -c ' <<<"$commands" || true)
    offending=$(grep -E '(^| )(-o|-c) [^ ]*(tests|benchmarks)/' <<<"$commands" | sed -E 's/.* -o ([^ ]+).*/\1/' | sort -u || true)
    if [ -n "$offending" ]; then
        echo "FAIL: '$line' builds $(wc -l <<<"$offending") test or benchmark files, e.g.:"
        head -5 <<<"$offending"
        status=1
    else
        echo "ok: '$line' builds only targets $targets($compiles compile commands from scratch)"
    fi
done <<<"$builds"
exit $status
