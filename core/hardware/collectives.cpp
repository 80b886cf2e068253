// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/hardware/collectives.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

// Every constant below is NCCL's own, from its tuning model: NVIDIA/nccl src/graph/tuning.cc at
// commit 5067397c2676d5aed50042fc39e5c8ee96eb0027 (ncclTunerConstantsDefaults, ncclTopoTuneModel,
// ncclTopoGetAlgoTime). docs/collectives.md explains the model and lists its reference curves.

namespace stratex::hardware {

namespace {

constexpr int kLL = 0;
constexpr int kLL128 = 1;
constexpr int kSimple = 2;

// baseLatencies [algorithm][protocol] in microseconds (LL, LL128, Simple).
constexpr std::array<double, 3> kTreeBase { 6.8, 14.0, 8.4 };
constexpr std::array<double, 3> kRingBase { 6.6, 14.0, 8.4 };
constexpr double kPatBase = 8.0;
// hwLatencies: per step over NVLink and over the network.
constexpr std::array<double, 3> kTreeNvlink { 0.6, 1.25, 4.0 };
constexpr std::array<double, 3> kRingNvlink { 0.6, 1.9, 3.4 };
constexpr double kNvlsNvlink = 25; // NVLS and NVLS tree, Simple only
constexpr std::array<double, 3> kTreeNet { 5.0, 8.5, 14 };
constexpr std::array<double, 3> kRingNet { 2.7, 4.0, 14.0 };
constexpr double kNvlsTreeNet = 20.9;
constexpr double kNcclNetSimpleUs = 14.0; // what the fitted collective_latency_us replaces
// Network post overhead per ring step on x86 (getNetOverhead: 1 us Intel, x3 for Simple).
constexpr double kNetOverheadUs = 1.0;
// NVLS efficiency: Hopper 0.85, Blackwell 0.74 (nvlsEfficiency[]).
constexpr double kNvlsEfficiencyHopper = 0.85;
constexpr double kNvlsEfficiencyBlackwell = 0.74;
// NCCL builds 16 NVLS channels on an HGX H100/B200 board ((nChannels - 1) / nChannels below).
constexpr double kNvlsChannels = 16;
// LL protocol ceilings (llMaxBws): one node Ampere 87.7 / Hopper 141 GB/s, several x86 nodes 39
// (two) and 20.4 (more).
constexpr double kLlMaxAmpere = 87.7;
constexpr double kLlMaxHopper = 141.0;
constexpr double kLlMaxTwoNodes = 39.0;
constexpr double kLlMaxManyNodes = 20.4;
// treeCorrectionFactor[protocol][log2(bytes / 64)] for all-reduce trees below 512 MB.
constexpr double kTreeCorrection[3][24] = {
    { 1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0 },
    { 1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0 },
    { .9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9 },
};
// What NCCL's Simple/LL128 framing and InfiniBand/RoCE reach of a NIC's line rate: tuning.cc
// applies 120/128 to LL128 and 0.92 to tree bandwidths; nccl-tests at 248 nodes of H200 measure
// 350 GB/s bus bandwidth on 8 x 400 Gb/s NICs (tests/data/nccl-tests/, 0.875 of line rate).
constexpr double kNetAchieved = 0.92;

int log2Floor(double x)
{
    return x < 1 ? 0 : int(std::floor(std::log2(x)));
}

struct Candidate {
    double time_us = std::numeric_limits<double>::infinity();
    NcclAlgorithm algorithm = NcclAlgorithm::Ring;
    NcclProtocol protocol = NcclProtocol::Simple;
};

void consider(Candidate& best, double latencyUs, double algBwGbPerS, double bytes, NcclAlgorithm a, int p)
{
    if (!(algBwGbPerS > 0))
        return;
    // ncclTopoGetAlgoTime: time = latency + bytes / (1000 * bandwidth) in microseconds.
    const double t = latencyUs + bytes / (1e3 * algBwGbPerS);
    if (t < best.time_us)
        best = { t, a, static_cast<NcclProtocol>(p) };
}

} // namespace

const char* algorithmName(NcclAlgorithm algorithm)
{
    switch (algorithm) {
    case NcclAlgorithm::Ring:
        return "ring";
    case NcclAlgorithm::Tree:
        return "tree";
    case NcclAlgorithm::Nvls:
        return "nvls";
    case NcclAlgorithm::NvlsTree:
        return "nvls-tree";
    case NcclAlgorithm::Pat:
        return "pat";
    case NcclAlgorithm::PointToPoint:
        return "p2p";
    }
    return "ring";
}

const char* protocolName(NcclProtocol protocol)
{
    switch (protocol) {
    case NcclProtocol::LL:
        return "LL";
    case NcclProtocol::LL128:
        return "LL128";
    case NcclProtocol::Simple:
        return "Simple";
    }
    return "Simple";
}

namespace {
std::atomic<unsigned long long> g_nextModelId { 1 }; // CollectiveModel's memo ids; 0 is "empty"
} // namespace

CollectiveModel::CollectiveModel(const ClusterDescription& cluster, const Efficiency& efficiency)
    : m_id(g_nextModelId.fetch_add(1, std::memory_order_relaxed))
{
    const NodeTopology topology = cluster.nodeTopology();
    const GpuDescription& gpu = cluster.gpu;
    m_gpusPerNode = std::max(1, cluster.gpus_per_node);
    // A domain is at most the cluster (a cluster file may name any positive size).
    m_domainGpus = topology.nvlink_domain_gpus > 0
        ? std::min(topology.nvlink_domain_gpus, std::max(m_gpusPerNode, cluster.worldSize()))
        : m_gpusPerNode;
    m_nics = topology.nics_per_node > 0 ? topology.nics_per_node : m_gpusPerNode;
    const double scale = efficiency.network;
    m_intraBusGbPerS = gpu.intra_node_bus_gb_per_s * scale;
    m_intraBusDatasheetGbPerS = gpu.intra_node_bus_gb_per_s;
    m_intraP2pGbPerS = gpu.intra_node_p2p_gb_per_s * scale;
    // The preset's network figure is each GPU's share of the node's NICs at line rate.
    m_nicGbPerS = gpu.network_gb_per_s_per_gpu * m_gpusPerNode / m_nics * kNetAchieved * scale;
    m_nvls = topology.nvlink_sharp;
    const std::string& name = gpu.name;
    m_blackwell = name.rfind("b200", 0) == 0 || name.rfind("gb200", 0) == 0 || name.rfind("b100", 0) == 0;
    m_hopperOrNewer = m_blackwell || name.rfind("h100", 0) == 0 || name.rfind("h200", 0) == 0
        || name.rfind("h800", 0) == 0 || name.rfind("h20", 0) == 0;
    m_netLatencyScale
        = efficiency.collective_latency_us > 0 ? efficiency.collective_latency_us / kNcclNetSimpleUs : 1.0;
}

GroupPlacement CollectiveModel::placement(GroupShape group) const
{
    GroupPlacement p;
    const int size = std::max(1, group.size);
    const int stride = std::max(1, group.stride);
    p.ranks_per_node = stride >= m_domainGpus ? 1 : std::clamp(m_domainGpus / stride, 1, size);
    p.nodes = (size + p.ranks_per_node - 1) / p.ranks_per_node;
    return p;
}

int CollectiveModel::ringCtas(GroupShape group) const
{
    // NCCL launches one CTA per channel (src/enqueue.cc; MAXCHANNELS 64, src/include/device.h).
    // Its channel count comes from the topology search (src/graph/search.cc, ncclTopoCompute;
    // src/graph/connect.cc, ncclTopoPostset; NVIDIA/nccl 5067397):
    // - inside an NVSwitch node the search finds rings at the first speed of its array that fits the
    //   GPU's NVLink bandwidth (sm90: 60 GB/s of 18 x 20.6; sm80: 40 of 12 x 20): 6 rings;
    //   ncclTopoDupChannels doubles them (bwIntra >= 50 on sm90, >= 25 before) and ncclTopoPostset
    //   doubles again: 24 channels;
    // - across nodes one ring leaves through each NIC at the NIC's speed (at most 48 GB/s on sm90):
    //   8 rings on a DGX (4 NICs: 4, duplicated to 8 since fewer than 5), doubled by
    //   ncclTopoPostset: 16 channels (sm90 adds "4 compute channels per search channel" only
    //   below 16).
    // A node without NVLink (PCIe: under 100 GB/s of bus bandwidth) gets one ring per direction,
    // doubled: 4. NVLS collectives run their own 16-32 channels; the rings here are what FSDP's
    // all-gathers and reduce-scatters use at its message sizes (computeTime: rings win NVLS for
    // them inside a node).
    constexpr int kNvlinkNodeCtas = 24;
    constexpr int kMultiNodeCtas = 16;
    constexpr int kPcieNodeCtas = 4;
    if (group.size <= 1)
        return 0;
    if (placement(group).nodes > 1)
        return kMultiNodeCtas;
    return m_intraBusDatasheetGbPerS >= 100 ? kNvlinkNodeCtas : kPcieNodeCtas;
}

double CollectiveModel::interNodeGbPerS(GroupShape group) const
{
    const GroupPlacement p = placement(group);
    // GPUs of the node that send across nodes in this phase: this group's and the concurrent
    // groups'. NCCL's rings and trees leave a node through the NICs nearest its ranks (one per GPU
    // on a rail-optimised DGX: no sharing); with fewer NICs than GPUs, active GPUs share them.
    // "Node" here is what placement() counts in: the NVLink domain where it joins several hosts
    // (GB200 NVL72: 72 GPUs, 18 hosts' NICs), else the host.
    const int domainGpus = std::max(m_domainGpus, m_gpusPerNode);
    const int domainNics = int(std::min<long long>(
        static_cast<long long>(m_nics) * (domainGpus / m_gpusPerNode), std::numeric_limits<int>::max()));
    const int groups = group.concurrent > 0 ? group.concurrent : std::max(1, domainGpus / p.ranks_per_node);
    const int active = std::clamp(groups * p.ranks_per_node, p.ranks_per_node, std::max(p.ranks_per_node, domainGpus));
    const double nodeNic = m_nicGbPerS * domainNics;
    const double perRank = nodeNic / std::max(active, domainNics);
    return p.ranks_per_node * perRank;
}

namespace {

// A direct-mapped per-thread memo of CollectiveModel::time(). Each entry names its model by a
// process-wide id (never reused, unlike an address), so a model built later at the same place
// cannot read another's entries; a miss computes, so the result never depends on the memo.
struct MemoEntry {
    unsigned long long model = 0; // 0: empty
    double bytes = 0;
    GroupShape group;
    CollectiveKind kind = CollectiveKind::AllReduce;
    CollectiveTime time;
};

constexpr std::size_t kMemoEntries = 4096;

std::size_t memoSlot(unsigned long long model, CollectiveKind kind, double bytes, GroupShape group)
{
    std::uint64_t bits = 0;
    std::memcpy(&bits, &bytes, sizeof bits);
    std::uint64_t h = bits * 0x9E3779B97F4A7C15ull;
    h ^= (std::uint64_t(std::uint32_t(group.size)) << 32 | std::uint32_t(group.stride)) * 0xC2B2AE3D27D4EB4Full;
    h ^= (std::uint64_t(std::uint32_t(group.concurrent)) << 8 | std::uint64_t(kind)) * 0x165667B19E3779F9ull;
    h ^= model * 0xD6E8FEB86659FD93ull;
    h ^= h >> 29;
    return std::size_t(h % kMemoEntries);
}

} // namespace

CollectiveTime CollectiveModel::time(CollectiveKind kind, double bytes, GroupShape group) const
{
    thread_local std::vector<MemoEntry> memo(kMemoEntries);
    MemoEntry& entry = memo[memoSlot(m_id, kind, bytes, group)];
    // Compare the bits of `bytes` (a NaN equals itself here and is computed once like any other).
    if (entry.model == m_id && entry.kind == kind && std::memcmp(&entry.bytes, &bytes, sizeof bytes) == 0
        && entry.group.size == group.size && entry.group.stride == group.stride
        && entry.group.concurrent == group.concurrent)
        return entry.time;
    const CollectiveTime computed = computeTime(kind, bytes, group);
    entry = { m_id, bytes, group, kind, computed };
    return computed;
}

CollectiveTime CollectiveModel::computeTime(CollectiveKind kind, double bytes, GroupShape group) const
{
    CollectiveTime result;
    const int n = group.size;
    if (n <= 1 || !(bytes > 0))
        return result;
    const GroupPlacement place = placement(group);
    const int nodes = place.nodes;
    const double ppn = place.ranks_per_node;
    const bool multiNode = nodes > 1;
    const double intra = m_intraBusGbPerS;
    const double inter = multiNode ? interNodeGbPerS(group) : std::numeric_limits<double>::infinity();
    // Ring/tree bus bandwidth: every ring crosses NVLink inside a node and the NICs between nodes.
    const double bus = std::min(intra, inter);
    const double netLat = m_netLatencyScale;
    Candidate best;

    if (kind == CollectiveKind::AllToAll) {
        // NCCL runs all-to-all as grouped send/recv to every peer (no tuner entry): the share for
        // peers inside the node goes over NVLink, the rest over the NICs, both at once.
        result.time_s = splitAllToAllS(bytes * (ppn - 1) / n, bytes * (n - ppn) / n, group);
        result.algorithm = NcclAlgorithm::PointToPoint;
        return result;
    }

    const bool allReduce = kind == CollectiveKind::AllReduce;
    const double nsteps = allReduce ? 2.0 * (n - 1) : double(n - 1);
    const double interSteps = !multiNode ? 0.0 : allReduce ? 2.0 * (nodes - 1) : double(nodes - 1);
    const double llMax = !multiNode ? (m_hopperOrNewer ? kLlMaxHopper : kLlMaxAmpere)
        : nodes == 2                ? kLlMaxTwoNodes
                                    : kLlMaxManyNodes;

    // Ring, three protocols.
    for (int p = kLL; p <= kSimple; ++p) {
        double busBw = bus;
        if (p == kLL)
            busBw = std::min(llMax, busBw * 0.5);
        if (p == kLL128)
            busBw *= 0.92;
        double intraLat = kRingNvlink[std::size_t(p)];
        // With one rank per node every step is a network step: NCCL then uses the tree's latency.
        double interLat = (ppn == 1 ? kTreeNet[std::size_t(p)] : kRingNet[std::size_t(p)]) * netLat;
        if (multiNode)
            intraLat = std::max(intraLat, p == kSimple ? 3 * kNetOverheadUs : kNetOverheadUs);
        double latency = kRingBase[std::size_t(p)] + (nsteps - interSteps) * intraLat + interSteps * interLat;
        // Plateau effect of multi-node ring all-reduce (Simple, chunks of 64 B per rank and more).
        if (allReduce && p == kSimple && multiNode && bytes / (16.0 * n) >= 64)
            latency *= 1.4;
        consider(best, latency, busBw * n / nsteps, bytes, NcclAlgorithm::Ring, p);
    }

    if (allReduce && multiNode) {
        // Tree: a chain inside each node, a double binary tree across nodes.
        const int logSize = log2Floor(bytes / 64);
        for (int p = kLL; p <= kSimple; ++p) {
            double busBw = bus * 0.92;
            if (p == kLL)
                busBw = std::min(busBw / 3.8, llMax);
            if (p == kLL128)
                busBw *= 120.0 / 128.0;
            double algBw = busBw * 0.5;
            if (logSize >= 0 && logSize < 23)
                algBw *= kTreeCorrection[p][logSize];
            const double latency = kTreeBase[std::size_t(p)]
                + 2 * ((ppn - 1) * kTreeNvlink[std::size_t(p)] + log2Floor(nodes) * kTreeNet[std::size_t(p)] * netLat);
            consider(best, latency, algBw, bytes, NcclAlgorithm::Tree, p);
        }
    }

    if (m_nvls && ppn > 1) {
        // NVLink SHARP: the NVSwitch reduces (multimem.ld_reduce) and multicasts. Bandwidth: the
        // NVLink bus bandwidth x nvlsEfficiency x (nChannels - 1) / nChannels; NCCL's x2 for
        // pipelined all-reduces over its n / 2(n-1) step ratio leaves the same algorithm bandwidth
        // up to n / (n - 1), which the 8-GPU reference (480 GB/s bus bandwidth) does not show.
        const double nvlsIntra = intra * (m_blackwell ? kNvlsEfficiencyBlackwell : kNvlsEfficiencyHopper)
            * (kNvlsChannels - 1) / kNvlsChannels;
        if (!multiNode) {
            // All-gather/reduce-scatter: NCCL's (ppn - 1) / ppn share through the switch and its
            // n / (n - 1) step ratio cancel: the same algorithm bandwidth, so rings win there.
            consider(best, kNvlsNvlink, nvlsIntra, bytes, NcclAlgorithm::Nvls, kSimple);
        } else if (allReduce) {
            // NVLS tree: reduce inside the node through the switch, a tree across nodes over the
            // node's NICs (two nodes: both directions at once, x2).
            const double interBw = inter * (nodes <= 2 ? 2 : 1);
            const double busBw = std::min(2 * nvlsIntra, interBw);
            const double latency = kNvlsNvlink + 2 * log2Floor(nodes) * kNvlsTreeNet * netLat;
            consider(best, latency, busBw * n / nsteps, bytes, NcclAlgorithm::NvlsTree, kSimple);
        }
    }

    if (!allReduce && multiNode && ppn == 1) {
        // PAT (all-gather/reduce-scatter with one rank per node): log-depth latency plus a linear
        // term, at 0.75 of the bus bandwidth, not converted to algorithm bandwidth (as NCCL does).
        const double latency = kPatBase + log2Floor(nodes) * (kTreeNet[kSimple] * netLat / 3.5) + n * 2.8;
        consider(best, latency, bus * 0.75, bytes, NcclAlgorithm::Pat, kSimple);
    }

    result.time_s = best.time_us * 1e-6;
    result.algorithm = best.algorithm;
    result.protocol = best.protocol;
    return result;
}

double CollectiveModel::splitAllToAllS(double nvlinkBytes, double networkBytes, GroupShape group) const
{
    if (group.size <= 1 || !(nvlinkBytes + networkBytes > 0))
        return 0;
    const GroupPlacement place = placement(group);
    const bool multiNode = place.nodes > 1;
    // The node's NICs carry its ranks' network share: each rank gets its part of the group's
    // inter-node bandwidth (interNodeGbPerS, which shares the NICs with concurrent groups).
    const double perRankNic
        = multiNode ? interNodeGbPerS(group) / place.ranks_per_node : std::numeric_limits<double>::infinity();
    const double network = multiNode ? networkBytes : 0.0;
    const double transferUs = std::max(nvlinkBytes / (1e3 * m_intraP2pGbPerS), network / (1e3 * perRankNic));
    const double latencyUs
        = kRingBase[kSimple] + (multiNode ? kRingNet[kSimple] * m_netLatencyScale : kRingNvlink[kSimple]);
    return (latencyUs + transferUs) * 1e-6;
}

double CollectiveModel::p2pS(double bytes, bool crossNode) const
{
    if (!(bytes > 0))
        return 0;
    // A send/recv pair: the ring's Simple base latency and one step, at the GPU pair's NVLink
    // bandwidth or its NIC's (a pipeline stage's neighbour on another node sits on the same rail).
    const double latencyUs
        = kRingBase[kSimple] + (crossNode ? kRingNet[kSimple] * m_netLatencyScale : kRingNvlink[kSimple]);
    const double bandwidth = crossNode ? m_nicGbPerS * m_nics / m_gpusPerNode : m_intraP2pGbPerS;
    return (latencyUs + bytes / (1e3 * bandwidth)) * 1e-6;
}

} // namespace stratex::hardware
