// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/model_description.h"

namespace stratex::megatron {

// What a dense MLP keeps for backward beyond its input, in 16-bit tensors of the MLP's width
// (ffn / tp per token; docs/memory-model.md, "The MLP's activation function"). `gemmInputShare`
// is the bytes of fc2's kept input over 16 bits (0.5 where Transformer Engine keeps its FP8 cast).
// - SwiGLU: the gate and up outputs (2, swiglu's input) + fc2's input.
// - GeLU: fc1's output (1, gelu's input: PyTorch derivatives.yaml "gelu: gelu_backward(grad, self,
//   approximate)") + fc2's input (gelu's output).
// - ReLU: relu's output (1: derivatives.yaml "relu: threshold_backward(grad, result, 0)", the
//   result), which is fc2's input itself (nn.Linear keeps its input tensor: one storage); FP8 adds
//   fc2's own cast.
// pytorch/pytorch tools/autograd/derivatives.yaml (main).
double mlpKeptWidths(const model::ModelDescription& model, double gemmInputShare);

} // namespace stratex::megatron
