// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "core/megatron/parallel_strategy.h"

namespace stratex::megatron {

// What `strategy` asks of the GPU `gpuName` that the GPU does not have, in words (empty: nothing).
// Volta (v100-*, sm70): no BF16 or FP8 tensor cores (NVIDIA Tesla V100 datasheet: FP16 and FP32
// mixed precision; BF16 arrived with Ampere, FP8 with Hopper/Ada), so precision bf16 and fp8 are
// refused with a pointer to fp16; and no flash-attention or cuDNN fused kernel
// (hardware::attentionKernelRunsOn), so an explicit flash2, flash3 or cudnn is refused (the
// default resolves to unfused there). estimate() reports these with strategyProblems'.
std::vector<std::string> gpuSupportProblems(const ParallelStrategy& strategy, const std::string& gpuName);

} // namespace stratex::megatron
