// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/cost_model.h"

namespace stratex::galvatron {

CostInputs resolveCostInputs(const profile::ProfileSet& profiles, profile::TimeProfileMode timeMode,
    profile::MemoryProfileMode memoryMode, const CostSettings& settings)
{
    CostInputs inputs;
    inputs.time = profile::resolveTimeModels(profiles.model.computation, timeMode, settings.model.seq_length);
    inputs.memory = profile::resolveMemoryModels(
        profiles.model.memory, memoryMode, settings.model.seq_length, settings.sequence_parallel);
    inputs.allreduce = profile::AllreduceCoefficients::resolve(profiles.hardware.allreduce, settings.world);
    inputs.p2p = profile::P2pCoefficients::resolve(profiles.hardware.p2p);
    inputs.overlap_coe = profiles.hardware.overlap.overlap_coe;
    inputs.collectives = profile::CollectiveTables::resolve(profiles.hardware.spTime);
    return inputs;
}

CostModel::CostModel(CostInputs inputs, CostSettings settings)
    : m_inputs(std::move(inputs))
    , m_settings(std::move(settings))
{
}

std::int64_t CostModel::localBatch(int gbsz, int chunks, int dp) const
{
    const std::int64_t perStep = std::int64_t(chunks) * dp;
    if (m_settings.batch_rounding == BatchRounding::GalvatronFloor)
        return std::int64_t(gbsz) / chunks / dp;
    return (std::int64_t(gbsz) + perStep - 1) / perStep;
}

} // namespace stratex::galvatron
