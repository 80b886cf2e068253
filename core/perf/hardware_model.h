// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

#include "core/profile/synth/cluster_description.h"

namespace stratex::perf {

// How close a GPU and its network come to their datasheet figures. Fitted per GPU on the "fit"
// reference runs (resources/reference-runs, `stratex-cli reference --fit`); the hold-out runs
// never enter the fit.
struct Efficiency {
    double gemm = 0.8; // fraction of dense peak a large GEMM reaches
    double hbm = 0.8; // fraction of HBM bandwidth memory-bound kernels reach
    double attention = 0.55; // flash-attention forward, fraction of dense peak
    double kernel_overhead_us = 3; // launch + tail per kernel
    double network = 1.0; // scale on the datasheet-derived collective bandwidths
    double collective_latency_us = 15; // per ring/tree step
    double fp8_speedup = 1.5; // FP8 GEMMs over BF16 ones, end to end (casts, scaling included)
    double dp_overlap = 0.9; // share of the last micro-batch's compute that hides DP traffic
    double iteration_overhead_ms = 20; // per iteration: loss, logging, synchronisation
    double memory_reserve_gb = 3.0; // CUDA context, NCCL buffers, allocator cache
    double activation_fragmentation = 1.1; // allocator rounding on activations
};

// A GPU with its fitted efficiencies: the defaults for the presets come from the fit.
Efficiency efficiencyFor(const profile::synth::GpuDescription& gpu);

// Where a process group's ranks sit: `size` ranks `stride` apart in Megatron's rank order.
struct GroupShape {
    int size = 1;
    int stride = 1;
};

// Time of the basic operations on one GPU of `cluster`, in seconds.
class HardwareModel {
public:
    HardwareModel(profile::synth::ClusterDescription cluster, Efficiency efficiency);

    const profile::synth::ClusterDescription& cluster() const { return m_cluster; }
    const Efficiency& efficiency() const { return m_efficiency; }

    // A GEMM of m x k by k x n in 16-bit (or FP8) precision: compute at the fitted efficiency plus
    // the operands' memory traffic, which is what makes thin GEMMs slow.
    double gemmS(double m, double n, double k, bool fp8 = false) const;
    // Flash-attention forward FLOPs at the attention efficiency (the backward is 2.5x the FLOPs).
    double attentionS(double flops) const;
    // A memory-bound kernel moving `bytes`.
    double memoryBoundS(double bytes) const;
    double kernelOverheadS(int kernels) const;

    double allReduceS(double bytes, GroupShape group) const;
    double allGatherS(double bytes, GroupShape group) const; // bytes: the gathered (full) size
    double reduceScatterS(double bytes, GroupShape group) const; // bytes: the input (full) size
    double allToAllS(double bytes, GroupShape group) const; // bytes each rank sends in total
    double p2pS(double bytes, bool crossNode) const;

    // Bus bandwidth of a group in bytes/s: NVLink inside a node, the NICs of the group's ranks on
    // each node across nodes.
    double busBandwidth(GroupShape group) const;
    bool spansNodes(GroupShape group) const;

private:
    double stepLatencyS(GroupShape group) const;

    profile::synth::ClusterDescription m_cluster;
    Efficiency m_efficiency;
};

} // namespace stratex::perf
