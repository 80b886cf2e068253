// SPDX-License-Identifier: GPL-3.0-or-later
// Profile synthesis and the search on what it makes: llama2-70b on H100 nodes at 64, 256 and 1024
// GPUs (the search reads the written files, as `stratex-cli search --profiles DIR` does).
#include <benchmark/benchmark.h>
#include <filesystem>
#include <string>

#include "core/common/progress.h"
#include "core/profile/synth/profile_synthesizer.h"
#include "core/galvatron/search_engine.h"
#include "core/galvatron/search_inputs.h"

using namespace stratex;
using namespace stratex::profile::synth;
using namespace stratex::hardware;

namespace {

ClusterDescription h100Nodes(int gpus)
{
    ClusterDescription cluster;
    cluster.gpu = gpuPreset("h100-80gb");
    cluster.num_nodes = gpus / 8;
    return cluster;
}

void BM_SynthesizeProfileSet(benchmark::State& state)
{
    const model::ModelDescription model = model::modelPreset("llama2-70b");
    const ClusterDescription cluster = h100Nodes(int(state.range(0)));
    std::size_t bytes = 0;
    for (auto _ : state) {
        const std::vector<ProfileFile> files = synthesizeProfiles(model, cluster);
        bytes = 0;
        for (const ProfileFile& file : files)
            bytes += file.content.size();
        benchmark::DoNotOptimize(bytes);
    }
    state.counters["bytes"] = double(bytes);
}
BENCHMARK(BM_SynthesizeProfileSet)->Arg(64)->Arg(1024)->Unit(benchmark::kMicrosecond);

void BM_SearchSynthesized70B(benchmark::State& state)
{
    const int gpus = int(state.range(0));
    const std::filesystem::path dir
        = std::filesystem::temp_directory_path() / ("stratex-bench-70b-" + std::to_string(gpus));
    writeProfileFiles(dir, synthesizeProfiles(model::modelPreset("llama2-70b"), h100Nodes(gpus)));
    galvatron::SearchSettings settings;
    settings.memory_constraint_gb = 80;
    settings.settle_bsz = 4 * gpus;
    profile::ProfileDiscovery request;
    request.profilesDir = dir;
    const galvatron::SearchInputs inputs = galvatron::loadSearchInputs(request, settings, {});
    const galvatron::CostModel model = galvatron::buildCostModel(inputs, settings);
    NullProgress progress;
    galvatron::SearchResult result;
    for (auto _ : state) {
        result = galvatron::search(model, settings, progress, 2);
        benchmark::DoNotOptimize(result.best);
    }
    state.counters["tasks"] = double(result.stats.tasks);
    state.counters["dp_calls"] = double(result.stats.dp_calls);
    state.counters["best_samples_per_s"] = result.best ? result.best->throughput_samples_per_s : 0.0;
    std::filesystem::remove_all(dir);
}
BENCHMARK(BM_SearchSynthesized70B)
    ->Arg(64)
    ->Arg(256)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(1);

} // namespace
