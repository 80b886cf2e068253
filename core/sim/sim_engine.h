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

// That accounting, one rule for both passes (the event-driven engine and the cyclic schedule,
// schedule_cyclic.h): each device's current memory and the state joined so far
// (SimOp::state_delta_mb), with the run's peaks and the joined state held at each peak.
class DeviceMemory {
public:
    // Every device at its model state; the run's peaks start there, with nothing joined.
    void start(const SimGraph& graph, SimRun& run)
    {
        m_current = graph.modelStateMbPerDevice();
        run.peak_mb_per_device = m_current;
        m_joined.assign(m_current.size(), 0.0);
        run.peak_state_joined_mb_per_device = m_joined;
    }
    double currentMb(std::size_t device) const { return m_current[device]; }
    // A compute op on the device: the peak rises to current + the op's peak, then the op's
    // stored and joined deltas are added.
    void account(std::size_t device, const SimOp& op, SimRun& run)
    {
        if (m_current[device] + op.peak_mb > run.peak_mb_per_device[device]) {
            run.peak_mb_per_device[device] = m_current[device] + op.peak_mb;
            run.peak_state_joined_mb_per_device[device] = m_joined[device];
        }
        m_current[device] += op.stored_delta_mb;
        m_joined[device] += op.state_delta_mb;
    }

private:
    std::vector<double> m_current;
    std::vector<double> m_joined;
};

} // namespace stratex::sim::detail
