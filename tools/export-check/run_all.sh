#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Exports every plan in plans/ to Megatron-LM, torchtitan (main), Megatron-Bridge and Galvatron with
# stratex-cli and loads each file with the target's own loader code (megatron_check.py,
# torchtitan_check.py, bridge_check.py, galvatron_check.py). Prints one row per (plan, target): PASS, REFUSED (by the export, or by the
# torchtitan module's config function, with the reason), FAIL (the loader's message).
# Needs the upstream checkouts under $STRATEX_UPSTREAM (default /work/upstream; see
# docs/export-loaders.md); skips (exit 77) when none is there. A developer tool: CI has no network.
set -u
here=$(cd "$(dirname "$0")" && pwd)
cli=${STRATEX_CLI:-$here/../../build/release/bin/stratex-cli}
upstream=${STRATEX_UPSTREAM:-/work/upstream}
py=${PYTHON:-/usr/bin/python3}
if [[ ! -d $upstream/megatron-lm && ! -d $upstream/torchtitan && ! -d $upstream/galvatron && ! -d $upstream/megatron-bridge ]]; then
    echo "SKIP: no upstream checkouts under $upstream (see docs/export-loaders.md)"
    exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export STRATEX_CLI=$cli STRATEX_UPSTREAM=$upstream
failed=0
for plan in "$here"/plans/*.json; do
    name=$(basename "$plan" .json)
    for target in megatron torchtitan megatron-bridge galvatron; do
        case $target in
            megatron) file=$out/$name.sh; check=megatron_check.py ;;
            torchtitan) file=$out/$name.py; check=torchtitan_check.py ;;
            megatron-bridge) file=$out/$name.bridge.py; check=bridge_check.py ;;
            galvatron) file=$out/$name.json; check=galvatron_check.py ;;
        esac
        if ! "$cli" export --strategy "$plan" --to $target --out "$file" 2>"$out/err"; then
            row="REFUSED $(grep -o 'not exported to .*' "$out/err" | head -1)"
        else
            row=$("$py" "$here/$check" "$file" "$plan" 2>"$out/log" | grep -E '^(PASS|FAIL|REFUSED|SKIP)' | tail -1)
            [[ -z $row ]] && row="FAIL $(tail -1 "$out/log")"
        fi
        [[ $row == FAIL* ]] && failed=1
        printf '%-32s %-10s %s\n' "$name" "$target" "$row"
    done
done
exit $failed
