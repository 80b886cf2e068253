// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/memory_ledger_explain.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "core/megatron/pipeline_input.h"
#include "core/sim/peak_moment.h"

namespace stratex::megatron {

int PeakExplanation::inflightMicrobatches() const
{
    std::set<int> microbatches;
    for (const PeakHeldActivations& h : held)
        microbatches.insert(h.microbatch);
    return int(microbatches.size());
}

namespace {

std::string opName(sim::OpKind kind)
{
    switch (kind) {
    case sim::OpKind::Backward:
        return "backward";
    case sim::OpKind::Weight:
        return "weight gradient";
    default:
        return "forward";
    }
}

} // namespace

std::optional<PeakExplanation> explainPeak(const model::ModelDescription& model, const ParallelStrategy& s,
    const hardware::HardwareModel& hw, const Estimate& estimate)
{
    if (!estimate.problems.empty() || estimate.stages.empty())
        return std::nullopt;
    // The worst rank: the highest device peak (the number the fit check uses), the first on a tie.
    std::size_t worst = 0;
    for (std::size_t i = 1; i < estimate.stages.size(); ++i) {
        if (estimate.stages[i].memory.totalMb() > estimate.stages[worst].memory.totalMb())
            worst = i;
    }
    const StageMemory& worstMem = estimate.stages[worst].memory;
    if (worstMem.optimizer_step_peak) {
        // The optimizer step is the peak (StageMemory::optimizer_step_peak): after the last
        // backward, no activation or logits alive, the gathered layers released; the breakdown's
        // parts are that moment's, the step's gradient copies with the gradients.
        PeakExplanation e;
        e.stage = int(worst);
        e.op = std::string(kOptimizerStepOp);
        e.time_ms = estimate.pipeline_ms;
        e.weights_mb = worstMem.weights_mb;
        e.gradients_mb = worstMem.gradients_mb;
        e.optimizer_mb = worstMem.optimizer_mb;
        e.workspace_mb = worstMem.workspace_mb;
        e.pipeline_buffers_mb = worstMem.activations_mb > 1e-3 ? worstMem.activations_mb : 0.0;
        e.allocator_cache_mb = worstMem.allocator_cache_mb;
        e.cuda_context_mb = worstMem.cuda_context_mb;
        e.nccl_mb = worstMem.nccl_mb;
        e.other_reserve_mb = std::max(0.0,
            worstMem.reserve_mb - worstMem.allocator_cache_mb - worstMem.cuda_context_mb - worstMem.nccl_mb);
        e.allocated_mb = e.weights_mb + e.gradients_mb + e.optimizer_mb + e.workspace_mb + e.pipeline_buffers_mb;
        e.device_mb = e.allocated_mb + e.allocator_cache_mb + e.cuda_context_mb + e.nccl_mb + e.other_reserve_mb;
        return e;
    }
    const PipelineSimulation pipeline = pipelineSimulation(model, s, hw);
    const std::vector<sim::PeakMoment> moments
        = sim::simulatePeakMoments(pipeline.input, pipeline.schedule, pipeline.options.microbatch_group_size);
    if (worst >= moments.size() || !moments[worst].found)
        return std::nullopt;
    const sim::PeakMoment& moment = moments[worst];
    const StageMemory& mem = estimate.stages[worst].memory;

    PeakExplanation e;
    e.stage = int(worst);
    e.op = opName(moment.kind);
    e.microbatch = moment.microbatch;
    e.chunk = moment.chunk;
    e.time_ms = moment.start_us * 1e-3;
    e.weights_mb = mem.weights_mb;
    e.gradients_mb = mem.gradients_mb;
    e.optimizer_mb = mem.optimizer_mb;
    e.workspace_mb = mem.workspace_mb;
    // What the ledger's stage starts with beyond its model state and workspace: the pipelining
    // stage buffers (memoryPipeline puts them in the stage's starting memory).
    // (Below a kB it is the sums' rounding, not a buffer.)
    if (worst < pipeline.input.model_state_mb_per_layer.size()) {
        // (+ the gradients joined at a first backward, which the estimate counts as gradients)
        const double beyond = pipeline.input.model_state_mb_per_layer[worst] + moment.state_joined_mb - e.weights_mb - e.gradients_mb
            - e.optimizer_mb - e.workspace_mb;
        e.pipeline_buffers_mb = beyond > 1e-3 ? beyond : 0.0;
    }
    for (const sim::HeldActivations& h : moment.held) {
        e.held.push_back({ h.microbatch, h.chunk, h.mb });
        e.held_mb += h.mb;
    }
    // The running op's transient, split as memoryPipeline() built it: on a forward, the chunk's own
    // saved activations, the logits and loss buffers on the model's last chunk, and the rest (a
    // layer's intermediates or a recomputed group).
    const std::size_t chunks = pipeline.input.microbatches.empty() ? 0 : pipeline.input.microbatches.front().layers.size();
    const auto chunkIndex = std::size_t(moment.stage);
    e.last_chunk = chunks > 0 && chunkIndex + 1 == chunks;
    double rest = moment.transient_mb;
    if (moment.kind == sim::OpKind::Forward && chunkIndex < chunks) {
        e.op_stored_mb = std::min(rest, pipeline.input.microbatches.front().layers[chunkIndex].stored_mb);
        rest -= e.op_stored_mb;
        if (e.last_chunk) {
            e.logits_mb = std::min(rest, mem.logits_mb);
            rest -= e.logits_mb;
        }
    }
    e.op_transient_mb = std::max(0.0, rest);
    e.allocator_cache_mb = mem.allocator_cache_mb;
    e.cuda_context_mb = mem.cuda_context_mb;
    e.nccl_mb = mem.nccl_mb;
    e.other_reserve_mb = std::max(0.0, mem.reserve_mb - mem.allocator_cache_mb - mem.cuda_context_mb - mem.nccl_mb);
    e.allocated_mb = e.weights_mb + e.gradients_mb + e.optimizer_mb + e.workspace_mb + e.held_mb + e.op_stored_mb
        + e.op_transient_mb + e.logits_mb + e.pipeline_buffers_mb;
    e.device_mb = e.allocated_mb + e.allocator_cache_mb + e.cuda_context_mb + e.nccl_mb + e.other_reserve_mb;
    return e;
}

std::vector<PeakPart> peakParts(const PeakExplanation& p)
{
    const int inflight = p.inflightMicrobatches();
    std::vector<PeakPart> parts {
        { "weights", "weights", p.weights_mb, false },
        { "gradients", "gradients", p.gradients_mb, false },
        { "optimizer", "optimizer states", p.optimizer_mb, false },
        { "held_activations",
            "saved activations, " + std::to_string(inflight) + (inflight == 1 ? " micro-batch" : " micro-batches")
                + " in flight",
            p.held_mb, false },
        { "op_stored", "the running op's saved activations", p.op_stored_mb, false },
        { "op_transient", "the running op's transient", p.op_transient_mb, false },
        { "logits", "logits and loss", p.logits_mb, false },
        { "workspace", "cuBLAS workspace", p.workspace_mb, false },
        { "allocator_cache", "allocator cache", p.allocator_cache_mb, true },
        { "cuda_context", "CUDA context", p.cuda_context_mb, true },
        { "nccl", "NCCL buffers", p.nccl_mb, true },
    };
    // The four terms of PipelineStageBuffers::total() (pipeline_input.h), each named.
    if (p.pipeline_buffers_mb > 0)
        parts.insert(parts.begin() + 7,
            { "pipeline_buffers", std::string(kPipelineBuffersLabel), p.pipeline_buffers_mb, false });
    if (p.other_reserve_mb > 0)
        parts.push_back({ "reserve", "calibrated reserve", p.other_reserve_mb, true });
    return parts;
}

std::string peakMomentText(const PeakExplanation& p)
{
    char time[32];
    std::snprintf(time, sizeof time, "%.1f", p.time_ms);
    if (p.op == kOptimizerStepOp)
        return "stage " + std::to_string(p.stage) + ", the optimizer step after the last backward (its gradient copies) at "
            + time + " ms";
    return "stage " + std::to_string(p.stage) + ", " + p.op + " of micro-batch " + std::to_string(p.microbatch)
        + " (chunk " + std::to_string(p.chunk) + (p.last_chunk ? ", with the logits and loss" : "") + ") at " + time
        + " ms";
}

} // namespace stratex::megatron
