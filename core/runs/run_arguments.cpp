// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/run_arguments.h"

#include <exception>
#include <set>
#include <string_view>
#include <utility>

#include "core/common/error.h"
#include "core/common/checked_math.h"
#include "core/common/input_limits.h"
#include "core/runs/log_text.h"
#include "core/runs/pipeline_layout_dump.h"

namespace stratex::runs {

namespace {

// Reads typed values out of the dump, remembering what was missing.
class ArgumentReader {
public:
    ArgumentReader(const ArgumentDump& dump, RunArguments& out)
        : m_dump(dump)
        , m_out(out)
    {
    }

    std::optional<std::string> text(std::string_view name) const { return m_dump.find(name); }

    // A whole number in [minimum, maximum]; nullopt (and listed as missing when required) when
    // the dump does not give it.
    std::optional<int> integer(std::string_view name, int minimum, int maximum, bool required)
    {
        const std::optional<std::string> value = m_dump.find(name);
        if (!value) {
            if (required)
                m_out.missing.emplace_back(name);
            return std::nullopt;
        }
        const std::optional<long long> number = parseWholeNumber(*value);
        if (!number || *number < minimum || *number > maximum)
            fail(name,
                "a whole number from " + std::to_string(minimum) + " to " + std::to_string(maximum) + " for "
                    + std::string(name),
                *value);
        return int(*number);
    }

    bool flag(std::string_view name, bool fallback)
    {
        const std::optional<std::string> value = m_dump.find(name);
        if (!value)
            return fallback;
        if (*value == "True")
            return true;
        if (*value == "False")
            return false;
        fail(name, "True or False for " + std::string(name), *value);
    }

    [[noreturn]] void fail(std::string_view name, const std::string& expected, const std::string& found) const
    {
        const auto it = m_dump.values.find(name);
        const int line = it != m_dump.values.end() ? it->second.line : m_dump.first_line;
        throw InputError(m_dump.file, "line " + std::to_string(line), expected, excerpt(found));
    }

    [[noreturn]] void failDump(const std::string& expected, const std::string& found) const
    {
        throw InputError(m_dump.file, "argument dump at line " + std::to_string(m_dump.first_line), expected, found);
    }

private:
    const ArgumentDump& m_dump;
    RunArguments& m_out;
};

constexpr int kMaxWidth = 1 << 24; // hidden and FFN sizes: far above any model, products stay in 64 bits
constexpr int kMaxHeads = 1 << 16;
constexpr int kMaxVocab = 1 << 24;

// Megatron's --moe-layer-freq as the dump prints it: an int k (every k-th layer is MoE) or a
// Python list of 0/1 per layer. Stratex models leading dense layers only.
void readMoeLayerPattern(
    const std::string& value, model::MoeDescription& moe, int layers, std::vector<std::string>& notes)
{
    if (const std::optional<long long> every = parseWholeNumber(value)) {
        if (*every != 1)
            notes.push_back("moe_layer_freq " + value + ": costed as every layer MoE");
        return;
    }
    std::vector<int> pattern;
    for (const char c : value) {
        if (c == '0' || c == '1')
            pattern.push_back(c - '0');
    }
    int leading = 0;
    while (leading < int(pattern.size()) && pattern[std::size_t(leading)] == 0)
        ++leading;
    moe.first_dense_layers = std::min(leading, std::max(0, layers - 1));
    for (std::size_t i = std::size_t(leading); i < pattern.size(); ++i) {
        if (pattern[i] == 0) {
            notes.push_back("moe_layer_freq: dense layers after the first MoE layer are costed as MoE");
            break;
        }
    }
}

std::optional<model::ModelDescription> readModel(ArgumentReader& args, RunArguments& out)
{
    model::ModelDescription m;
    m.name = "megatron-run";
    const auto layers = args.integer("num_layers", 1, limits::kMaxLayers, true);
    const auto hidden = args.integer("hidden_size", 1, kMaxWidth, true);
    const auto ffn = args.integer("ffn_hidden_size", 1, kMaxWidth, true);
    const auto heads = args.integer("num_attention_heads", 1, kMaxHeads, true);
    const auto seq = args.integer("seq_length", 1, limits::kMaxSampleTokens, true);
    std::optional<int> vocab = args.integer("padded_vocab_size", 1, kMaxVocab, false);
    if (!vocab) {
        vocab = args.integer("vocab_size", 1, kMaxVocab, false);
        if (vocab)
            out.notes.push_back("vocabulary from vocab_size (padded_vocab_size not in the dump)");
        else
            out.missing.emplace_back("padded_vocab_size");
    }
    const bool gqa = args.flag("group_query_attention", false);
    const std::optional<int> groups = gqa ? args.integer("num_query_groups", 1, kMaxHeads, true) : std::nullopt;
    if (!layers || !hidden || !ffn || !heads || !seq || !vocab || (gqa && !groups))
        return std::nullopt;
    m.num_layers = *layers;
    m.hidden_size = *hidden;
    m.ffn_hidden_size = *ffn;
    m.num_heads = *heads;
    m.num_kv_heads = gqa ? *groups : *heads;
    m.seq_length = *seq;
    m.vocab_size = *vocab;
    m.mlp = args.flag("swiglu", false) ? model::MlpKind::Gated : model::MlpKind::Plain;
    const std::string norm = args.text("normalization").value_or("LayerNorm");
    if (norm == "RMSNorm")
        m.norm = model::NormKind::RmsNorm;
    else if (norm == "LayerNorm")
        m.norm = model::NormKind::LayerNorm;
    else
        args.fail("normalization", "LayerNorm or RMSNorm", norm);
    const std::string position = args.text("position_embedding_type").value_or("learned_absolute");
    m.position = position == "learned_absolute" ? model::PositionEmbedding::Learned : model::PositionEmbedding::Rope;
    if (position != "learned_absolute" && position != "rope")
        out.notes.push_back("position_embedding_type " + position + ": costed as rope (no weights)");
    m.tied_embeddings = !args.flag("untie_embeddings_and_output_weights", false);
    // Qwen 2 / 2.5: a bias on Q, K and V only (--add-qkv-bias --disable-bias-linear). validate_args
    // turns add_qkv_bias on with add_bias_linear; biases on every linear layer are not modelled.
    m.qkv_bias
        = m.mlp == model::MlpKind::Gated && args.flag("add_qkv_bias", false) && !args.flag("add_bias_linear", true);
    // The model's facts the exports write (megatron_flags.cpp): RoPE base and Llama 3.1 scaling,
    // QK layernorm, multi-latent attention, the vocabulary padding.
    if (m.position == model::PositionEmbedding::Rope)
        m.rotary_base = args.integer("rotary_base", 1, 1'000'000'000, false).value_or(10000);
    if (m.position == model::PositionEmbedding::Rope && args.flag("use_rope_scaling", false)) {
        model::RopeScaling scaling;
        if (const std::optional<std::string> factor = args.text("rope_scaling_factor")) {
            try {
                scaling.factor = std::stod(*factor);
            } catch (const std::exception&) {
                args.fail("rope_scaling_factor", "a number", *factor);
            }
        }
        m.rope_scaling = scaling;
    }
    if (args.flag("multi_latent_attention", false)) {
        model::MlaDescription mla;
        const std::optional<std::string> qRank = args.text("q_lora_rank"); // None: no query bottleneck
        mla.q_lora_rank = qRank && *qRank != "None" ? args.integer("q_lora_rank", 1, kMaxWidth, false).value_or(0) : 0;
        mla.kv_lora_rank = args.integer("kv_lora_rank", 1, kMaxWidth, false).value_or(32);
        mla.qk_nope_head_dim = args.integer("qk_head_dim", 1, kMaxWidth, false).value_or(128);
        mla.qk_rope_head_dim = args.integer("qk_pos_emb_head_dim", 1, kMaxWidth, false).value_or(64);
        mla.v_head_dim = args.integer("v_head_dim", 1, kMaxWidth, false).value_or(128);
        m.mla = mla;
    } else {
        m.qk_norm = args.flag("qk_layernorm", false);
    }
    // --hidden-dropout (default 0.1): kept where it changes what the layer model assumes (a plain
    // MLP trains with dropout, a gated one without: layer_cost.cpp), so that a gated run with
    // Megatron's default keeps its masks and an export's own value reads back as the plan's.
    if (const std::optional<std::string> p = args.text("hidden_dropout"); p && *p != "None") {
        double dropout = -1;
        try {
            dropout = std::stod(*p);
        } catch (const std::exception&) {
        }
        if (!(dropout >= 0 && dropout < 1))
            args.fail("hidden_dropout", "a dropout probability in [0, 1)", *p);
        if ((dropout > 0) != (m.mlp != model::MlpKind::Gated))
            m.hidden_dropout = dropout;
    }
    m.vocab_padding_multiple = args.integer("make_vocab_size_divisible_by", 1, kMaxVocab, false).value_or(128);
    // --kv-channels other than hidden / heads (Qwen 3, Gemma): the head width the exports write.
    if (const std::optional<std::string> channels = args.text("kv_channels");
        channels && *channels != "None" && !m.mla && m.num_heads > 0) {
        const int width = args.integer("kv_channels", 1, kMaxWidth, false).value_or(0);
        if (width != m.hidden_size / m.num_heads)
            m.head_dim = width;
    }

    // --mtp-num-layers (TransformerConfig.mtp_num_layers, None by default): the multi-token-
    // prediction modules on the last stage (docs/moe.md, "Multi-token prediction").
    if (const std::optional<std::string> mtp = args.text("mtp_num_layers"); mtp && *mtp != "None")
        m.mtp_num_layers = args.integer("mtp_num_layers", 0, limits::kMaxLayers, false).value_or(0);

    if (const std::optional<int> experts = args.integer("num_experts", 1, 1 << 20, false)) {
        model::MoeDescription moe;
        moe.num_experts = *experts;
        moe.top_k = args.integer("moe_router_topk", 1, 1 << 20, false).value_or(2);
        moe.expert_ffn_hidden_size
            = args.integer("moe_ffn_hidden_size", 1, kMaxWidth, false).value_or(m.ffn_hidden_size);
        if (const std::optional<int> shared
            = args.integer("moe_shared_expert_intermediate_size", 1, kMaxWidth, false)) {
            moe.shared_experts = 1;
            moe.shared_expert_ffn_hidden_size = *shared;
        }
        if (const std::optional<std::string> freq = args.text("moe_layer_freq"))
            readMoeLayerPattern(*freq, moe, m.num_layers, out.notes);
        // The router as megatron_flags.cpp writes it (TransformerConfig's moe_router_* fields);
        // Megatron renormalises sigmoid top-k scores, softmax ones unless pre-softmax.
        const std::string score = args.text("moe_router_score_function").value_or("softmax");
        if (score == "sigmoid")
            moe.score_function = model::RouterScore::Sigmoid;
        else if (score != "softmax")
            out.notes.push_back("moe_router_score_function " + score + ": costed as softmax");
        moe.normalize_top_k = moe.score_function == model::RouterScore::Sigmoid
            ? moe.top_k > 1
            : !args.flag("moe_router_pre_softmax", false);
        moe.expert_bias = moe.score_function == model::RouterScore::Sigmoid
            && args.flag("moe_router_enable_expert_bias", false);
        const auto given = [&](std::string_view name) {
            const std::optional<std::string> value = args.text(name);
            return value && *value != "None" ? value : std::nullopt;
        };
        const auto real = [&](std::string_view name) -> std::optional<double> {
            const std::optional<std::string> value = given(name);
            if (!value)
                return std::nullopt;
            try {
                const double number = std::stod(*value);
                if (number > 0)
                    return number;
            } catch (const std::exception&) {
            }
            args.fail(name, "a positive number", *value);
        };
        if (given("moe_router_group_topk") && given("moe_router_num_groups")) {
            moe.num_groups = args.integer("moe_router_num_groups", 1, 1 << 20, false).value_or(0);
            moe.group_top_k = args.integer("moe_router_group_topk", 1, 1 << 20, false).value_or(0);
        }
        moe.scaling_factor = real("moe_router_topk_scaling_factor").value_or(1.0);
        moe.capacity_factor = real("moe_expert_capacity_factor");
        moe.shared_expert_gate = moe.shared_experts > 0 && args.flag("moe_shared_expert_gate", false);
        m.moe = moe;
    }
    try {
        m.validate();
    } catch (const Error& error) {
        args.failDump("a transformer Megatron can build", error.what());
    }
    return m;
}

int zeroStage(ArgumentReader& args)
{
    if (args.flag("use_torch_fsdp2", false))
        return 3;
    if (args.flag("use_megatron_fsdp", false) || args.flag("use_custom_fsdp", false)) {
        const std::string sharding = args.text("data_parallel_sharding_strategy").value_or("optim_grads_params");
        if (sharding == "no_shard")
            return 0;
        if (sharding == "optim")
            return 1;
        if (sharding == "optim_grads")
            return 2;
        return 3;
    }
    return args.flag("use_distributed_optimizer", false) ? 1 : 0;
}

// The words of a list the dump prints as "['a2a', 'p2p']" (or a bare word).
std::vector<std::string> dumpListWords(const std::string& value)
{
    std::vector<std::string> words;
    std::string token;
    for (const char c : value + ",") {
        if (c == ',' || c == ' ') {
            if (!token.empty())
                words.push_back(token);
            token.clear();
        } else if (c != '[' && c != ']' && c != '\'' && c != '"') {
            token += c;
        }
    }
    return words;
}

// --cp-comm-type, one entry per layer when they differ. p2p, a2a, all_gather (or "allgather") and
// a2a+p2p are each modelled (docs/context-parallel.md); per-layer mixes are costed as the ring.
megatron::CpCommType cpCommTypeOfDump(const std::string& value, std::vector<std::string>& notes)
{
    const std::vector<std::string> words = dumpListWords(value);
    const std::set<std::string> kinds(words.begin(), words.end());
    if (kinds.size() == 1) {
        if (const std::optional<megatron::CpCommType> kind = megatron::parseCpCommType(*kinds.begin()))
            return *kind;
    }
    notes.push_back("cp_comm_type " + value + ": costed as ring attention (p2p)");
    return megatron::CpCommType::P2p;
}

// The dump prints the list ("['layernorm', 'moe']"); modules Stratex does not cost are noted.
megatron::RecomputeModules recomputeModulesOfDump(const std::string& value, std::vector<std::string>& notes)
{
    megatron::RecomputeModules modules = megatron::RecomputeModules::of({});
    for (const std::string& name : dumpListWords(value)) {
        if (const std::optional<megatron::RecomputeModule> module = megatron::parseRecomputeModule(name))
            modules = modules.with(*module);
        else
            notes.push_back("recompute module " + name + ": not costed (kept as if not recomputed)");
    }
    return modules;
}

std::optional<megatron::ParallelStrategy> readStrategy(
    ArgumentReader& args, RunArguments& out, const std::optional<model::ModelDescription>& model)
{
    megatron::ParallelStrategy s;
    const auto tp = args.integer("tensor_model_parallel_size", 1, limits::kMaxWorld, true);
    const auto pp = args.integer("pipeline_model_parallel_size", 1, limits::kMaxWorld, true);
    const auto mbs = args.integer("micro_batch_size", 1, limits::kMaxBatch, true);
    const auto gbs = args.integer("global_batch_size", 1, limits::kMaxBatch, true);
    const auto world = args.integer("world_size", 1, limits::kMaxWorld, true);
    out.world_size = world;
    if (!tp || !pp || !mbs || !gbs || !world)
        return std::nullopt;
    s.tp = *tp;
    s.pp = *pp;
    s.cp = args.integer("context_parallel_size", 1, limits::kMaxWorld, false).value_or(1);
    if (const std::optional<std::string> commType = args.text("cp_comm_type"); commType && s.cp > 1)
        s.cp_comm_type = cpCommTypeOfDump(*commType, out.notes);
    s.ep = args.integer("expert_model_parallel_size", 1, limits::kMaxWorld, false).value_or(1);
    const bool moe = model && model->moe;
    s.etp = moe ? args.integer("expert_tensor_parallel_size", 1, limits::kMaxWorld, false).value_or(s.tp) : 1;
    if (!moe)
        s.ep = 1;
    // The EP dispatch the run used (docs/moe.md): Megatron's --moe-token-dispatcher-type (its
    // default allgather) and --overlap-moe-expert-parallel-comm.
    if (moe && s.ep > 1) {
        const std::string dispatcher = args.text("moe_token_dispatcher_type").value_or("allgather");
        if (const std::optional<megatron::MoeDispatcher> d = megatron::parseMoeDispatcher(dispatcher))
            s.moe_token_dispatcher = *d;
        else
            out.notes.push_back("moe_token_dispatcher_type " + dispatcher + ": costed as alltoall");
        s.moe_ep_comm_overlap = args.flag("overlap_moe_expert_parallel_comm", false);
    }
    // Each degree is at most kMaxWorld (2^24): their product could pass 2^63 and wrap (issue 26).
    const std::optional<std::int64_t> checkedRanks = productWithin(
        { { "tensor_model_parallel_size", s.tp }, { "pipeline_model_parallel_size", s.pp },
            { "context_parallel_size", s.cp } },
        limits::kMaxWorld);
    if (!checkedRanks)
        args.fail("world_size",
            "tensor x pipeline x context parallel size of at most " + std::to_string(limits::kMaxWorld),
            std::to_string(s.tp) + " x " + std::to_string(s.pp) + " x " + std::to_string(s.cp));
    const long long modelRanks = *checkedRanks;
    if (const std::optional<int> dp = args.integer("data_parallel_size", 1, limits::kMaxWorld, false)) {
        s.dp = *dp;
    } else {
        if (*world % modelRanks != 0)
            args.fail("world_size",
                "a multiple of tensor x pipeline x context parallel size (" + std::to_string(modelRanks) + ")",
                std::to_string(*world));
        s.dp = int(*world / modelRanks);
    }
    // Megatron's own checks (validate_args, initialize_model_parallel); they also keep every
    // product of degrees Stratex forms within the world size.
    if (modelRanks * s.dp != *world)
        args.fail("world_size",
            "tensor x pipeline x context x data parallel size (" + std::to_string(modelRanks * s.dp) + ")",
            std::to_string(*world));
    if (static_cast<long long>(s.ep) * s.etp > *world)
        args.fail("expert_model_parallel_size",
            "expert x expert-tensor parallel size of at most the world size (" + std::to_string(*world) + ")",
            std::to_string(s.ep));
    if (*gbs % (static_cast<long long>(*mbs) * s.dp) != 0)
        args.fail("global_batch_size",
            "a multiple of micro_batch_size x data-parallel size ("
                + std::to_string(static_cast<long long>(*mbs) * s.dp) + ")",
            std::to_string(*gbs));
    s.micro_batch_size = *mbs;
    s.global_batch_size = *gbs;
    s.sequence_parallel = args.flag("sequence_parallel", false);
    s.tp_comm_overlap = s.sequence_parallel && args.flag("tp_comm_overlap", false); // --tp-comm-overlap
    s.zero = zeroStage(args);
    // The state dtypes (docs/memory-model.md, "Megatron-Core"): the dump prints the resolved
    // accumulate_allreduce_grads_in_fp32 (False under --bf16 with --grad-reduce-in-bf16 or
    // --main-grads-dtype bf16) and, with the precision-aware optimizer, exp_avg_dtype as a torch dtype.
    if (args.flag("bf16", false) && !args.flag("accumulate_allreduce_grads_in_fp32", true))
        s.main_grads_dtype = megatron::StateDtype::Bf16;
    if (args.flag("use_precision_aware_optimizer", false)
        && args.text("exp_avg_dtype").value_or("").find("bfloat16") != std::string::npos)
        s.optimizer_state_dtype = megatron::StateDtype::Bf16;
    const std::string granularity = args.text("recompute_granularity").value_or("None");
    if (granularity == "full")
        s.recompute = megatron::Recompute::Full;
    else if (granularity == "selective") {
        s.recompute = megatron::Recompute::Selective;
        if (const std::optional<std::string> modules = args.text("recompute_modules"))
            s.recompute_modules = recomputeModulesOfDump(*modules, out.notes);
    } else if (granularity != "None")
        args.fail("recompute_granularity", "full, selective or None", granularity);
    s.recompute_num_layers = args.integer("recompute_num_layers", 1, limits::kMaxLayers, false).value_or(0);
    if (s.recompute == megatron::Recompute::Full && args.text("recompute_method").value_or("uniform") == "block")
        out.notes.push_back("recompute_method block: costed as uniform");
    s.first_stage_layers = args.integer("decoder_first_pipeline_num_layers", 1, limits::kMaxLayers, false).value_or(0);
    s.last_stage_layers = args.integer("decoder_last_pipeline_num_layers", 1, limits::kMaxLayers, false).value_or(0);
    if (const std::optional<int> vpp
        = args.integer("virtual_pipeline_model_parallel_size", 1, limits::kMaxLayers, false)) {
        s.vpp = *vpp;
    } else if (const std::optional<int> perChunk
        = args.integer("num_layers_per_virtual_pipeline_stage", 1, limits::kMaxLayers, false)) {
        if (model && s.pp > 0 && (model->num_layers / s.pp) % *perChunk == 0)
            s.vpp = model->num_layers / s.pp / *perChunk;
    }
    if (const std::optional<std::string> layout = args.text("pipeline_model_parallel_layout"); layout && model)
        readLayout(*layout, s, model->num_layers, out.notes);
    s.schedule = s.vpp > 1 ? megatron::PipelineSchedule::Interleaved : megatron::PipelineSchedule::OneFOneB;
    // --microbatch-group-size-per-virtual-pipeline-stage (dest: ModelParallelConfig's field name,
    // megatron/training/argument_utils.py @ d98e8a64); None: pp (docs/memory-model.md).
    if (args.text("microbatch_group_size_per_vp_stage").value_or("None") != "None") {
        const std::optional<int> group
            = args.integer("microbatch_group_size_per_vp_stage", 1, limits::kMaxBatch, false);
        if (group && s.vpp > 1 && *group != s.pp)
            s.microbatch_group_size = *group;
    }
    if (args.text("fp8"))
        s.precision = megatron::Precision::Fp8;
    else if (args.flag("fp16", false))
        s.precision = megatron::Precision::Fp16;
    else
        s.precision = megatron::Precision::Bf16;
    // --fp8-recipe (TransformerConfig.fp8_recipe, "delayed" by default @ d98e8a64; logs from before
    // the field, core_r0.8.0, ran delayed scaling, the only recipe): docs/kernels.md §8.
    if (s.precision == megatron::Precision::Fp8) {
        const std::string recipe = args.text("fp8_recipe").value_or("delayed");
        const std::optional<megatron::Fp8Recipe> parsed = megatron::parseFp8Recipe(recipe);
        s.fp8_recipe = parsed.value_or(megatron::Fp8Recipe::Delayed);
        if (!parsed)
            out.notes.push_back("fp8_recipe " + recipe + " is not modelled: costed as delayed scaling");
    }
    if (!args.text("fp8") && !args.flag("fp16", false) && !args.flag("bf16", false))
        out.notes.push_back("neither bf16 nor fp16 set (fp32 training): costed as bf16");
    s.overlap_grad_reduce = args.flag("overlap_grad_reduce", false);
    // --no-gradient-accumulation-fusion (arguments.py: store_false, dest gradient_accumulation_fusion).
    s.gradient_accumulation_fusion = args.flag("gradient_accumulation_fusion", true);
    // --cross-entropy-loss-fusion (ModelParallelConfig, off by default): the native fused loss keeps
    // one more fp32 logits copy (docs/memory-model.md, "Fused cross-entropy loss"). Transformer
    // Engine's implementation (cross_entropy_fusion_impl te) is not modelled: read as unfused.
    const std::optional<std::string> ceImpl = args.text("cross_entropy_fusion_impl");
    s.cross_entropy_loss_fusion = args.flag("cross_entropy_loss_fusion", false) && (!ceImpl || *ceImpl == "native");
    if (args.flag("cross_entropy_loss_fusion", false) && !s.cross_entropy_loss_fusion)
        out.notes.push_back("cross_entropy_fusion_impl " + *ceImpl + " (Transformer Engine's loss): costed as the unfused loss");
    // --num-distributed-optimizer-instances (HSDP, docs/hsdp.md): dp / instances ranks shard.
    if (const std::optional<int> instances
        = args.integer("num_distributed_optimizer_instances", 1, limits::kMaxWorld, false);
        instances && *instances > 1 && s.zero >= 1) {
        if (s.dp % *instances != 0)
            args.fail("num_distributed_optimizer_instances", "a divisor of the data-parallel size " + std::to_string(s.dp),
                std::to_string(*instances));
        s.dp_shard = s.dp / *instances;
    }
    const std::string backend = args.text("attention_backend").value_or("AttnBackend.auto");
    s.flash_attention = backend != "AttnBackend.unfused" && backend != "AttnBackend.local"
        && args.text("transformer_impl").value_or("transformer_engine") != "local";
    if (args.flag("use_flash_attn", false))
        s.flash_attention = true;
    // AttnBackend.flash sets NVTE_FLASH_ATTN (flash-attn: FA2, or FA3 where installed), .fused
    // NVTE_FUSED_ATTN (cuDNN); auto leaves TE's own choice (docs/kernels.md §6).
    if (s.flash_attention && backend == "AttnBackend.flash")
        s.attention_kernel = hardware::AttentionKernel::Flash2;
    else if (s.flash_attention && backend == "AttnBackend.fused")
        s.attention_kernel = hardware::AttentionKernel::Cudnn;
    if (args.flag("use_tp_pp_dp_mapping", false))
        out.rank_order = "tp-cp-ep-pp-dp";
    return s;
}

} // namespace

std::optional<std::string> ArgumentDump::find(std::string_view name) const
{
    const auto it = values.find(name);
    if (it == values.end() || it->second.value == "None")
        return std::nullopt;
    return it->second.value;
}

const std::vector<std::string_view>& requiredArguments()
{
    static const std::vector<std::string_view> names { "num_layers", "hidden_size", "ffn_hidden_size",
        "num_attention_heads", "seq_length", "padded_vocab_size", "tensor_model_parallel_size",
        "pipeline_model_parallel_size", "micro_batch_size", "global_batch_size", "world_size" };
    return names;
}

RunArguments runArguments(const ArgumentDump& dump)
{
    RunArguments out;
    if (!dump.present()) {
        for (const std::string_view name : requiredArguments())
            out.missing.emplace_back(name);
        return out;
    }
    ArgumentReader args(dump, out);
    out.model = readModel(args, out);
    out.strategy = readStrategy(args, out, out.model);
    if (!out.missing.empty()) {
        out.model.reset();
        out.strategy.reset();
    }
    return out;
}

} // namespace stratex::runs
