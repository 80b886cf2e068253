// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/hardware/cluster_description.h"
#include "core/hardware/hardware_model.h"
#include "core/model/model_description.h"
#include "core/model/model_presets.h"

namespace stratex::test {

// GPT-3 175B as Korthikanti et al. cost it (their Table 3): dropout, LayerNorm, 4h GeLU MLP.
inline model::ModelDescription gpt175b()
{
    return model::modelPreset("gpt3-175b");
}

// `nodes` DGX-style nodes of the GPU preset `gpu` (8 GPUs each) with the preset's fitted
// efficiencies: the clusters the cost-model suites cost their Megatron strategies on.
inline hardware::HardwareModel gpus(const char* gpu, int nodes)
{
    hardware::ClusterDescription cluster;
    cluster.gpu = hardware::gpuPreset(gpu);
    cluster.num_nodes = nodes;
    cluster.gpus_per_node = 8;
    return hardware::HardwareModel(cluster, hardware::efficiencyFor(cluster.gpu));
}

inline hardware::HardwareModel a100s(int nodes)
{
    return gpus("a100-80gb", nodes);
}

} // namespace stratex::test
