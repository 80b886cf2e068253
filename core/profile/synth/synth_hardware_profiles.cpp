// SPDX-License-Identifier: GPL-3.0-or-later
// The cluster half of a synthesized profile set: what Galvatron's hardware profiler would write
// for all-reduce bus bandwidth, pipeline p2p bandwidth and the TP/SP collective latencies.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/profile/synth/profile_synthesizer.h"
#include "core/profile/synth/synth_rounding.h"

namespace stratex::profile::synth {

namespace {

// NCCL reaches about this fraction of the NICs' line rate on rings that cross nodes.
constexpr double kNetworkEfficiency = 0.8;
// Per-collective launch and synchronisation latency.
constexpr double kIntraNodeLatencyMs = 0.05;
constexpr double kInterNodeLatencyMs = 0.1;

// A calibrated cluster (stratex-cli calibrate) brings its measured scale on the datasheet
// bandwidths, inside and across nodes, in place of the typical NCCL fraction.
double crossNodeEfficiency(const hardware::ClusterDescription& cluster)
{
    return cluster.efficiency ? cluster.efficiency->network : kNetworkEfficiency;
}

double intraNodeEfficiency(const hardware::ClusterDescription& cluster)
{
    return cluster.efficiency ? cluster.efficiency->network : 1.0;
}

// A collective's latency: calibrated, the cost model's per-step latency over log2(size) ring or
// tree steps (hardware::HardwareModel), twice for an all-reduce.
double collectiveLatencyMs(const hardware::ClusterDescription& cluster, int size, bool crossesNodes)
{
    if (cluster.efficiency)
        return 2 * cluster.efficiency->collective_latency_us * 1e-3 * std::ceil(std::log2(std::max(2, size)));
    return crossesNodes ? kInterNodeLatencyMs : kIntraNodeLatencyMs;
}

// Where a group of `size` ranks, `stride` apart, lands on the cluster.
struct GroupPlacement {
    int ranksPerNode = 1;
    int nodes = 1;
};

GroupPlacement placement(const hardware::ClusterDescription& cluster, int size, int stride)
{
    const int perNode = stride >= cluster.gpus_per_node ? 1 : std::min(size, cluster.gpus_per_node / stride);
    return { perNode, size / perNode };
}

// Bus bandwidth of an all-reduce ring over the group: NVLink inside a node; across nodes the ring
// is limited by the NICs of the group's GPUs on one node.
double busBandwidth(const hardware::ClusterDescription& cluster, const GroupPlacement& group)
{
    const hardware::GpuDescription& gpu = cluster.gpu;
    if (group.nodes == 1)
        return gpu.intra_node_bus_gb_per_s * intraNodeEfficiency(cluster);
    return std::min(gpu.intra_node_bus_gb_per_s, gpu.network_gb_per_s_per_gpu * group.ranksPerNode)
        * crossNodeEfficiency(cluster);
}

std::vector<int> groupSizes(const hardware::ClusterDescription& cluster)
{
    std::vector<int> sizes;
    for (int size = cluster.worldSize(); size >= 2; size /= 2)
        sizes.push_back(size);
    return sizes;
}

} // namespace

nlohmann::ordered_json synthesizeAllreduceProfile(const hardware::ClusterDescription& cluster)
{
    // consec_1: consecutive ranks (a TP group); consec_0: ranks world/size apart (a DP group).
    nlohmann::ordered_json file;
    const int world = cluster.worldSize();
    for (int size : groupSizes(cluster)) {
        const std::string prefix = "allreduce_size_" + std::to_string(size);
        file[prefix + "_consec_1"] = roundedGbPerS(busBandwidth(cluster, placement(cluster, size, 1)));
        if (size < world)
            file[prefix + "_consec_0"] = roundedGbPerS(busBandwidth(cluster, placement(cluster, size, world / size)));
    }
    return file;
}

nlohmann::ordered_json synthesizeP2pProfile(const hardware::ClusterDescription& cluster)
{
    // A pipeline group spans the whole rank range, so on more than one node its slowest hop
    // crosses the network. Inside a node more stages share the NVLink switch: about 10 % less per
    // doubling.
    nlohmann::ordered_json file;
    const hardware::GpuDescription& gpu = cluster.gpu;
    double intraNode = gpu.intra_node_p2p_gb_per_s * intraNodeEfficiency(cluster);
    for (int stages = 2; stages <= cluster.worldSize(); stages *= 2) {
        const double bandwidth
            = cluster.num_nodes > 1 ? gpu.network_gb_per_s_per_gpu * crossNodeEfficiency(cluster) : intraNode;
        file["pp_size_" + std::to_string(stages)] = roundedGbPerS(bandwidth);
        intraNode *= 0.9;
    }
    return file;
}

nlohmann::ordered_json synthesizeSpTimeProfile(const hardware::ClusterDescription& cluster)
{
    // TP and Ulysses-SP groups are consecutive ranks. Message sizes as Galvatron profiles them:
    // 1 MB .. 1 GB. All-reduce moves 2(g-1)/g of the message per GPU, all-to-all (g-1)/g.
    nlohmann::ordered_json file;
    for (const bool allToAll : { false, true }) {
        const std::string prefix = allToAll ? "all2all_size_" : "allreduce_size_";
        for (int size : groupSizes(cluster)) {
            const GroupPlacement group = placement(cluster, size, 1);
            const double bandwidth = busBandwidth(cluster, group);
            const double latency = collectiveLatencyMs(cluster, size, group.nodes > 1);
            const double share = (allToAll ? 1.0 : 2.0) * (size - 1) / size;
            for (int mb = 1; mb <= 1024; mb *= 2) {
                file[prefix + std::to_string(size) + "_" + std::to_string(mb) + "MB_time"]
                    = roundedMs(latency + mb * share / bandwidth);
            }
        }
    }
    return file;
}

} // namespace stratex::profile::synth
