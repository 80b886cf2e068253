// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The pipeline schedule simulator (docs/dynapipe-planner.md §3, issue 4 §3): one compute and one comm
// executor per device, event-driven, with DynaPipe's memory accounting, layer merging and the
// schedules of ScheduleKind. Qt-free; the planner, the CLI (`stratex-cli simulate`) and the GUI
// (Timeline page) all call simulate().
//
//   SimulationInput input;                       // placement + per-micro-batch layer costs
//   input.device_assignment = {0, 0, 1, 1};
//   input.microbatches = {...};
//   SimulationResult r = simulate(input, ScheduleKind::WaitFreeCyclic);
//   r.makespan_us; r.peak_memory_mb_per_device; r.timeline;
//
// Related headers: sim_spec.h (the input), schedule_kind.h (names), schedule_assignment.h
// (placement classification, valid schedules), timeline.h (Gantt data, busy/bubble shares),
// instructions.h (per-rank instruction lists, deadlock check), sim_cases.h (the JSON case
// format of `stratex-cli simulate`), core/export/chrome_trace.h (Perfetto export).
//
// Conventions: LayerCost::bw_us is indexed by model layer (DynaPipe lists backward times in
// backward-execution order; reverse such lists). Ties between events within 1e-6 us are
// processed together; results are deterministic and thread-independent (simulate() keeps no
// shared state, so several threads may simulate at once).
//
// API stability: the planner helper builds on this header; it only ever grows.

#include <string>
#include <vector>

#include "core/sim/schedule_assignment.h"
#include "core/sim/schedule_kind.h"
#include "core/sim/sim_spec.h"
#include "core/sim/timeline.h"

namespace stratex::sim {

struct SimulationOptions {
    // Cyclic and wait-free-cyclic only: the cyclic pass delays the forward of a micro-batch new
    // to a device while the device's memory plus the op's peak would exceed this limit (MB,
    // including model state). <= 0: unlimited. Other schedules ignore it.
    double memory_limit_mb = 0;
    // Cyclic and wait-free-cyclic only: at most this many micro-batches hold activations on a
    // device at once. <= 0: unlimited.
    int max_inflight_microbatches = 0;
    // flexible-interleaved only: N, the contiguous micro-batches each model chunk runs before the
    // next chunk (Llama 3 §3.3.2; Megatron-Core's --microbatch-group-size-per-virtual-pipeline-stage).
    // 0: the smallest N from min(devices, micro-batches) up that runs: `devices`, Megatron's
    // depth-first default, when the micro-batches are a multiple of it. Other schedules ignore it.
    // simulate() throws unless N = micro-batches, or N >= devices with a last group of 0 or at
    // least `devices` micro-batches (Megatron-Core's rule; other N deadlock).
    int microbatch_group_size = 0;
    // Build SimulationResult::timeline. The planner's candidate search turns it off: makespan
    // and peaks cost nothing extra, the timeline does.
    bool build_timeline = true;
};

struct SimulationResult {
    ScheduleKind schedule = ScheduleKind::WaitFreeCyclic;
    // False when a memory-limited cyclic pass could not place every op (DynaPipe's makespan
    // None); makespan and peaks then describe the partial run and `failure` says why.
    bool feasible = true;
    std::string failure;
    double makespan_us = 0;
    std::vector<double> peak_memory_mb_per_device; // includes the model state
    // Per device: the part of its peak that is state joined at a first backward
    // (SimulationInput::first_backward_state_mb_per_layer), 0 without it.
    std::vector<double> peak_state_joined_mb_per_device;
    std::vector<int> compute_ops_per_device; // F + B (+ W) ops each device ran
    int op_count = 0; // simulated ops, compute and comm (transfers between devices only)
    PipelineLayout layout; // the merged stages the simulation ran on
    Timeline timeline; // empty unless SimulationOptions::build_timeline

    double maxPeakMemoryMb() const;
};

// Runs one schedule. Throws stratex::Error with the reason when the input is inconsistent
// (validateSimulationInput) or the schedule cannot run on the device assignment
// (scheduleInvalidReason).
SimulationResult simulate(const SimulationInput& input, ScheduleKind schedule, const SimulationOptions& options = {});

// DynaPipe's memory retry (docs/dynapipe-planner.md §3 "Memory retry"): simulate without a scheduler
// limit; when the peak exceeds `memoryLimitMb` and the schedule is cyclic or wait-free-cyclic,
// simulate again with the limit passed to the cyclic pass. The result may still exceed the
// limit (other schedules) or be infeasible; the caller decides.
SimulationResult simulateWithinMemory(
    const SimulationInput& input, ScheduleKind schedule, double memoryLimitMb, SimulationOptions options = {});

} // namespace stratex::sim
