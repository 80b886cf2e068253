// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/megatron_bridge_recipe.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/common/error.h"
#include "core/export/megatron_args.h"
#include "core/export/megatron_plan_args.h"
#include "core/export/plan_file_checks.h"
#include "core/export/python_literal.h"
#include "core/export/shell_quote.h"
#include "core/hardware/hardware_model.h"

namespace stratex::exporting {

namespace {

constexpr std::string_view kTarget = "Megatron-Bridge";

std::string str(long long n)
{
    return std::to_string(n);
}

void set(MegatronBridgeRecipe& r, std::string path, std::string value)
{
    r.fields.push_back({ std::move(path), std::move(value) });
}

void approximate(MegatronBridgeRecipe& r, std::string field, const std::string& text)
{
    r.comments.push_back(text);
    addExportNote(r.notes, ExportNoteKind::Approximation, std::move(field), std::string(kTarget) + ": " + text);
}

// The Megatron-LM export's notes hold for Bridge (the same Megatron-Core model, schedules and data
// parallelism run underneath); they are said in Bridge's name. Its "model" notes name
// Megatron-LM's flags: addMegatronBridgeFields gives Bridge's own.
void carryNotes(MegatronBridgeRecipe& r, const std::vector<ExportNote>& notes)
{
    for (ExportNote note : notes) {
        if (note.field == "model")
            continue;
        std::string& text = note.text;
        for (std::size_t at = text.find("Megatron-LM"); at != std::string::npos;
             at = text.find("Megatron-LM", at + kTarget.size()))
            text.replace(at, 11, kTarget);
        for (std::size_t at = text.find("the exported arguments"); at != std::string::npos;
             at = text.find("the exported arguments", at + 10))
            text.replace(at, 22, "the recipe");
        // Every note names the target ("the plan does not fit: ..." too).
        const std::string prefix = std::string(kTarget) + ": ";
        if (!text.starts_with(kTarget))
            text = prefix + text;
        r.comments.push_back(text.starts_with(prefix) ? text.substr(prefix.size()) : text);
        addExportNote(r.notes, note.kind, std::move(note.field), std::move(text));
    }
}

std::string stringList(const std::vector<std::string_view>& items)
{
    std::string list = "[";
    for (std::size_t i = 0; i < items.size(); ++i)
        list += (i ? ", " : "") + pythonString(items[i]);
    return list + "]";
}

std::vector<std::string_view> splitWords(std::string_view text)
{
    std::vector<std::string_view> words;
    while (!text.empty()) {
        const std::size_t start = text.find_first_not_of(' ');
        if (start == std::string_view::npos)
            break;
        text.remove_prefix(start);
        const std::size_t end = text.find(' ');
        words.push_back(text.substr(0, end));
        text.remove_prefix(end == std::string_view::npos ? text.size() : end);
    }
    return words;
}

void addModelFields(MegatronBridgeRecipe& r, const model::ModelDescription& model, int tensorParallel)
{
    // TransformerConfig (transformer_config.py) and GPTModelProvider (gpt_provider.py) fields.
    set(r, "model.num_layers", str(model.num_layers));
    set(r, "model.hidden_size", str(model.hidden_size));
    set(r, "model.ffn_hidden_size", str(model.ffn_hidden_size));
    set(r, "model.num_attention_heads", str(model.num_heads));
    if (!model.mla)
        set(r, "model.num_query_groups", str(model.num_kv_heads)); // GQA when below the heads
    set(r, "model.seq_length", str(model.seq_length));
    set(r, "model.normalization", pythonString(model.norm == model::NormKind::RmsNorm ? "RMSNorm" : "LayerNorm"));
    const bool gated = model.mlp == model::MlpKind::Gated;
    set(r, "model.gated_linear_unit", pythonBool(gated));
    set(r, "model.activation_func", gated ? "F.silu" : "F.gelu");
    // Llama-style models have no linear biases (Qwen 2 / 2.5 keep Q, K and V's); GPT-3 has them all.
    set(r, "model.add_bias_linear", pythonBool(!gated));
    set(r, "model.add_qkv_bias", pythonBool(gated ? model.qkv_bias : true));
    if (model.position == model::PositionEmbedding::Rope) {
        set(r, "model.position_embedding_type", pythonString("rope"));
        if (model.mla) {
            // MLATransformerConfig: rotary_base is a float; rope_type defaults to "yarn", the
            // model's RoPE is plain.
            set(r, "model.rotary_base", pythonFloat(model.rotary_base));
            set(r, "model.rope_type", pythonString("rope"));
            if (model.rope_scaling)
                approximate(r, "model.rope_scaling",
                    "RoPE scaling with multi-latent attention: Megatron-Core's MLA applies YaRN or none, not Llama "
                    "3.1's scaling (written without it)");
        } else {
            // gpt_provider.py: rotary_base: int.
            const long long base = std::llround(model.rotary_base);
            set(r, "model.rotary_base", str(base));
            if (double(base) != model.rotary_base)
                approximate(r, "model.rotary_base",
                    "RoPE base " + pythonFloat(model.rotary_base) + ": GPTModelProvider.rotary_base is an integer, "
                        + str(base) + " is written");
            set(r, "model.rope_scaling", pythonBool(model.rope_scaling.has_value()));
            if (model.rope_scaling) {
                // llama_bridge.py: rope_scaling=True with rope_scaling_factor; Megatron-Core's
                // _apply_scaling (rotary_pos_embedding.py) fixes the other three at 1, 4 and 8192.
                const model::RopeScaling& s = *model.rope_scaling;
                set(r, "model.rope_scaling_factor", pythonFloat(s.factor));
                if (s.low_freq_factor != 1.0 || s.high_freq_factor != 4.0 || s.original_max_positions != 8192)
                    approximate(r, "model.rope_scaling",
                        "RoPE scaling low/high frequency factors " + pythonFloat(s.low_freq_factor) + "/"
                            + pythonFloat(s.high_freq_factor) + " over " + str(s.original_max_positions)
                            + " positions: Megatron-Core's rope_scaling fixes them at 1/4 over 8192");
            }
        }
    } else {
        set(r, "model.position_embedding_type", pythonString("learned_absolute"));
    }
    if (model.mla) {
        // MLATransformerConfig (transformer_config.py): q_lora_rank None is a full query
        // projection (multi_latent_attention.py); qk_layernorm normalises the latents.
        const model::MlaDescription& mla = *model.mla;
        set(r, "model.multi_latent_attention", "True");
        set(r, "model.q_lora_rank", mla.q_lora_rank > 0 ? str(mla.q_lora_rank) : "None");
        set(r, "model.kv_lora_rank", str(mla.kv_lora_rank));
        set(r, "model.qk_head_dim", str(mla.qk_nope_head_dim));
        set(r, "model.qk_pos_emb_head_dim", str(mla.qk_rope_head_dim));
        set(r, "model.v_head_dim", str(mla.v_head_dim));
        set(r, "model.qk_layernorm", "True");
    } else {
        set(r, "model.qk_layernorm", pythonBool(model.qk_norm));
        if (model.attentionWidth() != model.hidden_size) // TransformerConfig.kv_channels (--kv-channels)
            set(r, "model.kv_channels", str(model.headDim()));
    }
    // TransformerConfig.hidden_dropout / attention_dropout default to 0.1 (transformer_config.py):
    // written as Megatron-LM's arguments are (megatron_flags.cpp), what the layer model costed.
    const double dropout = model.hidden_dropout.value_or(model.mlp == model::MlpKind::Gated ? 0.0 : 0.1);
    if (dropout == 0)
        set(r, "model.attention_dropout", "0.0");
    if (dropout != 0.1)
        set(r, "model.hidden_dropout", pythonFloat(dropout));
    set(r, "model.share_embeddings_and_output_weights", pythonBool(model.tied_embeddings));
    // The padding rule: vocab_size rounded up to make_vocab_size_divisible_by x TP
    // (utils/vocab_utils.py calculate_padded_vocab_size), written padded with should_pad_vocab
    // off so that no tokenizer changes it (setup.py _validate_and_set_vocab_size).
    set(r, "model.make_vocab_size_divisible_by", str(model.vocab_padding_multiple));
    set(r, "model.vocab_size", str(model.paddedVocabSize(tensorParallel)));
    set(r, "model.should_pad_vocab", "False");
    // TransformerConfig.mtp_num_layers (default None; Bridge's DeepSeek-V3 recipe sets 1): the
    // multi-token-prediction modules the plan costs on the last stage.
    if (model.mtp_num_layers > 0)
        set(r, "model.mtp_num_layers", str(model.mtp_num_layers));
    if (model.moe) {
        const model::MoeDescription& moe = *model.moe;
        set(r, "model.num_moe_experts", str(moe.num_experts));
        set(r, "model.moe_router_topk", str(moe.top_k));
        set(r, "model.moe_ffn_hidden_size", str(moe.expert_ffn_hidden_size));
        if (moe.shared_experts > 0)
            set(r, "model.moe_shared_expert_intermediate_size",
                str(static_cast<long long>(moe.shared_experts) * moe.shared_expert_ffn_hidden_size));
        // deepseek_v3_bridge.py: moe_layer_freq = [0] * first_k_dense_replace + [1] * (...).
        if (moe.first_dense_layers > 0)
            set(r, "model.moe_layer_freq",
                "[0] * " + str(moe.first_dense_layers) + " + [1] * " + str(model.num_layers - moe.first_dense_layers));
        // The router: the same TransformerConfig fields the Megatron-LM export sets by flag, by the
        // same rule (megatron_flags.h MegatronRouter); what Megatron computes differently is
        // already among the Megatron export's notes this recipe carries.
        std::vector<std::string> differences;
        const MegatronRouter router = megatronRouter(moe, differences);
        if (router.sigmoid)
            set(r, "model.moe_router_score_function", pythonString("sigmoid"));
        if (router.pre_softmax)
            set(r, "model.moe_router_pre_softmax", "True");
        if (router.expert_bias)
            set(r, "model.moe_router_enable_expert_bias", "True");
        if (router.topk_scaling_factor)
            set(r, "model.moe_router_topk_scaling_factor", pythonFloat(*router.topk_scaling_factor));
        if (router.num_groups > 0) {
            set(r, "model.moe_router_num_groups", str(router.num_groups));
            set(r, "model.moe_router_group_topk", str(router.group_topk));
        }
        if (router.capacity_factor)
            set(r, "model.moe_expert_capacity_factor", pythonFloat(*router.capacity_factor));
        if (router.shared_expert_gate)
            set(r, "model.moe_shared_expert_gate", "True");
    }
}

void addRunFields(MegatronBridgeRecipe& r, const MegatronRun& run, bool moeModel, int numLayers)
{
    // ModelParallelConfig (model_parallel_config.py) and TransformerConfig's layout fields.
    set(r, "model.tensor_model_parallel_size", str(run.tensor_parallel));
    set(r, "model.pipeline_model_parallel_size", str(run.pipeline_parallel));
    const MegatronPipelineLayout& division = run.division;
    int virtualStages = run.virtual_stages;
    if (!division.layout.empty()) {
        // One "|" between chunks: the layout says the chunk count (transformer_config.py checks
        // virtual_pipeline_model_parallel_size against it).
        int chunks = 1;
        for (char c : division.layout)
            chunks += c == '|';
        virtualStages = run.pipeline_parallel > 0 ? chunks / run.pipeline_parallel : 1;
    }
    set(r, "model.virtual_pipeline_model_parallel_size", virtualStages > 1 ? str(virtualStages) : "None");
    set(r, "model.pipeline_model_parallel_layout", division.layout.empty() ? "None" : pythonString(division.layout));
    set(r, "model.num_layers_in_first_pipeline_stage",
        division.first_stage_layers > 0 ? str(division.first_stage_layers) : "None");
    set(r, "model.num_layers_in_last_pipeline_stage",
        division.last_stage_layers > 0 ? str(division.last_stage_layers) : "None");
    set(r, "model.context_parallel_size", str(run.context_parallel));
    if (run.context_parallel > 1)
        set(r, "model.cp_comm_type", pythonString(run.cp_comm_type));
    if (run.context_parallel > 1 && run.hierarchical_cp_sizes.size() == 2) // model_parallel_config.py
        set(r, "model.hierarchical_context_parallel_sizes",
            "[" + str(run.hierarchical_cp_sizes[0]) + ", " + str(run.hierarchical_cp_sizes[1]) + "]");
    if (moeModel) {
        set(r, "model.expert_model_parallel_size", str(run.expert_parallel));
        // transformer_config.py (Bridge): an unset ETP with EP > 1 becomes 1; written always.
        set(r, "model.expert_tensor_parallel_size",
            str(run.expert_tensor_parallel > 0 ? run.expert_tensor_parallel : run.tensor_parallel));
        if (!run.moe_token_dispatcher.empty())
            set(r, "model.moe_token_dispatcher_type", pythonString(run.moe_token_dispatcher));
        if (run.moe_ep_comm_overlap) // ModelParallelConfig.overlap_moe_expert_parallel_comm
            set(r, "model.overlap_moe_expert_parallel_comm", "True");
    }
    set(r, "model.sequence_parallel", pythonBool(run.sequence_parallel));
    // Written either way: Megatron-Bridge's GPTModelProvider turns the fused loss on by default
    // (src/megatron/bridge/models/gpt_provider.py @ 067f987d, cross_entropy_loss_fusion = True),
    // Megatron-Core off; the plan's memory counts the fused loss's second fp32 logits copy only when
    // it says so (docs/memory-model.md, "Fused cross-entropy loss").
    set(r, "model.cross_entropy_loss_fusion", pythonBool(run.cross_entropy_loss_fusion));
    if (run.tp_comm_overlap && run.sequence_parallel) {
        // training/comm_overlap.py CommOverlapConfig (ConfigContainer.comm_overlap, None in
        // _pretrain_common): Bridge's recipes turn TP overlap on this way (recipes/llama/h100/llama3.py).
        set(r, "comm_overlap", "CommOverlapConfig(tp_comm_overlap=True)");
        r.uses_comm_overlap = true;
    }

    if (run.recompute_granularity.empty()) {
        set(r, "model.recompute_granularity", "None");
        set(r, "model.recompute_modules", "None");
    } else if (run.recompute_granularity == "selective") {
        set(r, "model.recompute_granularity", pythonString("selective"));
        std::vector<std::string_view> modules = splitWords(run.recompute_modules);
        if (modules.empty())
            modules.push_back("core_attn"); // Megatron's default, written out
        set(r, "model.recompute_modules", stringList(modules));
        // transformer_config.py: "moe_act in recompute_modules is only supported with moe_grouped_gemm".
        for (std::string_view module : modules)
            if (moeModel && module == "moe_act")
                set(r, "model.moe_grouped_gemm", "True");
    } else {
        set(r, "model.recompute_granularity", pythonString("full"));
        set(r, "model.recompute_method", pythonString(run.recompute_method));
        set(r, "model.recompute_num_layers", str(std::min(std::max(1, run.recompute_layers), numLayers)));
        set(r, "model.recompute_modules", "None");
    }
    // CPU activation offload as Bridge's performance recipes set it (scripts/performance/utils/
    // overrides.py _set_recompute_overrides @ v0.5.0: cpu_offloading True, cpu_offloading_weights
    // False, cpu_offloading_num_layers N; docs/memory-model.md, "CPU activation offload").
    if (run.cpu_offloading_layers > 0) {
        set(r, "model.cpu_offloading", "True");
        set(r, "model.cpu_offloading_weights", "False");
        set(r, "model.cpu_offloading_num_layers", str(run.cpu_offloading_layers));
    }
    // CUDA graphs (docs/kernels.md §7): TransformerConfig's cuda_graph_impl and cuda_graph_modules
    // (names, normalised by its __post_init__ @ d98e8a64); full-iteration as Bridge's performance
    // scripts run it: no NaN check in the loss (scripts/performance/utils/overrides.py @ 067f987d)
    // and, for a MoE model, set_full_iter_cg_configs's fixed expert capacity on HybridEP
    // (scripts/performance/configs/qwen/qwen3_llm_pretrain.py @ v0.5.0).
    if (!run.cuda_graph_impl.empty()) {
        set(r, "model.cuda_graph_impl", pythonString(run.cuda_graph_impl));
        set(r, "model.cuda_graph_modules", stringList(splitWords(run.cuda_graph_modules)));
        // GPTModelProvider.finalize asserts TE's RNG tracker with any graph (gpt_provider.py @
        // 067f987d: "Transformer engine's RNG tracker is required for cudagraphs"); ConfigContainer
        // keeps the two switches in step (config.py).
        set(r, "model.use_te_rng_tracker", "True");
        set(r, "rng.te_rng_tracker", "True");
        r.uses_te_cuda_graphs = run.cuda_graph_impl == "transformer_engine";
        if (run.cuda_graph_impl == "full_iteration") {
            set(r, "rerun_state_machine.check_for_nan_in_loss", "False");
            if (moeModel) {
                set(r, "model.moe_flex_dispatcher_backend", pythonString("hybridep"));
                set(r, "model.moe_pad_experts_for_cuda_graph_inference", "True");
                set(r, "model.moe_expert_rank_capacity_factor", "1.5");
                set(r, "model.moe_paged_stash", "True");
                set(r, "model.moe_paged_stash_buffer_size_factor_cuda", "1.2");
                set(r, "model.moe_paged_stash_buffer_size_factor_cpu", "1.0");
            }
        }
    }
    if (run.unfused_attention) {
        set(r, "model.attention_backend", "AttnBackend.unfused"); // enums.py: the s x s scores materialised
        r.uses_attn_backend = true;
    } else if (!run.attention_backend.empty()) { // AttnBackend.flash / .fused (docs/kernels.md §6)
        set(r, "model.attention_backend", "AttnBackend." + run.attention_backend);
        r.uses_attn_backend = true;
    }

    // TrainingConfig (training/config/training_config.py) and the dataset's sequence length.
    set(r, "train.micro_batch_size", str(run.micro_batch_size));
    set(r, "train.global_batch_size", str(run.global_batch_size));

    // Data parallelism: DistributedDataParallelConfig (distributed_data_parallel_config.py) and
    // OptimizerConfig's copies, which Bridge turns on together when either is on
    // (config.py _validate_and_sync_distributed_optimizer_settings): both are written.
    // _pretrain_common's DDP says data_parallel_sharding_strategy="optim_grads_params"; only
    // Megatron-FSDP reads it, and it is written for every plan.
    const bool fsdp = isMegatronFsdp(run.data_parallel_kind);
    const bool distributed = run.data_parallel_kind != MegatronDataParallel::Ddp;
    set(r, "ddp.use_distributed_optimizer", pythonBool(distributed));
    set(r, "optimizer.use_distributed_optimizer", pythonBool(distributed));
    if (run.distributed_optimizer_instances > 1) // HSDP (docs/hsdp.md): DistributedDataParallelConfig's field
        set(r, "ddp.num_distributed_optimizer_instances", str(run.distributed_optimizer_instances));
    set(r, "ddp.overlap_grad_reduce", pythonBool(run.overlap_grad_reduce));
    set(r, "ddp.overlap_param_gather", pythonBool(run.overlap_param_gather));
    set(r, "optimizer.overlap_param_gather", pythonBool(run.overlap_param_gather));
    // The state dtypes (docs/memory-model.md): MixedPrecisionConfig.grad_reduce_in_fp32 overrides
    // the DDP config's (mixed_precision.py setup); Megatron-Core's OptimizerConfig takes torch dtypes.
    if (run.grad_reduce_in_bf16)
        set(r, "mixed_precision.grad_reduce_in_fp32", "False");
    // ModelParallelConfig.gradient_accumulation_fusion (model_parallel_config.py): Bridge's
    // GPTModelProvider defaults it to fusions.can_enable_gradient_accumulation_fusion(), True where
    // Transformer Engine or APEX's fused_weight_gradient_mlp_cuda imports (utils/fusions.py @
    // 067f987d): written always, so that the run keeps what the plan was costed with (te_dummy_wgrad.h).
    set(r, "model.gradient_accumulation_fusion", pythonBool(run.gradient_accumulation_fusion));
    if (run.bf16_optimizer_states) {
        set(r, "optimizer.use_precision_aware_optimizer", "True");
        set(r, "optimizer.exp_avg_dtype", "torch.bfloat16");
        set(r, "optimizer.exp_avg_sq_dtype", "torch.bfloat16");
        r.uses_torch = true;
    }
    set(r, "ddp.use_megatron_fsdp", pythonBool(fsdp));
    set(r, "dist.use_megatron_fsdp", pythonBool(fsdp));
    std::string sharding = "no_shard";
    if (run.data_parallel_kind == MegatronDataParallel::MegatronFsdpGrads)
        sharding = "optim_grads"; // ZeRO-2: gradients and optimizer states
    else if (run.data_parallel_kind == MegatronDataParallel::MegatronFsdp)
        sharding = "optim_grads_params"; // ZeRO-3: and the weights
    set(r, "ddp.data_parallel_sharding_strategy", pythonString(sharding));
    if (fsdp) {
        // config.py _validate_and_apply_megatron_fsdp_v1_configs: "Megatron-FSDP requires the
        // fsdp_dtensor checkpointing format!", and CUDA_DEVICE_MAX_CONNECTIONS not 1.
        set(r, "checkpoint.ckpt_format", pythonString("fsdp_dtensor"));
        r.comments.push_back("Megatron-FSDP: Bridge asserts CUDA_DEVICE_MAX_CONNECTIONS is not 1; launch without it");
    }

    // MixedPrecisionConfig (mixed_precision.py @ 067f987d): bf16_mixed / fp16_mixed; FP8 as Transformer
    // Engine's hybrid format with the plan's recipe in every layer (docs/kernels.md §8). Not the
    // named FP8 presets (bf16_with_fp8_delayed_scaling_mixed, bf16_with_fp8_current_scaling_mixed,
    // bf16_with_mxfp8_mixed, bf16_with_fp8_subchannel_scaling_mixed): besides the recipe they set
    // fp8_param_gather and, for current scaling, the first and last layers in bf16, which the plan
    // does not cost; the recipe field says the same thing alone.
    if (run.precision == MegatronPrecision::Fp16)
        r.mixed_precision = "fp16_mixed";
    else
        r.mixed_precision = "bf16_mixed";
    if (run.precision == MegatronPrecision::Fp8) {
        set(r, "mixed_precision.fp8", pythonString("hybrid"));
        set(r, "mixed_precision.fp8_recipe", pythonString(run.fp8_recipe));
        r.comments.push_back("FP8: Transformer Engine's hybrid format (e4m3 forward, e5m2 gradients) with the "
            + run.fp8_recipe + " recipe (fp8_recipe \"" + run.fp8_recipe
            + "\") in every layer; Megatron-Bridge's bf16_with_fp8_* presets would also keep the first and last layers "
              "in bf16 or gather FP8 parameters");
    }
}

} // namespace

void addMegatronBridgeFields(MegatronBridgeRecipe& recipe, const model::ModelDescription& model, const MegatronRun& run)
{
    recipe.provider = model.mla ? "MLAModelProvider" : "GPTModelProvider";
    addModelFields(recipe, model, run.tensor_parallel);
    addRunFields(recipe, run, model.moe.has_value(), model.num_layers);
    set(recipe, "dataset.seq_length", str(model.seq_length));
    // A tokenizer that asks for no file, the plan's vocabulary (NullTokenizer, as Bridge's
    // recipes/llama/h100/llama3.py uses with mock data): replace with the run's tokenizer.
    set(recipe, "tokenizer.tokenizer_type", pythonString("NullTokenizer"));
    set(recipe, "tokenizer.tokenizer_model", "None");
    set(recipe, "tokenizer.vocab_size", str(model.vocab_size));
    set(recipe, "tokenizer.use_tokenizer_vocab_size", "False");
}

MegatronBridgeRecipe megatronBridgePlanRecipe(const megatron::PlanFile& plan)
{
    const std::string file = plan.file.empty() ? std::string("the plan") : plan.file;
    const auto refuse = [&](const std::string& what) {
        throw Error(file + ": not exported to " + std::string(kTarget) + ": " + what);
    };
    if (plan.gpipe)
        refuse("\"schedule\": \"gpipe\" cannot be expressed: Bridge trains with Megatron-Core's schedules "
               "(megatron/core/pipeline_parallel/schedules.py: 1F1B and interleaved 1F1B), which have no GPipe; "
               "plan with \"1f1b\"");
    if (plan.strategy.schedule == megatron::PipelineSchedule::ZbH1)
        refuse("ZB-H1 cannot be expressed: Bridge trains with Megatron-Core's schedules "
               "(megatron/core/pipeline_parallel/schedules.py: 1F1B and interleaved 1F1B), which do not defer weight "
               "gradients into the pipeline bubbles (delay_wgrad_compute only overlaps them with the MoE "
               "expert-parallel all-to-all); plan with \"1f1b\" or \"interleaved\"");
    // Megatron's own rules, named as Megatron-LM's: Bridge builds Megatron-Core's model on them.
    requireValidStrategy(plan, kTarget);
    const hardware::HardwareModel hardware(plan.cluster, hardware::efficiencyFor(plan.cluster));
    const MegatronPlanArgs args = megatronPlanArgs(plan, &hardware);

    MegatronBridgeRecipe r;
    r.num_nodes = plan.cluster.num_nodes;
    r.gpus_per_node = plan.cluster.gpus_per_node;
    r.header.push_back(megatronModelSummary(plan.model));
    r.header.push_back("plan: " + plan.strategy.notation() + ", schedule "
        + std::string(megatron::pipelineScheduleName(plan.strategy.schedule)) + ", "
        + std::string(megatron::precisionName(plan.strategy.precision)) + " on " + str(plan.cluster.num_nodes) + " x "
        + str(plan.cluster.gpus_per_node) + " " + plan.cluster.gpu.name);
    if (args.planned && args.recosted) {
        r.header.push_back("predicted by Stratex, the plan:            " + megatronPredictionText(*args.planned));
        r.header.push_back("predicted by Stratex, as Bridge runs it:   " + megatronPredictionText(*args.recosted));
    } else if (args.planned) {
        r.header.push_back("predicted by Stratex: " + megatronPredictionText(*args.planned));
    }
    r.plan_facts = { { "model", plan.model.name }, { "strategy", plan.strategy.notation() },
        { "cluster", plan.cluster.gpu.name } };
    if (plan.strategy.framework == megatron::Framework::Torchtitan
        || plan.strategy.framework == megatron::Framework::DeepSpeed
        || plan.strategy.framework == megatron::Framework::Composer)
        approximate(r, "strategy.framework",
            "the plan's memory was costed with " + std::string(megatron::frameworkName(plan.strategy.framework))
                + "'s rules; Bridge keeps Megatron-Core's (docs/memory-model.md)");
    carryNotes(r, args.notes);
    addMegatronBridgeFields(r, plan.model, args.run);
    return r;
}

MegatronBridgeRecipe megatronBridgeSearchedRecipe(const galvatron::Plan& plan, const galvatron::SearchSettings& settings,
    const model::ModelDescription& model, const galvatron::CostModel* costModel)
{
    const MegatronArgs args = megatronArgs(plan, settings, model, costModel);
    MegatronBridgeRecipe r;
    r.num_nodes = settings.num_nodes;
    r.gpus_per_node = settings.num_gpus_per_node;
    r.header.push_back(args.model_summary);
    r.header.push_back("a searched Galvatron plan (per-layer strategies) as Megatron-Core runs it: tp "
        + str(args.run.tensor_parallel) + ", pp " + str(args.run.pipeline_parallel) + ", cp "
        + str(args.run.context_parallel) + ", dp " + str(args.run.data_parallel)
        + megatronDataParallelText(args.run.data_parallel_kind) + " on " + str(settings.num_nodes) + " x "
        + str(settings.num_gpus_per_node) + " GPUs");
    if (!args.not_costed.empty())
        r.header.push_back("not costed: " + args.not_costed);
    r.plan_facts = { { "model", model.name }, { "strategy", "galvatron" } };
    carryNotes(r, args.notes);
    addMegatronBridgeFields(r, model, args.run);
    return r;
}

std::string megatronBridgeRecipeText(const MegatronBridgeRecipe& r)
{
    std::string s;
    s += "# Megatron-Bridge recipe for a Stratex plan, written by Stratex.\n";
    for (const std::string& line : r.header)
        s += "# " + commentLine(line) + "\n";
    s += "# Fields as NVIDIA-NeMo/Megatron-Bridge main (067f987d) names them: training/config.py ConfigContainer,\n";
    s += "# models/gpt_provider.py, models/mla_provider.py, training/mixed_precision.py; Megatron-Core at 2a75ac12.\n";
    if (!r.comments.empty())
        s += "# Exported differently from the plan, or to know:\n";
    for (const std::string& comment : r.comments)
        s += "#   " + commentLine(comment) + "\n";
    s += "# Run (Bridge and its Megatron-Core installed), data and tokenizer set below or as overrides:\n";
    if (r.num_nodes > 1)
        s += "#   torchrun --nnodes " + str(r.num_nodes) + " --nproc-per-node " + str(r.gpus_per_node)
            + " --node-rank N --master-addr HOST megatron_bridge_recipe.py [KEY=VALUE ...]\n";
    else
        s += "#   torchrun --standalone --nproc-per-node " + str(r.gpus_per_node) + " megatron_bridge_recipe.py [KEY=VALUE ...]\n";
    s += "import os\n";
    s += "import sys\n\n";
    s += "# The caching allocator's expandable segments, as NVIDIA's Bridge performance launcher sets them\n";
    s += "# (scripts/performance/utils/executors.py) and as Stratex costed the plan's device memory; before torch.\n";
    s += "os.environ.setdefault(\"PYTORCH_CUDA_ALLOC_CONF\", \"expandable_segments:True\")\n";
    if (r.uses_te_cuda_graphs) {
        // Megatron-Core's TECudaGraphHelper asserts it beside expandable segments (cuda_graphs.py @
        // d98e8a64: "to avoid illegal memory access"); Bridge's perf recipes set it so.
        s += "# TE's CUDA graphs with expandable segments need NCCL's graph registration off (Megatron-Core\n";
        s += "# TECudaGraphHelper asserts it).\n";
        s += "os.environ.setdefault(\"NCCL_GRAPH_REGISTER\", \"0\")\n";
    }
    s += "\n";
    if (r.uses_torch)
        s += "import torch\n";
    s += "import torch.nn.functional as F\n";
    if (r.uses_attn_backend)
        s += "from megatron.core.transformer.enums import AttnBackend\n";
    s += "\n";
    if (r.provider == "MLAModelProvider")
        s += "from megatron.bridge.models.mla_provider import MLAModelProvider\n";
    else
        s += "from megatron.bridge.models.gpt_provider import GPTModelProvider\n";
    s += "from megatron.bridge.recipes.common import _pretrain_common\n";
    if (r.uses_comm_overlap)
        s += "from megatron.bridge.training.comm_overlap import CommOverlapConfig\n";
    s += "from megatron.bridge.training.config import ConfigContainer\n";
    s += "from megatron.bridge.training.gpt_step import forward_step\n";
    s += "from megatron.bridge.training.mixed_precision import " + r.mixed_precision + "\n";
    s += "from megatron.bridge.training.pretrain import pretrain\n";
    s += "from megatron.bridge.training.utils.omegaconf_utils import process_config_with_overrides\n\n";
    s += "PLAN = {\n";
    for (const auto& [key, value] : r.plan_facts)
        s += "    " + pythonString(key) + ": " + pythonString(value) + ",\n";
    s += "}\n\n\n";
    s += "def stratex_pretrain_config() -> ConfigContainer:\n";
    s += "    \"\"\"The plan's ConfigContainer: Bridge's pre-training defaults, then the plan's fields.\"\"\"\n";
    s += "    cfg = _pretrain_common()\n";
    s += "    cfg.model = " + r.provider + "()\n";
    s += "    cfg.mixed_precision = " + r.mixed_precision + "()\n";
    for (const MegatronBridgeField& field : r.fields)
        s += "    cfg." + field.path + " = " + field.value + "\n";
    s += "    return cfg\n\n\n";
    s += "if __name__ == \"__main__\":\n";
    s += "    # Trailing KEY=VALUE arguments override fields (Hydra-style, as scripts/training/run_recipe.py takes them).\n";
    s += "    config = process_config_with_overrides(stratex_pretrain_config(), cli_overrides=sys.argv[1:] or None)\n";
    s += "    pretrain(config, forward_step)\n";
    return s;
}

} // namespace stratex::exporting
