// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/megatron/framework.h"
#include "core/model/model_description.h"

// The memory-bound elementwise ops of a transformer layer (norms, the MLP's activation) run fused,
// one kernel each, or eager, as PyTorch's separate kernels, each a full read and write of the
// activation through HBM plus a launch (docs/kernels.md, "Eager and compiled blocks").

namespace stratex::megatron {

// torch.compile of the transformer blocks (strategy key "compile", setting --compile).
enum class Compile {
    Default, // the framework's default (elementwiseForm)
    Off,
    On,
};

std::string_view compileName(Compile value); // "default", "off", "on"
std::optional<Compile> parseCompile(std::string_view name);
std::string compileChoices(); // for messages

// How a layer's memory-bound elementwise ops run.
enum class ElementwiseForm {
    Fused, // one kernel per op: Megatron-Core's and Transformer Engine's fused kernels, or torch.compile
    Eager, // PyTorch eager: a composite RMSNorm's eight kernels, SwiGLU's silu and multiply apart
};

// The form a framework runs, cited from each one's source (docs/kernels.md, "Eager and compiled blocks"):
// - Megatron-Core / Megatron-Bridge: fused, whatever `compile` says (no torch.compile switch; TE's
//   LayerNormLinear holds the norm, bias-SwiGLU, RoPE and bias-dropout-add fusions default on);
// - torchtitan: compiled when `compile` is On, or with AsyncTP (`asyncTp`), which needs it; eager
//   otherwise (compile.enable defaults to False);
// - DeepSpeed, Composer: compiled only when `compile` is On (engine.compile(), compile_config).
ElementwiseForm elementwiseForm(Framework framework, Compile compile, bool asyncTp);

// Reads plus writes of one 16-bit element ("passes") per element of an op's input, and the kernels
// a layer's forward launches beyond layerForwardKernels' (host_overhead.h) count. The backward of
// each op moves twice its forward's bytes in the cost model (layer_cost.cpp), which the composite
// forms' autograd nodes match (docs/kernels.md, "Eager and compiled blocks").
struct ElementwisePasses {
    double norm = 2; // per norm, per element of the hidden state: one read, one write
    int norm_kernels = 1; // kernels per norm: one fused, the eager composite RMSNorm's eight
    // per element of the MLP's intermediate width f: a gated unit reads its two inputs and writes
    // its output (3), a plain activation reads and writes (2)
    double activation = 2;
    // per element of Q and K (heads x head_dim each): rotary embedding, a fused kernel's read and
    // write (2), or eager PyTorch's fp32 round trip (10; elementwise_passes.cpp)
    double rope = 2;
    int extra_forward_kernels = 0;
};

// `compositeRmsNorm`: an eager RMSNorm runs as the composite of torchtitan's own RMSNorm (and of
// F.rms_norm before PyTorch's fused kernel); false for PyTorch 2.11's fused eager nn.RMSNorm, which
// only the H200 measurement's second row runs (tst_elementwise_passes).
ElementwisePasses elementwisePasses(
    const model::ModelDescription& model, ElementwiseForm form, bool compositeRmsNorm = true);

} // namespace stratex::megatron
