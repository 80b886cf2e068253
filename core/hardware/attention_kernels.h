// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace stratex::hardware {

// The attention kernel (backend) a run or a plan uses (docs/kernels.md §6). Efficiency::attention,
// the one attention parameter a GPU family fits, is the rate of the reference kernel, Flash2
// (flash-attn 2; the kernel the FlashAttention-2 paper measures on the A100 and the
// FlashAttention-3 paper on the H100). Cudnn and Flash3 run at a published rate relative to it
// (attention_kernel_rates.h); MptTriton at its own measured absolute rate; Unfused is the
// materialised-scores path (ParallelStrategy::flash_attention = false).
enum class AttentionKernel {
    // The framework's default on the GPU (attention_kernel_choice.h): Transformer Engine picks
    // cuDNN fused attention on Hopper, flash-attn 2 elsewhere; torchtitan's SDPA runs flash first.
    Default,
    Flash2, // flash-attn 2, or PyTorch SDPA's flash backend (FA2 inside torch); the reference kernel
    Flash3, // flash-attn 3 (Hopper): flash_attn_interface, or TE's FA3 path
    Cudnn, // cuDNN fused attention (TE FusedAttention F16_arbitrary_seqlen, or SDPA's cuDNN backend)
    // llm-foundry's `attn_impl: triton` (its default in 2023 and January 2024): MPT's port of
    // HazyResearch's Triton flash attention (llmfoundry/models/layers/flash_attn_triton.py),
    // compiled by the pre-MLIR Triton of the `triton-pre-mlir` (sm90 branch) requirement.
    MptTriton,
    Unfused, // the scores materialised (Megatron's --attention-backend unfused / local)
};

// "default", "flash2", "flash3", "cudnn", "mpt-triton", "unfused". parseAttentionKernel also reads
// the old name "flash" (records and plans before the kernels were told apart) as Flash2.
std::string_view attentionKernelName(AttentionKernel kernel);
std::optional<AttentionKernel> parseAttentionKernel(std::string_view name);
std::string attentionKernelChoices(); // for messages

// The kernel's absolute efficiency on a GPU family (hardware::presetFamily), where the kernel is
// costed by its own measurement rather than relative to the fitted reference: its rate over the
// GPU's dense BF16 peak in the cost model's accounting (causal work; a forward rate, the backward
// at 2.89x the forward's time, docs/kernels.md §4). Only MptTriton on h100 and a100; nullopt
// otherwise.
std::optional<double> attentionKernelEfficiency(AttentionKernel kernel, std::string_view family);

// Whether `gpuName` is a Volta (sm70) preset (v100-32gb, v100-16gb): no BF16 tensor cores and no
// fused flash-attention kernel (attentionKernelRunsOn).
bool isVoltaGpu(std::string_view gpuName);

// Whether `kernel` runs on the GPU `gpuName` (docs/kernels.md §6). Flash2 and Cudnn need Ampere
// (sm80) or newer, Flash3 Hopper (sm90): none runs on Volta, where frameworks fall back to the
// unfused path (false there). Default, Unfused and MptTriton (refused by the records' own check
// where it has no measured rate) are true everywhere.
bool attentionKernelRunsOn(AttentionKernel kernel, std::string_view gpuName);

} // namespace stratex::hardware
