// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The ConfigContainer fields a Megatron-Bridge recipe may assign, with their declared types, read
// from the sources (not from Stratex's writer):
//   NVIDIA-NeMo/Megatron-Bridge main, commit 067f987df03b8355b03192d88d70f1709fedf51a (2026-08-22):
//     src/megatron/bridge/training/config.py (ConfigContainer, TrainingConfig, GPTDatasetConfig,
//       DistributedDataParallelConfig and OptimizerConfig subclassing Megatron-Core's),
//     src/megatron/bridge/models/gpt_provider.py (GPTModelProvider),
//     src/megatron/bridge/models/mla_provider.py (MLAModelProvider(MLATransformerConfig, GPTModelProvider)),
//     src/megatron/bridge/training/mixed_precision.py (MixedPrecisionConfig),
//     src/megatron/bridge/training/tokenizers/config.py (TokenizerConfig);
//   its 3rdparty/Megatron-LM submodule, commit 2a75ac12c54ba6a42b34024756820bf819a2e25f:
//     megatron/core/model_parallel_config.py (ModelParallelConfig),
//     megatron/core/transformer/transformer_config.py (TransformerConfig, MLATransformerConfig),
//     megatron/core/transformer/enums.py (AttnBackend),
//     megatron/core/distributed/distributed_data_parallel_config.py,
//     megatron/core/optimizer/optimizer_config.py,
//     megatron/training/config/training_config.py (TrainingConfig: micro/global batch),
//     megatron/training/config/common_config.py (DistributedInitConfig.use_megatron_fsdp),
//     megatron/training/config/training_config.py (CheckpointConfig.ckpt_format, TokenizerConfig).
// A Literal's choices are listed; "data_parallel_sharding_strategy" is a plain str whose values
// distributed_data_parallel_config.py documents.

#include <string_view>
#include <vector>

namespace stratex::test::bridge {

enum class PyType {
    Int, // int
    OptInt, // Optional[int]
    Float, // float
    Bool, // bool
    Str, // str or a Literal of str (choices below)
    OptStr, // Optional[str] / Optional[Literal[...]]
    OptStrList, // Optional[List[str]]
    IntOrIntList, // Union[int, List[int]]
    OptIntList, // Optional[list[int]]
    Callable, // Callable[[torch.Tensor], torch.Tensor]
    AttnBackend, // megatron.core.transformer.enums.AttnBackend
    TorchDtype, // torch.dtype (torch.float32, torch.bfloat16, ...)
    CommOverlap, // Optional[CommOverlapConfig] (training/comm_overlap.py), keyword arguments of its fields
};

struct Field {
    std::string_view path; // under cfg
    PyType type;
    std::vector<std::string_view> choices; // a Literal's, or the documented values; empty: any
};

inline const std::vector<Field>& fields()
{
    static const std::vector<Field> table {
        // ModelParallelConfig (model_parallel_config.py)
        { "model.tensor_model_parallel_size", PyType::Int, {} }, // int = 1
        { "model.pipeline_model_parallel_size", PyType::Int, {} }, // int = 1
        { "model.virtual_pipeline_model_parallel_size", PyType::OptInt, {} }, // Optional[int] = None
        { "model.sequence_parallel", PyType::Bool, {} }, // bool = False
        { "model.context_parallel_size", PyType::Int, {} }, // int = 1
        { "model.expert_model_parallel_size", PyType::Int, {} }, // int = 1
        { "model.expert_tensor_parallel_size", PyType::OptInt, {} }, // Optional[int] = None
        { "model.gradient_accumulation_fusion", PyType::Bool, {} }, // bool = False (GPTModelProvider: auto-detected)
        // bool = False in ModelParallelConfig; GPTModelProvider (gpt_provider.py @ 067f987d): True
        { "model.cross_entropy_loss_fusion", PyType::Bool, {} },
        // TransformerConfig (transformer_config.py)
        { "model.num_layers", PyType::Int, {} },
        { "model.num_layers_in_first_pipeline_stage", PyType::OptInt, {} },
        { "model.num_layers_in_last_pipeline_stage", PyType::OptInt, {} },
        // Optional[Union[str, list, PipelineParallelLayerLayout]]: the string form is written
        { "model.pipeline_model_parallel_layout", PyType::OptStr, {} },
        { "model.hidden_size", PyType::Int, {} },
        { "model.num_attention_heads", PyType::Int, {} },
        { "model.num_query_groups", PyType::OptInt, {} },
        { "model.kv_channels", PyType::OptInt, {} }, // Optional[int] = None: hidden_size // heads
        { "model.ffn_hidden_size", PyType::OptInt, {} },
        { "model.add_bias_linear", PyType::Bool, {} },
        { "model.add_qkv_bias", PyType::Bool, {} },
        { "model.gated_linear_unit", PyType::Bool, {} },
        { "model.activation_func", PyType::Callable, {} },
        { "model.normalization", PyType::Str, { "LayerNorm", "RMSNorm" } },
        { "model.qk_layernorm", PyType::Bool, {} },
        { "model.hidden_dropout", PyType::Float, {} }, // float = 0.1
        { "model.attention_dropout", PyType::Float, {} }, // float = 0.1
        { "model.attention_backend", PyType::AttnBackend, { "flash", "fused", "unfused", "local", "auto" } },
        { "model.recompute_granularity", PyType::OptStr, { "full", "selective" } },
        { "model.recompute_method", PyType::OptStr, { "uniform", "block" } },
        { "model.recompute_num_layers", PyType::OptInt, {} },
        // transformer_config.py __post_init__'s allowed_modules
        { "model.recompute_modules", PyType::OptStrList,
            { "core_attn", "moe_act", "layernorm", "mla_up_proj", "mlp", "moe", "shared_experts", "gdn_norm_out" } },
        { "model.num_moe_experts", PyType::OptInt, {} },
        { "model.moe_router_topk", PyType::Int, {} },
        { "model.moe_ffn_hidden_size", PyType::OptInt, {} },
        { "model.moe_shared_expert_intermediate_size", PyType::OptInt, {} },
        { "model.moe_layer_freq", PyType::IntOrIntList, {} },
        { "model.moe_token_dispatcher_type", PyType::Str, { "allgather", "alltoall", "flex" } },
        // The router (transformer_config.py): moe_router_score_function: str = "softmax" (Literal
        // of "softmax", "sigmoid", "sqrtsoftplus"), moe_router_pre_softmax: bool = False,
        // moe_router_enable_expert_bias: bool = False, moe_router_topk_scaling_factor:
        // Optional[float] = None, moe_router_num_groups / moe_router_group_topk: Optional[int] =
        // None, moe_expert_capacity_factor: Optional[float] = None, moe_shared_expert_gate: bool.
        { "model.moe_router_score_function", PyType::Str, { "softmax", "sigmoid", "sqrtsoftplus" } },
        { "model.moe_router_pre_softmax", PyType::Bool, {} },
        { "model.moe_router_enable_expert_bias", PyType::Bool, {} },
        { "model.moe_router_topk_scaling_factor", PyType::Float, {} },
        { "model.moe_router_num_groups", PyType::OptInt, {} },
        { "model.moe_router_group_topk", PyType::OptInt, {} },
        { "model.moe_expert_capacity_factor", PyType::Float, {} },
        { "model.moe_shared_expert_gate", PyType::Bool, {} },
        { "model.moe_grouped_gemm", PyType::Bool, {} },
        // TransformerConfig.mtp_num_layers: Optional[int] = None (transformer_config.py @ d98e8a64)
        { "model.mtp_num_layers", PyType::OptInt, {} },
        // Optional[Union[str, List[str]]]: "p2p", "all_gather", "a2a", "a2a+p2p"
        { "model.cp_comm_type", PyType::OptStr, { "p2p", "all_gather", "a2a", "a2a+p2p" } },
        // ModelParallelConfig: Optional[list[int]] = None (a2a level, then the ring's; checked as a
        // list of ints or None; Megatron-LM d98e8a64 model_parallel_config.py)
        { "model.hierarchical_context_parallel_sizes", PyType::OptIntList, {} },
        // MLATransformerConfig (transformer_config.py)
        { "model.multi_latent_attention", PyType::Bool, {} },
        { "model.q_lora_rank", PyType::OptInt, {} }, // int = 512; None: a full projection (multi_latent_attention.py)
        { "model.kv_lora_rank", PyType::Int, {} },
        { "model.qk_head_dim", PyType::Int, {} },
        { "model.qk_pos_emb_head_dim", PyType::Int, {} },
        { "model.v_head_dim", PyType::Int, {} },
        { "model.rope_type", PyType::Str, { "rope", "yarn" } },
        // GPTModelProvider (gpt_provider.py)
        { "model.share_embeddings_and_output_weights", PyType::Bool, {} },
        { "model.make_vocab_size_divisible_by", PyType::Int, {} },
        { "model.position_embedding_type", PyType::Str, { "learned_absolute", "rope", "yarn" } },
        { "model.rotary_base", PyType::Int, {} }, // int = 10000 (MLATransformerConfig: float, below)
        { "model.rope_scaling", PyType::Bool, {} },
        { "model.rope_scaling_factor", PyType::Float, {} },
        { "model.seq_length", PyType::Int, {} },
        { "model.vocab_size", PyType::OptInt, {} },
        { "model.should_pad_vocab", PyType::Bool, {} },
        // TrainingConfig (training_config.py)
        { "train.micro_batch_size", PyType::OptInt, {} },
        { "train.global_batch_size", PyType::OptInt, {} },
        // GPTDatasetConfig (config.py): seq_length: int = field(kw_only=True)
        { "dataset.seq_length", PyType::Int, {} },
        // TokenizerConfig (tokenizers/config.py)
        { "tokenizer.tokenizer_type", PyType::Str, {} },
        { "tokenizer.tokenizer_model", PyType::OptStr, {} },
        { "tokenizer.vocab_size", PyType::OptInt, {} },
        { "tokenizer.use_tokenizer_vocab_size", PyType::Bool, {} },
        // DistributedDataParallelConfig (distributed_data_parallel_config.py)
        { "ddp.use_distributed_optimizer", PyType::Bool, {} },
        { "ddp.overlap_grad_reduce", PyType::Bool, {} },
        { "ddp.overlap_param_gather", PyType::Bool, {} },
        { "ddp.use_megatron_fsdp", PyType::Bool, {} },
        { "ddp.data_parallel_sharding_strategy", PyType::Str,
            { "no_shard", "optim", "optim_grads", "optim_grads_params" } },
        // OptimizerConfig (optimizer_config.py)
        { "optimizer.use_distributed_optimizer", PyType::Bool, {} },
        { "optimizer.overlap_param_gather", PyType::Bool, {} },
        // precision-aware optimizer: use_precision_aware_optimizer: bool = False, exp_avg_dtype /
        // exp_avg_sq_dtype: torch.dtype = torch.float32
        { "optimizer.use_precision_aware_optimizer", PyType::Bool, {} },
        { "optimizer.exp_avg_dtype", PyType::TorchDtype, { "float32", "float16", "bfloat16", "uint8" } },
        { "optimizer.exp_avg_sq_dtype", PyType::TorchDtype, { "float32", "float16", "bfloat16", "uint8" } },
        // DistributedInitConfig (common_config.py)
        { "dist.use_megatron_fsdp", PyType::Bool, {} },
        // ConfigContainer.comm_overlap: Optional[CommOverlapConfig] = None (config.py); the fields
        // CommOverlapConfig's keywords may name (comm_overlap.py: tp_comm_overlap: bool = None)
        { "comm_overlap", PyType::CommOverlap, { "tp_comm_overlap" } },
        // CheckpointConfig (training_config.py): Literal["torch", "torch_dist", "torch_dcp",
        // "fsdp_dtensor"]; Bridge's config.py asserts fsdp_dtensor under Megatron-FSDP
        { "checkpoint.ckpt_format", PyType::Str, { "torch", "torch_dist", "torch_dcp", "fsdp_dtensor" } },
        // MixedPrecisionConfig (mixed_precision.py)
        { "mixed_precision.grad_reduce_in_fp32", PyType::Bool, {} }, // bool = True; setup() copies it to ddp
        { "mixed_precision.fp8", PyType::OptStr, { "e4m3", "hybrid" } },
        { "mixed_precision.fp8_recipe", PyType::Str, { "tensorwise", "delayed", "mxfp8", "blockwise" } },
    };
    return table;
}

// MLATransformerConfig redeclares rotary_base as float (transformer_config.py), and its fields come
// first in MLAModelProvider's MRO.
inline PyType mlaRotaryBaseType()
{
    return PyType::Float;
}

// The mixed-precision factories registered in mixed_precision.py, and the model providers.
inline const std::vector<std::string_view>& mixedPrecisionFactories()
{
    static const std::vector<std::string_view> names { "bf16_mixed", "fp16_mixed" };
    return names;
}
inline const std::vector<std::string_view>& providers()
{
    static const std::vector<std::string_view> names { "GPTModelProvider", "MLAModelProvider" };
    return names;
}

} // namespace stratex::test::bridge
