// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <vector>

#include "core/ranks/rank_grid.h"
#include "core/ranks/rank_warnings.h"
#include "core/ranks/tracer_plan.h"

namespace stratex::controllers {

// Everything the rank grid widget needs to paint and answer hovers, computed once per layout on
// a worker thread (RanksController): which band (pipeline stage) and position each rank takes, the group index of
// each rank for every group kind (the colouring), and the tracer's selection. How a band wraps
// into rows is the widget's choice (RankGridGeometry), so fitting never recomputes this.
struct RankGridView {
    ranks::RankGrid grid;
    std::vector<ranks::LayoutWarning> warnings;

    int ranksPerBand = 1;
    // Rank -> index inside its stage band (ranks of a band in ascending order).
    std::vector<int> indexInBand;
    // Band position -> rank, band by band: bandRanks[stage * ranksPerBand + index].
    std::vector<int> bandRanks;
    // Group index of every rank for every kind (-1: in no group of that kind).
    std::array<std::vector<int>, ranks::kGroupKindCount> groupIndex;
    std::vector<char> traced; // 1 where the tracer runs this rank (dense selection)

    int world() const { return grid.world(); }
    int stages() const { return grid.sizes().pp; }
    int stageOf(int rank) const { return grid.decoderGrid().coordinate(rank, ranks::Dim::Pp); }
    // The rank at a position of a band, or -1 past its end.
    int rankInBand(int stage, int index) const
    {
        if (stage < 0 || stage >= stages() || index < 0 || index >= ranksPerBand)
            return -1;
        return bandRanks[std::size_t(stage) * std::size_t(ranksPerBand) + std::size_t(index)];
    }
};

// O(world) plus O(world) per group kind; throws stratex::Error for an invalid configuration.
RankGridView buildRankGridView(const ranks::ParallelConfig& config, ranks::TraceSelection selection);

} // namespace stratex::controllers
