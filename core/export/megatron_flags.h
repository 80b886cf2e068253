// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Megatron-LM's pretrain_gpt.py flags as both Megatron exports write them (a searched Galvatron
// plan: megatron_args.h; a Stratex plan file: megatron_plan_args.h): every flag is spelled here
// once. Names, choices and rules from NVIDIA/Megatron-LM main (d98e8a64):
// megatron/training/arguments.py (_add_network_size_args, _add_distributed_args, validate_args),
// megatron/core/transformer/transformer_config.py and model_parallel_config.py (fields that
// argument_utils.py's ArgumentGroupFactory turns into --field-name flags).

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/model/model_description.h"

namespace stratex::exporting {

// (flag, value) in order; an empty value is a switch.
using MegatronArgumentList = std::vector<std::pair<std::string, std::string>>;

// How Megatron-LM runs data parallelism.
enum class MegatronDataParallel {
    Ddp, // plain data parallelism (no flag)
    DistributedOptimizer, // --use-distributed-optimizer: optimizer states sharded (ZeRO-1)
    MegatronFsdpGrads, // --use-megatron-fsdp --data-parallel-sharding-strategy optim_grads (ZeRO-2)
    MegatronFsdp, // --use-megatron-fsdp --data-parallel-sharding-strategy optim_grads_params (ZeRO-3)
};
bool isMegatronFsdp(MegatronDataParallel kind);
// " (distributed optimizer)", " (Megatron-FSDP, ZeRO-3)", ...; "" for DDP.
std::string megatronDataParallelText(MegatronDataParallel kind);

// "model llama2-7b: 32 layers, hidden 4096, ..." for the scripts' comments.
std::string megatronModelSummary(const model::ModelDescription& model);

// The architecture: --num-layers ... --normalization, --disable-bias-linear / --add-qkv-bias (gated
// MLP models have no linear biases but, with qkv_bias, the Q/K/V ones), the RoPE base and Llama 3.1
// scaling (--rotary-base, --use-rope-scaling --rope-scaling-factor), --qk-layernorm, multi-latent
// attention (--multi-latent-attention with its ranks), the vocabulary padding
// (--make-vocab-size-divisible-by), a head width other than hidden / heads (--kv-channels), partial
// RoPE (--rotary-percent) and the MoE flags with the router's (score function, pre-softmax, expert
// bias, group-limited routing, top-k scaling, capacity factor, shared-expert gate). Returns what Megatron builds differently from
// the model, one line each (empty: exactly the model): Megatron's Llama 3.1 scaling has fixed
// low/high frequency factors 1 and 4 and original length 8192 (rotary_pos_embedding.py
// _apply_scaling), its --rotary-base is an integer.
std::vector<std::string> addMegatronModelArguments(MegatronArgumentList& args, const model::ModelDescription& model);

// The MoE router as Megatron-Core's TransformerConfig takes it: one rule for the Megatron-LM flags
// (--moe-router-*) and the Megatron-Bridge recipe's model fields (moe_router_*), which set the
// same TransformerConfig fields. Unset members keep Megatron's defaults.
struct MegatronRouter {
    bool sigmoid = false; // moe_router_score_function "sigmoid" (default "softmax")
    bool pre_softmax = false; // moe_router_pre_softmax
    bool expert_bias = false; // moe_router_enable_expert_bias
    std::optional<double> topk_scaling_factor; // moe_router_topk_scaling_factor
    int num_groups = 0; // moe_router_num_groups and moe_router_group_topk; 0: unset
    int group_topk = 0;
    std::optional<double> capacity_factor; // moe_expert_capacity_factor
    bool shared_expert_gate = false; // moe_shared_expert_gate
};
// The router of `moe` in Megatron's terms; what Megatron computes differently is added to
// `differences`, one line each.
MegatronRouter megatronRouter(const model::MoeDescription& moe, std::vector<std::string>& differences);

// The layer division of a pipeline in Megatron's terms.
struct MegatronPipelineLayout {
    int first_stage_layers = 0; // > 0: --decoder-first-pipeline-num-layers
    int last_stage_layers = 0; // > 0: --decoder-last-pipeline-num-layers
    std::string layout; // non-empty: --pipeline-model-parallel-layout (no first/last then)
};
// `chunkLayers`: decoder layers of every model chunk in model order (pp x vpp entries; chunk j of
// pipeline rank i is entry j * pp + i, as Megatron and the layout string order them). Nothing for
// an even split; the first and/or last stage's count when the middle ranks are even and every
// rank's count divides into its chunks evenly (TransformerConfig's uneven-PP rules); else a layout
// naming every chunk ("Et*5|t*9|t*8|t*8L"; an empty chunk is ""), with `mtpLayers` multi-token-
// prediction modules ("m") before the loss in the last chunk.
MegatronPipelineLayout megatronPipelineLayout(const std::vector<int>& chunkLayers, int pp, int mtpLayers = 0);

enum class MegatronPrecision {
    Fp32, // no flag
    Bf16, // --bf16
    Fp16, // --fp16
    Fp8, // --bf16 --fp8-format hybrid: Transformer Engine's FP8 GEMMs (e4m3 forward, e5m2 gradients)
};

// How Megatron runs the model: what every export writes after the architecture.
struct MegatronRun {
    int tensor_parallel = 1;
    int pipeline_parallel = 1;
    // Model chunks per pipeline rank: --num-virtual-stages-per-pipeline-rank (not the older
    // --num-layers-per-virtual-pipeline-stage, which validate_args refuses beside the first/last
    // stage counts), unless `division` is a layout, whose chunk count says it.
    int virtual_stages = 1;
    // --microbatch-group-size-per-virtual-pipeline-stage (Megatron-Core's N, model_parallel_config.py
    // @ d98e8a64): written only when given and not pp, its default; 0: not written.
    int microbatch_group_size = 0;
    MegatronPipelineLayout division;
    int context_parallel = 1;
    std::string cp_comm_type = "p2p"; // with context_parallel > 1: p2p, a2a, all_gather, a2a+p2p
    // a2a+p2p: --hierarchical-context-parallel-sizes (the a2a level, then the ring's; cp_comm.h).
    std::vector<int> hierarchical_cp_sizes;
    int data_parallel = 1; // not a flag: world / (tp x pp x cp)
    // MoE models: --expert-model-parallel-size and --expert-tensor-parallel-size (which
    // validate_args defaults to the TP degree), and the token dispatcher.
    int expert_parallel = 1;
    int expert_tensor_parallel = 0; // 0: not written (Megatron's default, the TP degree)
    // --moe-token-dispatcher-type: "alltoall", "allgather" or "flex"; empty: not written (Megatron's
    // default, allgather). --overlap-moe-expert-parallel-comm (docs/moe.md).
    std::string moe_token_dispatcher;
    bool moe_ep_comm_overlap = false;
    bool sequence_parallel = false;
    // --tp-comm-overlap (Transformer Engine userbuffers): TP communication pipelined with the GEMMs;
    // Megatron asserts sequence parallelism with it (arguments.py validate_args @ d98e8a64).
    bool tp_comm_overlap = false;
    std::string recompute_granularity; // "", "full" or "selective"
    std::string recompute_method; // with "full": "uniform" or "block"
    int recompute_layers = 0; // with "full"
    std::string recompute_modules; // with "selective": space-separated, "" for Megatron's default (core_attn)
    int micro_batch_size = 1;
    int global_batch_size = 1;
    MegatronDataParallel data_parallel_kind = MegatronDataParallel::Ddp;
    bool overlap_grad_reduce = false; // --overlap-grad-reduce
    bool overlap_param_gather = false; // --overlap-param-gather (needs ZeRO >= 1 and the above)
    // --num-distributed-optimizer-instances: HSDP, the distributed optimizer (or Megatron-FSDP)
    // sharded inside each of this many groups and all-reduced across them (docs/hsdp.md).
    int distributed_optimizer_instances = 1;
    bool grad_reduce_in_bf16 = false; // --grad-reduce-in-bf16: bf16 main gradients
    // false: --no-gradient-accumulation-fusion (arguments.py @ d98e8a64, dest
    // gradient_accumulation_fusion, on by default): what TE keeps then, te_dummy_wgrad.h.
    bool gradient_accumulation_fusion = true;
    // --cross-entropy-loss-fusion (ModelParallelConfig.cross_entropy_loss_fusion @ d98e8a64, off by
    // default; the native fused loss, cross_entropy_fusion_impl's default, which arguments.py keeps
    // as the only one it accepts): one more fp32 logits copy, docs/memory-model.md.
    bool cross_entropy_loss_fusion = false;
    // --use-precision-aware-optimizer --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16 (distributed optimizer)
    bool bf16_optimizer_states = false;
    MegatronPrecision precision = MegatronPrecision::Bf16;
    // With Fp8: Transformer Engine's recipe the plan is costed with, in Megatron's names
    // (megatron::resolvedFp8Recipe; docs/kernels.md §8). --fp8-recipe is written when it is not
    // "delayed", TransformerConfig's default (transformer_config.py @ d98e8a64).
    std::string fp8_recipe = "delayed";
    bool unfused_attention = false; // --attention-backend unfused: the s x s scores materialised
    // --cpu-offloading --cpu-offloading-num-layers N (activations; --cpu-offloading-weights stays
    // off, Megatron-Core's default): 0 writes neither (docs/memory-model.md, "CPU activation offload").
    int cpu_offloading_layers = 0;
    // CUDA graphs (docs/kernels.md §7): --cuda-graph-impl ("transformer_engine", "full_iteration";
    // empty: none, Megatron's default) and, per layer, --cuda-graph-modules (empty: the whole layer).
    // full_iteration also writes --no-check-for-nan-in-loss-and-grad (validate_args @ d98e8a64) and,
    // for a MoE model, Megatron-Bridge's fixed expert capacity on HybridEP with paged stashing.
    std::string cuda_graph_impl;
    std::string cuda_graph_modules;
    // --attention-backend flash (TE's flash-attn: FA3 where flash_attn_3 is installed on Hopper, else
    // FA2) or fused (cuDNN) for a plan that names its kernel; empty: auto (docs/kernels.md §6).
    std::string attention_backend;
};

// The run's flags, in this order: parallel degrees, layout, CP, EP, SP, recompute, batch, data
// parallelism, overlap, precision, attention. `moeModel`: the expert flags are written.
void addMegatronRunArguments(MegatronArgumentList& args, const MegatronRun& run, bool moeModel);

// The launch environment: Megatron asserts CUDA_DEVICE_MAX_CONNECTIONS == 1 with TP or CP > 1
// (before Blackwell, without FSDP), and Megatron-FSDP asserts it is not 1 (so it is unset).
struct MegatronEnvironment {
    std::vector<std::pair<std::string, std::string>> set;
    std::vector<std::string> unset;
};
MegatronEnvironment megatronEnvironment(int tp, int cp, MegatronDataParallel kind);

// "--name value" items, values shell-quoted where needed: what MEGATRON_ARGS holds.
std::vector<std::string> megatronArgumentLines(const MegatronArgumentList& args);

// The script's tail: how to run it, MEGATRON_ARGS=( ... ) and, when run rather than sourced, the
// torchrun launch (standalone on one node, the rendezvous from NODE_RANK and MASTER_ADDR on
// several) with the environment and the script's arguments (data, tokenizer, optimizer) appended.
std::string megatronLaunchText(
    const MegatronArgumentList& args, const MegatronEnvironment& environment, int numNodes, int gpusPerNode);

} // namespace stratex::exporting
