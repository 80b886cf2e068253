// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include "core/hardware/hardware_model.h"
#include "core/megatron/parallel_strategy.h"
#include "core/sim/schedule_kind.h"
#include "core/sim/sim_spec.h"

namespace stratex::megatron {

// One model chunk of the pipeline (chunk j of stage i is entry j·pp + i, Megatron's virtual-stage
// order): what one micro-batch costs it.
struct PipelineChunk {
    double forward_s = 0;
    double backward_s = 0;
    // The memory ledger (the makespan does not depend on them): activations a micro-batch keeps
    // from its forward until its backward, and the peak above what the stage held before the op
    // while the op runs (its own activations + a recomputed group or a layer's intermediates + the
    // logits on the last chunk).
    double stored_mb = 0;
    double transient_mb = 0;
};

// A strategy's pipeline as the simulator runs it: one simulated "layer" per model chunk, chunk c on
// device c mod pp, every micro-batch identical, activations sent between stages over the measured
// point-to-point link. The estimate's makespan and the Timeline page's drawing both come from it,
// so what the page shows is what the estimate costed.
struct PipelineSimulation {
    sim::SimulationInput input;
    sim::ScheduleKind schedule = sim::ScheduleKind::OneFOneB;
};

// ZB-H1 for its schedule, interleaved 1F1B with virtual stages, else 1F1B.
sim::ScheduleKind pipelineScheduleKind(const ParallelStrategy& strategy);

// Whether `framework`'s pipeline schedule keeps the data of a model chunk's output (the activation
// it sends to the next stage) from the chunk's forward until the chunk's backward
// (docs/memory-model.md, "Pipeline stage outputs"). Megatron-LM and Megatron-Bridge pseudo-free
// it once sent (deallocate_output_tensor); PyTorch's pipelining, which torchtitan runs, keeps it.
bool keepsStageOutputs(Framework framework);

// What a (micro-batch, chunk) of `strategy` holds for its output beyond its layers' saved
// activations (which count each layer's input, not its output): `sendBytes` where the framework
// keeps it; 0 where it frees it after the send, on the model's last chunk (`lastChunk`: it sends
// nothing; its logits are counted apart) and without pipeline parallelism.
double heldStageOutputBytes(const ParallelStrategy& strategy, double sendBytes, bool lastChunk);

// `p2pBytes`: the activation a micro-batch sends from one stage to the next; `crossNode`: the
// stages are on different nodes.
PipelineSimulation pipelineSimulationInput(const std::vector<PipelineChunk>& chunks, const ParallelStrategy& strategy,
    const hardware::HardwareModel& hw, double p2pBytes, bool crossNode);

} // namespace stratex::megatron
