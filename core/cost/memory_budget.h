// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cost/cost_model.h"

namespace stratex::cost {

// Galvatron's per-GPU memory budget (galvatron-main-search-spec.md §4.5): memory_constraint GB in
// MB; above 20 GB, 20 % is held back for the allocator's cache. The DP plans within dp_budget_mb;
// the reported memory cost adds the reserve back.
struct MemoryBudget {
    int total_mb = 0;
    int reserve_mb = 0;
    int dp_budget_mb = 0;
};

// `reserveFraction` < 0 is Galvatron's rule; otherwise that share of the total is held back.
MemoryBudget memoryBudget(int memoryConstraintGb, double reserveFraction = -1);

// Megatron's global memory buffer for the all-gathered sequence-parallel activations, charged to
// every stage when sequence parallelism and the buffer are on (§4.4), sized by the task's buffer
// TP degree. The DP truncates it to whole MB.
double globalBufferMb(const CostModel& model, int gbsz, int chunks, int pp, int bufferTp);

} // namespace stratex::cost
