// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/megatron/estimate.h"
#include "core/megatron/peak_explanation.h"

namespace stratex::megatron {

// The worst rank's peak of `estimate` (a simulated or single-stage plan: its stages' memory from
// the ledger) explained: the plan's pipeline simulated again with the peak's moment recorded
// (sim::SimulationOptions::explain_peak), the model-state and device parts from the estimate's
// worst stage. nullopt for a plan Megatron refuses or whose simulation finds no moment.
std::optional<PeakExplanation> explainPeak(const model::ModelDescription& model, const ParallelStrategy& strategy,
    const hardware::HardwareModel& hw, const Estimate& estimate);

// One part alive at the peak, as the breakdowns list them: evaluate's text and JSON and the Search
// page's peak chart show the same list in the same order.
struct PeakPart {
    std::string key; // "weights", "held_activations", ... (JSON)
    std::string label; // "weights", "saved activations, 4 micro-batches in flight", ...
    double mb = 0;
    bool device = false; // beyond the allocated tensors (allocator cache, CUDA context, NCCL, reserve)
};
std::vector<PeakPart> peakParts(const PeakExplanation& peak);
// The "pipeline_buffers" part's label: what torch.distributed.pipelining's stage keeps for the
// step (pipeline_input.h PipelineStageBuffers, each term of its total() named).
inline constexpr std::string_view kPipelineBuffersLabel
    = "pipeline stage buffers (received activations and output gradients, the last stage's output chunks, "
      "earlier micro-batches' input gradients)";

// PeakExplanation::op when the optimizer step is the peak (StageMemory::optimizer_step_peak).
inline constexpr std::string_view kOptimizerStepOp = "optimizer step";

// "stage 3, forward of micro-batch 5 (chunk 0, with the logits and loss) at 1234.5 ms", or the
// optimizer step's moment.
std::string peakMomentText(const PeakExplanation& peak);

} // namespace stratex::megatron
