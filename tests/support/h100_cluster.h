// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/hardware/cluster_description.h"
#include "core/hardware/hardware_model.h"

namespace stratex::test {

// `nodes` DGX-style H100 SXM nodes (8 GPUs each).
inline hardware::ClusterDescription h100Cluster(int nodes)
{
    hardware::ClusterDescription cluster;
    cluster.gpu = hardware::gpuPreset("h100-80gb");
    cluster.num_nodes = nodes;
    cluster.gpus_per_node = 8;
    return cluster;
}

// h100Cluster with the preset's fitted efficiencies: the cluster the cost-model suites cost their
// Megatron strategies on.
inline hardware::HardwareModel h100s(int nodes)
{
    const hardware::ClusterDescription cluster = h100Cluster(nodes);
    return hardware::HardwareModel(cluster, hardware::efficiencyFor(cluster.gpu));
}

} // namespace stratex::test
