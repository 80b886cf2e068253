// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/galvatron_plan_from_strategy.h"

#include <cmath>

#include "core/common/error.h"
#include "core/common/json_output.h"
#include "core/export/galvatron_config.h"
#include "core/export/plan_file_checks.h"
#include "core/galvatron/model_settings.h"

namespace stratex::exporting {

GalvatronPlan galvatronPlanFromStrategy(const megatron::PlanFile& file, std::string_view target)
{
    requireValidStrategy(file, target);
    const megatron::ParallelStrategy& s = file.strategy;
    const std::string where
        = (file.file.empty() ? std::string("the plan") : file.file) + ": not exported to " + std::string(target) + ": ";
    const auto refuse = [&](const std::string& dimension, const std::string& why) {
        throw Error(where + dimension + " cannot be expressed (" + why + ")");
    };
    if (s.vpp > 1)
        refuse("virtual pipeline stages (vpp " + std::to_string(s.vpp) + ")",
            "the runtime runs one model chunk per pipeline stage; export it to Megatron-LM or torchtitan, or plan "
            "with vpp 1");
    const bool paddle = target == "PaddleNLP";
    const bool ulysses = s.cp > 1 && s.cp_comm_type == megatron::CpCommType::A2a;
    if (ulysses && s.tp > 1)
        refuse("Ulysses context parallelism (cp " + std::to_string(s.cp) + ", a2a) beside tp "
                + std::to_string(s.tp),
            "its Ulysses sequence parallelism (use_sp / usp_flag) runs over the layer's TP group in place of "
            "Megatron TP; Galvatron's comm_groups.py asserts the two are not both > 1");
    if (s.cp > 1 && !ulysses && paddle)
        refuse("ring context parallelism (cp " + std::to_string(s.cp) + ")",
            "the port's fine-grained config has no context-parallel key, only Ulysses (usp_flag_list); plan with "
            "cp 1 or cp_comm_type a2a and tp 1");
    if ((s.ep > 1 || s.etp > 1) && paddle)
        refuse("expert parallelism (ep " + std::to_string(s.ep) + ", etp " + std::to_string(s.etp) + ")",
            "the port's fine-grained config has no expert-parallel key and its model no experts; plan with ep 1 "
            "and etp 1");
    if (s.cpu_offload_layers > 0) // docs/memory-model.md, "CPU activation offload"
        refuse("CPU activation offload (cpu_offload_layers " + std::to_string(s.cpu_offload_layers) + ")",
            "the runtime has no activation offload, and the plan's memory counts those layers' activations on the "
            "host; export it to Megatron-LM or Megatron-Bridge, or plan without it");

    GalvatronPlan out;
    const auto note = [&](std::string field, const std::string& text) {
        addExportNote(out.notes, ExportNoteKind::Approximation, std::move(field), std::string(target) + ": " + text);
    };
    if (s.cuda_graphs != megatron::CudaGraphs::None) // docs/kernels.md §7
        note("strategy.cuda_graphs",
            "CUDA graphs (" + std::string(megatron::cudaGraphsName(s.cuda_graphs))
                + ") planned: the runtime has no CUDA-graph option and runs eagerly; the plan's time, costed "
                  "without the host's launches, is optimistic for small or MoE layers");
    galvatron::SearchSettings& settings = out.settings;
    settings.num_nodes = file.cluster.num_nodes;
    settings.num_gpus_per_node = file.cluster.gpus_per_node;
    settings.memory_constraint_gb = int(std::floor(file.cluster.gpu.memory_gb));
    settings.sequence_parallel = s.sequence_parallel;
    settings.mixed_precision
        = s.precision == megatron::Precision::Fp16 ? galvatron::MixedPrecision::Fp16 : galvatron::MixedPrecision::Bf16;
    settings.settle_bsz = s.global_batch_size;
    settings.min_bsz = settings.max_bsz = s.global_batch_size;
    galvatron::setModelShape(settings, file.model);
    if (s.precision == megatron::Precision::Fp8)
        note("strategy.precision", "FP8 planned; Galvatron's runtimes train in bf16 (the plan's time assumed FP8 GEMMs)");
    if (file.model.mtp_num_layers > 0)
        note("model.mtp_num_layers", std::to_string(file.model.mtp_num_layers)
                + " multi-token-prediction module(s) planned and costed on the last stage; Galvatron's models have "
                  "none, so the run trains without them");

    galvatron::DpType dpType = galvatron::DpType::Ddp;
    if (s.dp > 1 && s.zero == 3)
        dpType = galvatron::DpType::Zero3;
    else if (s.dp > 1 && s.zero >= 1)
        dpType = galvatron::DpType::Zero2;
    if (s.zero >= 1 && s.dpReplicas() > 1) // HSDP (docs/hsdp.md): Galvatron's dp types shard over the whole group
        note("strategy.dp_shard", "HSDP planned (shard over " + std::to_string(s.dpShard()) + " of " + std::to_string(s.dp)
                + " data-parallel ranks, replicated " + std::to_string(s.dpReplicas())
                + " times); written as sharded over all " + std::to_string(s.dp) + " (no hybrid sharding here: less memory, "
                + "other traffic)");
    if (s.dp > 1 && s.zero == 1)
        note("strategy.zero", "ZeRO-1 planned; written as ZeRO-2 (no ZeRO-1 here; gradients are sharded too: less memory)");
    settings.default_dp_type = dpType == galvatron::DpType::Ddp ? galvatron::DpType::Ddp : galvatron::DpType::Zero2;
    const bool checkpoint = s.recompute != megatron::Recompute::None;
    if (s.recompute == megatron::Recompute::Selective)
        note("strategy.recompute", "selective recompute planned; written as checkpointing every layer (less memory, more time)");
    if (s.recompute == megatron::Recompute::Full && s.recompute_num_layers > 1)
        note("strategy.recompute_num_layers", "full recompute in groups of " + std::to_string(s.recompute_num_layers)
            + " layers planned; every layer is checkpointed on its own (a little more memory)");
    if (s.schedule == megatron::PipelineSchedule::ZbH1)
        note("strategy.schedule", "ZB-H1 planned; written as 1F1B (PipeDream-flush), which has no deferred weight gradients");
    if (!s.flash_attention)
        note("strategy.flash_attention",
            paddle ? "unfused attention planned; written with flash attention (--use_flash_attention true: less "
                     "memory than planned)"
                   : "unfused attention planned; the runtime uses its own attention kernel");
    if (!s.gradient_accumulation_fusion) // Megatron-Core's switch (te_dummy_wgrad.h): neither runtime has it
        note("strategy.gradient_accumulation_fusion",
            "gradient-accumulation fusion off planned; the runtime has no such setting (its own gradient handling)");

    galvatron::Plan& p = out.plan;
    p.gbsz = s.global_batch_size;
    p.chunks = s.microbatches();
    p.pp = s.pp;
    p.world = s.world();
    p.pp_division = megatron::stageLayerCounts(s, file.model.num_layers);
    // "gpipe" in the plan file: both runtimes have it (Galvatron's pipeline_type, the port's FThenB).
    p.pipeline_type = file.gpipe ? galvatron::PipelineType::GPipe : galvatron::PipelineType::PipeDreamFlush;
    p.default_dp_type = settings.default_dp_type;
    // Ulysses is Galvatron's sp (use_sp, tp_sizes_enc the Ulysses degree); ring CP its cp.
    const int sp = ulysses ? s.cp : 1;
    const int cp = s.cp > 1 && !ulysses ? s.cp : 1;
    if (file.model.moe) {
        out.ep = s.ep;
        // Megatron's --expert-tensor-parallel-size defaults to the TP degree (validate_args).
        out.tp_of_ep = s.etp > 0 ? s.etp : s.tp;
        note("model.moe", "MoE: launch with a model whose is_moe_model is set (Galvatron builds expert groups only "
                          "then); ep " + std::to_string(out.ep) + ", tp_of_ep " + std::to_string(out.tp_of_ep)
                + " per layer");
    }
    for (int i = 0; i < file.model.num_layers; ++i) {
        galvatron::LayerStrategy layer;
        layer.pp = s.pp;
        layer.tp = s.tp;
        layer.sp = sp;
        layer.cp = cp;
        layer.dp = s.dp;
        layer.dp_type = dpType;
        layer.checkpoint = checkpoint;
        p.layers.push_back(layer);
    }
    p.embedding.pp = s.pp;
    p.embedding.tp = s.tp;
    p.embedding.sp = sp;
    p.embedding.cp = cp;
    p.embedding.dp = s.dp;
    p.embedding.dp_type = dpType;
    return out;
}

std::string galvatronPlanFileText(const GalvatronPlan& g, const megatron::PlanFile& file)
{
    const nlohmann::ordered_json json = strategyFileJson(g.plan, g.settings, file.model, file.cluster);
    if (!file.model.moe)
        return jsonText(json, 4, "the Galvatron configuration");
    // hybrid_parallel_config.py reads them by name, one value per layer (str2array).
    std::string ep;
    std::string etp;
    for (std::size_t i = 0; i < g.plan.layers.size(); ++i) {
        ep += (i ? "," : "") + std::to_string(g.ep);
        etp += (i ? "," : "") + std::to_string(g.tp_of_ep);
    }
    nlohmann::ordered_json out;
    for (const auto& [key, value] : json.items()) {
        out[key] = value;
        if (key == "dp_types_enc") {
            out["ep_sizes_enc"] = ep;
            out["tp_of_ep_sizes_enc"] = etp;
        }
    }
    return jsonText(out, 4, "the Galvatron configuration");
}

} // namespace stratex::exporting
