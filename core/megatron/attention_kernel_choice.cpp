// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/attention_kernel_choice.h"

#include "core/hardware/attention_kernel_rates.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/parallel_strategy.h"

namespace stratex::megatron {

using hardware::AttentionKernel;

hardware::AttentionKernel frameworkDefaultAttentionKernel(Framework framework, const std::string& gpuName)
{
    const bool blackwell = gpuName.rfind("b200", 0) == 0 || gpuName.rfind("b300", 0) == 0
        || gpuName.rfind("gb200", 0) == 0 || gpuName.rfind("gb300", 0) == 0;
    // Volta (sm70) runs no flash or cuDNN fused kernel (hardware::attentionKernelRunsOn): TE falls
    // back to UnfusedDotProductAttention, Hugging Face models to their eager attention.
    if (hardware::isVoltaGpu(gpuName))
        return AttentionKernel::Unfused;
    switch (framework) {
    case Framework::MegatronCore:
    case Framework::MegatronBridge:
        return hardware::isHopperGpu(gpuName) || blackwell ? AttentionKernel::Cudnn : AttentionKernel::Flash2;
    case Framework::Torchtitan:
        return blackwell ? AttentionKernel::Cudnn : AttentionKernel::Flash2;
    case Framework::DeepSpeed:
    case Framework::Composer:
        return AttentionKernel::Flash2;
    }
    return AttentionKernel::Flash2;
}

hardware::AttentionKernel resolvedAttentionKernel(const ParallelStrategy& s, const std::string& gpuName)
{
    if (!s.flash_attention)
        return AttentionKernel::Unfused;
    if (s.attention_kernel != AttentionKernel::Default)
        return s.attention_kernel;
    return frameworkDefaultAttentionKernel(s.framework, gpuName);
}

double attentionKernelTimeFactor(
    const ParallelStrategy& s, const hardware::HardwareModel& hw, double headDim, double queries)
{
    const std::string& gpuName = hw.cluster().gpu.name;
    const AttentionKernel kernel = resolvedAttentionKernel(s, gpuName);
    if (kernel == AttentionKernel::MptTriton) {
        const std::optional<double> own = hardware::attentionKernelEfficiency(kernel, hardware::presetFamily(gpuName));
        return own && *own > 0 ? hw.efficiency().attention / *own : 1.0;
    }
    return 1 / hardware::attentionKernelRelativeRate(kernel, gpuName, headDim, queries);
}

} // namespace stratex::megatron
