// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/elementwise_passes.h"

#include "core/common/enum_names.h"

namespace stratex::megatron {

namespace {

constexpr EnumNames<Compile, 3> kCompileNames { { { Compile::Default, "default" }, { Compile::Off, "off" },
    { Compile::On, "on" } } };

// torchtitan's RMSNorm at 9dec370 (torchtitan/models/norms.py, the "rmsnorm" norm_type its
// llama3 configs name): forward(x) = _norm(x.float()).type_as(x) * weight with
// _norm(x) = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps). Eager, each op is a kernel over
// the whole activation; in passes of a 16-bit element (bytes / 2): x.float() reads 2 and writes 4
// bytes (3), pow reads and writes fp32 (4), mean reads fp32 (2), + eps and rsqrt touch one value
// per row (0), x * rsqrt (4), type_as reads fp32 and writes 16-bit (3), * weight (2): 18 passes in 8
// kernels, against the fused kernel's read and write (2) in one. F.rms_norm (nn.RMSNorm) ran the
// same ops as a CompositeImplicitAutograd before PyTorch's fused _fused_rms_norm CUDA kernel;
// PyTorch 2.11's eager nn.RMSNorm is fused (the H200 measurement, docs/kernels.md, "Eager and compiled blocks").
constexpr double kCompositeRmsNormPasses = 3 + 4 + 2 + 0 + 4 + 3 + 2;
constexpr int kCompositeRmsNormKernels = 8;

// SwiGLU as torchtitan's FeedForward writes it, w2(F.silu(w1(x)) * w3(x)) (torchtitan/models/
// llama/model.py at 9dec370): eager, silu reads and writes the gate (2 passes of an element of f),
// the multiply reads both halves and writes the product (3): 5 passes in 2 kernels. Fused
// (torch.compile, Megatron-Core's bias_swiglu_impl), one kernel reads both and writes once (3).
constexpr double kFusedGatedPasses = 3;
constexpr double kEagerGatedPasses = 2 + 3;

constexpr int kNormsPerLayer = 2; // attention_norm, ffn_norm (pre-norm blocks)

// Rotary embedding as torchtitan writes it (torchtitan/models/llama/model.py apply_rotary_emb, at
// 395a5262 and 9dec370): view_as_complex(xq.float().reshape(..., -1, 2)) * freqs_cis, then
// view_as_real(...).flatten(3).type_as(xq), for Q and for K. Eager, in passes of a 16-bit element:
// the cast to fp32 reads 2 and writes 4 bytes (3), the complex multiply reads and writes fp32 (4;
// freqs_cis is one row per token, broadcast over the batch and the heads), type_as reads fp32 and
// writes 16-bit (3): 10 passes in 3 kernels per tensor, against a fused rotary kernel's read and
// write (2) in one. Hugging Face's rotate_half form (q * cos + rotate_half(q) * sin in 16-bit: neg
// and cat, two multiplies, an add) moves about as much; both are one kernel under torch.compile.
constexpr double kEagerRopePasses = 3 + 4 + 3;
constexpr int kEagerRopeExtraKernels = 2 * (3 - 1); // Q and K: three kernels each instead of one

} // namespace

std::string_view compileName(Compile value)
{
    return enumName(kCompileNames, value);
}

std::optional<Compile> parseCompile(std::string_view name)
{
    return parseEnumName(kCompileNames, name);
}

std::string compileChoices()
{
    return "\"default\", \"on\" or \"off\"";
}

ElementwiseForm elementwiseForm(Framework framework, Compile compile, bool asyncTp)
{
    switch (framework) {
    case Framework::MegatronCore:
    case Framework::MegatronBridge:
        // Megatron-LM d98e8a64: megatron/core/models/gpt/gpt_layer_specs.py puts each norm inside
        // Transformer Engine's LayerNormLinear (column_parallel_layer_norm_linear for linear_qkv and
        // linear_fc1); megatron/training/arguments.py --no-bias-swiglu-fusion, --no-rope-fusion and
        // --no-bias-dropout-fusion are store_false (the fusions default on); bias_swiglu_impl is a
        // jit_fuser, torch.compile on torch >= 2.2 (megatron/core/jit.py). Megatron-Bridge sets the
        // same (src/megatron/bridge/models/llama/llama_bridge.py at 067f987: bias_activation_fusion,
        // bias_dropout_fusion, apply_rope_fusion True).
        return ElementwiseForm::Fused;
    case Framework::Torchtitan:
        // torchtitan/config/configs.py CompileConfig.enable = False (b5bcd76c; 9dec370's
        // --training.compile is store_true); AsyncTP refuses to start without it (__post_init__).
        return compile == Compile::On || (compile == Compile::Default && asyncTp) ? ElementwiseForm::Fused
                                                                                  : ElementwiseForm::Eager;
    case Framework::DeepSpeed: // runs torch.compile when the script calls engine.compile() (runtime/engine.py)
    case Framework::Composer: // Trainer compile_config: None (the default) disables torch.compile
        return compile == Compile::On ? ElementwiseForm::Fused : ElementwiseForm::Eager;
    }
    return ElementwiseForm::Fused;
}

ElementwisePasses elementwisePasses(const model::ModelDescription& model, ElementwiseForm form, bool compositeRmsNorm)
{
    const bool gated = model.mlp == model::MlpKind::Gated;
    ElementwisePasses p;
    p.activation = gated ? kFusedGatedPasses : 2; // a plain activation (GeLU) is one kernel either way
    if (form == ElementwiseForm::Fused)
        return p;
    // Eager LayerNorm is ATen's fused kernel (native_layer_norm), as is GeLU.
    if (model.norm == model::NormKind::RmsNorm && compositeRmsNorm) {
        p.norm = kCompositeRmsNormPasses;
        p.norm_kernels = kCompositeRmsNormKernels;
        p.extra_forward_kernels += kNormsPerLayer * (kCompositeRmsNormKernels - 1);
    }
    if (gated) {
        p.activation = kEagerGatedPasses;
        p.extra_forward_kernels += 1;
    }
    if (model.position == model::PositionEmbedding::Rope) {
        p.rope = kEagerRopePasses;
        p.extra_forward_kernels += kEagerRopeExtraKernels;
    }
    return p;
}

} // namespace stratex::megatron
