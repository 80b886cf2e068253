// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/stratex_report.h"

#include "core/common/number_format.h"
#include "core/megatron/framework_support.h"
#include "core/megatron/memory_margin.h"

namespace stratex::cli {

std::string estimateLine(const megatron::Estimate& e)
{
    return e.strategy.notation() + " " + std::string(megatron::pipelineScheduleName(e.strategy.schedule)) + ": "
        + fixed(e.iteration_ms / 1e3, 3) + " s/iter, " + fixed(e.tokens_per_s_per_gpu, 0) + " tokens/s/GPU, MFU "
        + fixed(e.mfu * 100, 1) + " %, peak " + fixed(e.peak_memory_mb, 0) + " MB";
}

std::string estimateText(const megatron::Estimate& e)
{
    std::string text = "Plan: " + e.strategy.notation() + ", schedule "
        + std::string(megatron::pipelineScheduleName(e.strategy.schedule)) + ", "
        + megatron::precisionLabel(e.strategy) + "\n";
    if (!e.problems.empty()) {
        text += std::string(megatron::frameworkProject(e.strategy.framework)) + " would refuse it:\n";
        for (const std::string& problem : e.problems)
            text += "  " + problem + "\n";
        return text;
    }
    // The figures' names of core/common/plan_figures.h, as the GUI shows them.
    text += "  iteration " + fixed(e.iteration_ms / 1e3, 4) + " s: pipeline makespan " + fixed(e.pipeline_ms, 1) + " ms (bubble "
        + fixed(e.bubble_fraction * 100, 1) + " %), exposed DP " + fixed(e.dp_exposed_ms, 1) + " ms, optimizer "
        + fixed(e.optimizer_ms, 1) + " ms, fixed " + fixed(e.overhead_ms, 1) + " ms\n";
    text += "  throughput " + fixed(e.tokens_per_s_per_gpu, 1) + " tokens/s/GPU, " + fixed(e.model_tflops_per_gpu, 1)
        + " model TFLOP/s/GPU, MFU " + fixed(e.mfu * 100, 1) + " %\n";
    text += "  peak incl. reserve " + fixed(e.peak_memory_mb, 0) + " MB on the device (planned peak "
        + fixed(e.allocated_peak_mb, 0) + " MB) of " + fixed(e.memory_limit_mb, 0) + " MB" + (e.fits ? "" : " (does not fit)") + "\n";
    text += "Stages (per micro-batch times; memory: weights + gradients + optimizer + activations + logits + "
            "workspace + reserve (allocator cache, CUDA context, NCCL)):\n";
    for (const megatron::StageEstimate& s : e.stages) {
        const megatron::StageMemory& m = s.memory;
        text += "  " + std::to_string(s.stage) + ": " + std::to_string(s.layers) + " layers, forward "
            + fixed(s.forward_ms, 2) + " ms, backward " + fixed(s.backward_ms, 2) + " ms, DP " + fixed(s.dp_comm_ms, 1)
            + " ms (" + fixed(s.dp_exposed_ms, 1) + " exposed), " + fixed(s.inflight_microbatches_x100 / 100.0, 2)
            + " micro-batches in flight, memory " + fixed(m.totalMb(), 0) + " MB = " + fixed(m.weights_mb, 0) + " + "
            + fixed(m.gradients_mb, 0) + " + " + fixed(m.optimizer_mb, 0) + " + " + fixed(m.activations_mb, 0) + " + "
            + fixed(m.logits_mb, 0) + " + " + fixed(m.workspace_mb, 0) + " + " + fixed(m.reserve_mb, 0) + "\n";
    }
    for (const std::string& note : e.notes)
        text += "note: " + note + "\n";
    return text;
}

std::string evidenceLine(const megatron::PlanEvidence& evidence)
{
    if (!evidence.extrapolated)
        return "evidence: inside what the reference runs cover";
    std::string text = "extrapolated:";
    for (std::size_t i = 0; i < evidence.notes.size(); ++i)
        text += (i == 0 ? " " : "; ") + evidence.notes[i];
    return text;
}

nlohmann::ordered_json evidenceJson(const megatron::PlanEvidence& evidence)
{
    return { { "extrapolated", evidence.extrapolated }, { "notes", evidence.notes } };
}

std::string memoryMarginLine(const megatron::Estimate& estimate)
{
    return megatron::memoryMargin(estimate).note;
}

nlohmann::ordered_json memoryMarginJson(const megatron::Estimate& estimate)
{
    const megatron::MemoryMargin m = megatron::memoryMargin(estimate);
    return { { "headroom", m.headroom }, { "records", m.records },
        { "largest_underprediction", m.largest_underprediction }, { "tight", m.tight }, { "note", m.note } };
}

std::string modelTimeLine(const model::ModelDescription& model)
{
    return megatron::modelTimeEvidence(model).note;
}

nlohmann::ordered_json modelTimeJson(const model::ModelDescription& model)
{
    const megatron::ModelTimeEvidence e = megatron::modelTimeEvidence(model);
    nlohmann::ordered_json out { { "runs", e.runs } };
    if (e.runs > 0) {
        out["lowest_throughput_error"] = e.lowest;
        out["highest_throughput_error"] = e.highest;
        out["mean_throughput_error"] = e.mean;
    }
    out["off"] = e.off;
    out["note"] = e.note;
    return out;
}

} // namespace stratex::cli
