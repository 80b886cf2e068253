// SPDX-License-Identifier: GPL-3.0-or-later
// torchtitan main's Python config module. Every torchtitan name below is read from
// pytorch/torchtitan at b5bcd76c66d0acb1a08b176d9639425bc55e0b2a (2026-08-21):
//   torchtitan/config/manager.py            ConfigManager._load_config: --module, --config
//   torchtitan/config/configs.py            TrainingConfig, ParallelismConfig
//   torchtitan/trainer.py                   Trainer.Config, the token arithmetic of Trainer.__init__
//   torchtitan/distributed/activation_checkpoint.py   FullAC, SelectiveAC, ActivationCheckpointingConfig
//   torchtitan/config/override.py           @override, OverrideConfig.imports, apply_overrides
//   torchtitan/components/quantization/float8.py      Float8LinearConverter, Float8GroupedExpertsConverter
//   torchtitan/distributed/parallel_dims.py ParallelDims._validate (EP divides dp_shard * cp * tp)
//   torchtitan/distributed/pipeline_parallel.py       schedules, module_fqns_per_model_part, the CSV
//   torchtitan/models/<model>/__init__.py   model_registry (the flavours: torchtitan_flavours.cpp)
//   torchtitan/models/llama3/config_registry.py       llama3_8b (the Trainer.Config this mirrors)
//   torchtitan/models/deepseek_v3/config_registry.py  deepseek_v3_671b(_float8)
#include "core/export/torchtitan_module.h"

#include <algorithm>

#include "core/export/plan_file_checks.h"
#include "core/export/pytorch_plan_exports.h"
#include "core/export/shell_quote.h"
#include "core/export/uniform_plan.h"

namespace stratex::exporting {

namespace {

std::string str(long long n)
{
    return std::to_string(n);
}

class Notes {
public:
    explicit Notes(TorchtitanJob& job)
        : m_job(job)
    {
    }
    void approximation(std::string field, const std::string& text)
    {
        addExportNote(m_job.notes, ExportNoteKind::Approximation, std::move(field), "torchtitan: " + text);
    }
    void refusal(std::string field, const std::string& text)
    {
        addExportNote(m_job.notes, ExportNoteKind::Refusal, std::move(field), "torchtitan: " + text);
    }

private:
    TorchtitanJob& m_job;
};

// The model (torchtitan_flavours.h), its notes into the job's.
void chooseModel(TorchtitanJob& job, const model::ModelDescription& model)
{
    job.model = torchtitanMainModel(model);
    for (const ExportNote& note : job.model.notes)
        addExportNote(job.notes, note.kind, note.field, note.text);
}

void setFloat8(TorchtitanJob& job, const model::ModelDescription& model, Notes& notes)
{
    // deepseek_v3_671b_float8: the dense linears but the LM head and the router gate, and the
    // experts' grouped GEMMs through Float8GroupedExpertsConverter (Megatron's FP8 also keeps the
    // output layer in bf16).
    job.float8_linear = true;
    job.float8_filter_fqns = { "lm_head" };
    if (model.moe) {
        job.float8_filter_fqns.push_back("router.gate");
        job.float8_grouped_experts = true;
    }
    notes.approximation("strategy.precision",
        "FP8: torchtitan main's float8 recipe is rowwise (Float8LinearConverter recipe_name \"rowwise\"; per-row "
        "scales), not Megatron's per-tensor scaling; the GEMMs run in FP8 as costed");
}

// models/common/decoder.py Decoder.Config.update_from_config: "Weight tying is not supported with
// Pipeline Parallel."
void checkWeightTying(const TorchtitanJob& job, const model::ModelDescription& model, Notes& notes)
{
    if (model.tied_embeddings && job.pp > 1)
        notes.refusal("model.tied_embeddings",
            "tied embeddings with pipeline parallelism: torchtitan main refuses weight tying with PP (decoder.py)");
}

// Training tokens (Trainer.__init__: gradient accumulation = num_tokens_per_train_step /
// (num_tokens_per_microbatch_per_dp_rank x num_pp_microbatches x dp), dp = replicate x shard).
void setBatch(TorchtitanJob& job, long long microBatch, int microbatches, long long globalBatch, int seq, Notes& notes)
{
    job.tokens_per_microbatch_per_dp_rank = microBatch * seq;
    job.tokens_per_train_step = globalBatch * seq;
    job.max_context_length = seq;
    job.num_pp_microbatches = job.pp > 1 ? microbatches : 1;
    const long long divisor = (job.sequence_parallel ? job.tp : 1) * (job.cp > 1 ? 2 * job.cp : 1);
    if (divisor > 1 && job.tokens_per_microbatch_per_dp_rank % divisor != 0)
        notes.refusal("model.seq_length",
            str(job.tokens_per_microbatch_per_dp_rank) + " tokens per micro-batch do not divide by " + str(divisor)
                + " (TP x 2 CP), as Trainer.__init__ requires");
    const long long step
        = job.tokens_per_microbatch_per_dp_rank * job.num_pp_microbatches * job.dp_replicate * job.dp_shard;
    if (step > 0 && job.tokens_per_train_step % step != 0)
        notes.refusal("strategy.global_batch_size",
            "num_tokens_per_train_step " + str(job.tokens_per_train_step) + " is not a multiple of the tokens of one "
                + "gradient accumulation step (" + str(step) + "), as Trainer.__init__ requires");
    // trainer.py Trainer.Config._validate_cuda_graphs: CUDA graphs refuse PP, and EP with the
    // default token dispatcher.
    job.disable_cuda_graphs = job.pp > 1 || job.ep > 1;
}

std::vector<std::vector<std::string>> fqnsPerPart(const std::vector<int>& partLayers)
{
    std::vector<std::vector<std::string>> parts;
    int first = 0;
    for (std::size_t c = 0; c < partLayers.size(); ++c) {
        std::vector<std::string> names;
        if (c == 0)
            names.push_back("tok_embeddings");
        for (int i = first; i < first + partLayers[c]; ++i)
            names.push_back("layers." + str(i));
        if (c + 1 == partLayers.size()) {
            names.push_back("norm");
            names.push_back("lm_head"); // main's name (v0.2: "output")
        }
        parts.push_back(std::move(names));
        first += partLayers[c];
    }
    return parts;
}

} // namespace

std::string_view torchtitanVersionName(TorchtitanVersion version)
{
    return version == TorchtitanVersion::V0_2 ? "0.2" : "main";
}

std::optional<TorchtitanVersion> parseTorchtitanVersion(std::string_view name)
{
    if (name == "main")
        return TorchtitanVersion::Main;
    if (name == "0.2")
        return TorchtitanVersion::V0_2;
    return std::nullopt;
}

TorchtitanJob torchtitanMainJob(const megatron::PlanFile& plan)
{
    requireValidStrategy(plan, "torchtitan");
    const model::ModelDescription& model = plan.model;
    const megatron::ParallelStrategy& s = plan.strategy;
    TorchtitanJob job;
    Notes notes(job);
    job.header.push_back("model " + model.name + ": " + str(model.num_layers) + " layers, hidden "
        + str(model.hidden_size) + ", seq " + str(model.seq_length));
    job.header.push_back("plan: " + s.notation() + ", schedule "
        + std::string(plan.gpipe ? "gpipe" : megatron::pipelineScheduleName(s.schedule)) + " on "
        + str(plan.cluster.num_nodes) + " x " + str(plan.cluster.gpus_per_node) + " " + plan.cluster.gpu.name);
    chooseModel(job, model);

    // Data parallelism: FSDP2 over dp (parallel_dims.py folds CP into the FSDP mesh); reshard
    // after forward "always" is ZeRO-3, "never" ZeRO-2; ZeRO-0 is the replicate mesh (DDP).
    job.dp_replicate = s.dp;
    if (s.zero >= 1 && s.dp * s.cp > 1) {
        // HSDP (dp_shard, docs/hsdp.md): fully_shard over the (dp_replicate, fsdp) mesh.
        job.dp_replicate = s.dpReplicas();
        job.dp_shard = s.dpShard();
        job.fsdp_reshard_after_forward = s.zero == 3 ? "always" : "never";
        if (s.zero == 1)
            notes.approximation("strategy.zero",
                "ZeRO-1: torchtitan's FSDP2 without resharding after forward shards gradients too (ZeRO-2, less "
                "memory)");
    }
    if (s.cp > 1 && s.zero == 0)
        notes.approximation("strategy.zero",
            "context parallelism: torchtitan shards the weights over the CP ranks (FSDP), the plan replicates them");
    job.tp = s.tp;
    job.sequence_parallel = s.tp == 1 || s.sequence_parallel;
    job.async_tp = s.tp_comm_overlap && s.tp > 1; // the plan's TP overlap: torchtitan's AsyncTP
    job.compile = s.compile == megatron::Compile::On || job.async_tp; // docs/kernels.md
    job.compile_loss = s.compile_loss;
    job.cp = s.cp;
    // Language models attend with FlexAttention (config_utils.get_attention_config), whose CP load
    // balancer is "ptrr" (context_parallel/api.py; torchtitan_recipes/tests/models.py sets it so).
    if (s.cp > 1)
        job.cp_load_balancer = "ptrr";
    if (s.cp > 1 && s.cp_comm_type != megatron::CpCommType::P2p)
        notes.approximation("strategy.cp_comm_type",
            "context parallelism cp_comm_type " + std::string(megatron::cpCommTypeName(s.cp_comm_type))
                + ": torchtitan main only has ring attention (K/V rotated round the CP group); it trains, at the ring's cost");

    // Experts: torchtitan main removed expert tensor parallelism (pytorch/torchtitan#3167,
    // c4b409af, 2026-04-30): the experts are sharded over ep and efsdp = dp_shard x cp x tp / ep.
    if (model.moe) {
        job.ep = s.ep;
        if (s.ep > 1 && s.etp > 1)
            notes.refusal("strategy.etp",
                "expert tensor parallel degree " + str(s.etp) + ": torchtitan main has no expert tensor parallelism "
                    + "(removed in pytorch/torchtitan#3167); plan with etp 1");
        const long long sparse = (job.dp_shard) * s.cp * s.tp;
        if (s.ep > 1 && sparse % s.ep != 0)
            notes.refusal("strategy.ep",
                "expert parallel degree " + str(s.ep) + " must divide dp_shard x cp x tp (" + str(sparse) + ")"
                    + (s.zero == 0 ? "; with ZeRO-0 the data-parallel ranks replicate and do not count" : "")
                    + " (parallel_dims.py)");
    }

    // The pipeline.
    job.pp = s.pp;
    if (s.pp > 1) {
        if (plan.gpipe) {
            job.schedule = "GPipe"; // torch.distributed.pipelining ScheduleGPipe
        } else if (s.schedule == megatron::PipelineSchedule::Interleaved && s.vpp > 1) {
            job.schedule = "Interleaved1F1B";
        } else if (s.schedule == megatron::PipelineSchedule::ZbH1) {
            // torch's zero-bubble schedules are multi-stage or V-shaped; ZB-H1 with one stage per
            // rank runs as the CSV (_PipelineScheduleRuntime loads it, pipeline_parallel.py).
            job.schedule = "PipelineScheduleSingle";
            job.schedule_csv = "pipeline_schedule.csv";
            notes.approximation("strategy.schedule",
                "ZB-H1 runs the schedule CSV `stratex-cli export --to pytorch-schedule --out pipeline_schedule.csv` "
                "writes for this plan (I/W split backward); keep it beside the launch directory");
        }
        job.module_fqns_per_model_part = fqnsPerPart(megatron::chunkLayerCounts(s, model.num_layers));
        const int stages = s.pp * s.vpp;
        if (s.microbatches() < stages)
            notes.approximation("strategy.micro_batch_size",
                str(s.microbatches()) + " micro-batches for " + str(stages)
                    + " pipeline stages: torchtitan warns of a bubble");
    }
    checkWeightTying(job, model, notes);
    setBatch(job, s.micro_batch_size, s.microbatches(), s.global_batch_size, model.seq_length, notes);
    // CUDA graphs (docs/kernels.md §7): torchtitan main captures the forward-backward step unless
    // training.disable_cuda_graphs (trainer.py @ b5bcd76c); the plan runs them only when it was costed
    // so, "full-iteration", and torchtitan takes them (setBatch: not with PP or EP).
    const bool graphs = s.cuda_graphs == megatron::CudaGraphs::FullIteration;
    if (graphs && job.disable_cuda_graphs)
        notes.approximation("strategy.cuda_graphs",
            "full-iteration CUDA graphs planned: torchtitan's graphs refuse pipeline and expert parallelism "
            "(Trainer.Config._validate_cuda_graphs), so the step runs eagerly, slower than costed where the host "
            "bounds a layer");
    else if (s.cuda_graphs != megatron::CudaGraphs::None && !graphs)
        notes.approximation("strategy.cuda_graphs",
            "per-layer CUDA graphs (" + std::string(megatron::cudaGraphsName(s.cuda_graphs))
                + ") planned: torchtitan captures only the whole step; the step runs eagerly, slower than costed "
                  "where the host bounds a layer");
    job.disable_cuda_graphs = job.disable_cuda_graphs || !graphs;

    // Recomputation.
    if (s.recompute == megatron::Recompute::Full) {
        job.ac.kind = TorchtitanAc::Kind::Full;
        if (s.recompute_num_layers > 1)
            notes.approximation("strategy.recompute_num_layers",
                "full recompute in groups of " + str(s.recompute_num_layers)
                    + " layers: torchtitan checkpoints every block on its own (a little more memory)");
    } else if (s.recompute == megatron::Recompute::Selective) {
        // Megatron's recompute modules as the blocks' submodules (llama3/model.py,
        // deepseek_v3/model.py: attention.inner_attention, feed_forward, moe with shared_experts).
        job.ac.kind = TorchtitanAc::Kind::Modules;
        const megatron::RecomputeModules& m = s.recompute_modules;
        using megatron::RecomputeModule;
        if (m.has(RecomputeModule::CoreAttn))
            job.ac.modules.push_back("attention.inner_attention");
        if (m.has(RecomputeModule::Mlp))
            job.ac.modules.push_back("feed_forward");
        if (m.has(RecomputeModule::Moe))
            job.ac.modules.push_back("moe");
        else if (m.has(RecomputeModule::SharedExperts))
            job.ac.modules.push_back("moe.shared_experts");
        if (m.has(RecomputeModule::Layernorm))
            notes.approximation("strategy.recompute_modules",
                "layernorm recompute: a checkpointed norm keeps its input and the next GEMM keeps its output, so "
                "torchtitan saves nothing there (more memory than planned)");
        if (m.has(RecomputeModule::MoeAct))
            notes.approximation("strategy.recompute_modules",
                "moe_act recompute: torchtitan's grouped experts have no activation module to checkpoint (more "
                "memory than planned)");
        if (m.has(RecomputeModule::MlaUpProj))
            notes.approximation("strategy.recompute_modules",
                "mla_up_proj recompute: torchtitan's MLA attention has no up-projection module to checkpoint (more "
                "memory than planned)");
        if (job.ac.modules.empty())
            job.ac.kind = TorchtitanAc::Kind::None;
    }

    if (s.precision == megatron::Precision::Fp8) {
        setFloat8(job, model, notes);
        // Transformer Engine's recipe (docs/kernels.md §8): torchtitan main's Float8LinearConverter
        // scales dynamically per row ("rowwise", float8.py @ b5bcd76c); a TE recipe has no counterpart.
        if (const megatron::Fp8Recipe recipe = megatron::resolvedFp8Recipe(s); recipe != megatron::Fp8Recipe::Tensorwise)
            notes.approximation("strategy.fp8_recipe",
                std::string(megatron::fp8RecipeName(recipe))
                    + " recipe planned: torchtitan's float8 converter scales dynamically (rowwise), with no "
                      "Transformer Engine recipe");
    }
    if (s.precision == megatron::Precision::Fp16)
        notes.approximation("strategy.precision",
            "fp16: torchtitan trains in bfloat16 or float32 (mixed_precision_param bfloat16 here)");
    // A fused kernel torchtitan cannot be told to use (docs/kernels.md §6): said, nothing written.
    const hardware::AttentionKernel kernel = s.attention_kernel;
    if (s.flash_attention
        && (kernel == hardware::AttentionKernel::Cudnn || kernel == hardware::AttentionKernel::Flash3
            || kernel == hardware::AttentionKernel::MptTriton))
        notes.approximation("strategy.attention_kernel",
            std::string(hardware::attentionKernelName(kernel))
                + ": torchtitan has no option for it; its SDPA runs flash first (cuDNN first on sm100)");
    if (!s.flash_attention)
        notes.approximation("strategy.flash_attention",
            "unfused attention planned: torchtitan runs FlexAttention (fused, less activation memory)");
    if (!s.gradient_accumulation_fusion) // Megatron-Core's switch (te_dummy_wgrad.h): no torchtitan counterpart
        notes.approximation("strategy.gradient_accumulation_fusion",
            "gradient-accumulation fusion off planned: torchtitan has no such setting (autograd's weight gradients, "
            "no fp32 main_grad); nothing written");
    return job;
}

TorchtitanJob torchtitanMainJob(
    const galvatron::Plan& plan, const galvatron::SearchSettings& settings, const model::ModelDescription& model)
{
    TorchtitanJob job;
    Notes notes(job);
    const int world = plan.world > 0 ? plan.world : settings.world();
    const int layers = int(plan.layers.size());
    const int pp = std::max(1, plan.pp);
    const int tp = mostCommonTp(plan);
    const int cp = mostCommonUlysses(plan);
    const int dp = std::max(1, world / (pp * tp * cp));
    job.header.push_back("model " + model.name + ": " + str(model.num_layers) + " layers, hidden "
        + str(model.hidden_size) + ", seq " + str(model.seq_length));
    job.header.push_back("plan: pp " + str(pp) + ", chunks " + str(plan.chunks) + ", global batch " + str(plan.gbsz)
        + "; layers " + plan.layerSummary());
    chooseModel(job, model);

    int otherDegrees = 0;
    for (const galvatron::LayerStrategy& s : plan.layers)
        otherDegrees += s.tp != tp || s.sp != cp ? 1 : 0;
    if (otherDegrees > 0)
        notes.approximation("tp_sizes_enc",
            str(otherDegrees) + " of " + str(layers) + " layers planned with other TP/SP degrees: torchtitan uses one "
                + "of each (tp " + str(tp) + ", cp " + str(cp) + ")");
    if (cp > 1)
        notes.approximation("use_sp",
            "Ulysses SP " + str(cp) + " runs as torchtitan's context parallelism (ring attention), not an all-to-all");

    const DpTypeMix mix = dpTypeMix(plan);
    job.dp_replicate = dp;
    if (dp > 1 && (mix.any_zero3 || mix.any_zero2)) {
        job.dp_replicate = 1;
        job.dp_shard = dp;
        job.fsdp_reshard_after_forward = mix.any_zero3 ? "always" : "never";
        if (mix.any_zero3 && !mix.every_zero3)
            notes.approximation(
                "dp_types_enc", "per-layer ZeRO is not expressible: every layer reshards after forward (ZeRO-3)");
    }
    if (plan.embedSdp() == 1 && job.dp_shard == 1)
        notes.approximation("embed_sdp", "embedding / LM head: ZeRO-3 planned; torchtitan shards it only with FSDP");
    job.tp = tp;
    job.sequence_parallel = true; // Galvatron's TP is Megatron-SP style
    job.cp = cp;
    if (cp > 1) {
        job.cp_load_balancer = "ptrr";
        if (job.dp_shard == 1)
            notes.approximation("dp_types_enc",
                "context parallelism: torchtitan shards the weights over the CP ranks (FSDP), the plan replicates them");
    }

    job.pp = pp;
    const long long perStep = static_cast<long long>(plan.chunks) * dp;
    if (plan.gbsz % perStep != 0)
        notes.refusal("global_bsz",
            "global batch " + str(plan.gbsz) + " does not divide into " + str(plan.chunks) + " micro-batches x dp "
                + str(dp));
    const long long microbatch = std::max(1LL, plan.gbsz / perStep);
    if (pp > 1) {
        job.schedule = plan.pipeline_type == galvatron::PipelineType::GPipe ? "GPipe" : "1F1B";
        job.module_fqns_per_model_part = fqnsPerPart(plan.pp_division);
        if (plan.pipeline_type != galvatron::PipelineType::GPipe && plan.chunks < pp)
            notes.approximation("chunks",
                str(plan.chunks) + " micro-batches for " + str(pp) + " stages: torchtitan warns of a bubble");
    }
    checkWeightTying(job, model, notes);
    setBatch(job, microbatch, plan.chunks, plan.gbsz, model.seq_length, notes);

    // Recompute: exactly the layers the plan checkpoints.
    std::vector<int> checkpointed;
    for (int i = 0; i < layers; ++i)
        if (plan.layers[std::size_t(i)].checkpoint)
            checkpointed.push_back(i);
    if (!checkpointed.empty() && int(checkpointed.size()) == layers) {
        job.ac.kind = TorchtitanAc::Kind::Full;
    } else if (!checkpointed.empty()) {
        job.ac.kind = TorchtitanAc::Kind::Layers;
        job.ac.layers = checkpointed;
    }

    if (settings.mixed_precision == galvatron::MixedPrecision::Fp16)
        notes.approximation("mixed_precision",
            "fp16: torchtitan trains in bfloat16 or float32 (mixed_precision_param bfloat16 here)");
    if (settings.mixed_precision == galvatron::MixedPrecision::Fp32)
        job.mixed_precision_param = "float32";
    return job;
}

TorchtitanConfig torchtitanModule(
    const galvatron::Plan& plan, const galvatron::SearchSettings& settings, const model::ModelDescription& model)
{
    TorchtitanJob job = torchtitanMainJob(plan, settings, model);
    return { torchtitanModuleText(job), std::move(job.notes) };
}

TorchtitanConfig torchtitanModule(const megatron::PlanFile& plan)
{
    TorchtitanJob job = torchtitanMainJob(plan);
    return { torchtitanModuleText(job), std::move(job.notes) };
}

TorchtitanConfig torchtitanExport(TorchtitanVersion version, const galvatron::Plan& plan,
    const galvatron::SearchSettings& settings, const model::ModelDescription& model)
{
    return version == TorchtitanVersion::V0_2 ? torchtitanConfig(plan, settings, model)
                                              : torchtitanModule(plan, settings, model);
}

TorchtitanConfig torchtitanExport(TorchtitanVersion version, const megatron::PlanFile& plan)
{
    return version == TorchtitanVersion::V0_2 ? torchtitanPlanConfig(plan) : torchtitanModule(plan);
}

} // namespace stratex::exporting
