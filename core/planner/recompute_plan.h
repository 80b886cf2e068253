// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "core/planner/recompute_type.h"

namespace stratex::planner {

// Recompute type of every (micro-batch, device) pair: all layers of a micro-batch on one device
// share it. Keyed by the micro-batch's stable id, never by its position in a permuted order, so
// a permutation cannot make an adjustment land on the wrong micro-batch (the bug of the DynaPipe
// fork, docs/dynapipe-planner.md §4).
class RecomputePlan {
public:
    RecomputePlan() = default;
    RecomputePlan(const std::vector<int>& microbatchIds, int devices, RecomputeType initial);

    RecomputeType at(int microbatchId, int device) const;
    void set(int microbatchId, int device, RecomputeType type);
    int deviceCount() const { return m_devices; }
    std::vector<int> microbatchIds() const;
    // The per-device types of one micro-batch.
    const std::vector<RecomputeType>& ofMicrobatch(int microbatchId) const;
    // How many (micro-batch, device) pairs differ from `type`.
    int countDifferentFrom(RecomputeType type) const;

    bool operator==(const RecomputePlan&) const = default;

private:
    // The slot of an id in m_ids (sorted, so lookups are a binary search over contiguous ints:
    // the search asks millions of times per plan), or -1.
    int slotOf(int microbatchId) const;

    int m_devices = 0;
    std::vector<int> m_ids; // ascending
    std::vector<std::vector<RecomputeType>> m_types; // per slot, per device
};

} // namespace stratex::planner
