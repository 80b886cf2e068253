// SPDX-License-Identifier: GPL-3.0-or-later
// Strategy search: Galvatron main needs 95 s for the golden llama2-7b case on 2 cores (50-170 s per
// settled batch size, 1285 s for the 8-64 batch range). Here: the three baseline cases, a batch
// range 8-512 step 8, and the seed-004 30B (32K) / 100B (128K) models on 64, 256 and 1024 GPUs with
// profiles scaled from the fixtures (see bench_search_profiles.h). Counters: stage knapsacks
// computed, the DP calls Galvatron would make, and the speed-up over Galvatron's measured time
// where one exists.
#include <benchmark/benchmark.h>

#include "core/common/progress.h"
#include "core/galvatron/search_engine.h"
#include "core/galvatron/stage_dp.h"

#include "bench_search_profiles.h"

using namespace stratex;

namespace {

galvatron::SearchInputs llamaInputs()
{
    profile::ProfilePaths paths;
    paths.computation = bench::fixturePath("computation_profiling_bf16_llama2-7b_all.json");
    paths.memory = bench::fixturePath("memory_profiling_bf16_llama2-7b_all.json");
    paths.allreduce = bench::fixturePath("allreduce_bandwidth_1nodes_8gpus_per_node.json");
    paths.p2p = bench::fixturePath("p2p_bandwidth_1nodes_8gpus_per_node.json");
    paths.overlap = bench::fixturePath("overlap_coefficient.json");
    paths.spTime = bench::fixturePath("sp_time_1nodes_8gpus_per_node.json");
    return galvatron::SearchInputs::load(paths);
}

galvatron::SearchSettings llamaSettings(int memoryGb, int settleBsz)
{
    galvatron::SearchSettings s;
    s.memory_constraint_gb = memoryGb;
    s.settle_bsz = settleBsz;
    s.model = { "llama2-7b", 2048, 4096, 32, 32, 32000 };
    s.time_profile_mode = profile::TimeProfileMode::Batch;
    return s;
}

// Runs the search per iteration; `galvatronSeconds` > 0 adds the speed-up over Galvatron.
void runSearch(benchmark::State& state, const galvatron::SearchInputs& inputs, const galvatron::SearchSettings& settings,
    int threads, double galvatronSeconds)
{
    const galvatron::CostModel model = galvatron::buildCostModel(inputs, settings);
    NullProgress progress;
    galvatron::SearchResult result;
    double total = 0;
    for (auto _ : state) {
        result = galvatron::search(model, settings, progress, threads);
        total += result.stats.search_time_s;
        benchmark::DoNotOptimize(result.best);
    }
    const double seconds = total / double(state.iterations());
    state.counters["tasks"] = double(result.stats.tasks);
    state.counters["dp_calls"] = double(result.stats.dp_calls);
    state.counters["galvatron_dp_calls"] = double(result.stats.galvatron_dp_calls);
    state.counters["threads"] = result.stats.threads;
    state.counters["best_samples_per_s"] = result.best ? result.best->throughput_samples_per_s : 0.0;
    if (galvatronSeconds > 0)
        state.counters["x_faster_than_galvatron"] = galvatronSeconds / seconds;
}

void BM_Baseline36GBBsz16(benchmark::State& state)
{
    runSearch(state, llamaInputs(), llamaSettings(36, 16), int(state.range(0)), 95.0);
}
BENCHMARK(BM_Baseline36GBBsz16)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Baseline24GBBsz32(benchmark::State& state)
{
    runSearch(state, llamaInputs(), llamaSettings(24, 32), int(state.range(0)), 0);
}
BENCHMARK(BM_Baseline24GBBsz32)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Baseline16GBBsz16(benchmark::State& state)
{
    runSearch(state, llamaInputs(), llamaSettings(16, 16), int(state.range(0)), 0);
}
BENCHMARK(BM_Baseline16GBBsz16)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Galvatron main: 1285 s for this range (v2.4.0: 400 s).
void BM_BatchRange8To64(benchmark::State& state)
{
    galvatron::SearchSettings settings = llamaSettings(36, -1);
    settings.min_bsz = 8;
    settings.max_bsz = 64;
    runSearch(state, llamaInputs(), settings, 2, 1285.0);
}
BENCHMARK(BM_BatchRange8To64)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_BatchRange8To512(benchmark::State& state)
{
    galvatron::SearchSettings settings = llamaSettings(36, -1);
    settings.min_bsz = 8;
    settings.max_bsz = 512;
    runSearch(state, llamaInputs(), settings, 2, 0);
}
BENCHMARK(BM_BatchRange8To512)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

void BM_Seed30B32K(benchmark::State& state)
{
    const int gpus = int(state.range(0));
    runSearch(state, bench::scaledInputs(bench::kModel30B, gpus / 8),
        bench::scaledSettings(bench::kModel30B, gpus / 8, gpus), 2, 0);
}
BENCHMARK(BM_Seed30B32K)->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

void BM_Seed100B128K(benchmark::State& state)
{
    const int gpus = int(state.range(0));
    runSearch(state, bench::scaledInputs(bench::kModel100B, gpus / 8),
        bench::scaledSettings(bench::kModel100B, gpus / 8, gpus), 2, 0);
}
BENCHMARK(BM_Seed100B128K)->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

// One stage knapsack of the golden run's largest task shape: 32 layers, 29 493 MB, 24 strategies.
void BM_StageKnapsack24Strategies(benchmark::State& state)
{
    const int S = 24;
    std::vector<int> weights;
    std::vector<double> intra;
    std::vector<double> inter(std::size_t(S * S), 0.0);
    for (int s = 0; s < S; ++s) {
        weights.push_back(450 + (s * 397) % 3800);
        intra.push_back(0.026 + 0.0008 * ((s * 7) % 23));
        for (int t = 0; t < S; ++t) {
            if (s != t)
                inter[std::size_t(s * S + t)] = s / 4 == t / 4 ? 1e-9 * ((s + t) % 4) : 0.02 * (1 + std::max(s, t) / 8);
        }
    }
    galvatron::StageDp dp;
    std::size_t segments = 0;
    for (auto _ : state) {
        dp.run({ 29492, 32, S, weights.data(), intra.data(), inter.data() });
        segments = dp.segmentCount();
    }
    state.counters["segments"] = double(segments);
}
BENCHMARK(BM_StageKnapsack24Strategies)->Unit(benchmark::kMillisecond);

} // namespace
