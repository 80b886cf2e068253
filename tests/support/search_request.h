// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/hardware/hardware_model.h"
#include "core/megatron/strategy_search.h"
#include "core/model/model_presets.h"

namespace stratex::test {

// A one-thread stratex search of a preset model on `nodes` x `gpusPerNode` GPUs of a preset, with
// the preset's fitted efficiencies: what the search suites (tst_strategy_search,
// tst_plan_robustness) search.
inline megatron::StrategySearchRequest searchRequest(
    const char* model, const char* gpu, int nodes, int gpusPerNode, int globalBatch)
{
    megatron::StrategySearchRequest r;
    r.model = model::modelPreset(model);
    r.cluster.gpu = hardware::gpuPreset(gpu);
    r.cluster.num_nodes = nodes;
    r.cluster.gpus_per_node = gpusPerNode;
    r.efficiency = hardware::efficiencyFor(r.cluster.gpu);
    r.global_batch_size = globalBatch;
    r.threads = 1;
    return r;
}

} // namespace stratex::test
