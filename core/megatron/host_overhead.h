// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The host (CPU) side of an eager training step: Python, the autograd engine, PyTorch's
// dispatcher and the CUDA launch, per GPU kernel. The host enqueues kernels on CUDA's asynchronous
// stream and runs ahead of the GPU, so a layer lasts max(GPU time, host time): host-bound only
// when its kernels are tiny (small hidden, short micro-batches; docs/kernels.md §7).

#include "core/megatron/cuda_graphs.h"

namespace stratex::megatron {

// Host microseconds per GPU kernel of an eager forward + backward (forward ops through Python and
// the dispatcher, backward nodes through the autograd engine's thread). Measured on one H200 with
// PyTorch 2.11 (tests/data/measured/host-overhead-h200, tools/device-measure/
// host_overhead_compact.py): a 4-layer GPT block stack (LayerNorm, QKV, SDPA, projection, GELU
// MLP, dropout, residuals) at hidden 1024-2048, micro-batch 1-2, sequence 1024-2048, whose GPU
// sat idle part of the step (8 of the 20 shapes), took 19-29 µs of host time per kernel the
// profiler counted (median 23; the GPU-bound shapes' hosts took 21-31). Published range for the same
// quantity: "~5-25 µs of CPU-side work per op" (J. Lin, "From PyTorch op to kernel launch", GPU
// kernel serving lesson 18, jiahuanglin.xyz). moe_kernels.cpp's host-bound MoE forward uses it too.
inline constexpr double kEagerHostUsPerKernel = 23;

// GPU kernels of one transformer layer's forward as the cost model counts them (its backward
// launches twice as many): norms, the GEMMs, bias/activation, dropout, rotary, attention, residual
// adds; a MoE layer's router, permutation and experts add 12. The profiler counted 56-68 kernels
// per GPT layer's forward + backward (PyTorch 2.11 eager, the measurement above), against 66 here.
int layerForwardKernels(bool moeLayer);
// A dense layer's `kernels` by region (cuda_graphs.h): its attention block
// (TransformerLayer._forward_attention: the input norm, QKV, rotary, attention, projection,
// bias-dropout-add and their TP collectives) holds half of layerForwardKernels plus
// `attentionExtra` (unfused RoPE, QK norms), what a CUDA graph over "attn" captures; the MLP side
// the rest. `backward`: each region twice (the convention above).
LayerHostOps denseLayerHostOps(int kernels, int attentionExtra, bool backward);

// Host seconds to issue `kernels` kernels of an eager training step.
double eagerHostS(int kernels);

// The time a pass waits on its host: max(0, host time of `kernels` - `gpuS`), `gpuS` the pass's
// GPU time (compute and the communication on its critical path).
double hostBoundExtraS(double gpuS, int kernels);

} // namespace stratex::megatron
