// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/ranks/orthogonal_grid.h"

namespace stratex::ranks {

OrthogonalGrid::OrthogonalGrid(const RankOrder& order, const DimSizes& sizes)
    : m_order(order)
    , m_sizes(sizes)
{
    int stride = 1;
    for (Dim dim : order.dims()) {
        m_strides[static_cast<int>(dim)] = stride;
        stride *= m_sizes[static_cast<int>(dim)];
    }
    m_world = stride;
}

DimSizes OrthogonalGrid::coordinates(int rank) const
{
    DimSizes result {};
    for (int i = 0; i < kDimCount; ++i)
        result[i] = (rank / m_strides[i]) % m_sizes[i];
    return result;
}

int OrthogonalGrid::rankAt(const DimSizes& coordinates) const
{
    int rank = 0;
    for (int i = 0; i < kDimCount; ++i)
        rank += coordinates[i] * m_strides[i];
    return rank;
}

OrthogonalGrid::Split OrthogonalGrid::split(DimMask mask) const
{
    Split result;
    for (Dim dim : m_order.dims()) {
        const Axis axis { size(dim), stride(dim) };
        if (mask & maskOf(dim))
            result.inside.push_back(axis);
        else
            result.outside.push_back(axis);
    }
    return result;
}

int OrthogonalGrid::groupSize(DimMask mask) const
{
    int result = 1;
    for (int i = 0; i < kDimCount; ++i) {
        if (mask & (1u << i))
            result *= m_sizes[i];
    }
    return result;
}

int OrthogonalGrid::groupIndexOf(int rank, DimMask mask) const
{
    int index = 0;
    int radix = 1;
    for (Dim dim : m_order.dims()) {
        if (mask & maskOf(dim))
            continue;
        index += coordinate(rank, dim) * radix;
        radix *= size(dim);
    }
    return index;
}

std::vector<int> OrthogonalGrid::groupOf(int rank, DimMask mask) const
{
    const Split axes = split(mask);
    int base = 0; // contribution of the coordinates outside the group, shared by all members
    for (const Axis& axis : axes.outside)
        base += ((rank / axis.stride) % axis.size) * axis.stride;

    std::vector<int> members = combinationOffsets(axes.inside);
    for (int& member : members)
        member += base;
    return members;
}

GroupList OrthogonalGrid::allGroups(DimMask mask) const
{
    const Split axes = split(mask);
    const std::vector<int> insideOffsets = combinationOffsets(axes.inside);
    const std::vector<int> groupBases = combinationOffsets(axes.outside);

    GroupList result;
    result.groupSize = static_cast<int>(insideOffsets.size());
    result.members.resize(std::size_t(m_world));
    int* out = result.members.data();
    for (int base : groupBases) {
        for (int offset : insideOffsets)
            *out++ = base + offset;
    }
    return result;
}

std::vector<int> OrthogonalGrid::combinationOffsets(const std::vector<Axis>& axes)
{
    std::size_t count = 1;
    for (const Axis& axis : axes)
        count *= std::size_t(axis.size);
    std::vector<int> offsets(count);
    // Odometer, first axis fastest: the same enumeration order as Megatron's decompose().
    std::vector<int> digit(axes.size(), 0);
    int offset = 0;
    for (int& value : offsets) {
        value = offset;
        for (std::size_t a = 0; a < axes.size(); ++a) {
            offset += axes[a].stride;
            if (++digit[a] < axes[a].size)
                break;
            offset -= axes[a].stride * axes[a].size;
            digit[a] = 0;
        }
    }
    return offsets;
}

} // namespace stratex::ranks
