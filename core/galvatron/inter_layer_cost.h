// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/galvatron/cost_model.h"
#include "core/galvatron/strategy.h"

namespace stratex::galvatron {

// Cost (seconds) of switching from strategy `former` on one layer to `latter` on the next
// (docs/galvatron-search.md §5.2): with sequence parallelism, a change of TP/SP degree
// re-distributes the activation; otherwise only tiny biases that make equal-time plans come out in
// a fixed order (checkpointed layers first, ZeRO-3 runs, Megatron TP before Ulysses).
double interLayerCost(
    const CostModel& model, const LayerStrategy& former, const LayerStrategy& latter, int gbsz, int chunks);

// The two parts of interLayerCost, for callers that tabulate them: the activation re-distribution
// when the larger TP/SP degree of the two layers is `largerTpsp` (sequence parallelism only), and
// the tie-break bias between two strategies of equal TP/SP degree.
double redistributionCost(const CostModel& model, int largerTpsp, int pp, int gbsz, int chunks);
double tieBreakBias(const LayerStrategy& former, const LayerStrategy& latter);

} // namespace stratex::galvatron
