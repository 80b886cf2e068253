// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

#include "core/hardware/attention_kernels.h"
#include "core/megatron/framework.h"

namespace stratex::megatron {

struct ParallelStrategy;
}
namespace stratex::hardware {
class HardwareModel;
}
namespace stratex::megatron {

// The kernel a framework runs by default on a GPU (docs/kernels.md §6), for
// AttentionKernel::Default:
// - Megatron-Core, Megatron-Bridge / NeMo: Transformer Engine's DotProductAttention. From TE 1.2 on
//   it gives FusedAttention (cuDNN, F16_arbitrary_seqlen) preference over flash-attn on sm90
//   ("Select FusedAttention on sm90 and FlashAttention on others for performance",
//   transformer_engine/pytorch/attention.py at v1.2-v2.0; dot_product_attention/utils.py later,
//   NVIDIA/TransformerEngine d0067d0d), and flash-attn 2 on Ampere. On Blackwell the fused
//   (cuDNN) path: flash-attn 2 has no sm100 build.
// - torchtitan: PyTorch SDPA under its own sdpa_kernel list, flash first except on sm100 where
//   cuDNN comes first (pytorch/torchtitan #1196, torchtitan/models/attention.py, May 2025); before
//   that SDPA's own order, whose default priority runs flash before cuDNN on H100 in torch
//   2.5.1-2.10 (pytorch/pytorch #138522 made cuDNN opt-in; #142132 shows SDPA at FA2's rate on
//   2.6.0.dev20241204).
// - DeepSpeed, Composer: flash-attn 2 (HF / llm-foundry `attn_impl: flash`); unfused when the
//   strategy says flash_attention = false.
// - On Volta (v100-*) every framework: Unfused (no flash or cuDNN fused kernel below sm80). torch
//   SDPA's memory-efficient kernel, which does run there, is not modelled.
hardware::AttentionKernel frameworkDefaultAttentionKernel(Framework framework, const std::string& gpuName);

// The kernel `s` runs on `gpuName`: its own, or the framework's default; Unfused when
// s.flash_attention is off. The cost model branches on this, not on s.flash_attention alone.
hardware::AttentionKernel resolvedAttentionKernel(const ParallelStrategy& s, const std::string& gpuName);

// The share of a rank's attention work that ring context parallelism of `ringSteps` steps runs
// without the causal mask: (steps - 1) / steps (TE's and PyTorch's load-balanced rings run only
// the diagonal step causal; docs/kernels.md §6, "Ring steps"); 0 without a ring.
double ringUnmaskedShare(int ringSteps);

// The time factor on the reference (Flash2, causal) attention time of one rank's fused attention
// with `queries` queries a sequence at `headDim`: 1 / hardware::attentionKernelRelativeRate, and
// under a ring of `ringSteps` steps its unmasked share at hardware::attentionUnmaskedSpeedup; or
// for MptTriton the fitted reference rate over its own measured one (attentionKernelEfficiency).
double attentionKernelTimeFactor(const ParallelStrategy& s, const hardware::HardwareModel& hw, double headDim,
    double queries, int ringSteps = 1);

} // namespace stratex::megatron
