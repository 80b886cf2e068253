// SPDX-License-Identifier: GPL-3.0-or-later
// Pipeline planner: the micro-batch DP at N = 256 and 1024 samples, and normal vs fast planning
// for m = 64 micro-batches on p = 8 stages (the schedule search alone, and the whole call).
#include <benchmark/benchmark.h>

#include "core/common/progress.h"
#include "core/planner/dynapipe_cost_model.h"
#include "core/planner/microbatch_builder.h"
#include "core/planner/microbatch_dp.h"
#include "core/planner/microbatch_lengths.h"
#include "core/planner/planner.h"
#include "core/planner/planner_search.h"

using namespace stratex;
using namespace stratex::planner;
using namespace stratex::sim;

// DoNotOptimize() only ever sees integers here: with this Google Benchmark and GCC its "+r"
// constraint clobbered a double it was given (the reported makespan read 0).

namespace {

const DynapipeCostModel& gpt()
{
    // The fixture in tests/data (stratex_test_support defines STRATEX_TEST_DATA_DIR; no Qt here).
    static const DynapipeCostModel model
        = DynapipeCostModel::load(std::string(STRATEX_TEST_DATA_DIR) + "/dynapipe/gpt_6.7b_cost_model.json");
    return model;
}

std::vector<Sample> lognormal(int n)
{
    return generateSyntheticSamples(parseSyntheticLengthSpec("lognormal:5.5,0.8," + std::to_string(n) + ":1"), false);
}

// The DP alone, one recompute type (selective), p = 4, L = 8, the 36000 MB limits of
// dp_ground_truth.json's selective records.
void BM_MicroBatchDp(benchmark::State& state)
{
    NullProgress progress;
    MicroBatchDpConfig config;
    config.num_stages = 4;
    config.layers_per_stage = 8;
    config.recompute = RecomputeType::Selective;
    config.stored_activation_limit_mb = 6880.23; // the "available" pass: every length fits
    config.peak_activation_limit_mb = 6880.23;
    const std::vector<Sample> ordered
        = orderSamples(lognormal(static_cast<int>(state.range(0))), false, SampleOrderConfig {}, progress);
    MicroBatchDpResult result;
    for (auto _ : state) {
        result = runMicroBatchDp(ordered, gpt(), config, progress);
        benchmark::DoNotOptimize(result.tmax_evaluated);
    }
    state.counters["microbatches"] = static_cast<double>(result.microbatches.size());
    state.counters["segments"] = static_cast<double>(result.feasible_segments);
    state.counters["tmax_candidates"] = result.tmax_candidates;
    state.counters["tmax_evaluated"] = result.tmax_evaluated;
}
BENCHMARK(BM_MicroBatchDp)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

// DynaPipe's whole micro-batch generation: ordering, the preferred/available limits x the
// recompute types until a split is feasible.
void BM_BuildMicroBatches(benchmark::State& state)
{
    NullProgress progress;
    MicroBatchBuildConfig config;
    config.num_stages = 4;
    config.layers_per_stage = 8;
    config.device_memory_mb = 36000;
    const std::vector<Sample> samples = lognormal(static_cast<int>(state.range(0)));
    MicroBatchBuildResult result;
    for (auto _ : state) {
        result = buildMicroBatches(samples, gpt(), config, progress);
        benchmark::DoNotOptimize(result.dp_runs);
    }
    state.counters["microbatches"] = static_cast<double>(result.dp.microbatches.size());
    state.counters["dp_runs"] = result.dp_runs;
}
BENCHMARK(BM_BuildMicroBatches)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

PlannerConfig eightStages(PlannerMode mode)
{
    PlannerConfig config;
    config.num_stages = 8;
    config.layers_per_stage = 4;
    config.device_memory_mb = 36000;
    config.mode = mode;
    return config;
}

// Exactly 64 micro-batches from the DP of a 560-sample lognormal batch (it makes 65).
std::vector<MicroBatch> sixtyFourMicroBatches()
{
    NullProgress progress;
    MicroBatchBuildConfig config;
    config.num_stages = 8;
    config.layers_per_stage = 4;
    config.device_memory_mb = 36000;
    std::vector<MicroBatch> mbs = buildMicroBatches(lognormal(560), gpt(), config, progress).dp.microbatches;
    mbs.resize(64);
    return mbs;
}

void BM_ScheduleSearch64x8(benchmark::State& state)
{
    const PlannerMode mode = state.range(0) ? PlannerMode::Fast : PlannerMode::Normal;
    GroupSearchInput input;
    input.model = &gpt();
    input.config = eightStages(mode);
    input.pipeline = makePipelineModel(8, 4, 1, false);
    input.microbatches = sixtyFourMicroBatches();
    input.limits = searchLimits(mode);
    NullProgress progress;
    GroupPlan plan;
    for (auto _ : state) {
        plan = searchGroupPlan(input, progress);
        benchmark::DoNotOptimize(plan.simulations);
    }
    state.SetLabel(mode == PlannerMode::Fast ? "fast" : "normal");
    state.counters["m"] = static_cast<double>(input.microbatches.size());
    state.counters["simulations"] = plan.simulations;
    state.counters["makespan_ms"] = plan.makespan_ms;
    state.counters["feasible"] = plan.feasible;
}
BENCHMARK(BM_ScheduleSearch64x8)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// The whole planner call (DP + search + instructions) on the 560-sample batch (65 micro-batches).
void BM_PlanGlobalBatch8Stages(benchmark::State& state)
{
    const PlannerMode mode = state.range(0) ? PlannerMode::Fast : PlannerMode::Normal;
    const std::vector<Sample> samples = lognormal(560);
    NullProgress progress;
    PlanResult plan;
    for (auto _ : state) {
        plan = planGlobalBatch(samples, gpt(), eightStages(mode), progress);
        benchmark::DoNotOptimize(plan.candidates_simulated);
    }
    state.SetLabel(mode == PlannerMode::Fast ? "fast" : "normal");
    state.counters["m"] = plan.global_microbatches();
    state.counters["simulations"] = plan.candidates_simulated;
    state.counters["makespan_ms"] = plan.makespan_ms;
}
BENCHMARK(BM_PlanGlobalBatch8Stages)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

} // namespace
