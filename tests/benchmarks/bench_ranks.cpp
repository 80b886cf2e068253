// SPDX-License-Identifier: GPL-3.0-or-later
// Rank grid: all groups of a 131072-rank grid, and one rank's groups (O(group size) each).
#include <benchmark/benchmark.h>

#include "core/ranks/rank_grid.h"
#include "core/ranks/rank_warnings.h"
#include "core/ranks/ranks_json.h"

using namespace stratex::ranks;

namespace {

ParallelConfig bigConfig()
{
    ParallelConfig config;
    config.world = 131072;
    config.tp = 8;
    config.pp = 16;
    config.cp = 2;
    config.ep = 8;
    return config;
}

void BM_CreateGrid131072(benchmark::State& state)
{
    const ParallelConfig config = bigConfig();
    for (auto _ : state)
        benchmark::DoNotOptimize(RankGrid::create(config));
}
BENCHMARK(BM_CreateGrid131072)->Unit(benchmark::kMillisecond);

void BM_AllGroups131072(benchmark::State& state)
{
    const RankGrid grid = RankGrid::create(bigConfig());
    std::size_t entries = 0;
    for (auto _ : state) {
        for (GroupKind kind : kAllGroupKinds) {
            const GroupList groups = grid.allGroups(kind);
            entries += groups.members.size();
            benchmark::DoNotOptimize(groups.members.data());
        }
    }
    state.counters["entries/iter"] = double(entries) / double(state.iterations());
}
BENCHMARK(BM_AllGroups131072)->Unit(benchmark::kMillisecond);

void BM_GridJson131072(benchmark::State& state)
{
    const RankGrid grid = RankGrid::create(bigConfig());
    for (auto _ : state)
        benchmark::DoNotOptimize(gridJson(grid));
}
BENCHMARK(BM_GridJson131072)->Unit(benchmark::kMillisecond);

void BM_OneRankAllGroups131072(benchmark::State& state)
{
    const RankGrid grid = RankGrid::create(bigConfig());
    int rank = 0;
    for (auto _ : state) {
        for (GroupKind kind : kAllGroupKinds)
            benchmark::DoNotOptimize(grid.groupOf(kind, rank));
        benchmark::DoNotOptimize(grid.coordinates(rank));
        rank = (rank + 7919) % grid.world();
    }
}
BENCHMARK(BM_OneRankAllGroups131072)->Unit(benchmark::kMicrosecond);

void BM_OneRankTpGroup131072(benchmark::State& state)
{
    const RankGrid grid = RankGrid::create(bigConfig());
    int rank = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(grid.groupOf(GroupKind::Tp, rank));
        rank = (rank + 7919) % grid.world();
    }
}
BENCHMARK(BM_OneRankTpGroup131072)->Unit(benchmark::kNanosecond);

void BM_LayoutWarnings131072(benchmark::State& state)
{
    const RankGrid grid = RankGrid::create(bigConfig());
    for (auto _ : state)
        benchmark::DoNotOptimize(layoutWarnings(grid));
}
BENCHMARK(BM_LayoutWarnings131072)->Unit(benchmark::kMillisecond);

} // namespace
