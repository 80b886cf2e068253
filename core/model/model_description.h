// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace stratex::model {

enum class MlpKind {
    Gated, // SwiGLU (LLaMA, Qwen, Mixtral): three h x ffn matrices
    Plain // GeLU (GPT-3): two h x ffn matrices
};

// The activation function of a plain (two-matrix) MLP (HF "activation_function" / "hidden_act"):
// GeLU (GPT-2, GPT-3, GPT-NeoX) or ReLU (OPT). It sets what autograd keeps for backward (PyTorch
// derivatives.yaml: gelu's backward reads `self`, its input; relu's `result`, its output, the very
// tensor fc2 keeps: docs/memory-model.md, "The MLP's activation function"). A gated MLP is SwiGLU.
enum class MlpActivation { Gelu, Relu };

enum class NormKind { RmsNorm, LayerNorm };

enum class PositionEmbedding {
    Rope, // rotary: no weights, an elementwise op on q and k
    Learned // a seq x h table (GPT-3)
};

std::string_view mlpKindName(MlpKind kind); // "gated", "plain"
std::optional<MlpKind> parseMlpKind(std::string_view name);
std::string_view mlpActivationName(MlpActivation activation); // "gelu", "relu"
std::optional<MlpActivation> parseMlpActivation(std::string_view name);
std::string_view normKindName(NormKind kind); // "rmsnorm", "layernorm"
std::optional<NormKind> parseNormKind(std::string_view name);
std::string_view positionEmbeddingName(PositionEmbedding kind); // "rope", "learned"
std::optional<PositionEmbedding> parsePositionEmbedding(std::string_view name);

// How a MoE router turns its logits into expert scores (HF config.json "scoring_func"; Megatron's
// --moe-router-score-function, transformer_config.py moe_router_score_function).
enum class RouterScore { Softmax, Sigmoid };
std::string_view routerScoreName(RouterScore score); // "softmax", "sigmoid"
std::optional<RouterScore> parseRouterScore(std::string_view name);

// Mixture of experts in Megatron's terms: the MLP of a MoE layer is `num_experts` gated/plain
// experts of `expert_ffn_hidden_size`, each token routed to `top_k` of them, plus `shared_experts`
// always-active experts (DeepSeek). The first `first_dense_layers` layers keep a dense MLP
// (Megatron's --moe-layer-freq pattern as DeepSeek-V3 uses it).
//
// The routing facts (issue 25) say how the router picks and weighs the top-k experts, in the terms
// of Megatron-LM's topk_routing_with_score_function (megatron/core/transformer/moe/moe_utils.py,
// d98e8a64) and of the HF configs (DeepSeek-V3: "scoring_func", "topk_method", "n_group",
// "topk_group", "routed_scaling_factor", "norm_topk_prob"). They change neither the parameter
// count nor the FLOPs the cost model counts; the exports write them.
struct MoeDescription {
    int num_experts = 0;
    int top_k = 0;
    int expert_ffn_hidden_size = 0;
    int shared_experts = 0;
    int shared_expert_ffn_hidden_size = 0;
    int first_dense_layers = 0;
    RouterScore score_function = RouterScore::Softmax;
    // The top-k weights renormalised to sum to 1 (HF "norm_topk_prob"; Mixtral always). Softmax
    // without it is Megatron's --moe-router-pre-softmax (softmax over all experts, then top-k);
    // Megatron always renormalises sigmoid scores of k > 1.
    bool normalize_top_k = true;
    // Aux-loss-free balancing: a per-expert bias added to the scores for the choice only
    // (DeepSeek-V3 "topk_method": "noaux_tc"; --moe-router-enable-expert-bias, sigmoid only).
    bool expert_bias = false;
    // Group-limited routing: the experts in `num_groups` groups, a token's top-k taken from its
    // best `group_top_k` groups (DeepSeek-V2/V3 "n_group", "topk_group"; 0: not limited).
    int num_groups = 0;
    int group_top_k = 0;
    // The routed experts' weights multiplied by this (DeepSeek "routed_scaling_factor").
    double scaling_factor = 1.0;
    // Tokens an expert takes at most, as a multiple of an even share; nothing: dropless.
    std::optional<double> capacity_factor;
    // A sigmoid gate on the shared experts' output (Qwen 1.5/2 MoE "shared_expert_gate";
    // Megatron's --moe-shared-expert-gate).
    bool shared_expert_gate = false;
    // Biases on the experts' fc1 and fc2 (gpt-oss: Megatron's --add-bias-linear on a MoE model,
    // Megatron-Bridge's gpt_oss_bridge.py add_bias_linear = True). They change the cost, not the
    // FLOPs: Megatron-Core adds fc2's bias outside the GEMM, per expert (moe_kernels.h
    // expertFc2BiasPasses; docs/moe.md, "The experts' fc2 bias"). Their parameters (fc1 2 x ffn,
    // fc2 hidden per expert) are below 0.1 % of the experts' weights and not counted.
    bool linear_bias = false;

    auto operator<=>(const MoeDescription&) const = default;
};

// RoPE frequency scaling for long context, Llama 3.1's rule (HF config.json "rope_scaling" with
// rope_type "llama3"; transformers' modeling_rope_utils.py _compute_llama3_parameters): wavelengths
// above original_max_positions / low_freq_factor are divided by `factor`, those below
// original_max_positions / high_freq_factor kept, the band between interpolated.
struct RopeScaling {
    double factor = 8.0;
    double low_freq_factor = 1.0;
    double high_freq_factor = 4.0;
    int original_max_positions = 8192;

    auto operator<=>(const RopeScaling&) const = default;
};

// Multi-head latent attention (DeepSeek-V2/V3, HF config.json of deepseek-ai/DeepSeek-V3): queries
// through a rank-q_lora_rank bottleneck (0: a full projection, DeepSeek-V2-Lite), keys and values
// through a shared rank-kv_lora_rank latent; a query/key head is qk_nope_head_dim + qk_rope_head_dim
// wide (the RoPE part shared by every head), a value head v_head_dim. The latents are normalised
// (q_a_layernorm, kv_a_layernorm).
struct MlaDescription {
    int q_lora_rank = 0;
    int kv_lora_rank = 0;
    int qk_nope_head_dim = 0;
    int qk_rope_head_dim = 0;
    int v_head_dim = 0;

    auto operator<=>(const MlaDescription&) const = default;
};

// A decoder-only transformer as Megatron-LM builds it: enough to count parameters, FLOPs and
// activation bytes per layer and to write the architecture flags of a launch script.
// Grouped-query attention is num_kv_heads < num_heads. Multi-head latent attention (DeepSeek) is
// counted in its own shapes (`mla`; mla_shapes.h: DeepSeek-V2 §2.1, Megatron-LM's MLASelfAttention):
// its parameters, FLOPs and the activations it keeps for backward.
struct ModelDescription {
    std::string name;
    int num_layers = 0;
    int hidden_size = 0;
    int ffn_hidden_size = 0; // the dense MLP's (of every layer when there is no MoE)
    int num_heads = 0;
    int num_kv_heads = 0;
    int vocab_size = 0;
    int seq_length = 0;
    MlpKind mlp = MlpKind::Gated;
    MlpActivation activation = MlpActivation::Gelu; // the plain MLP's; relu only with mlp plain
    NormKind norm = NormKind::RmsNorm;
    PositionEmbedding position = PositionEmbedding::Rope;
    bool tied_embeddings = false;
    // A bias on the Q, K and V projections and none elsewhere (Qwen 2 / 2.5: Megatron's
    // --add-qkv-bias with --disable-bias-linear). Only gated-MLP models: a plain one (GPT-3) has
    // biases on every linear layer, which the parameter count leaves out.
    bool qkv_bias = false;
    // RoPE (position == Rope): the base frequency (HF "rope_theta"; Megatron's --rotary-base,
    // default 10000) and the long-context scaling, if any.
    double rotary_base = 10000;
    std::optional<RopeScaling> rope_scaling;
    // YaRN RoPE scaling (gpt-oss; Megatron's --position-embedding-type yarn). Its frequencies are
    // not costed; what it changes is that Megatron-Bridge then runs RoPE unfused
    // (core/megatron/unfused_rope.h; docs/moe.md, "The experts' fc2 bias", YaRN).
    bool rope_yarn = false;
    // Per-head RMSNorm on queries and keys before RoPE (Qwen 3, OLMo 2: Megatron's --qk-layernorm).
    bool qk_norm = false;
    // Megatron's --hidden-dropout (default 0.1): the dropout after attention and after the MLP, whose
    // 1-byte masks are kept for backward (layer_cost.cpp). Not given: 0.1 for a plain MLP (GPT-3
    // style), 0 for a gated one (Llama style recipes set it to 0).
    std::optional<double> hidden_dropout;
    // The dropout on the attention probabilities (Megatron's --attention-dropout, default 0.1; HF
    // "attention_dropout", 0.0 in every OPT config): with it the probabilities' 1-byte mask and
    // the dropped copy are kept for backward (unfused_attention_memory.h). Not given: as
    // hidden_dropout's rule (attentionDropout()).
    std::optional<double> attention_dropout;
    bool attentionDropout() const
    {
        if (attention_dropout)
            return *attention_dropout > 0;
        return hidden_dropout ? *hidden_dropout > 0 : mlp != MlpKind::Gated;
    }
    std::optional<MlaDescription> mla;
    // The embedding and LM head hold vocab_size rounded up to a multiple of this times the TP
    // degree (Megatron's --make-vocab-size-divisible-by, default 128; build_tokenizer.py): the
    // padding rule the exports write.
    int vocab_padding_multiple = 128;
    std::optional<MoeDescription> moe;
    // A head width other than hidden_size / num_heads (HF "head_dim": Qwen 3, Gemma 7B, Llama 4,
    // gpt-oss; Megatron's --kv-channels); 0: hidden_size / num_heads. Every cost counts it through
    // headDim(), attentionWidth() and kvHiddenSize(); MLA has its own (mla_shapes.h).
    int head_dim = 0;
    // The share of each head's dimensions RoPE rotates (HF "partial_rotary_factor", GPT-NeoX
    // "rotary_pct": Nemotron 0.5, Pythia 0.25; Megatron's --rotary-percent); 1 for all.
    double rotary_percent = 1.0;
    // Multi-token prediction modules after the decoder (DeepSeek-V3's MTP, depth D = 1 in its
    // pre-training, arXiv 2412.19437 §2.2; Megatron's --mtp-num-layers, HF
    // "num_nextn_predict_layers"): each one an embedding of the shifted tokens, two RMSNorms, a
    // 2h -> h projection (eh_proj), one decoder layer of the last layer's kind and the shared LM
    // head's logits and loss, all on the last pipeline stage (Megatron-LM
    // megatron/core/transformer/multi_token_prediction.py @ d98e8a64; docs/moe.md, "Multi-token
    // prediction"). Costed and held in memory; not in the parameter count or the model FLOPs.
    int mtp_num_layers = 0;

    // Megatron-LM d98e8a64 (transformer_config.py): TransformerConfig.kv_channels defaults to
    // hidden_size // num_attention_heads; attention.py builds linear_qkv of query_projection_size
    // (kv_channels x heads) + 2 x kv_projection_size (kv_channels x num_query_groups) outputs and
    // linear_proj of query_projection_size inputs. Qwen3-235B-A22B: 64 x 128 = 8192, hidden 4096.
    int headDim() const { return head_dim > 0 ? head_dim : hidden_size / num_heads; }
    int attentionWidth() const { return num_heads * headDim(); } // Q and the attention output
    int kvHiddenSize() const { return num_kv_heads * headDim(); } // K and V each
    bool isMoeLayer(int layer) const { return moe && layer >= moe->first_dense_layers; }
    int moeLayerCount() const { return moe ? num_layers - moe->first_dense_layers : 0; }
    // vocab_size padded as Megatron pads it for `tensorParallel` ranks.
    int paddedVocabSize(int tensorParallel) const;

    // Throws stratex::Error with a one-line reason when the shape cannot be a transformer
    // (non-positive sizes, heads not dividing hidden, kv heads not dividing heads, top-k above
    // the expert count, more dense layers than layers, a non-positive RoPE base or scaling factor,
    // MLA ranks that are not positive, routing groups that do not divide the experts, an expert
    // bias without sigmoid scores, a head_dim or rotary_percent out of range).
    void validate() const;

    auto operator<=>(const ModelDescription&) const = default;
};

// Parameter counts (weights, no optimizer state). Biases are counted where the description has
// them (qkv_bias); GPT-3's linear biases are left out (below 0.1 % of its weights).
struct ParameterCount {
    double attention = 0; // per layer: Q, K, V, O (and Q, K, V biases with qkv_bias; MLA's own)
    double dense_mlp = 0; // per dense layer
    double expert_mlp = 0; // per expert
    double shared_mlp = 0; // all shared experts of a MoE layer
    double router = 0; // per MoE layer
    double norms = 0; // per layer: two norm vectors
    double embedding = 0; // the input embedding (plus learned positions)
    double output = 0; // the LM head; 0 when tied
    double final_norm = 0;

    double total = 0; // every weight
    double active = 0; // weights a token touches (top-k experts): what sets FLOPs
};
ParameterCount countParameters(const ModelDescription& model);

} // namespace stratex::model
