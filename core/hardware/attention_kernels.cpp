// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/hardware/attention_kernels.h"

#include "core/common/enum_names.h"

namespace stratex::hardware {

namespace {

constexpr EnumNames<AttentionKernel, 2> kKernelNames { { { AttentionKernel::Flash, "flash" },
    { AttentionKernel::MptTriton, "mpt-triton" } } };

} // namespace

std::string_view attentionKernelName(AttentionKernel kernel)
{
    return enumName(kKernelNames, kernel);
}

std::optional<AttentionKernel> parseAttentionKernel(std::string_view name)
{
    return parseEnumName(kKernelNames, name);
}

std::string attentionKernelChoices()
{
    return "\"flash\" or \"mpt-triton\"";
}

std::optional<double> attentionKernelEfficiency(AttentionKernel kernel, std::string_view family)
{
    switch (kernel) {
    case AttentionKernel::Flash:
        return std::nullopt;
    case AttentionKernel::MptTriton:
        // Measured by llm-foundry's own sequence-length sweeps (mosaicml/llm-foundry
        // scripts/train/benchmarking/ README @ 8c8dd48f, sections "H100 80GB BF16" and "A100 80GB
        // with 1600 Gbps node-node interconnect (RoCE)"; docs/kernels.md §6): one model on 8 GPUs
        // at growing sequence length, where only attention's work per token grows. The extra time
        // per token over the extra causal attention work (2·s·d_model·n_layers FLOPs per token
        // forward, x3.5 with the backward, x4.5 with activation checkpointing) is the kernel's
        // rate: H100 160-188 TFLOP/s over 13 row pairs of 760M-13B (median 175 = 0.177 of 989.5),
        // A100 87-119 TFLOP/s over 19 pairs of 350M-13B (median 97 = 0.311 of 312). The pre-MLIR
        // Triton emits no Hopper wgmma: the H100 gains 1.8x over the A100, not the 3.2x of the
        // peaks. The A100 preset's fit of Efficiency::attention on these runs (0.2992) agrees.
        if (family == "h100")
            return 0.177;
        if (family == "a100")
            return 0.311;
        return std::nullopt;
    }
    return std::nullopt;
}

} // namespace stratex::hardware
