// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/estimate_json.h"

#include "core/megatron/memory_ledger_explain.h"
#include "core/megatron/strategy_json.h"

namespace stratex::megatron {

namespace {

nlohmann::ordered_json memoryJson(const StageMemory& m)
{
    return nlohmann::ordered_json { { "weights_mb", m.weights_mb }, { "gradients_mb", m.gradients_mb },
        { "optimizer_mb", m.optimizer_mb }, { "activations_mb", m.activations_mb }, { "logits_mb", m.logits_mb },
        { "workspace_mb", m.workspace_mb }, { "allocated_mb", m.allocatedMb() },
        { "allocator_cache_mb", m.allocator_cache_mb }, { "cuda_context_mb", m.cuda_context_mb },
        { "nccl_mb", m.nccl_mb }, { "reserve_mb", m.reserve_mb }, { "total_mb", m.totalMb() } };
}

// The worst rank's peak (memory_ledger_explain.h): the moment, the parts in peakParts' order
// (keys as there, MB), the held activations per micro-batch and chunk, and the two sums.
nlohmann::ordered_json peakJson(const PeakExplanation& p)
{
    nlohmann::ordered_json out { { "stage", p.stage }, { "op", p.op }, { "microbatch", p.microbatch },
        { "chunk", p.chunk }, { "last_chunk", p.last_chunk }, { "time_ms", p.time_ms },
        { "inflight_microbatches", p.inflightMicrobatches() } };
    nlohmann::ordered_json parts = nlohmann::ordered_json::object();
    for (const PeakPart& part : peakParts(p))
        parts[part.key + "_mb"] = part.mb;
    out["parts"] = std::move(parts);
    nlohmann::ordered_json held = nlohmann::ordered_json::array();
    for (const PeakHeldActivations& h : p.held)
        held.push_back({ { "microbatch", h.microbatch }, { "chunk", h.chunk }, { "mb", h.mb } });
    out["held_activations"] = std::move(held);
    out["allocated_mb"] = p.allocated_mb;
    out["device_mb"] = p.device_mb;
    return out;
}

} // namespace

nlohmann::ordered_json toJson(const Estimate& e)
{
    nlohmann::ordered_json out;
    out["strategy"] = toJson(e.strategy);
    out["notation"] = e.strategy.notation();
    out["problems"] = e.problems;
    if (!e.problems.empty())
        return out;
    out["iteration_ms"] = e.iteration_ms;
    out["pipeline_ms"] = e.pipeline_ms;
    out["bubble_fraction"] = e.bubble_fraction;
    out["dp_exposed_ms"] = e.dp_exposed_ms;
    out["optimizer_ms"] = e.optimizer_ms;
    out["overhead_ms"] = e.overhead_ms;
    out["tokens_per_s_per_gpu"] = e.tokens_per_s_per_gpu;
    out["model_tflops_per_gpu"] = e.model_tflops_per_gpu;
    out["mfu"] = e.mfu;
    out["allocated_peak_mb"] = e.allocated_peak_mb;
    out["device_peak_mb"] = e.device_peak_mb;
    out["peak_memory_mb"] = e.peak_memory_mb;
    out["memory_limit_mb"] = e.memory_limit_mb;
    out["fits"] = e.fits;
    nlohmann::ordered_json stages = nlohmann::ordered_json::array();
    for (const StageEstimate& s : e.stages) {
        stages.push_back({ { "stage", s.stage }, { "layers", s.layers }, { "forward_ms", s.forward_ms },
            { "backward_ms", s.backward_ms }, { "dp_comm_ms", s.dp_comm_ms }, { "dp_exposed_ms", s.dp_exposed_ms },
            { "inflight_microbatches", s.inflight_microbatches_x100 / 100.0 }, { "memory", memoryJson(s.memory) } });
    }
    out["stages"] = std::move(stages);
    if (e.peak)
        out["peak_moment"] = peakJson(*e.peak);
    out["notes"] = e.notes;
    return out;
}

} // namespace stratex::megatron
