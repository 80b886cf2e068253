// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// torchtitan main's config fields a Stratex module may set, with their types, copied from
// pytorch/torchtitan at b5bcd76c66d0acb1a08b176d9639425bc55e0b2a (2026-08-21):
//   torchtitan/config/configs.py      @dataclass TrainingConfig, ParallelismConfig
//   torchtitan/trainer.py             Trainer.Config (activation_checkpoint, override)
//   torchtitan/distributed/activation_checkpoint.py   ActivationCheckpointingConfig: SelectiveAC.Config
//                                     | FullAC.Config | MemoryBudgetAC.Config | None
//   torchtitan/config/override.py     OverrideConfig.imports: list[str | tuple[str, dict]]
// and the schedule names torch.distributed.pipelining.schedules.get_schedule_class accepts (the
// names ParallelismConfig.pipeline_parallel_schedule's docstring points at).
#include <map>
#include <set>
#include <string>

namespace stratex::test::torchtitan_main {

enum class Type {
    Int, // int
    Bool, // bool
    Str, // str
    OptionalStr, // str | None
    Literal, // Literal[...] (the allowed values below)
    StrListList, // list[list[str]] | None
    Components, // list[str] of the literals below (compile.components)
    AcConfig, // ActivationCheckpointingConfig
    ImportList, // list[OverrideImport]
};

struct Field {
    Type type;
    std::set<std::string> literals; // Type::Literal (and the schedule / load-balancer names)
};

// "section.field" as the module writes config.section.field (or "field" for Trainer.Config's own).
inline const std::map<std::string, Field>& fields()
{
    static const std::map<std::string, Field> table {
        // TrainingConfig (configs.py)
        { "training.num_tokens_per_microbatch_per_dp_rank", { Type::Int, {} } },
        { "training.num_tokens_per_train_step", { Type::Int, {} } },
        { "training.max_context_length", { Type::Int, {} } },
        { "training.steps", { Type::Int, {} } },
        { "training.enable_cpu_offload", { Type::Bool, {} } },
        { "training.disable_cuda_graphs", { Type::Bool, {} } },
        { "training.dtype", { Type::Literal, { "bfloat16", "float32" } } },
        { "training.mixed_precision_param", { Type::Literal, { "bfloat16", "float32" } } },
        { "training.mixed_precision_reduce", { Type::Literal, { "float32" } } },
        { "training.gc_freq", { Type::Int, {} } },
        { "training.gc_debug", { Type::Bool, {} } },
        // ParallelismConfig (configs.py)
        { "parallelism.data_parallel_replicate_degree", { Type::Int, {} } },
        { "parallelism.data_parallel_shard_degree", { Type::Int, {} } },
        { "parallelism.fsdp_reshard_after_forward", { Type::Literal, { "default", "always", "never" } } },
        { "parallelism.enable_fsdp_symm_mem", { Type::Bool, {} } },
        { "parallelism.tensor_parallel_degree", { Type::Int, {} } },
        { "parallelism.enable_sequence_parallel", { Type::Bool, {} } },
        { "parallelism.spmd_backend", { Type::Literal, { "partial_dtensor", "spmd_types" } } },
        { "parallelism.pipeline_parallel_degree", { Type::Int, {} } },
        { "parallelism.module_fqns_per_model_part", { Type::StrListList, {} } },
        { "parallelism.pipeline_parallel_first_stage_less_layers", { Type::Int, {} } },
        { "parallelism.pipeline_parallel_last_stage_less_layers", { Type::Int, {} } },
        { "parallelism.pipeline_parallel_layers_per_stage", { Type::Int, {} } },
        // str; the value must be a schedule get_schedule_class knows (torch schedules.py)
        { "parallelism.pipeline_parallel_schedule",
            { Type::Literal,
                { "1F1B", "Interleaved1F1B", "GPipe", "LoopedBFS", "InterleavedZeroBubble", "PipelineScheduleSingle",
                    "PipelineScheduleMulti", "ZBVZeroBubble", "DualPipeV" } } },
        { "parallelism.pipeline_parallel_schedule_csv", { Type::OptionalStr, {} } },
        { "parallelism.num_pp_microbatches", { Type::Int, {} } },
        { "parallelism.context_parallel_degree", { Type::Int, {} } },
        // str | None: "headtail", "ptrr" (context_parallel/api.py raises on anything else)
        { "parallelism.context_parallel_load_balancer", { Type::Literal, { "headtail", "ptrr" } } },
        { "parallelism.context_parallel_ptrr_mask_key", { Type::OptionalStr, {} } },
        { "parallelism.expert_parallel_degree", { Type::Int, {} } },
        // CompileConfig (configs.py): AsyncTP needs enable and "model" in components (the default)
        { "compile.enable", { Type::Bool, {} } },
        // CompileConfig.components: list[str], default ["model", "loss"] (configs.py @ b5bcd76c).
        { "compile.components", { Type::Components, { "model", "loss" } } },
        { "compile.enable_async_tensor_parallel", { Type::Bool, {} } },
        // Trainer.Config
        { "activation_checkpoint", { Type::AcConfig, {} } },
        { "override.imports", { Type::ImportList, {} } },
    };
    return table;
}

// Fields torchtitan v0.2 had that main no longer has (configs.py at b5bcd76c): writing one is an
// AttributeError on a slots dataclass.
inline const std::set<std::string>& removedFields()
{
    static const std::set<std::string> removed { "training.local_batch_size", "training.global_batch_size",
        "training.seq_len", "parallelism.pipeline_parallel_microbatch_size", "parallelism.expert_tensor_parallel_degree",
        "parallelism.context_parallel_rotate_method", "activation_checkpoint.mode",
        "activation_checkpoint.selective_ac_option" };
    return removed;
}

// The keyword arguments of the calls a registered flavour makes, copied from pytorch/torchtitan at
// b5bcd76c66d0acb1a08b176d9639425bc55e0b2a: a name -> required (no default).
//   torchtitan/models/deepseek_v3/__init__.py   build_mla_moe_layers (through _build_dsv3_layers,
//                                               which supplies linear_init, norm_init, depth_init,
//                                               depth_experts_init)
//   torchtitan/models/llama3/__init__.py        _build_llama3_layers
//   torchtitan/models/common/rope.py            RoPE.Config (ComplexRoPE.Config adds none)
//   torchtitan/models/common/decoder.py         Decoder.Config; deepseek_v3/mtp.py MTPDecoder.Config
//                                               (mtp_layers); Llama3Model.Config, DeepSeekV3Model.Config
//                                               add no field the module sets
inline const std::map<std::string, std::map<std::string, bool>>& builderArguments()
{
    static const std::map<std::string, std::map<std::string, bool>> table {
        { "_dsv3._build_dsv3_layers",
            { { "n_layers", true }, { "n_dense_layers", true }, { "dim", true }, { "n_heads", true },
                { "q_lora_rank", true }, { "kv_lora_rank", true }, { "qk_nope_head_dim", true },
                { "qk_rope_head_dim", true }, { "v_head_dim", true }, { "mscale", true },
                { "dense_hidden_dim", true }, { "moe_hidden_dim", true }, { "num_experts", true },
                { "num_shared_experts", true }, { "router_top_k", true }, { "router_score_func", true },
                { "router_num_expert_groups", false }, { "router_num_limited_groups", false },
                { "router_route_scale", false }, { "router_route_norm", false }, { "attn_backend", true },
                { "moe_comm_backend", true }, { "non_blocking_capacity_factor", true }, { "rope", true } } },
        { "_llama3._build_llama3_layers",
            { { "n_layers", true }, { "dim", true }, { "n_heads", true }, { "hidden_dim", true }, { "rope", true },
                { "n_kv_heads", false }, { "fuse_qkv", false }, { "attn_backend", true },
                { "tp_gemm_backend", false } } },
        { "ComplexRoPE.Config",
            { { "dim", true }, { "max_context_length", true }, { "theta", false }, { "scaling", false },
                { "scaling_factor", false }, { "low_freq_factor", false }, { "high_freq_factor", false },
                { "original_max_position_embeddings", false }, { "rope_factor", false }, { "beta_fast", false },
                { "beta_slow", false }, { "original_seq_len", false }, { "truncate", false } } },
        { "DeepSeekV3Model.Config",
            { { "dim", true }, { "vocab_size", true }, { "lm_head", true }, { "tok_embeddings", true },
                { "norm", true }, { "layers", true }, { "enable_weight_tying", false }, { "mtp_layers", false } } },
        { "Llama3Model.Config",
            { { "dim", true }, { "vocab_size", true }, { "lm_head", true }, { "tok_embeddings", true },
                { "norm", true }, { "layers", true }, { "enable_weight_tying", false } } },
        // Embedding.Config (models/common/embedding.py) and Linear.Config (linear.py)
        { "Embedding.Config", { { "num_embeddings", true }, { "embedding_dim", true }, { "param_init", false } } },
        { "Linear.Config",
            { { "in_features", true }, { "out_features", true }, { "bias", false }, { "param_init", false } } },
    };
    return table;
}

// MoE.Config's fields (models/common/moe.py) a flavour may assign on a built layer's `moe`.
inline const std::set<std::string>& moeConfigFields()
{
    static const std::set<std::string> fields { "num_experts", "routed_experts", "router", "load_balance_coeff",
        "shared_experts" };
    return fields;
}

} // namespace stratex::test::torchtitan_main
