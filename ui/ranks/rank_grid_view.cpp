// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ranks/rank_grid_view.h"

#include <algorithm>
#include <cmath>

namespace stratex::ui {

int gridColumns(int ranksPerBand, int gpusPerNode)
{
    constexpr int kSingleRowLimit = 64;
    if (ranksPerBand <= kSingleRowLimit)
        return ranksPerBand;
    // Aim for bands about four times wider than tall, in whole nodes.
    const int target = static_cast<int>(std::ceil(std::sqrt(double(ranksPerBand) * 4.0)));
    const int node = std::max(1, gpusPerNode);
    const int columns = ((target + node - 1) / node) * node;
    return std::min(columns, ranksPerBand);
}

} // namespace stratex::ui
