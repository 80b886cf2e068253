// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace stratex::planner {

// One profiled quantity over (mbs, seqlen[, decoder seqlen]), interpolated the way DynaPipe
// does it (docs/dynapipe-planner.md §5): a regular grid over the union of the profiled coordinates,
// each axis extended by one point at twice its maximum, every cell that was not profiled
// (out of memory, or beyond the range) set to 1e100; multilinear interpolation inside, linear
// extrapolation outside. A result that touched a missing cell with a non-zero weight is
// astronomically large (or negative, when extrapolating away from one): those are reported as
// +infinity, "infeasible".
class DynapipeCostGrid {
public:
    static constexpr int kMaxDimensions = 3;
    static constexpr double kMissingValue = 1e100;
    // Anything this large in magnitude came from a missing cell.
    static constexpr double kInfeasibleMagnitude = 1e30;

    struct Point {
        std::array<int, kMaxDimensions> coords {};
        double value = 0;
    };

    DynapipeCostGrid() = default;
    // dimensions: 2 for (mbs, seqlen), 3 for (mbs, enc_seqlen, dec_seqlen). Points must be
    // unique and non-empty (the loader checks that and names the file position).
    DynapipeCostGrid(int dimensions, const std::vector<Point>& points);

    bool empty() const { return m_values.empty(); }
    int dimensions() const { return m_dimensions; }
    const std::vector<double>& axis(int dimension) const { return m_axes[static_cast<std::size_t>(dimension)]; }

    // x has dimensions() coordinates; returns +infinity when infeasible.
    double evaluate(const std::array<double, kMaxDimensions>& x) const;

private:
    std::size_t cellIndex(const std::array<std::size_t, kMaxDimensions>& index) const;

    int m_dimensions = 0;
    std::array<std::vector<double>, kMaxDimensions> m_axes;
    std::array<std::size_t, kMaxDimensions> m_strides {};
    std::vector<double> m_values;
};

} // namespace stratex::planner
