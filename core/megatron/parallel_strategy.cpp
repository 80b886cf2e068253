// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/parallel_strategy.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <utility>

#include "core/common/checked_math.h"
#include "core/common/enum_names.h"
#include "core/megatron/framework_support.h"
#include "core/megatron/hsdp.h"

namespace stratex::megatron {

namespace {

constexpr EnumNames<Recompute, 3> kRecomputeNames { { { Recompute::None, "none" },
    { Recompute::Selective, "selective" }, { Recompute::Full, "full" } } };
constexpr EnumNames<PipelineSchedule, 3> kScheduleNames { { { PipelineSchedule::OneFOneB, "1f1b" },
    { PipelineSchedule::Interleaved, "interleaved" }, { PipelineSchedule::ZbH1, "zb-h1" } } };
constexpr EnumNames<Precision, 3> kPrecisionNames { { { Precision::Bf16, "bf16" }, { Precision::Fp16, "fp16" },
    { Precision::Fp8, "fp8" } } };
constexpr EnumNames<StateDtype, 2> kStateDtypeNames { { { StateDtype::Fp32, "fp32" }, { StateDtype::Bf16, "bf16" } } };
constexpr EnumNames<GradientBuffer, 2> kGradientBufferNames { { { GradientBuffer::Persistent, "persistent" },
    { GradientBuffer::Step, "step" } } };
// Megatron-Core transformer_config.py cp_comm_type (d98e8a64): "p2p", "all_gather", "a2a", "a2a+p2p".
constexpr EnumNames<CpCommType, 4> kCpCommNames { { { CpCommType::P2p, "p2p" }, { CpCommType::A2a, "a2a" },
    { CpCommType::AllGather, "all_gather" }, { CpCommType::A2aP2p, "a2a+p2p" } } };
constexpr EnumNames<MoeDispatcher, 3> kMoeDispatcherNames { { { MoeDispatcher::AllToAll, "alltoall" },
    { MoeDispatcher::AllGather, "allgather" }, { MoeDispatcher::Flex, "flex" } } };

std::string str(long long value)
{
    return std::to_string(value);
}

} // namespace

std::string_view recomputeName(Recompute value)
{
    return enumName(kRecomputeNames, value);
}
std::optional<Recompute> parseRecompute(std::string_view name)
{
    return parseEnumName(kRecomputeNames, name);
}
std::string_view pipelineScheduleName(PipelineSchedule value)
{
    return enumName(kScheduleNames, value);
}
std::optional<PipelineSchedule> parsePipelineSchedule(std::string_view name)
{
    return parseEnumName(kScheduleNames, name);
}
std::string_view precisionName(Precision value)
{
    return enumName(kPrecisionNames, value);
}
std::optional<Precision> parsePrecision(std::string_view name)
{
    return parseEnumName(kPrecisionNames, name);
}

std::string_view stateDtypeName(StateDtype value)
{
    return enumName(kStateDtypeNames, value);
}
std::optional<StateDtype> parseStateDtype(std::string_view name)
{
    return parseEnumName(kStateDtypeNames, name);
}

std::string_view gradientBufferName(GradientBuffer value)
{
    return enumName(kGradientBufferNames, value);
}
std::optional<GradientBuffer> parseGradientBuffer(std::string_view name)
{
    return parseEnumName(kGradientBufferNames, name);
}

std::string_view cpCommTypeName(CpCommType value)
{
    return enumName(kCpCommNames, value);
}
std::optional<CpCommType> parseCpCommType(std::string_view name)
{
    if (name == "allgather") // Megatron-LM arguments.py --cp-comm-type help's spelling
        return CpCommType::AllGather;
    return parseEnumName(kCpCommNames, name);
}

std::string_view cpCommSuffix(CpCommType value)
{
    switch (value) {
    case CpCommType::P2p:
        return "";
    case CpCommType::A2a:
        return "-a2a";
    case CpCommType::AllGather:
        return "-ag";
    case CpCommType::A2aP2p:
        return "-a2a+p2p";
    }
    return "";
}

std::string_view moeDispatcherName(MoeDispatcher value)
{
    return enumName(kMoeDispatcherNames, value);
}
std::optional<MoeDispatcher> parseMoeDispatcher(std::string_view name)
{
    return parseEnumName(kMoeDispatcherNames, name);
}

int ParallelStrategy::microbatchGroupSize() const
{
    if (microbatch_group_size > 0)
        return microbatch_group_size;
    // torch.distributed.pipelining's ScheduleInterleaved1F1B, which torchtitan's Interleaved1F1B
    // builds (pytorch/pytorch 00722e64, torch/distributed/pipelining/schedules.py): rounds =
    // max(1, M // pp), microbatches_per_round = M // rounds, and the rank's ops take the chunk
    // (op // microbatches_per_round) % n_local_stages after (n_local_stages - 1) x
    // microbatches_per_round + 2 (pp - 1 - rank) warm-up forwards: Megatron's get_schedule_table
    // with N = microbatches_per_round. That is pp when pp divides M; otherwise (and for M < pp) it
    // is more, or M, and the schedule has no empty slots (framework_support.cpp refuses an M that
    // the rounds do not divide).
    if (framework == Framework::Torchtitan && pp > 1 && vpp > 1 && micro_batch_size > 0 && dp > 0) {
        const int m = microbatches();
        const int rounds = torchInterleavedRounds();
        if (m > 0 && m % rounds == 0)
            return m / rounds;
    }
    return pp;
}

std::string ParallelStrategy::recomputeWord() const
{
    std::string word = "rc-" + std::string(recomputeName(recompute));
    if (recompute != Recompute::Selective)
        return word;
    // torchtitan's selective_ac_option N: every N-th block a full checkpoint (torchtitan_activations.h).
    if (framework == Framework::Torchtitan && recompute_num_layers > 0)
        return word + "(every-" + std::to_string(recompute_num_layers) + ")";
    return recompute_modules.isDefault() ? word : word + "(" + recompute_modules.joined(",") + ")";
}

std::string ParallelStrategy::notation() const
{
    std::string text = "tp" + str(tp) + " pp" + str(pp);
    if (vpp > 1)
        text += " vpp" + str(vpp);
    if (microbatch_group_size > 0 && microbatch_group_size != pp) // N when not Megatron's default
        text += " n" + str(microbatch_group_size);
    if (cp > 1)
        text += " cp" + str(cp) + std::string(cpCommSuffix(cp_comm_type));
    if (ep > 1)
        text += " ep" + str(ep);
    if (etp > 1)
        text += " etp" + str(etp);
    if (ep > 1 && moe_token_dispatcher != MoeDispatcher::AllToAll)
        text += " " + std::string(moeDispatcherName(moe_token_dispatcher));
    if (ep > 1 && moe_ep_comm_overlap)
        text += " ep-overlap";
    text += " dp" + str(dp);
    if (sequence_parallel)
        text += " sp";
    if (tp_comm_overlap)
        text += " tp-overlap";
    if (zero > 0)
        text += " zero" + str(zero);
    if (dpReplicas() > 1) // HSDP: shards over dp_shard ranks, replicated dp / dp_shard times
        text += " hsdp" + str(dpShard());
    if (recompute != Recompute::None)
        text += " " + recomputeWord();
    text += " mbs" + str(micro_batch_size) + " gbs" + str(global_batch_size);
    if (first_stage_layers > 0 || last_stage_layers > 0)
        text += " layout " + str(first_stage_layers) + "/" + str(last_stage_layers);
    if (main_grads_dtype != StateDtype::Fp32)
        text += " grads-" + std::string(stateDtypeName(main_grads_dtype));
    if (optimizer_state_dtype != StateDtype::Fp32)
        text += " optim-" + std::string(stateDtypeName(optimizer_state_dtype));
    if (gradient_buffer != GradientBuffer::Persistent)
        text += " grads-per-step";
    if (cpu_offload_layers > 0)
        text += " offload" + str(cpu_offload_layers);
    if (cuda_graphs != CudaGraphs::None)
        text += " graphs-" + std::string(cudaGraphsName(cuda_graphs));
    return text;
}

long long pipelineWork(const ParallelStrategy& s)
{
    // In 64 bits: micro_batch_size x dp of a file overflowed int (issue 26). Each factor is at
    // most 2^31, so the product of the last three stays below 2^63.
    const long long perMicrobatch = std::max(1LL, static_cast<long long>(s.micro_batch_size) * s.dp);
    const long long microbatches = std::max(1LL, s.global_batch_size / perMicrobatch);
    return microbatches * std::max(1, s.pp) * std::max(1, s.vpp);
}

std::vector<int> stageLayerCounts(const ParallelStrategy& strategy, int numLayers)
{
    const int pp = std::max(1, strategy.pp);
    std::vector<int> counts(std::size_t(pp), 0);
    int rest = numLayers;
    int first = 0;
    int last = pp;
    if (pp > 1 && strategy.first_stage_layers > 0) {
        counts.front() = strategy.first_stage_layers;
        rest -= strategy.first_stage_layers;
        first = 1;
    }
    if (pp > 1 && strategy.last_stage_layers > 0) {
        counts.back() = strategy.last_stage_layers;
        rest -= strategy.last_stage_layers;
        last = pp - 1;
    }
    const int middle = last - first;
    for (int stage = first; stage < last; ++stage)
        counts[std::size_t(stage)] = middle > 0 ? rest / middle + (stage - first < rest % middle ? 1 : 0) : 0;
    return counts;
}

int chunkLayerCount(int stageLayers, int stage, int chunk, int vpp)
{
    const int v = std::max(1, vpp);
    const int extra = stageLayers % v;
    // The first stage's light chunks are its first ones: the embedding sits in chunk 0 and takes
    // a layer's place there, as in Llama 3's balanced pipeline ("the first model chunk on the first
    // stage has only the embedding, and the last model chunk on the last stage has only output
    // projection and loss calculation", Dubey et al. 2024 §3.3.2). Elsewhere the first chunks
    // take one more, so the last stage's last chunk (with the LM head) is the light one.
    const bool heavy = stage == 0 ? chunk >= v - extra : chunk < extra;
    return stageLayers / v + (heavy ? 1 : 0);
}

std::vector<int> chunkLayerCounts(const ParallelStrategy& strategy, int numLayers)
{
    const std::vector<int> stages = stageLayerCounts(strategy, numLayers);
    const int p = int(stages.size());
    const int v = std::max(1, strategy.vpp);
    std::vector<int> chunks(std::size_t(p * v), 0);
    for (int j = 0; j < v; ++j) {
        for (int i = 0; i < p; ++i)
            chunks[std::size_t(j * p + i)] = chunkLayerCount(stages[std::size_t(i)], i, j, v);
    }
    return chunks;
}

std::string tpCommOverlapProblem(const ParallelStrategy& s)
{
    if (s.framework == Framework::DeepSpeed)
        return "TP communication overlap is Megatron-Core's --tp-comm-overlap, Megatron-Bridge's tp_comm_overlap or "
               "torchtitan's AsyncTP; DeepSpeed has none";
    // Megatron-LM arguments.py validate_args (d98e8a64): "Tensor parallel communication/GEMM overlap
    // can happen only when sequence parallelism is enabled", and sequence parallelism is switched
    // off without TP. Megatron-Bridge comm_overlap.py disables it with TP < 2 or without SP; torchtitan's
    // AsyncTP rewrites the all-gather/reduce-scatter pairs of its SP-style TP plan, none without a TP mesh.
    if (s.tp < 2)
        return "TP communication overlap needs tp > 1";
    if (!s.sequence_parallel)
        return "TP communication overlap needs sequence parallelism";
    // torchtitan config/configs.py CompileConfig.__post_init__ (b5bcd76c): "Async TP requires 'model'
    // in --compile.components and --compile.enable".
    if (s.framework == Framework::Torchtitan && s.compile == Compile::Off)
        return "torchtitan's AsyncTP needs torch.compile (compile off)";
    return {};
}

std::string cudaGraphsProblem(const ParallelStrategy& s, const model::ModelDescription& model)
{
    const CudaGraphs g = s.cuda_graphs;
    if (g == CudaGraphs::None)
        return {};
    const std::string name = "cuda_graphs \"" + std::string(cudaGraphsName(g)) + "\"";
    const bool moeModel = model.moe.has_value();
    const bool perLayer = g != CudaGraphs::FullIteration;
    switch (s.framework) {
    case Framework::MegatronCore:
    case Framework::MegatronBridge:
        break;
    case Framework::Torchtitan:
        // torchtitan trainer.py @ b5bcd76c: one graph over the forward and backward step
        // (wrap_with_cuda_graph); Config._validate_cuda_graphs refuses PP, and EP unless its
        // dispatcher never waits on the host (HybridEP with non_blocking_capacity_factor,
        // MinimalAsyncEP), which Stratex's torchtitan MoE does not model.
        if (perLayer)
            return name + ": torchtitan captures only the whole step (\"full-iteration\")";
        if (s.pp > 1)
            return name + ": torchtitan's CUDA graphs do not support pipeline parallelism (pp " + str(s.pp) + ")";
        if (s.ep > 1)
            return name + ": torchtitan's CUDA graphs need an expert dispatcher without host syncs, not modelled (ep "
                + str(s.ep) + ")";
        return {};
    default:
        return name + ": " + std::string(frameworkName(s.framework)) + " has no CUDA-graph option";
    }
    // Megatron-Core TransformerConfig.__post_init__ (transformer_config.py @ d98e8a64) and its MoE
    // README ("CUDA Graph"): the moe_router / moe_preprocess modules need MoE layers; a dropless
    // MoE layer (no capacity factor with padding) has dynamic shapes and cannot be captured whole;
    // per-layer graphs refuse full recompute, CPU offloading and, with TE's graphs, the moe
    // recompute module beside a moe_router graph.
    const bool routerGraph = g == CudaGraphs::MoeRouter || g == CudaGraphs::AttentionMoeRouter;
    if (routerGraph && !moeModel)
        return name + " captures MoE routers; the model has no MoE layers";
    if (g == CudaGraphs::Layer && moeModel)
        return name
            + ": a dropless MoE layer has dynamic shapes and cannot be captured whole (Megatron-Core MoE "
              "README); use \"attn-moe-router\" or \"full-iteration\"";
    if (perLayer && s.recompute == Recompute::Full)
        return name + ": Megatron-Core runs full recompute only with \"full-iteration\" graphs";
    if (perLayer && s.cpu_offload_layers > 0)
        return name + ": Megatron-Core's per-layer CUDA graphs do not support CPU offloading";
    if (routerGraph && s.recompute == Recompute::Selective && s.recompute_modules.has(RecomputeModule::Moe))
        return name + ": Megatron-Core does not recompute the moe module beside a moe_router graph";
    // Full-iteration graphs of a dropless MoE: Megatron-Bridge pads the experts to a fixed rank
    // capacity, which only the HybridEP (flex) dispatcher takes (set_full_iter_cg_configs,
    // scripts/performance/configs/qwen/qwen3_llm_pretrain.py @ v0.5.0; transformer_config.py
    // moe_expert_rank_capacity_factor).
    if (!perLayer && moeModel && s.moe_token_dispatcher != MoeDispatcher::Flex)
        return name + " of a MoE model needs the flex (HybridEP) dispatcher with a fixed expert rank capacity";
    return {};
}

std::vector<std::string> strategyProblems(
    const ParallelStrategy& s, const model::ModelDescription& model, long long worldSize)
{
    std::vector<std::string> problems;
    // The message is built only for a rule broken: the search checks millions of candidates.
    auto require = [&](bool ok, auto&& message) {
        if (!ok)
            problems.push_back(std::string(message()));
    };
    for (const auto& [name, value] : { std::pair { "tp", s.tp }, { "pp", s.pp }, { "vpp", s.vpp }, { "cp", s.cp },
             { "ep", s.ep }, { "etp", s.etp }, { "dp", s.dp }, { "micro_batch_size", s.micro_batch_size },
             { "global_batch_size", s.global_batch_size } }) {
        // Copies: clang before 16 cannot capture structured bindings in a lambda.
        const char* key = name;
        const int found = value;
        require(found >= 1, [&] { return std::string(key) + " must be at least 1, found " + str(found); });
    }
    if (!problems.empty())
        return problems;
    // The products below are kept in int by the model (world(), microbatches(), expertDp()): one
    // that overflows wrapped to 0 and was divided by (SIGFPE), or to a small number that "fitted"
    // (tp 8 x dp 536870913 on 8 GPUs, issue 26). Checked in 64 bits first; beyond int, a problem
    // naming the keys and nothing else is checked.
    constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
    const auto requireProduct = [&](std::initializer_list<NamedFactor> factors) {
        if (!productWithin(factors, kIntMax))
            problems.push_back(productProblem(factors, kIntMax));
    };
    requireProduct({ { "tp", s.tp }, { "pp", s.pp }, { "cp", s.cp }, { "dp", s.dp } });
    requireProduct({ { "micro_batch_size", s.micro_batch_size }, { "dp", s.dp } });
    requireProduct({ { "pp", s.pp }, { "vpp", s.vpp } });
    requireProduct({ { "ep", s.ep }, { "etp", s.etp } });
    requireProduct({ { "2", 2 }, { "cp", s.cp } });
    requireProduct({ { "global_batch_size", s.global_batch_size }, { "seq_length", model.seq_length } });
    if (s.first_stage_layers < 0 || s.last_stage_layers < 0
        || std::int64_t(s.first_stage_layers) + s.last_stage_layers > model.num_layers)
        problems.push_back("first_stage_layers + last_stage_layers = " + str(s.first_stage_layers) + " + "
            + str(s.last_stage_layers) + " exceeds num_layers " + str(model.num_layers));
    if (!problems.empty())
        return problems;
    require(static_cast<long long>(s.world()) == worldSize,
        [&] { return "tp x pp x cp x dp = " + str(s.world()) + ", the cluster has " + str(worldSize); });
    require(model.num_heads % s.tp == 0,
        [&] { return "num_heads " + str(model.num_heads) + " is not divisible by tp " + str(s.tp); });
    require(model.num_kv_heads % s.tp == 0,
        [&] { return "num_query_groups " + str(model.num_kv_heads) + " is not divisible by tp " + str(s.tp); });
    require(!s.sequence_parallel || s.tp > 1, [&] { return "sequence parallelism needs tp > 1"; });
    if (s.tp_comm_overlap) {
        const std::string overlap = tpCommOverlapProblem(s);
        require(overlap.empty(), [&] { return overlap; });
    }
    const std::string fp8Recipe = fp8RecipeProblem(s); // docs/kernels.md §8, "The recipe"
    require(fp8Recipe.empty(), [&] { return fp8Recipe; });
    // transformer_config.py __post_init__ (d98e8a64): "mla_up_proj in recompute_modules is only
    // supported with multi_latent_attention".
    require(s.recompute != Recompute::Selective || !s.recompute_modules.has(RecomputeModule::MlaUpProj)
            || model.mla.has_value(),
        [&] { return "recompute module mla_up_proj needs multi-latent attention (the model has none)"; });
    if (s.moe_ep_comm_overlap) {
        // Megatron-Core transformer_config.py __post_init__ (d98e8a64), overlap_moe_expert_parallel_comm:
        // expert parallelism, the alltoall or flex dispatcher, no full recompute and no "moe" recompute
        // module, and with pp > 1 the interleaved schedule (virtual_pipeline_model_parallel_size).
        require(s.ep > 1, [&] { return "moe_ep_comm_overlap needs expert parallelism (ep > 1)"; });
        require(s.moe_token_dispatcher != MoeDispatcher::AllGather,
            [&] { return "moe_ep_comm_overlap needs the alltoall or flex token dispatcher"; });
        require(s.recompute != Recompute::Full, [&] { return "moe_ep_comm_overlap needs recompute other than full"; });
        require(s.recompute != Recompute::Selective || !s.recompute_modules.has(RecomputeModule::Moe),
            [&] { return "moe_ep_comm_overlap cannot recompute the moe module"; });
        require(s.pp == 1 || s.vpp > 1, [&] { return "moe_ep_comm_overlap with pp > 1 needs vpp > 1 (interleaved)"; });
    }
    require(s.global_batch_size % (s.micro_batch_size * s.dp) == 0, [&] {
        return "global_batch_size " + str(s.global_batch_size)
            + " is not divisible by micro_batch_size x dp = " + str(s.micro_batch_size * s.dp);
    });
    require(model.seq_length % (2 * s.cp) == 0 || s.cp == 1, [&] {
        return "seq_length " + str(model.seq_length) + " is not divisible by 2 x cp = " + str(2 * s.cp)
            + " (load-balanced causal context parallelism)";
    });
    if (s.cp > 1 && s.cp_comm_type == CpCommType::A2a) {
        // Transformer Engine's all-to-all attention splits each TP rank's heads over the CP ranks:
        // it asserts that the query and the key/value heads of a rank divide by cp.
        const int heads = model.num_heads / s.tp;
        const int kvHeads = model.num_kv_heads / s.tp;
        require(heads % s.cp == 0 && kvHeads % s.cp == 0, [&] {
            return "cp_comm_type a2a needs each TP rank's heads (" + str(heads) + " query, " + str(kvHeads)
                + " key/value) divisible by cp " + str(s.cp);
        });
    }
    require(s.zero >= 0 && s.zero <= 3, [&] { return "zero must be 0, 1, 2 or 3, found " + str(s.zero); });
    // megatron/core/optimizer/__init__.py @ d98e8a64: "--use-precision-aware-optimizer only
    // supported with distributed optimizer".
    require(s.optimizer_state_dtype == StateDtype::Fp32 || s.zero >= 1
            || (s.framework != Framework::MegatronCore && s.framework != Framework::MegatronBridge),
        [&] { return "optimizer_state_dtype bf16 (the precision-aware optimizer) needs the distributed optimizer (zero >= 1)"; });
    // The full gradient buffer's lifetime is a choice only where one is kept and reduce-scattered
    // once per step into a shard: Megatron-Core's / Megatron-Bridge's zero 1 (docs/memory-model.md,
    // "Gradient buffer lifetime"). torchtitan's FSDP2 under PP already frees it every step.
    require(s.gradient_buffer == GradientBuffer::Persistent
            || (s.zero == 1 && (s.framework == Framework::MegatronCore || s.framework == Framework::MegatronBridge)),
        [&] { return "gradient_buffer \"step\" needs zero 1 under megatron-core or megatron-bridge"; });

    // CPU activation offloading (docs/memory-model.md, "CPU activation offload"): Megatron-Core's
    // TransformerConfig.__post_init__ (transformer_config.py @ d98e8a64) refuses N outside
    // [0, num_layers), pipeline parallelism and any activation recompute with it; torchtitan and
    // DeepSpeed have no layer-level activation offload of this kind.
    if (s.cpu_offload_layers != 0) {
        const int n = s.cpu_offload_layers;
        require(s.framework == Framework::MegatronCore || s.framework == Framework::MegatronBridge, [&] {
            return "cpu_offload_layers is Megatron-Core's --cpu-offloading-num-layers; "
                + std::string(frameworkName(s.framework)) + " has no such offload";
        });
        require(n > 0 && n < model.num_layers, [&] {
            return "cpu_offload_layers " + str(n) + " must lie in [1, num_layers - 1 = " + str(model.num_layers - 1)
                + "] (Megatron-Core offloads only layers less than num_layers)";
        });
        require(s.pp == 1, [&] {
            return "cpu_offload_layers needs pp 1 (Megatron-Core: no pipeline parallelism with CPU offloading), found pp "
                + str(s.pp);
        });
        require(s.recompute == Recompute::None, [&] {
            return "cpu_offload_layers needs recompute none (Megatron-Core: CPU offloading does not work with "
                   "activation recomputation), found "
                + std::string(recomputeName(s.recompute));
        });
    }

    if (s.cuda_graphs != CudaGraphs::None)
        require(cudaGraphsProblem(s, model).empty(), [&] { return cudaGraphsProblem(s, model); });

    // Pipeline division: every stage needs a layer; without explicit ends the layers divide evenly.
    const int explicitEnds = (s.first_stage_layers > 0 ? 1 : 0) + (s.last_stage_layers > 0 ? 1 : 0);
    require(s.pp > 1 || explicitEnds == 0, [&] { return "first/last stage layer counts need pp > 1"; });
    const int rest = model.num_layers - s.first_stage_layers - s.last_stage_layers;
    const int middle = s.pp - explicitEnds;
    // An uneven division is fine: Megatron takes it as --pipeline-model-parallel-layout.
    if (middle > 0)
        require(
            rest >= middle, [&] { return str(rest) + " layers cannot fill " + str(middle) + " pipeline stage(s)"; });
    else
        require(rest == 0,
            [&] { return "first + last stage layers must add up to " + str(model.num_layers) + " with pp 2"; });
    if (s.vpp > 1) {
        require(s.schedule == PipelineSchedule::Interleaved, [&] { return "vpp > 1 needs the interleaved schedule"; });
        require(s.pp > 1, [&] { return "virtual pipeline stages need pp > 1"; });
        // Uneven chunks, even empty ones, are a --pipeline-model-parallel-layout.
        require(std::int64_t(s.pp) * s.vpp <= 2 * std::int64_t(model.num_layers),
            [&] { return str(s.pp * s.vpp) + " model chunks for " + str(model.num_layers) + " layers"; });
        // Megatron-LM d98e8a64, schedules.py forward_backward_pipelining_with_interleaving: the
        // micro-batch group N (--microbatch-group-size-per-virtual-pipeline-stage, default pp:
        // model_parallel_config.py __post_init__; the exports leave it at that) must lie in [pp, M],
        // and M % N must be 0 or at least pp (ValueError / RuntimeError at the first step). With
        // N = pp both say: M a multiple of pp (the rule of older versions, stated outright).
        const bool megatron = s.framework == Framework::MegatronCore || s.framework == Framework::MegatronBridge;
        const int m = s.microbatches();
        if (s.microbatch_group_size == 0) {
            require(!megatron || s.pp <= 1 || (m >= s.pp && m % s.pp == 0), [&] {
                return "the interleaved schedule needs the micro-batches (global_batch_size / "
                       "(micro_batch_size x dp) = "
                    + str(m) + ") to be a multiple of pp " + str(s.pp);
            });
        } else {
            const int n = s.microbatch_group_size;
            require(n >= s.pp && n <= m, [&] {
                return "microbatch_group_size " + str(n) + " must lie in [pp " + str(s.pp) + ", micro-batches " + str(m)
                    + "] (Megatron-Core's range for the interleaved schedule)";
            });
            const int last = n > 0 ? m % n : 0;
            require(last == 0 || last >= s.pp, [&] {
                return "microbatch_group_size " + str(n) + " leaves a last group of " + str(last)
                    + " micro-batches; Megatron-Core needs 0 or at least pp " + str(s.pp);
            });
        }
    }
    require(s.microbatch_group_size == 0 || s.vpp > 1, [&] {
        return "microbatch_group_size " + str(s.microbatch_group_size) + " needs the interleaved schedule (vpp > 1)";
    });
    require(s.microbatch_group_size == 0 || s.framework != Framework::Torchtitan, [&] {
        return std::string("microbatch_group_size is Megatron-Core's interleaved schedule; torchtitan's "
                           "schedules have no such setting");
    });
    require(s.schedule != PipelineSchedule::Interleaved || s.vpp > 1 || s.pp == 1,
        [&] { return "the interleaved schedule needs vpp > 1"; });
    if (s.recompute == Recompute::Full && s.recompute_num_layers > 0)
        require(s.recompute_num_layers <= model.num_layers,
            [&] { return "recompute_num_layers " + str(s.recompute_num_layers) + " exceeds the model's layers"; });

    if (model.moe) {
        require(model.moe->num_experts % s.ep == 0,
            [&] { return "num_experts " + str(model.moe->num_experts) + " is not divisible by ep " + str(s.ep); });
        require((s.tp * s.cp * s.dp) % (s.ep * s.etp) == 0, [&] {
            return "ep x etp = " + str(s.ep * s.etp) + " does not divide tp x cp x dp = " + str(s.tp * s.cp * s.dp);
        });
    } else {
        require(s.ep == 1 && s.etp == 1, [&] { return "expert parallelism needs a MoE model"; });
    }
    if (s.dp_shard != 0) // HSDP (hsdp.h): a shard group that divides dp, ZeRO, a framework that has it
        std::ranges::move(hsdpProblems(s), std::back_inserter(problems));
    std::ranges::move(frameworkProblems(s), std::back_inserter(problems)); // docs/frameworks.md
    return problems;
}

} // namespace stratex::megatron
