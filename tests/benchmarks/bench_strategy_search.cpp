// SPDX-License-Identifier: GPL-3.0-or-later
// The stratex cost model's search over Megatron's space (issue 9's speed targets, 2 cores):
// Llama 3 405B on 16384 H100 under 10 s, the seed's 100B at 128K on 1024 GPUs under 2 s, a
// Mixtral-style MoE on 1024 GPUs under 10 s; issue 22: 405B on 16384 under 0.5 s and a
// DeepSeek-V3-style MoE on 16384 under 2 s. Counters: candidates enumerated, refused by
// Megatron's rules, over memory, bounded, simulated, and the best plan's MFU.
#include <benchmark/benchmark.h>

#include "core/common/progress.h"
#include "core/model/model_presets.h"
#include "core/megatron/strategy_search.h"
#include "core/hardware/cluster_description.h"

using namespace stratex;

namespace {

megatron::StrategySearchRequest request(const char* model, const char* gpu, int nodes, int globalBatch)
{
    megatron::StrategySearchRequest r;
    r.model = model::modelPreset(model);
    r.cluster.gpu = hardware::gpuPreset(gpu);
    r.cluster.num_nodes = nodes;
    r.cluster.gpus_per_node = 8;
    r.efficiency = hardware::efficiencyFor(r.cluster.gpu);
    r.global_batch_size = globalBatch;
    return r;
}

void runStrategySearch(benchmark::State& state, const megatron::StrategySearchRequest& base)
{
    megatron::StrategySearchRequest r = base;
    r.threads = int(state.range(0));
    NullProgress progress;
    megatron::StrategySearchResult result;
    for (auto _ : state) {
        result = megatron::searchStrategies(r, progress);
        benchmark::DoNotOptimize(result.best);
    }
    state.counters["enumerated"] = double(result.stats.enumerated);
    state.counters["refused"] = double(result.stats.refused);
    state.counters["over_memory"] = double(result.stats.over_memory);
    state.counters["bounded"] = double(result.stats.bounded);
    state.counters["simulated"] = double(result.stats.simulated);
    state.counters["best_mfu"] = result.best.empty() ? 0.0 : result.best.front().mfu;
    if (!result.best.empty())
        state.SetLabel(result.best.front().strategy.notation());
}

// Llama 3 405B pre-training (Dubey et al. 2024, Table 4): 16384 H100, 8K sequences, 16M tokens
// per batch = 2048 sequences.
void BM_StrategySearchLlama3_405b_16384(benchmark::State& state)
{
    runStrategySearch(state, request("llama3-405b", "h100-80gb", 2048, 2048));
}
BENCHMARK(BM_StrategySearchLlama3_405b_16384)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The founding user's 100B (the seed-100b preset) at its 128K context on 1024 GPUs, 256 sequences per batch.
void BM_StrategySearchSeed100b_128k_1024(benchmark::State& state)
{
    runStrategySearch(state, request("seed-100b", "h100-80gb", 128, 256));
}
BENCHMARK(BM_StrategySearchSeed100b_128k_1024)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Mixtral 8x22B on 1024 GPUs, 4K sequences, 1024 per batch (4M tokens).
void BM_StrategySearchMixtral8x22b_1024(benchmark::State& state)
{
    runStrategySearch(state, request("mixtral-8x22b", "h100-80gb", 128, 1024));
}
BENCHMARK(BM_StrategySearchMixtral8x22b_1024)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// DeepSeek-V3-style (671B MoE, 256 experts, MLA) on 16384 H100, 4K sequences, 4096 per batch
// (16M tokens): issue 22's second speed target, about 2.34 M candidates, under 2 s on 2 cores; one
// thread too, whose time is the search's CPU time (a shared machine's wall clock is not).
// tests/benchmarks/search_output_check.sh checks that a faster search gives the same plans.
void BM_StrategySearchDeepSeekV3_16384(benchmark::State& state)
{
    runStrategySearch(state, request("deepseek-v3-style", "h100-80gb", 2048, 4096));
}
BENCHMARK(BM_StrategySearchDeepSeekV3_16384)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace
