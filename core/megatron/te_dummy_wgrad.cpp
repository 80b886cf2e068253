// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/te_dummy_wgrad.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <utility>

namespace stratex::megatron {

// With gradient-accumulation fusion (Megatron's default; Megatron-Bridge gradient_accumulation_fusion
// true) the weight-gradient GEMM accumulates straight into the fp32 main_grad, and autograd is
// handed a placeholder of the weight's shape and dtype so that Megatron-Core's DDP backward hook
// runs on the main thread. Transformer Engine caches that placeholder, one per (shape, dtype), for
// the rest of the run:
// - NVIDIA/TransformerEngine d0067d0d, transformer_engine/pytorch/module/base.py get_dummy_wgrad:
//   `_dummy_wgrads[(*shape, dtype)] = torch.empty(shape, dtype=dtype, device="cuda")`, never freed
//   (since TE 2.3, #1651 "Enable reuse of dummy wgrad tensor", ba5dc5dd, 2025-04-08); module/linear.py
//   and module/layernorm_linear.py call it when the weight has Megatron's grad_added_to_main_grad
//   attribute: Megatron-Core's TE layer spec builds linear_qkv and linear_fc1 as LayerNormLinear,
//   linear_proj and linear_fc2 as Linear, and the experts as GroupedLinear (also get_dummy_wgrad);
// - NVIDIA/Megatron-LM d98e8a64, megatron/core/tensor_parallel/layers.py
//   LinearWithGradAccumulationAndAsyncCommunication.backward: the output layer (a Megatron-Core
//   ColumnParallelLinear, tied or not) takes the same cached placeholder through TE's
//   get_dummy_wgrad when TE is installed (since e7c55de9, 2025-08-01); before, a fresh torch.empty
//   of the same shape at the start of every backward, which is where the stage's peak is.
// Measured (resources/reference-runs/mbridge-byoc-llama3.2-1b-8.json): rank 0 holds 715 MiB more than
// the 7.5 bytes per parameter after its step; the placeholders of Llama 3.2 1B are 617 MiB.
double teDummyWgradBytes(
    const model::ModelDescription& model, const ParallelStrategy& s, int stageLayers, bool lastStage)
{
    if (s.framework != Framework::MegatronCore && s.framework != Framework::MegatronBridge)
        return 0;
    // grad_added_to_main_grad is set by Megatron-Core's DDP (distributed_data_parallel.py), which
    // the distributed optimizer also runs on; Megatron-FSDP keeps its own buffers.
    if (s.zero >= 2)
        return 0;
    const double bytes = 2; // the parameters' 16-bit dtype (fp8 runs keep bf16 parameters)
    const double h = model.hidden_size;
    const double t = s.tp;
    // (rows, columns): one placeholder per distinct shape. At most 9 shapes, on the search's hot path
    // (every candidate's stages): a fixed array, sorted and deduplicated as a std::set would be, so
    // the sum runs in the same order (the same bytes out) without an allocation.
    std::array<std::pair<double, double>, 9> shapeList {};
    std::size_t shapeCount = 0;
    struct {
        std::array<std::pair<double, double>, 9>& list;
        std::size_t& count;
        void insert(std::pair<double, double> shape) { list[count++] = shape; }
    } shapes { shapeList, shapeCount };
    // --no-gradient-accumulation-fusion: every weight gradient is a real 16-bit tensor the DDP hook
    // adds to main_grad and frees (distributed_data_parallel.py _make_backward_post_hook); only the
    // output layer's, computed first in the backward, coincides with the stage's peak. Transformer
    // Engine before 2.3 (and Megatron's local layers) hands autograd a fresh placeholder per backward
    // (teCachesDummyWgrads): freed the same way, so the same.
    if (s.gradient_accumulation_fusion && teCachesDummyWgrads(s.te_version) && stageLayers > 0) {
        const double gate = model.mlp == model::MlpKind::Gated ? 2.0 : 1.0;
        shapes.insert({ (model.attentionWidth() + 2.0 * model.kvHiddenSize()) / t, h }); // linear_qkv
        shapes.insert({ h, model.attentionWidth() / t }); // linear_proj
        if (model.moe && model.moeLayerCount() > 0) {
            const double fe = model.moe->expert_ffn_hidden_size;
            shapes.insert({ gate * fe / s.etp, h }); // expert linear_fc1 (GroupedLinear, one per shape)
            shapes.insert({ h, fe / s.etp }); // expert linear_fc2
            if (model.moe->shared_experts > 0) {
                const double fs = double(model.moe->shared_experts) * model.moe->shared_expert_ffn_hidden_size;
                shapes.insert({ gate * fs / t, h });
                shapes.insert({ h, fs / t });
            }
        }
        if (!model.moe || model.moe->first_dense_layers > 0) {
            const double f = model.ffn_hidden_size;
            shapes.insert({ gate * f / t, h }); // linear_fc1
            shapes.insert({ h, f / t }); // linear_fc2
        }
    }
    if (lastStage)
        shapes.insert({ double(model.paddedVocabSize(s.tp)) / t, h }); // output_layer
    std::sort(shapeList.begin(), shapeList.begin() + shapeCount);
    const auto last = std::unique(shapeList.begin(), shapeList.begin() + shapeCount);
    double elements = 0;
    for (auto it = shapeList.begin(); it != last; ++it)
        elements += it->first * it->second;
    return bytes * elements;
}

// The release that began caching, read in NVIDIA/TransformerEngine's history (mirror at d0067d0d):
// ba5dc5dd "Enable reuse of dummy wgrad tensor (#1651)", 2025-04-08, is in tag v2.3 (2025-04-28,
// build_tools/VERSION.txt 2.3.0) and not in v2.2 nor v2.2.1. Before it, v2.2
// transformer_engine/pytorch/module/linear.py backward:
//   `wgrad = torch.empty(weight.main_grad.shape, dtype=weight.dtype, device=torch.cuda.current_device(),
//   requires_grad=False)` under `if ctx.fuse_wgrad_accumulation and hasattr(weight, "grad_added_to_main_grad")`
// (layernorm_linear.py and grouped_linear.py alike): a new tensor each backward, dropped once the
// DDP hook has seen it. From v2.3 on, base.py get_dummy_wgrad keeps `_dummy_wgrads[(shape[0],
// shape[1], dtype)]` (unchanged in v2.5, v2.8, v2.10, v2.14 and v2.18 but for the key's form).
bool teCachesDummyWgrads(int teVersion)
{
    return teVersion == 0 || teVersion >= 203;
}

std::optional<int> parseTeVersion(std::string_view text)
{
    if (text == "none")
        return -1;
    int major = 0;
    int minor = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, major);
    if (ec != std::errc() || p == end || *p != '.' || major > 99)
        return std::nullopt;
    auto [q, ec2] = std::from_chars(p + 1, end, minor);
    if (ec2 != std::errc() || q == p + 1 || minor > 99 || (q != end && *q != '.'))
        return std::nullopt;
    const int version = major * 100 + minor;
    if (version <= 0)
        return std::nullopt;
    return version;
}

std::string teVersionName(int teVersion)
{
    if (teVersion < 0)
        return "none";
    return std::to_string(teVersion / 100) + "." + std::to_string(teVersion % 100);
}

} // namespace stratex::megatron
