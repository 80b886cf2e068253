// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to the simulator: DynaPipe's lock-step cyclic schedule (docs/dynapipe-planner.md §3).
//
// Every executor keeps one FIFO buffer per stage it runs. In each cycle every compute executor
// takes the head op of each of its buffers and runs them back to back from the cycle start,
// backwards (sorted by micro-batch position, then flattened stage) interleaved with forwards,
// backward first. Comm ops a compute op produces are fast-forwarded: the sender's comm executor
// runs them in the same cycle, from when their data is ready. Compute ops produced in a cycle
// become available in the next one. The next cycle starts when the slowest executor is done.
//
// With a memory limit, the forward of a micro-batch that holds nothing on the device yet is
// skipped for the cycle when the device's memory at that point plus the op's peak (or plus what
// it stores, if that is more) would exceed the limit, or when the device already holds
// max_inflight micro-batches. When a cycle can run
// nothing, the pass fails (DynaPipe reports makespan None).

#include "core/sim/sim_engine.h"

namespace stratex::sim::detail {

struct CyclicOptions {
    double memory_limit_mb = 0; // <= 0: unlimited
    int max_inflight_microbatches = 0; // <= 0: unlimited
};

struct CyclicRun {
    SimRun run; // complete == false when the memory limit starved the pipeline
    ExecutorOrders orders; // every executor's op order, for the wait-free replay
    int cycles = 0;
};

CyclicRun runCyclic(const SimGraph& graph, const CyclicOptions& options);

} // namespace stratex::sim::detail
