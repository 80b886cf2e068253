// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/megatron_plan_args.h"

#include <cmath>
#include <cstdio>

#include "core/common/error.h"
#include "core/export/plan_file_checks.h"
#include "core/export/shell_quote.h"
#include "core/hardware/attention_kernels.h"
#include "core/megatron/attention_kernel_choice.h"
#include "core/megatron/cp_comm.h"
#include "core/megatron/gpu_support.h"

namespace stratex::exporting {

namespace {

std::string str(long long n)
{
    return std::to_string(n);
}

std::string fixed(double value, int decimals)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}


MegatronPrecision precisionOf(megatron::Precision precision)
{
    switch (precision) {
    case megatron::Precision::Bf16:
        return MegatronPrecision::Bf16;
    case megatron::Precision::Fp16:
        return MegatronPrecision::Fp16;
    case megatron::Precision::Fp8:
        return MegatronPrecision::Fp8;
    }
    return MegatronPrecision::Bf16;
}

// A comment of the script that is also a note of the export (export_note.h).
void approximate(MegatronPlanArgs& m, std::string field, const std::string& text)
{
    m.comments.push_back(text);
    addExportNote(m.notes, ExportNoteKind::Approximation, std::move(field), "Megatron-LM: " + text);
}

// What Megatron-LM runs on a GPU without the plan's precision or attention kernel
// (megatron::gpuSupportProblems, docs/kernels.md §10): the export writes that, and says so.
// - Volta (sm70) has FP16 tensor cores only: --fp16, whose loss scaling is dynamic unless
//   --loss-scale is given (arguments.py _add_mixed_precision_args: "If None, dynamic loss scaling
//   is used", --initial-loss-scale 2**32; NVIDIA/Megatron-LM d98e8a64).
// - Ampere (sm80) has no FP8 tensor cores (Transformer Engine's _compute_fp8_support refuses FP8
//   below 8.9): --bf16.
// - Below sm80 Transformer Engine disables FlashAttention and FusedAttention (get_attention_backend)
//   and runs UnfusedDotProductAttention: --attention-backend unfused (AttnBackend.unfused,
//   megatron/core/transformer/enums.py; `local` needs --spec local, arguments.py @ d98e8a64).
void exportWhatTheGpuRuns(MegatronPlanArgs& m, megatron::ParallelStrategy& e, const std::string& gpu)
{
    const std::string planned(megatron::precisionName(e.precision));
    if (hardware::isVoltaGpu(gpu) && e.precision != megatron::Precision::Fp16) {
        e.precision = megatron::Precision::Fp16;
        approximate(m, "strategy.precision",
            planned + " on " + gpu + ": Volta (sm70) has FP16 tensor cores only; written --fp16 with Megatron's "
                "dynamic loss scaling (no --loss-scale; --initial-loss-scale 2^32 by default)");
    } else if (e.precision == megatron::Precision::Fp8 && !megatron::gpuRunsFp8(gpu)) {
        e.precision = megatron::Precision::Bf16;
        approximate(m, "strategy.precision",
            "fp8 on " + gpu + ": no FP8 tensor cores (Transformer Engine runs FP8 from compute capability 8.9); "
                "written --bf16");
    }
    if (!e.flash_attention)
        return;
    if (!hardware::attentionKernelRunsOn(e.attention_kernel, gpu)) {
        approximate(m, "strategy.attention_kernel",
            std::string(hardware::attentionKernelName(e.attention_kernel)) + " on " + gpu
                + ": no flash-attention or cuDNN fused kernel runs below sm80 (Transformer Engine falls back to "
                  "UnfusedDotProductAttention); written --attention-backend unfused");
        e.flash_attention = false;
        e.attention_kernel = hardware::AttentionKernel::Default;
    } else if (megatron::resolvedAttentionKernel(e, gpu) == hardware::AttentionKernel::Unfused) {
        // The default kernel on Volta: costed unfused already (attention_kernel_choice.h), so the
        // exported strategy (unfused) costs the same; said explicitly.
        m.comments.push_back("attention on " + gpu
            + ": Transformer Engine runs no flash-attention or cuDNN fused kernel below sm80; written "
              "--attention-backend unfused (as costed)");
        e.flash_attention = false;
    }
}

} // namespace

// "4.404 s/iteration, memory per stage [48496, 47478] MB of 81559 MB (fits)".
std::string megatronPredictionText(const megatron::Estimate& e)
{
    if (!e.problems.empty()) { // not costed: what Megatron or the GPU refuses (e.g. bf16 on a V100)
        std::string why;
        for (const std::string& problem : e.problems)
            why += (why.empty() ? "" : "; ") + problem;
        return "not costed (" + why + ")";
    }
    std::string memory;
    for (const megatron::StageEstimate& stage : e.stages)
        memory += (memory.empty() ? "" : ", ") + str(std::llround(stage.memory.totalMb()));
    return fixed(e.iteration_ms / 1e3, 3) + " s/iteration, memory per stage [" + memory + "] MB of "
        + str(std::llround(e.memory_limit_mb)) + " MB" + (e.fits ? " (fits)" : " (DOES NOT FIT)");
}

MegatronPlanArgs megatronPlanArgs(const megatron::PlanFile& plan, const hardware::HardwareModel* hardware)
{
    const model::ModelDescription& model = plan.model;
    requireValidStrategy(plan, "Megatron-LM");
    const megatron::ParallelStrategy& s = plan.strategy;
    MegatronPlanArgs m;
    m.model_summary = megatronModelSummary(model);
    megatron::ParallelStrategy e = s; // what Megatron runs

    if (s.schedule == megatron::PipelineSchedule::ZbH1) {
        e.schedule = megatron::PipelineSchedule::OneFOneB;
        approximate(m, "strategy.schedule", "ZB-H1: Megatron-LM has no zero-bubble schedule; it runs 1F1B (the weight gradients "
                             "are not deferred into the bubbles)");
    }
    if (model.moe && s.tp > 1 && !s.sequence_parallel) {
        e.sequence_parallel = true;
        approximate(m, "strategy.sequence_parallel", "sequence parallelism on: Megatron's MoE layers refuse to train with TP but without it");
    }
    if (s.zero > 0 && s.dp * s.cp == 1) {
        e.zero = 0;
        approximate(m, "strategy.zero", "ZeRO-" + str(s.zero) + " with one data-parallel rank: nothing to shard, plain DDP");
    }

    exportWhatTheGpuRuns(m, e, plan.cluster.gpu.name);

    MegatronRun& r = m.run;
    r.tensor_parallel = e.tp;
    r.pipeline_parallel = e.pp;
    r.virtual_stages = e.vpp;
    if (e.vpp > 1 && e.microbatch_group_size > 0 && e.microbatch_group_size != e.pp)
        r.microbatch_group_size = e.microbatch_group_size;
    r.division = megatronPipelineLayout(megatron::chunkLayerCounts(e, model.num_layers), e.pp, model.mtp_num_layers);
    r.context_parallel = e.cp;
    r.cp_comm_type = std::string(megatron::cpCommTypeName(e.cp_comm_type)); // Megatron's --cp-comm-type spelling
    if (e.cp > 1 && e.cp_comm_type == megatron::CpCommType::A2aP2p) {
        // The a2a level the plan was costed with: inside the node (cp_comm.h, cpA2aGroupSize).
        const int gpusPerNode = hardware ? hardware->cluster().gpus_per_node : 8;
        const int a2a = megatron::cpA2aGroupSize(e.cp, e.tp, gpusPerNode, model.num_heads / e.tp, model.num_kv_heads / e.tp);
        r.hierarchical_cp_sizes = { a2a, e.cp / a2a };
        if (!hardware)
            approximate(m, "strategy.cp_comm_type", "a2a+p2p: the a2a level sized for 8 GPUs a node (no cluster given)");
    }
    r.data_parallel = e.dp;
    r.expert_parallel = e.ep;
    r.expert_tensor_parallel = model.moe ? e.etp : 0; // Megatron's default is the TP degree, the plan's its own
    if (model.moe && e.ep > 1) { // the dispatcher the plan was costed with (docs/moe.md)
        r.moe_token_dispatcher = std::string(megatron::moeDispatcherName(e.moe_token_dispatcher));
        r.moe_ep_comm_overlap = e.moe_ep_comm_overlap;
    }
    r.sequence_parallel = e.sequence_parallel && e.tp > 1;
    r.tp_comm_overlap = e.tp_comm_overlap && r.sequence_parallel;
    if (e.recompute == megatron::Recompute::Selective) {
        r.recompute_granularity = "selective";
        if (!e.recompute_modules.isDefault()) // Megatron's default is core_attn
            r.recompute_modules = e.recompute_modules.joined(" ");
    } else if (e.recompute == megatron::Recompute::Full) {
        r.recompute_granularity = "full";
        r.recompute_method = "uniform";
        r.recompute_layers = std::max(1, e.recompute_num_layers);
    }
    r.micro_batch_size = e.micro_batch_size;
    r.global_batch_size = e.global_batch_size;
    switch (e.zero) {
    case 0:
        r.data_parallel_kind = MegatronDataParallel::Ddp;
        break;
    case 1:
        r.data_parallel_kind = MegatronDataParallel::DistributedOptimizer;
        break;
    case 2:
        r.data_parallel_kind = MegatronDataParallel::MegatronFsdpGrads;
        break;
    default:
        r.data_parallel_kind = MegatronDataParallel::MegatronFsdp;
        break;
    }
    r.overlap_grad_reduce = e.overlap_grad_reduce && e.dp * e.cp > 1;
    if (e.zero >= 1) // HSDP: Megatron shards inside dp / dp_shard instances (docs/hsdp.md)
        r.distributed_optimizer_instances = e.dpReplicas();
    // validate_args: --overlap-param-gather only with the distributed optimizer or Megatron-FSDP,
    // and only with --overlap-grad-reduce.
    r.overlap_param_gather = r.overlap_grad_reduce && r.data_parallel_kind != MegatronDataParallel::Ddp;
    r.precision = precisionOf(e.precision);
    if (e.precision == megatron::Precision::Fp8) // docs/kernels.md §8: the recipe the plan is costed with
        r.fp8_recipe = std::string(megatron::fp8RecipeName(megatron::resolvedFp8Recipe(e)));
    r.grad_reduce_in_bf16 = e.main_grads_dtype == megatron::StateDtype::Bf16;
    r.gradient_accumulation_fusion = e.gradient_accumulation_fusion;
    r.cross_entropy_loss_fusion = e.cross_entropy_loss_fusion;
    r.bf16_optimizer_states = e.optimizer_state_dtype == megatron::StateDtype::Bf16;
    // docs/memory-model.md, "Gradient buffer lifetime": Megatron-Core's DDP allocates its grad buffer
    // once (param_and_grad_buffer.py @ d98e8a64) and has no flag that frees it between steps.
    if (e.gradient_buffer != megatron::GradientBuffer::Persistent) {
        e.gradient_buffer = megatron::GradientBuffer::Persistent;
        approximate(m, "strategy.gradient_buffer",
            "gradient_buffer step (the full gradients made at each chunk's first backward, freed after the "
            "reduce-scatter): Megatron-Core's DDP keeps its grad buffer for the run; written as the distributed "
            "optimizer, costed with the persistent buffer");
    }
    // docs/collectives.md, "TP backward overlap": Megatron-Core always overlaps the column-parallel
    // linears' backward collectives (ColumnParallelLinear allreduce_dgrad, core_v0.8.0 on; the
    // --no-async-tensor-model-parallel-allreduce flag is gone), so a plan costed without it runs with it.
    if (!e.tp_async_backward && e.tp > 1) {
        e.tp_async_backward = true;
        approximate(m, "strategy.tp_async_backward",
            "tp_async_backward false (TP backward collectives exposed): Megatron-Core overlaps them with the "
            "weight- and data-gradient GEMMs and has no flag to turn that off; costed with the overlap");
    }
    r.cpu_offloading_layers = e.cpu_offload_layers; // docs/memory-model.md, "CPU activation offload"
    // CUDA graphs (docs/kernels.md §7): TE's per-layer graphs, or the whole step.
    if (e.cuda_graphs == megatron::CudaGraphs::FullIteration) {
        r.cuda_graph_impl = "full_iteration";
        if (model.moe)
            approximate(m, "strategy.cuda_graphs",
                "full-iteration graphs of a MoE model: the experts padded to a rank capacity of 1.5 with paged "
                "stashing (Megatron-Bridge's set_full_iter_cg_configs); costed at the routed tokens, the "
                "padding's compute and the stash's memory not counted");
    } else if (e.cuda_graphs != megatron::CudaGraphs::None) {
        r.cuda_graph_impl = "transformer_engine";
        r.cuda_graph_modules = megatron::megatronCudaGraphModules(e.cuda_graphs);
    }
    if (e.cuda_graphs != megatron::CudaGraphs::None)
        approximate(m, "strategy.cuda_graphs",
            "CUDA graphs: costed without the host's launches of the captured kernels; the graphs' memory pools and "
            "static buffers are not in the memory estimate");
    r.unfused_attention = !e.flash_attention;
    // The plan's attention kernel (docs/kernels.md §6): Megatron's AttnBackend sets TE's
    // NVTE_FLASH_ATTN / NVTE_FUSED_ATTN (megatron/core/extensions/transformer_engine.py).
    if (e.flash_attention) {
        switch (e.attention_kernel) {
        case hardware::AttentionKernel::Flash2:
        case hardware::AttentionKernel::Flash3:
            r.attention_backend = "flash";
            if (e.attention_kernel == hardware::AttentionKernel::Flash3)
                approximate(m, "strategy.attention_kernel",
                    "flash3: --attention-backend flash runs FA3 only where flash_attn_3 is installed (else FA2)");
            break;
        case hardware::AttentionKernel::Cudnn:
            r.attention_backend = "fused";
            break;
        case hardware::AttentionKernel::MptTriton:
            approximate(m, "strategy.attention_kernel",
                "mpt-triton: Megatron has no flag for llm-foundry's Triton kernel; --attention-backend auto");
            break;
        case hardware::AttentionKernel::Default:
        case hardware::AttentionKernel::Unfused:
            break;
        }
    }

    for (const std::string& difference : addMegatronModelArguments(m.arguments, model))
        approximate(m, "model", difference);
    addMegatronRunArguments(m.arguments, r, model.moe.has_value());
    // torch.compile (docs/kernels.md, "Eager and compiled blocks"): Megatron-LM has no switch for it; its own fused
    // kernels run the norms and the activation fused by default (TE's LayerNormLinear, --bias-swiglu-fusion,
    // --rope-fusion, --bias-dropout-fusion: arguments.py store_false flags at d98e8a64), as costed.
    if (e.compile == megatron::Compile::On)
        m.comments.push_back(
            "compile on: Megatron-LM has no torch.compile switch; its fused kernels (TE LayerNormLinear, "
            "bias-SwiGLU, RoPE and bias-dropout-add fusions, on by default) fuse the same ops");
    else if (e.compile == megatron::Compile::Off)
        approximate(m, "strategy.compile",
            "compile off: Megatron-LM runs its fused kernels anyway (TE LayerNormLinear; bias-SwiGLU, RoPE and "
            "bias-dropout-add fusions on by default, off only with --no-bias-swiglu-fusion --no-rope-fusion "
            "--no-bias-dropout-fusion); costed fused");
    m.environment = megatronEnvironment(r.tensor_parallel, r.context_parallel, r.data_parallel_kind);
    if (isMegatronFsdp(r.data_parallel_kind) && (r.tensor_parallel > 1 || r.context_parallel > 1))
        m.comments.push_back("Megatron-FSDP with TP or CP: Megatron warns that before Blackwell TP/CP want "
                             "CUDA_DEVICE_MAX_CONNECTIONS=1 and FSDP wants it unset; it is unset");
    if (e.precision == megatron::Precision::Fp8)
        m.comments.push_back("FP8: Transformer Engine's hybrid format with the " + r.fp8_recipe + " recipe"
            + (r.fp8_recipe == "delayed" ? " (Megatron's default)" : " (--fp8-recipe)")
            + "; the plan's casts are costed under it (docs/kernels.md §8)");
    m.exported = e;

    if (!hardware)
        return m;
    m.planned = megatron::estimate(model, s, *hardware);
    if (e != s) {
        m.recosted = megatron::estimate(model, e, *hardware);
        if (!m.recosted->fits)
            addExportNote(m.notes, ExportNoteKind::Approximation, "memory",
                "the Megatron-LM version does not fit: " + megatronPredictionText(*m.recosted));
    } else if (!m.planned->fits) {
        addExportNote(m.notes, ExportNoteKind::Approximation, "memory",
            "the plan does not fit: " + megatronPredictionText(*m.planned));
    }
    if (s.zero == 2 && e.zero == 2) {
        megatron::ParallelStrategy zero1 = e;
        zero1.zero = 1;
        const megatron::Estimate distributed = megatron::estimate(model, zero1, *hardware);
        m.comments.push_back("ZeRO-2 is Megatron-FSDP's optim_grads; the distributed optimizer alone "
                             "(--use-distributed-optimizer, ZeRO-1: whole gradient buffers) would be "
            + megatronPredictionText(distributed));
    }
    return m;
}

std::string megatronPlanScript(const megatron::PlanFile& plan, const MegatronPlanArgs& m)
{
    const hardware::ClusterDescription& cluster = plan.cluster;
    const MegatronRun& r = m.run;
    std::string s;
    s += "#!/usr/bin/env bash\n";
    s += "# Megatron-LM pretrain_gpt.py arguments for a Stratex plan, written by Stratex.\n";
    s += "# " + commentLine(m.model_summary) + "\n";
    s += "# "
        + commentLine("plan: " + plan.strategy.notation() + ", schedule "
            + std::string(megatron::pipelineScheduleName(plan.strategy.schedule)) + ", "
            + std::string(megatron::precisionName(plan.strategy.precision)) + " on " + str(cluster.num_nodes) + " x "
            + str(cluster.gpus_per_node) + " " + cluster.gpu.name)
        + "\n";
    s += "# Megatron: tp " + str(r.tensor_parallel) + ", pp " + str(r.pipeline_parallel)
        + (r.virtual_stages > 1 ? ", vpp " + str(r.virtual_stages) : "") + ", cp " + str(r.context_parallel)
        + (plan.model.moe ? ", ep " + str(r.expert_parallel) + ", etp " + str(r.expert_tensor_parallel) : "") + ", dp "
        + str(r.data_parallel) + megatronDataParallelText(r.data_parallel_kind) + "\n";
    s += "# Predicted by Stratex (its Megatron-space cost model):\n";
    if (m.planned && m.recosted) {
        s += "#   the plan:            " + megatronPredictionText(*m.planned) + "\n";
        s += "#   as Megatron runs it: " + megatronPredictionText(*m.recosted) + "\n";
    } else if (m.planned) {
        s += "#   " + megatronPredictionText(*m.planned) + "\n";
    } else {
        s += "#   not costed\n";
    }
    if (!m.comments.empty())
        s += "# Exported differently from the plan, or to know:\n";
    for (const std::string& comment : m.comments)
        s += "#   " + commentLine(comment) + "\n";
    s += megatronLaunchText(m.arguments, m.environment, cluster.num_nodes, cluster.gpus_per_node);
    return s;
}

} // namespace stratex::exporting
