// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Exact ties among searched plans (issue 24 finding 6: plans predicted equal were ranked 1, 2, 3,
// 4 as if the order meant something). Plans with the same iteration time and the same peak
// memory are one entry: the first in the given order, the others listed as "also: …" by what sets
// them apart, the way the stratex engine shows its twins (megatron::twinsLine).

#include <cstddef>
#include <string>
#include <vector>

#include "core/galvatron/plan.h"

namespace stratex::galvatron {

struct TiedPlans {
    std::size_t plan = 0; // index of the plan shown
    std::vector<std::size_t> ties; // indices of the plans equal to it, in the given order
};

// Groups plans[i] with every later plan of the same time_cost_s and peakMemoryMb(), bit for bit
// (a tie is an exact equality, not a tolerance: the cost model is deterministic).
std::vector<TiedPlans> groupExactTies(const std::vector<Plan>& plans);

// The fields of `tie` that differ from `plan`: "pp 4 chunks 8", "sp", "layers 1-2-4 x32" …
std::string tieDifference(const Plan& plan, const Plan& tie);
// "also: sp, pp 4 chunks 8 and 2 more" (the first `shown` ties); "" without ties.
std::string tiesLine(const Plan& plan, const std::vector<const Plan*>& ties, std::size_t shown = 4);

} // namespace stratex::galvatron
