// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

#include "core/galvatron/cost_settings.h"
#include "core/profile/comm_model.h"
#include "core/profile/memory_model.h"
#include "core/profile/profile_set.h"
#include "core/profile/time_model.h"

namespace stratex::galvatron {

// The profile numbers the cost formulas read, resolved for one setting (time and memory modes,
// sequence length, sequence parallelism, world size). Plain data: tests inject exact values (e.g.
// Galvatron's curve_fit coefficients) by editing a resolved copy.
struct CostInputs {
    profile::TimeModels time;
    profile::MemoryModels memory;
    profile::AllreduceCoefficients allreduce;
    profile::P2pCoefficients p2p;
    double overlap_coe = 1;
    profile::CollectiveTables collectives;
};

// Throws InputError / Error naming the file and key when a profile cannot serve the settings.
CostInputs resolveCostInputs(const profile::ProfileSet& profiles, profile::TimeProfileMode timeMode,
    profile::MemoryProfileMode memoryMode, const CostSettings& settings);

// Galvatron main's cost model (docs/galvatron-search.md §3, §4) bound to its inputs. The
// formulas live in layer_time, layer_memory, embedding_cost, inter_layer_cost and pipeline_cost.
class CostModel {
public:
    CostModel(CostInputs inputs, CostSettings settings);

    const CostInputs& inputs() const { return m_inputs; }
    const CostSettings& settings() const { return m_settings; }
    int numLayers() const { return m_settings.model.num_layers; }

    // Samples per replica per micro-batch: Galvatron's gbsz // chunks // dp, or with honest
    // rounding the busiest replica's ceil(gbsz / (chunks * dp)). Identical when it divides.
    std::int64_t localBatch(int gbsz, int chunks, int dp) const;

    // Bytes per element of activations sent between ranks (2 when mixed precision, else 4).
    int activationBytes() const { return m_settings.mixed() ? 2 : 4; }

private:
    CostInputs m_inputs;
    CostSettings m_settings;
};

} // namespace stratex::galvatron
