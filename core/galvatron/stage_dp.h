// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "core/common/progress.h"

namespace stratex::galvatron {

// One pipeline stage's knapsack over layers (docs/galvatron-search.md §5.3, §5.4): pick a
// strategy per layer so that the summed weights (MB) stay within a budget and the summed time
// (per-layer time + transition cost from the previous layer's strategy) is minimal, with
// Galvatron's exact tie-breaking (the lowest strategy index among equal candidates).
//
// Galvatron fills a dense table f[m][s] for every MB m = 0 .. M. Here each column f[.][s] is kept
// as the list of MB values where its (value, argmin) changes: f only ever decreases with m and
// changes a few hundred times over tens of thousands of MB. A layer is computed from the change
// points of the previous one: when candidate a improves at m', every target s only compares the
// new candidate with its current best (O(1)), so a layer costs O(changes x strategies) instead of
// O(M x strategies^2). Values, argmins and therefore plans are bit-identical to the dense table.
class StageDp {
public:
    struct Problem {
        int budget_mb = 0; // M: table rows 0 .. M
        int layers = 0; // layers to compute
        int strategies = 0; // S
        const int* weight_mb = nullptr; // [S], every weight >= 1
        const double* intra_s = nullptr; // [S] per-layer time
        const double* inter_s = nullptr; // [S * S], row former, column latter; diagonal 0, no negative entry
        // Highest row any read-out will ask for (default: the budget) and the layer counts it
        // will be read at (default: `layers` only). Rows no read-out can reach are not computed:
        // every later layer consumes at least the smallest weight.
        int max_row = -1;
        std::span<const int> read_depths;
    };

    struct Readout {
        bool feasible = false;
        double objective_s = std::numeric_limits<double>::infinity(); // f[row][s*]
        int remaining_mb = -1;
    };

    // Computes layers 0 .. problem.layers-1 (previous contents are discarded, capacity kept).
    // Checks `cancel` once per layer and throws Cancelled.
    void run(const Problem& problem, const ProgressSink* cancel = nullptr);

    int depth() const { return m_depth; }
    int strategies() const { return m_strategies; }

    // Reads the table of `layers` layers (<= depth) at row `row` and writes the chosen strategy
    // index of each layer to plan[0 .. layers). row < 0 or no finite cell: infeasible.
    Readout readout(int row, int layers, std::span<int> plan) const;

    // Value of f[row][s] after `layers` layers (+inf when none), for tests.
    double value(int layers, int row, int strategy) const;
    std::size_t segmentCount() const { return m_segments.size(); }

private:
    struct Segment {
        std::int32_t start_mb;
        std::int32_t mark;
        double value;
    };
    struct Event {
        std::int32_t start_mb;
        std::int32_t strategy;
        double value;
    };

    const Segment* find(int layer, int strategy, int row) const;
    void collectEvents(int layer);
    void addEvent(std::int32_t startMb, std::int32_t strategy, double value);
    void sortEvents();

    int m_budget = 0;
    int m_strategies = 0;
    int m_depth = 0;
    std::vector<int> m_weights;
    std::vector<Segment> m_segments; // all layers, column by column
    std::vector<std::uint32_t> m_offsets; // (layer * S + s) -> first segment; size depth * S + 1

    std::vector<int> m_rowLimit; // per layer: highest row computed

    // Workspace reused across runs: no allocation once warm.
    std::vector<Event> m_events; // unsorted, then linked into MB buckets
    std::vector<std::int32_t> m_bucketHead; // [M + 1], -1 = empty
    std::vector<std::int32_t> m_bucketNext; // per event
    std::vector<std::uint64_t> m_bucketBits; // occupied buckets
    std::vector<std::int32_t> m_order; // event indices in ascending MB
    std::vector<double> m_bestValue; // running best per target s
    std::vector<double> m_bestIndex; // as double: keeps every lane 64-bit for vectorisation
    std::vector<double> m_lastValue; // last emitted per target s
    std::vector<double> m_lastIndex;
    std::vector<double> m_limit; // per target s: highest m' whose row m' + w_s is computed
    std::vector<std::vector<Segment>> m_columns;
};

} // namespace stratex::galvatron
