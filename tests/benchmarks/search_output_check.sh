#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The stratex search's answer must not move when the search is made faster (issue 22 item 8): this
# writes `search --cost-model stratex --json` for the benchmark's shapes without its counts and
# timing (the "stats" object: a faster search may cost fewer candidates, as the sampled threshold
# prunes them, docs/search-speed.md), so that two binaries' plans can be compared byte for byte.
#
#   tests/benchmarks/search_output_check.sh CLI OUTDIR          write OUTDIR/<case>.json
#   tests/benchmarks/search_output_check.sh CLI OUTDIR BEFOREDIR  ... and compare with BEFOREDIR
set -euo pipefail
cli=${1:?stratex-cli binary}
out=${2:?output directory}
before=${3:-}
mkdir -p "$out"
cases=(
    "deepseek-v3-2048 --model deepseek-v3-style --num-nodes 2048 --global-batch-size 4096"
    "llama3-405b-2048 --model llama3-405b --num-nodes 2048 --global-batch-size 2048"
    "mixtral-8x22b-128 --model mixtral-8x22b --num-nodes 128 --global-batch-size 1024"
    "mixtral-8x7b-4 --model mixtral-8x7b --num-nodes 4 --global-batch-size 256"
    "llama3-8b-1 --model llama3-8b --num-nodes 1 --global-batch-size 64"
)
status=0
for c in "${cases[@]}"; do
    read -r name args <<<"$c"
    # shellcheck disable=SC2086
    "$cli" search --cost-model stratex --gpu h100-80gb $args --json \
        | sed -E 's/"stats":\{[^}]*\},?//' >"$out/$name.json"
    if [[ -n $before ]]; then
        if cmp -s "$before/$name.json" "$out/$name.json"; then
            echo "same: $name"
        else
            echo "DIFFERENT: $name"
            status=1
        fi
    fi
done
exit $status
