// SPDX-License-Identifier: GPL-3.0-or-later
#include "controllers/rank_grid_view.h"

namespace stratex::controllers {

using namespace stratex::ranks;

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

RankGridView overviewOf(const RankGridView& detail)
{
    const int tp = detail.grid.sizes().tp;
    if (tp <= 1 || detail.isOverview())
        return detail;
    RankGridView overview = detail;
    const int world = detail.world();
    const int stages = detail.stages();
    const std::vector<int>& tpGroup = detail.groupIndex[std::size_t(GroupKind::Tp)];
    overview.ranksPerCell = tp;
    overview.ranksPerBand = detail.ranksPerBand / tp;
    overview.bandRanks.assign(std::size_t(stages) * std::size_t(overview.ranksPerBand), -1);
    std::vector<int> cellOfGroup(std::size_t(world / tp), -1);
    std::vector<char> groupTraced(cellOfGroup.size(), 0);
    for (int stage = 0; stage < stages; ++stage) {
        int filled = 0;
        for (int index = 0; index < detail.ranksPerBand; ++index) {
            const int rank = detail.rankInBand(stage, index);
            const std::size_t group = std::size_t(tpGroup[std::size_t(rank)]);
            int& cell = cellOfGroup[group];
            if (cell < 0) {
                cell = filled++;
                overview.bandRanks[std::size_t(stage) * std::size_t(overview.ranksPerBand) + std::size_t(cell)] = rank;
            }
            overview.indexInBand[std::size_t(rank)] = cell;
            groupTraced[group] = char(groupTraced[group] | detail.traced[std::size_t(rank)]);
        }
    }
    for (int rank = 0; rank < world; ++rank)
        overview.traced[std::size_t(rank)] = groupTraced[std::size_t(tpGroup[std::size_t(rank)])];
    return overview;
}

} // namespace stratex::controllers
