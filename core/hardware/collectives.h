// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/hardware/cluster_description.h"

namespace stratex::hardware {

// Where a process group's ranks sit: `size` ranks `stride` apart in Megatron's rank order, and how
// many groups of one node talk across nodes in the same phase (they share the node's NICs).
struct GroupShape {
    int size = 1;
    int stride = 1;
    // Groups with ranks on one node that communicate across nodes at the same time; 0: as many as
    // fill the node (every GPU of the node in such a group: the DP, CP and EP phases of training).
    int concurrent = 0;
};

enum class CollectiveKind { AllReduce, AllGather, ReduceScatter, AllToAll };
// NCCL's algorithms and protocols (src/include/nccl_common.h); CollNet needs SHARP switches and is
// left out (NCCL disables it unless the user enables it).
enum class NcclAlgorithm { Ring, Tree, Nvls, NvlsTree, Pat, PointToPoint };
enum class NcclProtocol { LL, LL128, Simple };

const char* algorithmName(NcclAlgorithm algorithm);
const char* protocolName(NcclProtocol protocol);

// One collective's predicted time with the algorithm and protocol NCCL would pick for it.
struct CollectiveTime {
    double time_s = 0;
    NcclAlgorithm algorithm = NcclAlgorithm::Ring;
    NcclProtocol protocol = NcclProtocol::Simple;
};

// A group's placement on the cluster: ranks per NVLink domain and the domains (nodes) it spans.
struct GroupPlacement {
    int ranks_per_node = 1;
    int nodes = 1;
};

// Collectives from NCCL's mechanisms (docs/collectives.md): every algorithm NCCL may pick costed
// as its base latency + per-step latencies + bytes over its bandwidth, and the fastest one taken,
// as NCCL's tuner does (src/graph/tuning.cc, NVIDIA/nccl 5067397). Bandwidths come from the
// cluster (NVLink bus bandwidth inside a node, the NICs the group's ranks use across nodes,
// shared with the other groups of the node that communicate in the same phase), scaled by the
// fitted `network` fraction; the inter-node step latency is the fitted `collective_latency_us`.
class CollectiveModel {
public:
    CollectiveModel(const ClusterDescription& cluster, const Efficiency& efficiency);

    // bytes: all-reduce the buffer; all-gather the gathered (output) size; reduce-scatter the
    // input size; all-to-all what each rank sends in total (nccl-tests' "size" for each).
    // Memoised per thread (a pure function of its arguments and this model): the search asks the
    // same few hundred collectives for millions of candidates (issue 22: speed).
    CollectiveTime time(CollectiveKind kind, double bytes, GroupShape group) const;
    double timeS(CollectiveKind kind, double bytes, GroupShape group) const { return time(kind, bytes, group).time_s; }
    double p2pS(double bytes, bool crossNode) const;
    // A rank of `group` sending `nvlinkBytes` to peers in its node and `networkBytes` to peers on
    // other nodes at once, as grouped send/recv (the all-to-all's transfer with the split given by
    // the caller: DeepEP's deduplicated dispatch, docs/moe.md, "Token dispatchers").
    double splitAllToAllS(double nvlinkBytes, double networkBytes, GroupShape group) const;

    GroupPlacement placement(GroupShape group) const;
    // The CTAs (one per channel, each resident on an SM for the whole call) NCCL runs a ring
    // all-gather or reduce-scatter of `group` with (docs/collectives.md, "SMs taken by NCCL"):
    // what the compute stream loses while the collective overlaps it.
    int ringCtas(GroupShape group) const;
    // Bandwidth in GB/s the group's ranks of one node have across nodes: their NICs, shared with
    // the other groups of the node communicating at the same time.
    double interNodeGbPerS(GroupShape group) const;

private:
    CollectiveTime computeTime(CollectiveKind kind, double bytes, GroupShape group) const;

    unsigned long long m_id = 0; // tells the models apart in the per-thread memo
    double m_intraBusGbPerS = 0; // NCCL ring bus bandwidth inside an NVLink domain
    double m_intraBusDatasheetGbPerS = 0; // the same before the fitted `network` fraction
    double m_intraP2pGbPerS = 0;
    double m_nicGbPerS = 0; // one NIC
    int m_nics = 1;
    int m_gpusPerNode = 8;
    int m_domainGpus = 8;
    bool m_nvls = false;
    bool m_hopperOrNewer = false;
    bool m_blackwell = false;
    double m_netLatencyScale = 1; // fitted inter-node step latency over NCCL's 14 us (Simple)
};

} // namespace stratex::hardware
