// SPDX-License-Identifier: GPL-3.0-or-later
// The planner on the workloads of issue 13's side-by-side measurement with upstream DynaPipe
// (DynaPipe itself is not run here): GPT-6.7B cost model (tests/data/dynapipe), p = 4 (8 layers
// per stage) and p = 8 (4 layers per stage), 36000 and 80000 MB per device, lognormal sample
// lengths giving m ~ 16..132 micro-batches, each planned whole (DP + schedule search +
// instructions) in normal and in fast mode. Divide a DynaPipe planning time of the same workload
// by these to track the ratios: docs/planner-vs-dynapipe.md has the measurement and how to give
// DynaPipe the same lengths (tests/data/planner-grid). Counters: m, simulations, pruned
// candidates, makespan.
//
//   stratex-bench --benchmark_filter=BM_PlannerGrid
#include <benchmark/benchmark.h>
#include <string>
#include <vector>

#include "core/common/progress.h"
#include "core/planner/dynapipe_cost_model.h"
#include "core/planner/microbatch_lengths.h"
#include "core/planner/planner.h"
#include "core/planner/planner_search.h"
#include "core/sim/schedule_assignment.h"

using namespace stratex;
using namespace stratex::planner;

namespace {

const DynapipeCostModel& gpt()
{
    static const DynapipeCostModel model
        = DynapipeCostModel::load(std::string(STRATEX_TEST_DATA_DIR) + "/dynapipe/gpt_6.7b_cost_model.json");
    return model;
}

struct GridWorkload {
    const char* lengths; // --synthetic spec
    int stages;
    double memory_mb;
};

// Lognormal(5.5, 0.8) lengths clamped to 8..4096 (the --synthetic generator), seed 1: 96, 256, 512
// and 1280 samples make m ~ 17, 37, 60 and 130 micro-batches.
std::vector<GridWorkload> workloads()
{
    std::vector<GridWorkload> list;
    for (int stages : { 4, 8 }) {
        for (double memory : { 36000.0, 80000.0 }) {
            for (const char* lengths : { "lognormal:5.5,0.8,96:1", "lognormal:5.5,0.8,256:1", "lognormal:5.5,0.8,512:1",
                     "lognormal:5.5,0.8,1280:1" })
                list.push_back({ lengths, stages, memory });
        }
    }
    return list;
}

void runWorkload(benchmark::State& state, GridWorkload workload, PlannerMode mode)
{
    const std::vector<Sample> samples = generateSyntheticSamples(parseSyntheticLengthSpec(workload.lengths), false);
    PlannerConfig config;
    config.num_stages = workload.stages;
    config.layers_per_stage = 32 / workload.stages;
    config.device_memory_mb = workload.memory_mb;
    config.mode = mode;
    NullProgress progress;
    PlanResult plan;
    for (auto _ : state) {
        plan = planGlobalBatch(samples, gpt(), config, progress);
        benchmark::DoNotOptimize(plan.candidates_simulated);
    }
    int pruned = 0;
    for (const GroupPlan& group : plan.groups)
        pruned += group.pruned;
    state.counters["m"] = plan.global_microbatches();
    state.counters["simulations"] = plan.candidates_simulated;
    state.counters["pruned"] = pruned;
    state.counters["makespan_ms"] = plan.makespan_ms;
    state.counters["feasible"] = plan.feasible;
}

// Normal mode as it was before issue 13 (DynaPipe's schedule set, no fast-mode pass, no bounds,
// one micro-batch per device and round, no warm-up orders), on the same DP output: the reference the speed-up of the
// "normal" rows is measured against (README, Planner). Same work otherwise: DP, search, the
// chosen plan's timeline and instructions.
void runLegacyNormal(benchmark::State& state, GridWorkload workload)
{
    const std::vector<Sample> samples = generateSyntheticSamples(parseSyntheticLengthSpec(workload.lengths), false);
    PlannerConfig config;
    config.num_stages = workload.stages;
    config.layers_per_stage = 32 / workload.stages;
    config.device_memory_mb = workload.memory_mb;
    MicroBatchBuildConfig build;
    build.num_stages = config.num_stages;
    build.layers_per_stage = config.layers_per_stage;
    build.device_memory_mb = config.device_memory_mb;
    GroupSearchInput input;
    input.model = &gpt();
    input.pipeline = makePipelineModel(config.num_stages, config.layers_per_stage, 1, false);
    config.schedules = sim::plannerSchedules(sim::analyzeAssignment(input.pipeline.device_assignment));
    input.config = config;
    input.limits = searchLimits(PlannerMode::Normal);
    input.limits.include_fast_search = false;
    input.limits.prune_by_bound = false;
    input.limits.cover_overflow = false;
    input.limits.warmup_orders = false;
    NullProgress progress;
    GroupPlan plan;
    int m = 0;
    for (auto _ : state) {
        const MicroBatchBuildResult microbatches = buildMicroBatches(samples, gpt(), build, progress);
        input.microbatches = microbatches.dp.microbatches;
        m = static_cast<int>(input.microbatches.size());
        plan = searchGroupPlan(input, progress);
        benchmark::DoNotOptimize(plan.simulations);
    }
    state.counters["m"] = m;
    state.counters["simulations"] = plan.simulations;
    state.counters["makespan_ms"] = plan.makespan_ms;
    state.counters["feasible"] = plan.feasible;
}

std::string workloadName(const GridWorkload& workload)
{
    return std::string(workload.lengths) + "/p" + std::to_string(workload.stages) + "/"
        + std::to_string(static_cast<int>(workload.memory_mb)) + "MB/";
}

// Registered at start-up: one benchmark per workload and mode, named after them.
const bool registered = [] {
    for (const GridWorkload& workload : workloads()) {
        for (PlannerMode mode : { PlannerMode::Normal, PlannerMode::Fast }) {
            const std::string name = "BM_PlannerGrid/" + workloadName(workload) + std::string(plannerModeName(mode));
            benchmark::RegisterBenchmark(name.c_str(), runWorkload, workload, mode)->Unit(benchmark::kMillisecond);
        }
        const std::string legacy = "BM_PlannerGridLegacy/" + workloadName(workload) + "normal-before-issue-13";
        benchmark::RegisterBenchmark(legacy.c_str(), runLegacyNormal, workload)->Unit(benchmark::kMillisecond);
    }
    return true;
}();

} // namespace
