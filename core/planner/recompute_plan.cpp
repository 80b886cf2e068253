// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/recompute_plan.h"

#include <algorithm>

#include "core/common/error.h"

namespace stratex::planner {

RecomputePlan::RecomputePlan(const std::vector<int>& microbatchIds, int devices, RecomputeType initial)
    : m_devices(devices)
    , m_ids(microbatchIds)
{
    std::sort(m_ids.begin(), m_ids.end());
    m_ids.erase(std::unique(m_ids.begin(), m_ids.end()), m_ids.end());
    m_types.assign(m_ids.size(), std::vector<RecomputeType>(static_cast<std::size_t>(devices), initial));
}

int RecomputePlan::slotOf(int microbatchId) const
{
    const auto it = std::lower_bound(m_ids.begin(), m_ids.end(), microbatchId);
    return it != m_ids.end() && *it == microbatchId ? static_cast<int>(it - m_ids.begin()) : -1;
}

const std::vector<RecomputeType>& RecomputePlan::ofMicrobatch(int microbatchId) const
{
    const int slot = slotOf(microbatchId);
    if (slot < 0)
        throw Error("recompute plan has no micro-batch " + std::to_string(microbatchId));
    return m_types[static_cast<std::size_t>(slot)];
}

RecomputeType RecomputePlan::at(int microbatchId, int device) const
{
    const std::vector<RecomputeType>& types = ofMicrobatch(microbatchId);
    if (device < 0 || device >= m_devices)
        throw Error("recompute plan has no device " + std::to_string(device));
    return types[static_cast<std::size_t>(device)];
}

void RecomputePlan::set(int microbatchId, int device, RecomputeType type)
{
    const int slot = slotOf(microbatchId);
    if (slot < 0 || device < 0 || device >= m_devices)
        throw Error("recompute plan has no (micro-batch " + std::to_string(microbatchId) + ", device "
            + std::to_string(device) + ")");
    m_types[static_cast<std::size_t>(slot)][static_cast<std::size_t>(device)] = type;
}

std::vector<int> RecomputePlan::microbatchIds() const
{
    return m_ids;
}

int RecomputePlan::countDifferentFrom(RecomputeType type) const
{
    int count = 0;
    for (const std::vector<RecomputeType>& types : m_types) {
        for (RecomputeType t : types)
            count += t != type;
    }
    return count;
}

} // namespace stratex::planner
