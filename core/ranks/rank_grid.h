// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include "core/common/input_limits.h"
#include "core/ranks/group_kind.h"
#include "core/ranks/orthogonal_grid.h"
#include "core/ranks/parallel_config.h"

namespace stratex::ranks {

inline constexpr int kMaxWorld = limits::kMaxWorld;

// Sizes of every dimension once DP and expert-DP are derived.
struct ParallelSizes {
    int world = 1;
    int tp = 1;
    int cp = 1;
    int ep = 1;
    int dp = 1;
    int pp = 1;
    int etp = 1;
    int edp = 1;
};

// Where one rank sits: decoder coordinates (tp, cp, dp, pp), expert coordinates (etp, ep, edp;
// pp is shared) and its node.
struct RankCoordinates {
    int rank = 0;
    int node = 0;
    int localRank = 0; // index within its node
    int tp = 0;
    int cp = 0;
    int dp = 0;
    int pp = 0;
    int etp = 0;
    int ep = 0;
    int edp = 0;
    bool operator==(const RankCoordinates&) const = default;
};

// Megatron-LM's rank layout and process groups (parallel_state.initialize_model_parallel): a
// decoder RankGenerator (tp, cp, dp, pp) and an expert RankGenerator (etp, ep, edp, pp) over the
// same order string. Cheap to copy; creating one is O(world) only for a consistency check.
class RankGrid {
public:
    // Validates the configuration with Megatron's rules; throws stratex::Error with a one-line
    // reason when Megatron would refuse it.
    static RankGrid create(const ParallelConfig& config);

    const ParallelConfig& config() const { return m_config; }
    const ParallelSizes& sizes() const { return m_sizes; }
    int world() const { return m_sizes.world; }
    int gpusPerNode() const { return m_config.gpusPerNode; }
    int nodeCount() const { return (world() + gpusPerNode() - 1) / gpusPerNode(); }
    int nodeOf(int rank) const { return rank / gpusPerNode(); }
    std::string orderName() const; // the order as the user gave it, lower-cased

    RankCoordinates coordinates(int rank) const;
    int decoderRank(int tp, int cp, int dp, int pp) const;
    int expertRank(int etp, int ep, int edp, int pp) const;

    int groupSize(GroupKind kind) const;
    int groupCount(GroupKind kind) const;
    // Index of the group of `kind` that holds `rank` in allGroups(kind), or -1 when the rank is in
    // none (the embedding groups only hold the first and last pipeline stage).
    int groupIndexOf(GroupKind kind, int rank) const;
    // The group of `kind` that holds `rank`, members ascending; empty when there is none.
    std::vector<int> groupOf(GroupKind kind, int rank) const;
    // Every group of `kind`, in Megatron's order.
    GroupList allGroups(GroupKind kind) const;

    const OrthogonalGrid& decoderGrid() const { return m_decoder; }
    const OrthogonalGrid& expertGrid() const { return m_expert; }

private:
    const OrthogonalGrid& gridFor(GroupKind kind) const;

    ParallelConfig m_config;
    ParallelSizes m_sizes;
    OrthogonalGrid m_decoder;
    OrthogonalGrid m_expert;
};

} // namespace stratex::ranks
