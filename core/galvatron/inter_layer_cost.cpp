// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/inter_layer_cost.h"

#include <cstdint>

namespace stratex::galvatron {

double redistributionCost(const CostModel& model, int g, int pp, int gbsz, int chunks)
{
    const CostSettings& settings = model.settings();
    const int cd = settings.world / pp / g;
    const double clb = double(gbsz) / chunks / cd;
    const std::int64_t bytes = std::int64_t(settings.model.seq_length) * settings.model.hidden_size
        * (settings.mixed_precision == MixedPrecision::Fp32 ? 4 : 2);
    const double x = ((double(g - 1) / g) * clb) * double(bytes);
    const profile::AllreduceCoefficients& c = model.inputs().allreduce;
    double coefficient = 0;
    if (g == 1 || cd == 1) {
        const auto plain = c.find(std::to_string(g));
        coefficient = plain ? *plain : c.at(std::to_string(g) + "_1");
    } else {
        coefficient = c.at(std::to_string(g) + "_1");
    }
    return x * (coefficient * 1e-7);
}

double tieBreakBias(const LayerStrategy& a, const LayerStrategy& b)
{
    if (a == b)
        return 0;
    const bool sameCore = a.pp == b.pp && a.tp == b.tp && a.sp == b.sp && a.dp == b.dp;
    const bool spSwap = a.pp == b.pp && a.tpsp() == b.tpsp() && a.dp == b.dp && a.checkpoint == b.checkpoint
        && a.dp_type == b.dp_type && a.sp != b.sp;
    const bool fsSwap = sameCore && a.checkpoint == b.checkpoint && a.dp_type != b.dp_type;
    const bool ckSwap = sameCore && a.dp_type == b.dp_type && a.checkpoint != b.checkpoint;
    const bool fcSwap = sameCore && (a.dp_type != b.dp_type || a.checkpoint != b.checkpoint);
    const bool toZero3 = b.dp_type == DpType::Zero3;
    double cost = 0;
    if (spSwap && b.sp > 1)
        cost = 1e-10;
    if (fsSwap && toZero3)
        cost = 1e-9;
    if (ckSwap && b.checkpoint)
        cost = 2e-9;
    if (fcSwap && toZero3 && b.checkpoint)
        cost = 3e-9;
    if (fcSwap && !fsSwap && !ckSwap && a.dp_type == DpType::Zero3 && b.checkpoint)
        cost = 1e-9;
    return cost;
}

double interLayerCost(
    const CostModel& model, const LayerStrategy& former, const LayerStrategy& latter, int gbsz, int chunks)
{
    if (former == latter)
        return 0;
    if (model.settings().sequence_parallel && former.tpsp() != latter.tpsp())
        return redistributionCost(model, std::max(former.tpsp(), latter.tpsp()), former.pp, gbsz, chunks);
    return tieBreakBias(former, latter);
}

} // namespace stratex::galvatron
