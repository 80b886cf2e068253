// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace stratex::hardware {

// How close a GPU and its network come to their datasheet figures: the parameters of the stratex
// cost model (core/megatron) that measured runs calibrate. Plain figures, so that a cluster file can
// carry them (cluster_json, key "efficiency") without core/profile depending on core/megatron.
struct Efficiency {
    // GEMMs: `gemm` is the fraction of dense peak a GEMM of whole waves of the largest tile reaches;
    // tile and wave quantization on the SMs come on top (docs/kernels.md). gemm_half_dim: a tile's
    // fixed cost in k-steps (a tile over k = gemm_half_dim runs at half rate); 0: none.
    double gemm = 0.8;
    double gemm_half_dim = 0;
    double hbm = 0.8; // fraction of HBM bandwidth memory-bound kernels reach
    double attention = 0.55; // flash2 (reference kernel, docs/kernels.md §6) forward, fraction of dense peak
    double kernel_overhead_us = 3; // per kernel: the launch gap on a stream (docs/kernels.md §4)
    double network = 1.0; // scale on the datasheet-derived collective bandwidths
    double collective_latency_us = 15; // per ring/tree step
    // FP8 GEMM kernels' full-wave rate over BF16's on the same tiles: the datasheet's 2x (H100/H200
    // SXM 1979 against 989 dense TFLOP/s) is the ceiling; the H200's cuBLAS kernels measured 1.85x
    // (median of the GEMMs of 0.5 ms and more, resources/device-measurements/h200-2026-11-28). Shape
    // and the input's quantization come on top (kernel_shapes.h, fp8_gemm.h; docs/kernels.md).
    double fp8_speedup = 1.85;
    double dp_overlap = 0.9; // share of the compute that hides data-parallel traffic
    double iteration_overhead_ms = 20; // per iteration: loss, logging, synchronisation
    // Device memory beyond the modelled parts (CUDA context, NCCL buffers and the allocator cache
    // are modelled in core/hardware/device_memory.h since issue 23): 0 unless a calibration on
    // device-memory records fits it. Kept so cluster files that carry it still load.
    double memory_reserve_gb = 0;
    // Reserved over allocated on what is allocated and freed during a step (activations, gathered
    // weights) without expandable segments: the caching allocator's fragmentation.
    double activation_fragmentation = 1.07;

    bool operator==(const Efficiency&) const = default;
};

// One field of Efficiency: its short name (the member's, as `calibrate --fit` takes it), its key in
// JSON (units or "fraction"/"factor" in the name), the member, and the range a valid value lies in.
struct EfficiencyField {
    const char* name;
    const char* key;
    double Efficiency::*member;
    double minimum;
    double maximum;
    bool zeroAllowed; // the value may be 0 (switches the part off) though `minimum` is above it
    // What a person reads (GUI tables, CLI reports): a name and its unit, e.g. "GEMM efficiency
    // half-point (matrix dimension)"; the short name and key stay the identifiers.
    const char* label = "";
};

const std::vector<EfficiencyField>& efficiencyFields();
// The field whose short name or JSON key is `name`; nullptr when there is none.
const EfficiencyField* findEfficiencyField(const std::string& name);

bool inRange(const EfficiencyField& field, double value);
std::string rangeText(const EfficiencyField& field); // "a number from 0.05 to 1", "0 or a number from ..."

// Throws stratex::Error naming the first field out of its range.
void validateEfficiency(const Efficiency& efficiency);

} // namespace stratex::hardware
