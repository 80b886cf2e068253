// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/flops_convention.h"

#include "core/common/enum_names.h"

namespace stratex::runs {

namespace {

constexpr EnumNames<FlopsConvention, 9> kNames { {
    { FlopsConvention::Narayanan2021, "narayanan2021" },
    { FlopsConvention::Korthikanti2022, "korthikanti2022" },
    { FlopsConvention::Llama3, "llama3" },
    { FlopsConvention::MegatronCore2024, "megatron-core-2024" },
    { FlopsConvention::MegatronCore2025, "megatron-core-2025" },
    { FlopsConvention::NemoModel, "nemo-model" },
    { FlopsConvention::MbridgeModel, "mbridge-model" },
    { FlopsConvention::MosaicMl, "mosaicml" },
    { FlopsConvention::SixNd, "6nd" },
} };

struct Shape {
    double L, h, s, V, a, g, f, gamma, k, fe, fsh, denseShare, moeShare;
    double r; // query_projection_size / hidden_size: heads x kv_channels over h (1 unless head_dim is set)
};

Shape shapeOf(const model::ModelDescription& m)
{
    Shape x {};
    x.L = m.num_layers;
    x.h = m.hidden_size;
    x.s = m.seq_length;
    x.V = m.vocab_size;
    x.a = m.num_heads;
    x.g = m.num_kv_heads;
    x.r = double(m.attentionWidth()) / m.hidden_size;
    x.f = m.ffn_hidden_size;
    x.gamma = m.mlp == model::MlpKind::Gated ? 1.5 : 1.0;
    x.k = m.moe ? m.moe->top_k : 1;
    x.fe = m.moe ? m.moe->expert_ffn_hidden_size : m.ffn_hidden_size;
    x.fsh = m.moe ? double(m.moe->shared_experts) * m.moe->shared_expert_ffn_hidden_size : 0;
    x.moeShare = double(m.moeLayerCount()) / m.num_layers;
    x.denseShare = 1 - x.moeShare;
    return x;
}

} // namespace

std::optional<FlopsConvention> parseFlopsConvention(std::string_view name)
{
    return parseEnumName(kNames, name);
}

double conventionFlops(FlopsConvention convention, const model::ModelDescription& model, double B)
{
    const Shape x = shapeOf(model);
    const double tokens = B * x.s;
    const double nonEmbedding = model::countParameters(model).total
        - double(model.vocab_size) * model.hidden_size * (model.tied_embeddings ? 1 : 2);
    // Megatron-LM's num_floating_point_operations scales its attention terms by
    // query_projection_to_hidden_size_ratio (training.py at core_r0.8.0 and d98e8a64): x.r.
    switch (convention) {
    case FlopsConvention::Narayanan2021:
        return 96 * B * x.s * x.L * x.h * x.h * (1 + x.s / (6 * x.h) + x.V / (16 * x.L * x.h));
    case FlopsConvention::Korthikanti2022:
        return 72 * B * x.s * x.L * x.h * x.h * (1 + x.s / (6 * x.h) + x.V / (12 * x.h * x.L));
    case FlopsConvention::Llama3:
        // PaLM's count (Chowdhery et al. 2022, App. B: 6N + 12·L·H·Q·T), which the Llama 3 paper
        // cites for its MFU (§3.3.2): attention over the full sequence T, no causal halving. Meta's
        // torchtitan counts the same: "we follow the convention and do not account for sparsity in
        // causal attention" (torchtitan/utils.py get_num_flop_per_token @ 239d56fc1, 2024-07-30).
        // At 128K it is 57 % of the count (docs/context-parallel.md, "The Llama 3 128K row").
        return tokens * (6 * nonEmbedding + 12 * x.L * x.h * x.s);
    case FlopsConvention::MegatronCore2024:
        return 12 * B * x.s * x.L * x.h * x.h
            * ((1 + x.g / x.a + x.s / x.h) * x.r + (x.fe / x.h) * x.k * x.gamma + x.V / (2 * x.L * x.h));
    case FlopsConvention::MegatronCore2025:
    case FlopsConvention::MbridgeModel:
        return tokens
            * (12 * x.L * x.h
                    * (x.f * x.gamma * x.denseShare + x.fe * x.k * x.gamma * x.moeShare + x.fsh * x.gamma * x.moeShare)
                + 12 * x.L * x.h * x.h * (1 + x.g / x.a + x.s / (2 * x.h)) * x.r + 6 * x.h * x.V);
    case FlopsConvention::NemoModel:
        if (model.position == model::PositionEmbedding::Learned) // the GPT-3 family
            return tokens * ((24 * x.h * x.h + 4 * x.s * x.h) * 3 * x.L + 6 * x.h * x.V);
        return tokens * x.L * x.h * x.h
            * (12 + 12 * x.g / x.a + (x.gamma == 1.5 ? 18 : 12) * x.k * x.fe / x.h + 12 * x.s / x.h
                + 6 * x.V / (x.L * x.h));
    case FlopsConvention::MosaicMl:
        return tokens * (6 * model::countParameters(model).total + 12 * x.L * x.h * x.s);
    case FlopsConvention::SixNd:
        return tokens * 6 * model::countParameters(model).total;
    }
    return 0;
}

std::optional<double> conventionPeakTflops(FlopsConvention convention, std::string_view gpuName)
{
    const bool a100 = gpuName.rfind("a100", 0) == 0;
    switch (convention) {
    case FlopsConvention::Narayanan2021:
    case FlopsConvention::Korthikanti2022:
        return 312.0;
    case FlopsConvention::Llama3:
        return 989.0;
    case FlopsConvention::MosaicMl:
        return a100 ? 312.0 : 989.5;
    default:
        return std::nullopt;
    }
}

} // namespace stratex::runs
