// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/hardware/cluster_description.h"

#include <bit>
#include <cmath>

#include "core/common/error.h"
#include "core/common/input_limits.h"
#include "core/hardware/preset_lookup.h"

namespace stratex::hardware {

namespace {

void requirePositive(const char* what, double value)
{
    if (!(value > 0) || !std::isfinite(value))
        throw Error(std::string("gpu: ") + what + " must be a positive number, found " + std::to_string(value));
}

} // namespace

void GpuDescription::validate() const
{
    requirePositive("peak_tflops", peak_tflops);
    requirePositive("memory_gb", memory_gb);
    if (memory_gb > limits::kMaxGpuMemoryGb)
        throw Error("gpu: memory_gb must be at most " + std::to_string(limits::kMaxGpuMemoryGb) + ", found "
            + std::to_string(memory_gb));
    requirePositive("hbm_gb_per_s", hbm_gb_per_s);
    requirePositive("matmul_efficiency", matmul_efficiency);
    if (matmul_efficiency > 1)
        throw Error("gpu: matmul_efficiency is a fraction of peak, expected at most 1, found "
            + std::to_string(matmul_efficiency));
    requirePositive("intra_node_bus_gb_per_s", intra_node_bus_gb_per_s);
    requirePositive("intra_node_p2p_gb_per_s", intra_node_p2p_gb_per_s);
    requirePositive("network_gb_per_s_per_gpu", network_gb_per_s_per_gpu);
    if (!(overlap_slowdown >= 1) || !std::isfinite(overlap_slowdown))
        throw Error("gpu: overlap_slowdown is a slowdown factor, expected at least 1, found "
            + std::to_string(overlap_slowdown));
}

void ClusterDescription::validate() const
{
    validateSizes();
    // Galvatron's hardware files list groups by halving the world, so the shape must be powers of two.
    if (!std::has_single_bit(unsigned(gpus_per_node)))
        throw Error("cluster: gpus_per_node must be a power of two, found " + std::to_string(gpus_per_node));
    if (!std::has_single_bit(unsigned(num_nodes)))
        throw Error("cluster: num_nodes must be a power of two, found " + std::to_string(num_nodes));
}

void ClusterDescription::validateSizes() const
{
    gpu.validate();
    if (efficiency)
        validateEfficiency(*efficiency);
    if (num_nodes <= 0 || num_nodes > limits::kMaxNodes)
        throw Error("cluster: num_nodes must be an integer from 1 to " + std::to_string(limits::kMaxNodes) + ", found "
            + std::to_string(num_nodes));
    if (gpus_per_node > limits::kMaxGpusPerNode)
        throw Error("cluster: gpus_per_node must be at most " + std::to_string(limits::kMaxGpusPerNode) + ", found "
            + std::to_string(gpus_per_node));
    if (gpus_per_node <= 0)
        throw Error("cluster: gpus_per_node must be a positive integer, found " + std::to_string(gpus_per_node));
    if (worldSize() < 2)
        throw Error("cluster: at least 2 GPUs are needed for a parallel strategy, found 1");
}

const std::vector<GpuDescription>& gpuPresets()
{
    // Peaks and bandwidths from the vendors' datasheets; the efficiency and the achieved bus
    // bandwidths are typical NCCL-tests / GEMM figures, not measurements of one machine.
    static const std::vector<GpuDescription> presets = {
        { "a100-40gb", 312, 40, 1555, 0.74, 155, 160, 25, 1.13 },
        { "a100-80gb", 312, 80, 2039, 0.74, 155, 160, 25, 1.13 },
        { "h100-80gb", 989, 80, 3350, 0.62, 360, 370, 50, 1.15 },
        { "h800-80gb", 989, 80, 3350, 0.62, 180, 185, 50, 1.15 },
        // torchtitan's Grand Teton H100s: 96 GB HBM2e at 2.4 TB/s, power-capped at 500 W (lower
        // clocks; pytorch/torchtitan:benchmarks/llama3_h100_202412_torchtitan.md @ 31a17bfd, "Hardware").
        { "h100-96gb", 989, 96, 2400, 0.55, 360, 370, 50, 1.15 },
        // H200 SXM: the H100 SXM5 die and clocks (700 W) with 141 GB HBM3e at 4.8 TB/s (NVIDIA H200
        // datasheet); memory as the device reports it, 150,109,880,320 bytes = 139.8 GiB (this
        // project's H200, resources/device-measurements/h200-2026-11-28). NVLink 4 and one 400 Gb/s
        // NIC per GPU (DGX H200) as the H100's.
        { "h200-141gb", 989, 139.8, 4800, 0.62, 360, 370, 50, 1.15 },
        // DGX B200: 180 GB usable HBM3e at 8 TB/s, NVLink 5, one 400 Gb/s NIC per GPU.
        { "b200-192gb", 2250, 180, 8000, 0.60, 700, 720, 50, 1.15 },
        // GB200 NVL72 (NVIDIA GB200 NVL72 datasheet, per GPU = rack / 72): 2.5 PFLOPS dense BF16
        // (360 sparse for the rack), 186 GB HBM3e at 8 TB/s, NVLink 5 (1.8 TB/s both directions)
        // across all 72 GPUs of the rack (defaultTopology: one NVLink domain of 72, 4 GPUs per
        // compute tray), one 400 Gb/s ConnectX-7 per GPU. The NCCL bus bandwidths are ASSUMED the
        // B200's (the same NVLink 5 per GPU), not measured.
        { "gb200-186gb", 2500, 186, 8000, 0.60, 700, 720, 50, 1.15 },
        { "l40s-48gb", 362, 48, 864, 0.60, 22, 24, 25, 1.10 },
        // Tesla V100 SXM2 (Volta, sm70; NVIDIA Tesla V100 GPU datasheet, 2018, "SXM2" column): 125
        // TFLOPS of FP16 tensor-core peak (no BF16: ParallelStrategy precision bf16 is refused on it,
        // gpu_support.h), 32 or 16 GB HBM2 at 900 GB/s, NVLink 2 at 300 GB/s (both directions).
        // DGX-2 (16 V100 on NVSwitch, 8 x 100 Gb/s EDR InfiniBand) and DGX-1V (8 V100, 4 x EDR)
        // both give a GPU 6.25 GB/s of network. The NCCL bus bandwidths are ASSUMED, not measured:
        // the A100 presets' fraction of their NVLink (155 of 300 GB/s per direction) on V100's
        // 150 GB/s per direction. overlap_slowdown as the A100's. docs/kernels.md §1.
        { "v100-32gb", 125, 32, 900, 0.74, 77.5, 80, 6.25, 1.13 },
        { "v100-16gb", 125, 16, 900, 0.74, 77.5, 80, 6.25, 1.13 },
    };
    return presets;
}

NodeTopology defaultTopology(const GpuDescription& gpu)
{
    NodeTopology topology;
    // HGX/DGX H100, H800, H200 and B200 boards join their 8 GPUs through NVSwitches with NVLink
    // SHARP (NCCL's NVLS algorithm, NCCL 2.17+); A100's NVSwitch has no SHARP. Every preset's
    // server has one compute NIC per GPU (DGX A100: 8 x HDR, DGX H100/B200: 8 x NDR400) on a
    // rail-optimised fabric (NVIDIA DGX SuperPOD reference architectures).
    const std::string& name = gpu.name;
    topology.nvlink_sharp = name.rfind("h100", 0) == 0 || name.rfind("h800", 0) == 0 || name.rfind("h200", 0) == 0
        || name.rfind("b200", 0) == 0 || name.rfind("gb200", 0) == 0;
    // GB200 NVL72: the rack's NVLink switch trays join its 72 GPUs (18 compute trays of 4) in one
    // NVLink domain with NVLink SHARP; a "node" (gpus_per_node) is a compute tray, the host.
    if (name.rfind("gb200", 0) == 0)
        topology.nvlink_domain_gpus = 72;
    // The host link, one direction, datasheet rates (docs/memory-model.md, "CPU activation
    // offload"): PCIe Gen3 x16 on V100 servers (16 GB/s), Gen4 x16 on A100 and L40S (32 GB/s:
    // the A100 datasheet's 64 GB/s counts both directions), Gen5 x16 on H100, H800, H200 and B200
    // boards (64 GB/s: 128 GB/s both ways, H100 SXM datasheet). GB200: one Grace joins its two
    // B200s over NVLink-C2C, 900 GB/s both directions; no NVIDIA document read says whether that
    // is per GPU, so the two GPUs are ASSUMED to share it: 225 GB/s each, one direction.
    if (name.rfind("gb200", 0) == 0)
        topology.host_link_gb_per_s = 225;
    else if (name.rfind("v100", 0) == 0)
        topology.host_link_gb_per_s = 16;
    else if (name.rfind("a100", 0) == 0 || name.rfind("l40s", 0) == 0)
        topology.host_link_gb_per_s = 32;
    else
        topology.host_link_gb_per_s = 64;
    return topology;
}

GpuDescription gpuPreset(const std::string& name)
{
    return findPreset(gpuPresets(), name, "GPU");
}

} // namespace stratex::hardware
