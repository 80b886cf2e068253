// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/plan_timeline.h"

namespace stratex::galvatron {

PlanTimelineInput planTimelineInput(const Evaluation& evaluation)
{
    const Plan& plan = evaluation.plan;
    const int stages = int(evaluation.stages.size());
    PlanTimelineInput result;
    // Without a pipeline, micro-batches are plain gradient accumulation (forward, backward, next),
    // whatever the pipeline type: Galvatron counts one micro-batch in flight there.
    result.schedule = plan.pipeline_type == galvatron::PipelineType::GPipe && stages > 1 ? sim::ScheduleKind::GPipe
                                                                                    : sim::ScheduleKind::OneFOneB;
    result.memory_limit_mb = evaluation.budget.dp_budget_mb;

    std::vector<double> modelState(std::size_t(stages), 0.0);
    std::vector<double> storedPerMicrobatch(std::size_t(stages), 0.0);
    for (const LayerBreakdown& layer : evaluation.layers) {
        modelState[std::size_t(layer.stage)] += layer.memory.model_states_mb;
        storedPerMicrobatch[std::size_t(layer.stage)]
            += layer.memory.activation_mb / std::max(1, layer.memory.in_flight_micro_batches);
    }
    for (const StageBreakdown& stage : evaluation.stages) {
        modelState[std::size_t(stage.stage)] += stage.embedding_memory_mb + stage.global_buffer_mb;
        result.input.device_assignment.push_back(stage.stage);
    }
    result.input.model_state_mb_per_layer = modelState;

    for (int m = 0; m < std::max(1, plan.chunks); ++m) {
        sim::MicrobatchSpec microbatch;
        microbatch.id = m;
        for (const StageBreakdown& stage : evaluation.stages) {
            sim::LayerCost cost;
            const double stageUs = stage.time_no_sync_s * 1e6;
            cost.fw_us = stageUs / 3.0;
            cost.bw_us = 2.0 * stageUs / 3.0;
            cost.stored_mb = storedPerMicrobatch[std::size_t(stage.stage)];
            cost.peak_mb = 0;
            microbatch.layers.push_back(cost);
        }
        result.input.microbatches.push_back(std::move(microbatch));
    }
    return result;
}

} // namespace stratex::galvatron
