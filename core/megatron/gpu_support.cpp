// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/gpu_support.h"

#include "core/hardware/attention_kernels.h"

namespace stratex::megatron {

std::vector<std::string> gpuSupportProblems(const ParallelStrategy& s, const std::string& gpuName)
{
    std::vector<std::string> problems;
    if (hardware::isVoltaGpu(gpuName) && s.precision != Precision::Fp16)
        problems.push_back("precision " + std::string(precisionName(s.precision)) + " on " + gpuName
            + ": Volta (sm70) has FP16 tensor cores only (no BF16, no FP8); use precision fp16 (search/evaluate --precision fp16; Megatron-LM and DeepSpeed --fp16)");
    if (s.flash_attention && !hardware::attentionKernelRunsOn(s.attention_kernel, gpuName))
        problems.push_back("attention kernel " + std::string(hardware::attentionKernelName(s.attention_kernel)) + " on "
            + gpuName + ": flash-attention and cuDNN fused attention need Ampere (sm80) or newer; use "
                        "attention_kernel default or unfused");
    return problems;
}

} // namespace stratex::megatron
