// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/galvatron_plan_from_strategy.h"

#include <cmath>

#include "core/common/error.h"
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
    if (s.cp > 1)
        refuse("context parallelism (cp " + std::to_string(s.cp) + ")",
            "its sequence parallelism is Ulysses' all-to-all over heads, not ring attention; plan with cp 1");
    if (s.ep > 1 || s.etp > 1)
        refuse("expert parallelism (ep " + std::to_string(s.ep) + ", etp " + std::to_string(s.etp) + ")",
            "it has no expert-parallel degree; plan with ep 1 and etp 1");

    GalvatronPlan out;
    const auto note = [&](const std::string& text) { out.warnings.push_back(std::string(target) + ": " + text); };
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
        note("FP8 planned; Galvatron's runtimes train in bf16 (the plan's time assumed FP8 GEMMs)");

    galvatron::DpType dpType = galvatron::DpType::Ddp;
    if (s.dp > 1 && s.zero == 3)
        dpType = galvatron::DpType::Zero3;
    else if (s.dp > 1 && s.zero >= 1)
        dpType = galvatron::DpType::Zero2;
    if (s.dp > 1 && s.zero == 1)
        note("ZeRO-1 planned; written as ZeRO-2 (no ZeRO-1 here; gradients are sharded too: less memory)");
    settings.default_dp_type = dpType == galvatron::DpType::Ddp ? galvatron::DpType::Ddp : galvatron::DpType::Zero2;
    const bool checkpoint = s.recompute != megatron::Recompute::None;
    if (s.recompute == megatron::Recompute::Selective)
        note("selective recompute planned; written as checkpointing every layer (less memory, more time)");
    if (s.recompute == megatron::Recompute::Full && s.recompute_num_layers > 1)
        note("full recompute in groups of " + std::to_string(s.recompute_num_layers)
            + " layers planned; every layer is checkpointed on its own (a little more memory)");
    if (s.schedule == megatron::PipelineSchedule::ZbH1)
        note("ZB-H1 planned; written as 1F1B (PipeDream-flush), which has no deferred weight gradients");
    if (!s.flash_attention)
        note("unfused attention planned; the runtime uses its own attention kernel");

    galvatron::Plan& p = out.plan;
    p.gbsz = s.global_batch_size;
    p.chunks = s.microbatches();
    p.pp = s.pp;
    p.world = s.world();
    p.pp_division = megatron::stageLayerCounts(s, file.model.num_layers);
    p.pipeline_type = galvatron::PipelineType::PipeDreamFlush;
    p.default_dp_type = settings.default_dp_type;
    for (int i = 0; i < file.model.num_layers; ++i) {
        galvatron::LayerStrategy layer;
        layer.pp = s.pp;
        layer.tp = s.tp;
        layer.dp = s.dp;
        layer.dp_type = dpType;
        layer.checkpoint = checkpoint;
        p.layers.push_back(layer);
    }
    p.embedding.pp = s.pp;
    p.embedding.tp = s.tp;
    p.embedding.dp = s.dp;
    p.embedding.dp_type = dpType;
    return out;
}

} // namespace stratex::exporting
