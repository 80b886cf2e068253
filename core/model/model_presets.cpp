// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/model_presets.h"

#include <algorithm>
#include <cctype>

#include "core/common/error.h"

namespace stratex::model {

namespace {

ModelDescription llamaLike(
    std::string name, int layers, int hidden, int ffn, int heads, int kvHeads, int vocab, int seq, bool tied = false)
{
    ModelDescription model;
    model.name = std::move(name);
    model.num_layers = layers;
    model.hidden_size = hidden;
    model.ffn_hidden_size = ffn;
    model.num_heads = heads;
    model.num_kv_heads = kvHeads;
    model.vocab_size = vocab;
    model.seq_length = seq;
    model.mlp = MlpKind::Gated;
    model.norm = NormKind::RmsNorm;
    model.position = PositionEmbedding::Rope;
    model.tied_embeddings = tied;
    return model;
}

ModelDescription gptLike(std::string name, int layers, int hidden, int heads, int vocab, int seq)
{
    ModelDescription model = llamaLike(std::move(name), layers, hidden, 4 * hidden, heads, heads, vocab, seq, true);
    model.mlp = MlpKind::Plain;
    model.norm = NormKind::LayerNorm;
    model.position = PositionEmbedding::Learned;
    return model;
}

ModelDescription withQkvBias(ModelDescription model)
{
    model.qkv_bias = true;
    return model;
}

ModelDescription withMoe(ModelDescription model, MoeDescription moe)
{
    model.moe = moe;
    return model;
}

std::vector<ModelDescription> buildPresets()
{
    return {
        // Llama 2 (Touvron et al. 2023, Table 1; HF config.json): 4K context, MHA below 70B.
        llamaLike("llama2-7b", 32, 4096, 11008, 32, 32, 32000, 4096),
        llamaLike("llama2-13b", 40, 5120, 13824, 40, 40, 32000, 4096),
        llamaLike("llama2-70b", 80, 8192, 28672, 64, 8, 32000, 4096),
        // Llama 3 / 3.1 (Llama 3 Herd paper, Table 3): 128K vocabulary, GQA with 8 KV heads,
        // pre-trained at 8K.
        llamaLike("llama3-8b", 32, 4096, 14336, 32, 8, 128256, 8192),
        llamaLike("llama3-70b", 80, 8192, 28672, 64, 8, 128256, 8192),
        llamaLike("llama3-405b", 126, 16384, 53248, 128, 8, 128256, 8192),
        // Qwen 2.5 (HF config.json): biases on Q, K and V only (transformers' modeling_qwen2.py builds
        // q/k/v_proj with bias=True, o_proj and the MLP without); the 7B has 4 KV heads.
        withQkvBias(llamaLike("qwen2.5-7b", 28, 3584, 18944, 28, 4, 152064, 8192)),
        withQkvBias(llamaLike("qwen2.5-14b", 48, 5120, 13824, 40, 8, 152064, 8192)),
        withQkvBias(llamaLike("qwen2.5-32b", 64, 5120, 27648, 40, 8, 152064, 8192)),
        withQkvBias(llamaLike("qwen2.5-72b", 80, 8192, 29568, 64, 8, 152064, 8192)),
        // The founding user's two Qwen-like models, as their profiling table gave them (the project's
        // original request; the numbers are all there is): trained at 32K and 128K tokens.
        llamaLike("seed-30b", 72, 5120, 25600, 64, 8, 32000, 32768),
        llamaLike("seed-100b", 74, 8192, 49152, 64, 8, 32000, 131072),
        // GPT-3 (Brown et al. 2020, Table 2.1): learned positions, LayerNorm, GeLU, tied embedding.
        gptLike("gpt3-13b", 40, 5120, 40, 50257, 2048),
        gptLike("gpt3-175b", 96, 12288, 96, 50257, 2048),
        // Mixtral (Jiang et al. 2024, Table 1; HF config.json): every layer MoE, 8 experts, top-2.
        withMoe(llamaLike("mixtral-8x7b", 32, 4096, 14336, 32, 8, 32000, 4096), { 8, 2, 14336, 0, 0, 0 }),
        withMoe(llamaLike("mixtral-8x22b", 56, 6144, 16384, 48, 8, 32768, 4096), { 8, 2, 16384, 0, 0, 0 }),
        // DeepSeek-V3 (DeepSeek-AI 2024, §4.2): 61 layers, the first 3 dense (ffn 18432), then 256
        // routed experts of 2048 with top-8 and one shared expert. Its multi-head latent attention
        // is described as 128 full heads: right for FLOPs and activations, the KV compression aside.
        withMoe(llamaLike("deepseek-v3-style", 61, 7168, 18432, 128, 128, 129280, 4096), { 256, 8, 2048, 1, 2048, 3 }),
    };
}

} // namespace

const std::vector<ModelDescription>& modelPresets()
{
    static const std::vector<ModelDescription> presets = buildPresets();
    return presets;
}

bool isModelPreset(const std::string& name)
{
    std::string wanted = name;
    std::ranges::transform(wanted, wanted.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return std::ranges::any_of(modelPresets(), [&](const ModelDescription& preset) { return preset.name == wanted; });
}

ModelDescription modelPreset(const std::string& name)
{
    std::string wanted = name;
    std::ranges::transform(wanted, wanted.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    std::string known;
    for (const ModelDescription& preset : modelPresets()) {
        if (preset.name == wanted)
            return preset;
        known += (known.empty() ? "" : ", ") + preset.name;
    }
    throw Error("unknown model preset '" + name + "' (known: " + known + ")");
}

} // namespace stratex::model
