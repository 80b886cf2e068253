// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/megatron_flags.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/export/shell_quote.h"

namespace stratex::exporting {

namespace {

std::string number(long long n)
{
    return std::to_string(n);
}

// "8", "2.5", "0.25": a float flag's value with no trailing zeros.
std::string decimal(double value)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.6g", value);
    return buffer;
}

bool plainValue(const std::string& value)
{
    return std::all_of(value.begin(), value.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'
            || c == '.';
    });
}

// argparse nargs='+' / '*' flags: their values are separate words on the command line.
bool listFlag(const std::string& flag)
{
    return flag == "--recompute-modules" || flag == "--cp-comm-type" || flag == "--hierarchical-context-parallel-sizes";
}

bool plainWords(const std::string& value)
{
    bool word = false;
    for (const char c : value) {
        if (c == ' ') {
            if (!word)
                return false; // leading or doubled space
            word = false;
        } else if (!plainValue(std::string(1, c))) {
            return false;
        } else {
            word = true;
        }
    }
    return word;
}

bool allEqual(std::vector<int>::const_iterator begin, std::vector<int>::const_iterator end)
{
    return begin == end || std::all_of(begin, end, [&](int n) { return n == *begin; });
}

// One chunk of a --pipeline-model-parallel-layout string: E (embedding), t (a decoder layer), m (a
// multi-token-prediction module), L (loss), "t*n" for n layers (pipeline_parallel_layer_layout.py,
// parse_str_to_list); a chunk without layers is empty. The MTP modules sit in the last chunk before
// the loss: validate_layer_layout wants them after every decoder layer, all in one virtual stage,
// the last of its rank (Megatron-LM d98e8a64).
std::string layoutChunk(int layers, bool first, bool last, int mtpLayers)
{
    std::string chunk = first ? "E" : "";
    if (layers == 1)
        chunk += "t";
    else if (layers > 1)
        chunk += "t*" + std::to_string(layers);
    if (last && mtpLayers == 1)
        chunk += "m";
    else if (last && mtpLayers > 1)
        chunk += "m*" + std::to_string(mtpLayers);
    return chunk + (last ? "L" : "");
}

} // namespace

bool isMegatronFsdp(MegatronDataParallel kind)
{
    return kind == MegatronDataParallel::MegatronFsdp || kind == MegatronDataParallel::MegatronFsdpGrads;
}

std::string megatronDataParallelText(MegatronDataParallel kind)
{
    switch (kind) {
    case MegatronDataParallel::Ddp:
        return "";
    case MegatronDataParallel::DistributedOptimizer:
        return " (distributed optimizer)";
    case MegatronDataParallel::MegatronFsdpGrads:
        return " (Megatron-FSDP, ZeRO-2)";
    case MegatronDataParallel::MegatronFsdp:
        return " (Megatron-FSDP, ZeRO-3)";
    }
    return "";
}

std::string megatronModelSummary(const model::ModelDescription& model)
{
    return "model " + model.name + ": " + number(model.num_layers) + " layers, hidden " + number(model.hidden_size)
        + ", " + number(model.num_heads) + " heads (" + number(model.num_kv_heads) + " KV), MLP "
        + number(model.ffn_hidden_size) + ", seq " + number(model.seq_length) + ", vocabulary "
        + number(model.vocab_size) + " (the tokenizer's arguments set it)";
}

namespace {

// The router's flags (issue 25's MoE routing facts). Names, defaults and rules from Megatron-LM
// main d98e8a64: megatron/core/transformer/transformer_config.py (moe_router_score_function,
// moe_router_pre_softmax, moe_router_enable_expert_bias, moe_router_num_groups,
// moe_router_group_topk, moe_router_topk_scaling_factor, moe_expert_capacity_factor,
// moe_shared_expert_gate: fields that arguments.py's ArgumentGroupFactory turns into flags) and
// the scores as megatron/core/transformer/moe/moe_utils.py topk_routing_with_score_function
// computes them: softmax after the top-k (the top-k renormalised) unless --moe-router-pre-softmax;
// sigmoid scores always renormalised for k > 1; the scaling factor applied last.
void addMegatronRouterArguments(
    MegatronArgumentList& a, const model::MoeDescription& moe, std::vector<std::string>& differences)
{
    const auto add
        = [&a](std::string_view flag, std::string value = {}) { a.emplace_back(std::string(flag), std::move(value)); };
    const MegatronRouter router = megatronRouter(moe, differences);
    if (router.sigmoid)
        add("--moe-router-score-function", "sigmoid");
    if (router.pre_softmax)
        add("--moe-router-pre-softmax");
    if (router.expert_bias)
        add("--moe-router-enable-expert-bias");
    if (router.topk_scaling_factor)
        add("--moe-router-topk-scaling-factor", decimal(*router.topk_scaling_factor));
    if (router.num_groups > 0) {
        add("--moe-router-num-groups", number(router.num_groups));
        add("--moe-router-group-topk", number(router.group_topk));
    }
    if (router.capacity_factor)
        add("--moe-expert-capacity-factor", decimal(*router.capacity_factor));
    if (router.shared_expert_gate)
        add("--moe-shared-expert-gate");
}

} // namespace

MegatronRouter megatronRouter(const model::MoeDescription& moe, std::vector<std::string>& differences)
{
    MegatronRouter router;
    if (moe.score_function == model::RouterScore::Sigmoid) {
        router.sigmoid = true;
        if (!moe.normalize_top_k && moe.top_k > 1)
            differences.push_back("MoE router: sigmoid scores without renormalising the top-k: Megatron "
                                  "renormalises them (moe_utils.py topk_routing_with_score_function)");
    } else if (!moe.normalize_top_k || moe.top_k == 1) {
        // TransformerConfig.__post_init__: "Please use --moe-router-pre-softmax when topk is 1".
        router.pre_softmax = true;
        if (moe.normalize_top_k)
            differences.push_back("MoE router: top-1 softmax written as --moe-router-pre-softmax (Megatron refuses "
                                  "softmax after a top-1): the expert's weight is its probability, not 1");
    }
    // __post_init__: the expert bias only with sigmoid (or sqrtsoftplus) scores; the model's
    // validate() keeps that rule.
    router.expert_bias = moe.expert_bias;
    if (moe.scaling_factor != 1.0)
        router.topk_scaling_factor = moe.scaling_factor;
    // __post_init__: group_topk needs num_groups, num_experts % num_groups == 0 and
    // group_topk <= num_groups (validate() checks the same).
    if (moe.num_groups > 0) {
        router.num_groups = moe.num_groups;
        router.group_topk = moe.group_top_k;
    }
    router.capacity_factor = moe.capacity_factor;
    // "Only effective when moe-shared-expert-intermediate-size is set."
    router.shared_expert_gate = moe.shared_expert_gate && moe.shared_experts > 0;
    return router;
}

std::vector<std::string> addMegatronModelArguments(MegatronArgumentList& a, const model::ModelDescription& model)
{
    std::vector<std::string> differences;
    const auto add
        = [&a](std::string_view flag, std::string value = {}) { a.emplace_back(std::string(flag), std::move(value)); };
    add("--num-layers", number(model.num_layers));
    add("--hidden-size", number(model.hidden_size));
    add("--ffn-hidden-size", number(model.ffn_hidden_size));
    add("--num-attention-heads", number(model.num_heads));
    if (model.num_kv_heads < model.num_heads && !model.mla) {
        // core_transformer_config_from_args reads --num-query-groups only with --group-query-attention.
        add("--group-query-attention");
        add("--num-query-groups", number(model.num_kv_heads));
    }
    add("--seq-length", number(model.seq_length));
    add("--max-position-embeddings", number(model.seq_length));
    if (model.mlp == model::MlpKind::Gated)
        add("--swiglu");
    else if (model.activation == model::MlpActivation::Relu) // arguments.py @ d98e8a64: --swiglu, --squared-relu, --quick-geglu
        differences.push_back("ReLU MLP: Megatron-LM has no ReLU flag (its activations: GeLU by default, --swiglu, "
                              "--squared-relu, --quick-geglu); written as GeLU");
    add("--normalization", model.norm == model::NormKind::RmsNorm ? "RMSNorm" : "LayerNorm");
    add("--position-embedding-type", model.position == model::PositionEmbedding::Rope ? "rope" : "learned_absolute");
    if (model.position == model::PositionEmbedding::Rope) {
        // arguments.py: --rotary-base type=int, default 10000.
        const long long base = std::llround(model.rotary_base);
        add("--rotary-base", number(base));
        if (double(base) != model.rotary_base)
            differences.push_back("RoPE base " + decimal(model.rotary_base) + ": Megatron's --rotary-base is an "
                "integer, " + number(base) + " is written");
        if (model.rope_scaling && !model.mla) {
            // arguments.py --use-rope-scaling ("as used in llama3.x") and --rope-scaling-factor
            // (default 8.0); rotary_pos_embedding.py _apply_scaling fixes the other three.
            const model::RopeScaling& r = *model.rope_scaling;
            add("--use-rope-scaling");
            add("--rope-scaling-factor", decimal(r.factor));
            if (r.low_freq_factor != 1.0 || r.high_freq_factor != 4.0 || r.original_max_positions != 8192)
                differences.push_back("RoPE scaling low/high frequency factors " + decimal(r.low_freq_factor) + "/"
                    + decimal(r.high_freq_factor) + " over " + number(r.original_max_positions)
                    + " positions: Megatron's --use-rope-scaling fixes them at 1/4 over 8192");
        }
    }
    if (model.mla) {
        // _add_mla_args and TransformerConfig.multi_latent_attention; validate_args: MLA excludes
        // --group-query-attention. gpt_layer_specs.py: with MLA, --qk-layernorm is the norm of the
        // query and KV latents (DeepSeek's q_a_layernorm / kv_a_layernorm).
        const model::MlaDescription& mla = *model.mla;
        add("--multi-latent-attention");
        if (mla.q_lora_rank > 0)
            add("--q-lora-rank", number(mla.q_lora_rank));
        add("--kv-lora-rank", number(mla.kv_lora_rank));
        add("--qk-head-dim", number(mla.qk_nope_head_dim));
        add("--qk-pos-emb-head-dim", number(mla.qk_rope_head_dim));
        add("--v-head-dim", number(mla.v_head_dim));
        add("--qk-layernorm");
        // arguments.py --rope-type: "MLA takes yarn by default"; the model's own RoPE is plain
        // unless it has the Llama 3.1 scaling, which Megatron's MLA does not apply.
        add("--rope-type", "rope");
        // MLATransformerConfig.__post_init__ (transformer_config.py, NVIDIA/Megatron-LM@d98e8a64):
        // "apply_rope_fusion for MLA only works with YARN RoPE", and the fusion is on by default;
        // found by running Megatron's own loader on the export (docs/export-loaders.md).
        add("--no-rope-fusion");
        if (model.rope_scaling)
            differences.push_back("RoPE scaling with multi-latent attention: Megatron's MLA applies YaRN or "
                                  "none, not Llama 3.1's scaling (written without it)");
    } else if (model.qk_norm) {
        add("--qk-layernorm");
    }
    // TransformerConfig.kv_channels (--kv-channels): validate_args defaults it to
    // hidden_size // num_attention_heads; MLA's heads are its own ranks.
    if (model.head_dim > 0 && !model.mla && model.head_dim != model.hidden_size / model.num_heads)
        add("--kv-channels", number(model.head_dim));
    if (model.position == model::PositionEmbedding::Rope && model.rotary_percent != 1.0)
        add("--rotary-percent", decimal(model.rotary_percent)); // arguments.py --rotary-percent, default 1.0
    if (model.vocab_padding_multiple != 128)
        add("--make-vocab-size-divisible-by", number(model.vocab_padding_multiple));
    // arguments.py --mtp-num-layers (TransformerConfig.mtp_num_layers, default None): the modules
    // land on the last pipeline stage's last virtual stage (multi_token_prediction.py
    // mtp_on_this_rank), where the plan costs them.
    if (model.mtp_num_layers > 0)
        add("--mtp-num-layers", number(model.mtp_num_layers));
    if (!model.tied_embeddings)
        add("--untie-embeddings-and-output-weights");
    if (model.mlp == model::MlpKind::Gated) {
        // Llama-style models have no linear biases; Qwen 2 / 2.5 keep one on Q, K and V
        // (validate_args: add_bias_linear implies add_qkv_bias, not the reverse).
        add("--disable-bias-linear");
        if (model.qkv_bias)
            add("--add-qkv-bias");
    }
    // Dropout: Megatron's --hidden-dropout and --attention-dropout default to 0.1 (arguments.py
    // _add_regularization_args before 639c08ab; TransformerConfig since), and the 1-byte masks are
    // kept for backward. The layer model costs a gated model without them unless the model says
    // otherwise (layer_cost.cpp), so the arguments say what was costed.
    const double dropout = model.hidden_dropout.value_or(model.mlp == model::MlpKind::Gated ? 0.0 : 0.1);
    if (dropout == 0) {
        add("--attention-dropout", "0.0");
        add("--hidden-dropout", "0.0");
    } else if (dropout != 0.1) {
        add("--hidden-dropout", decimal(dropout));
    }
    if (model.moe) {
        const model::MoeDescription& moe = *model.moe;
        add("--num-experts", number(moe.num_experts));
        add("--moe-router-topk", number(moe.top_k));
        add("--moe-ffn-hidden-size", number(moe.expert_ffn_hidden_size));
        if (moe.shared_experts > 0)
            add("--moe-shared-expert-intermediate-size",
                number(static_cast<long long>(moe.shared_experts) * moe.shared_expert_ffn_hidden_size));
        if (moe.first_dense_layers > 0)
            add("--moe-layer-freq",
                "([0]*" + number(moe.first_dense_layers) + "+[1]*" + number(model.num_layers - moe.first_dense_layers)
                    + ")");
        addMegatronRouterArguments(a, moe, differences);
    }
    return differences;
}

MegatronPipelineLayout megatronPipelineLayout(const std::vector<int>& chunkLayers, int pp, int mtpLayers)
{
    MegatronPipelineLayout m;
    const int chunks = int(chunkLayers.size());
    if (pp <= 1 && chunks <= 1)
        return m;
    const int vpp = pp > 0 ? chunks / pp : 1;
    // Per rank: its layers and whether its chunks share them evenly.
    std::vector<int> perRank(std::size_t(pp), 0);
    bool chunksEven = true;
    for (int i = 0; i < pp; ++i) {
        for (int j = 0; j < vpp; ++j) {
            const int n = chunkLayers[std::size_t(j * pp + i)];
            perRank[std::size_t(i)] += n;
            chunksEven = chunksEven && n == chunkLayers[std::size_t(i)];
        }
    }
    if (chunksEven && std::all_of(chunkLayers.begin(), chunkLayers.end(), [](int n) { return n > 0; })) {
        if (allEqual(perRank.begin(), perRank.end()))
            return m;
        if (allEqual(perRank.begin(), perRank.end() - 1)) {
            m.last_stage_layers = perRank.back();
            return m;
        }
        if (allEqual(perRank.begin() + 1, perRank.end())) {
            m.first_stage_layers = perRank.front();
            return m;
        }
        if (pp >= 3 && allEqual(perRank.begin() + 1, perRank.end() - 1)) {
            m.first_stage_layers = perRank.front();
            m.last_stage_layers = perRank.back();
            return m;
        }
    }
    for (int c = 0; c < chunks; ++c)
        m.layout += (c ? "|" : "") + layoutChunk(chunkLayers[std::size_t(c)], c == 0, c + 1 == chunks, mtpLayers);
    return m;
}

void addMegatronRunArguments(MegatronArgumentList& a, const MegatronRun& run, bool moeModel)
{
    const auto add
        = [&a](std::string_view flag, std::string value = {}) { a.emplace_back(std::string(flag), std::move(value)); };
    add("--tensor-model-parallel-size", number(run.tensor_parallel));
    add("--pipeline-model-parallel-size", number(run.pipeline_parallel));
    const MegatronPipelineLayout& division = run.division;
    if (!division.layout.empty())
        add("--pipeline-model-parallel-layout", division.layout);
    else if (run.virtual_stages > 1)
        add("--num-virtual-stages-per-pipeline-rank", number(run.virtual_stages));
    if (run.microbatch_group_size > 0) // N, when not Megatron's default pp (docs/memory-model.md)
        add("--microbatch-group-size-per-virtual-pipeline-stage", number(run.microbatch_group_size));
    if (division.first_stage_layers > 0)
        add("--decoder-first-pipeline-num-layers", number(division.first_stage_layers));
    if (division.last_stage_layers > 0)
        add("--decoder-last-pipeline-num-layers", number(division.last_stage_layers));
    if (run.context_parallel > 1) {
        add("--context-parallel-size", number(run.context_parallel));
        add("--cp-comm-type", run.cp_comm_type);
        if (run.hierarchical_cp_sizes.size() == 2) // Megatron-LM arguments.py: needed with a2a+p2p
            add("--hierarchical-context-parallel-sizes",
                number(run.hierarchical_cp_sizes[0]) + " " + number(run.hierarchical_cp_sizes[1]));
    }
    if (moeModel) {
        add("--expert-model-parallel-size", number(run.expert_parallel));
        if (run.expert_tensor_parallel > 0)
            add("--expert-tensor-parallel-size", number(run.expert_tensor_parallel));
        if (!run.moe_token_dispatcher.empty())
            add("--moe-token-dispatcher-type", run.moe_token_dispatcher);
        if (run.moe_ep_comm_overlap)
            add("--overlap-moe-expert-parallel-comm");
    }
    if (run.sequence_parallel)
        add("--sequence-parallel");
    if (run.tp_comm_overlap && run.sequence_parallel)
        add("--tp-comm-overlap");
    if (!run.recompute_granularity.empty()) {
        add("--recompute-granularity", run.recompute_granularity);
        if (run.recompute_granularity == "selective" && !run.recompute_modules.empty()) {
            add("--recompute-modules", run.recompute_modules);
            // transformer_config.py: "moe_act in recompute_modules is only supported with moe_grouped_gemm".
            if (moeModel && (" " + run.recompute_modules + " ").find(" moe_act ") != std::string::npos)
                add("--moe-grouped-gemm");
        }
        if (run.recompute_granularity == "full") {
            add("--recompute-method", run.recompute_method);
            add("--recompute-num-layers", number(run.recompute_layers));
        }
    }
    // CPU activation offload (transformer_config.py cpu_offloading*, arguments.py @ d98e8a64;
    // docs/memory-model.md, "CPU activation offload"): activations only, Megatron's defaults.
    if (run.cpu_offloading_layers > 0) {
        add("--cpu-offloading");
        add("--cpu-offloading-num-layers", number(run.cpu_offloading_layers));
    }
    // CUDA graphs (arguments.py _add_inference_args --cuda-graph-modules, transformer_config.py
    // cuda_graph_impl @ d98e8a64; docs/kernels.md §7). Full-iteration graphs of a dropless MoE model
    // take Megatron-Bridge's set_full_iter_cg_configs (scripts/performance/configs/qwen/
    // qwen3_llm_pretrain.py @ v0.5.0): experts padded to a fixed rank capacity on HybridEP, the
    // saved activations paged (TransformerConfig fields, flags through ArgumentGroupFactory).
    if (!run.cuda_graph_impl.empty()) {
        add("--cuda-graph-impl", run.cuda_graph_impl);
        if (!run.cuda_graph_modules.empty())
            add("--cuda-graph-modules", run.cuda_graph_modules);
        if (run.cuda_graph_impl == "full_iteration") {
            add("--no-check-for-nan-in-loss-and-grad");
            if (moeModel) {
                add("--moe-flex-dispatcher-backend", "hybridep");
                add("--moe-pad-experts-for-cuda-graph-inference");
                add("--moe-expert-rank-capacity-factor", "1.5");
                add("--moe-paged-stash");
                add("--moe-paged-stash-buffer-size-factor-cuda", "1.2");
                add("--moe-paged-stash-buffer-size-factor-cpu", "1.0");
            }
        }
    }
    add("--micro-batch-size", number(run.micro_batch_size));
    add("--global-batch-size", number(run.global_batch_size));
    switch (run.data_parallel_kind) {
    case MegatronDataParallel::Ddp:
        break;
    case MegatronDataParallel::DistributedOptimizer:
        add("--use-distributed-optimizer");
        break;
    case MegatronDataParallel::MegatronFsdpGrads:
    case MegatronDataParallel::MegatronFsdp:
        // Megatron-FSDP, not --use-torch-fsdp2: validate_args refuses torch FSDP2 with pipeline
        // and expert parallelism, tied embeddings and fp16. v1 (the default) runs on the
        // distributed optimizer and requires the fsdp_dtensor checkpoint format.
        add("--use-megatron-fsdp");
        add("--data-parallel-sharding-strategy",
            run.data_parallel_kind == MegatronDataParallel::MegatronFsdp ? "optim_grads_params" : "optim_grads");
        add("--use-distributed-optimizer");
        add("--ckpt-format", "fsdp_dtensor");
        break;
    }
    if (run.distributed_optimizer_instances > 1) // HSDP (docs/hsdp.md; arguments.py @ d98e8a64)
        add("--num-distributed-optimizer-instances", number(run.distributed_optimizer_instances));
    if (run.overlap_grad_reduce)
        add("--overlap-grad-reduce");
    if (run.overlap_param_gather)
        add("--overlap-param-gather");
    // The state dtypes (docs/memory-model.md, "Megatron-Core"; arguments.py @ d98e8a64).
    if (run.grad_reduce_in_bf16)
        add("--grad-reduce-in-bf16");
    if (!run.gradient_accumulation_fusion)
        add("--no-gradient-accumulation-fusion");
    if (run.cross_entropy_loss_fusion) // docs/memory-model.md, "Fused cross-entropy loss"
        add("--cross-entropy-loss-fusion");
    if (run.bf16_optimizer_states) {
        add("--use-precision-aware-optimizer");
        add("--exp-avg-dtype", "bf16");
        add("--exp-avg-sq-dtype", "bf16");
    }
    switch (run.precision) {
    case MegatronPrecision::Fp32:
        break;
    case MegatronPrecision::Bf16:
        add("--bf16");
        break;
    case MegatronPrecision::Fp16:
        add("--fp16");
        break;
    case MegatronPrecision::Fp8: {
        add("--bf16");
        add("--fp8-format", "hybrid");
        // The plan's recipe; delayed is Megatron's default. Layernorm and moe_act recompute resolve to
        // tensorwise ("Delayed scaling does not support moe_act and layernorm recompute for fp8",
        // transformer_config.py; megatron::resolvedFp8Recipe).
        if (run.fp8_recipe != "delayed")
            add("--fp8-recipe", run.fp8_recipe);
        break;
    }
    }
    if (run.unfused_attention)
        add("--attention-backend", "unfused");
    else if (!run.attention_backend.empty())
        add("--attention-backend", run.attention_backend);
}

MegatronEnvironment megatronEnvironment(int tp, int cp, MegatronDataParallel kind)
{
    static const std::string connections = "CUDA_DEVICE_MAX_CONNECTIONS";
    MegatronEnvironment environment;
    if (isMegatronFsdp(kind))
        environment.unset.push_back(connections);
    else if (tp > 1 || cp > 1)
        environment.set.emplace_back(connections, "1");
    return environment;
}

std::vector<std::string> megatronArgumentLines(const MegatronArgumentList& args)
{
    std::vector<std::string> lines;
    for (const auto& [flag, value] : args)
        lines.push_back(value.empty() ? flag
                                      : flag + " "
                    + (plainValue(value) || (listFlag(flag) && plainWords(value)) ? value : shellQuote(value)));
    return lines;
}

std::string megatronLaunchText(
    const MegatronArgumentList& args, const MegatronEnvironment& environment, int numNodes, int gpusPerNode)
{
    std::string s;
    s += "# Source it for MEGATRON_ARGS, or run it with the data, tokenizer and optimizer arguments appended:\n";
    s += "#   " + std::string(numNodes > 1 ? "MASTER_ADDR=host0 NODE_RANK=0 " : "")
        + "./megatron_args.sh --data-path ... --tokenizer-type ... --lr ... --train-iters ...\n";
    s += "MEGATRON_ARGS=(\n";
    for (const std::string& argument : megatronArgumentLines(args))
        s += "    " + argument + "\n";
    s += ")\n";
    s += "if [[ \"${BASH_SOURCE[0]}\" == \"$0\" ]]; then\n";
    std::string env;
    for (const std::string& name : environment.unset)
        env += " -u " + name;
    for (const auto& [name, value] : environment.set)
        env += " " + name + "=" + value;
    s += "    exec " + (env.empty() ? std::string() : "env" + env + " ") + "torchrun";
    if (numNodes > 1) {
        s += " --nnodes " + number(numNodes) + " --nproc-per-node " + number(gpusPerNode) + " \\\n";
        s += "        --node-rank \"${NODE_RANK:?set NODE_RANK (0 to " + number(numNodes - 1)
            + ")}\" --master-addr \"${MASTER_ADDR:?set MASTER_ADDR}\" --master-port \"${MASTER_PORT:-6000}\" \\\n";
    } else {
        s += " --standalone --nproc-per-node " + number(gpusPerNode) + " \\\n";
    }
    s += "        \"${PRETRAIN_GPT:-pretrain_gpt.py}\" \"${MEGATRON_ARGS[@]}\" \"$@\"\n";
    s += "fi\n";
    return s;
}

} // namespace stratex::exporting
