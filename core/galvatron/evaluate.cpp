// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/evaluate.h"

#include <algorithm>
#include <cstdint>

#include "core/common/error.h"
#include "core/galvatron/memory_budget.h"
#include "core/galvatron/search_task.h"

namespace stratex::galvatron {

namespace {

struct BufferTask {
    TpSpMode mode = TpSpMode::TpWithSp;
    int bufferTp = 1;
    bool matched = false;
};

// The first search task (Galvatron's mode order, buffer TP ascending) whose filters admit the plan.
BufferTask firstAdmittingTask(const Plan& plan, const SearchSettings& settings)
{
    const int world = plan.world;
    const int pp = plan.pp;
    int maxTpsp = plan.embedding.tpsp();
    bool ulysses = plan.embedding.sp > 1;
    bool megatron = plan.embedding.tp > 1;
    int maxDpUsed = plan.embedding.dp;
    for (const galvatron::LayerStrategy& s : plan.layers) {
        maxTpsp = std::max(maxTpsp, s.tpsp());
        ulysses = ulysses || s.sp > 1;
        megatron = megatron || s.tp > 1;
        maxDpUsed = std::max(maxDpUsed, s.dp);
    }
    SearchTask probe;
    probe.gbsz = plan.gbsz;
    probe.chunks = plan.chunks;
    probe.pp = pp;
    const int maxDp = maxDataParallel(probe, world);
    if (maxDpUsed <= maxDp) {
        for (TpSpMode mode : kTaskModeOrder) {
            if ((mode == TpSpMode::TpOnly && ulysses) || (mode == TpSpMode::SpOnly && megatron))
                continue;
            for (int b : globalBufferTpDegrees(mode, world, pp, maxDp, settings.max_tp_deg)) {
                if (b >= maxTpsp)
                    return { mode, b, true };
            }
        }
    }
    return { TpSpMode::TpWithSp, maxTpsp, false };
}

} // namespace

Evaluation evaluate(const galvatron::CostModel& model, const SearchSettings& settings, const Plan& input)
{
    Evaluation ev;
    ev.plan = input;
    Plan& plan = ev.plan;
    const int numLayers = int(plan.layers.size());
    if (numLayers != model.numLayers())
        throw Error(
            "the plan has " + std::to_string(numLayers) + " layers, the model " + std::to_string(model.numLayers()));
    if (int(plan.pp_division.size()) != plan.pp)
        throw Error("the plan's pp_division has " + std::to_string(plan.pp_division.size()) + " stages, pp is "
            + std::to_string(plan.pp));
    if (plan.world == 0)
        plan.world = model.settings().world;

    // The plan's own pipeline schedule decides the in-flight micro-batches.
    galvatron::CostSettings costSettings = model.settings();
    costSettings.pipeline_type = plan.pipeline_type;
    const galvatron::CostModel local(model.inputs(), costSettings);

    if (plan.task_index < 0) {
        const BufferTask task = firstAdmittingTask(plan, settings);
        plan.tp_sp_mode = task.mode;
        plan.global_buffer_tp = task.bufferTp;
        if (!task.matched)
            ev.notes.push_back("no Galvatron search task admits this plan; the global buffer is sized for TP "
                + std::to_string(task.bufferTp));
    }

    ev.budget = galvatron::memoryBudget(settings.memory_constraint_gb, settings.allocator_reserve_fraction);
    const bool buffer
        = costSettings.sequence_parallel && costSettings.global_memory_buffer && plan.tp_sp_mode != TpSpMode::SpOnly;
    const int bufferMb = buffer
        ? galvatron::truncatedMb(galvatron::globalBufferMb(local, plan.gbsz, plan.chunks, plan.pp, plan.global_buffer_tp))
        : 0;

    std::vector<double> sync;
    std::vector<double> noSync;
    bool uneven = false;
    for (int i = 0; i < numLayers; ++i) {
        LayerBreakdown layer;
        layer.layer = i;
        layer.stage = plan.stageOf(i);
        layer.strategy = plan.layers[std::size_t(i)];
        layer.time = galvatron::layerTime(local, layer.strategy, plan.gbsz, plan.chunks);
        layer.memory = galvatron::layerMemory(local, layer.strategy, plan.gbsz, plan.chunks, layer.stage);
        uneven = uneven || plan.gbsz % (plan.chunks * layer.strategy.dp) != 0;
        sync.push_back(layer.time.sync_s);
        noSync.push_back(layer.time.no_sync_s);
        ev.layers.push_back(layer);
    }
    ev.embedding_time = galvatron::embeddingTime(local, plan.embedding, plan.gbsz, plan.chunks);
    ev.embedding_memory = galvatron::embeddingMemory(local, plan.embedding, plan.gbsz, plan.chunks);
    ev.pipeline = galvatron::pipelineCost(sync, noSync, plan.pp_division, ev.embedding_time.no_sync_s, plan.chunks);
    plan.time_cost_s = ev.pipeline.time_cost_s;
    plan.throughput_samples_per_s = plan.gbsz / plan.time_cost_s;

    plan.memory_cost_mb_per_stage.clear();
    plan.memory_remaining_mb_per_stage.clear();
    int first = 0;
    for (int stage = 0; stage < plan.pp; ++stage) {
        StageBreakdown s;
        s.stage = stage;
        s.first_layer = first;
        s.layers = plan.pp_division[std::size_t(stage)];
        // Weights may be galvatron::kUnfitMb: summed in 64 bits, reported saturated.
        std::int64_t layerMb = 0;
        for (int i = first; i < first + s.layers; ++i)
            layerMb += ev.layers[std::size_t(i)].memory.weight_mb;
        s.layer_memory_mb = galvatron::saturatedMb(layerMb);
        s.time_sync_s = ev.pipeline.stage_sync_s[std::size_t(stage)];
        s.time_no_sync_s = ev.pipeline.stage_no_sync_s[std::size_t(stage)];
        s.embedding_time_s = ev.embedding_time.no_sync_s[std::size_t(stage)];
        s.exposed_sync_s = ev.pipeline.exposed_sync_s[std::size_t(stage)];
        s.embedding_memory_mb = ev.embedding_memory.weight_mb[std::size_t(stage)];
        s.global_buffer_mb = bufferMb;
        const std::int64_t used = layerMb + s.embedding_memory_mb + s.global_buffer_mb;
        s.memory_remaining_mb = galvatron::saturatedMb(ev.budget.dp_budget_mb - used);
        s.memory_cost_mb = galvatron::saturatedMb(used + ev.budget.reserve_mb);
        if (s.memory_remaining_mb < 0) {
            ev.fits = false;
            ev.notes.push_back("stage " + std::to_string(stage) + " needs " + std::to_string(-s.memory_remaining_mb)
                + " MB more than the budget of " + std::to_string(ev.budget.dp_budget_mb) + " MB");
        }
        plan.memory_cost_mb_per_stage.push_back(s.memory_cost_mb);
        plan.memory_remaining_mb_per_stage.push_back(s.memory_remaining_mb);
        ev.stages.push_back(s);
        first += s.layers;
    }
    if (uneven)
        ev.notes.push_back(std::string("the batch does not divide evenly over chunks x dp for some layers; ")
            + (costSettings.batch_rounding == galvatron::BatchRounding::Honest
                    ? "costed with the busiest replica's ceil(gbsz / (chunks x dp)) samples"
                    : "costed as Galvatron main does (gbsz // chunks // dp), i.e. for fewer samples than trained"));
    return ev;
}

} // namespace stratex::galvatron
