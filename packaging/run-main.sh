#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Sets up a fresh Debian 12 machine, builds Stratex and runs the main job: the GUI on the bundled
# example. Without a display it runs the same job headless: it saves a screenshot of the window
# and the CLI output of the same job under out/.
set -euo pipefail
cd "$(dirname "$0")/.."

packaging/bootstrap.sh --main
cmake --preset release
# Only the two programs: the test suites and benchmarks are the test command's (issue 24: the first
# window on a fresh 2-core machine waited for all of them).
cmake --build --preset release -j "$(nproc 2>/dev/null || echo 2)" --target stratex stratex-cli

bin=build/release/bin
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
    exec "$bin/stratex" "$@"
fi

mkdir -p out
echo "No display: running the main job headless."
"$bin/stratex" --screenshot out/stratex-main.png "$@"
# The window's job from the command line: the bundled (estimated) profile set searched with
# 40 GB per GPU at global batch 64 by both cost models (Galvatron's, exactly, and Stratex's over
# Megatron's space), the best plan's rank groups, and the tracer batch plan.
example=resources/examples/llama2-13b-a100-40gb-2x8
"$bin/stratex-cli" search --cost-model galvatron --profiles "$example" --memory-constraint 40 --settle-bsz 64 \
    --top 5 --out out/galvatron_config.json | tee out/search.txt
"$bin/stratex-cli" search --cost-model galvatron --profiles "$example" --memory-constraint 40 --settle-bsz 64 \
    --json > out/search.json
"$bin/stratex-cli" search --cost-model stratex --profiles "$example" --memory-constraint 40 \
    --global-batch-size 64 --top 5 --out out/stratex_plan.json | tee out/stratex-search.txt
"$bin/stratex-cli" ranks --world 16 --tp 4 --pp 2 --gpus-per-node 8 | tee out/ranks.txt
"$bin/stratex-cli" trace-ranks --batch-file resources/examples/tracer-batch.txt | tee out/trace-ranks.txt
echo "Saved out/stratex-main.png, out/search.txt, out/search.json, out/galvatron_config.json," \
    "out/stratex-search.txt, out/stratex_plan.json, out/ranks.txt and out/trace-ranks.txt"
