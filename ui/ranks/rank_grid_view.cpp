// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ranks/rank_grid_view.h"

#include <cmath>

namespace stratex::ui {

using namespace stratex::ranks;

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

RankGridView buildRankGridView(const ParallelConfig& config, TraceSelection selection)
{
    RankGridView view { RankGrid::create(config), {}, 1, {}, {}, {}, {} };
    const RankGrid& grid = view.grid;
    view.warnings = layoutWarnings(grid);
    const int world = grid.world();
    const int stages = grid.sizes().pp;
    view.ranksPerBand = world / stages;

    view.indexInBand.resize(std::size_t(world));
    view.bandRanks.resize(std::size_t(world));
    std::vector<int> filled(std::size_t(stages), 0);
    for (int rank = 0; rank < world; ++rank) {
        const int stage = view.stageOf(rank);
        const int index = filled[std::size_t(stage)]++;
        view.indexInBand[std::size_t(rank)] = index;
        view.bandRanks[std::size_t(stage) * std::size_t(view.ranksPerBand) + std::size_t(index)] = rank;
    }

    for (GroupKind kind : kAllGroupKinds) {
        std::vector<int>& indices = view.groupIndex[std::size_t(kind)];
        indices.assign(std::size_t(world), -1);
        const GroupList groups = grid.allGroups(kind);
        for (int g = 0; g < groups.count(); ++g) {
            for (int rank : groups.group(g))
                indices[std::size_t(rank)] = g;
        }
    }

    view.traced.assign(std::size_t(world), 0);
    for (int rank : selectTraceRanks(grid, selection))
        view.traced[std::size_t(rank)] = 1;
    return view;
}

} // namespace stratex::ui
