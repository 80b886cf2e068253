// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/megatron/parallel_strategy.h"

namespace stratex::megatron {

// A CUDA compute capability (sm<major><minor>).
struct ComputeCapability {
    int major = 0;
    int minor = 0;

    auto operator<=>(const ComputeCapability&) const = default;
};

// The compute capability of a GPU preset (core/hardware/cluster_description.cpp gpuPresets), by
// its name's chip prefix (CUDA C Programming Guide, "Compute Capabilities"): v100 7.0 (Volta),
// a100 8.0 (Ampere), l40s 8.9 (Ada), h100 / h800 / h200 9.0 (Hopper), b200 / gb200 10.0 (Blackwell).
// nullopt for a name of none of these (a cluster file's own GPU): nothing is refused on it.
std::optional<ComputeCapability> gpuComputeCapability(const std::string& gpuName);

// Whether the GPU has FP8 tensor cores: compute capability 8.9 (Ada) or newer. Transformer
// Engine's _compute_fp8_support (transformer_engine/pytorch/quantization.py, behind
// check_fp8_support / is_fp8_available; transformer_engine/pytorch/fp8.py re-exports it,
// NVIDIA/TransformerEngine d0067d0d): "Device compute capability 8.9 or higher required for FP8
// execution". True for a GPU of unknown capability (not refused).
bool gpuRunsFp8(const std::string& gpuName);

// What `strategy` asks of the GPU `gpuName` that the GPU does not have, in words (empty: nothing).
// Volta (v100-*, sm70): no BF16 or FP8 tensor cores (NVIDIA Tesla V100 datasheet: FP16 and FP32
// mixed precision; BF16 arrived with Ampere, FP8 with Hopper/Ada), so precision bf16 and fp8 are
// refused with a pointer to fp16; and no flash-attention or cuDNN fused kernel
// (hardware::attentionKernelRunsOn), so an explicit flash2, flash3 or cudnn is refused (the
// default resolves to unfused there). Ampere (a100-*, sm80): no FP8 tensor cores (gpuRunsFp8), so
// precision fp8 is refused with a pointer to bf16. estimate() reports these with
// strategyProblems', and the search refuses its space up front with the first
// (docs/kernels.md §10).
std::vector<std::string> gpuSupportProblems(const ParallelStrategy& strategy, const std::string& gpuName);

} // namespace stratex::megatron
