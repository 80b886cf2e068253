// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How much the stratex search will simulate, from its request alone, so that both front ends can
// decide before the search starts (issue 26: global batch 1,048,576 on one node ran past 20 s with
// no refusal). The search's time goes into simulating pipelines: each simulation steps through
// micro-batches x pp x vpp chunk passes (pipelineWork), the search simulates at least its kept
// plans, and the ranking's what-ifs simulate each kept plan again 24 times (plan_robustness.cpp:
// 2 bands x 6 components x 2 signs). The candidates are walked without being built or costed
// (SearchSpace; millions at 16,384 GPUs) to take the median plan's pipeline; the plans kept are not
// known before costing.

#include "core/common/work_budget.h"
#include "core/megatron/strategy_search.h"

namespace stratex::megatron {

WorkEstimate estimateStratexSearchWork(const StrategySearchRequest& request);

// Throws WorkBudgetExceeded beyond the budget unless `lifted`. runStratexSearch calls it first.
void requireBoundedStratexSearch(const StrategySearchRequest& request, bool lifted);

} // namespace stratex::megatron
