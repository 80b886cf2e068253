// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to the simulator: the flattened op graph (docs/dynapipe-planner.md §3 "Flattening").
// Each micro-batch becomes the chain F0, C, F1, C, ..., F(n-1), B(n-1), C, ..., B0 over the n
// merged stages, with a communication op between stages on different devices (none between the
// last F and the first B). Under ZB-H1 and DualPipeV each B also has a W op that depends on it alone.
// Every device has a compute executor (2*device) and a comm executor (2*device + 1); a comm op
// runs on the sender's comm executor.

#include <cstdint>
#include <vector>

#include "core/sim/schedule_assignment.h"
#include "core/sim/sim_spec.h"
#include "core/sim/timeline.h"

namespace stratex::sim::detail {

struct SimOp {
    double duration_us = 0;
    double peak_mb = 0; // compute: transient memory above the current level while it runs
    double stored_delta_mb = 0; // compute: memory kept (+) or freed (-) when it ends
    // Compute: the part of stored_delta_mb that is model state joining the device for the rest of
    // the step (SimulationInput::first_backward_state_mb_per_layer), not a micro-batch's activations.
    double state_delta_mb = 0;
    std::int32_t executor = 0;
    std::int32_t next = -1; // chain successor
    std::int32_t side = -1; // W op hanging off a B op (ZB-H1)
    std::int32_t position = 0; // micro-batch position in the order
    std::int32_t stage = 0; // merged stage (comm: the sending stage)
    // DynaPipe's flattened compute-stage number: forward of stage k is k, backward 2n-1-k; a comm
    // op carries its sender's number. Cyclic ordering sorts by it.
    std::int32_t flat_stage = 0;
    std::int32_t peer = -1; // comm: receiving device
    OpKind kind = OpKind::Forward; // Forward, Backward, Weight, or Send for comm ops
    bool grad = false; // comm in the backward direction

    bool isComm() const { return kind == OpKind::Send; }
    bool isBackwardDirection() const { return kind == OpKind::Backward || kind == OpKind::Weight || grad; }
};

inline int computeExecutor(int device)
{
    return 2 * device;
}
inline int commExecutor(int device)
{
    return 2 * device + 1;
}
inline int deviceOfExecutor(int executor)
{
    return executor / 2;
}
inline bool isCommExecutor(int executor)
{
    return executor % 2 == 1;
}

class SimGraph {
public:
    // splitBackward: the B/W split of ZB-H1 and DualPipeV (splitsBackward).
    SimGraph(const SimulationInput& input, const PipelineLayout& layout, bool splitBackward);

    const std::vector<SimOp>& ops() const { return m_ops; }
    int opCount() const { return static_cast<int>(m_ops.size()); }
    int microbatchCount() const { return m_microbatches; }
    int stageCount() const { return m_stages; }
    int deviceCount() const { return m_devices; }
    int executorCount() const { return 2 * m_devices; }
    bool splitBackward() const { return m_split; }
    // SimulationInput::compute_waits_for_previous_send.
    bool computeWaitsForPreviousSend() const { return m_waitsForPreviousSend; }
    const std::vector<double>& modelStateMbPerDevice() const { return m_modelState; }

    int forwardOp(int position, int stage) const { return base(position) + 2 * stage; }
    int backwardOp(int position, int stage) const
    {
        return base(position) + 2 * m_stages - 1 + 2 * (m_stages - 1 - stage);
    }
    int weightOp(int position, int stage) const { return base(position) + 4 * m_stages - 2 + stage; }
    int firstOp(int position) const { return base(position); }

private:
    int base(int position) const { return position * m_opsPerMicrobatch; }

    std::vector<SimOp> m_ops;
    std::vector<double> m_modelState;
    int m_microbatches = 0;
    int m_stages = 0;
    int m_devices = 0;
    int m_opsPerMicrobatch = 0;
    bool m_split = false;
    bool m_waitsForPreviousSend = false;
};

} // namespace stratex::sim::detail
