// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/strategy_search_settings.h"

#include "core/common/enum_names.h"
#include "core/common/input_limits.h"

namespace stratex::megatron {

namespace {

using settings::row;
using settings::Setting;
using settings::SettingKind;
using settings::SettingSpec;
using S = StrategySearchSettings;

constexpr EnumNames<CostModelChoice, 3> kCostModelNames { { { CostModelChoice::Auto, "auto" },
    { CostModelChoice::Galvatron, "galvatron" }, { CostModelChoice::Stratex, "stratex" } } };

SettingSpec spec(std::string_view flag, std::string_view group, std::string_view label, SettingKind kind,
    std::string_view valueName, double minimum, double maximum, std::string_view help)
{
    return settings::settingSpec(kind, flag, group, label, valueName, help, minimum, maximum);
}

SettingSpec choice(SettingSpec s, std::vector<std::string_view> choices)
{
    s.choices = std::move(choices);
    return s;
}

SettingSpec special(SettingSpec s, std::string_view text)
{
    s.specialText = text;
    return s;
}

std::vector<Setting<S>> rows()
{
    static constexpr std::string_view model = "Cost model";
    static constexpr std::string_view space = "Megatron space";
    constexpr auto Integer = SettingKind::Integer;
    constexpr auto Switch = SettingKind::Switch;
    const int maxDegree = limits::kMaxWorld;
    SettingSpec gpu = spec("gpu", model, "GPU", SettingKind::Text, "PRESET", 0, 0,
        "GPU preset (profile synth --gpu's names) for the stratex model when neither a synthesized profile set "
        "nor --cluster names the GPU.");
    gpu.defaultText = "the profile set's or cluster file's";
    return {
        row(choice(spec("cost-model", model, "Cost model", SettingKind::Choice, "", 0, 0,
                       "galvatron: Galvatron main's search, exactly; stratex: per-operation costs over Megatron's "
                       "space (TP, PP with layouts, VPP, CP, EP, ZeRO, recompute); auto: stratex for a synthesized "
                       "profile set or a model without profiles, galvatron for measured profiles."),
                { "auto", "galvatron", "stratex" }),
            &S::cost_model),
        row(special(spec("global-batch-size", model, "Global batch", Integer, "N", 0, limits::kMaxBatch,
                        "Sequences per iteration for the stratex model (required by it)."),
                "not given"),
            &S::global_batch_size),
        row(gpu, &S::gpu),
        row(special(spec("max-tp", space, "Max TP", Integer, "N", 0, maxDegree, "Largest tensor-parallel degree."),
                "one node"),
            &S::space, &StrategySpace::max_tp),
        row(special(
                spec("max-pp", space, "Max PP", Integer, "N", 0, maxDegree, "Largest pipeline degree."), "the layers"),
            &S::space, &StrategySpace::max_pp),
        row(special(spec("max-cp", space, "Max CP", Integer, "N", 0, maxDegree, "Largest context-parallel degree."),
                "no limit"),
            &S::space, &StrategySpace::max_cp),
        row(special(spec("max-ep", space, "Max EP", Integer, "N", 0, maxDegree,
                        "Largest expert-parallel degree (MoE models)."),
                "no limit"),
            &S::space, &StrategySpace::max_ep),
        row(spec("max-vpp", space, "Max VPP", Integer, "N", 1, 64,
                "Most model chunks per pipeline rank for the interleaved schedule (1: no interleaving)."),
            &S::space, &StrategySpace::max_vpp),
        row(spec("max-micro-batch-size", space, "Max micro-batch", Integer, "N", 1, limits::kMaxBatch,
                "Largest micro-batch size tried."),
            &S::space, &StrategySpace::max_micro_batch_size),
        row(spec("max-zero", space, "Max ZeRO stage", Integer, "N", 0, 3,
                "ZeRO stages 0 to N are tried: 0 DDP, 1 distributed optimizer, 2 sharded gradients, 3 FSDP."),
            &S::max_zero),
        row(choice(spec("recompute", space, "Recompute", SettingKind::Choice, "", 0, 0,
                       "Activation recomputation tried: any of none / selective / full, or only one."),
                { "any", "none", "selective", "full" }),
            &S::recompute),
        row(choice(spec("precision", space, "GEMM precision", SettingKind::Choice, "", 0, 0,
                       "bf16, fp16, or fp8 GEMMs with bf16 master weights."),
                { "bf16", "fp16", "fp8" }),
            &S::precision),
        row(choice(spec("fp8-recipe", space, "FP8 recipe", SettingKind::Choice, "", 0, 0,
                       "With precision fp8, Transformer Engine's scaling recipe in every plan, not searched "
                       "(docs/kernels.md §8): default (the framework's: delayed for Megatron-Core, tensorwise where "
                       "it recomputes layernorm or moe_act and for Megatron-Bridge and torchtitan), delayed (scale from "
                       "the amax history; the norm and activation write FP8 themselves), tensorwise (per-tensor "
                       "current scaling: an amax pass before each cast), mxfp8 (1x32 blocks, Blackwell) or blockwise "
                       "(1x128 blocks, Hopper). Exports write Megatron's --fp8-recipe and Megatron-Bridge's "
                       "mixed_precision.fp8_recipe."),
                { "default", "delayed", "tensorwise", "mxfp8", "blockwise" }),
            &S::fp8_recipe),
        row(choice(spec("framework", space, "Framework", SettingKind::Choice, "", 0, 0,
                       "What each rank keeps in memory (docs/memory-model.md): megatron-core (fp32 main-gradient "
                       "buffer, distributed optimizer), megatron-bridge (NeMo 2; Megatron-Core's rules), torchtitan "
                       "(FSDP2, unsharded gradients held across micro-batches with PP), deepspeed (ZeRO with its reduce "
                       "buckets) or composer (MosaicML llm-foundry's FSDP)."),
                { "megatron-core", "megatron-bridge", "torchtitan", "deepspeed", "composer" }),
            &S::framework),
        row(choice(spec("main-grads-dtype", space, "Main-gradient dtype", SettingKind::Choice, "", 0, 0,
                       "Megatron-Core / Megatron-Bridge main gradients (the DDP grad buffer): fp32 (Megatron's "
                       "default under bf16) or bf16 (--grad-reduce-in-bf16; docs/memory-model.md)."),
                { "fp32", "bf16" }),
            &S::main_grads_dtype),
        row(choice(spec("optimizer-state-dtype", space, "Optimizer-state dtype", SettingKind::Choice, "", 0, 0,
                       "Megatron-Core / Megatron-Bridge distributed-optimizer states: fp32 (main weights and Adam "
                       "moments) or bf16 (--use-precision-aware-optimizer with bf16 moments; needs ZeRO >= 1)."),
                { "fp32", "bf16" }),
            &S::optimizer_state_dtype),
        row(spec("uneven-layouts", space, "Uneven layouts", Switch, "0|1", 0, 1,
                "Also try lighter first/last pipeline stages (Megatron's pipeline layout)."),
            &S::space, &StrategySpace::uneven_layouts),
        row(spec("interleaved", space, "Interleaved 1F1B", Switch, "0|1", 0, 1,
                "Try the interleaved schedule (virtual pipeline stages)."),
            &S::space, &StrategySpace::interleaved),
        row(spec("zb-h1", space, "ZB-H1", Switch, "0|1", 0, 1, "Try the zero-bubble H1 schedule."), &S::space,
            &StrategySpace::zb_h1),
        row(spec("ulysses", space, "Ulysses CP", Switch, "0|1", 0, 1,
                "With context parallelism also try DeepSpeed-Ulysses all-to-all attention (Megatron's "
                "--cp-comm-type a2a) where each TP rank's heads divide by the CP degree."),
            &S::space, &StrategySpace::ulysses),
        row(spec("hsdp", space, "HSDP", Switch, "0|1", 0, 1,
                "With ZeRO >= 1 also shard inside a node (or NVLink domain) and replicate across nodes: HSDP, "
                "Megatron's --num-distributed-optimizer-instances, torchtitan's data_parallel_replicate_degree "
                "(docs/hsdp.md). Megatron-Core, Megatron-Bridge and torchtitan."),
            &S::space, &StrategySpace::hsdp),
        row(spec("flash-attention", space, "Flash attention", Switch, "0|1", 0, 1,
                "Fused flash attention (off: the attention scores are materialised)."),
            &S::space, &StrategySpace::flash_attention),
        row(choice(spec("attention-kernel", space, "Attention kernel", SettingKind::Choice, "", 0, 0,
                       "The attention kernel the plans run, not searched (docs/kernels.md §6): default (the "
                       "framework's on the GPU: cuDNN fused attention for Megatron / NeMo on Hopper, flash-attn 2 "
                       "elsewhere and for torchtitan), flash2, flash3 (Hopper), cudnn, mpt-triton (llm-foundry's "
                       "Triton kernel) or unfused (the scores materialised). Exports write Megatron's "
                       "--attention-backend."),
                { "default", "flash2", "flash3", "cudnn", "mpt-triton", "unfused" }),
            &S::attention_kernel),
        row(choice(spec("compile", space, "torch.compile", SettingKind::Choice, "", 0, 0,
                       "torch.compile of the transformer blocks in every plan, not searched (docs/kernels.md, "
                       "\"Eager and compiled blocks\"): default (the framework's: torchtitan, DeepSpeed and "
                       "Composer eager, torchtitan compiled with AsyncTP; Megatron-Core and Megatron-Bridge run "
                       "their own fused kernels either way), on or off. Eager runs an RMSNorm as eight kernels and "
                       "SwiGLU's silu and multiply apart, each a pass over HBM. The torchtitan export writes "
                       "compile.enable."),
                { "default", "on", "off" }),
            &S::compile),
        row(choice(spec("cuda-graphs", space, "CUDA graphs", SettingKind::Choice, "", 0, 0,
                       "CUDA graphs in every plan, not searched (docs/kernels.md §7, \"CUDA graphs\"): a captured "
                       "region's kernels replay with one launch, so the host no longer issues them one by one "
                       "(small or MoE layers whose host is slower than their GPU). none; attn, moe-router, "
                       "attn-moe-router or layer: Megatron-Core's per-layer graphs (--cuda-graph-impl "
                       "transformer_engine --cuda-graph-modules; Megatron-Bridge cuda_graph_scope); "
                       "full-iteration: the whole forward and backward step (Megatron's --cuda-graph-impl "
                       "full_iteration, torchtitan's Trainer graph, no PP or EP there). Plans their framework "
                       "cannot capture so are skipped. Memory of the graphs' pools is not modelled."),
                { "none", "attn", "moe-router", "attn-moe-router", "layer", "full-iteration" }),
            &S::cuda_graphs),
        row(spec("tp-comm-overlap", space, "TP comm overlap", Switch, "0|1", 0, 1,
                "Pipeline the TP all-gathers and reduce-scatters with the GEMMs beside them on every plan whose "
                "framework allows it: Megatron-Core --tp-comm-overlap and Megatron-Bridge tp_comm_overlap (TE "
                "userbuffers; need TP > 1 with sequence parallelism), torchtitan AsyncTP (TP > 1; the export "
                "turns torch.compile on). DeepSpeed has none (docs/collectives.md, TP communication overlap)."),
            &S::space, &StrategySpace::tp_comm_overlap),
        row(special(spec("features-year", space, "Megatron-LM of year", Integer, "YEAR", 0, 2100,
                        "Megatron-Core and Megatron-Bridge plans use only what Megatron-LM's main branch had by "
                        "the end of this year (docs/frameworks.md, \"Megatron-LM's features by year\"): "
                        "interleaving from 2021; the distributed optimizer, sequence parallelism and selective "
                        "recompute from 2022; EP, CP and TP comm overlap from 2023; uneven ends, Ulysses CP and "
                        "HSDP from 2024; Megatron-FSDP (ZeRO 2 and 3) from 2025."),
                "today's"),
            &S::space, &StrategySpace::features_year),
    };
}

} // namespace

std::string_view costModelName(CostModelChoice value)
{
    return enumName(kCostModelNames, value);
}

std::optional<CostModelChoice> parseCostModel(std::string_view name)
{
    return parseEnumName(kCostModelNames, name);
}

CostModelChoice resolveCostModel(
    CostModelChoice asked, bool hasProfiles, bool synthesizedProfiles, bool modelOrGpuDescribed)
{
    if (asked != CostModelChoice::Auto)
        return asked;
    const bool described = hasProfiles ? synthesizedProfiles : modelOrGpuDescribed;
    return described ? CostModelChoice::Stratex : CostModelChoice::Galvatron;
}

CostModelChoice StrategySearchSettings::costModel() const
{
    return parseCostModel(cost_model).value_or(CostModelChoice::Auto);
}

StrategySpace StrategySearchSettings::resolvedSpace() const
{
    StrategySpace s = space;
    s.zero_stages.clear();
    for (int stage = 0; stage <= max_zero; ++stage)
        s.zero_stages.push_back(stage);
    if (recompute != "any")
        s.recomputes = { parseRecompute(recompute).value_or(Recompute::None) };
    s.precision = parsePrecision(precision).value_or(Precision::Bf16);
    // The recipe only where the GEMMs are FP8 (a bf16 search keeps Default: fp8RecipeProblem).
    if (s.precision == Precision::Fp8)
        s.fp8_recipe = parseFp8Recipe(fp8_recipe).value_or(Fp8Recipe::Default);
    s.framework = parseFramework(framework).value_or(Framework::MegatronCore);
    s.main_grads_dtype = parseStateDtype(main_grads_dtype).value_or(StateDtype::Fp32);
    s.optimizer_state_dtype = parseStateDtype(optimizer_state_dtype).value_or(StateDtype::Fp32);
    s.attention_kernel = hardware::parseAttentionKernel(attention_kernel).value_or(hardware::AttentionKernel::Default);
    if (s.attention_kernel == hardware::AttentionKernel::Unfused)
        s.flash_attention = false;
    s.compile = parseCompile(compile).value_or(Compile::Default);
    s.cuda_graphs = parseCudaGraphs(cuda_graphs).value_or(CudaGraphs::None);
    return s;
}

const settings::SettingTable<StrategySearchSettings>& strategySearchSettingTable()
{
    static const settings::SettingTable<StrategySearchSettings> table(rows());
    return table;
}

} // namespace stratex::megatron
