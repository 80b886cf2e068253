// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Megatron-LM's own rules for pretrain_gpt.py arguments, written down here from its
// sources (NVIDIA/Megatron-LM main at d98e8a64, read for this test; no code copied):
// - megatron/training/arguments.py: _add_network_size_args (--group-query-attention,
//   --position-embedding-type choices, --swiglu, --untie-embeddings-and-output-weights),
//   _add_distributed_args (--pipeline-model-parallel-layout, --decoder-first/last-pipeline-num-layers,
//   --use-distributed-optimizer, --data-parallel-sharding-strategy choices, --cp-comm-type),
//   _add_moe_args (--num-experts, --moe-layer-freq) and validate_args (the asserts quoted below);
//   the router's TransformerConfig fields and __post_init__ checks (transformer_config.py);
// - megatron/core/transformer/transformer_config.py: the TransformerConfig fields that become flags
//   (megatron/training/argument_utils.py ArgumentGroupFactory: --field-name, a bool defaulting to
//   False is store_true, add_bias_linear is --disable-bias-linear, a Literal gives the choices) and
//   __post_init__ (heads and query groups against TP, recompute combinations, uneven pipelines);
// - megatron/training/config/common_config.py: --use-megatron-fsdp, --use-torch-fsdp2;
//   megatron/training/config/training_config.py: --ckpt-format choices;
// - megatron/core/transformer/pipeline_parallel_layer_layout.py: the layout string grammar;
// - megatron/core/num_microbatches_calculator.py: the global batch divides into micro-batches x dp.
// - the model's facts: arguments.py _add_network_size_args (--rotary-base type=int,
//   --use-rope-scaling, --rope-scaling-factor type=float, --make-vocab-size-divisible-by),
//   _add_mla_args (--q-lora-rank, --kv-lora-rank, --qk-head-dim, --qk-pos-emb-head-dim,
//   --v-head-dim), --rope-type choices rope/yarn, validate_args ("Group query attention is mutually
//   exclusive with multi latent attention"), argument_utils.py ("Common attention only support
//   rope_type=rope"), TransformerConfig.multi_latent_attention / qk_layernorm / add_qkv_bias.
// - virtual stages, expert parallelism, FP8, overlap and the attention backend: arguments.py
//   _add_distributed_args and validate_args, model_parallel_config.py, transformer_config.py,
//   transformer/enums.py AttnBackend, moe/moe_layer.py (MoE + TP needs sequence parallelism),
//   core/parallel_state.py (the expert rank grid).
// Shared by the suites of both Megatron exports (tst_megatron_args, tst_plan_exports).
#include <algorithm>
#include <map>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

namespace stratex::test::megatron_rules {

// ---- Megatron-LM's rules ----

// Words: nargs='+', each word a choice; Probability: type=float, a dropout probability in [0, 1).
enum class Kind { Switch, Int, Float, Probability, Text, Words };
struct FlagRule {
    Kind kind;
    std::vector<std::string> choices; // empty: any value of the kind
};

// Every flag the export may write, with its argparse type and choices.
inline const std::map<std::string, FlagRule>& megatronFlags()
{
    static const std::map<std::string, FlagRule> flags {
        { "--num-layers", { Kind::Int, {} } },
        { "--hidden-size", { Kind::Int, {} } },
        { "--ffn-hidden-size", { Kind::Int, {} } },
        { "--num-attention-heads", { Kind::Int, {} } },
        { "--group-query-attention", { Kind::Switch, {} } },
        { "--num-query-groups", { Kind::Int, {} } },
        { "--seq-length", { Kind::Int, {} } },
        { "--max-position-embeddings", { Kind::Int, {} } },
        { "--swiglu", { Kind::Switch, {} } },
        // TransformerConfig.normalization: Literal['LayerNorm', 'RMSNorm']
        { "--normalization", { Kind::Text, { "LayerNorm", "RMSNorm" } } },
        { "--position-embedding-type",
            { Kind::Text, { "learned_absolute", "rope", "yarn", "mrope", "relative", "none" } } },
        { "--untie-embeddings-and-output-weights", { Kind::Switch, {} } },
        { "--disable-bias-linear", { Kind::Switch, {} } },
        { "--add-qkv-bias", { Kind::Switch, {} } },
        { "--rotary-base", { Kind::Int, {} } },
        { "--use-rope-scaling", { Kind::Switch, {} } },
        { "--rope-scaling-factor", { Kind::Float, {} } },
        { "--rope-type", { Kind::Text, { "rope", "yarn" } } },
        { "--qk-layernorm", { Kind::Switch, {} } },
        { "--no-rope-fusion", { Kind::Switch, {} } },
        { "--multi-latent-attention", { Kind::Switch, {} } },
        { "--q-lora-rank", { Kind::Int, {} } },
        { "--kv-lora-rank", { Kind::Int, {} } },
        { "--qk-head-dim", { Kind::Int, {} } },
        { "--qk-pos-emb-head-dim", { Kind::Int, {} } },
        { "--v-head-dim", { Kind::Int, {} } },
        { "--make-vocab-size-divisible-by", { Kind::Int, {} } },
        { "--num-experts", { Kind::Int, {} } },
        { "--moe-router-topk", { Kind::Int, {} } },
        { "--moe-ffn-hidden-size", { Kind::Int, {} } },
        { "--moe-shared-expert-intermediate-size", { Kind::Int, {} } },
        { "--moe-layer-freq", { Kind::Text, {} } },
        // The router (issue 25): TransformerConfig.moe_router_score_function is
        // Literal['softmax', 'sigmoid', 'sqrtsoftplus']; moe_router_pre_softmax,
        // moe_router_enable_expert_bias and moe_shared_expert_gate are bools (store_true);
        // moe_router_topk_scaling_factor and moe_expert_capacity_factor Optional[float];
        // moe_router_num_groups / moe_router_group_topk Optional[int]; kv_channels Optional[int];
        // arguments.py --rotary-percent type=float.
        { "--moe-router-score-function", { Kind::Text, { "softmax", "sigmoid", "sqrtsoftplus" } } },
        { "--moe-router-pre-softmax", { Kind::Switch, {} } },
        { "--moe-router-enable-expert-bias", { Kind::Switch, {} } },
        { "--moe-router-topk-scaling-factor", { Kind::Float, {} } },
        { "--moe-router-num-groups", { Kind::Int, {} } },
        { "--moe-router-group-topk", { Kind::Int, {} } },
        { "--moe-expert-capacity-factor", { Kind::Float, {} } },
        { "--moe-shared-expert-gate", { Kind::Switch, {} } },
        { "--kv-channels", { Kind::Int, {} } },
        { "--rotary-percent", { Kind::Float, {} } },
        // TransformerConfig.mtp_num_layers: Optional[int] = None (transformer_config.py), a flag
        // through ArgumentGroupFactory.
        { "--mtp-num-layers", { Kind::Int, {} } },
        // _add_regularization_args (before 639c08ab) / TransformerConfig: type=float.
        { "--attention-dropout", { Kind::Probability, {} } },
        { "--hidden-dropout", { Kind::Probability, {} } },
        { "--tensor-model-parallel-size", { Kind::Int, {} } },
        { "--pipeline-model-parallel-size", { Kind::Int, {} } },
        { "--pipeline-model-parallel-layout", { Kind::Text, {} } },
        { "--decoder-first-pipeline-num-layers", { Kind::Int, {} } },
        { "--decoder-last-pipeline-num-layers", { Kind::Int, {} } },
        { "--context-parallel-size", { Kind::Int, {} } },
        // Transformer Engine's spellings (attn_forward_func_with_cp raises on any other; Megatron's
        // --help says "allgather", which TE refuses): context_parallel.py, TE d0067d0.
        { "--cp-comm-type", { Kind::Text, { "p2p", "a2a", "all_gather", "a2a+p2p" } } },
        { "--hierarchical-context-parallel-sizes", { Kind::Words, {} } },
        { "--sequence-parallel", { Kind::Switch, {} } },
        { "--tp-comm-overlap", { Kind::Switch, {} } },
        // TransformerConfig.recompute_granularity / recompute_method: Literal choices
        { "--recompute-granularity", { Kind::Text, { "full", "selective" } } },
        { "--recompute-method", { Kind::Text, { "uniform", "block" } } },
        { "--recompute-num-layers", { Kind::Int, {} } },
        // TransformerConfig.recompute_modules' allowed_modules (nargs='*').
        { "--recompute-modules",
            { Kind::Words,
                { "core_attn", "moe_act", "layernorm", "mla_up_proj", "mlp", "moe", "shared_experts", "gdn_norm_out",
                    "gdp_in_proj", "gdp_qkv", "mhc" } } },
        { "--moe-grouped-gemm", { Kind::Switch, {} } },
        { "--micro-batch-size", { Kind::Int, {} } },
        { "--global-batch-size", { Kind::Int, {} } },
        { "--use-distributed-optimizer", { Kind::Switch, {} } },
        { "--use-megatron-fsdp", { Kind::Switch, {} } },
        { "--use-torch-fsdp2", { Kind::Switch, {} } },
        { "--data-parallel-sharding-strategy",
            { Kind::Text, { "no_shard", "optim", "optim_grads", "optim_grads_params" } } },
        { "--ckpt-format", { Kind::Text, { "torch", "torch_dist", "torch_dcp", "fsdp_dtensor" } } },
        { "--bf16", { Kind::Switch, {} } },
        { "--fp16", { Kind::Switch, {} } },
        // _add_mixed_precision_args: the main gradients' and the optimizer states' dtypes.
        { "--grad-reduce-in-bf16", { Kind::Switch, {} } },
        { "--no-gradient-accumulation-fusion", { Kind::Switch, {} } }, // _add_training_args
        { "--cross-entropy-loss-fusion", { Kind::Switch, {} } }, // ModelParallelConfig field
        { "--use-precision-aware-optimizer", { Kind::Switch, {} } },
        { "--exp-avg-dtype", { Kind::Text, { "fp32", "fp16", "bf16", "fp8" } } },
        { "--exp-avg-sq-dtype", { Kind::Text, { "fp32", "fp16", "bf16", "fp8" } } },
        // _add_distributed_args: virtual stages (three ways, at most one), DDP overlap.
        { "--num-virtual-stages-per-pipeline-rank", { Kind::Int, {} } },
        { "--microbatch-group-size-per-virtual-pipeline-stage", { Kind::Int, {} } },
        { "--num-layers-per-virtual-pipeline-stage", { Kind::Int, {} } },
        { "--overlap-grad-reduce", { Kind::Switch, {} } },
        { "--overlap-param-gather", { Kind::Switch, {} } },
        // ModelParallelConfig / TransformerConfig fields: expert parallelism, the MoE dispatcher
        // (Literal['allgather', 'alltoall', 'flex']), FP8 (fp8 is --fp8-format, Literal['e4m3',
        // 'hybrid']; fp8_recipe's Literal), the attention backend (enums.py AttnBackend, by name).
        { "--expert-model-parallel-size", { Kind::Int, {} } },
        { "--expert-tensor-parallel-size", { Kind::Int, {} } },
        { "--moe-token-dispatcher-type", { Kind::Text, { "allgather", "alltoall", "flex" } } },
        { "--overlap-moe-expert-parallel-comm", { Kind::Switch, {} } },
        // CUDA graphs: TransformerConfig.cuda_graph_impl's Literal and --cuda-graph-modules's
        // CudaGraphModule names (arguments.py _add_inference_args); --no-check-for-nan-in-loss-and-grad
        // (_add_training_args); full-iteration MoE capacity and paged stashing (TransformerConfig
        // fields: moe_flex_dispatcher_backend's Literal, moe_expert_rank_capacity_factor,
        // moe_paged_stash*, moe_pad_experts_for_cuda_graph_inference).
        { "--cuda-graph-impl", { Kind::Text, { "none", "local", "transformer_engine", "full_iteration" } } },
        { "--cuda-graph-modules", { Kind::Words, { "attn", "mlp", "moe", "moe_router", "moe_preprocess", "mamba" } } },
        { "--no-check-for-nan-in-loss-and-grad", { Kind::Switch, {} } },
        { "--moe-flex-dispatcher-backend", { Kind::Text, { "deepep", "hybridep", "ncclep" } } },
        { "--moe-pad-experts-for-cuda-graph-inference", { Kind::Switch, {} } },
        { "--moe-expert-rank-capacity-factor", { Kind::Float, {} } },
        { "--moe-paged-stash", { Kind::Switch, {} } },
        { "--moe-paged-stash-buffer-size-factor-cuda", { Kind::Float, {} } },
        { "--moe-paged-stash-buffer-size-factor-cpu", { Kind::Float, {} } },
        { "--fp8-format", { Kind::Text, { "e4m3", "hybrid" } } },
        { "--fp8-recipe", { Kind::Text, { "tensorwise", "delayed", "mxfp8", "blockwise", "custom" } } },
        { "--attention-backend", { Kind::Text, { "flash", "fused", "unfused", "local", "auto" } } },
    };
    return flags;
}

using Args = std::map<std::string, std::string>; // flag -> value ("" for a switch)

inline int intOf(const Args& args, const std::string& flag, int fallback)
{
    const auto it = args.find(flag);
    return it == args.end() ? fallback : std::stoi(it->second);
}

// pipeline_parallel_layer_layout.py parse_str_to_list: commas are cosmetic, "(...)*n" and "x*n"
// repeat, stages split at '|', each character E (embedding), t (decoder layer), m (MTP) or L (loss).
inline std::vector<std::string> parseLayout(std::string text)
{
    text.erase(std::remove(text.begin(), text.end(), ','), text.end());
    const auto unroll = [](std::string s, const std::regex& pattern) {
        std::smatch match;
        while (std::regex_search(s, match, pattern)) {
            std::string repeated;
            for (int i = 0; i < std::stoi(match[2]); ++i)
                repeated += match[1];
            s = match.prefix().str() + repeated + match.suffix().str();
        }
        return s;
    };
    text = unroll(text, std::regex(R"(\(([^)]+)\)\*(\d+))"));
    text = unroll(text, std::regex(R"((.)\*(\d+))"));
    std::vector<std::string> stages(1);
    for (char c : text) {
        if (c == '|')
            stages.emplace_back();
        else
            stages.back() += c;
    }
    return stages;
}

// The decoder layers of every model chunk Megatron builds from the arguments (pp x vpp entries in
// layout order: chunk j of pipeline rank i is entry j * pp + i), and vpp; empty when it rejects them.
inline std::vector<int> megatronChunks(const Args& args, std::vector<std::string>& violations, int* vppOut = nullptr)
{
    const int layers = intOf(args, "--num-layers", 0);
    const int pp = intOf(args, "--pipeline-model-parallel-size", 1);
    const bool hasLayout = args.contains("--pipeline-model-parallel-layout");
    const int first = intOf(args, "--decoder-first-pipeline-num-layers", 0);
    const int last = intOf(args, "--decoder-last-pipeline-num-layers", 0);
    const bool byStages = args.contains("--num-virtual-stages-per-pipeline-rank");
    const bool byLayers = args.contains("--num-layers-per-virtual-pipeline-stage");
    // validate_args: no more than one of the three ways to give virtual stages.
    if (int(hasLayout) + int(byStages) + int(byLayers) > 1)
        violations.push_back("no more than one of --num-layers-per-virtual-pipeline-stage, "
                             "--num-virtual-stages-per-pipeline-rank, --pipeline-model-parallel-layout");
    // validate_args: the layer-count way cannot be used with an uneven pipeline.
    if (byLayers && (first || last))
        violations.push_back("please use --num-virtual-stages-per-pipeline-rank with uneven pipeline parallelism");
    int vpp = 1;
    std::vector<int> chunks;
    if (hasLayout) {
        // TransformerConfig: a layout conflicts with the first/last stage counts.
        if (first || last)
            violations.push_back("pipeline_model_parallel_layout cannot be set with other pipeline layout arguments");
        const std::vector<std::string> stages = parseLayout(args.at("--pipeline-model-parallel-layout"));
        // validate_args / PipelineParallelLayerLayout: the chunk count divides by pp (vpp = chunks / pp).
        if (int(stages.size()) % pp != 0)
            violations.push_back(
                "layout has " + std::to_string(stages.size()) + " chunks for pp " + std::to_string(pp));
        vpp = std::max(1, int(stages.size()) / pp);
        std::string flat;
        for (const std::string& stage : stages) {
            flat += stage;
            chunks.push_back(int(std::count(stage.begin(), stage.end(), 't')));
            for (char c : stage) {
                if (std::string("EtmL").find(c) == std::string::npos)
                    violations.push_back(std::string("invalid layer character ") + c);
            }
        }
        // validate_layer_layout: embedding first and once, loss last and once, num_layers decoders.
        if (flat.empty() || flat.front() != 'E' || std::count(flat.begin(), flat.end(), 'E') != 1)
            violations.push_back("the layout's first layer must be the embedding, once");
        if (flat.empty() || flat.back() != 'L' || std::count(flat.begin(), flat.end(), 'L') != 1)
            violations.push_back("the layout's last layer must be the loss, once");
        if (std::count(flat.begin(), flat.end(), 't') != layers)
            violations.push_back("the layout's decoder layers do not match num_layers");
    } else {
        if (byStages)
            vpp = intOf(args, "--num-virtual-stages-per-pipeline-rank", 1);
        std::vector<int> perRank;
        if (first || last) {
            // TransformerConfig's uneven PP: the middle layers divide evenly over the middle
            // stages; with vpp every stage's count divides by vpp.
            const int middleLayers = layers - first - last;
            const int middleStages = pp - (first ? 1 : 0) - (last ? 1 : 0);
            if (bool(middleLayers) != bool(middleStages) || (middleStages && middleLayers % middleStages != 0)) {
                violations.push_back("uneven pipeline: middle layers do not divide over the middle stages");
                return {};
            }
            if (first)
                perRank.push_back(first);
            for (int s = 0; s < middleStages; ++s)
                perRank.push_back(middleLayers / middleStages);
            if (last)
                perRank.push_back(last);
        } else {
            // validate_args: 'Number of layers should be divisible by the pipeline-model-parallel size'.
            if (layers % pp != 0) {
                violations.push_back("num_layers not divisible by pp");
                return {};
            }
            if (byLayers) {
                const int perStage = intOf(args, "--num-layers-per-virtual-pipeline-stage", 1);
                if ((layers / pp) % perStage != 0)
                    violations.push_back("layers per pipeline stage not divisible by layers per virtual stage");
                vpp = std::max(1, (layers / pp) / perStage);
            }
            perRank.assign(std::size_t(pp), layers / pp);
        }
        for (int n : perRank) {
            if (n % vpp != 0)
                violations.push_back("layers of a pipeline rank (" + std::to_string(n)
                    + ") not divisible by the virtual pipeline degree " + std::to_string(vpp));
        }
        chunks.assign(std::size_t(pp * vpp), 0);
        for (int j = 0; j < vpp; ++j) {
            for (int i = 0; i < pp; ++i)
                chunks[std::size_t(j * pp + i)] = perRank[std::size_t(i)] / vpp;
        }
    }
    // validate_args: interleaving needs pp > 1 with the default p2p overlap, pp > 2 without it.
    if (vpp > 1) {
        const int minimum = args.contains("--no-overlap-p2p-communication") ? 3 : 2;
        if (pp < minimum)
            violations.push_back("interleaved schedule with pipeline-model-parallel size " + std::to_string(pp));
    }
    if (vppOut)
        *vppOut = vpp;
    return chunks;
}

// The layers per pipeline rank Megatron builds; empty when it rejects the arguments.
inline std::vector<int> megatronDivision(const Args& args, std::vector<std::string>& violations)
{
    const int pp = intOf(args, "--pipeline-model-parallel-size", 1);
    const std::vector<int> chunks = megatronChunks(args, violations);
    if (chunks.empty())
        return {};
    std::vector<int> perRank(std::size_t(pp), 0);
    for (std::size_t c = 0; c < chunks.size(); ++c)
        perRank[c % std::size_t(pp)] += chunks[c];
    return perRank;
}

// Every rule; the violations, empty when Megatron accepts the arguments.
inline std::vector<std::string> megatronViolations(
    const Args& args, const std::map<std::string, std::string>& environment, bool unsetConnections, int world)
{
    std::vector<std::string> v;
    for (const auto& [flag, value] : args) {
        const auto rule = megatronFlags().find(flag);
        if (rule == megatronFlags().end()) {
            v.push_back("unknown flag " + flag);
            continue;
        }
        if (rule->second.kind == Kind::Switch && !value.empty())
            v.push_back(flag + " takes no value");
        if (rule->second.kind == Kind::Int
            && (value.empty() || value.find_first_not_of("0123456789") != std::string::npos || std::stoi(value) < 1))
            v.push_back(flag + " needs a positive integer, found '" + value + "'");
        if (rule->second.kind == Kind::Float) {
            std::size_t used = 0;
            try {
                if (std::stod(value, &used) <= 0 || used != value.size())
                    v.push_back(flag + " needs a positive number, found '" + value + "'");
            } catch (const std::exception&) {
                v.push_back(flag + " needs a number, found '" + value + "'");
            }
        }
        if (rule->second.kind == Kind::Probability) {
            std::size_t used = 0;
            try {
                const double p = std::stod(value, &used);
                if (p < 0 || p >= 1 || used != value.size())
                    v.push_back(flag + " needs a probability in [0, 1), found '" + value + "'");
            } catch (const std::exception&) {
                v.push_back(flag + " needs a number, found '" + value + "'");
            }
        }
        std::vector<std::string> words { value };
        if (rule->second.kind == Kind::Words) {
            words.clear();
            std::string word;
            for (const char c : value + " ") {
                if (c != ' ') {
                    word += c;
                } else if (!word.empty()) {
                    words.push_back(word);
                    word.clear();
                }
            }
        }
        for (const std::string& word : words) {
            if (!rule->second.choices.empty()
                && std::find(rule->second.choices.begin(), rule->second.choices.end(), word)
                    == rule->second.choices.end())
                v.push_back(flag + ": '" + word + "' is not a choice");
        }
    }
    // validate_args and TransformerConfig.__post_init__ (d98e8a64) on CUDA graphs: full_iteration
    // without per-layer modules and with the NaN check off; moe_preprocess only beside moe_router;
    // per-layer graphs without CPU offloading or full recompute.
    if (args.contains("--cuda-graph-impl")) {
        const std::string impl = args.at("--cuda-graph-impl");
        const std::string modules
            = args.contains("--cuda-graph-modules") ? " " + args.at("--cuda-graph-modules") + " " : "";
        if (impl == "full_iteration" && !modules.empty())
            v.push_back("--cuda-graph-modules must be empty when --cuda-graph-impl=full_iteration");
        if (impl == "full_iteration" && !args.contains("--no-check-for-nan-in-loss-and-grad"))
            v.push_back("--no-check-for-nan-in-loss-and-grad should be set with --cuda-graph-impl=full_iteration");
        if (modules.find(" moe_preprocess ") != std::string::npos && modules.find(" moe_router ") == std::string::npos)
            v.push_back("moe_preprocess cuda graph is only supported with moe_router cuda graph");
        if (impl != "full_iteration" && impl != "none" && args.contains("--cpu-offloading"))
            v.push_back("CUDA graphs not supported with CPU offloading");
        if (impl != "full_iteration" && impl != "none" && args.contains("--recompute-granularity")
            && args.at("--recompute-granularity") == "full")
            v.push_back("full recompute is only supported with full iteration CUDA graph");
    }
    // validate_args: required_args.
    for (const char* flag : { "--num-layers", "--hidden-size", "--num-attention-heads", "--max-position-embeddings" }) {
        if (!args.contains(flag))
            v.push_back(std::string("missing ") + flag);
    }
    const int tp = intOf(args, "--tensor-model-parallel-size", 1);
    const int pp = intOf(args, "--pipeline-model-parallel-size", 1);
    const int cp = intOf(args, "--context-parallel-size", 1);
    // validate_args: world size divisible by total_model_size (tp x pp x cp).
    if (world % (tp * pp * cp) != 0)
        v.push_back("world size not divisible by tp x pp x cp");
    const int dp = std::max(1, world / (tp * pp * cp));
    // num_microbatches_calculator: global batch divisible by micro batch x dp.
    const int mbs = intOf(args, "--micro-batch-size", 1);
    if (intOf(args, "--global-batch-size", mbs * dp) % (mbs * dp) != 0)
        v.push_back("global batch size not divisible by micro batch size x dp");
    // TransformerConfig: heads and query groups against TP.
    const int heads = intOf(args, "--num-attention-heads", 1);
    if (heads % tp != 0)
        v.push_back("num_attention_heads not a multiple of tp");
    // core_transformer_config_from_args: num_query_groups only counts with --group-query-attention.
    if (args.contains("--num-query-groups") != args.contains("--group-query-attention"))
        v.push_back("--num-query-groups without --group-query-attention (or the reverse)");
    const int groups = intOf(args, "--num-query-groups", heads);
    if (groups % tp != 0 && tp % groups != 0)
        v.push_back("num_query_groups neither a multiple nor a divisor of tp");
    if (heads % groups != 0)
        v.push_back("num_query_groups does not divide the heads");
    // validate_args: sequence parallelism is switched off (with a warning) without TP.
    if (args.contains("--sequence-parallel") && tp == 1)
        v.push_back("--sequence-parallel with tp 1");
    // arguments.py validate_args (d98e8a64): "Tensor parallel communication/GEMM overlap can happen
    // only when sequence parallelism is enabled".
    if (args.contains("--tp-comm-overlap") && (!args.contains("--sequence-parallel") || tp == 1))
        v.push_back("--tp-comm-overlap without sequence parallelism");
    // TransformerConfig: recompute combinations.
    const bool granularity = args.contains("--recompute-granularity");
    if (granularity && args.at("--recompute-granularity") == "full"
        && (!args.contains("--recompute-method") || !args.contains("--recompute-num-layers")))
        v.push_back("full recompute needs a method and a layer count");
    if (granularity && args.at("--recompute-granularity") == "selective"
        && (args.contains("--recompute-method") || args.contains("--recompute-num-layers")))
        v.push_back("selective recompute takes no method and no layer count");
    if (args.contains("--recompute-modules")
        && (" " + args.at("--recompute-modules") + " ").find(" moe_act ") != std::string::npos
        && !args.contains("--moe-grouped-gemm"))
        v.push_back("moe_act in recompute_modules is only supported with moe_grouped_gemm");
    if (!granularity && (args.contains("--recompute-method") || args.contains("--recompute-num-layers")))
        v.push_back("recompute method or layers without a granularity");
    // validate_args: max_position_embeddings >= seq_length; seq_length % (2 cp) with CP.
    const int seq = intOf(args, "--seq-length", 0);
    if (intOf(args, "--max-position-embeddings", 0) < seq)
        v.push_back("max_position_embeddings below seq_length");
    if (cp > 1 && seq % (2 * cp) != 0)
        v.push_back("seq_length not a multiple of 2 x cp");
    // Transformer Engine's all-to-all attention (cp_comm_type a2a, AttnFuncWithCPAndQKVOA2A): "The
    // number of attention heads needs to be divisible by CP size!" for the query and key/value
    // heads of each TP rank.
    if (cp > 1 && args.contains("--cp-comm-type") && args.at("--cp-comm-type") == "a2a"
        && ((heads / tp) % cp != 0 || (groups / std::min(tp, groups)) % cp != 0))
        v.push_back("cp_comm_type a2a: heads per TP rank not divisible by cp");
    // validate_args (arguments.py, d98e8a64): a2a+p2p needs --hierarchical-context-parallel-sizes,
    // whose product is the CP size.
    if (cp > 1 && args.contains("--cp-comm-type") && args.at("--cp-comm-type") == "a2a+p2p") {
        long long product = 1;
        std::string word;
        if (args.contains("--hierarchical-context-parallel-sizes"))
            for (const char c : args.at("--hierarchical-context-parallel-sizes") + " ") {
                if (c != ' ') {
                    word += c;
                } else if (!word.empty()) {
                    product *= std::stoll(word);
                    word.clear();
                }
            }
        if (!args.contains("--hierarchical-context-parallel-sizes") || product != cp)
            v.push_back("cp_comm_type a2a+p2p: --hierarchical-context-parallel-sizes missing or not multiplying to cp");
    }
    // validate_args: FSDP.
    if (args.contains("--use-megatron-fsdp")) {
        if (!args.contains("--ckpt-format") || args.at("--ckpt-format") != "fsdp_dtensor")
            v.push_back("Megatron-FSDP requires --ckpt-format fsdp_dtensor");
        if (environment.contains("CUDA_DEVICE_MAX_CONNECTIONS") && environment.at("CUDA_DEVICE_MAX_CONNECTIONS") == "1")
            v.push_back("FSDP requires CUDA_DEVICE_MAX_CONNECTIONS > 1 or unset");
        if (!unsetConnections)
            v.push_back("an inherited CUDA_DEVICE_MAX_CONNECTIONS=1 would fail Megatron-FSDP's assert");
    }
    if (args.contains("--use-torch-fsdp2")) {
        if (pp != 1 || args.contains("--use-distributed-optimizer")
            || !args.contains("--untie-embeddings-and-output-weights") || args.contains("--fp16"))
            v.push_back("--use-torch-fsdp2 needs pp 1, no distributed optimizer, untied embeddings, no fp16");
    }
    // validate_args: TP or CP > 1 (before Blackwell, without FSDP) asserts CUDA_DEVICE_MAX_CONNECTIONS == 1.
    if ((tp > 1 || cp > 1) && !args.contains("--use-megatron-fsdp") && !args.contains("--use-torch-fsdp2")
        && (!environment.contains("CUDA_DEVICE_MAX_CONNECTIONS")
            || environment.at("CUDA_DEVICE_MAX_CONNECTIONS") != "1"))
        v.push_back("TP or CP > 1 needs CUDA_DEVICE_MAX_CONNECTIONS=1");
    if (args.contains("--bf16") && args.contains("--fp16"))
        v.push_back("bf16 and fp16");
    // _add_moe_args / validate_args: MoE flags need experts; a custom layer pattern has one entry per layer.
    for (const char* flag :
        { "--moe-router-topk", "--moe-ffn-hidden-size", "--moe-shared-expert-intermediate-size", "--moe-layer-freq" }) {
        if (args.contains(flag) && !args.contains("--num-experts"))
            v.push_back(std::string(flag) + " without --num-experts");
    }
    for (const char* flag : { "--moe-router-score-function", "--moe-router-pre-softmax", "--moe-router-enable-expert-bias",
             "--moe-router-topk-scaling-factor", "--moe-router-num-groups", "--moe-router-group-topk",
             "--moe-expert-capacity-factor", "--moe-shared-expert-gate" }) {
        if (args.contains(flag) && !args.contains("--num-experts"))
            v.push_back(std::string(flag) + " without --num-experts");
    }
    // TransformerConfig.__post_init__ on the router: the expert bias only with sigmoid or
    // sqrtsoftplus scores; "Please use --moe-router-pre-softmax when topk is 1" (softmax);
    // group-limited routing needs both counts, experts % groups == 0, group_topk <= groups.
    const std::string score
        = args.contains("--moe-router-score-function") ? args.at("--moe-router-score-function") : "softmax";
    if (args.contains("--moe-router-enable-expert-bias") && score == "softmax")
        v.push_back("Expert bias for aux-loss-free routing only supports 'sigmoid' and 'sqrtsoftplus'");
    if (args.contains("--num-experts") && intOf(args, "--moe-router-topk", 2) == 1 && score == "softmax"
        && !args.contains("--moe-router-pre-softmax"))
        v.push_back("Please use --moe-router-pre-softmax when topk is 1.");
    if (args.contains("--moe-router-group-topk")) {
        const int routerGroups = intOf(args, "--moe-router-num-groups", 0);
        if (routerGroups == 0)
            v.push_back("When using group limited routing, moe_router_num_groups must be specified.");
        else if (intOf(args, "--num-experts", 0) % routerGroups != 0)
            v.push_back("num_moe_experts should be divisible by moe_router_num_groups");
        else if (intOf(args, "--moe-router-group-topk", 0) > routerGroups)
            v.push_back("moe_router_group_topk should be smaller than moe_router_num_groups");
    }
    if (args.contains("--moe-layer-freq")) {
        std::smatch m;
        const std::string& pattern = args.at("--moe-layer-freq");
        if (std::regex_match(pattern, m, std::regex(R"(\(\[0\]\*(\d+)\+\[1\]\*(\d+)\))"))) {
            if (std::stoi(m[1]) + std::stoi(m[2]) != intOf(args, "--num-layers", 0))
                v.push_back("--moe-layer-freq pattern length is not num_layers");
        } else {
            v.push_back("--moe-layer-freq: unexpected pattern " + pattern);
        }
    }
    // The model's facts. validate_args: MLA excludes GQA; argument_utils.py: a rope_type other than
    // rope needs MLA; the MLA ranks and the RoPE flags mean nothing without MLA / RoPE.
    const bool mla = args.contains("--multi-latent-attention");
    if (mla && args.contains("--group-query-attention"))
        v.push_back("Group query attention is mutually exclusive with multi latent attention");
    if (args.contains("--rope-type") && args.at("--rope-type") != "rope" && !mla)
        v.push_back("Common attention only support rope_type=\"rope\"");
    // MLATransformerConfig.__post_init__ (transformer_config.py, NVIDIA/Megatron-LM@d98e8a64):
    // apply_rope_fusion (on unless --no-rope-fusion) needs rope_type "yarn", MLA's default. Found by
    // running the real loader (docs/export-loaders.md).
    if (mla && args.contains("--rope-type") && args.at("--rope-type") != "yarn" && !args.contains("--no-rope-fusion"))
        v.push_back("apply_rope_fusion for MLA only works with YARN RoPE.");
    for (const char* flag : { "--q-lora-rank", "--kv-lora-rank", "--qk-head-dim", "--qk-pos-emb-head-dim", "--v-head-dim" }) {
        if (args.contains(flag) && !mla)
            v.push_back(std::string(flag) + " without --multi-latent-attention");
    }
    const bool rope = args.contains("--position-embedding-type") && args.at("--position-embedding-type") == "rope";
    for (const char* flag : { "--rotary-base", "--use-rope-scaling", "--rope-scaling-factor" }) {
        if (args.contains(flag) && !rope)
            v.push_back(std::string(flag) + " without --position-embedding-type rope");
    }
    if (args.contains("--rope-scaling-factor") && !args.contains("--use-rope-scaling"))
        v.push_back("--rope-scaling-factor without --use-rope-scaling");
    // validate_args: --overlap-param-gather only with the distributed optimizer or Megatron-FSDP,
    // and only with --overlap-grad-reduce.
    if (args.contains("--overlap-param-gather")
        && (!(args.contains("--use-distributed-optimizer") || args.contains("--use-megatron-fsdp"))
            || !args.contains("--overlap-grad-reduce")))
        v.push_back(
            "--overlap-param-gather needs the distributed optimizer or Megatron-FSDP and --overlap-grad-reduce");
    // megatron/core/optimizer/__init__.py: "--use-precision-aware-optimizer only supported with
    // distributed optimizer"; optimizer_config.py: the moments' dtypes only with it.
    if (args.contains("--use-precision-aware-optimizer") && !args.contains("--use-distributed-optimizer"))
        v.push_back("--use-precision-aware-optimizer only supported with distributed optimizer");
    if ((args.contains("--exp-avg-dtype") || args.contains("--exp-avg-sq-dtype"))
        && !args.contains("--use-precision-aware-optimizer"))
        v.push_back("exp_avg_dtype can only be fp32 when not using precision-aware optimizer");
    // validate_args / TransformerConfig: expert parallelism needs experts, and divides them.
    const int ep = intOf(args, "--expert-model-parallel-size", 1);
    const int experts = intOf(args, "--num-experts", 0);
    if (ep > 1 && (experts == 0 || experts % ep != 0))
        v.push_back("num_experts is not a multiple of expert model parallel size");
    for (const char* flag : { "--expert-tensor-parallel-size", "--moe-token-dispatcher-type" }) {
        if (args.contains(flag) && !args.contains("--num-experts"))
            v.push_back(std::string(flag) + " without --num-experts");
    }
    // parallel_state.initialize_model_parallel: the expert grid ETP x EP x EDP x PP covers the world.
    const int etp = intOf(args, "--expert-tensor-parallel-size", tp);
    if (experts > 0 && (world / pp) % (etp * ep) != 0)
        v.push_back("expert tensor x expert model parallel size does not divide the data-parallel ranks");
    // moe_layer.py MoELayer.forward: training with MoE and TP raises without sequence parallelism.
    if (experts > 0 && tp > 1 && !args.contains("--sequence-parallel"))
        v.push_back("MoE with tensor parallelism needs --sequence-parallel");
    if (args.contains("--fp8-format") && args.contains("--recompute-modules")
        && (!args.contains("--fp8-recipe") || args.at("--fp8-recipe") == "delayed")) {
        const std::string modules = " " + args.at("--recompute-modules") + " ";
        if (modules.find(" layernorm ") != std::string::npos || modules.find(" moe_act ") != std::string::npos)
            v.push_back("Delayed scaling does not support moe_act and layernorm recompute for fp8");
    }
    if (args.contains("--fp8-recipe") && !args.contains("--fp8-format"))
        v.push_back("--fp8-recipe without --fp8-format");
    int vpp = 1;
    megatronChunks(args, v, &vpp);
    // schedules.py forward_backward_pipelining_with_interleaving: micro-batches come in groups of
    // microbatch_group_size_per_vp_stage (default pp) per chunk; fewer than pp, or a last group
    // smaller than pp, raise.
    // model_parallel_config.py: the group is pp unless --microbatch-group-size-per-virtual-pipeline-stage
    // sets it; schedules.py: it must lie in [pp, M] and leave a last group of 0 or at least pp.
    const int microbatches = intOf(args, "--global-batch-size", mbs * dp) / (mbs * dp);
    const bool groupGiven = args.contains("--microbatch-group-size-per-virtual-pipeline-stage");
    const int group = intOf(args, "--microbatch-group-size-per-virtual-pipeline-stage", pp);
    if (vpp > 1 && !groupGiven && (microbatches < pp || microbatches % pp != 0))
        v.push_back("interleaved schedule with " + std::to_string(microbatches)
            + " micro-batches, not a multiple of pp " + std::to_string(pp));
    if (vpp > 1 && groupGiven && (group < pp || group > microbatches))
        v.push_back("micro-batch group " + std::to_string(group) + " outside [PP=" + std::to_string(pp) + ", M="
            + std::to_string(microbatches) + "]");
    if (vpp > 1 && groupGiven && group > 0 && microbatches % group != 0 && microbatches % group < pp)
        v.push_back("the remainder of M divided by N is " + std::to_string(microbatches % group));
    return v;
}

} // namespace stratex::test::megatron_rules
