// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/uniform_plan.h"

#include <map>

namespace stratex::exporting {

namespace {

template <typename Get> int mostCommon(const galvatron::Plan& plan, Get get)
{
    std::map<int, int> counts;
    for (const galvatron::LayerStrategy& s : plan.layers)
        ++counts[get(s)];
    int best = 1;
    int bestCount = -1;
    for (const auto& [value, count] : counts) {
        if (count > bestCount) {
            best = value;
            bestCount = count;
        }
    }
    return best;
}

} // namespace

int mostCommonTp(const galvatron::Plan& plan)
{
    return mostCommon(plan, [](const galvatron::LayerStrategy& s) { return s.tp; });
}

int mostCommonUlysses(const galvatron::Plan& plan)
{
    return mostCommon(plan, [](const galvatron::LayerStrategy& s) { return s.sp; });
}

DpTypeMix dpTypeMix(const galvatron::Plan& plan)
{
    DpTypeMix mix;
    for (const galvatron::LayerStrategy& s : plan.layers) {
        if (s.dp <= 1)
            continue;
        mix.any_zero3 = mix.any_zero3 || s.dp_type == galvatron::DpType::Zero3;
        mix.any_zero2 = mix.any_zero2 || s.dp_type == galvatron::DpType::Zero2;
        mix.every_zero3 = mix.every_zero3 && s.dp_type == galvatron::DpType::Zero3;
    }
    return mix;
}

} // namespace stratex::exporting
