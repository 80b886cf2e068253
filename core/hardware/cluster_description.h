// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/hardware/efficiency.h"

namespace stratex::hardware {

// What the synthesizer needs to know about one GPU model and its interconnect. Bandwidths are
// in GB/s (= MB/ms, the unit of Galvatron's bandwidth files).
struct GpuDescription {
    std::string name;
    double peak_tflops = 0; // dense bf16/fp16 tensor-core peak
    double memory_gb = 0;
    double hbm_gb_per_s = 0; // memory bandwidth: the loss/softmax part of the LM head is bound by it
    double matmul_efficiency = 0; // fraction of peak a large transformer GEMM reaches
    double intra_node_bus_gb_per_s = 0; // NCCL all-reduce bus bandwidth inside a node (NVLink/PCIe)
    double intra_node_p2p_gb_per_s = 0; // send/recv between two GPUs of a node
    double network_gb_per_s_per_gpu = 0; // inter-node bandwidth each GPU has (its NIC share)
    double overlap_slowdown = 0; // compute/communication overlap slowdown (Galvatron's overlap_coe)

    void validate() const; // throws stratex::Error with a one-line reason
};

// How a node's GPUs reach each other and the network: what the collective model
// (core/hardware/collectives.h, docs/collectives.md) needs beyond bandwidths.
struct NodeTopology {
    int nvlink_domain_gpus = 0; // GPUs one NVLink switch domain joins; 0: the node (HGX/DGX: 8)
    int nics_per_node = 0; // 0: one NIC per GPU (DGX H100/B200, Grand Teton); DGX A100 has 8, some nodes 4
    bool rail_optimized = true; // NIC k of every node on the same leaf switch (DGX SuperPOD, Meta's RoCE)
    bool nvlink_sharp = false; // NVSwitch with NVLink SHARP (NVLS): H100/H200/B200 HGX
    // GB/s each GPU has to its host's memory in one direction (PCIe or NVLink-C2C): what CPU
    // activation offload copies over (docs/memory-model.md, "CPU activation offload").
    double host_link_gb_per_s = 0;

    bool operator==(const NodeTopology&) const = default;
};

// The node topology a GPU preset's usual server has (DGX/HGX boards); a cluster file may override it.
NodeTopology defaultTopology(const GpuDescription& gpu);

struct ClusterDescription {
    GpuDescription gpu;
    int num_nodes = 1;
    int gpus_per_node = 8;
    // Calibrated efficiencies (stratex-cli calibrate): what the cost model and the synthesizer use
    // instead of the GPU preset's fitted defaults. Absent for a cluster described by datasheet only.
    std::optional<Efficiency> efficiency;
    // The node topology (cluster file key "topology"); absent: defaultTopology(gpu).
    std::optional<NodeTopology> topology;

    NodeTopology nodeTopology() const { return topology ? *topology : defaultTopology(gpu); }
    // GPUs that reach each other without the network: the node, or the NVLink domain where it
    // joins several nodes (GB200 NVL72: 72 GPUs across 18 hosts of 4). What TP's limit, CP's
    // groups and the pipeline's sends see as "one node" (docs/collectives.md, "Topology").
    int scaleUpGpus() const { return std::max(gpus_per_node, nodeTopology().nvlink_domain_gpus); }
    int worldSize() const { return num_nodes * gpus_per_node; }
    // For a synthesized profile set: validateSizes and Galvatron's powers of two (its hardware files
    // list groups by halving the world).
    void validate() const;
    // The GPU's figures, the efficiencies and the node counts within their limits, any shape (what the
    // stratex model costs: 280 nodes are a cluster too).
    void validateSizes() const;
};

// GB as GPUs and memory flags count them are binary (an "80 GB" A100 or H100 has 80 GiB; nvidia-smi
// shows 81920 MiB), while the cost models' MB are 1e6 bytes: 1 GiB = 1073.741824 MB.
constexpr double kMbPerGib = 1073.741824;
constexpr double gibToMb(double gib)
{
    return gib * kMbPerGib;
}
constexpr double mbToGib(double mb)
{
    return mb / kMbPerGib;
}

// Datasheet figures (peak, memory, bandwidths) with typical achieved fractions.
const std::vector<GpuDescription>& gpuPresets();
// The preset named `name` (case-insensitive); throws stratex::Error listing the presets otherwise.
GpuDescription gpuPreset(const std::string& name);

} // namespace stratex::hardware
