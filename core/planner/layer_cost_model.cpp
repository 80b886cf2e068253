// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/layer_cost_model.h"

#include <cmath>

namespace stratex::planner {

namespace {
bool usable(double value)
{
    return std::isfinite(value);
}
} // namespace

bool LayerEstimate::timeFeasible() const
{
    return usable(forward_ms) && usable(backward_ms);
}

bool LayerEstimate::memoryFeasible() const
{
    return usable(stored_activation_mb) && usable(peak_activation_mb);
}

bool LayerCostEstimate::feasible() const
{
    return encoder.feasible() && decoder.feasible() && usable(postprocess_forward_ms)
        && usable(postprocess_backward_ms);
}

std::vector<RecomputeType> LayerCostModel::recomputeTypes(int tp) const
{
    std::vector<RecomputeType> types;
    for (RecomputeType type : kAllRecomputeTypes) {
        if (supports(tp, type))
            types.push_back(type);
    }
    return types;
}

} // namespace stratex::planner
