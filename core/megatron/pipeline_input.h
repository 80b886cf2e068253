// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <vector>

#include "core/hardware/hardware_model.h"
#include "core/megatron/parallel_strategy.h"
#include "core/sim/schedule_kind.h"
#include "core/sim/simulator.h"
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
    sim::SimulationOptions options; // the micro-batch group N (pipelineSimulationOptions)
};

// ZB-H1 for its schedule, interleaved 1F1B with virtual stages, else 1F1B; with virtual stages and
// a micro-batch group N other than pp (ParallelStrategy::microbatch_group_size), flexible-interleaved,
// the interleaved order in groups of N (Megatron-Core's get_schedule_table, schedules.py @ d98e8a64;
// docs/memory-model.md, "Micro-batch group N"). N = pp keeps Interleaved1F1B: the same order, and
// the bytes of every plan that does not name N.
sim::ScheduleKind pipelineScheduleKind(const ParallelStrategy& strategy);
// The simulator's options for `strategy`'s schedule: N for flexible-interleaved; no timeline.
sim::SimulationOptions pipelineSimulationOptions(const ParallelStrategy& strategy);

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

// The buffers torch.distributed.pipelining's stage object keeps for the whole step, beyond the
// activations each micro-batch saves (docs/memory-model.md, "Pipeline stage outputs"), in bytes on
// one GPU for one model chunk (a stage object; a rank holds vpp of them), under a framework that
// runs it (torchtitan); zero otherwise and without pipeline parallelism. PyTorch's
// torch/distributed/pipelining/stage.py (read @ 01386103; the records ran torch 1963fc8):
// - PipelineStage._prepare_forward_infra allocates one receive buffer per micro-batch
//   (`for chunk_id in range(num_microbatches)`, _make_tensor_from_meta) on every stage but the
//   first, and keeps them in args_recv_info across steps;
// - _PipelineStageBase._prepare_backward_infra allocates one output-gradient receive buffer per
//   micro-batch (_create_grad_recv_info) on every stage but the last;
// - forward_one_chunk appends the last stage's output to output_chunks, cleared only by the next
//   step's clear_runtime_states: every micro-batch's logits (`outputBytes` each) are alive at the
//   last backward;
// - the input gradients (torchtitanHeldInputGradientBytes, torchtitan_activations.h): stage_backward
//   leaves each micro-batch's in its receive buffer's .grad until the next step, so the model's
//   last chunk holds m - 1 of them at its last backward.
struct PipelineStageBuffers {
    double recv_bytes = 0; // micro-batches x the received activation
    double grad_recv_bytes = 0; // micro-batches x the received output gradient
    double output_chunks_bytes = 0; // micro-batches x the last stage's output
    double input_grads_bytes = 0; // earlier micro-batches' input gradients kept in .grad (last chunk)
    // The step's merged output (torchtitanMergedOutputBytes): made after the last backward, off
    // the allocated peak; not in total(). What it does to the reserved memory: device_memory.h
    // lateAllocationSegmentMb.
    double merged_output_bytes = 0;
    double total() const { return recv_bytes + grad_recv_bytes + output_chunks_bytes + input_grads_bytes; }
};
PipelineStageBuffers pipelineStageBuffers(
    const ParallelStrategy& strategy, double sendBytes, double outputBytes, bool firstChunk, bool lastChunk);

// What a received input shares with the saved activations: the first block of a stage saves its
// input, which is the receive buffer itself (torchtitan's Transformer.forward passes the tensor
// on; stage.py _retrieve_recv_activations hands the buffer to the module), so a micro-batch in
// flight holds no copy of it beyond the buffer counted in pipelineStageBuffers: `sendBytes` to
// take off its saved activations, on every chunk but the model's first; 0 where no buffer is kept.
double receivedInputAliasBytes(const ParallelStrategy& strategy, double sendBytes, bool firstChunk);

// What a (micro-batch, chunk) forward keeps as the ledger counts it (memoryPipeline,
// stage_memory.cpp): the chunk's saved activations, plus the stage output it holds
// (heldStageOutputBytes), less the received input they alias (receivedInputAliasBytes). Both read
// only whether the chunk is the model's first or last, so they are worked out once here, not per
// chunk: the search's first pass runs the warm-up bound (estimate.cpp) for each stage of each
// memo entry (issue 22 item 8).
class KeptActivation {
public:
    KeptActivation(const ParallelStrategy& strategy, double sendBytes);
    // `activationBytes`: chunk `chunk`'s (ChunkCost::activation_bytes) of `chunkCount` chunks.
    double bytes(double activationBytes, std::size_t chunk, std::size_t chunkCount) const
    {
        return activationBytes + m_heldBytes[chunk + 1 == chunkCount ? 1 : 0] - m_aliasBytes[chunk == 0 ? 1 : 0];
    }

private:
    double m_heldBytes[2]; // [last chunk]
    double m_aliasBytes[2]; // [first chunk]
};

// Whether `strategy`'s pipeline schedule makes a rank's compute wait on its own earlier sends
// (sim::SimulationInput::compute_waits_for_previous_send): Megatron-Core's interleaved schedule
// (Megatron-LM, Megatron-Bridge), whose warm-up waits on the previous forward's send handle and
// whose cool-down sends and receives blocking (docs/collectives.md "Pipeline sends a schedule
// waits for").
bool computeWaitsForPreviousSend(const ParallelStrategy& strategy);

// `p2pBytes`: the activation a micro-batch sends from one stage to the next; `crossNode`: the
// stages are on different nodes.
PipelineSimulation pipelineSimulationInput(const std::vector<PipelineChunk>& chunks, const ParallelStrategy& strategy,
    const hardware::HardwareModel& hw, double p2pBytes, bool crossNode);

} // namespace stratex::megatron
