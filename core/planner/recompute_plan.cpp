// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/recompute_plan.h"

#include "core/common/error.h"

namespace stratex::planner {

RecomputePlan::RecomputePlan(const std::vector<int>& microbatchIds, int devices, RecomputeType initial)
    : m_devices(devices)
{
    for (int id : microbatchIds)
        m_types[id] = std::vector<RecomputeType>(static_cast<std::size_t>(devices), initial);
}

const std::vector<RecomputeType>& RecomputePlan::ofMicrobatch(int microbatchId) const
{
    const auto it = m_types.find(microbatchId);
    if (it == m_types.end())
        throw Error("recompute plan has no micro-batch " + std::to_string(microbatchId));
    return it->second;
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
    const auto it = m_types.find(microbatchId);
    if (it == m_types.end() || device < 0 || device >= m_devices)
        throw Error("recompute plan has no (micro-batch " + std::to_string(microbatchId) + ", device "
            + std::to_string(device) + ")");
    it->second[static_cast<std::size_t>(device)] = type;
}

std::vector<int> RecomputePlan::microbatchIds() const
{
    std::vector<int> ids;
    for (const auto& [id, types] : m_types)
        ids.push_back(id);
    return ids;
}

int RecomputePlan::countDifferentFrom(RecomputeType type) const
{
    int count = 0;
    for (const auto& [id, types] : m_types) {
        for (RecomputeType t : types)
            count += t != type;
    }
    return count;
}

} // namespace stratex::planner
