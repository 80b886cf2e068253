// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/memory_budget.h"

#include <algorithm>
#include <cmath>

namespace stratex::galvatron {

namespace {

// False for NaN, which therefore does not fit either.
bool intRange(double mb)
{
    return mb >= double(std::numeric_limits<int>::min()) && mb <= double(kUnfitMb);
}

} // namespace

int weightMb(double mb)
{
    return intRange(mb) ? int(std::ceil(mb)) : kUnfitMb;
}

int truncatedMb(double mb)
{
    return intRange(mb) ? int(mb) : kUnfitMb;
}

int saturatedMb(std::int64_t mb)
{
    return int(std::clamp<std::int64_t>(mb, -std::int64_t(kUnfitMb), kUnfitMb));
}

MemoryBudget memoryBudget(int memoryConstraintGb, double reserveFraction)
{
    MemoryBudget budget;
    budget.total_mb = memoryConstraintGb * 1024;
    if (reserveFraction < 0)
        budget.reserve_mb = budget.total_mb / 1024 > 20 ? int(budget.total_mb * 0.2) : 0;
    else
        budget.reserve_mb = int(budget.total_mb * reserveFraction);
    budget.dp_budget_mb = budget.total_mb - budget.reserve_mb;
    return budget;
}

double globalBufferMb(const CostModel& model, int gbsz, int chunks, int pp, int bufferTp)
{
    const CostSettings& settings = model.settings();
    const int cd = settings.world / pp / bufferTp;
    const double clb = double(gbsz) / chunks / cd;
    double gm = ((((clb * settings.model.hidden_size) * settings.model.seq_length) * 4) / 1024) / 1024;
    // Galvatron halves it whenever the precision string is set, i.e. always (Q18).
    gm = gm / 2;
    return gm;
}

} // namespace stratex::galvatron
