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

double ringUnmaskedShare(int ringSteps)
{
    // Transformer Engine's AttnFuncWithCPAndKVP2P (and AttnFuncWithCP since TE 1.4, 0fbc76af3
    // transformer_engine/pytorch/attention.py): with the causal mask and the load-balanced split
    // (rank r holds chunks r and 2cp-1-r), step 0 runs attn_mask_type "causal" over the rank's own
    // K/V; steps i <= rank run "no_mask" on all its queries against the first half of the received
    // K/V, steps i > rank "no_mask" on the second half of its queries against all of it. PyTorch's
    // _templated_ring_attention with round-robin load balancing the same: is_causal on step 0
    // only. Every step carries 1/cp of the rank's work, so (cp - 1)/cp of it runs unmasked.
    return ringSteps > 1 ? double(ringSteps - 1) / ringSteps : 0.0;
}

double attentionKernelTimeFactor(
    const ParallelStrategy& s, const hardware::HardwareModel& hw, double headDim, double queries, int ringSteps)
{
    const std::string& gpuName = hw.cluster().gpu.name;
    const AttentionKernel kernel = resolvedAttentionKernel(s, gpuName);
    if (kernel == AttentionKernel::MptTriton) {
        const std::optional<double> own = hardware::attentionKernelEfficiency(kernel, hardware::presetFamily(gpuName));
        return own && *own > 0 ? hw.efficiency().attention / *own : 1.0;
    }
    // The unmasked steps at the kernel's rate without the mask (docs/kernels.md §6, "Ring steps").
    const double unmasked = ringUnmaskedShare(ringSteps);
    const double mask = (1 - unmasked) + unmasked / hardware::attentionUnmaskedSpeedup(kernel, gpuName, queries);
    return mask / hardware::attentionKernelRelativeRate(kernel, gpuName, headDim, queries);
}

} // namespace stratex::megatron
