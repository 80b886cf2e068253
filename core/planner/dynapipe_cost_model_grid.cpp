// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/dynapipe_cost_model_grid.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stratex::planner {

DynapipeCostGrid::DynapipeCostGrid(int dimensions, const std::vector<Point>& points)
    : m_dimensions(dimensions)
{
    if (points.empty())
        return;
    std::size_t cells = 1;
    for (int d = m_dimensions - 1; d >= 0; --d) {
        auto& axis = m_axes[static_cast<std::size_t>(d)];
        for (const Point& point : points)
            axis.push_back(point.coords[static_cast<std::size_t>(d)]);
        std::sort(axis.begin(), axis.end());
        axis.erase(std::unique(axis.begin(), axis.end()), axis.end());
        axis.push_back(2 * axis.back());
        m_strides[static_cast<std::size_t>(d)] = cells;
        cells *= axis.size();
    }
    m_values.assign(cells, kMissingValue);
    for (const Point& point : points) {
        std::array<std::size_t, kMaxDimensions> index {};
        for (int d = 0; d < m_dimensions; ++d) {
            const auto& axis = m_axes[static_cast<std::size_t>(d)];
            const double coord = point.coords[static_cast<std::size_t>(d)];
            index[static_cast<std::size_t>(d)]
                = static_cast<std::size_t>(std::lower_bound(axis.begin(), axis.end(), coord) - axis.begin());
        }
        m_values[cellIndex(index)] = point.value;
    }
}

std::size_t DynapipeCostGrid::cellIndex(const std::array<std::size_t, kMaxDimensions>& index) const
{
    std::size_t cell = 0;
    for (int d = 0; d < m_dimensions; ++d)
        cell += index[static_cast<std::size_t>(d)] * m_strides[static_cast<std::size_t>(d)];
    return cell;
}

double DynapipeCostGrid::evaluate(const std::array<double, kMaxDimensions>& x) const
{
    if (m_values.empty())
        return std::numeric_limits<double>::infinity();
    // Interval per axis: the last grid point <= x, clamped so that x below the first or beyond
    // the last point extrapolates from the outermost interval.
    std::array<std::size_t, kMaxDimensions> lower {};
    std::array<double, kMaxDimensions> fraction {};
    for (int d = 0; d < m_dimensions; ++d) {
        const auto& axis = m_axes[static_cast<std::size_t>(d)];
        const double value = x[static_cast<std::size_t>(d)];
        auto it = std::upper_bound(axis.begin(), axis.end(), value);
        std::size_t i = it == axis.begin() ? 0 : static_cast<std::size_t>(it - axis.begin()) - 1;
        i = std::min(i, axis.size() - 2);
        lower[static_cast<std::size_t>(d)] = i;
        fraction[static_cast<std::size_t>(d)] = (value - axis[i]) / (axis[i + 1] - axis[i]);
    }
    // Corners in the order (0,0), (0,1), (1,0), (1,1), each weighted by the product of its
    // per-axis weights, summed in that order (the order scipy uses, so results agree to the bit
    // in practice).
    double result = 0;
    const unsigned corners = 1u << m_dimensions;
    for (unsigned corner = 0; corner < corners; ++corner) {
        double weight = 1;
        std::array<std::size_t, kMaxDimensions> index {};
        for (int d = 0; d < m_dimensions; ++d) {
            const bool upper = (corner >> (m_dimensions - 1 - d)) & 1u;
            const std::size_t di = static_cast<std::size_t>(d);
            index[di] = lower[di] + (upper ? 1 : 0);
            weight = weight * (upper ? fraction[di] : 1 - fraction[di]);
        }
        result = result + m_values[cellIndex(index)] * weight;
    }
    if (!(std::fabs(result) < kInfeasibleMagnitude))
        return std::numeric_limits<double>::infinity();
    return result;
}

} // namespace stratex::planner
