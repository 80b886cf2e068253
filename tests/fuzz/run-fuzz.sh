#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs every libFuzzer target of a `fuzz` build on its seeds (tests/data, resources/examples,
# tests/fuzz/seeds) for SECONDS each, in a scratch corpus folder per target.
#   tests/fuzz/run-fuzz.sh BUILD_DIR [SECONDS] [TARGET...]
# The test command runs it for a few seconds per target; a campaign is e.g. 1800 seconds each:
#   tests/fuzz/run-fuzz.sh build/fuzz 1800
# A finding (crash, sanitizer report, leak, timeout, out-of-memory) ends it with a non-zero exit
# and leaves the reproducer (crash-*, timeout-*, oom-*) in BUILD_DIR/fuzz-findings/.
set -euo pipefail
cd "$(dirname "$0")/../.."

build=${1:?usage: run-fuzz.sh BUILD_DIR [SECONDS] [TARGET...]}
seconds=${2:-8}
shift $(($# < 2 ? $# : 2))
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_profile_json fuzz_cost_model fuzz_sim_cases fuzz_lengths fuzz_batch_configs fuzz_strategy fuzz_plan_file fuzz_megatron_log fuzz_chrome_trace fuzz_search fuzz_plan fuzz_plan_export fuzz_escapers fuzz_calibrate_records fuzz_gui_file_routing fuzz_hf_config)

seeds() {
    case $1 in
        fuzz_profile_json) ls tests/data/galvatron/*.json resources/examples/llama2-13b-a100-40gb-2x8/*.json ;;
        fuzz_cost_model) ls tests/data/dynapipe/*cost_model*.json resources/examples/*cost-model*.json ;;
        fuzz_sim_cases) ls tests/data/dynapipe/schedule_ground_truth.json resources/examples/pipeline-cases.json tests/fuzz/seeds/sim_cases/* ;;
        fuzz_lengths) ls tests/fuzz/seeds/lengths/* ;;
        fuzz_batch_configs) ls resources/examples/tracer-batch.txt ;;
        fuzz_strategy) ls tests/data/galvatron/galvatron_config_*.json ;;
        fuzz_plan_file) ls tests/fuzz/seeds/plan_file/* ;;
        fuzz_megatron_log) ls tests/data/measured/*.log tests/fuzz/seeds/megatron_log/* ;;
        fuzz_chrome_trace) ls tests/data/measured/*/*.json ;;
        fuzz_search) ls tests/fuzz/seeds/search/* ;;
        fuzz_plan) ls tests/fuzz/seeds/plan/* ;;
        fuzz_plan_export) ls tests/fuzz/seeds/plan_file/* tests/fuzz/seeds/plan_export/* ;;
        fuzz_escapers) ls tests/fuzz/seeds/escapers/* ;;
        fuzz_calibrate_records) ls tests/fuzz/seeds/calibrate_records/* ;;
        fuzz_gui_file_routing) ls tests/fuzz/seeds/gui_file_routing/* ;;
        fuzz_hf_config) ls tests/fuzz/seeds/hf_config/* tests/data/hf-configs/*.json ;;
        *) echo "run-fuzz: unknown target $1" >&2; return 1 ;;
    esac
}

findings="$build/fuzz-findings"
mkdir -p "$findings"
status=0
for target in "${targets[@]}"; do
    corpus=$(mktemp -d)
    while IFS= read -r seed; do cp "$seed" "$corpus/"; done < <(seeds "$target")
    echo "run-fuzz: $target for ${seconds}s on $(ls "$corpus" | wc -l) seeds"
    if ! ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
        "$build/bin/$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=262144 \
        -artifact_prefix="$findings/$target-" -print_final_stats=1 "$corpus" >"$findings/$target.log" 2>&1; then
        echo "run-fuzz: $target found a problem (log: $findings/$target.log)" >&2
        tail -n 40 "$findings/$target.log" >&2
        status=1
    else
        grep -E '^stat::number_of_executed_units' "$findings/$target.log" | sed "s/^/run-fuzz: $target /"
    fi
    rm -rf "$corpus"
done
exit $status
