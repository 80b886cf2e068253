// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <algorithm>
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
    // Ranks one cell stands for: 1, or the TP size in an overview (overviewOf). Then a band
    // position is a TP group, bandRanks holds its first rank, and indexInBand of every member
    // points at its group's cell.
    int ranksPerCell = 1;

    bool isOverview() const { return ranksPerCell > 1; }
    // Cells per node: node boundaries line up where a band wraps at a multiple of this.
    int nodeCells() const { return std::max(1, grid.gpusPerNode() / ranksPerCell); }

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

// The overview of a laid-out grid for thousands of ranks: one cell per tensor-parallel group (TP
// groups never cross a pipeline stage, docs/megatron-ranks.md), in the band order of their first
// rank; a group is traced when any of its ranks is. A view with TP 1 comes back as it is. O(world).
RankGridView overviewOf(const RankGridView& detail);

} // namespace stratex::controllers
