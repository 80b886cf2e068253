// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace stratex::hardware {

// The attention kernel a measured run used (docs/kernels.md §6). Efficiency::attention, which the
// presets fit, is the full-grid efficiency of the FlashAttention-2-class kernels today's
// frameworks run (flash-attn 2, cuDNN through Transformer Engine or PyTorch SDPA). A published run
// that used an older kernel is costed with that kernel's own measured rate, so that the fit is not
// pulled down by software the searched plans would not run.
enum class AttentionKernel {
    Flash, // FlashAttention-2 class: Efficiency::attention
    // llm-foundry's `attn_impl: triton` (its default in 2023 and January 2024): MPT's port of
    // HazyResearch's Triton flash attention (llmfoundry/models/layers/flash_attn_triton.py),
    // compiled by the pre-MLIR Triton of the `triton-pre-mlir` (sm90 branch) requirement.
    MptTriton,
};

// "flash", "mpt-triton".
std::string_view attentionKernelName(AttentionKernel kernel);
std::optional<AttentionKernel> parseAttentionKernel(std::string_view name);
std::string attentionKernelChoices(); // for messages

// The kernel's efficiency on a GPU family (hardware::presetFamily): its rate over the GPU's dense
// BF16 peak in the cost model's accounting (causal work; a forward rate, the backward at 2.89x
// the forward's time, docs/kernels.md §4), as measured; nullopt for Flash (the fitted
// Efficiency::attention) and for a family it was not measured on.
std::optional<double> attentionKernelEfficiency(AttentionKernel kernel, std::string_view family);

} // namespace stratex::hardware
