// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

#include "core/hardware/cluster_description.h"
#include "core/hardware/collectives.h"

namespace stratex::hardware {

// How close a GPU and its network come to their datasheet figures (the plain struct lives beside
// the cluster description, so that cluster files carry it: core/hardware/efficiency.h).

// The datasheet-typical guesses a fit starts from (cuBLAS and flash-attention fractions of peak
// commonly reported for the chip), before any measured run.
Efficiency datasheetEfficiency(const hardware::GpuDescription& gpu);
// A GPU with its fitted efficiencies: the defaults for the presets come from the fit on the
// "fit" reference runs (resources/reference-runs, `stratex-cli reference --fit`).
Efficiency efficiencyFor(const hardware::GpuDescription& gpu);
// The family a GPU preset's efficiencies are fitted and stored under: presets that share a chip
// share them ("a100" for both A100s, "h100" for the H100 SXM and H800; otherwise the preset name).
std::string presetFamily(const std::string& gpuName);
// The cluster's calibrated efficiencies when it carries them, else its GPU's fitted defaults.
Efficiency efficiencyFor(const hardware::ClusterDescription& cluster);

// Time of the basic operations on one GPU of `cluster`, in seconds.
class HardwareModel {
public:
    HardwareModel(hardware::ClusterDescription cluster, Efficiency efficiency);

    const hardware::ClusterDescription& cluster() const { return m_cluster; }
    const Efficiency& efficiency() const { return m_efficiency; }
    // The factor on every compute kernel's time: the job's slowest GPU over the median one
    // (gpu_speed_spread.h), for the cluster's whole world size.
    double slowestGpuFactor() const { return m_slowest_gpu_factor; }

    // A GEMM of m x k by k x n in 16-bit (or FP8) precision: compute at its shape's efficiency
    // (kernel_shapes.h: tiles and waves on the SMs) plus the operands' memory traffic.
    double gemmS(double m, double n, double k, bool fp8 = false) const;
    // Efficiency::gemm times a tile's fixed-cost factor at k = `smallestDim` (no quantization).
    double gemmEfficiency(double smallestDim) const;
    // Flash-attention forward FLOPs at the full-grid attention efficiency (flashAttentionS: by shape).
    double attentionS(double flops) const;
    // A memory-bound kernel moving `bytes`.
    double memoryBoundS(double bytes) const;
    double kernelOverheadS(int kernels) const;

    // Collectives as NCCL runs them (core/hardware/collectives.h).
    double allReduceS(double bytes, GroupShape group) const;
    double allGatherS(double bytes, GroupShape group) const; // bytes: the gathered (full) size
    double reduceScatterS(double bytes, GroupShape group) const; // bytes: the input (full) size
    double allToAllS(double bytes, GroupShape group) const; // bytes each rank sends in total
    double p2pS(double bytes, bool crossNode) const;
    double splitAllToAllS(double nvlinkBytes, double networkBytes, GroupShape group) const; // collectives.h
    const CollectiveModel& collectives() const { return m_collectives; }

    bool spansNodes(GroupShape group) const;

private:
    hardware::ClusterDescription m_cluster;
    Efficiency m_efficiency;
    CollectiveModel m_collectives;
    double m_slowest_gpu_factor = 1;
};

} // namespace stratex::hardware
