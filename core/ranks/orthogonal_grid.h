// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/ranks/rank_order.h"

namespace stratex::ranks {

// A set of dimensions by mask: bit i set <=> Dim(i) is inside the group.
using DimMask = std::uint8_t;
constexpr DimMask maskOf(Dim dim)
{
    return static_cast<DimMask>(1u << static_cast<int>(dim));
}

// Every group of one kind, stored flat: group g is members[g*groupSize .. (g+1)*groupSize).
struct GroupList {
    int groupSize = 0;
    std::vector<int> members;

    int count() const { return groupSize > 0 ? static_cast<int>(members.size()) / groupSize : 0; }
    std::span<const int> group(int index) const
    {
        return std::span<const int>(members).subspan(
            std::size_t(index) * std::size_t(groupSize), std::size_t(groupSize));
    }
    bool operator==(const GroupList&) const = default;
};

// Megatron's rank layout for one RankGenerator: a mixed radix over the dimensions in order-string
// order, leftmost fastest. A group of mask X holds the ranks that agree on every dimension
// outside X; groups are numbered by their outside coordinates (first outside dimension fastest)
// and members by their inside coordinates (first inside dimension fastest), exactly as
// generate_masked_orthogonal_rank_groups enumerates them. Queries for one rank cost
// O(group size), never O(world).
class OrthogonalGrid {
public:
    OrthogonalGrid() = default;
    OrthogonalGrid(const RankOrder& order, const DimSizes& sizes);

    int world() const { return m_world; }
    int size(Dim dim) const { return m_sizes[static_cast<int>(dim)]; }
    int stride(Dim dim) const { return m_strides[static_cast<int>(dim)]; }

    int coordinate(int rank, Dim dim) const { return (rank / stride(dim)) % size(dim); }
    DimSizes coordinates(int rank) const;
    int rankAt(const DimSizes& coordinates) const;

    int groupSize(DimMask mask) const;
    int groupCount(DimMask mask) const { return m_world / groupSize(mask); }
    int groupIndexOf(int rank, DimMask mask) const;
    std::vector<int> groupOf(int rank, DimMask mask) const;
    GroupList allGroups(DimMask mask) const;

private:
    struct Axis {
        int size;
        int stride;
    };
    struct Split {
        std::vector<Axis> inside; // masked axes in order (fastest first)
        std::vector<Axis> outside; // the others in order
    };
    Split split(DimMask mask) const;
    // Offsets of every combination of the axes' coordinates, first axis fastest.
    static std::vector<int> combinationOffsets(const std::vector<Axis>& axes);

    RankOrder m_order;
    DimSizes m_sizes {};
    DimSizes m_strides {};
    int m_world = 0;
};

} // namespace stratex::ranks
