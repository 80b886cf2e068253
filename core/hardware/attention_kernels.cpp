// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/hardware/attention_kernels.h"

#include "core/common/enum_names.h"

namespace stratex::hardware {

namespace {

constexpr EnumNames<AttentionKernel, 6> kKernelNames { { { AttentionKernel::Default, "default" },
    { AttentionKernel::Flash2, "flash2" }, { AttentionKernel::Flash3, "flash3" }, { AttentionKernel::Cudnn, "cudnn" },
    { AttentionKernel::MptTriton, "mpt-triton" }, { AttentionKernel::Unfused, "unfused" } } };

} // namespace

std::string_view attentionKernelName(AttentionKernel kernel)
{
    return enumName(kKernelNames, kernel);
}

std::optional<AttentionKernel> parseAttentionKernel(std::string_view name)
{
    // "flash": the name before the kernels were told apart (records, plans); the presets were
    // fitted for flash-attn 2 class kernels then, and Flash2 is the reference now (docs/kernels.md §6).
    if (name == "flash")
        return AttentionKernel::Flash2;
    return parseEnumName(kKernelNames, name);
}

std::string attentionKernelChoices()
{
    return "\"default\", \"flash2\", \"flash3\", \"cudnn\", \"mpt-triton\" or \"unfused\"";
}

std::optional<double> attentionKernelEfficiency(AttentionKernel kernel, std::string_view family)
{
    switch (kernel) {
    case AttentionKernel::Default:
    case AttentionKernel::Flash2:
    case AttentionKernel::Flash3:
    case AttentionKernel::Cudnn:
    case AttentionKernel::Unfused:
        return std::nullopt;
    case AttentionKernel::MptTriton:
        // Measured by llm-foundry's own sequence-length sweeps (mosaicml/llm-foundry
        // scripts/train/benchmarking/ README @ 8c8dd48f, sections "H100 80GB BF16" and "A100 80GB
        // with 1600 Gbps node-node interconnect (RoCE)"; docs/kernels.md §6): one model on 8 GPUs
        // at growing sequence length, where only attention's work per token grows. The extra time
        // per token over the extra causal attention work is the kernel's rate, counted as the cost
        // model counts it (layer_cost.cpp): 2·s·d_model·n_layers FLOPs per token forward, the
        // backward at 2.89x the forward's time (docs/kernels.md §4), so x3.89 per token, x4.89
        // with activation checkpointing. H100 178-207 TFLOP/s over 14 row pairs of 760M-13B
        // (median 193.4 = 0.195 of 989.5), A100 96-130 TFLOP/s over 20 pairs of 350M-13B (median
        // 107.9 = 0.346 of 312). (Derived with the backward at 2.5x, as the model once had it, the
        // same pairs give 0.177 and 0.311, which costed these runs' attention 11 % too slow.) The
        // pre-MLIR Triton emits no Hopper wgmma: the H100 gains 1.8x over the A100, not the 3.2x
        // of the peaks.
        if (family == "h100")
            return 0.195;
        if (family == "a100")
            return 0.346;
        return std::nullopt;
    }
    return std::nullopt;
}

bool isVoltaGpu(std::string_view gpuName)
{
    return gpuName.substr(0, 4) == "v100";
}

bool attentionKernelRunsOn(AttentionKernel kernel, std::string_view gpuName)
{
    // Dao-AILab/flash-attention README (v2.x): FlashAttention-2 supports Ampere, Ada and Hopper
    // GPUs; FlashAttention-3 is Hopper's. Transformer Engine's get_attention_backend
    // (transformer_engine/pytorch/attention/dot_product_attention/utils.py, "Filter: Compute
    // capability"): below (8, 0) "Disabling FlashAttention as it requires compute capability
    // sm80+" and "Disabling FusedAttention as it requires compute capability sm80+", leaving
    // UnfusedDotProductAttention. Only Volta is refused here (the other presets are sm80+; FA3 on
    // Ampere is left to the plan's author).
    switch (kernel) {
    case AttentionKernel::Flash2:
    case AttentionKernel::Cudnn:
    case AttentionKernel::Flash3:
        return !isVoltaGpu(gpuName);
    case AttentionKernel::Default:
    case AttentionKernel::MptTriton:
    case AttentionKernel::Unfused:
        return true;
    }
    return true;
}

} // namespace stratex::hardware
