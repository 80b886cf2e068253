// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/plan.h"

#include <algorithm>
#include <string>

namespace stratex::galvatron {

int Plan::peakMemoryMb() const
{
    return memory_cost_mb_per_stage.empty()
        ? 0
        : *std::max_element(memory_cost_mb_per_stage.begin(), memory_cost_mb_per_stage.end());
}

int Plan::stageOf(int layer) const
{
    int first = 0;
    for (std::size_t stage = 0; stage < pp_division.size(); ++stage) {
        first += pp_division[stage];
        if (layer < first)
            return int(stage);
    }
    return int(pp_division.size()) - 1;
}

std::string Plan::layerSummary() const
{
    std::string text;
    std::size_t i = 0;
    while (i < layers.size()) {
        std::size_t j = i;
        while (j < layers.size() && layers[j] == layers[i])
            ++j;
        if (!text.empty())
            text += ", ";
        text += layers[i].notation();
        if (j - i > 1)
            text += " x" + std::to_string(j - i);
        i = j;
    }
    return text;
}

std::vector<int> evenDivision(int layers, int pp)
{
    std::vector<int> division(static_cast<std::size_t>(pp), layers / pp);
    division.back() = layers - (layers / pp) * (pp - 1);
    return division;
}

} // namespace stratex::galvatron
