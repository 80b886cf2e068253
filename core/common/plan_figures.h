// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One definition per number (issue 24 finding 6): the figures several views show for one plan —
// the pipeline bubble, the iteration against the pipeline makespan, the peak memory with and
// without the allocator reserve — are computed here and named here, label and tooltip, so the
// Search page's two tables and charts, the Timeline page and the CLI cannot disagree on what a
// number means. docs/plan-figures.md states the definitions and why each view shows which.

#include <string>
#include <string_view>
#include <vector>

namespace stratex::figures {

enum class Figure {
    // The idle share of the pipeline makespan on its busiest device: 1 - busiest device's busy
    // time / makespan. The least idle device bounds how much a better schedule could win.
    PipelineBubble,
    // The forward and backward passes of every micro-batch, bubbles included (what the Timeline
    // page draws).
    PipelineMakespan,
    // One training iteration: the makespan plus what follows it (exposed data-parallel
    // communication, the optimizer step, a per-iteration overhead).
    IterationTime,
    // What the plan itself holds on its fullest GPU (weights, gradients, optimizer states,
    // activations, buffers), without the allocator's reserve: the number a search compares with
    // its limit (the GPU's memory less the reserve).
    PlannedPeak,
    // The planned peak plus the allocator's reserve (Galvatron's memory_cost; the stratex model's
    // device peak: the allocator's cache, the CUDA context and NCCL's buffers): what the GPU shows.
    PeakWithReserve,
};

// The short name every view uses ("Bubble", "Planned peak"), without unit.
std::string_view label(Figure figure);
// "Planned peak (MB)": a column header or axis title.
std::string header(Figure figure, std::string_view unit);
// One or two sentences: what the number is and how it relates to the others.
std::string_view toolTip(Figure figure);

// Bubble as a fraction in [0, 1]: 1 - busiest / makespan; 0 without a makespan.
double pipelineBubble(double busiestBusyMs, double makespanMs);
// The same from each device's idle fraction of the makespan: the smallest (the busiest device).
double pipelineBubbleFromIdle(const std::vector<double>& idleFractions);

// An iteration and its parts, in ms.
// The stages end the pipeline together but each then waits for its own data-parallel gradients
// and runs its own optimizer step; the iteration ends with the slowest stage's tail.
struct IterationParts {
    double pipeline_ms = 0; // the makespan
    double tail_ms = 0; // exposed data-parallel communication + optimizer step, the slowest stage's
    double overhead_ms = 0; // per iteration (launch, logging, data loading)
};
double iterationMs(const IterationParts& parts);
// The parts of an iteration whose total and makespan are known (the tail is what remains, >= 0).
IterationParts iterationParts(double iterationMs, double pipelineMs, double overheadMs);
// "An iteration, 57181.00 ms = pipeline makespan 57146.76 ms + exposed data-parallel
// communication and optimizer step 30.24 ms + per-iteration overhead 4.00 ms."
std::string iterationBreakdown(const IterationParts& parts);

// The planned peak from a peak with the reserve (never below 0), and back.
double plannedPeakMb(double peakWithReserveMb, double reserveMb);
double peakWithReserveMb(double plannedPeakMb, double reserveMb);

} // namespace stratex::figures
