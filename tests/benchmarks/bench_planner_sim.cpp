// SPDX-License-Identifier: GPL-3.0-or-later
// Pipeline schedule simulator: simulated ops per second on one core (target >= 1 million) for
// several schedules, p = 8 and m = 64..512 heterogeneous micro-batches with communication.
// "ops/s" counts compute and comm ops; "_timeline" variants also build the Gantt timeline (the
// planner's candidate search runs without it). Also: instruction lists and the Chrome trace.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "core/export/chrome_trace.h"
#include "core/sim/instructions.h"
#include "core/sim/simulator.h"

using namespace stratex::sim;

namespace {

constexpr int kStages = 8;

SimulationInput benchInput(const std::vector<int>& assignment, int microbatches)
{
    SimulationInput input;
    input.device_assignment = assignment;
    for (int j = 0; j < microbatches; ++j) {
        MicrobatchSpec mb;
        mb.id = j;
        const double scale = 0.6 + 0.8 * ((j * 37) % 17) / 17.0; // variable-length micro-batches
        for (std::size_t l = 0; l < assignment.size(); ++l) {
            LayerCost layer;
            layer.fw_us = 900 * scale;
            layer.bw_us = 1900 * scale;
            layer.stored_mb = 120 * scale;
            layer.peak_mb = 300 * scale;
            layer.fw_comm_mb = 8 * scale;
            layer.bw_comm_mb = 8 * scale;
            mb.layers.push_back(layer);
        }
        input.microbatches.push_back(mb);
    }
    input.model_state_mb_per_layer.assign(assignment.size(), 2000);
    input.comm.inter_node_bw_gbps = 200;
    input.comm.intra_node_bw_gbps = 2400;
    for (int d = 0; d < kStages; ++d)
        input.comm.node_of_device.push_back(d / 4);
    return input;
}

std::vector<int> linear()
{
    std::vector<int> assignment;
    for (int d = 0; d < kStages; ++d)
        assignment.insert(assignment.end(), 4, d); // 32 layers, 4 per stage
    return assignment;
}

std::vector<int> interleaved()
{
    std::vector<int> assignment;
    for (int c = 0; c < 2; ++c) {
        for (int d = 0; d < kStages; ++d)
            assignment.insert(assignment.end(), 2, d); // 32 layers, 2 chunks of 2 layers
    }
    return assignment;
}

void runSimulation(benchmark::State& state, ScheduleKind kind, const std::vector<int>& assignment, bool timeline)
{
    const SimulationInput input = benchInput(assignment, static_cast<int>(state.range(0)));
    SimulationOptions options;
    options.build_timeline = timeline;
    std::int64_t ops = 0;
    for (auto _ : state) {
        const SimulationResult result = simulate(input, kind, options);
        benchmark::DoNotOptimize(result.makespan_us);
        ops += result.op_count;
    }
    state.counters["ops/s"] = benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsRate);
    state.counters["ops"] = static_cast<double>(ops / std::max<std::int64_t>(1, state.iterations()));
}

void BM_Sim_1F1B(benchmark::State& state)
{
    runSimulation(state, ScheduleKind::OneFOneB, linear(), false);
}
void BM_Sim_GPipe(benchmark::State& state)
{
    runSimulation(state, ScheduleKind::GPipe, linear(), false);
}
void BM_Sim_ZbH1(benchmark::State& state)
{
    runSimulation(state, ScheduleKind::ZbH1, linear(), false);
}
void BM_Sim_Interleaved1F1B(benchmark::State& state)
{
    runSimulation(state, ScheduleKind::Interleaved1F1B, interleaved(), false);
}
void BM_Sim_Cyclic(benchmark::State& state)
{
    runSimulation(state, ScheduleKind::Cyclic, linear(), false);
}
void BM_Sim_WaitFreeCyclic(benchmark::State& state)
{
    runSimulation(state, ScheduleKind::WaitFreeCyclic, linear(), false);
}
void BM_Sim_WaitFreeCyclicInterleaved(benchmark::State& state)
{
    runSimulation(state, ScheduleKind::WaitFreeCyclic, interleaved(), false);
}
void BM_Sim_Fifo(benchmark::State& state)
{
    runSimulation(state, ScheduleKind::Fifo, linear(), false);
}
void BM_Sim_1F1B_timeline(benchmark::State& state)
{
    runSimulation(state, ScheduleKind::OneFOneB, linear(), true);
}
void BM_Sim_WaitFreeCyclic_timeline(benchmark::State& state)
{
    runSimulation(state, ScheduleKind::WaitFreeCyclic, linear(), true);
}

#define SIM_SIZES ->Arg(64)->Arg(128)->Arg(256)->Arg(512)->Unit(benchmark::kMicrosecond)
BENCHMARK(BM_Sim_1F1B) SIM_SIZES;
BENCHMARK(BM_Sim_GPipe) SIM_SIZES;
BENCHMARK(BM_Sim_ZbH1) SIM_SIZES;
BENCHMARK(BM_Sim_Interleaved1F1B) SIM_SIZES;
BENCHMARK(BM_Sim_Cyclic) SIM_SIZES;
BENCHMARK(BM_Sim_WaitFreeCyclic) SIM_SIZES;
BENCHMARK(BM_Sim_WaitFreeCyclicInterleaved) SIM_SIZES;
BENCHMARK(BM_Sim_Fifo) SIM_SIZES;
BENCHMARK(BM_Sim_1F1B_timeline) SIM_SIZES;
BENCHMARK(BM_Sim_WaitFreeCyclic_timeline) SIM_SIZES;

void BM_Sim_Instructions(benchmark::State& state)
{
    const SimulationInput input = benchInput(linear(), static_cast<int>(state.range(0)));
    const SimulationResult result = simulate(input, ScheduleKind::WaitFreeCyclic);
    for (auto _ : state) {
        const ExecutionInstructions plan = buildInstructions(result, input);
        benchmark::DoNotOptimize(checkDeadlockFree(plan).ok);
    }
}
BENCHMARK(BM_Sim_Instructions)->Arg(64)->Arg(512)->Unit(benchmark::kMillisecond);

void BM_Sim_ChromeTrace(benchmark::State& state)
{
    const SimulationInput input = benchInput(linear(), static_cast<int>(state.range(0)));
    const SimulationResult result = simulate(input, ScheduleKind::WaitFreeCyclic);
    for (auto _ : state)
        benchmark::DoNotOptimize(stratex::exporting::chromeTraceJson(result.timeline, "bench").size());
}
BENCHMARK(BM_Sim_ChromeTrace)->Arg(64)->Arg(512)->Unit(benchmark::kMillisecond);

// The streamed export of a plan of about a million ops (33,334 micro-batches x 30 ops on 8
// stages): into a sink that only counts bytes, and into a file (atomic: temporary, fsync, rename).
// Either way the trace is never held whole; "bytes" is its size.
void BM_Sim_ChromeTraceStream(benchmark::State& state)
{
    static const SimulationInput input = benchInput(linear(), 33334);
    static const SimulationResult result = simulate(input, ScheduleKind::OneFOneB);
    const std::vector<stratex::exporting::ChromeTraceSection> sections { { "bench", &result.timeline } };
    const std::string path = "/tmp/stratex-bench-trace.json";
    std::size_t bytes = 0;
    for (auto _ : state) {
        if (state.range(0) == 0) {
            bytes = 0;
            stratex::exporting::writeChromeTrace(
                stratex::ContentSink([&bytes](std::string_view piece) { bytes += piece.size(); }), sections);
        } else {
            stratex::exporting::writeChromeTrace(path, sections);
        }
        benchmark::DoNotOptimize(bytes);
    }
    if (state.range(0) != 0)
        std::remove(path.c_str());
    state.SetLabel(state.range(0) == 0 ? "count bytes" : "file");
    state.counters["ops"] = static_cast<double>(result.op_count);
    if (bytes > 0)
        state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Sim_ChromeTraceStream)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(3);

} // namespace
