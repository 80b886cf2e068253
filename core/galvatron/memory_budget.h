// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <limits>

#include "core/galvatron/cost_model.h"

namespace stratex::galvatron {

// Galvatron's per-GPU memory budget (docs/galvatron-search.md §4.5): memory_constraint GB in
// MB; above 20 GB, 20 % is held back for the allocator's cache. The DP plans within dp_budget_mb;
// the reported memory cost adds the reserve back.
struct MemoryBudget {
    int total_mb = 0;
    int reserve_mb = 0;
    int dp_budget_mb = 0;
};

// A weight no budget can hold: budgets are at most 2^30 MB (memory_constraint <= 2^20 GB).
inline constexpr int kUnfitMb = std::numeric_limits<int>::max();

// Whole MB for the knapsack, rounded up (weightMb) or down (truncatedMb) as Galvatron does. A
// value an int cannot hold (huge batches, NaN from 0 * inf) becomes kUnfitMb, "does not fit",
// instead of an undefined conversion; ordinary values convert exactly as int(ceil(mb)) / int(mb).
int weightMb(double mb);
int truncatedMb(double mb);

// A sum of MB counts that may hold kUnfitMb, saturated to +-kUnfitMb (so it can be negated).
int saturatedMb(std::int64_t mb);

// `reserveFraction` < 0 is Galvatron's rule; otherwise that share of the total is held back.
MemoryBudget memoryBudget(int memoryConstraintGb, double reserveFraction = -1);

// Megatron's global memory buffer for the all-gathered sequence-parallel activations, charged to
// every stage when sequence parallelism and the buffer are on (§4.4), sized by the task's buffer
// TP degree. The DP truncates it to whole MB.
double globalBufferMb(const CostModel& model, int gbsz, int chunks, int pp, int bufferTp);

} // namespace stratex::galvatron
