// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/layer_memory.h"

#include <cmath>

#include "core/galvatron/memory_budget.h"
#include "core/galvatron/zero_ratio.h"

namespace stratex::galvatron {

int inFlightMicroBatches(PipelineType type, int pp, int chunks, int stage)
{
    if (pp == 1)
        return 1;
    return type == PipelineType::PipeDreamFlush ? pp - stage : chunks;
}

LayerMemory layerMemory(const CostModel& model, const LayerStrategy& s, int gbsz, int chunks, int stage)
{
    const CostSettings& settings = model.settings();
    const profile::LayerMemoryModel& table = model.inputs().memory.layer;
    LayerMemory result;
    result.local_batch = model.localBatch(gbsz, chunks, s.dp);
    result.in_flight_micro_batches = inFlightMicroBatches(settings.pipeline_type, s.pp, chunks, stage);
    const std::int64_t clb = result.in_flight_micro_batches * result.local_batch;

    double modelStates = 4 * (table.parameter_size_mb / s.tp);
    if (s.dp_type != DpType::Ddp)
        modelStates *= zeroRatio(s.dp_type, s.sdp(), chunks, settings.mixed(), settings.async_grad_reduce);

    double activation = 0;
    if (s.checkpoint) {
        activation = table.checkpointActivation() * double(clb);
        if (s.sp > 1 || (s.tp > 1 && settings.sequence_parallel))
            activation /= s.tpsp();
    } else {
        activation = table.activation(s.tpsp()) * double(clb);
    }
    result.model_states_mb = modelStates;
    result.activation_mb = activation;
    result.total_mb = modelStates + activation;
    result.weight_mb = weightMb(result.total_mb);
    return result;
}

} // namespace stratex::galvatron
