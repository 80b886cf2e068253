// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to the simulator: the event-driven executor engine (docs/dynapipe-planner.md §3
// "Event-driven makespan"). Every executor runs one op at a time. An executor with a fixed order
// starts its next op as soon as it is idle and the op's predecessor has finished; an executor
// without one serves ready ops first come, first served. Completion events are kept in a
// priority queue; events within 1e-6 us of each other are processed together, then idle
// executors are offered work, comm executors first, each group by device.

#include <cstdint>
#include <vector>

#include "core/sim/sim_graph.h"

namespace stratex::sim::detail {

// Per executor: the op order to follow, or empty for first come, first served.
using ExecutorOrders = std::vector<std::vector<std::int32_t>>;

// What every simulation pass produces, per op and per device.
struct SimRun {
    bool complete = false; // every op ran
    double makespan_us = 0;
    std::vector<double> start_us; // per op
    std::vector<std::uint32_t> start_order; // per op: global start sequence number
    std::vector<double> peak_mb_per_device; // includes the model state
    // Per device: the state joined at a first backward (SimOp::state_delta_mb) held at the peak.
    std::vector<double> peak_state_joined_mb_per_device;
};

// Memory (§3 "Memory accounting"): a device starts at its model state; each compute op raises
// the device's peak to current + the op's peak, then adds its stored delta.
SimRun runEventDriven(const SimGraph& graph, const ExecutorOrders& orders);

} // namespace stratex::sim::detail
