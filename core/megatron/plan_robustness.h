// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include "core/common/progress.h"
#include "core/model/model_description.h"
#include "core/megatron/estimate.h"
#include "core/hardware/hardware_model.h"

namespace stratex::megatron {

// Ranks (1 = fastest) a plan takes among the compared plans across a band of what-ifs.
struct RankRange {
    int best = 0;
    int worst = 0;
};

// How a search's ranking holds when the model is off: each time component (compute, TP, CP, EP,
// DP and PP communication) scaled by 1 - band and 1 + band, one at a time, and every plan re-costed.
struct PlanRobustness {
    RankRange band_5; // ±5 %
    RankRange band_10; // ±10 %
    // Stays the fastest of the compared plans under every what-if of the band.
    bool robust_5 = false;
    bool robust_10 = false;
};

// One entry per plan of `plans` (a search's ranked list, fastest first), for `model` on `hw`.
// `rankFactors` (one per plan, or empty for 1) scale each plan's time as the search ranked it
// (an extrapolated plan's uncertainty, rankingTimeMs). Checks cancellation between re-costings.
std::vector<PlanRobustness> rankingRobustness(const model::ModelDescription& model, const hardware::HardwareModel& hw,
    const std::vector<Estimate>& plans, double memoryLimitMb, ProgressSink& progress,
    const std::vector<double>& rankFactors = {});

} // namespace stratex::megatron
