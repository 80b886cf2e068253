// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/hardware/attention_kernels.h"
#include "core/megatron/cuda_graphs.h"
#include "core/megatron/elementwise_passes.h"
#include "core/megatron/fp8_recipe.h"
#include "core/megatron/framework.h"
#include "core/megatron/recompute_modules.h"
#include "core/model/model_description.h"

namespace stratex::megatron {

enum class Recompute {
    None,
    Selective, // Megatron's --recompute-granularity selective: the attention core is recomputed
    Full // --recompute-granularity full --recompute-method uniform: groups keep their input only
};

enum class PipelineSchedule {
    OneFOneB,
    Interleaved, // Megatron's interleaved 1F1B over vpp model chunks per rank
    ZbH1 // zero-bubble H1: backward split into input and weight gradient
};

enum class Precision { Bf16, Fp16, Fp8 };

// The dtype a rank stores its main gradients or its optimizer states in (docs/memory-model.md,
// "Megatron-Core"): fp32 (Megatron's default under --bf16) or bf16.
enum class StateDtype { Fp32, Bf16 };

// How long the full (unsharded) main-gradient buffer of ZeRO 1 lives (docs/memory-model.md,
// "Gradient buffer lifetime"): Megatron-Core's DDP allocates it once and keeps it for the run
// (param_and_grad_buffer.py); an FSDP that "shards optimizer states and gradients" while it
// accumulates FP32 gradients over the micro-batches (Llama 3, Dubey et al. 2024 section 3.3.2)
// allocates each chunk's at its first backward of a step and frees it after the reduce-scatter
// at its last, keeping the shard.
enum class GradientBuffer { Persistent, Step };

// How context-parallel ranks exchange attention inputs (Megatron's --cp-comm-type, carried out by
// Transformer Engine's attention).
enum class CpCommType {
    P2p, // ring attention: K and V pass around the CP ring, overlapped with the attention blocks
    A2a, // DeepSpeed-Ulysses: all-to-alls trade the sequence split for a head split around attention
    AllGather, // K and V all-gathered before attention, dK/dV reduce-scattered after (not overlapped)
    A2aP2p // hierarchical: Ulysses inside the NVLink domain, the ring across it (cp_hierarchy.h)
};

// How a MoE layer moves tokens to their experts and back (Megatron-Core's --moe-token-dispatcher-type,
// megatron/core/transformer/moe/token_dispatcher.py at d98e8a64; docs/moe.md, "Token dispatchers").
enum class MoeDispatcher {
    AllToAll, // MoEAlltoAllTokenDispatcher: every routed token-expert pair crosses the EP all-to-all
    AllGather, // MoEAllGatherTokenDispatcher: every EP rank gathers all tokens, reduce-scatters back
    Flex // MoEFlexTokenDispatcher with DeepEP/HybridEP: one copy per destination node over RDMA
};

std::string_view recomputeName(Recompute value); // "none", "selective", "full"
std::optional<Recompute> parseRecompute(std::string_view name);
std::string_view pipelineScheduleName(PipelineSchedule value); // "1f1b", "interleaved", "zb-h1"
std::optional<PipelineSchedule> parsePipelineSchedule(std::string_view name);
std::string_view precisionName(Precision value); // "bf16", "fp16", "fp8"
std::optional<Precision> parsePrecision(std::string_view name);
std::string_view stateDtypeName(StateDtype value); // "fp32", "bf16"
std::optional<StateDtype> parseStateDtype(std::string_view name);
std::string_view gradientBufferName(GradientBuffer value); // "persistent", "step"
std::optional<GradientBuffer> parseGradientBuffer(std::string_view name);
std::string_view cpCommTypeName(CpCommType value); // "p2p", "a2a", "all_gather", "a2a+p2p" (Megatron's)
// Also reads Megatron's --help spelling "allgather" (arguments.py) as all_gather.
std::optional<CpCommType> parseCpCommType(std::string_view name);
// The notation's suffix after "cpN": "" (p2p), "-a2a", "-ag", "-a2a+p2p".
std::string_view cpCommSuffix(CpCommType value);
std::string_view moeDispatcherName(MoeDispatcher value); // "alltoall", "allgather", "flex" (Megatron's)
std::optional<MoeDispatcher> parseMoeDispatcher(std::string_view name);

// One uniform strategy in Megatron-LM's terms: every layer shares the degrees; the pipeline may
// give its first and last stage a different layer count (--decoder-first/last-pipeline-num-layers).
// The rank order is Megatron's default, tp-cp-ep-dp-pp: TP innermost, PP outermost.
struct ParallelStrategy {
    int tp = 1;
    int pp = 1;
    int vpp = 1; // model chunks per pipeline rank; > 1 only with the interleaved schedule
    int cp = 1; // context parallelism: the sequence split over cp ranks
    CpCommType cp_comm_type = CpCommType::P2p; // meaningful with cp > 1 only
    int ep = 1; // expert parallelism (MoE layers)
    int etp = 1; // tensor parallelism inside each expert
    int dp = 1;
    bool sequence_parallel = false; // Megatron SP: norms and dropout sharded over TP
    int zero = 0; // 0 DDP, 1 distributed optimizer, 2 + sharded gradients, 3 FSDP (sharded weights)
    // HSDP (hybrid sharding, docs/hsdp.md): the data-parallel ranks that shard the ZeRO states
    // (times cp), dividing dp; the dp / dp_shard groups of them replicate the shard and all-reduce
    // it. 0 (the default) and dp: sharded over the whole data-parallel group. Megatron's
    // --num-distributed-optimizer-instances dp / dp_shard, torchtitan's data_parallel_shard_degree.
    int dp_shard = 0;
    Recompute recompute = Recompute::None;
    int recompute_num_layers = 0; // full recompute (uniform method): layers per checkpointed group; 0 = 1
    RecomputeModules recompute_modules; // selective recompute: what it rebuilds (default core_attn)
    int micro_batch_size = 1;
    int global_batch_size = 1;
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    int first_stage_layers = 0; // 0: an even division
    int last_stage_layers = 0;
    Precision precision = Precision::Bf16;
    // With precision fp8: Transformer Engine's scaling recipe (fp8_recipe.h; strategy JSON
    // "fp8_recipe", Megatron's --fp8-recipe). Default: the framework's (resolvedFp8Recipe).
    Fp8Recipe fp8_recipe = Fp8Recipe::Default;
    bool overlap_grad_reduce = true; // --overlap-grad-reduce / --overlap-param-gather
    // TP communication split into chunks and pipelined with the GEMMs beside it (needs sequence
    // parallelism): Megatron-Core's --tp-comm-overlap (Transformer Engine userbuffers), NeMo and
    // Megatron-Bridge's tp_comm_overlap, torchtitan's AsyncTP. docs/collectives.md, "TP overlap".
    bool tp_comm_overlap = false;
    // Megatron-Core's weight-gradient GEMMs accumulate into the fp32 main_grad (default on;
    // --no-gradient-accumulation-fusion: off). What it keeps: te_dummy_wgrad.h.
    bool gradient_accumulation_fusion = true;
    // Megatron's asynchronous TP backward: the column-parallel linears' input-gradient reduction
    // under their weight-gradient GEMM, with SP the input's re-gather under the data-gradient GEMM
    // (tp_async_backward.h; docs/collectives.md, "TP backward overlap"). On in every Megatron-LM
    // since 2021-09 and unconditional in Megatron-Core; false only for a record whose Megatron
    // predates it or whose framework runs TP its own way. Strategy JSON "tp_async_backward".
    bool tp_async_backward = true;
    // Megatron-Core's fused vocab-parallel cross entropy (--cross-entropy-loss-fusion, default off;
    // Megatron-Bridge's cross_entropy_loss_fusion with cross_entropy_fusion_impl "native"): the same
    // steps as the unfused loss in torch.compile'd functions, which keep one more fp32 copy of the
    // local logits at the loss (docs/memory-model.md, "Fused cross-entropy loss"). Megatron-Core
    // and Megatron-Bridge only; strategy JSON "cross_entropy_loss_fusion".
    bool cross_entropy_loss_fusion = false;
    // The Transformer Engine release the run used, major * 100 + minor (2.3: 203); 0: not given, the
    // current release (what a plan launched today runs); -1: none (Megatron's local layers). Only
    // records set it (key "transformer_engine_version"); what depends on it: te_dummy_wgrad.h.
    int te_version = 0;
    // MoE token dispatch (meaningful with ep > 1 on MoE models): the dispatcher, and Megatron-Core's
    // --overlap-moe-expert-parallel-comm, which runs one micro-batch's dispatch/combine all-to-alls
    // under another micro-batch's compute (combined 1F1B; docs/moe.md, "EP communication overlap").
    MoeDispatcher moe_token_dispatcher = MoeDispatcher::AllToAll;
    bool moe_ep_comm_overlap = false;
    // Fused flash attention (Megatron with Transformer Engine, 2023 on). Without it the s x s
    // scores are materialised: softmax and dropout run at memory bandwidth and are kept for backward.
    bool flash_attention = true;
    // The fused kernel that runs it (docs/kernels.md §6; strategy JSON "attention_kernel"): Default
    // is the framework's default on the GPU (megatron::resolvedAttentionKernel). Unfused goes with
    // flash_attention = false.
    hardware::AttentionKernel attention_kernel = hardware::AttentionKernel::Default;
    // torch.compile of the transformer blocks (strategy JSON "compile"; docs/kernels.md, "Eager and
    // compiled blocks"): whether the layer's norms and activation run fused or as eager PyTorch's
    // separate kernels (elementwiseForm). Default is the framework's default.
    Compile compile = Compile::Default;
    // torchtitan with compile on: whether its loss is compiled too (strategy JSON "compile_loss";
    // docs/memory-model.md, "torchtitan's compiled loss"). torchtitan compiles it with the blocks
    // since 2025-04-02 (bbb1b616e: build_cross_entropy_loss; main: compile.components ["model",
    // "loss"]); before, the call was commented out (train.py @ 9dec370), which the 2024-12 records say.
    bool compile_loss = true;
    // CUDA graphs (strategy JSON "cuda_graphs"; docs/kernels.md §7, "CUDA graphs"): which parts of
    // each layer the host replays as captured graphs instead of issuing kernel by kernel.
    CudaGraphs cuda_graphs = CudaGraphs::None;
    // What the framework keeps per rank (docs/memory-model.md): gradient dtype, what is sharded.
    Framework framework = Framework::MegatronCore;
    // Megatron-Core's main gradients (the DDP grad buffer): fp32 (accumulate_allreduce_grads_in_fp32,
    // forced on under --bf16) or bf16 (--grad-reduce-in-bf16). Megatron-Core and Megatron-Bridge only.
    StateDtype main_grads_dtype = StateDtype::Fp32;
    // The distributed optimizer's states: fp32 (fp32 main weights and Adam moments) or bf16
    // (--use-precision-aware-optimizer --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16: bf16 moments and
    // the master weights' 16-bit remainders; NeMo's Apex distributed_fused_adam with dtype bf16).
    StateDtype optimizer_state_dtype = StateDtype::Fp32;
    // The full fp32 gradient buffer's lifetime under ZeRO 1 (GradientBuffer above): persistent,
    // Megatron-Core's; step, an FSDP's accumulation per step. Megatron-Core / Megatron-Bridge zero 1 only.
    GradientBuffer gradient_buffer = GradientBuffer::Persistent;
    // The interleaved schedule's micro-batch group N: the contiguous micro-batches each model chunk
    // runs before the next chunk (Megatron-Core's --microbatch-group-size-per-virtual-pipeline-stage,
    // megatron/core/model_parallel_config.py @ d98e8a64; Llama 3's "flexible N", Dubey et al. 2024
    // §3.3.2 and Figure 6). 0: pp, Megatron's default (depth-first). Meaningful with vpp > 1 only;
    // docs/memory-model.md, "Micro-batch group N".
    int microbatch_group_size = 0;
    // Megatron-Core's CPU activation offloading (--cpu-offloading --cpu-offloading-num-layers N,
    // activations only, as Megatron-Bridge's performance recipes set it): the saved activations
    // of the first N decoder layers go to pinned host memory during the forward and come back
    // during the backward (Transformer Engine's cpu_offload.py). Megatron-Core: PP 1, no
    // recompute, 0 <= N < num_layers. docs/memory-model.md, "CPU activation offload".
    int cpu_offload_layers = 0;

    int world() const { return tp * pp * cp * dp; }
    // Micro-batches per iteration on each pipeline: gbs / (mbs x dp).
    int microbatches() const { return global_batch_size / (micro_batch_size * dp); }
    // N of the interleaved schedule: microbatch_group_size, or, when it is 0, what the framework
    // runs: pp for Megatron-Core (model_parallel_config.py __post_init__ @ d98e8a64), torch's
    // micro-batches per round for torchtitan (parallel_strategy.cpp).
    int microbatchGroupSize() const;
    // torch.distributed.pipelining's ScheduleInterleaved1F1B rounds: max(1, M // pp); torch refuses
    // an M they do not divide (framework_support.cpp), and runs M / rounds micro-batches a round.
    int torchInterleavedRounds() const { return std::max(1, microbatches() / std::max(1, pp)); }
    // Data-parallel ranks of an expert's weights: the dense (tp x cp x dp) ranks regrouped as
    // etp x ep x edp (Megatron's MoE parallel folding).
    int expertDp() const { return tp * cp * dp / (ep * etp); }
    // HSDP (dp_shard): the data-parallel ranks of one shard group, and the replicas of it.
    int dpShard() const { return dp_shard > 0 && dp_shard < dp && dp % dp_shard == 0 ? dp_shard : dp; }
    int dpReplicas() const { return dp / dpShard(); }

    // "tp8 pp16 vpp2 cp1 dp64 ...", for messages and tables.
    std::string notation() const;
    // The recompute word of notation(): "rc-full", "rc-selective", Megatron's modules
    // "rc-selective(core_attn,mlp)", torchtitan's every N-th block "rc-selective(every-N)".
    std::string recomputeWord() const;

    auto operator<=>(const ParallelStrategy&) const = default;
};

// The pipeline simulation's size: micro-batches x stages x model chunks (at least 1 each).
long long pipelineWork(const ParallelStrategy& strategy);

// Transformer layers on each pipeline stage (pp entries), honouring first/last stage counts.
std::vector<int> stageLayerCounts(const ParallelStrategy& strategy, int numLayers);
// Transformer layers of every model chunk (pp x vpp entries, in model order: chunk j of stage i is
// entry j * pp + i, as Megatron's interleaving places them): a stage's layers split over its vpp
// chunks; when they do not divide, the first chunks take one more, except on the first stage,
// whose last chunks do (its chunk 0 carries the embedding: Llama 3's balanced pipeline).
std::vector<int> chunkLayerCounts(const ParallelStrategy& strategy, int numLayers);
// One entry of chunkLayerCounts: chunk `chunk` of stage `stage`, which holds `stageLayers`.
int chunkLayerCount(int stageLayers, int stage, int chunk, int vpp);

// Why the strategy's framework cannot pipeline its TP communication with the GEMMs
// (tp_comm_overlap); empty when it can. Megatron-LM (arguments.py validate_args @ d98e8a64) and
// Megatron-Bridge (training/comm_overlap.py) need sequence parallelism, which needs tp > 1;
// torchtitan's AsyncTP needs a TP mesh (distributed/compile.py _maybe_enable_async_tp) and
// torch.compile of the model (config/configs.py CompileConfig), which its exports turn on with it
// (a plan with compile off cannot have it);
// DeepSpeed has no such switch. strategyProblems refuses a strategy with tp_comm_overlap where
// this is not empty; the search sets tp_comm_overlap only where it is empty.
std::string tpCommOverlapProblem(const ParallelStrategy& strategy);

// Why the strategy's framework and model cannot run its CUDA graphs (empty: they can): the
// frameworks' own rules (parallel_strategy.cpp; docs/kernels.md §7, "CUDA graphs").
std::string cudaGraphsProblem(const ParallelStrategy& strategy, const model::ModelDescription& model);

// Megatron-LM's own acceptance rules (megatron/training/arguments.py validate_args and the model
// parallel initialisation) applied to `strategy` on `model` and `worldSize` GPUs. Returns every
// violated rule in words; empty when Megatron would start.
std::vector<std::string> strategyProblems(
    const ParallelStrategy& strategy, const model::ModelDescription& model, long long worldSize);

} // namespace stratex::megatron
