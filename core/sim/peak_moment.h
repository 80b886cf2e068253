// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The moment a device's memory curve reaches its maximum: which op was starting, and what the
// device held then (docs/memory-model.md, "Explaining the peak"). The simulator computes it when
// SimulationOptions::explain_peak asks, by replaying its own accounting in start order, so the
// moment lies on the curve the Timeline page draws and its parts sum to the device's peak.

#include <vector>

#include "core/sim/schedule_kind.h"
#include "core/sim/sim_spec.h"
#include "core/sim/timeline.h"

namespace stratex::sim {

// Activations one micro-batch's op stored on the device and has not freed yet.
struct HeldActivations {
    int microbatch = 0; // MicrobatchSpec::id
    int stage = 0; // merged stage (model order) that stored them
    int chunk = 0; // its virtual-stage index on the device
    double mb = 0;
};

struct PeakMoment {
    bool found = false; // false: no op raised the device above its model state
    OpKind kind = OpKind::Forward; // the op starting at the peak
    int microbatch = 0; // MicrobatchSpec::id
    int position = 0; // in the simulated order
    int stage = 0;
    int chunk = 0;
    double start_us = 0;
    double model_state_mb = 0; // held from the start
    double state_joined_mb = 0; // joined at a first backward before the peak (SimOp::state_delta_mb)
    std::vector<HeldActivations> held; // stored by earlier ops, not freed yet, in start order
    double transient_mb = 0; // the op's peak above what the device held when it started

    double heldMb() const
    {
        double sum = 0;
        for (const HeldActivations& h : held)
            sum += h.mb;
        return sum;
    }
    double peakMb() const { return model_state_mb + state_joined_mb + heldMb() + transient_mb; }
};

// Simulates `input` under `schedule` as simulate() does (no memory limit) and returns each
// device's peak moment; empty when the schedule cannot place every op. Throws as simulate() does.
// A separate entry, so that searches that only need the peaks pay nothing for it.
// `microbatchGroupSize`: flexible-interleaved's N (SimulationOptions::microbatch_group_size).
std::vector<PeakMoment> simulatePeakMoments(
    const SimulationInput& input, ScheduleKind schedule, int microbatchGroupSize = 0);

} // namespace stratex::sim
