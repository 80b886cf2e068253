// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/hardware/efficiency.h"

#include <cmath>
#include <cstdio>

#include "core/common/error.h"

namespace stratex::hardware {

const std::vector<EfficiencyField>& efficiencyFields()
{
    // Ranges: what a real GPU and network can do, wide enough for any calibration to land inside.
    static const std::vector<EfficiencyField> fields = {
        { "gemm", "gemm_fraction_of_peak", &Efficiency::gemm, 0.05, 1.0, false, "GEMM efficiency (fraction of peak)" },
        // A tile's fixed cost: from a fraction of one 64-deep k-step to the k of a whole large GEMM.
        { "gemm_half_dim", "gemm_half_efficiency_dim", &Efficiency::gemm_half_dim, 1, 8192, true,
            "GEMM tile fixed cost (k elements)" },
        { "hbm", "hbm_fraction_of_peak", &Efficiency::hbm, 0.05, 1.0, false, "HBM bandwidth (fraction of peak)" },
        { "attention", "attention_fraction_of_peak", &Efficiency::attention, 0.05, 1.0, false,
            "Attention efficiency (fraction of peak)" },
        // Launch latency of a kernel on a stream: ~2-10 µs on A100/H100 (docs/kernels.md §4); up to
        // 50 for a host that is itself the bottleneck.
        { "kernel_overhead_us", "kernel_overhead_us", &Efficiency::kernel_overhead_us, 0.5, 50, true,
            "Kernel overhead (µs per kernel)" },
        // The share of the links' datasheet bandwidth NCCL reaches (docs/collectives.md, "The fitted
        // network fraction"): at most all of it. Overlap that hides communication is a mechanism of its
        // own (tp_comm_overlap, dp_overlap), not a faster link. Below a tenth the cluster's links are
        // described wrongly (a PCIe or TCP path, not NVLink or RDMA): a fit there is a wrong input.
        { "network", "network_fraction_of_datasheet", &Efficiency::network, 0.1, 1.0, false,
            "Network bandwidth (fraction of datasheet)" },
        { "collective_latency_us", "collective_latency_us", &Efficiency::collective_latency_us, 0.01, 1e4, true,
            "Collective latency (µs per step)" },
        // FP8 tensor cores at most double BF16's rate (Hopper and Blackwell datasheets) and an FP8
        // kernel on whole waves is not slower than the BF16 one (docs/kernels.md §8).
        { "fp8_speedup", "fp8_speedup_factor", &Efficiency::fp8_speedup, 1.0, 2.0, false,
            "FP8 GEMM full-wave rate (× BF16's)" },
        { "dp_overlap", "dp_overlap_fraction", &Efficiency::dp_overlap, 0.01, 1.0, true,
            "DP overlap (fraction of compute)" },
        { "iteration_overhead_ms", "iteration_overhead_ms", &Efficiency::iteration_overhead_ms, 0.01, 1e5, true,
            "Iteration overhead (ms)" },
        { "memory_reserve_gb", "memory_reserve_gb", &Efficiency::memory_reserve_gb, 0.01, 1e3, true,
            "Extra device memory (GB)" },
        { "activation_fragmentation", "activation_fragmentation_factor", &Efficiency::activation_fragmentation, 1.0,
            3.0, false, "Allocator fragmentation (×)" },
    };
    return fields;
}

const EfficiencyField* findEfficiencyField(const std::string& name)
{
    for (const EfficiencyField& field : efficiencyFields()) {
        if (name == field.name || name == field.key)
            return &field;
    }
    return nullptr;
}

namespace {

std::string general(double value)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", value);
    return buffer;
}

} // namespace

bool inRange(const EfficiencyField& field, double value)
{
    if (!std::isfinite(value))
        return false;
    return (field.zeroAllowed && value == 0) || (value >= field.minimum && value <= field.maximum);
}

std::string rangeText(const EfficiencyField& field)
{
    return std::string(field.zeroAllowed ? "0 or " : "") + "a number from " + general(field.minimum) + " to "
        + general(field.maximum);
}

void validateEfficiency(const Efficiency& efficiency)
{
    for (const EfficiencyField& field : efficiencyFields()) {
        const double value = efficiency.*field.member;
        if (!inRange(field, value))
            throw Error(
                std::string("efficiency: ") + field.key + " must be " + rangeText(field) + ", found " + general(value));
    }
}

} // namespace stratex::hardware
