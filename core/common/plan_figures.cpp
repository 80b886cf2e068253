// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/plan_figures.h"

#include <algorithm>
#include <cstdio>

namespace stratex::figures {

std::string_view label(Figure figure)
{
    switch (figure) {
    case Figure::PipelineBubble:
        return "Bubble";
    case Figure::PipelineMakespan:
        return "Pipeline makespan";
    case Figure::IterationTime:
        return "Iteration";
    case Figure::PlannedPeak:
        return "Planned peak";
    case Figure::PeakWithReserve:
        return "Peak incl. reserve";
    }
    return {};
}

std::string header(Figure figure, std::string_view unit)
{
    std::string out(label(figure));
    if (!unit.empty())
        out.append(" (").append(unit).append(")");
    return out;
}

std::string_view toolTip(Figure figure)
{
    // docs/plan-figures.md §1 (bubble), §2 (iteration, makespan) and §3 (peak memory) give the same
    // definitions with their sources.
    switch (figure) {
    case Figure::PipelineBubble:
        return "Bubble: the idle share of the pipeline makespan on its busiest device (1 - busiest device's busy "
               "time / makespan). Each device's own idle share is on its row of the Timeline page.";
    case Figure::PipelineMakespan:
        return "Pipeline makespan: the forward and backward passes of every micro-batch, bubbles included, as the "
               "Timeline page draws them. An iteration adds what follows the pipeline.";
    case Figure::IterationTime:
        return "Iteration: one training step of the global batch = the pipeline makespan + exposed data-parallel "
               "communication + optimizer step + per-iteration overhead, so it is longer than the Timeline's "
               "makespan.";
    case Figure::PlannedPeak:
        return "Planned peak: what the plan itself holds on its fullest GPU (weights, gradients, optimizer states, "
               "activations, buffers), without the allocator's reserve. A search keeps it under its limit: the "
               "GPU's memory less the reserve.";
    case Figure::PeakWithReserve:
        return "Peak incl. reserve: the planned peak plus the allocator's reserve (its cache, the CUDA context and "
               "NCCL's buffers where they are modelled), what the GPU shows at its fullest; it must stay under the "
               "GPU's memory.";
    }
    return {};
}

double pipelineBubble(double busiestBusyMs, double makespanMs)
{
    if (!(makespanMs > 0))
        return 0;
    return std::clamp(1 - busiestBusyMs / makespanMs, 0.0, 1.0);
}

double pipelineBubbleFromIdle(const std::vector<double>& idleFractions)
{
    if (idleFractions.empty())
        return 0;
    return std::clamp(*std::min_element(idleFractions.begin(), idleFractions.end()), 0.0, 1.0);
}

double iterationMs(const IterationParts& parts)
{
    return parts.pipeline_ms + parts.tail_ms + parts.overhead_ms;
}

IterationParts iterationParts(double iterationMs, double pipelineMs, double overheadMs)
{
    return { pipelineMs, std::max(0.0, iterationMs - pipelineMs - overheadMs), overheadMs };
}

std::string iterationBreakdown(const IterationParts& parts)
{
    char buffer[320];
    std::snprintf(buffer, sizeof buffer,
        "An iteration, %.2f ms = pipeline makespan %.2f ms + exposed data-parallel communication and optimizer "
        "step %.2f ms (the slowest stage's) + per-iteration overhead %.2f ms.",
        iterationMs(parts), parts.pipeline_ms, parts.tail_ms, parts.overhead_ms);
    return buffer;
}

double plannedPeakMb(double peakWithReserveMb, double reserveMb)
{
    return std::max(0.0, peakWithReserveMb - reserveMb);
}

double peakWithReserveMb(double plannedPeakMb, double reserveMb)
{
    return plannedPeakMb + reserveMb;
}

} // namespace stratex::figures
