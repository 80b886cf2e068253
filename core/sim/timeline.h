// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The simulator's output for the Gantt view and the Chrome-trace export: per device a compute
// lane and a communication lane with the ops that ran on them, and the device's memory curve.
//
// API stability: fields are only ever added.

#include <cstdint>
#include <vector>

namespace stratex::sim {

enum class OpKind : std::uint8_t {
    Forward, // F
    Backward, // B: the whole backward, or only the input gradient under ZB-H1
    Weight, // W: the weight gradient (ZB-H1)
    Send, // activation or gradient leaving this device (occupies its comm executor)
    Recv, // the same transfer seen from the receiving device
};

struct TimelineOp {
    double start_us = 0;
    double duration_us = 0;
    OpKind kind = OpKind::Forward;
    bool grad = false; // Send/Recv: carries a gradient (backward direction), else an activation
    int microbatch = 0; // MicrobatchSpec::id (stable), not the position in the order
    int position = 0; // index of the micro-batch in the simulated order
    int stage = 0; // merged pipeline stage (model order); for Send/Recv the sending stage
    int chunk = 0; // virtual-stage index of `stage` on its device (0 unless interleaved)
    int peer = -1; // Send: receiving device; Recv: sending device; -1 for compute
    // Position in the simulator's global start order: ops that start at the same time started
    // in this order (instruction lists and deterministic exports rely on it).
    std::uint32_t order = 0;

    double endUs() const { return start_us + duration_us; }
    bool isCompute() const { return kind == OpKind::Forward || kind == OpKind::Backward || kind == OpKind::Weight; }
};

// Step function: the device holds `mem_mb` from `time_us` until the next sample. Each compute op
// contributes a sample at its start (current + the op's transient peak) and one at its end
// (current after the op stored or freed activations).
struct MemorySample {
    double time_us = 0;
    double mem_mb = 0;
};

struct DeviceTimeline {
    int device = 0;
    std::vector<TimelineOp> compute; // never overlap, sorted by start
    // Sends (the comm executor, never overlapping each other) and receives (mirrors of the
    // peer's sends; links are full duplex, so a receive may overlap a send), sorted by
    // (start, order).
    std::vector<TimelineOp> comm;
    std::vector<MemorySample> memory; // starts at (0, model_state_mb)
    double model_state_mb = 0;
    double peak_memory_mb = 0;
};

struct Timeline {
    double makespan_us = 0;
    std::vector<DeviceTimeline> devices;

    std::size_t opCount() const;
};

struct DeviceUtilization {
    double busy_us = 0; // compute time on the device
    double bubble_us = 0; // makespan - busy
    double busy_percent = 0;
    double bubble_percent = 0;
};

// Compute-lane busy and bubble shares per device over [0, makespan].
std::vector<DeviceUtilization> deviceUtilization(const Timeline& timeline);

} // namespace stratex::sim
